//! Plain mode (`--plain`, `TERM=dumb`, `GENDASH_PLAIN=1`), for screen readers and logs: no
//! alternate screen, no cursor addressing, no raw mode (the terminal's own line editing reads
//! the commands), colours only when asked. It runs the dashboard's workers and App, started
//! by the same `start` and fed by the same `dispatch`: worker reports go through
//! `State::apply`, and each line command becomes the `Action`s its keys would be
//! (`command.rs`), so the behaviour is the reducers', never a copy. After each input or batch
//! of reports, what changed in the App's state is printed, one line per change (`lines.rs`).

mod command;
mod lines;
mod run;

use super::{Outcome, Session, Started, dispatch, start};
use crate::api::TaskKind;
use crate::app::action::Action;
use crate::app::state::{Health, Init, Load, Pane, Popup, PreviewSlot, State};
use crate::cmd::{Clip, Cmd, TaskKey};
use crate::msg::{CopiedVia, Msg};
use crate::store::config::ActionName;
use crate::store::config::ViewPane;
use crate::store::watchlist::unix_now;
use crate::workers::Workers;
use command::Command;
use lines::{Line, Seen};
use std::collections::HashMap;
use std::io::BufRead;
use std::io::{IsTerminal, Write};
use std::time::Duration;
use tokio::signal::unix::{SignalKind, signal};

/// `models` prints at most this many models; the rest are counted.
pub const MODELS_SHOWN: usize = 100;

/// How plain mode prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Lines are coloured (SGR only): `--color always`, and no `NO_COLOR`.
    pub color: bool,
}

/// The values of `GENDASH_PLAIN` that ask for plain mode, and those that keep the full screen
/// (any case, white space around ignored); the docs name these, and a test holds them to it.
pub const PLAIN_YES: [&str; 4] = ["1", "true", "yes", "on"];
pub const PLAIN_NO: [&str; 4] = ["0", "false", "no", "off"];

/// A `GENDASH_PLAIN` that says neither yes nor no.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "GENDASH_PLAIN is `{value}`: it takes {} (plain mode) or {} (the full screen)",
    PLAIN_YES.join(", "),
    PLAIN_NO.join(", ")
)]
pub struct PlainValueError {
    /// The value, sanitised.
    pub value: String,
}

