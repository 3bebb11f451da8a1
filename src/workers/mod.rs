//! Background work for the dashboard. Each worker owns what it starts and reports back to the
//! App by value over the one `Msg` channel; the App reaches them only through `Cmd`s.

pub mod clipboard;
pub mod copies;
pub mod hooks;
pub mod opener;
pub mod poller;
pub mod previewer;
pub mod ranker;
pub mod router;
pub mod saver;

use crate::api::download::{Downloader, Template, TemplateValues};
use crate::api::{Client, LoraType};
use crate::cmd::{DownloadJob, PersistOp, PreviewRequest, TaskKey};
use crate::msg::{DownloadEvent, Msg, PreviewReport};
use crate::picture::Graphics;
use crate::store::cache::ImageCache;
use crate::store::catalogue::{CatalogueCache, Key};
use crate::store::watchlist::WatchStore;
use rand::SeedableRng;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Queue depth towards the poller and the saver: far beyond what a person can cause.
const QUEUE: usize = 4096;

/// What the workers need to know.
pub struct Setup {
    pub client: Client,
    pub downloader: Downloader,
    pub opener: Arc<dyn opener::Opener>,
    pub store: WatchStore,
    /// Where the recently used categories are kept.
    pub recent_categories: PathBuf,
    pub poll_interval: Duration,
    pub max_concurrent_polls: usize,
    pub failure_statuses: Vec<String>,
    /// How the filter's query is ranked, off the UI loop.
    pub rank: ranker::RankFn,
    /// Makes the clients of the other configured services; `None` knows only the current one.
    pub resolve: Option<router::Resolve>,
    /// `on_complete`'s program and arguments.
    pub on_complete: Option<Vec<String>>,
    /// Where downloads go.
    pub placement: Placement,
    /// Where the catalogue last loaded for each filter is kept; `None` keeps none.
    pub catalogue_cache: Option<CatalogueCache>,
}

/// The App's handles on its workers.
pub struct Workers {
    client: Client,
    /// The current service's downloader, for previews (the token goes to its origin only).
    downloader: Downloader,
    /// The current service as saved (its base URL without the trailing slash).
    service_key: String,
    opener: Arc<dyn opener::Opener>,
    msgs: mpsc::Sender<Msg>,
    /// Poll and download commands, through the router that picks each task's service.
    /// Unbounded: the App may not wait, and must not drop one (a watch list of 10,000 tasks
    /// sends 10,000 at start); what it holds is bounded by the watch list and the user's keys.
    routed: mpsc::UnboundedSender<router::Routed>,
    persist: mpsc::Sender<PersistOp>,
    catalogue: Option<JoinHandle<()>>,
    catalogue_cache: Option<CatalogueCache>,
    /// Held while a cached catalogue is written: one writer at a time per process.
    cache_writes: Arc<std::sync::Mutex<()>>,
    ranker: ranker::RankWorker,
    recent_categories: PathBuf,
    poller: JoinHandle<()>,
    router: JoinHandle<()>,
    saver: JoinHandle<()>,
    hooks: Option<hooks::Hooks>,
    /// Started once the terminal's graphics are known, if previews are on.
    previews: Option<previewer::PreviewWorker<Msg>>,
    /// Shared by previews and downloads: each file is fetched once.
    copies: copies::Copies,
    /// Says that this dashboard runs, for as long as it does, to the others on its data
    /// directory (its claims stand while it does).
    registration: crate::store::dashboards::Registration,
}

