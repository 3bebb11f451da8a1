//! The dashboard's runtime (see the architecture guide): it owns the terminal and the workers.
//! Inputs become `Action`s for the reducers of `app`, worker reports arrive as `Msg`s, the
//! reducers' `Cmd`s go to the workers or the terminal, and the view is drawn once after
//! everything pending was handled. The behaviour lives in the reducers; this module only routes.

mod frame_out;
pub mod input;
mod pacing;
pub mod plain;
pub mod probe;
pub mod progress;
pub mod reload;
pub mod runtime;
pub mod session;
pub mod terminal;
mod tty_input;

use crate::api::Client;
use crate::api::download::Downloader;
use crate::api::recording::RequestSink;
use crate::cmd::Cmd;
use crate::msg::Msg;
use crate::store::config::{self, Settings};
use crate::store::paths::DataFiles;
use crate::store::watchlist::{WatchStore, unix_now};
use crate::workers::{self, ToTerminal, Workers, opener::SystemOpener};
use terminal::Tui;
use tty_input::TtyInput;

use crate::app::action::Action;
use crate::app::state::{Init, Keymap, Quit, SortKey, State, Theme, UiSettings};
use crate::app::{services, state};
use crate::picture::answers::{SyncMode, Wants};
use crossterm::event::{Event, KeyEventKind, MouseEventKind};
use pacing::{LastFrame, apply_waiting, next_frame_at, tick};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc;

/// Capacity of the one channel into the App.
const MSG_CAPACITY: usize = 1024;
/// Everything the dashboard runs with, resolved by the caller.
pub struct Session {
    pub settings: Settings,
    pub client: Client,
    /// Where the watch list and the files beside it are, and the caches.
    pub files: DataFiles,
    /// `NO_COLOR` was set.
    pub no_color: bool,
    /// The configured services: the current one and every profile's, with their names.
    pub services: services::Services,
    /// Makes the clients of the other configured services, on first use.
    pub resolve: Option<workers::router::Resolve>,
    /// The key bindings and the colours, from `looks`.
    pub keymap: Keymap,
    pub theme: Theme,
    /// Set for `--demo` only.
    pub demo: Option<state::Demo>,
    /// Set for plain mode (`--plain`): lines and line commands instead of the full screen.
    pub plain: Option<plain::Options>,
    /// Reads the config again while it runs.
    pub reload: Box<reload::Reloader>,
}

/// `[keys]` cannot be applied: the config file, why, and the lines of the entries it is
/// about.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}: {error}{}", file.display(), lines_text(lines))]
pub struct LooksError {
    pub file: PathBuf,
    #[source]
    pub error: crate::app::keymap::KeymapError,
    /// In order, each once.
    pub lines: Vec<usize>,
}

/// The key bindings (`[keys]`) and the colours (`theme`, `[styles]`, `NO_COLOR`) the settings
/// ask for; the error names the config file and the lines.
pub fn looks(settings: &Settings, no_color: bool) -> Result<(Keymap, Theme), LooksError> {
    // `[[actions]]` go on top of `[keys]`: a key of theirs is checked against the rebound ones;
    // the views' keys last, checked against both.
    let keymap = Keymap::configured(&settings.keys)
        .and_then(|k| {
            k.with_actions(&settings.actions)
                .map_err(|clash| crate::app::keymap::KeymapError::Own(Box::new(clash)))
        })
        .and_then(|k| k.with_views(&settings.views))
        .map_err(|error| LooksError {
            file: settings.config_file.clone(),
            lines: match error.view_field() {
                Some(field) => view_line(&field, &settings.views_lines),
                None => lines_named(&error.actions(), &settings.keys_lines),
            },
            error,
        })?;
    Ok((
        keymap,
        Theme::configured(
            settings.theme,
            settings.theme_file.as_ref(),
            &settings.styles,
            no_color,
        ),
    ))
}

/// Where the `[keys]` entries of `actions` are in the file.
fn lines_named(actions: &[&str], lines: &BTreeMap<String, usize>) -> Vec<usize> {
    let mut named: Vec<usize> = lines
        .iter()
        .filter(|(action, _)| actions.contains(&action.as_str()))
        .map(|(_, &line)| line)
        .collect();
    named.sort_unstable();
    named.dedup();
    named
}