/// Whether plain mode is wanted: `--plain` / `--no-plain` (`flag`) decide; else
/// `GENDASH_PLAIN` (`PLAIN_YES`, `PLAIN_NO`); else `TERM=dumb`.
pub fn wanted(
    flag: Option<bool>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<bool, PlainValueError> {
    if let Some(flag) = flag {
        return Ok(flag);
    }
    if let Some(value) = env("GENDASH_PLAIN") {
        let said = value.trim().to_ascii_lowercase();
        return if PLAIN_YES.contains(&said.as_str()) {
            Ok(true)
        } else if PLAIN_NO.contains(&said.as_str()) {
            Ok(false)
        } else {
            Err(PlainValueError {
                value: crate::api::sanitize::sanitize(&value),
            })
        };
    }
    Ok(env("TERM").is_some_and(|term| term == "dumb"))
}

/// Runs plain mode until `quit`, the end of the input, or a signal. The error is one line.
pub async fn run(session: Session, options: Options) -> Result<Outcome, super::RunError> {
    let Started {
        mut workers,
        mut msg_rx,
        init,
        mut reload,
        ..
    } = start(session)?;
    let io = super::RunError::Terminal;
    // Before the first line is printed: a Ctrl-C typed as soon as something shows must end
    // plain mode as one (exit 130), not by the signal's default action.
    let mut sigint = signal(SignalKind::interrupt()).map_err(io)?;
    let mut sigterm = signal(SignalKind::terminate()).map_err(io)?;
    let mut sighup = signal(SignalKind::hangup()).map_err(io)?;
    let mut state = State::new(Init {
        preview: Some(PreviewSlot::off("plain mode shows no pictures")),
        ..init
    });
    let mut printer = Printer::new(options.color);
    printer.print(&Line::plain(format!(
        "gendash plain mode · {} watched at {} · type help for the commands",
        crate::fmt::count(state.watch.rows.len(), "task"),
        state.service_url.trim_end_matches('/'),
    )));
    // No screen: a size of its own, so the reducers have rows "on screen" to poll first.
    let mut first = state.update(Action::Resize {
        width: 120,
        height: 40,
    });
    first.extend(state.start());
    send(first, &mut workers);
    printer.report(&state);

    let mut input = read_lines();
    let mut ticker = tokio::time::interval(Duration::from_secs(1));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let outcome = loop {
        let cmds = tokio::select! {
            line = input.recv() => match line {
                Some(line) => printer.command(&mut state, &line),
                // Ctrl-D, or the end of a piped input.
                None => state.update(Action::Quit),
            },
            Some(msg) = msg_rx.recv() => printer.apply_waiting(&mut state, msg, &mut msg_rx),
            _ = ticker.tick() => state.apply(Msg::Tick(unix_now())),
            _ = sigint.recv() => state.update(Action::Terminate(signal_hook::consts::SIGINT)),
            _ = sigterm.recv() => state.update(Action::Terminate(signal_hook::consts::SIGTERM)),
            _ = sighup.recv() => reload.on_sighup(&mut state),
        };
        let mut cmds = cmds;
        reload.take_requests(&mut cmds, &mut state);
        send(cmds, &mut workers);
        printer.report(&state);
        if let Some(quit) = state.quit {
            break quit;
        }
    };
    drop(msg_rx);
    workers.shutdown(Duration::from_secs(2)).await;
    Ok(outcome)
}

/// The lines typed, as the terminal's line editing hands them over (invalid UTF-8 replaced),
/// read on a thread of their own; the channel closes at the end of the input.
fn read_lines() -> tokio::sync::mpsc::UnboundedReceiver<String> {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut line = Vec::new();
        loop {
            line.clear();
            match stdin.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if tx
                        .send(String::from_utf8_lossy(&line).into_owned())
                        .is_err()
                    {
                        break;
                    }
                }
            }
        }
    });
    rx
}

/// The App's commands, carried out as the dashboard carries them out, less what only a full
/// terminal shows: notifications and clipboard sequences (escape sequences; each change is
/// a line already).
fn send(cmds: Vec<Cmd>, workers: &mut Workers) {
    let cmds = cmds
        .into_iter()
        .filter(|c| !matches!(c, Cmd::Notify { .. } | Cmd::CopyToTerminal { .. }))
        .collect();
    dispatch(cmds, workers, &mut std::io::stdout());
}

/// What was last printed of the App's state, and the output.
struct Printer {
    color: bool,
    home: Option<String>,
    tasks: HashMap<TaskKey, Seen>,
    notice: Option<(String, u64)>,
    error: Option<String>,
    health: Health,
    question: Option<String>,
    /// `models` was asked: printed once the catalogue and its ranking are in.
    models: bool,
    /// What `run` set only to pick its rows, put back once its question is answered.
    put_back: Option<run::PutBack>,
}

impl Printer {
    fn new(color: bool) -> Self {
        Printer {
            color,
            home: std::env::var("HOME").ok(),
            tasks: HashMap::new(),
            notice: None,
            error: None,
            health: Health::Unknown,
            question: None,
            models: false,
            put_back: None,
        }
    }

    fn print(&self, line: &Line) {
        let mut out = std::io::stdout().lock();
        let width = std::io::stdout()
            .is_terminal()
            .then(crossterm::terminal::size)
            .and_then(Result::ok)
            .map(|(columns, _)| usize::from(columns));
        let _ = writeln!(out, "{}", lines::render(line, self.color, width));
        let _ = out.flush();
    }

