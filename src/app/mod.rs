//! The dashboard: wiring of state, workers, terminal and event loop (see the architecture
//! guide). The behaviour lives in the reducers of `state`; this file only routes.

pub mod action;
pub mod browser;
pub mod cursor;
pub mod keymap;
pub mod state;
pub mod watch;

use crate::api::{Client, ClientOptions, TaskKind};
use crate::cli::{CliResult, Failure, Global, client_from};
use crate::exit;
use crate::server;
use crate::store::config::{self, Settings};
use crate::store::watchlist::{WatchEntry, WatchStore, unix_now};
use crate::terminal::{self, Tui};
use crate::workers::{self, Workers, opener::SystemOpener, poller};
use action::{Action, Cmd, Msg};
use crossterm::event::{Event, EventStream, KeyEventKind, MouseEventKind};
use futures_util::StreamExt;
use rand::SeedableRng;
use state::{State, UiSettings};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc;

/// Capacity of the one channel into the App.
const MSG_CAPACITY: usize = 1024;

/// The demo's watch list: some running, one finishing within seconds, failed ones, finished ones.
pub const DEMO_TASKS: &[(&str, TaskKind)] = &[
    ("sim-3-sunset-over-harbor", TaskKind::Image),
    ("sim-45-portrait-batch", TaskKind::Image),
    ("sim-25-drone-flyover", TaskKind::Video),
    ("hold-queued-behind-others", TaskKind::Image),
    ("fail-0-rejected-prompt", TaskKind::Image),
    ("fail-6-upscale-out-of-memory", TaskKind::Video),
    ("demo-image-done", TaskKind::Image),
    ("demo-video-done", TaskKind::Video),
];

/// Where the dashboard talks to and keeps its list.
struct Target {
    client: Client,
    store: WatchStore,
    /// The recently used categories' file.
    recent: PathBuf,
    /// The embedded service of `--demo`, kept alive for the session.
    _service: Option<server::Running>,
    /// The demo's private data directory, removed at exit.
    scratch: Option<PathBuf>,
}

async fn demo_target(settings: &Settings) -> Result<Target, Failure> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| Failure::new(exit::OTHER, format!("cannot start the demo service: {e}")))?;
    let running = server::start(listener, server::Options::new(server::generate_token()))
        .map_err(|e| Failure::new(exit::OTHER, format!("cannot start the demo service: {e}")))?;
    let client = Client::new(&ClientOptions {
        base_url: running.base_url(),
        token: running.token.clone(),
        request_timeout: settings.request_timeout,
        allow_insecure_http: false,
    })?;
    let scratch = std::env::temp_dir().join(format!("gendash-demo-{}", std::process::id()));
    let store = WatchStore::new(scratch.join("watchlist.json"));
    store
        .update(|list| {
            list.clear();
            list.extend(
                DEMO_TASKS
                    .iter()
                    .map(|(id, kind)| WatchEntry::new(*id, *kind)),
            );
        })
        .map_err(|e| Failure::new(exit::OTHER, e.to_string()))?;
    Ok(Target {
        client,
        store,
        recent: scratch.join("recent-categories.json"),
        _service: Some(running),
        scratch: Some(scratch),
    })
}

/// Settings for the demo: the user's if they load, defaults otherwise (the demo needs none).
fn demo_settings(global: &Global) -> Settings {
    config::resolve(&global.overrides(), &config::process_env).unwrap_or_else(|e| {
        eprintln!("gendash: ignoring the configuration for the demo: {e}");
        let none = |_: &str| None;
        config::resolve_from(
            config::FileSettings::default(),
            false,
            PathBuf::new(),
            &config::Overrides::default(),
            &none,
        )
        .unwrap_or_else(|_| unreachable!("defaults always resolve"))
    })
}

pub async fn run(global: &Global, demo: bool) -> CliResult {
    let settings = if demo {
        demo_settings(global)
    } else {
        global.settings()?
    };
    let target = if demo {
        demo_target(&settings).await?
    } else {
        let store = WatchStore::new(WatchStore::default_path());
        let recent = store.path().with_file_name("recent-categories.json");
        Target {
            client: client_from(&settings)?,
            store,
            recent,
            _service: None,
            scratch: None,
        }
    };
    let result = run_with(&settings, &target).await;
    if let Some(dir) = &target.scratch {
        let _ = std::fs::remove_dir_all(dir);
    }
    result
}