/// Where `[views.NAME]`'s `field` (`NAME.key`) is in the file, else where the view is.
fn view_line(field: &str, lines: &BTreeMap<String, usize>) -> Vec<usize> {
    let view = field.rsplit_once('.').map_or(field, |(v, _)| v);
    lines
        .get(field)
        .or_else(|| lines.get(view))
        .copied()
        .into_iter()
        .collect()
}

/// " (at line 3)" or " (at lines 2 and 5)".
fn lines_text(lines: &[usize]) -> String {
    match lines {
        [] => String::new(),
        [one] => format!(" (at line {one})"),
        [first @ .., last] => format!(
            " (at lines {} and {last})",
            first
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Why the dashboard ended, for the caller to turn into an exit code.
pub type Outcome = Quit;

/// Why the dashboard could not start, or stopped: one line.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    WatchList(#[from] crate::store::watchlist::StoreError),
    /// The current service's downloader could not be made.
    #[error(transparent)]
    Client(#[from] crate::api::ApiError),
    #[error("cannot use the terminal: {0}")]
    Enter(std::io::Error),
    #[error("terminal error: {0}")]
    Terminal(#[from] std::io::Error),
    /// The demo's private folders could not be made.
    #[error("cannot start the demo service: {0}")]
    DemoDir(std::io::Error),
}

/// Runs the dashboard until the user quits or a signal ends it (in plain mode if the session
/// asks for it). The error is one line.
pub async fn run(session: Session) -> Result<Outcome, RunError> {
    // Boxed: the App's state lives in this future, and callers' futures stay small.
    Box::pin(run_boxed(session)).await
}

async fn run_boxed(mut session: Session) -> Result<Outcome, RunError> {
    if let Some(options) = session.plain.take() {
        // Boxed: the dashboard's own future stays its size.
        return Box::pin(plain::run(session, options)).await;
    }
    let Started {
        settings,
        mut workers,
        mut msg_rx,
        init,
        no_color,
        preview_cache,
        mut reload,
    } = start(session)?;

    progress::install_panic_hook();
    terminal::install_panic_hook();
    let _guard = terminal::Guard;
    let mut tui = terminal::enter().map_err(RunError::Enter)?;
    let _progress = progress::Guard;
    progress::start(
        settings.terminal_progress,
        settings.set_title,
        &config::process_env,
    );
    let wants = Wants {
        sync: settings.synchronized_output,
        background: settings.theme == config::ThemeName::Auto && !no_color,
    };
    let (preview, mut asking) = previews_or_asking(
        &mut workers,
        settings.image_preview,
        no_color,
        wants,
        preview_cache,
    );
    #[cfg(any(test, debug_assertions, feature = "testing"))]
    crate::testing::maybe_panic_in_worker();

    let mut state = State::new(Init { preview, ..init });
    let size = tui.size()?;
    let mut first = state.update(Action::Resize {
        width: size.width,
        height: size.height,
    });
    first.extend(state.start());
    hold_previews(&mut first, asking.as_mut());
    dispatch(first, &mut workers, tui.backend_mut());

    // Boxed: `run`'s own future stays small.
    let outcome = Box::pin(event_loop(
        &mut state,
        &mut tui,
        &mut workers,
        &mut msg_rx,
        asking,
        &mut reload,
    ))
    .await;
    let outcome = reload.or_hung_up(outcome);
    progress::restore();
    terminal::restore();
    // Nothing is read any more: a worker blocked on a full channel gives up at once.
    drop(msg_rx);
    workers.shutdown(Duration::from_secs(2)).await;
    outcome
}

async fn event_loop(
    state: &mut State,
    tui: &mut Tui,
    workers: &mut Workers,
    msgs: &mut mpsc::Receiver<Msg>,
    mut asking: Option<Asking>,
    reload: &mut reload::Reloader,
) -> Result<Outcome, RunError> {
    let io = RunError::Terminal;
    // While the graphics question is out, its thread reads the input and passes keys on.
    let mut events = read_input(asking.is_none())?;
    let mut ticker = tokio::time::interval(Duration::from_secs(1));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut sigint = signal(SignalKind::interrupt()).map_err(io)?;
    let mut sigterm = signal(SignalKind::terminate()).map_err(io)?;
    let mut sighup = signal(SignalKind::hangup()).map_err(io)?;
    let mut sigtstp = signal(SignalKind::from_raw(signal_hook::consts::SIGTSTP)).map_err(io)?;
    let mut sigcont = signal(SignalKind::from_raw(signal_hook::consts::SIGCONT)).map_err(io)?;
    let mut last_frame = LastFrame::None;
    // Since when the list has shown an earlier query's matches while the latest is ranked.
    let mut stale_since: Option<tokio::time::Instant> = None;
    // The input not on screen yet: when its first event arrived, and the time its reducers
    // took, for `-vv`'s "input to frame" line (scripts/measure-archive.py reads it).
    let mut unseen_input: Option<(std::time::Instant, Duration)> = None;
    // What the input asked of the workers, sent after the frame it changed.
    let mut after_frame: Vec<Cmd> = Vec::new();
    // Something not drawn yet is not routine (see `BACKGROUND_FRAME`): the next frame comes
    // `FRAME` after the last.
    let mut urgent = true;
    let mut synchronized = false; // the terminal supports 2026 and the settings asked for it
    loop {
        let next_frame = next_frame_at(last_frame, urgent, stale_since);
        if state.dirty && tokio::time::Instant::now() >= next_frame {
            frame(state, tui, unseen_input.take(), synchronized).map_err(io)?;
            last_frame = LastFrame::drawn(tokio::time::Instant::now(), stale_since.is_some());
            urgent = false;
        }
        // After the frame, or at once when none is due yet.
        dispatch(std::mem::take(&mut after_frame), workers, tui.backend_mut());
        if !state.dirty {
            state.settle();
        }
        let mut cmds = tokio::select! {
            // Something changed too soon after the last frame: draw when the next one is due.
            () = tokio::time::sleep_until(next_frame), if state.dirty => Vec::new(),
            event = next_event(events.as_mut()) => match event {
                Some(Ok(event)) => {
                    urgent = true;
                    terminal::follow_resize(tui, &event).map_err(io)?;
                    let arrived = std::time::Instant::now();
                    let cmds = on_event(state, event, reload);
                    let (first, before) = unseen_input.unwrap_or((arrived, Duration::ZERO));
                    unseen_input = Some((first, before + arrived.elapsed()));
                    cmds
                }
                Some(Err(e)) => return Err(io(e)),
                None => input_ended(state, reload),
            },
            early = next_early(asking.as_mut()) => match early {
                terminal::Early::Event(event) => {
                    urgent = true;
                    terminal::follow_resize(tui, &event).map_err(io)?;
                    on_event(state, event, reload)
                }
                terminal::Early::Ask { query, written } => {
                    write_raw(tui.backend_mut(), &String::from_utf8_lossy(&query));
                    let _ = written.send(());
                    Vec::new()
                }
                terminal::Early::Detected(detection) => {
                    urgent = true;
                    synchronized = detection.sync == Some(SyncMode::Supported);
                    events = read_input(true)?;
                    let answered = asking.take().map(|a| a.answered(&detection, state, tui, workers));
                    answered.unwrap_or_default()
                }
            },
            Some(msg) = msgs.recv() => apply_waiting(state, msg, msgs, &mut urgent),
            _ = ticker.tick() => [tick(state, unix_now(), &mut urgent), reload.on_tick(state)].concat(),
            _ = sigint.recv() => state.update(Action::Terminate(signal_hook::consts::SIGINT)),
            _ = sigterm.recv() => state.update(Action::Terminate(signal_hook::consts::SIGTERM)),
            _ = sighup.recv() => reload.on_sighup(state),
            _ = sigtstp.recv() => state.update(Action::Suspend),
            _ = sigcont.recv() => redraw_all(state, tui).map_err(io)?,
        };
        stale_since = state
            .browser
            .filtering()
            .then(|| stale_since.unwrap_or_else(tokio::time::Instant::now));
        reload.take_requests(&mut cmds, state);
        hold_previews(&mut cmds, asking.as_mut());
        if state.dirty && state.quit.is_none() {
            // The workers' commands are sent once the frame is drawn: a worker woken now can
            // take this core from the frame (an archive read or a picture's request cost a
            // keystroke up to 2 ms). What the loop writes to the terminal itself goes now, ahead
            // of the frame that tells of it ("sent … to the terminal's clipboard").
            let (now, later): (Vec<Cmd>, Vec<Cmd>) =
                cmds.into_iter().partition(Cmd::writes_to_terminal);
            dispatch(now, workers, tui.backend_mut());
            after_frame.extend(later);
        } else {
            dispatch(cmds, workers, tui.backend_mut());
        }
        if let Some(quit) = state.quit {
            return Ok(quit);
        }
        if state.take_suspend() {
            progress::suspend();
            if terminal::suspend().is_err() {
                state.suspend_failed();
            }
            progress::resume();
            // Whatever happened to the screen meanwhile, paint all of it again.
            redraw_all(state, tui).map_err(io)?;
        }
    }
}

/// What the dashboard and plain mode both start from: the workers running, the channel their
/// reports arrive on, and the App's first value (its preview slot is the front end's to set).
struct Started {
    settings: Settings,
    workers: Workers,
    msg_rx: mpsc::Receiver<Msg>,
    init: Init,
    no_color: bool,
    preview_cache: PathBuf,
    reload: Box<reload::Reloader>,
}

/// Loads the watch list, starts the workers and makes the App's first value: the one start of
/// both front ends.
fn start(session: Session) -> Result<Started, RunError> {
    let Session {
        settings,
        client,
        files,
        no_color,
        services,
        resolve,
        keymap,
        theme,
        demo,
        plain: _,
        reload,
    } = session;
    let loaded = WatchStore::new(files.watchlist.clone()).load()?;
    let (msg_tx, msg_rx) = mpsc::channel::<Msg>(MSG_CAPACITY);
    let (client, resolve) = log_requests(client, resolve, &msg_tx);
    let remembered = remembered(&files, client.base_url().as_str());
    let views = crate::store::views_file::load(&files.views);
    let preview_cache = files.previews.clone();
    let setup = workers::Setup {
        downloader: Downloader::for_service(&client)?,
        client,
        opener: Arc::new(SystemOpener),
        resolve,
        // The saver's rule of a run's end counts the tasks the rows count (`no service`).
        pollable: workers::pollable::Pollable::new(
            &services.current,
            services
                .names
                .keys()
                .filter(|k| services.usable(k))
                .cloned(),
        ),
        files,
    };
    let workers = Workers::start(&settings, setup, msg_tx);
    let init = Init {
        categories: settings.categories.clone(),
        watch: loaded.entries,
        failure_statuses: settings.failure_statuses.clone(),
        settings: UiSettings {
            bell: settings.bell,
            desktop_notifications: settings.desktop_notifications,
            no_color,
            poll_interval: settings.poll_interval.as_secs(),
        },
        keymap,
        theme: Some(theme),
        stall_after: settings.stall_after.as_secs(),
        auto_download: settings.auto_download,
        services: Some(services),
        utc_offset: crate::clock::local_offset(),
        demo,
        error: start_problems(loaded.set_aside, &views),
        views: Box::new(crate::app::views::Views::new(
            &settings.views,
            &views.map(|v| v.content).unwrap_or_default(),
        )),
        now: unix_now(),
        notify: crate::app::watch::notify::Settings::of(&settings),
        prompt: settings.prompt(),
        ..remembered
    };
    Ok(Started {
        settings,
        workers,
        msg_rx,
        init,
        no_color,
        preview_cache,
        reload,
    })
}

/// Every request of the current service's client and of those made for other services
/// reaches the App as `Msg::Request`, for the request log. A record that finds the channel
/// full is dropped rather than hold up the request that made it.
fn log_requests(
    client: Client,
    resolve: Option<workers::router::Resolve>,
    msgs: &mpsc::Sender<Msg>,
) -> (Client, Option<workers::router::Resolve>) {
    let tx = msgs.clone();
    let sink = RequestSink(Arc::new(move |record| {
        let _ = tx.try_send(Msg::Request(record));
    }));
    let resolve = resolve.map(|make| {
        let sink = sink.clone();
        let wrapped: workers::router::Resolve =
            Arc::new(move |key: &str| make(key).map(|c| c.with_requests(sink.clone())));
        wrapped
    });
    (client.with_requests(sink), resolve)
}

/// What the status bar says from the start: a watch list or a views file that could not be
/// read (set aside), the views file's lock that could not be taken.
fn start_problems(
    watch_aside: Option<PathBuf>,
    views: &Result<crate::store::views_file::Loaded, crate::store::views_file::ViewsError>,
) -> Option<String> {
    let watch = watch_aside.map(|p| {
        format!(
            "the watch list could not be read and was set aside as {}",
            p.display()
        )
    });
    let views = match views {
        Ok(l) => l.set_aside.as_ref().map(|p| {
            format!(
                "the views file could not be read and was set aside as {}",
                p.display()
            )
        }),
        Err(e) => Some(e.to_string()),
    };
    let said: Vec<String> = watch.into_iter().chain(views).collect();
    (!said.is_empty()).then(|| said.join(" · "))
}

/// What the files beside the watch list remember for the service at `service_url`: the
/// categories used lately, the favourites, the sort.
fn remembered(files: &DataFiles, service_url: &str) -> Init {
    Init {
        service_url: service_url.to_string(),
        recent_categories: crate::store::recent::load(&files.recent_categories),
        favourites: crate::store::favourites_file::load(
            &files.favourites,
            service_url.trim_end_matches('/'),
        ),
        sort: crate::store::recent::load_sort(&files.sort).map(|label| SortKey::from_label(&label)),
        ..Init::default()
    }
}

/// The previews, when the environment tells what the terminal can show; otherwise the terminal
/// is asked after the first frame, and the event reader starts once it has answered (or not).
fn previews_or_asking(
    workers: &mut Workers,
    setting: crate::store::config::ImagePreview,
    no_color: bool,
    wants: Wants,
    preview_cache: PathBuf,
) -> (Option<state::PreviewSlot>, Option<Asking>) {
    if let Some(detection) = graphics_known_now(setting, no_color, wants) {
        (start_previews(workers, &detection, preview_cache), None)
    } else {
        let answers = terminal::detect_in_background(move |ask| {
            detect_graphics(setting, no_color, wants, ask)
        });
        (None, Some(Asking::new(answers, preview_cache)))
    }
}

/// Starts the preview worker if the terminal can show pictures, or says in the preview slot
/// why not.
fn start_previews(
    workers: &mut Workers,
    graphics: &crate::picture::Detection,
    cache_dir: PathBuf,
) -> Option<state::PreviewSlot> {
    tracing::info!("{}", graphics.note);
    match graphics.graphics {
        Some(g) => {
            workers.start_previews(
                g,
                crate::store::cache::ImageCache::new(cache_dir, crate::store::cache::DEFAULT_CAP),
                Msg::Preview,
            );
            None
        }
        None => Some(state::PreviewSlot::off(graphics.note.clone())),
    }
}

/// The graphics question out: where previews will be cached, and the latest preview asked for
/// meanwhile, sent once the worker is started.
struct Asking {
    answers: mpsc::UnboundedReceiver<terminal::Early>,
    cache_dir: PathBuf,
    pending: Option<crate::cmd::PreviewRequest>,
    /// The same for the selected catalogue entry's picture.
    pending_model: Option<crate::cmd::PreviewRequest>,
}

impl Asking {
    fn new(answers: mpsc::UnboundedReceiver<terminal::Early>, cache_dir: PathBuf) -> Self {
        Asking {
            answers,
            cache_dir,
            pending: None,
            pending_model: None,
        }
    }

    /// The terminal answered (or the bound passed): previews start, or the slot says why not;
    /// a resize while the session's reader was not listening is caught up.
    fn answered(
        self,
        detection: &crate::picture::Detection,
        state: &mut State,
        tui: &mut Tui,
        workers: &mut Workers,
    ) -> Vec<Cmd> {
        let mut cmds = Vec::new();
        if let Some(background) = detection.background {
            tracing::info!("the terminal's background: {}", background.hex());
            cmds.extend(state.apply(Msg::Background {
                light: background.is_light(),
            }));
        }
        if let Some(off) = start_previews(workers, detection, self.cache_dir) {
            state.previews_off(off);
        } else {
            cmds.extend(self.pending.map(Cmd::Preview));
            cmds.extend(self.pending_model.map(Cmd::ModelPreview));
        }
        // The state's size, told again: a resize meanwhile sent the session's reader no event
        // (an unchanged size changes nothing drawn).
        if let Ok(size) = tui.size() {
            let area = ratatui::layout::Rect::new(0, 0, size.width, size.height);
            if tui.get_frame().area() != area {
                // A failure here fails the next draw, which ends the loop with it.
                let _ = terminal::resize(tui, area);
            }
            cmds.extend(state.update(Action::Resize {
                width: size.width,
                height: size.height,
            }));
        }
        cmds
    }
}

/// While the terminal is asked, previews wait (the latest one is kept).
fn hold_previews(cmds: &mut Vec<Cmd>, asking: Option<&mut Asking>) {
    let Some(asking) = asking else { return };
    cmds.retain(|cmd| match cmd {
        Cmd::Preview(request) => {
            asking.pending = Some(request.clone());
            false
        }
        Cmd::ModelPreview(request) => {
            asking.pending_model = Some(request.clone());
            false
        }
        _ => true,
    });
}

/// The terminal's input, read from now on when `now`.
fn read_input(now: bool) -> Result<Option<TtyInput>, RunError> {
    now.then(TtyInput::open)
        .transpose()
        .map_err(RunError::Terminal)
}

/// The terminal's input ended: it hung up (the dashboard ends as on its `SIGHUP`), or it
/// closed otherwise (the dashboard quits).
fn input_ended(state: &mut State, reload: &reload::Reloader) -> Vec<Cmd> {
    let mut cmds = reload.on_tick(state);
    if state.quit.is_none() {
        cmds.extend(state.update(Action::Quit));
    }
    cmds
}

async fn next_event(events: Option<&mut TtyInput>) -> Option<std::io::Result<Event>> {
    match events {
        Some(events) => events.next().await,
        None => std::future::pending().await,
    }
}

/// The detection thread's next report; should it end without one, previews fall back to
/// half-blocks rather than keep the event reader waiting.
async fn next_early(asking: Option<&mut Asking>) -> terminal::Early {
    match asking {
        Some(asking) => asking.answers.recv().await.unwrap_or_else(|| {
            terminal::Early::Detected(crate::picture::Detection {
                graphics: Some(crate::picture::Graphics::halfblocks()),
                cell_pixels: None,
                note: "image previews: halfblocks (the terminal could not be asked)".into(),
                queries: 0,
                sync: None,
                background: None,
            })
        }),
        None => std::future::pending().await,
    }
}

/// How previews will be drawn when nothing needs asking (the setting or the environment
/// tells, or this is no terminal); `None` when the terminal must be asked.
fn graphics_known_now(
    setting: crate::store::config::ImagePreview,
    no_color: bool,
    wants: Wants,
) -> Option<crate::picture::Detection> {
    let mut asked = false;
    let mut not_yet = |_: &[u8], _: fn(&[u8]) -> bool, _: Duration| {
        asked = true;
        Err(std::io::Error::other("asked after the first frame"))
    };
    let detection = detect_graphics(setting, no_color, wants, &mut not_yet);
    (!asked).then_some(detection)
}

/// How previews will be drawn, and what `wants` asks besides: asks the terminal (through
/// `ask`) at most twice, each within 200 ms (`picture::detect_with`).
pub fn detect_graphics(
    setting: crate::store::config::ImagePreview,
    no_color: bool,
    wants: Wants,
    ask: crate::picture::graphics::Ask<'_>,
) -> crate::picture::Detection {
    crate::picture::detect_with(
        setting,
        no_color,
        wants,
        &config::process_env,
        &mut crate::picture::Tty {
            is_terminal: terminal::is_terminal(),
            cell_pixels: terminal::cell_pixels(),
            ask,
        },
    )
}

/// Paints every cell on the next draw without asking the terminal anything: the back buffer
/// is reset by resizing to the size the kernel reports (never `clear()`, which queries the
/// cursor position and waits for an answer some terminals never send).
fn redraw_all(state: &mut State, tui: &mut Tui) -> std::io::Result<Vec<Cmd>> {
    let size = tui.size()?;
    terminal::resize(
        tui,
        ratatui::layout::Rect::new(0, 0, size.width, size.height),
    )?;
    Ok(state.update(Action::Resize {
        width: size.width,
        height: size.height,
    }))
}

/// Turns a terminal event into an action through the keymap; the focus coming back reads a
/// changed config and polls the running tasks on screen.
fn on_event(state: &mut State, event: Event, reload: &mut reload::Reloader) -> Vec<Cmd> {
    let action = match event {
        Event::FocusGained => {
            let mut cmds = reload.on_focus(state);
            cmds.extend(state.focus_gained());
            return cmds;
        }
        Event::Key(key) if key.kind != KeyEventKind::Release => {
            state.keymap.resolve(&state.contexts(), &key)
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
    #[cfg(any(test, debug_assertions, feature = "testing"))]
    crate::testing::maybe_panic_in_main(action == Some(Action::ToggleHelp));
    action.map(|a| state.update(a)).unwrap_or_default()
}

/// A link's URL and its cells as drawn.
type Run<'a> = (&'a str, Vec<(u16, u16, ratatui::buffer::Cell)>);

/// Draws a frame, then makes its links clickable: each link's cells are written again, exactly
/// as drawn, inside an OSC 8 hyperlink, so the terminal's idea of every cell stays ratatui's.
fn draw(state: &State, tui: &mut Tui) -> std::io::Result<()> {
    use ratatui::backend::Backend;
    let mut links = Vec::new();
    let frame = tui.draw(|f| links = crate::ui::render(state, f))?;
    let runs: Vec<Run> = links
        .iter()
        .map(|l| {
            let cells = (l.x..l.x.saturating_add(l.width))
                .filter_map(|x| frame.buffer.cell((x, l.y)).map(|c| (x, l.y, c.clone())))
                .collect();
            (l.url.as_str(), cells)
        })
        .collect();
    if runs.is_empty() {
        return Ok(());
    }
    let out = tui.backend_mut();
    for (url, cells) in runs {
        out.write_all(terminal::hyperlink_open(url).as_bytes())?;
        out.draw(cells.iter().map(|(x, y, c)| (*x, *y, c)))?;
        out.write_all(terminal::HYPERLINK_CLOSE.as_bytes())?;
    }
    Backend::flush(out)
}

/// Draws a frame (inside a synchronized update when `synchronized`) and what goes with it;
/// `unseen_input` (when the input it shows first arrived,
/// and the time its reducers took) is logged with `-vv`, for scripts/measure-archive.py.
fn frame(
    state: &mut State,
    tui: &mut Tui,
    unseen_input: Option<(std::time::Instant, Duration)>,
    synchronized: bool,
) -> std::io::Result<()> {
    let drawing = std::time::Instant::now();
    terminal::begin_frame(tui, synchronized);
    let drawn = draw(state, tui);
    terminal::end_frame(tui, synchronized)?;
    drawn?;
    if let Some((arrived, handled)) = unseen_input {
        tracing::debug!(
            "input to frame {:.2} ms: handled {:.2} ms, drawn {:.2} ms",
            arrived.elapsed().as_secs_f64() * 1e3,
            handled.as_secs_f64() * 1e3,
            drawing.elapsed().as_secs_f64() * 1e3,
        );
    }
    progress::show(&crate::app::watch::notify::overall(&state.watch));
    state.drawn();
    Ok(())
}

/// Carries out commands: each goes to `Workers::send`, which hands back what only the terminal
/// can do, written to `tui` (the dashboard's terminal, or plain mode's output) in order.
fn dispatch(cmds: Vec<Cmd>, workers: &mut Workers, tui: &mut dyn Write) {
    for cmd in cmds {
        match workers.send(cmd) {
            None => {}
            Some(ToTerminal::Clipboard { text, tmux }) => {
                write_raw(tui, &terminal::clipboard_sequence(&text, tmux));
            }
            Some(ToTerminal::Bell) => write_raw(tui, "\x07"),
            Some(ToTerminal::Notify { title, body }) => write_raw(
                tui,
                &terminal::notify_sequence(&title, &body, &config::process_env),
            ),
        }
    }
}

fn write_raw(out: &mut dyn Write, bytes: &str) {
    let _ = out.write_all(bytes.as_bytes());
    let _ = out.flush();
}