impl Workers {
    /// Starts the poller, the watch-list saver and the ranker; the others start per request.
    pub fn start(setup: Setup, msgs: mpsc::Sender<Msg>) -> Self {
        let (polls, poll_rx) = mpsc::channel(QUEUE);
        let (routed, routed_rx) = mpsc::unbounded_channel();
        let (persist, persist_rx) = mpsc::channel(QUEUE);
        let fetch = move |key: TaskKey, client: Client| async move {
            client.task_result(key.kind, &key.id).await
        };
        let poller = tokio::spawn(poller::run(
            poller::Schedule::new(setup.poll_interval, setup.max_concurrent_polls),
            poll_rx,
            msgs.clone(),
            fetch,
            setup.failure_statuses,
            rand::rngs::StdRng::from_os_rng(),
        ));
        let routing = router::Router {
            current: setup.client.clone(),
            current_downloader: setup.downloader.clone(),
            resolve: setup.resolve,
            polls,
            msgs: msgs.clone(),
        };
        let download_msgs = msgs.clone();
        let place = setup.placement;
        let copies = copies::Copies::default();
        let shared = copies.clone();
        let router_task = tokio::spawn(routing.run(routed_rx, move |dl, job| {
            download(dl, job, &place, shared.clone(), download_msgs.clone());
        }));
        // Beside the watch list: the dashboards that share it are the ones that claim from it.
        let dashboards = setup.store.path().with_file_name("dashboards");
        let registration = crate::store::dashboards::Registration::register(&dashboards);
        let claimant = saver::Claimant {
            id: registration.id().to_string(),
            running: Arc::new(move |id: &str| crate::store::dashboards::running(&dashboards, id)),
        };
        let saver = tokio::spawn(saver::run(setup.store, persist_rx, msgs.clone(), claimant));
        let msgs_for_hooks = msgs.clone();
        let ranker = ranker::RankWorker::start(setup.rank, msgs.clone());
        Workers {
            service_key: crate::store::watchlist::service_key(setup.client.base_url()),
            client: setup.client,
            downloader: setup.downloader,
            opener: setup.opener,
            msgs,
            routed,
            persist,
            catalogue: None,
            catalogue_cache: setup.catalogue_cache,
            cache_writes: Arc::default(),
            ranker,
            recent_categories: setup.recent_categories,
            poller,
            router: router_task,
            saver,
            previews: None,
            copies,
            registration,
            hooks: setup
                .on_complete
                .map(|argv| hooks::Hooks::new(argv, msgs_for_hooks)),
        }
    }

    /// Starts the preview worker, drawing with `graphics` and downloading into `cache`; its
    /// reports reach the App as `wrap(report)` (`Msg::Preview`). Without it, preview
    /// requests are dropped.
    pub fn start_previews(
        &mut self,
        graphics: Graphics,
        cache: ImageCache,
        wrap: fn(PreviewReport) -> Msg,
    ) {
        self.copies.set_cache(cache.clone());
        self.previews = Some(
            previewer::PreviewWorker::new(
                graphics,
                cache,
                self.downloader.clone(),
                self.msgs.clone(),
                wrap,
            )
            .sharing(self.copies.clone()),
        );
    }

    /// Runs `on_complete` for a task that finished, if it is configured.
    pub fn finished(&self, task: &crate::cmd::Finished) {
        if let Some(h) = &self.hooks {
            h.run(task);
        }
    }

    /// Asks for a task's picture for an area (`Cmd::Preview`).
    pub fn preview(&mut self, request: PreviewRequest) {
        if let Some(p) = &mut self.previews {
            p.request(request);
        }
    }

    /// Stops polling and lets the saver write what is pending (waiting at most `grace`).
    pub async fn shutdown(self, grace: Duration) {
        let Workers {
            routed,
            persist,
            poller,
            router,
            saver,
            catalogue,
            ranker,
            previews,
            registration,
            ..
        } = self;
        drop(previews);
        drop(routed);
        drop(persist);
        drop(ranker);
        router.abort();
        poller.abort();
        if let Some(c) = catalogue {
            c.abort();
        }
        let _ = tokio::time::timeout(grace, saver).await;
        // Only once the last claims are written: until then they are this dashboard's.
        drop(registration);
    }

    /// Polls the task at `service` (a saved base URL), or at the current service for `None`.
    pub fn watch(&self, key: TaskKey, service: Option<String>) {
        self.poll(poller::PollCmd::Watch(key, service));
    }

    pub fn unwatch(&self, key: TaskKey) {
        self.poll(poller::PollCmd::Unwatch(key));
    }

    pub fn poll_now(&self, key: TaskKey) {
        self.poll(poller::PollCmd::PollNow(key));
    }

    pub fn prefer(&self, keys: Vec<TaskKey>) {
        self.poll(poller::PollCmd::Prefer(keys));
    }

    fn poll(&self, cmd: poller::PollCmd<Option<String>>) {
        let _ = self.routed.send(router::Routed::Poll(cmd));
    }

    pub fn persist(&self, op: PersistOp) {
        send(&self.persist, op);
    }

    pub fn rank(&self, generation: u64, query: String, text: Arc<crate::api::SearchText>) {
        self.ranker.rank(generation, query, text);
    }

    /// Saves the recently used categories off the UI loop; a failure is reported.
    pub fn remember_sort(&self, label: String) {
        let path = crate::store::recent::sort_path(&self.recent_categories);
        let msgs = self.msgs.clone();
        tokio::task::spawn_blocking(move || {
            if let Err(e) = crate::store::recent::save_sort(&path, &label) {
                let _ = msgs.blocking_send(Msg::StoreProblem(format!(
                    "cannot save the sort order to {}: {e}",
                    path.display()
                )));
            }
        });
    }