async fn run_with(settings: &Settings, target: &Target) -> CliResult {
    let loaded = target
        .store
        .load()
        .map_err(|e| Failure::new(exit::OTHER, e.to_string()))?;
    let (msg_tx, mut msg_rx) = mpsc::channel::<Msg>(MSG_CAPACITY);
    let (poll_tx, poll_rx) = mpsc::channel(4096);
    let (persist_tx, persist_rx) = mpsc::channel(4096);

    let client = target.client.clone();
    let fetch = move |key: action::TaskKey| {
        let c = client.clone();
        async move { c.task_result(key.kind, &key.id).await }
    };
    let schedule = poller::Schedule::new(settings.poll_interval, settings.max_concurrent_polls);
    let poller_task = tokio::spawn(poller::run(
        schedule,
        poll_rx,
        msg_tx.clone(),
        fetch,
        settings.failure_statuses.clone(),
        rand::rngs::StdRng::from_os_rng(),
    ));
    let store_task = tokio::spawn(workers::store::run(
        target.store.clone(),
        persist_rx,
        msg_tx.clone(),
    ));
    let downloader = crate::api::download::Downloader::new(
        Some(target.client.base_url()),
        settings.token.clone(),
    )?;
    let mut workers = Workers::new(
        target.client.clone(),
        downloader,
        Arc::new(SystemOpener),
        msg_tx.clone(),
        poll_tx,
        persist_tx,
    )
    .with_recent_categories(target.recent.clone());

    let ui_settings = UiSettings {
        bell: settings.bell,
        desktop_notifications: settings.desktop_notifications,
        no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
    };
    let mut state = State::new(
        target.client.base_url().as_str(),
        settings.categories.clone(),
        loaded.entries,
        settings.failure_statuses.clone(),
        ui_settings,
        unix_now(),
    );
    state.browser.recent_categories = workers::load_recent_categories(&target.recent);
    if let Some(p) = loaded.set_aside {
        state.last_error = Some(format!(
            "the watch list could not be read and was set aside as {}",
            p.display()
        ));
    }

    terminal::install_panic_hook();
    let _guard = terminal::Guard;
    let mut tui = terminal::enter()
        .map_err(|e| Failure::new(exit::OTHER, format!("cannot use the terminal: {e}")))?;
    terminal::set_title(&format!("gendash — {}", target.client.base_url()));
    test_hooks::maybe_panic_in_worker();

    let size = tui
        .size()
        .map_err(|e| Failure::new(exit::OTHER, e.to_string()))?;
    let mut first = state.update(Action::Resize {
        width: size.width,
        height: size.height,
    });
    first.extend(state.start());
    dispatch(first, &mut workers, &mut tui, &mut state);

    let code = event_loop(&mut state, &mut tui, &mut workers, &mut msg_rx).await;
    terminal::restore();
    // Dropping the senders ends the poller and lets the store flush what is pending.
    drop(workers);
    drop(msg_tx);
    drop(msg_rx);
    poller_task.abort();
    let _ = tokio::time::timeout(Duration::from_secs(2), store_task).await;
    code
}

async fn event_loop(
    state: &mut State,
    tui: &mut Tui,
    workers: &mut Workers,
    msgs: &mut mpsc::Receiver<Msg>,
) -> CliResult {
    let io = |e: std::io::Error| Failure::new(exit::OTHER, format!("terminal error: {e}"));
    let mut events = EventStream::new();
    let mut ticker = tokio::time::interval(Duration::from_secs(1));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut sigint = signal(SignalKind::interrupt()).map_err(io)?;
    let mut sigterm = signal(SignalKind::terminate()).map_err(io)?;
    let mut sighup = signal(SignalKind::hangup()).map_err(io)?;
    let mut sigtstp = signal(SignalKind::from_raw(signal_hook::consts::SIGTSTP)).map_err(io)?;
    let mut sigcont = signal(SignalKind::from_raw(signal_hook::consts::SIGCONT)).map_err(io)?;
    loop {
        if state.dirty {
            tui.draw(|f| crate::ui::render(state, f)).map_err(io)?;
            state.dirty = false;
        }
        let cmds = tokio::select! {
            event = events.next() => match event {
                Some(Ok(event)) => on_event(state, event),
                Some(Err(e)) => return Err(io(e)),
                None => return Ok(exit::OK),
            },
            Some(msg) = msgs.recv() => {
                let mut cmds = state.apply(msg);
                // Drain what else is waiting, then draw once.
                for _ in 0..256 {
                    match msgs.try_recv() {
                        Ok(m) => cmds.extend(state.apply(m)),
                        Err(_) => break,
                    }
                }
                cmds
            }
            _ = ticker.tick() => state.apply(Msg::Tick(unix_now())),
            _ = sigint.recv() => return Ok(130),
            _ = sigterm.recv() => return Ok(143),
            _ = sighup.recv() => return Ok(129),
            _ = sigtstp.recv() => vec![Cmd::Suspend],
            _ = sigcont.recv() => {
                tui.clear().map_err(io)?;
                state.dirty = true;
                Vec::new()
            }
        };
        dispatch(cmds, workers, tui, state);
        if state.quit {
            return Ok(exit::OK);
        }
    }
}