    /// Applies `first` and what else is waiting, as the dashboard does (`super::pacing::apply_waiting`),
    /// but a copy that no clipboard program took is told here: the App would have the
    /// terminal sent OSC 52, and plain mode sends no escape sequence, so nothing was copied.
    fn apply_waiting(
        &mut self,
        state: &mut State,
        first: Msg,
        msgs: &mut tokio::sync::mpsc::Receiver<Msg>,
    ) -> Vec<Cmd> {
        // Each action's end is a notice of its own: the batch ends with one, so the report
        // prints it before the next end replaces it.
        let ends = |m: &Msg| matches!(m, Msg::ActionEnded(_));
        let mut ended = ends(&first);
        let mut cmds = self.apply(state, first);
        for _ in 0..super::pacing::DRAIN_BATCH {
            if ended {
                break;
            }
            match msgs.try_recv() {
                Ok(m) => {
                    ended = ends(&m);
                    cmds.extend(self.apply(state, m));
                }
                Err(_) => break,
            }
        }
        cmds
    }

    fn apply(&mut self, state: &mut State, msg: Msg) -> Vec<Cmd> {
        match msg {
            // An end is told even when it reads as the last one (the same action on the same
            // task, twice within a second): what it sets is marked not yet printed.
            Msg::ActionEnded(end) => {
                let ok = matches!(end.outcome, Ok((Some(0), _)));
                let cmds = state.apply(Msg::ActionEnded(end));
                if ok {
                    self.notice = None;
                } else {
                    self.error = None;
                }
                cmds
            }
            Msg::Copied {
                clip,
                via: CopiedVia::Terminal { failed, .. },
            } => {
                self.print(&not_copied(&clip, failed.as_deref()));
                Vec::new()
            }
            msg => state.apply(msg),
        }
    }

    /// One line per change since the last report: each task's, then errors, notices, the
    /// service's health, a question, and the catalogue `models` waits for.
    fn report(&mut self, state: &State) {
        let (now, stall_after) = (state.now, state.watch.stall_after);
        let mut told = Vec::new();
        for row in &state.watch.rows {
            let key = row.key();
            let (out, seen) = lines::changed(
                row,
                self.tasks.get(&key),
                now,
                stall_after,
                self.home.as_deref(),
            );
            for line in &out {
                self.print(line);
                told.push(line.text.clone());
            }
            if let Some(seen) = seen {
                self.tasks.insert(key, seen);
            }
        }
        self.tasks
            .retain(|key, _| state.watch.rows.iter().any(|r| r.key() == *key));
        if state.last_error != self.error {
            self.error.clone_from(&state.last_error);
            // An error a task's line just told ("sim-4 not found: …") is not told twice.
            let said = |e: &str| {
                told.iter()
                    .any(|t| t.split_once(": ").is_some_and(|(_, why)| e.ends_with(why)))
            };
            if let Some(e) = &state.last_error
                && !said(e)
            {
                self.print(&Line::bad(format!("error: {e}")));
            }
        }
        let notice = state.notice.as_ref().map(|n| (n.text.clone(), n.until));
        if notice != self.notice {
            self.notice.clone_from(&notice);
            if let Some((text, _)) = notice
                && !Self::said_by_a_task(state, &text)
            {
                self.print(&Line::plain(in_words(state, &text)));
            }
        }
        if state.health != self.health {
            if matches!(state.health, Health::Reconnected { .. }) {
                self.print(&Line::plain("the service answers again"));
            }
            self.health = state.health.clone();
        }
        let question = match &state.popup {
            Some(Popup::Confirm(c)) => Some(c.question.clone()),
            _ => None,
        };
        if question != self.question {
            if let Some(q) = &question {
                self.print(&Line::plain(format!("{q} (yes or no)")));
            }
            self.question = question;
        }
        if self.models && !matches!(state.browser.load, Load::Loading) && !state.browser.filtering()
        {
            self.models = false;
            self.models(state);
        }
    }