    /// Saves the current service's favourite models off the UI loop; a failure is reported.
    pub fn remember_favourites(&self, names: std::collections::BTreeSet<String>) {
        let path = crate::store::recent::favourites_path(&self.recent_categories);
        let (service, msgs) = (self.service_key.clone(), self.msgs.clone());
        tokio::task::spawn_blocking(move || {
            if let Err(e) = crate::store::favourites::save(&path, &service, &names) {
                let _ = msgs.blocking_send(Msg::StoreProblem(format!(
                    "cannot save the favourites to {}: {e}",
                    path.display()
                )));
            }
        });
    }

    pub fn remember_categories(&self, categories: Vec<String>) {
        let (path, msgs) = (self.recent_categories.clone(), self.msgs.clone());
        tokio::task::spawn_blocking(move || {
            if let Err(e) = crate::store::recent::save(&path, &categories) {
                let _ = msgs.blocking_send(Msg::StoreProblem(format!(
                    "cannot save recent categories to {}: {e}",
                    path.display()
                )));
            }
        });
    }

    /// Loads the catalogue; a newer request replaces one still in flight. Transient failures
    /// are reported and retried with backoff until the service answers. With `cached`, the
    /// copy cached for these filters is read on a blocking thread and reported meanwhile; a
    /// fresh list is written to the cache on a blocking thread.
    pub fn fetch_catalogue(
        &mut self,
        generation: u64,
        lora_type: Option<LoraType>,
        cate: Option<String>,
        cached: bool,
    ) {
        if let Some(old) = self.catalogue.take() {
            old.abort();
        }
        let key = Key::new(&self.service_key, lora_type, cate.as_deref());
        let mut lookup = None;
        if cached && let Some(cache) = self.catalogue_cache.clone() {
            let (key, msgs) = (key.clone(), self.msgs.clone());
            lookup = Some(tokio::task::spawn_blocking(move || {
                let _ = msgs.blocking_send(Msg::CachedCatalogue {
                    generation,
                    cached: cache.load_nearest(&key),
                });
            }));
        }
        let (client, msgs) = (self.client.clone(), self.msgs.clone());
        let cache = self
            .catalogue_cache
            .clone()
            .map(|c| (c, key, self.cache_writes.clone()));
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
                if let (Ok(_), Some((cache, key, lock))) = (&result, &cache) {
                    let (cache, key, lock) = (cache.clone(), key.clone(), lock.clone());
                    let msgs = msgs.clone();
                    // Copying and writing a big catalogue is blocking work: never on the UI loop.
                    // The file is written first, so the entries are handed on, neither copied nor
                    // held again as bytes (either added 45-60 MiB to the peak with 100,000
                    // entries); it is synced and put in place after.
                    tokio::task::spawn_blocking(move || {
                        let Ok(catalogue) = result else { return };
                        let _one_writer = lock.lock();
                        let now = crate::store::watchlist::unix_now();
                        let staged = cache.stage(&key, &catalogue, now);
                        let _ = msgs.blocking_send(Msg::Catalogue {
                            generation,
                            result: Ok(catalogue),
                        });
                        if let Err(e) = staged.and_then(crate::store::atomic::AtomicFile::commit) {
                            tracing::warn!(
                                "cannot cache the catalogue in {}: {e}",
                                cache.dir().display()
                            );
                        }
                    });
                    return;
                }
                // What the cache holds is told first: a failure then knows whether anything
                // can be shown instead.
                if let Some(read) = lookup.take() {
                    let _ = read.await;
                }
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

    /// Opens a saved file with the opener (`O`).
    pub fn open_file(&self, path: PathBuf) {
        let (opener, msgs) = (self.opener.clone(), self.msgs.clone());
        tokio::task::spawn_blocking(move || {
            let result = opener::open_file(opener.as_ref(), &path);
            let _ = msgs.blocking_send(Msg::Opened(result));
        });
    }

    /// Copies with a clipboard program, off the UI loop; the answer says how, or that the
    /// terminal is to be sent OSC 52.
    pub fn copy(&self, clip: crate::cmd::Clip) {
        let msgs = self.msgs.clone();
        tokio::task::spawn_blocking(move || {
            let via = clipboard::copy(
                &clip.text,
                &crate::store::config::process_env,
                cfg!(target_os = "macos"),
            );
            let _ = msgs.blocking_send(Msg::Copied { clip, via });
        });
    }

    /// Downloads the task's file with its service's token (see `download`).
    pub fn download(&self, job: DownloadJob) {
        let _ = self.routed.send(router::Routed::Download(job));
    }
}

/// Where downloads go: `download_dir` and `download_template`.
#[derive(Debug, Clone)]
pub struct Placement {
    pub dir: PathBuf,
    pub template: Template,
}

impl Placement {
    /// The absolute path of the task's file.
    pub fn target(&self, job: &DownloadJob) -> PathBuf {
        let relative = self.template.expand(&TemplateValues {
            task_id: &job.key.id,
            kind: job.key.kind,
            status: &job.status,
            date: &crate::clock::today(),
        });
        let path = self.dir.join(relative);
        std::path::absolute(&path).unwrap_or(path)
    }
}

/// Downloads to the placement's path, reporting progress at most ten times a second. A file
/// already there is not touched unless the job says so: the App asks the user first. The
/// preview's whole copy of the file, if it has one, is copied instead of fetched again.
fn download(
    dl: Downloader,
    job: DownloadJob,
    place: &Placement,
    copies: copies::Copies,
    msgs: mpsc::Sender<Msg>,
) {
    let target = place.target(&job);
    tokio::spawn(async move {
        let DownloadJob {
            key, url, force, ..
        } = job;
        let mut known = copies.hold(&url).await;
        let fetched = fetch_to(&dl, &url, &target, force, &key, &msgs, &copies).await;
        let event = match fetched {
            Ok(path) => {
                *known = Some(path.clone());
                DownloadEvent::Saved(path)
            }
            Err(e) => e,
        };
        drop(known);
        let _ = msgs.send(Msg::Download { key, event }).await;
    });
}

async fn fetch_to(
    dl: &Downloader,
    url: &str,
    target: &std::path::Path,
    force: bool,
    key: &TaskKey,
    msgs: &mpsc::Sender<Msg>,
    copies: &copies::Copies,
) -> Result<PathBuf, DownloadEvent> {
    if !force && tokio::fs::symlink_metadata(target).await.is_ok() {
        return Err(DownloadEvent::Exists(target.to_path_buf()));
    }
    let (Some(dir), Some(name)) = (target.parent(), target.file_name()) else {
        return Err(DownloadEvent::Failed(
            "the download template names no file".into(),
        ));
    };
    tokio::fs::create_dir_all(dir)
        .await
        .map_err(|e| DownloadEvent::Failed(format!("cannot create {}: {e}", dir.display())))?;
    let (shared, from_url, to) = (copies.clone(), url.to_string(), target.to_path_buf());
    let from_cache = tokio::task::spawn_blocking(move || {
        let cached = shared.cached(&from_url)?;
        copies::copy_whole(&cached, &to).ok()
    })
    .await;
    if let Ok(Some(())) = from_cache {
        tracing::info!("{} copied from the preview cache", target.display());
        return Ok(target.to_path_buf());
    }
    let mut last: Option<Instant> = None;
    let mut progress = |done: u64, total: Option<u64>| {
        if last.is_none_or(|l| l.elapsed() >= Duration::from_millis(100)) {
            last = Some(Instant::now());
            let _ = msgs.try_send(Msg::Download {
                key: key.clone(),
                event: DownloadEvent::Progress { done, total },
            });
        }
    };
    dl.fetch(url, dir, &name.to_string_lossy(), force, &mut progress)
        .await
        .map_err(failure_event)
}

/// How a failed download reaches the App: a file that appeared while this one downloaded is
/// asked about, as one found before it started; anything else is a failure.
fn failure_event(e: crate::api::ApiError) -> DownloadEvent {
    match e {
        crate::api::ApiError::Exists { path } => DownloadEvent::Exists(path),
        e => DownloadEvent::Failed(e.to_string()),
    }
}

fn send<T>(tx: &mpsc::Sender<T>, value: T) {
    // The queues are sized far beyond what a person can cause; a full one means the worker is
    // gone, and the App keeps running without it.
    let _ = tx.try_send(value);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ApiError;

    #[test]
    fn a_file_that_appeared_mid_download_is_asked_about_not_failed() {
        let path = PathBuf::from("/dl/t.png");
        assert_eq!(
            failure_event(ApiError::Exists { path: path.clone() }),
            DownloadEvent::Exists(path)
        );
        assert!(matches!(
            failure_event(ApiError::Invalid("bad".into())),
            DownloadEvent::Failed(m) if m.contains("bad")
        ));
    }
}
