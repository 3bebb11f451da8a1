//! Background work for the dashboard. Each worker owns what it starts and reports back to the
//! App by value over the one `Msg` channel; the App reaches them only through `Cmd`s.
//!
//! One file per worker, each of the same shape: `spawn(..) -> Handle`, the handle owning the
//! worker's task or queue (dropping it stops the worker) and taking the `Cmd`'s payload as it
//! is. `Workers` is the set of handles, with one method per `Cmd`.

pub mod archiver;
pub mod clipboard;
pub mod comparer;
pub mod copies;
pub mod downloads;
pub mod hooks;
pub mod loader;
pub mod opener;
pub mod poller;
pub mod previewer;
pub mod ranker;
pub mod remember;
pub mod router;
pub mod saver;
mod superseding;
pub mod writes;

use crate::api::Client;
use crate::api::download::Downloader;
use crate::cmd::{
    CatalogueRequest, Clip, DownloadJob, Finished, PersistOp, PollCmd, PreviewRequest, RankJob,
};
use crate::msg::{Msg, PreviewReport};
use crate::picture::Graphics;
use crate::store::cache::ImageCache;
use crate::store::catalogue_cache::CatalogueCache;
use crate::store::watchlist::WatchStore;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

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
    /// `adaptive_polling`, `max_poll_interval` and `stall_after`: the poller's cadence.
    pub adaptive_polling: bool,
    pub max_poll_interval: Duration,
    pub stall_after: Duration,
    pub failure_statuses: Vec<String>,
    /// Makes the clients of the other configured services; `None` knows only the current one.
    pub resolve: Option<router::Resolve>,
    /// `on_complete`'s program and arguments.
    pub on_complete: Option<Vec<String>>,
    /// Where downloads go.
    pub placement: downloads::Placement,
    /// Where the catalogue last loaded for each filter is kept; `None` keeps none.
    pub catalogue_cache: Option<CatalogueCache>,
    /// `on_all_done`'s program and arguments.
    pub on_all_done: Option<Vec<String>>,
    /// `archive_after`: finished tasks move to the archive (beside the watch list) this long
    /// after they finished; `None` leaves them until removed.
    pub archive_after: Option<Duration>,
}

/// The App's handles on its workers.
pub struct Workers {
    msgs: mpsc::Sender<Msg>,
    /// The current service's downloader, for previews (the token goes to its origin only).
    downloader: Downloader,
    /// Shared by previews and downloads: each file is fetched once.
    copies: copies::Copies,
    catalogue: loader::Handle,
    /// Poll and download commands, through the router that picks each task's service.
    router: router::Handle,
    poller: poller::Handle,
    saver: saver::Handle,
    archiver: archiver::Handle,
    ranker: ranker::Handle,
    comparer: comparer::Handle,
    remember: remember::Handle,
    /// The files the loader and `remember` write, which a quit waits for.
    writes: writes::Writes,
    clipboard: clipboard::Handle,
    opener: opener::Handle,
    hooks: Option<hooks::Handle>,
    all_done: Option<hooks::Handle>,
    /// Started once the terminal's graphics are known, if previews are on.
    previews: Option<previewer::Handle<Msg>>,
}

