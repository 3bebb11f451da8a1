//! Background work for the dashboard. Each worker owns what it starts and reports back to the
//! App by value over the one `Msg` channel; the App reaches them only through `Cmd`s.
//!
//! One file per worker, each of the same shape: `spawn(..) -> Handle`, the handle owning the
//! worker's task or queue (dropping it stops the worker) and taking the `Cmd`'s payload as it
//! is. `Workers` is the set of handles; `Workers::send` routes each `Cmd` to its worker.

pub mod action_runs;
pub mod archiver;
pub mod clipboard;
pub mod comparer;
pub mod copies;
pub mod downloads;
pub mod hooks;
pub mod linger;
pub mod loader;
pub mod opener;
pub mod pollable;
pub mod poller;
pub mod previewer;
pub mod ranker;
pub mod remember;
pub mod router;
pub mod saver;
mod superseding;
pub mod thumbnails;
pub mod video_frames;
pub mod writes;

use crate::api::Client;
use crate::api::download::Downloader;
use crate::cmd::Cmd;
use crate::msg::{Msg, PreviewReport};
use crate::picture::Graphics;
use crate::store::cache::ImageCache;
use crate::store::catalogue_cache::CatalogueCache;
use crate::store::config::Settings;
use crate::store::paths::DataFiles;
use crate::store::watchlist::WatchStore;

/// How long the browser's selection must rest on a model before its picture is fetched and
/// drawn: typing a filter runs the selection through many entries, and a picture for each
/// would cost a fetch, a decode and a frame per keystroke (a keystroke's p95 over 100k
/// names went from 3 to 18 ms). Short enough to feel immediate once the user stops.
const MODEL_PICTURE_SETTLE: std::time::Duration = std::time::Duration::from_millis(150);
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// What the workers run with besides the settings: the current service's client and its
/// downloader, how links and files are opened, how the other services' clients are made, and
/// where the files are.
pub struct Setup {
    pub client: Client,
    pub downloader: Downloader,
    pub opener: Arc<dyn opener::Opener>,
    /// Makes the clients of the other configured services; `None` knows only the current one.
    pub resolve: Option<router::Resolve>,
    /// Which services the settings configure: a task of another does not keep a run going.
    pub pollable: pollable::Pollable,
    pub files: DataFiles,
}

/// What the runtime writes to the terminal itself (no worker takes these), in the order the
/// commands came.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToTerminal {
    /// OSC 52 for `text`; inside tmux, sent so that tmux can take it.
    Clipboard {
        text: String,
        tmux: bool,
    },
    Bell,
    Notify {
        title: String,
        body: String,
    },
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
    /// The user's `[[actions]]`, run on demand.
    actions: action_runs::Handle,
    all_done: Option<hooks::Handle>,
    /// Where downloads go, shared with the downloads worker.
    placement: Arc<std::sync::Mutex<downloads::Placement>>,
    /// The services polled, shared with the router and the saver.
    pollable: pollable::Pollable,
    /// Started once the terminal's graphics are known, if previews are on.
    previews: Option<previewer::Handle<Msg>>,
    /// The catalogue entries' pictures: a worker of its own, so a model's picture and a
    /// task's never cancel each other (each worker keeps only its latest file's work).
    model_previews: Option<previewer::Handle<Msg>>,
    /// The gallery's thumbnails, started with the previews.
    thumbnails: Option<thumbnails::Handle<Msg>>,
}