    /// A notice that a task's own line says too (`saved PATH`) is not said twice.
    fn said_by_a_task(state: &State, text: &str) -> bool {
        state.watch.rows.iter().any(|r| {
            matches!(&r.download, Some(crate::app::state::DownloadView::Saved(p))
                if text == format!("saved {p}"))
        })
    }

    /// `list`: every task the filter lets through, one a line, in the list's order.
    fn list(&self, state: &State) {
        let watch = &state.watch;
        if watch.rows.is_empty() {
            self.print(&Line::plain(
                "the watch list is empty: add ID… watches a task",
            ));
            return;
        }
        if watch.order.is_empty() {
            self.print(&Line::plain(format!(
                "no task matches the filter \"{}\" (filter alone clears it)",
                watch.query
            )));
            return;
        }
        for &i in &watch.order {
            let row = &watch.rows[i];
            let mut line = lines::status(row, state.now, watch.stall_after, self.home.as_deref());
            if row.entry.kind == TaskKind::Video {
                line.text.push_str(" · video");
            }
            if let Some(label) = &row.entry.label {
                line.text.push_str(" · ");
                line.text.push_str(label);
            }
            self.print(&line);
        }
    }

    /// `gallery`: the tiles the gallery shows (the list's order and filter), one a line: the
    /// caption, what it is, its file and the file's size when it is saved.
    fn gallery(&self, state: &State) {
        use crate::app::state::{GalleryOf, gallery_tiles};
        let tiles = gallery_tiles::tiles(
            GalleryOf::Watch,
            &state.watch,
            &state.archive,
            0,
            state.watch.order.len(),
        );
        if tiles.is_empty() {
            self.print(&Line::plain("the gallery is empty (list says why)"));
        }
        for tile in tiles {
            let mut text = tile.caption.clone();
            if tile.caption != tile.key.id {
                text = format!("{} · {text}", tile.key.id);
            }
            text = format!("{text} · {}", tile.status);
            match tile.saved() {
                Some(path) => {
                    let size = std::fs::metadata(path).map_or_else(
                        |_| "missing".to_string(),
                        |m| crate::fmt::human_bytes(m.len()),
                    );
                    let shown = lines::home_relative(&path.to_string_lossy(), self.home.as_deref());
                    text = format!("{text} · {shown} · {size}");
                }
                None => {
                    if let Some(url) = tile.file() {
                        text = format!("{text} · not saved · {url}");
                    }
                }
            }
            self.print(&Line::plain(text));
        }
    }

    /// `models`: the catalogue's matches, best first, one model a line.
    fn models(&self, state: &State) {
        let browser = &state.browser;
        if let Load::Failed(e) = &browser.load {
            self.print(&Line::bad(format!("models: {e}")));
        }
        let total = browser.matches.len();
        let filter = browser.query.trim();
        self.print(&Line::plain(match (total, filter.is_empty()) {
            (0, true) => "the catalogue lists no model".to_string(),
            (0, false) => format!("no model matches \"{filter}\""),
            (_, true) => crate::fmt::count(total, "model"),
            (_, false) => format!("{} match \"{filter}\"", crate::fmt::count(total, "model")),
        }));
        for &i in browser.matches.iter().take(MODELS_SHOWN) {
            let Some(entry) = browser.entries.get(i as usize) else {
                continue;
            };
            let mut text = entry.model().to_string();
            for part in [entry.lora_type(), entry.category()].into_iter().flatten() {
                text.push_str(" · ");
                text.push_str(part);
            }
            self.print(&Line::plain(text));
        }
        if total > MODELS_SHOWN {
            self.print(&Line::plain(format!(
                "… and {} more: models FILTER narrows the list",
                total - MODELS_SHOWN
            )));
        }
    }