impl Workers {
    /// Starts the poller, the router, the watch-list saver, the ranker and the comparer; the
    /// others work per request.
    pub fn start(setup: Setup, msgs: mpsc::Sender<Msg>) -> Self {
        let service_key = crate::store::watchlist::service_key(setup.client.base_url());
        let cadence = poller::Cadence {
            interval: setup.poll_interval,
            max_interval: setup.max_poll_interval,
            adaptive: setup.adaptive_polling,
            stall_after: setup.stall_after,
        };
        let poller = poller::spawn(
            cadence,
            setup.max_concurrent_polls,
            setup.failure_statuses,
            msgs.clone(),
        );
        let copies = copies::Copies::default();
        let routing = router::Router {
            current: setup.client.clone(),
            current_downloader: setup.downloader.clone(),
            resolve: setup.resolve,
            polls: poller.commands(),
            msgs: msgs.clone(),
        };
        let downloads = downloads::spawn(setup.placement, copies.clone(), msgs.clone());
        let writes = writes::Writes::default();
        let archive = crate::store::archive::Archive::path_in(
            setup
                .store
                .path()
                .parent()
                .unwrap_or(std::path::Path::new(".")),
        );
        let archiving = saver::Archiving {
            path: Some(archive.clone()),
            after: setup.archive_after,
        };
        Workers {
            router: router::spawn(routing, downloads),
            poller,
            saver: saver::spawn(setup.store, archiving, msgs.clone()),
            archiver: archiver::spawn(
                archive,
                crate::clock::local_offset().whole_seconds(),
                msgs.clone(),
            ),
            ranker: ranker::spawn(msgs.clone()),
            comparer: comparer::spawn(msgs.clone()),
            catalogue: loader::spawn(
                setup.client,
                setup.catalogue_cache,
                msgs.clone(),
                writes.clone(),
            ),
            remember: remember::spawn(
                setup.recent_categories,
                service_key,
                msgs.clone(),
                writes.clone(),
            ),
            writes,
            clipboard: clipboard::spawn(msgs.clone()),
            opener: opener::spawn(setup.opener, msgs.clone()),
            hooks: setup
                .on_complete
                .map(|argv| hooks::spawn(argv, msgs.clone())),
            all_done: setup
                .on_all_done
                .map(|argv| hooks::spawn_all_done(argv, msgs.clone())),
            previews: None,
            downloader: setup.downloader,
            copies,
            msgs,
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
        self.previews = Some(previewer::spawn(
            graphics,
            cache,
            self.downloader.clone(),
            self.copies.clone(),
            self.msgs.clone(),
            wrap,
        ));
    }

    /// Stops the workers and lets the saver write what is pending, and the other files
    /// under way end (waiting at most `grace` for both).
    pub async fn shutdown(self, grace: Duration) {
        let Workers {
            router,
            poller,
            catalogue,
            ranker,
            comparer,
            previews,
            saver,
            writes,
            ..
        } = self;
        drop((previews, router, poller, catalogue, ranker, comparer));
        tokio::join!(saver.finish(grace), writes.finish(grace));
    }

    /// `Cmd::FetchCatalogue`.
    pub fn fetch_catalogue(&mut self, request: CatalogueRequest) {
        self.catalogue.fetch(request);
    }

    /// `Cmd::Poll`: to the router, which polls each task at the service it was added for.
    pub fn poll(&self, cmd: PollCmd) {
        self.router.poll(cmd);
    }

    /// `Cmd::Persist`.
    pub fn persist(&self, op: PersistOp) {
        self.saver.persist(op);
    }

    /// `Cmd::Archive`.
    pub fn archive(&self, op: crate::cmd::ArchiveOp) {
        self.archiver.archive(op);
    }

    /// `Cmd::Rank`.
    pub fn rank(&self, job: RankJob) {
        self.ranker.rank(job);
    }

    /// `Cmd::Compare`: the catalogue diff, off the UI loop.
    pub fn compare(&self, job: crate::cmd::CompareJob) {
        self.comparer.compare(job);
    }

    /// `Cmd::RememberCategories`.
    pub fn remember_categories(&self, categories: Vec<String>) {
        self.remember.categories(categories);
    }

    /// `Cmd::RememberSort`.
    pub fn remember_sort(&self, label: String) {
        self.remember.sort(label);
    }

    /// `Cmd::RememberFavourites`.
    pub fn remember_favourites(&self, names: BTreeSet<String>) {
        self.remember.favourites(names);
    }

    /// `Cmd::Open`.
    pub fn open(&self, url: String) {
        self.opener.open(url);
    }

    /// `Cmd::OpenFile`.
    pub fn open_file(&self, path: PathBuf) {
        self.opener.open_file(path);
    }

    /// `Cmd::Copy`.
    pub fn copy(&self, clip: Clip) {
        self.clipboard.copy(clip);
    }

    /// `Cmd::Download`: with the task's service's token (the router picks its downloader).
    pub fn download(&self, job: DownloadJob) {
        self.router.download(job);
    }

    /// `Cmd::Preview`; dropped when previews are off.
    pub fn preview(&mut self, request: PreviewRequest) {
        if let Some(p) = &mut self.previews {
            p.request(request);
        }
    }

    /// `Cmd::Finished`: runs `on_complete`, if it is configured.
    pub fn finished(&self, task: Finished) {
        if let Some(h) = &self.hooks {
            h.run(task);
        }
    }

    /// `Cmd::AllDone`: runs `on_all_done`, if it is configured.
    pub fn all_done(&self, run: crate::cmd::AllDone) {
        if let Some(h) = &self.all_done {
            h.run_all_done(run);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{ClientOptions, Secret};
    use std::sync::atomic::{AtomicBool, Ordering};

    /// The quit's `shutdown` waits for the files still being written (the favourites, the
    /// catalogue's copy), not only for the watch list: a write that takes half a second, far
    /// longer than the runtime's last 200 ms, has ended when it returns.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn shutdown_waits_for_the_files_being_written() {
        let dir = tempfile::tempdir().expect("tempdir");
        let client = Client::new(&ClientOptions {
            base_url: url::Url::parse("http://127.0.0.1:9/").expect("url"),
            token: Secret::new("t"),
            request_timeout: Duration::from_secs(1),
            allow_insecure_http: false,
        })
        .expect("client");
        let (msgs, _msg_rx) = mpsc::channel(64);
        let workers = Workers::start(
            Setup {
                downloader: Downloader::for_service(&client).expect("downloader"),
                client,
                opener: Arc::new(opener::SystemOpener),
                store: WatchStore::new(dir.path().join("watchlist.json")),
                recent_categories: dir.path().join("recent-categories.json"),
                poll_interval: Duration::from_secs(2),
                max_concurrent_polls: 8,
                adaptive_polling: false,
                max_poll_interval: Duration::from_secs(30),
                stall_after: Duration::from_secs(600),
                failure_statuses: Vec::new(),
                resolve: None,
                on_complete: None,
                placement: downloads::Placement {
                    dir: dir.path().join("dl"),
                    template: crate::api::download::Template::default(),
                    sidecar: false,
                },
                catalogue_cache: None,
                on_all_done: None,
                archive_after: None,
            },
            msgs,
        );
        let written = Arc::new(AtomicBool::new(false));
        let flag = written.clone();
        workers.writes.spawn(move || {
            std::thread::sleep(Duration::from_millis(500));
            flag.store(true, Ordering::SeqCst);
        });
        workers.shutdown(Duration::from_secs(10)).await;
        assert!(written.load(Ordering::SeqCst), "the write ended first");
    }
}