impl Workers {
    /// Starts the poller, the router, the watch-list saver, the ranker and the comparer; the
    /// others work per request.
    pub fn start(settings: &Settings, setup: Setup, msgs: mpsc::Sender<Msg>) -> Self {
        let Setup {
            client,
            downloader,
            opener,
            resolve,
            pollable,
            files,
        } = setup;
        let service_key = crate::store::watchlist::service_key(client.base_url());
        let polling = crate::cmd::PollSettings::of(settings);
        let poller = poller::spawn(
            poller::Cadence::of(&polling),
            polling.max_in_flight,
            settings.failure_statuses.clone(),
            msgs.clone(),
        );
        let copies = copies::Copies::default();
        let routing = router::Router {
            current: client.clone(),
            current_downloader: downloader.clone(),
            resolve,
            pollable: pollable.clone(),
            polls: poller.commands(),
            msgs: msgs.clone(),
        };
        let downloads = downloads::spawn(placement(settings), copies.clone(), msgs.clone());
        let placement = downloads.placement();
        let keep_pollable = pollable.clone();
        let writes = writes::Writes::default();
        let archiving = saver::Archiving {
            files: Some(crate::store::archive::Files::from(&files)),
            after: settings.archive_after,
        };
        let (on_complete, all_done) = hooks_of(settings, &msgs);
        Workers {
            router: router::spawn(routing, downloads),
            poller,
            saver: saver::spawn(
                WatchStore::new(files.watchlist.clone()),
                files.dashboards.clone(),
                archiving,
                pollable,
                msgs.clone(),
            ),
            archiver: archiver::spawn(
                crate::store::archive::Files::from(&files),
                crate::clock::local_offset().whole_seconds(),
                msgs.clone(),
            ),
            ranker: ranker::spawn(msgs.clone()),
            comparer: comparer::spawn(msgs.clone()),
            catalogue: loader::spawn(
                client,
                Some(CatalogueCache::new(files.catalogue_cache.clone())),
                msgs.clone(),
                writes.clone(),
            ),
            remember: remember::spawn(&files, service_key, msgs.clone(), writes.clone()),
            writes,
            clipboard: clipboard::spawn(msgs.clone()),
            opener: opener::spawn(opener, msgs.clone()),
            all_done,
            hooks: on_complete,
            placement,
            pollable: keep_pollable,
            actions: action_runs::spawn(settings.action_timeout, msgs.clone()),
            previews: None,
            model_previews: None,
            thumbnails: None,
            downloader,
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
        self.model_previews = Some(
            previewer::spawn(
                graphics,
                cache.clone(),
                self.downloader.clone(),
                self.copies.clone(),
                self.msgs.clone(),
                Msg::ModelPreview,
            )
            .second()
            .settling(MODEL_PICTURE_SETTLE),
        );
        let thumbs = crate::store::thumb_cache::ThumbCache::new(
            crate::store::thumb_cache::ThumbCache::inside(cache.dir()),
            crate::store::thumb_cache::DEFAULT_CAP,
        );
        self.thumbnails = Some(thumbnails::spawn(
            graphics,
            cache.clone(),
            thumbs,
            self.downloader.clone(),
            self.copies.clone(),
            self.msgs.clone(),
            |report| Msg::Thumbnail(crate::msg::ThumbnailMsg::Report(report)),
        ));
        // The App draws its tiles as text until it hears the worker is there.
        let started = crate::msg::ThumbnailMsg::Started {
            cell: graphics.cell,
        };
        let _ = self.msgs.try_send(Msg::Thumbnail(started));
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
            model_previews,
            thumbnails,
            saver,
            writes,
            ..
        } = self;
        drop((
            previews,
            model_previews,
            thumbnails,
            router,
            poller,
            catalogue,
            ranker,
            comparer,
        ));
        tokio::join!(saver.finish(grace), writes.finish(grace));
    }

    /// Hands `cmd` to the worker that carries it out; what only the terminal can do comes
    /// back for the runtime to write. One match over every `Cmd`: a new command does not
    /// compile until it is routed.
    pub fn send(&mut self, cmd: Cmd) -> Option<ToTerminal> {
        match cmd {
            Cmd::FetchCatalogue(request) => self.catalogue.fetch(request),
            // The router polls and downloads each task at the service it was added for.
            Cmd::Poll(poll) => self.router.poll(poll),
            Cmd::Download(job) => self.router.download(job),
            Cmd::Persist(op) => self.saver.persist(op),
            Cmd::Archive(op) => self.archiver.archive(op),
            Cmd::Rank(job) => self.ranker.rank(job),
            Cmd::Compare(job) => self.comparer.compare(job),
            Cmd::RememberCategories(list) => self.remember.categories(list),
            Cmd::RememberSort(label) => self.remember.sort(label),
            Cmd::RememberFavourites(names) => self.remember.favourites(names),
            Cmd::Views(op) => self.remember.views(op),
            Cmd::Open(url) => self.opener.open(url),
            Cmd::OpenFile(path) => self.opener.open_file(path),
            Cmd::Copy(clip) => self.clipboard.copy(clip),
            Cmd::Preview(request) => {
                // Dropped when previews are off.
                if let Some(p) = &mut self.previews {
                    p.request(request);
                }
            }
            Cmd::Thumbnails(request) => {
                if let Some(t) = &mut self.thumbnails {
                    t.request(request);
                }
            }
            Cmd::ModelPreview(request) => {
                if let Some(p) = &mut self.model_previews {
                    p.request(request);
                }
            }
            Cmd::Finished(task) => {
                if let Some(h) = &self.hooks {
                    h.run(task);
                }
            }
            Cmd::AllDone(run) => {
                if let Some(h) = &self.all_done {
                    h.run_all_done(run);
                }
            }
            Cmd::RunAction(run) => {
                self.actions.run(run);
            }
            Cmd::CopyToTerminal { text, tmux } => {
                return Some(ToTerminal::Clipboard { text, tmux });
            }
            Cmd::Bell => return Some(ToTerminal::Bell),
            Cmd::Notify { title, body } => return Some(ToTerminal::Notify { title, body }),
            Cmd::Configure(settings) => self.configure(&settings.0),
            Cmd::Services(configured) => self.pollable.configure(configured),
            // Read by the runtime, which validates `[keys]` as at start: it never sends it.
            Cmd::ReloadConfig => tracing::warn!("a config reload reached the workers"),
        }
        None
    }