    /// A typed line: its command carried out through the App's reducers, as the keys that
    /// mean it would; a mistake is one line.
    fn command(&mut self, state: &mut State, line: &str) -> Vec<Cmd> {
        let command = match command::parse(line) {
            Ok(c) => c,
            Err(e) => {
                self.print(&Line::bad(e.to_string()));
                return Vec::new();
            }
        };
        let mut cmds = Vec::new();
        // A question waits for its answer; another command leaves it unanswered, as Esc.
        if let Some(Popup::Confirm(_)) = state.popup {
            match command {
                Command::Answer(yes) => {
                    cmds = state.update(if yes { Action::Submit } else { Action::Cancel });
                    cmds.extend(self.put_back(state));
                    return cmds;
                }
                Command::Nothing => return cmds,
                _ => {
                    cmds.extend(state.update(Action::Cancel));
                    cmds.extend(self.put_back(state));
                }
            }
        }
        match command {
            Command::Nothing => {}
            Command::Answer(_) => self.print(&Line::plain("nothing was asked")),
            Command::Help => {
                for help in command::HELP {
                    self.print(&Line::plain(*help));
                }
            }
            Command::List => self.list(state),
            Command::Gallery => self.gallery(state),
            Command::Quit => cmds.extend(state.update(Action::Quit)),
            Command::Reload => cmds.extend(state.update(Action::ReloadConfig)),
            Command::Add { ids, kind } => {
                cmds.extend(state.update(Action::OpenAddDialog));
                if kind == TaskKind::Video {
                    cmds.extend(state.update(Action::ToggleKind));
                }
                cmds.extend(state.update(Action::Paste(ids.join(" "))));
                // A refused paste leaves the field empty and says why: Enter is not pressed.
                if !matches!(&state.popup, Some(Popup::Add(d)) if d.error.is_some()) {
                    cmds.extend(state.update(Action::Submit));
                }
                if let Some(Popup::Add(dialog)) = &state.popup {
                    let why = dialog.error.clone().unwrap_or_default();
                    self.print(&Line::bad(format!("add: {why}")));
                    cmds.extend(state.update(Action::Cancel));
                }
            }
            Command::Remove(id) => cmds.extend(self.on_task(state, &id, "rm", Action::Remove)),
            Command::Open(id) => cmds.extend(self.on_task(state, &id, "open", Action::Open)),
            Command::Download(id) => {
                cmds.extend(self.on_task(state, &id, "download", Action::Download));
            }
            Command::Undo => {
                cmds.extend(focus(state, Pane::Watch));
                cmds.extend(state.update(Action::Undo));
            }
            Command::Filter(text) => {
                cmds.extend(filter_watch(state, &text));
                let (shown, all) = (state.watch.order.len(), state.watch.rows.len());
                self.print(&Line::plain(if text.is_empty() {
                    format!("no filter: {}", crate::fmt::count(all, "task"))
                } else {
                    format!(
                        "filter \"{}\": {shown} of {}",
                        state.watch.query,
                        crate::fmt::count(all, "task")
                    )
                }));
            }
            Command::View(name) => cmds.extend(self.view(state, &name)),
            Command::Views => self.views(state),
            Command::Run { name, ids } => cmds.extend(self.run(state, &name, &ids)),
            Command::Actions => self.actions(state),
            Command::Models(text) => {
                cmds.extend(focus(state, Pane::Browser));
                cmds.extend(state.update(Action::FocusFilter));
                cmds.extend(state.update(Action::ClearInput));
                if !text.is_empty() {
                    cmds.extend(state.update(Action::Paste(text)));
                }
                cmds.extend(state.update(Action::Submit));
                self.models = true;
            }
        }
        cmds
    }