/// Turns a terminal event into an action through the keymap.
fn on_event(state: &mut State, event: Event) -> Vec<Cmd> {
    let action = match event {
        Event::Key(key) if key.kind != KeyEventKind::Release => {
            keymap::resolve(&state.contexts(), &key)
        }
        Event::Paste(text) => Some(Action::Paste(text)),
        Event::Resize(width, height) => Some(Action::Resize { width, height }),
        Event::Mouse(m) => match m.kind {
            MouseEventKind::Down(_) => Some(Action::Click {
                column: m.column,
                row: m.row,
            }),
            MouseEventKind::ScrollDown => Some(Action::Wheel {
                column: m.column,
                row: m.row,
                down: true,
            }),
            MouseEventKind::ScrollUp => Some(Action::Wheel {
                column: m.column,
                row: m.row,
                down: false,
            }),
            _ => None,
        },
        _ => None,
    };
    test_hooks::maybe_panic_in_main(action.as_ref());
    action.map(|a| state.update(a)).unwrap_or_default()
}

/// Carries out commands: workers get theirs, terminal-side ones are written here.
fn dispatch(cmds: Vec<Cmd>, workers: &mut Workers, tui: &mut Tui, state: &mut State) {
    for cmd in cmds {
        match cmd {
            Cmd::FetchCatalogue {
                generation,
                lora_type,
                cate,
            } => workers.fetch_catalogue(generation, lora_type, cate),
            Cmd::Watch(k) => send(&workers.polls, poller::PollCmd::Watch(k)),
            Cmd::Unwatch(k) => send(&workers.polls, poller::PollCmd::Unwatch(k)),
            Cmd::PollNow(k) => send(&workers.polls, poller::PollCmd::PollNow(k)),
            Cmd::Persist(op) => send(&workers.persist, op),
            Cmd::Open(url) => workers.open(url),
            Cmd::Download { key, url } => workers.download(key, url),
            Cmd::Copy(text) => write_raw(tui, &terminal::copy_sequence(&text)),
            Cmd::Bell => write_raw(tui, "\x07"),
            Cmd::RememberCategories(list) => workers.remember_categories(list),
            Cmd::Notify { title, body } => write_raw(
                tui,
                &terminal::notify_sequence(&title, &body, &config::process_env),
            ),
            Cmd::Suspend => {
                if terminal::suspend(tui).is_err() {
                    state.last_error = Some("could not suspend".into());
                }
                state.dirty = true;
            }
            Cmd::Quit => state.quit = true,
        }
    }
}

fn send<T>(tx: &mpsc::Sender<T>, value: T) {
    // The queues are sized far beyond what a person can cause; a full one means the worker is
    // gone, and the App keeps running without it.
    let _ = tx.try_send(value);
}

fn write_raw(tui: &mut Tui, bytes: &str) {
    let out = tui.backend_mut();
    let _ = out.write_all(bytes.as_bytes());
    let _ = out.flush();
}

/// Test-only switches (set by the pseudo-terminal tests) that panic on purpose, to prove the
/// terminal is restored from any thread.
mod test_hooks {
    use super::Action;

    fn wanted(place: &str) -> bool {
        std::env::var("GENDASH_TEST_PANIC").is_ok_and(|v| v == place)
    }

    pub fn maybe_panic_in_worker() {
        if wanted("worker") {
            tokio::spawn(async {
                tokio::time::sleep(std::time::Duration::from_millis(300)).await;
                panic!("test panic in a worker (GENDASH_TEST_PANIC=worker)");
            });
        }
    }

    /// Panics when `?` is pressed.
    pub fn maybe_panic_in_main(action: Option<&Action>) {
        assert!(
            !(wanted("main") && action == Some(&Action::ToggleHelp)),
            "test panic in the main task (GENDASH_TEST_PANIC=main)"
        );
    }
}