    /// The config was read again: the poller's settings (through the router, in order with
    /// the polls), where downloads started from now on go, and the hooks run from now on
    /// (runs under way finish as they started).
    fn configure(&mut self, settings: &Settings) {
        self.router
            .poll(crate::cmd::PollCmd::Settings(crate::cmd::PollSettings::of(
                settings,
            )));
        *self
            .placement
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = placement(settings);
        (self.hooks, self.all_done) = hooks_of(settings, &self.msgs);
        // Runs under way keep the limit they started with.
        self.actions = action_runs::spawn(settings.action_timeout, self.msgs.clone());
    }
}

/// Where downloads go: `download_dir`, `download_template`, `sidecar`.
fn placement(settings: &Settings) -> downloads::Placement {
    downloads::Placement {
        dir: settings.download_dir.clone(),
        template: settings.download_template.clone(),
        sidecar: settings.sidecar,
    }
}

/// `on_complete`'s and `on_all_done`'s handles, the second running after the first's runs.
fn hooks_of(
    settings: &Settings,
    msgs: &mpsc::Sender<Msg>,
) -> (Option<hooks::Handle>, Option<hooks::Handle>) {
    let on_complete = settings
        .on_complete
        .clone()
        .map(|argv| hooks::spawn(argv, msgs.clone()));
    let all_done = settings
        .on_all_done
        .clone()
        .map(|argv| hooks::spawn_all_done(argv, on_complete.as_ref(), msgs.clone()));
    (on_complete, all_done)
}