    /// `action` on the task `id`, selected as a click would: a task the filter hides is
    /// reached with the filter lifted for the moment.
    fn on_task(&self, state: &mut State, id: &str, name: &str, action: Action) -> Vec<Cmd> {
        let Some(index) = state.watch.rows.iter().position(|r| r.entry.task_id == id) else {
            self.print(&Line::bad(format!("{name}: not watching {id}")));
            return Vec::new();
        };
        let mut cmds = focus(state, Pane::Watch);
        let hidden = !state.watch.order.contains(&index);
        let query = state.watch.query.clone();
        if hidden {
            cmds.extend(filter_watch(state, ""));
        }
        if let Some(at) = state.watch.order.iter().position(|&i| i == index) {
            state.select_watched(at);
            cmds.extend(state.update(action));
        }
        if hidden {
            cmds.extend(filter_watch(state, &query));
        }
        cmds
    }
}

/// What plain mode says of a copy no clipboard program took: why, and the text itself, so it
/// can be copied by hand.
fn not_copied(clip: &Clip, failed: Option<&str>) -> Line {
    let why = failed.map_or_else(
        || "no clipboard program (wl-copy, xclip, xsel, pbcopy) is there".to_string(),
        str::to_string,
    );
    let why = format!("not copied: {why}, and plain mode sends no escape sequence (OSC 52)");
    Line::bad(match &clip.instead_of_opening {
        Some(reason) => format!("{} · {reason} · {why}", clip.text),
        None => format!("{why}; the {}: {}", clip.what, clip.text),
    })
}

/// A notice as plain mode says it: the undo key it names is the `undo` command here.
fn in_words(state: &State, text: &str) -> String {
    let undoes = format!(" — {} undoes", state.keymap.key(ActionName::Undo));
    match text.strip_suffix(&undoes) {
        Some(head) => format!("{head} — undo brings it back"),
        None => text.to_string(),
    }
}

/// The watch list's filter set to `text`, as typed into its field.
impl Printer {
    /// `view NAME`: the view's key, in its pane (the archive has no place in plain mode).
    fn view(&mut self, state: &mut State, name: &str) -> Vec<Cmd> {
        let Some(pane) = state.views.get(name).map(|v| v.spec.pane) else {
            self.print(&Line::plain(format!("no view {name}: views lists them")));
            return Vec::new();
        };
        let pane = match pane {
            ViewPane::Browser => Pane::Browser,
            ViewPane::Watch => Pane::Watch,
            ViewPane::Archive => {
                self.print(&Line::plain(format!(
                    "{name} is a view of the archive, which plain mode does not show"
                )));
                return Vec::new();
            }
        };
        let mut cmds = focus(state, pane);
        cmds.extend(state.update(Action::ApplyView(name.to_string())));
        if pane == Pane::Browser {
            self.models = true;
        } else {
            let (shown, all) = (state.watch.order.len(), state.watch.rows.len());
            self.print(&Line::plain(format!(
                "view {name}: {shown} of {}",
                crate::fmt::count(all, "task")
            )));
        }
        cmds
    }

    /// `views`: every view, its pane and what it sets.
    fn views(&self, state: &State) {
        let mut any = false;
        for pane in ViewPane::ALL {
            for (name, view) in state.views.of(pane) {
                any = true;
                let from = if view.configured { " (config)" } else { "" };
                self.print(&Line::plain(format!(
                    "{name} · {} · {}{from}",
                    pane.name(),
                    view.summary()
                )));
            }
        }
        if !any {
            self.print(&Line::plain(
                "no views: [views.NAME] in the config, or the save-view key in the dashboard",
            ));
        }
    }
}

fn filter_watch(state: &mut State, text: &str) -> Vec<Cmd> {
    let mut cmds = focus(state, Pane::Watch);
    cmds.extend(state.update(Action::FocusFilter));
    cmds.extend(state.update(Action::ClearInput));
    if !text.is_empty() {
        cmds.extend(state.update(Action::Paste(text.to_string())));
    }
    cmds.extend(state.update(Action::Submit));
    cmds
}

