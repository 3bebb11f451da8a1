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
        }
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