/// A client of a service nobody answers at (a closed loopback port), for the workers' tests.
#[cfg(test)]
pub(crate) fn closed_port_client() -> Client {
    Client::new(&crate::api::ClientOptions {
        base_url: url::Url::parse("http://127.0.0.1:9/").expect("url"),
        token: crate::api::Secret::new("t"),
        request_timeout: std::time::Duration::from_secs(1),
        allow_insecure_http: false,
    })
    .expect("client")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::TaskKind;
    use crate::cmd::{
        AllDone, ArchiveOp, CatalogueRequest, CompareJob, DownloadJob, Finished, PersistOp,
        PollCmd, RankJob, TaskKey,
    };
    use crate::store::config::{FileSettings, Overrides};
    use crate::store::watchlist::WatchEntry;
    use std::collections::BTreeSet;
    use std::path::{Path, PathBuf};
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// Records what it is asked to open instead of starting a program.
    #[derive(Default)]
    struct Recorder(Mutex<Vec<String>>);

    impl opener::Opener for Recorder {
        fn launch(
            &self,
            target: &std::ffi::OsStr,
            _: opener::Opening,
        ) -> Result<opener::Launch, opener::OpenError> {
            self.0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(target.to_string_lossy().into_owned());
            Ok(opener::Launch::Started)
        }
    }

    /// The default settings, downloading into `dir`, with hooks that leave a file each.
    fn settings(dir: &Path) -> Settings {
        let none = |_: &str| None;
        let mut settings = crate::store::config::resolve_from(
            FileSettings::default(),
            false,
            PathBuf::new(),
            &Overrides::default(),
            &none,
        )
        .expect("defaults resolve");
        settings.download_dir = dir.join("dl");
        let touch = |name: &str| Some(vec!["touch".into(), dir.join(name).display().to_string()]);
        settings.on_complete = touch("completed");
        settings.on_all_done = touch("all-done");
        settings
    }

    /// Workers for a service nobody answers at (a closed loopback port), their files in `dir`.
    fn start_in(dir: &Path, opener: Arc<dyn opener::Opener>) -> (Workers, mpsc::Receiver<Msg>) {
        let client = crate::workers::closed_port_client();
        let (msgs, msg_rx) = mpsc::channel(256);
        let setup = Setup {
            downloader: Downloader::for_service(&client)
                .expect("downloader")
                .with_retry_base(std::time::Duration::from_millis(1)),
            pollable: pollable::Pollable::new(
                &crate::store::watchlist::service_key(client.base_url()),
                [],
            ),
            client,
            opener,
            resolve: None,
            files: DataFiles::new(dir, &dir.join("cache")),
        };
        (Workers::start(&settings(dir), setup, msgs), msg_rx)
    }

    /// The quit's `shutdown` waits for the files still being written (the favourites, the
    /// catalogue's copy), not only for the watch list: a write that takes half a second, far
    /// longer than the runtime's last 200 ms, has ended when it returns.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn shutdown_waits_for_the_files_being_written() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (workers, _msg_rx) = start_in(dir.path(), Arc::new(opener::SystemOpener));
        let written = Arc::new(AtomicBool::new(false));
        let flag = written.clone();
        workers.writes.spawn(move || {
            std::thread::sleep(Duration::from_millis(500));
            flag.store(true, Ordering::SeqCst);
        });
        workers.shutdown(Duration::from_secs(10)).await;
        assert!(written.load(Ordering::SeqCst), "the write ended first");
    }

    /// One command for each worker that can be watched here.
    fn worker_commands(dir: &Path, key: &TaskKey) -> Vec<Cmd> {
        let finished = Finished {
            task_id: "t-1".into(),
            kind: TaskKind::Image,
            status: "COMPLETED".into(),
            status_failed: false,
            percent: 100,
            url: None,
            file: None,
            no_file: None,
            label: None,
        };
        vec![
            Cmd::Persist(PersistOp::Add(vec![WatchEntry::new(
                "t-1",
                TaskKind::Image,
            )])),
            Cmd::Poll(PollCmd::Watch(key.clone(), None)),
            Cmd::FetchCatalogue(CatalogueRequest {
                generation: 3,
                lora_type: None,
                cate: None,
                cached: false,
                earlier: std::sync::Arc::new([]),
            }),
            Cmd::Download(DownloadJob {
                key: key.clone(),
                url: "http://127.0.0.1:9/t-1.png".into(),
                service: None,
                status: "COMPLETED".into(),
                force: false,
                label: None,
                provenance: Box::default(),
            }),
            Cmd::Archive(ArchiveOp::Load),
            Cmd::Rank(RankJob {
                generation: 5,
                query: "x".into(),
                text: Arc::default(),
            }),
            Cmd::Compare(CompareJob {
                generation: 6,
                before: Arc::from([]),
                after: Arc::from([]),
            }),
            Cmd::RememberCategories(vec!["anime".into()]),
            Cmd::RememberSort("age".into()),
            Cmd::RememberFavourites(BTreeSet::from(["m1".to_string()])),
            Cmd::Open("https://example.com/".into()),
            Cmd::OpenFile(dir.join("a.png")),
            Cmd::Finished(finished),
            Cmd::AllDone(AllDone::default()),
        ]
    }

    /// Every command `send` takes reaches the worker that carries it out, seen where that
    /// worker leaves its mark (a report on the channel, a file on disk, a program run, the
    /// opener called); the terminal's come back in order. (`Copy` and `Preview` are left to
    /// their workers' tests: one needs the machine's clipboard, the other a terminal's
    /// graphics; the match in `send` is exhaustive, so none is forgotten.)
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn each_command_reaches_its_worker() {
        let dir = tempfile::tempdir().expect("tempdir");
        let opened = Arc::new(Recorder::default());
        let (mut workers, mut msg_rx) = start_in(dir.path(), opened.clone());
        let files = DataFiles::new(dir.path(), &dir.path().join("cache"));
        std::fs::write(dir.path().join("a.png"), b"png").expect("write");
        let key = TaskKey::new(TaskKind::Image, "t-1");
        let to_workers = worker_commands(dir.path(), &key);
        for cmd in to_workers {
            let shown = format!("{cmd:?}");
            // The runtime sends these after the frame: they must not be the terminal's.
            assert!(!cmd.writes_to_terminal(), "{shown}");
            assert_eq!(workers.send(cmd), None, "{shown} is a worker's");
        }
        let terminal: Vec<_> = [
            Cmd::CopyToTerminal {
                text: "x".into(),
                tmux: false,
            },
            Cmd::Bell,
            Cmd::Notify {
                title: "t".into(),
                body: "b".into(),
            },
        ]
        .into_iter()
        .map(|cmd| {
            assert!(cmd.writes_to_terminal(), "{cmd:?} goes ahead of the frame");
            workers.send(cmd)
        })
        .collect();
        assert_eq!(
            terminal,
            [
                Some(ToTerminal::Clipboard {
                    text: "x".into(),
                    tmux: false
                }),
                Some(ToTerminal::Bell),
                Some(ToTerminal::Notify {
                    title: "t".into(),
                    body: "b".into()
                }),
            ]
        );
        // The reports of the poller, the loader, the downloads, the archiver, the ranker and
        // the comparer, each at least once.
        let mut seen = BTreeSet::new();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        while seen.len() < 6 {
            let msg = tokio::time::timeout_at(deadline, msg_rx.recv())
                .await
                .unwrap_or_else(|_| panic!("only {seen:?} reported"))
                .expect("open channel");
            let worker = match msg {
                Msg::Polled { key: k, .. } if k == key => "poller",
                Msg::Catalogue { generation: 3, .. } => "loader",
                Msg::Download { key: k, .. } if k == key => "downloads",
                Msg::Archive(_) => "archiver",
                Msg::Ranked { generation: 5, .. } => "ranker",
                Msg::Compared { generation: 6, .. } => "comparer",
                _ => continue,
            };
            seen.insert(worker);
        }
        let hooks_ran =
            || dir.path().join("completed").exists() && dir.path().join("all-done").exists();
        for _ in 0..200 {
            if hooks_ran() && opened.0.lock().expect("lock").len() == 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(hooks_ran(), "on_complete and on_all_done ran");
        // Each is opened on a thread of its own: in either order.
        let mut opened = opened.0.lock().expect("lock").clone();
        opened.sort();
        assert_eq!(
            opened,
            [
                dir.path().join("a.png").display().to_string(),
                "https://example.com/".to_string(),
            ]
        );
        workers.shutdown(Duration::from_secs(10)).await;
        let list = std::fs::read_to_string(&files.watchlist).expect("watch list saved");
        assert!(list.contains("t-1"), "{list}");
        assert_eq!(
            crate::store::recent::load(&files.recent_categories),
            ["anime"]
        );
        assert_eq!(
            crate::store::recent::load_sort(&files.sort).as_deref(),
            Some("age")
        );
        assert!(files.favourites.exists(), "favourites saved");
    }

    /// The config read again (`Cmd::Configure`): the hooks run from now on are the new ones,
    /// downloads started from now on go to the new place, actions have the new time limit.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn new_settings_reach_the_hooks_and_the_downloads() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (mut workers, _msg_rx) = start_in(dir.path(), Arc::new(Recorder::default()));
        let mut new = settings(dir.path());
        new.on_complete = Some(vec![
            "touch".into(),
            dir.path().join("completed-{task_id}").display().to_string(),
        ]);
        new.download_dir = dir.path().join("elsewhere");
        new.action_timeout = Duration::from_secs(7);
        let sent = crate::cmd::NewSettings(Arc::new(new));
        assert_eq!(workers.send(Cmd::Configure(sent)), None);
        let dl = workers.placement.lock().expect("lock").dir.clone();
        assert_eq!(dl, dir.path().join("elsewhere"));
        assert_eq!(
            workers.actions.timeout(),
            Duration::from_secs(7),
            "the actions' new time limit"
        );
        workers.send(Cmd::Finished(Finished {
            task_id: "t-9".into(),
            kind: TaskKind::Image,
            status: "COMPLETED".into(),
            status_failed: false,
            percent: 100,
            url: None,
            file: None,
            no_file: None,
            label: None,
        }));
        let new_hook = dir.path().join("completed-t-9");
        for _ in 0..200 {
            if new_hook.exists() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert!(new_hook.exists(), "the new on_complete ran");
        assert!(
            !dir.path().join("completed").exists(),
            "the old one did not"
        );
        workers.shutdown(Duration::from_secs(10)).await;
    }
}