/// The keys to `pane`, as Tab gives them.
fn focus(state: &mut State, pane: Pane) -> Vec<Cmd> {
    if state.focus == pane {
        Vec::new()
    } else {
        state.update(Action::FocusNext)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two actions' ends waiting at once are two reports: the batch stops after the first,
    /// so its line is printed before the second's notice replaces it.
    #[test]
    fn a_batch_ends_at_an_actions_end() {
        let end = |row: &str| {
            Msg::ActionEnded(crate::msg::ActionEnded {
                id: 1,
                name: "stamp".into(),
                rows: vec![row.into()],
                outcome: Ok((Some(0), None)),
                last: false,
            })
        };
        let mut state = State::new(Init::default());
        let mut printer = Printer::new(false);
        let (tx, mut rx) = tokio::sync::mpsc::channel(4);
        tx.try_send(end("t-2")).expect("room");
        printer.apply_waiting(&mut state, end("t-1"), &mut rx);
        assert_eq!(
            state.notice.as_ref().map(|n| n.text.as_str()),
            Some("stamp on t-1: exit 0")
        );
        assert!(rx.try_recv().is_ok(), "the second waits for the next turn");
    }

    #[test]
    fn the_flags_then_gendash_plain_then_term_dumb_decide() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| (*v).to_string())
            }
        };
        let dumb = env(&[("TERM", "dumb")]);
        let xterm = env(&[("TERM", "xterm-256color")]);
        assert_eq!(wanted(None, &dumb), Ok(true));
        assert_eq!(wanted(None, &xterm), Ok(false));
        assert_eq!(wanted(Some(false), &dumb), Ok(false));
        assert_eq!(wanted(Some(true), &xterm), Ok(true));
        assert_eq!(wanted(None, &env(&[("GENDASH_PLAIN", "1")])), Ok(true));
        assert_eq!(
            wanted(None, &env(&[("GENDASH_PLAIN", "0"), ("TERM", "dumb")])),
            Ok(false)
        );
        assert_eq!(
            wanted(Some(false), &env(&[("GENDASH_PLAIN", "yes")])),
            Ok(false)
        );
        assert_eq!(wanted(None, &env(&[("GENDASH_PLAIN", " Off ")])), Ok(false));
        let refused = wanted(None, &env(&[("GENDASH_PLAIN", "maybe")])).expect_err("refused");
        assert_eq!(
            refused.to_string(),
            "GENDASH_PLAIN is `maybe`: it takes 1, true, yes, on (plain mode) or 0, false, no, \
             off (the full screen)"
        );
    }

    /// Every value the guide and the command-line page name is taken, and they name every
    /// value taken.
    #[test]
    fn gendash_plain_takes_the_values_the_docs_name() {
        let guide = include_str!("../../docs/guide.md");
        let cli = include_str!("../../docs/cli.md");
        for (docs, name) in [(guide, "guide"), (cli, "cli")] {
            let line = docs
                .lines()
                .find(|l| l.contains("`GENDASH_PLAIN`") && l.contains("`true`"))
                .unwrap_or_else(|| panic!("{name}.md names GENDASH_PLAIN's values"));
            // The values are the words in backticks that are lower case letters or digits.
            let named: Vec<String> = line
                .split('`')
                .skip(1)
                .step_by(2)
                .filter(|w| {
                    w.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
                })
                .map(str::to_string)
                .collect();
            let mut taken: Vec<&str> = PLAIN_YES.iter().chain(&PLAIN_NO).copied().collect();
            let mut sorted: Vec<&str> = named.iter().map(String::as_str).collect();
            taken.sort_unstable();
            sorted.sort_unstable();
            assert_eq!(sorted, taken, "{name}.md: {line}");
            for value in named {
                let env = move |name: &str| (name == "GENDASH_PLAIN").then(|| value.clone());
                assert!(wanted(None, &env).is_ok(), "{name}.md: {line}");
            }
        }
    }
}
