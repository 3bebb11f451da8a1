//! Background work for the dashboard. Each worker owns what it starts and reports back to the
//! App by value over the one `Msg` channel.

pub mod opener;
pub mod poller;
pub mod store;

use crate::api::download::{Downloader, file_name};
use crate::api::{Client, LoraType};
use crate::app::action::{DownloadEvent, Msg, PersistOp, TaskKey};
use rand::SeedableRng;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// The App's handles on its workers.
pub struct Workers {
    client: Client,
    downloader: Downloader,
    opener: Arc<dyn opener::Opener>,
    msgs: mpsc::Sender<Msg>,
    pub polls: mpsc::Sender<poller::PollCmd>,
    pub persist: mpsc::Sender<PersistOp>,
    catalogue: Option<tokio::task::JoinHandle<()>>,
    /// Where the recently used categories are kept.
    recent_categories: std::path::PathBuf,
}

/// Reads the recently used categories saved by an earlier session (none if unreadable).
pub fn load_recent_categories(path: &std::path::Path) -> Vec<String> {
    std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice::<Vec<String>>(&b).ok())
        .unwrap_or_default()
        .into_iter()
        .map(|c| crate::api::sanitize::sanitize_with_limit(&c, 100))
        .filter(|c| !c.trim().is_empty())
        .collect()
}

impl Workers {
    pub fn new(
        client: Client,
        downloader: Downloader,
        opener: Arc<dyn opener::Opener>,
        msgs: mpsc::Sender<Msg>,
        polls: mpsc::Sender<poller::PollCmd>,
        persist: mpsc::Sender<PersistOp>,
    ) -> Self {
        Workers {
            client,
            downloader,
            opener,
            msgs,
            polls,
            persist,
            catalogue: None,
            recent_categories: std::path::PathBuf::new(),
        }
    }

    /// Where `remember_categories` saves.
    #[must_use]
    pub fn with_recent_categories(mut self, path: std::path::PathBuf) -> Self {
        self.recent_categories = path;
        self
    }

    /// Saves the recently used categories off the UI loop; a failure is reported.
    pub fn remember_categories(&self, categories: Vec<String>) {
        let (path, msgs) = (self.recent_categories.clone(), self.msgs.clone());
        tokio::task::spawn_blocking(move || {
            let body = serde_json::to_vec(&categories).unwrap_or_default();
            if let Err(e) = crate::store::atomic::write_atomic(&path, &body, None) {
                let _ = msgs.blocking_send(Msg::StoreProblem(format!(
                    "cannot save recent categories to {}: {e}",
                    path.display()
                )));
            }
        });
    }

    /// Loads the catalogue; a newer request replaces one still in flight. Transient failures
    /// are reported and retried with backoff until the service answers.
    pub fn fetch_catalogue(
        &mut self,
        generation: u64,
        lora_type: Option<LoraType>,
        cate: Option<String>,
    ) {
        if let Some(old) = self.catalogue.take() {
            old.abort();
        }
        let (client, msgs) = (self.client.clone(), self.msgs.clone());
        self.catalogue = Some(tokio::spawn(async move {
            let mut rng = rand::rngs::StdRng::from_os_rng();
            let mut failures = 0;
            loop {
                let result = client.list_loras(lora_type, cate.as_deref()).await;
                let retry = match &result {
                    Err(e) if e.is_retryable() => {
                        failures += 1;
                        Some(crate::api::backoff::retry_delay(
                            failures,
                            e.retry_after(),
                            &mut rng,
                        ))
                    }
                    _ => None,
                };
                if msgs
                    .send(Msg::Catalogue { generation, result })
                    .await
                    .is_err()
                {
                    return;
                }
                match retry {
                    Some(delay) => tokio::time::sleep(delay).await,
                    None => return,
                }
            }
        }));
    }

    pub fn open(&self, url: String) {
        let (opener, msgs) = (self.opener.clone(), self.msgs.clone());
        tokio::task::spawn_blocking(move || {
            let result = opener::open_link(opener.as_ref(), &url);
            let _ = msgs.blocking_send(Msg::Opened(result));
        });
    }

    /// Downloads into the current directory, reporting progress at most ten times a second.
    pub fn download(&self, key: TaskKey, url: String) {
        let (dl, msgs) = (self.downloader.clone(), self.msgs.clone());
        tokio::spawn(async move {
            let name = file_name(&key.id, key.kind);
            let progress_msgs = msgs.clone();
            let progress_key = key.clone();
            let mut last: Option<Instant> = None;
            let mut progress = move |done: u64, total: Option<u64>| {
                if last.is_none_or(|l| l.elapsed() >= Duration::from_millis(100)) {
                    last = Some(Instant::now());
                    let _ = progress_msgs.try_send(Msg::Download {
                        key: progress_key.clone(),
                        event: DownloadEvent::Progress { done, total },
                    });
                }
            };
            let event = match dl
                .fetch(&url, std::path::Path::new("."), &name, false, &mut progress)
                .await
            {
                Ok(path) => DownloadEvent::Saved(path),
                Err(e) => DownloadEvent::Failed(e.to_string()),
            };
            let _ = msgs.send(Msg::Download { key, event }).await;
        });
    }
}
