//! The App's state and its two reducers: `update` (an input's `Action`) and `apply` (a worker's
//! `Msg`). Both are plain functions returning the `Cmd`s to carry out; the event loop only
//! routes. Whatever changes what is on screen sets `dirty`.

use super::action::Action;
use super::effects::Effects;
use super::watch::{Undone, new_entry};
use crate::api::links::validate_link;
use crate::api::{ApiError, Catalogue};
use crate::app::layout::{Areas, ContainsPoint, Region};
use crate::cmd::TaskKey;
use crate::cmd::{Clip, Cmd, PreviewSource};
use crate::msg::{CopiedVia, DownloadEvent, Msg, Opened};
use crate::store::watchlist::{WatchEntry, split_ids};

// Everything the view reads is reachable from here: the view imports this module only.
pub use super::browser::{Browser, Field, Load};
pub use super::cursor::Cursor;
pub use super::keymap::{Binding, Context, HelpLine, Keymap, Priority};
pub use super::preview_slot::PreviewSlot;
pub use super::request_log::{KEEP as REQUESTS_KEPT, RequestLog};
pub use super::theme::Theme;
pub use super::watch::{Counts, DownloadView, Phase, Row, SortKey, Watch, count_of};
pub use crate::api::{TaskKind, TaskState};
pub use crate::filter::FuzzyFilter;

/// How long a notice stays on the status bar, in seconds of the reducers' clock.
pub const NOTICE_SECONDS: u64 = 5;

/// A short message about the last action ("copied …", "removed …"), shown for a few seconds:
/// a message about an earlier action must not read as one about the latest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub text: String,
    /// When it goes, on the reducers' clock (`State::now`).
    pub until: u64,
    /// Shown alone on the status bar, so it is read whole (how a copy went, a URL).
    pub whole: bool,
}

/// The dashboard runs on the embedded demo service (`--demo`).
#[derive(Debug, Clone)]
pub struct Demo {
    /// The service's throwaway token, which the request log's curl lines may show.
    pub token: crate::api::Secret,
    /// Where downloads go.
    pub downloads: std::path::PathBuf,
    /// `downloads` is the demo's own temporary directory, not a configured `download_dir`.
    pub temporary: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Browser,
    Watch,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddDialog {
    pub text: String,
    pub kind: TaskKind,
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Popup {
    Help {
        scroll: u16,
    },
    Add(AddDialog),
    /// A yes/no question: `y` replaces the task's file.
    Confirm(Confirm),
    /// The request log (`L`); its rows and selection are `State::requests`.
    Requests,
    /// Remove every completed task (`count` of them when asked)?
    RemoveCompleted {
        count: usize,
    },
}

/// A search in the help or the request log (`/`); it stays after its field is left, for the
/// next and previous match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Search {
    pub query: String,
    /// Whether its field has the keyboard.
    pub editing: bool,
    /// The help line the search is at (the request log's is its selected row).
    pub at: Option<usize>,
    /// How many lines match.
    pub matches: usize,
}

impl Search {
    /// A new search, its field taking the keyboard.
    fn editing() -> Self {
        Search {
            editing: true,
            ..Search::default()
        }
    }
}

/// Replace the file of task `key`? (`D` found one there.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirm {
    pub question: String,
    pub key: TaskKey,
}

/// The service's health as its last answers tell it: one state, shown in one place, so the
/// status bar cannot say two things at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Health {
    Unknown,
    Connected,
    /// Answering again after trouble: said until `until` (the reducers' clock), then
    /// `Connected`.
    Reconnected {
        until: u64,
    },
    Trouble(String),
    /// Answers came, but 404 where the spec's routes should be: the base URL's path looks
    /// wrong (the error's text, which shows what was asked).
    WrongPath(String),
}

/// Why the dashboard ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quit {
    /// The user asked (the quit key, or the input closed).
    User,
    /// A signal asked (its number: SIGINT, SIGTERM, SIGHUP).
    Signal(i32),
}

/// Settings the reducers need.
#[derive(Debug, Clone)]
pub struct UiSettings {
    pub bell: bool,
    pub desktop_notifications: bool,
    pub no_color: bool,
}

#[derive(Debug)]
pub struct State {
    pub browser: Browser,
    pub watch: Watch,
    pub focus: Pane,
    pub popup: Option<Popup>,
    pub service_url: String,
    pub health: Health,
    pub last_error: Option<String>,
    /// A short message about the last action ("copied …", "opened …"), set by `say`.
    pub notice: Option<Notice>,
    /// The selected finished task's picture in the detail section.
    pub preview: PreviewSlot,
    /// The last requests made, for the request log.
    pub requests: RequestLog,
    /// `on_complete` failed once already (said once, then only logged).
    pub hook_failed: bool,
    pub settings: UiSettings,
    pub keymap: Keymap,
    /// The search of the help or the request log, whichever is open.
    pub search: Search,
    /// The pane that covers the screen (`z`): always the focused one.
    pub zoomed: Option<Pane>,
    pub theme: Theme,
    /// Wall-clock seconds since the epoch, advanced by ticks: the reducers' only clock.
    pub now: u64,
    pub areas: Areas,
    /// Ops sent to the store; a file snapshot is merged only once it includes all of them.
    pub persist_sent: u64,
    age_signature: u64,
    /// The tasks the poller was told to poll first (by `start`, then whenever the rows on
    /// screen changed): the watch pane's visible rows, the selected one among them.
    preferred: Vec<TaskKey>,
    pub dirty: bool,
    /// Set when the dashboard should end; the event loop returns it.
    pub quit: Option<Quit>,
    /// Set when the user asked to suspend (Ctrl-Z); the event loop carries it out.
    suspend: bool,
}

impl State {
    pub fn new(
        service_url: &str,
        categories: Vec<String>,
        watch: Vec<WatchEntry>,
        failure_statuses: Vec<String>,
        settings: UiSettings,
        now: u64,
    ) -> Self {
        let mut state = State {
            browser: Browser::new(categories, Vec::new()),
            watch: Watch::new(watch, failure_statuses),
            preview: PreviewSlot::new(),
            requests: RequestLog::default(),
            hook_failed: false,
            focus: Pane::Browser,
            popup: None,
            service_url: crate::api::sanitize::sanitize(service_url),
            health: Health::Unknown,
            last_error: None,
            notice: None,
            theme: Theme::new(
                crate::store::config::ThemeName::Dark,
                &std::collections::BTreeMap::new(),
                settings.no_color,
            ),
            settings,
            keymap: Keymap::default(),
            search: Search::default(),
            zoomed: None,
            now,
            areas: Areas::default(),
            persist_sent: 0,
            age_signature: 0,
            preferred: Vec::new(),
            dirty: true,
            quit: None,
            suspend: false,
        };
        // Until told of the others, the one service known is the one the state was made for.
        let current = service_url.trim_end_matches('/');
        state
            .watch
            .set_services(super::services::Services::single(current));
        state.preferred = state.watch.visible().map(Row::key).collect();
        state
    }

    /// The first commands: load the catalogue, start polling, the rows on screen first.
    pub fn start(&mut self) -> Vec<Cmd> {
        let mut cmds = vec![self.browser.fetch(), Cmd::Prefer(self.preferred.clone())];
        cmds.extend(self.watch.start_polling());
        cmds
    }

    /// Which keymap contexts apply now, most specific first; derived, never stored.
    pub fn contexts(&self) -> Vec<Context> {
        let mut contexts = match (&self.popup, self.browser.editing) {
            (Some(Popup::Help { .. } | Popup::Requests), _) if self.search.editing => {
                vec![Context::TextInput]
            }
            (Some(Popup::Help { .. }), _) => vec![Context::Help],
            (Some(Popup::Add(_)), _) => vec![Context::AddDialog],
            (Some(Popup::Confirm(_) | Popup::RemoveCompleted { .. }), _) => {
                vec![Context::Confirm]
            }
            (Some(Popup::Requests), _) => vec![Context::Requests],
            (None, Some(_)) if self.focus == Pane::Browser => vec![Context::TextInput],
            (None, _) if self.focus == Pane::Watch && self.watch.editing => {
                vec![Context::TextInput]
            }
            _ => match self.focus {
                Pane::Browser => vec![Context::Browser, Context::Global],
                Pane::Watch => vec![Context::Watch, Context::Global],
            },
        };
        contexts.push(Context::Always);
        contexts
    }

    /// Whether a suspend was asked for since the last call; asking again clears it.
    pub fn take_suspend(&mut self) -> bool {
        std::mem::take(&mut self.suspend)
    }

    /// Counts persistence commands so file snapshots that predate them are not merged, and
    /// tells the poller when the rows on screen changed.
    fn track(&mut self, mut cmds: Vec<Cmd>) -> Vec<Cmd> {
        // The filter's detail line came or went: the list gives or takes its row.
        if self.browser.filter_detail.is_some() != self.areas.filter_detail {
            self.relayout();
        }
        self.persist_sent += cmds.iter().filter(|c| matches!(c, Cmd::Persist(_))).count() as u64;
        if let Some(prefer) = self.prefer_visible() {
            cmds.push(prefer);
        }
        cmds.extend(self.sync_preview());
        cmds
    }

    /// The selected task's picture, when the detail section shows a finished task and has room
    /// for it: from the saved file if it was downloaded, else from its URL.
    pub fn preview_source(&self) -> Option<(TaskKey, PreviewSource)> {
        if self.areas.watch_preview.is_empty() {
            return None;
        }
        let r = self.watch.selected_row()?;
        if r.state != TaskState::Completed {
            return None;
        }
        let source = match &r.download {
            Some(DownloadView::Saved(path)) => PreviewSource::File(path.into()),
            _ => PreviewSource::Url(r.url()?.to_string()),
        };
        Some((r.key(), source))
    }

    /// Asks for the picture the detail section now shows, if the worker has work to do.
    fn sync_preview(&mut self) -> Option<Cmd> {
        let Some((key, source)) = self.preview_source() else {
            self.preview.clear();
            return None;
        };
        let area = self.areas.watch_preview.as_size();
        self.preview.show(&key, &source, area).map(Cmd::Preview)
    }

    /// A `Prefer` for the rows on screen if they are not those the poller was last told of
    /// (scrolled, resized, rows added or removed); compared in place, as this runs after every
    /// input and report. Rows keep their order, so the same rows in the same order are the
    /// same set.
    fn prefer_visible(&mut self) -> Option<Cmd> {
        let mut shown = 0;
        let mut same = true;
        for (i, r) in self.watch.visible().enumerate() {
            shown += 1;
            same &= self
                .preferred
                .get(i)
                .is_some_and(|k| r.entry.kind == k.kind && r.entry.task_id == k.id);
        }
        if same && shown == self.preferred.len() {
            return None;
        }
        self.preferred = self.watch.visible().map(Row::key).collect();
        Some(Cmd::Prefer(self.preferred.clone()))
    }

    /// The reducer for inputs.
    pub fn update(&mut self, action: Action) -> Vec<Cmd> {
        self.dirty = true;
        // Typed and pasted text can carry controls and escape sequences too.
        // The add dialog checks its pastes itself: an ID is refused, not cleaned into another.
        let action = match action {
            Action::Paste(text) if !matches!(self.popup, Some(Popup::Add(_))) => {
                Action::Paste(clean_paste(&text))
            }
            other => other,
        };
        let cmds = match action {
            Action::Type(c) if c.is_control() => Vec::new(),
            Action::Quit => {
                self.quit = Some(Quit::User);
                Vec::new()
            }
            Action::Resize { width, height } => {
                self.resize(width, height);
                Vec::new()
            }
            Action::Click { column, row } => self.click(column, row),
            Action::Wheel { column, row, down } => {
                let delta = if down { 3 } else { -3 };
                match pane_at(&self.areas, column, row) {
                    Some(Pane::Browser) => self.browser.move_by(delta),
                    Some(Pane::Watch) => self.watch.move_by(delta),
                    None => {}
                }
                Vec::new()
            }
            Action::Terminate(signal) => {
                self.quit = Some(Quit::Signal(signal));
                Vec::new()
            }
            Action::Suspend => {
                self.suspend = true;
                Vec::new()
            }
            _ => match &self.popup {
                Some(Popup::Help { .. } | Popup::Requests) if self.search.editing => {
                    self.update_search(action);
                    Vec::new()
                }
                Some(Popup::RemoveCompleted { .. }) => self.update_remove_completed(&action),
                Some(Popup::Help { .. }) => self.update_help(&action),
                Some(Popup::Add(_)) => self.update_add(action),
                Some(Popup::Confirm(_)) => self.update_confirm(&action),
                Some(Popup::Requests) => self.update_requests(&action),
                None if self.browser.editing.is_some() && self.focus == Pane::Browser => {
                    self.update_text(action)
                }
                None if self.watch.editing && self.focus == Pane::Watch => {
                    self.update_watch_filter(action);
                    Vec::new()
                }
                None => self.update_normal(action),
            },
        };
        self.track(cmds)
    }

    /// `y` replaces the file (a download that may overwrite), `n` or Esc keeps it.
    fn update_confirm(&mut self, action: &Action) -> Vec<Cmd> {
        let Some(Popup::Confirm(c)) = &self.popup else {
            return Vec::new();
        };
        let key = c.key.clone();
        match action {
            Action::Submit => {
                self.popup = None;
                let row = self.watch.rows.iter().find(|r| r.key() == key);
                let cmd = row.and_then(|r| self.watch.download_cmd(r, true));
                self.say(format!("replacing the file of {}", key.id));
                cmd.into_iter().collect()
            }
            Action::Cancel => {
                self.popup = None;
                self.say(format!("kept the file; {} not downloaded", key.id));
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    fn resize(&mut self, width: u16, height: u16) {
        self.areas = Areas::compute_zoomed(
            width,
            height,
            self.watch.detail,
            self.browser.filter_detail.is_some(),
            self.zoomed_region(),
        );
        self.browser.cursor.viewport = usize::from(self.areas.browser_list.height.max(1));
        self.watch.cursor.viewport = usize::from(self.areas.watch_rows.height.max(1));
        self.browser.scroll_into_view();
        self.watch.scroll_into_view();
        let max = self.help_scroll_max();
        if let Some(Popup::Help { scroll }) = &mut self.popup {
            *scroll = (*scroll).min(max);
        }
        self.requests
            .set_viewport(usize::from(self.areas.requests_rows.height));
    }

    /// The pane that covers the screen, when one is zoomed.
    pub fn zoomed_region(&self) -> Option<Region> {
        self.zoomed.map(|pane| match pane {
            Pane::Browser => Region::Browser,
            Pane::Watch => Region::Watch,
        })
    }

    /// The request log: moving through it, searching, copying a request as `curl`, closing it.
    fn update_requests(&mut self, action: &Action) -> Vec<Cmd> {
        let page = isize::try_from(self.requests.cursor.viewport.max(1)).unwrap_or(isize::MAX);
        match action {
            Action::Search => self.search = Search::editing(),
            Action::NextMatch(forward) => self.find(*forward, 1),
            Action::Up => self.requests.move_by(-1),
            Action::Down => self.requests.move_by(1),
            Action::PageUp => self.requests.move_by(-page),
            Action::PageDown => self.requests.move_by(page),
            Action::Top => self.requests.top(),
            Action::Bottom => self.requests.bottom(),
            Action::CopyCurl => {
                let curl = self.requests.selected().map(|r| self.requests.curl(r));
                return self.copy(curl, "request as a curl command");
            }
            Action::ToggleRequests | Action::Cancel => self.popup = None,
            _ => {}
        }
        Vec::new()
    }

    /// How far the help scrolls at the current size: until its last line is the overlay's last.
    fn help_scroll_max(&self) -> u16 {
        help_scroll_max(self.keymap.help_lines().len(), self.areas.help.height)
    }

    /// The same size laid out again (the detail section was shown or hidden).
    fn relayout(&mut self) {
        self.resize(self.areas.full.width, self.areas.full.height);
    }

    fn click(&mut self, column: u16, row: u16) -> Vec<Cmd> {
        if self.popup.is_some() {
            return Vec::new();
        }
        let a = self.areas;
        if a.browser_list.contains_point(column, row) {
            self.focus = Pane::Browser;
            self.browser.editing = None;
            self.browser
                .select(self.browser.cursor.offset + usize::from(row - a.browser_list.y));
        } else if a.browser_filter.contains_point(column, row) {
            self.focus = Pane::Browser;
            self.browser.start_editing(Field::Filter);
        } else if a.watch_rows.contains_point(column, row) {
            self.focus = Pane::Watch;
            self.browser.editing = None;
            self.watch
                .select(self.watch.cursor.offset + usize::from(row - a.watch_rows.y));
        } else if let Some(p) = pane_at(&a, column, row) {
            if p == Pane::Watch {
                self.browser.editing = None;
            }
            self.focus = p;
        }
        Vec::new()
    }

    fn update_help(&mut self, action: &Action) -> Vec<Cmd> {
        let max = self.help_scroll_max();
        let page = self.areas.help.height.saturating_sub(2).max(1);
        match action {
            Action::Search => self.search = Search::editing(),
            Action::NextMatch(forward) => self.find(*forward, 1),
            _ => {}
        }
        if let Some(Popup::Help { scroll }) = &mut self.popup {
            match action {
                Action::Up => *scroll = scroll.saturating_sub(1),
                Action::Down => *scroll = scroll.saturating_add(1).min(max),
                Action::PageUp => *scroll = scroll.saturating_sub(page),
                Action::PageDown => *scroll = scroll.saturating_add(page).min(max),
                Action::Top => *scroll = 0,
                Action::Bottom => *scroll = max,
                Action::ToggleHelp | Action::Cancel => self.popup = None,
                _ => {}
            }
        }
        Vec::new()
    }

    /// Typing a search of the help or the request log: each keystroke goes to the first match
    /// from where the search is; leaving the field keeps the search for the next match.
    fn update_search(&mut self, action: Action) {
        match action {
            Action::Type(c) => self.search.query.push(c),
            Action::Paste(text) => self.search.query.push_str(&text),
            Action::Backspace => {
                self.search.query.pop();
            }
            Action::ClearInput => self.search.query.clear(),
            Action::PickNext => return self.find(true, 1),
            Action::PickPrevious => return self.find(false, 1),
            Action::Submit | Action::Cancel => {
                self.search.editing = false;
                return;
            }
            _ => return,
        }
        self.find(true, 0);
    }

    /// The open popup's lines as its search reads them: the help's, or the log's requests.
    fn searched_lines(&self) -> Vec<String> {
        match self.popup {
            Some(Popup::Requests) => self
                .requests
                .entries
                .iter()
                .map(|r| {
                    let status = r.status.map_or_else(|| "—".to_string(), |s| s.to_string());
                    let error = r.error.as_deref().unwrap_or_default();
                    format!("{} {status} {} {error}", r.method, r.url)
                })
                .collect(),
            _ => self
                .keymap
                .help_lines()
                .iter()
                .map(HelpLine::text)
                .collect(),
        }
    }

    /// Goes to the first line matching the search, forward or back from the one it is at
    /// (`skip` 0 counts that one, 1 starts past it), round the end; stays put without a match.
    fn find(&mut self, forward: bool, skip: usize) {
        let needle = self.search.query.to_lowercase();
        let lines = self.searched_lines();
        let hits: Vec<bool> = lines
            .iter()
            .map(|l| !needle.is_empty() && l.to_lowercase().contains(&needle))
            .collect();
        self.search.matches = hits.iter().filter(|h| **h).count();
        let n = lines.len();
        let from = match self.popup {
            Some(Popup::Requests) => self.requests.cursor.selected,
            Some(Popup::Help { scroll }) => self.search.at.unwrap_or(usize::from(scroll)),
            _ => return,
        };
        let Some(at) = (0..n)
            .map(|k| {
                let step = (k + skip) % n;
                if forward {
                    (from + step) % n
                } else {
                    (from + n - step) % n
                }
            })
            .find(|&i| hits[i])
        else {
            self.search.at = None;
            return;
        };
        match &mut self.popup {
            Some(Popup::Requests) => {
                self.requests.top();
                self.requests
                    .move_by(isize::try_from(at).unwrap_or(isize::MAX));
            }
            Some(Popup::Help { scroll }) => {
                self.search.at = Some(at);
                let max = help_scroll_max(n, self.areas.help.height);
                *scroll = u16::try_from(at).unwrap_or(u16::MAX).min(max);
            }
            _ => {}
        }
    }

    /// `y` removes every completed task (one undo brings them back), `n` keeps them.
    fn update_remove_completed(&mut self, action: &Action) -> Vec<Cmd> {
        match action {
            Action::Submit => {
                self.popup = None;
                let keys = self.watch.completed();
                self.remove(&keys)
            }
            Action::Cancel => {
                self.popup = None;
                self.say("kept the completed tasks");
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    fn update_add(&mut self, action: Action) -> Vec<Cmd> {
        let Some(Popup::Add(dialog)) = &mut self.popup else {
            return Vec::new();
        };
        // An error is about the text it was found in: once that changes it is stale.
        if matches!(
            action,
            Action::Type(_)
                | Action::Paste(_)
                | Action::Backspace
                | Action::ClearInput
                | Action::ToggleKind
        ) {
            dialog.error = None;
        }
        match action {
            Action::Type(c) => dialog.text.push(c),
            Action::Paste(text) => match refused_id(&text) {
                Some(error) => dialog.error = Some(error),
                None => dialog.text.push_str(&clean_paste(&text)),
            },
            Action::Backspace => {
                dialog.text.pop();
            }
            Action::ClearInput => dialog.text.clear(),
            Action::ToggleKind => {
                dialog.kind = match dialog.kind {
                    TaskKind::Image => TaskKind::Video,
                    TaskKind::Video => TaskKind::Image,
                };
            }
            Action::Cancel => self.popup = None,
            Action::Submit => {
                // Pastes were checked and typed controls dropped, so the text is clean; the
                // check below refuses whatever is not. One typed twice is one task.
                let mut seen = std::collections::HashSet::new();
                let ids: Vec<String> = split_ids(&dialog.text)
                    .into_iter()
                    .filter(|id| seen.insert(id.clone()))
                    .collect();
                if ids.is_empty() {
                    dialog.error = Some("type or paste at least one task ID".into());
                    return Vec::new();
                }
                if let Some((n, bad)) = ids.iter().enumerate().find_map(|(n, id)| {
                    crate::api::client::validate_task_id(id)
                        .err()
                        .map(|e| (n, e))
                }) {
                    // In a long paste, where the bad one is.
                    dialog.error = Some(if ids.len() > 1 {
                        format!("ID {} of {}: {bad}", n + 1, ids.len())
                    } else {
                        bad.to_string()
                    });
                    return Vec::new();
                }
                let kind = dialog.kind;
                self.popup = None;
                // An ID is one task whichever kind it was added as: never watched as both.
                let watched_as = |id: &String| {
                    self.watch
                        .rows
                        .iter()
                        .find(|r| r.entry.task_id == *id)
                        .map(|r| r.entry.kind)
                };
                let (already, fresh): (Vec<String>, Vec<String>) =
                    ids.into_iter().partition(|id| watched_as(id).is_some());
                let already_as: Vec<String> = already
                    .iter()
                    .map(|id| {
                        let as_kind = watched_as(id).unwrap_or(kind);
                        format!("{id} (as {})", as_kind.as_str())
                    })
                    .collect();
                let entries: Vec<WatchEntry> = fresh
                    .iter()
                    .map(|id| new_entry(id, kind, self.now))
                    .collect();
                let (cmds, added, _) = self.watch.add(entries, self.now);
                let added: Vec<String> = added.into_iter().map(|k| k.id).collect();
                self.focus = Pane::Watch;
                self.say(match (added.is_empty(), already.len()) {
                    (true, _) => format!("already watching {}", already_as.join(", ")),
                    (false, 0) => format!("added {}", tasks(&added)),
                    (false, _) => format!(
                        "added {}; already watching {}",
                        tasks(&added),
                        already_as.join(", ")
                    ),
                });
                return cmds;
            }
            _ => {}
        }
        Vec::new()
    }

    /// Typing in the watch list's filter: the rows follow every keystroke (a list of tasks is
    /// small enough to filter on the spot).
    fn update_watch_filter(&mut self, action: Action) {
        let mut query = self.watch.query.clone();
        match action {
            Action::Type(c) => query.push(c),
            Action::Paste(text) => query.push_str(&text),
            Action::Backspace => {
                query.pop();
            }
            Action::ClearInput => query.clear(),
            // As in the browser: the field is left, the filter stays (Esc in the pane clears it).
            Action::Submit | Action::Cancel => {
                self.watch.editing = false;
                return;
            }
            _ => return,
        }
        if query != self.watch.query {
            self.watch.set_query(query, self.now);
        }
    }

    fn update_text(&mut self, action: Action) -> Vec<Cmd> {
        let rank = match action {
            Action::Type(c) => self.browser.type_text(c.encode_utf8(&mut [0; 4])),
            Action::Paste(text) => self.browser.type_text(&text),
            Action::Backspace => self.browser.backspace(),
            Action::ClearInput => self.browser.clear_input(),
            Action::PickPrevious => {
                self.browser.pick(false);
                None
            }
            Action::PickNext => {
                self.browser.pick(true);
                None
            }
            Action::Submit => return self.browser.submit(),
            Action::Cancel => self.browser.cancel(),
            _ => None,
        };
        rank.into_iter().collect()
    }

    fn update_normal(&mut self, action: Action) -> Vec<Cmd> {
        let page = |v: usize| isize::try_from(v.max(1)).unwrap_or(isize::MAX);
        match action {
            Action::ToggleHelp => {
                self.popup = Some(Popup::Help { scroll: 0 });
                self.search = Search::default();
            }
            Action::ToggleRequests => {
                self.popup = Some(Popup::Requests);
                self.search = Search::default();
            }
            Action::Zoom => {
                self.zoomed = match self.zoomed {
                    None => Some(self.focus),
                    Some(_) => None,
                };
                self.relayout();
            }
            Action::OpenAddDialog => {
                self.popup = Some(Popup::Add(AddDialog {
                    text: String::new(),
                    kind: TaskKind::Image,
                    error: None,
                }));
            }
            Action::FocusNext => {
                self.focus = match self.focus {
                    Pane::Browser => Pane::Watch,
                    Pane::Watch => Pane::Browser,
                };
                // A zoomed screen shows the pane that has the keys.
                if self.zoomed.is_some() {
                    self.zoomed = Some(self.focus);
                    self.relayout();
                }
            }
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom => {
                let (len, viewport) = match self.focus {
                    Pane::Browser => (self.browser.matches.len(), self.browser.cursor.viewport),
                    Pane::Watch => (self.watch.rows.len(), self.watch.cursor.viewport),
                };
                let delta = match action {
                    Action::Up => -1,
                    Action::Down => 1,
                    Action::PageUp => -page(viewport),
                    Action::PageDown => page(viewport),
                    Action::Top => -page(len),
                    _ => page(len),
                };
                match self.focus {
                    Pane::Browser => self.browser.move_by(delta),
                    Pane::Watch => self.watch.move_by(delta),
                }
            }
            Action::Paste(text) if self.focus == Pane::Browser => {
                self.browser.start_editing(Field::Filter);
                return self.browser.type_text(&text).into_iter().collect();
            }
            Action::Paste(text) => {
                self.popup = Some(Popup::Add(AddDialog {
                    text,
                    kind: TaskKind::Image,
                    error: None,
                }));
            }
            _ => {
                return match self.focus {
                    Pane::Browser => self.update_browser(&action),
                    Pane::Watch => self.update_watch(&action),
                };
            }
        }
        Vec::new()
    }

    fn update_browser(&mut self, action: &Action) -> Vec<Cmd> {
        match action {
            Action::FocusFilter => self.browser.start_editing(Field::Filter),
            Action::EditCategory => self.browser.start_editing(Field::Category),
            Action::CycleType => return vec![self.browser.cycle_type()],
            Action::Refresh => {
                self.say("reloading the catalogue");
                return vec![self.browser.reload()];
            }
            Action::ToggleFavourite => {
                let Some((name, on)) = self.browser.toggle_favourite() else {
                    self.say("no model selected");
                    return Vec::new();
                };
                self.say(if on {
                    format!("★ {name}")
                } else {
                    format!("{name} is no longer a favourite")
                });
                return vec![Cmd::RememberFavourites(self.browser.favourites.clone())];
            }
            Action::OnlyFavourites => {
                let cmd = self.browser.toggle_only_favourites();
                if self.browser.only_favourites && self.browser.favourites.is_empty() {
                    let mark = self.keymap.key("favourite");
                    self.say(format!(
                        "no favourites yet: {mark} marks the selected model"
                    ));
                }
                return cmd.into_iter().collect();
            }
            Action::Cancel if !self.browser.query.is_empty() => {
                self.browser.query.clear();
                return self.browser.refilter().into_iter().collect();
            }
            Action::Open => {
                let source = self
                    .browser
                    .selected_entry()
                    .and_then(|e| e.source())
                    .map(str::to_string);
                return self.open(source, "this model has no source URL");
            }
            Action::CopyUrl => {
                let source = self
                    .browser
                    .selected_entry()
                    .and_then(|e| e.source())
                    .map(str::to_string);
                return self.copy(source, "source URL");
            }
            Action::CopyName => {
                let name = self.browser.selected_entry().map(|e| e.model.clone());
                return self.copy(name, "model name");
            }
            _ => {}
        }
        Vec::new()
    }

    fn update_watch(&mut self, action: &Action) -> Vec<Cmd> {
        match action {
            Action::Remove => {
                let keys = self.watch.targets();
                self.remove(&keys)
            }
            Action::ToggleMark => {
                if self.watch.toggle_mark().is_none() {
                    self.say(self.no_task());
                }
                Vec::new()
            }
            Action::RemoveCompleted => {
                self.ask_remove_completed();
                Vec::new()
            }
            Action::Undo => {
                let Some((cmds, undone)) = self.watch.undo(self.now) else {
                    self.say("nothing to undo");
                    return Vec::new();
                };
                self.say(match undone {
                    Undone::Restored(ids) if ids.is_empty() => {
                        "nothing to restore: those tasks are on the list again".to_string()
                    }
                    Undone::Restored(ids) => format!("restored {}", tasks(&ids)),
                    Undone::TookBack(ids) => format!("took back {}", tasks(&ids)),
                });
                cmds
            }
            Action::FocusFilter => {
                self.watch.editing = true;
                Vec::new()
            }
            Action::Cancel => {
                self.clear_filter_or_marks();
                Vec::new()
            }
            Action::CycleSort => {
                let sort = self.watch.cycle_sort(self.now);
                self.say(format!("sorted by {}", sort.label()));
                vec![Cmd::RememberSort(sort.label().to_string())]
            }
            Action::ToggleDetail => {
                let shown = self.areas.watch_detail.height > 0;
                self.watch.detail = Some(!shown);
                self.relayout();
                Vec::new()
            }
            Action::PollNow => {
                let Some(r) = self.watch.selected_row() else {
                    self.say(self.no_task());
                    return Vec::new();
                };
                let key = r.key();
                let text = format!("asking the service for {} now", r.entry.task_id);
                self.say(text);
                vec![Cmd::PollNow(key)]
            }
            Action::Open => {
                let (url, missing) = match self.watch.selected_row() {
                    Some(r) => (r.url().map(str::to_string), no_file(r, "open")),
                    None => (None, self.no_task()),
                };
                self.open(url, &missing)
            }
            Action::OpenFile => self.open_file(),
            Action::CopyUrl => {
                let url = self
                    .watch
                    .selected_row()
                    .and_then(|r| r.url())
                    .map(str::to_string);
                self.copy(url, "download URL")
            }
            Action::CopyName => {
                let id = self.watch.selected_row().map(|r| r.entry.task_id.clone());
                self.copy(id, "task ID")
            }
            Action::Download if !self.watch.marked.is_empty() => self.download_marked(),
            Action::Download => {
                let Some(r) = self.watch.selected_row() else {
                    self.say(self.no_task());
                    return Vec::new();
                };
                let Some(url) = r.url().map(str::to_string) else {
                    let missing = no_file(r, "download");
                    self.say(missing);
                    return Vec::new();
                };
                if let Err(e) = validate_link(&url) {
                    self.say(e.to_string());
                    return Vec::new();
                }
                // The row shows the progress; the status bar says where the file went.
                self.watch.download_cmd(r, false).into_iter().collect()
            }
            Action::ToggleAutoDownload => self.toggle_auto_download(),
            _ => Vec::new(),
        }
    }

    /// `C`: asks before removing every completed task, if there is one.
    fn ask_remove_completed(&mut self) {
        let count = self.watch.completed().len();
        if count == 0 {
            self.say("no completed task to remove");
        } else {
            self.popup = Some(Popup::RemoveCompleted { count });
        }
    }

    /// Esc in the watch pane: clears the filter; with none, unmarks the marked tasks.
    fn clear_filter_or_marks(&mut self) {
        if !self.watch.query.is_empty() {
            self.watch.set_query(String::new(), self.now);
        } else if !self.watch.marked.is_empty() {
            self.watch.marked.clear();
            self.say("no task marked");
        }
    }

    /// Removes the tasks `keys` (one step of undo) and says which, and how to undo it.
    fn remove(&mut self, keys: &[TaskKey]) -> Vec<Cmd> {
        let (cmds, ids) = self.watch.remove(keys, self.now);
        if !ids.is_empty() {
            let undo = self.keymap.key("undo");
            self.say(format!("removed {} — {undo} undoes", tasks(&ids)));
        }
        cmds
    }

    /// What a key about the selected task says on an empty watch list.
    fn no_task(&self) -> String {
        format!(
            "no task selected: the watch list is empty ({} adds tasks)",
            self.keymap.key("add")
        )
    }

    /// `D` with tasks marked: each marked task's file that can be fetched; the others named.
    fn download_marked(&mut self) -> Vec<Cmd> {
        let mut cmds = Vec::new();
        let mut without = Vec::new();
        for key in self.watch.targets() {
            let Some(r) = self.watch.rows.iter().find(|r| r.key() == key) else {
                continue;
            };
            match r.url().map(validate_link) {
                Some(Ok(_)) => cmds.extend(self.watch.download_cmd(r, false)),
                _ => without.push(r.entry.task_id.clone()),
            }
        }
        let fetched = match cmds.len() {
            1 => "1 task".to_string(),
            n => format!("{n} tasks"),
        };
        self.say(match (cmds.len(), without.is_empty()) {
            (0, _) => format!("no file to download for {}", tasks(&without)),
            (_, true) => format!("downloading the files of {fetched}"),
            (_, false) => format!(
                "downloading the files of {fetched}; none yet for {}",
                tasks(&without)
            ),
        });
        cmds
    }

    /// Opens only links that pass the http/https check; anything else is refused with the
    /// reason shown.
    fn open(&mut self, url: Option<String>, missing: &str) -> Vec<Cmd> {
        match url {
            None => {
                self.say(missing);
                Vec::new()
            }
            Some(u) => match validate_link(&u) {
                Ok(_) => vec![Cmd::Open(u)],
                Err(e) => {
                    self.say(e.to_string());
                    Vec::new()
                }
            },
        }
    }

    /// `O`: the selected task's saved file, or what to press to save one.
    fn open_file(&mut self) -> Vec<Cmd> {
        let Some(r) = self.watch.selected_row() else {
            self.say(self.no_task());
            return Vec::new();
        };
        let saved = match &r.download {
            Some(DownloadView::Saved(path)) => Some(path.clone()),
            _ => r.entry.saved.clone(),
        };
        if let Some(path) = saved {
            return vec![Cmd::OpenFile(path.into())];
        }
        let text = if r.url().is_some() {
            format!(
                "no file saved for {}: {} downloads it",
                r.entry.task_id,
                self.keymap.key("download")
            )
        } else {
            no_file(r, "open")
        };
        self.say(text);
        Vec::new()
    }

    /// The clipboard worker says how it copied; the status bar says it after it happened.
    fn copy(&mut self, text: Option<String>, what: &str) -> Vec<Cmd> {
        match text {
            Some(t) if !t.is_empty() => vec![Cmd::Copy(Clip::new(t, what))],
            _ => {
                self.say(format!("no {what} to copy"));
                Vec::new()
            }
        }
    }

    /// How a copy went, said as far as it is known: a program that exited 0 copied it; OSC 52
    /// was only sent (the terminal may ignore it). A URL that could not be opened leads, whole.
    fn copied(&mut self, clip: &Clip, via: CopiedVia) -> Vec<Cmd> {
        let object = match &clip.instead_of_opening {
            Some(_) => "it".to_string(),
            None => format!("the {}", clip.what),
        };
        let (how, cmds) = match via {
            CopiedVia::Program(program) => (format!("copied {object} with {program}"), Vec::new()),
            CopiedVia::Terminal { tmux, failed } => {
                let through = if tmux { " through tmux" } else { "" };
                let sent = format!("sent {object} to the terminal's clipboard{through} (OSC 52)");
                let how = match failed {
                    Some(why) => format!("{why}; {sent}"),
                    None => sent,
                };
                let text = clip.text.clone();
                (how, vec![Cmd::CopyToTerminal { text, tmux }])
            }
        };
        // Alone on the status bar: after the counts, it would be cut short at 80 columns.
        self.say_whole(match &clip.instead_of_opening {
            Some(why) => format!("{} · {why} · {how}", clip.text),
            None => how,
        });
        cmds
    }

    /// What the opener said: a link or file nothing here can show is shown whole and copied.
    fn opened(&mut self, opened: Opened) -> Vec<Cmd> {
        match opened {
            Opened::Launched(what) => self.say(format!("opened {what}")),
            Opened::Failed(e) => {
                self.last_error = Some(e);
                self.dirty = true;
            }
            Opened::Missing(path) => self.say_whole(format!(
                "{path} is not there any more: {} downloads it again",
                self.keymap.key("download")
            )),
            Opened::NoDisplay(text) => {
                return vec![Cmd::Copy(Clip {
                    text,
                    what: "link".into(),
                    instead_of_opening: Some("no display to open it on".into()),
                })];
            }
        }
        Vec::new()
    }

    /// The reducer for worker reports.
    pub fn apply(&mut self, msg: Msg) -> Vec<Cmd> {
        let cmds = match msg {
            Msg::Catalogue { generation, result } => {
                let Some(cmds) = self.catalogue(generation, result) else {
                    return Vec::new();
                };
                cmds
            }
            Msg::CachedCatalogue { generation, cached } => {
                let fx = self.browser.cached(generation, cached);
                self.absorb(fx)
            }
            Msg::Ranked {
                generation,
                matches,
            } => {
                self.dirty |= self.browser.ranked(generation, matches);
                Vec::new()
            }
            Msg::Polled {
                key,
                result,
                retry_in,
            } => {
                if self.watch.at_current_service(&key) {
                    match &result {
                        Ok(_) => self.connected(),
                        Err(e) => self.note_error(e),
                    }
                }
                let fx = self.watch.polled(&key, result, retry_in, self.now);
                let cmds = self.absorb(fx);
                self.as_configured(cmds)
            }
            Msg::Claimed { key, won } => {
                let cmds = self.watch.claimed(&key, won);
                self.dirty = true;
                self.as_configured(cmds)
            }
            Msg::Download { key, event } => self.downloaded(&key, event),
            Msg::WatchFile { entries, applied } => {
                if applied < self.persist_sent {
                    return Vec::new();
                }
                let fx = self.watch.merge_external(&entries, self.now);
                self.absorb(fx)
            }
            Msg::HookFailed(why) => self.hook_failed_once(&why),
            Msg::Request(record) => {
                self.requests.push(record);
                // Only an open log shows it.
                self.dirty |= matches!(self.popup, Some(Popup::Requests));
                Vec::new()
            }
            Msg::Preview(report) => {
                self.dirty |= self.preview.apply(report);
                Vec::new()
            }
            Msg::StoreProblem(text) => {
                self.last_error = Some(text);
                self.dirty = true;
                Vec::new()
            }
            Msg::ServiceUnusable { service, error } => self.service_unusable(service, error),
            Msg::Copied { clip, via } => self.copied(&clip, via),
            Msg::Opened(opened) => {
                self.dirty = true;
                self.opened(opened)
            }
            Msg::Tick(now) => {
                self.now = now;
                self.watch.tick(now);
                self.settle_health();
                // Redrawn when a notice goes, and only then: an idle dashboard stays idle.
                if self.notice.as_ref().is_some_and(|n| now >= n.until) {
                    self.notice = None;
                    self.dirty = true;
                }
                // Redraw only when a shown age would change.
                let sig = self.age_signature();
                if sig != self.age_signature {
                    self.age_signature = sig;
                    self.dirty = true;
                }
                Vec::new()
            }
        };
        self.track(cmds)
    }

    /// A notification rings the bell too with `bell`, and is sent only with
    /// `desktop_notifications`.
    fn as_configured(&self, mut cmds: Vec<Cmd>) -> Vec<Cmd> {
        let notices = cmds
            .iter()
            .filter(|c| matches!(c, Cmd::Notify { .. }))
            .count();
        if !self.settings.desktop_notifications {
            cmds.retain(|c| !matches!(c, Cmd::Notify { .. }));
        }
        if self.settings.bell {
            cmds.extend(std::iter::repeat_n(Cmd::Bell, notices));
        }
        cmds
    }

    /// A catalogue load came back: shown (or its failure); `None` when it was stale.
    fn catalogue(
        &mut self,
        generation: u64,
        result: Result<Catalogue, ApiError>,
    ) -> Option<Vec<Cmd>> {
        let ok = result.is_ok();
        let loaded = match result {
            Err(e) if e.is_unreachable() => {
                self.note_error(&e);
                self.browser.unreachable(generation, e.to_string())
            }
            result => {
                let result = result.map_err(|e| {
                    self.note_error(&e);
                    e.to_string()
                });
                self.browser.loaded(generation, result)
            }
        };
        let cmds = loaded?;
        if ok {
            self.connected();
        }
        self.dirty = true;
        Some(cmds)
    }

    /// `A`: the selected task's file downloaded by itself when it completes, or not.
    fn toggle_auto_download(&mut self) -> Vec<Cmd> {
        if !self.watch.marked.is_empty() {
            let (ids, on, cmds) = self.watch.auto_download_marked();
            self.say(if on {
                format!("{}: each file is downloaded when it completes", tasks(&ids))
            } else {
                format!("{}: no automatic download", tasks(&ids))
            });
            return cmds;
        }
        let Some((id, on, cmds)) = self.watch.toggle_auto_download() else {
            self.say(self.no_task());
            return Vec::new();
        };
        self.say(if on {
            format!("{id}: its file is downloaded when it completes")
        } else {
            format!("{id}: no automatic download")
        });
        cmds
    }

    /// A download's progress or end: a file already there asks the user (when `D` started it),
    /// a saved file is named in full.
    fn downloaded(&mut self, key: &TaskKey, event: DownloadEvent) -> Vec<Cmd> {
        let by_user = self
            .watch
            .rows
            .iter()
            .find(|r| r.key() == *key)
            .is_some_and(|r| !r.auto_started);
        match &event {
            DownloadEvent::Failed(e) => {
                self.last_error = Some(format!("download of {}: {e}", key.id));
            }
            DownloadEvent::Saved(path) => self.say(format!("saved {}", path.display())),
            DownloadEvent::Exists(path) if by_user && self.popup.is_none() => {
                self.popup = Some(Popup::Confirm(Confirm {
                    question: format!("overwrite {}?", path.display()),
                    key: key.clone(),
                }));
                // Nothing went wrong: the row stays as it was (`saved …`) whatever the answer.
                let fx = self.watch.download_not_started(key);
                return self.absorb(fx);
            }
            _ => {}
        }
        let fx = self.watch.download(key, event, self.keymap.key("download"));
        self.absorb(fx)
    }

    /// Says that `on_complete` failed, once: a hook failing for every task must not bury the
    /// other errors (later failures go to the log).
    fn hook_failed_once(&mut self, why: &str) -> Vec<Cmd> {
        if !self.hook_failed {
            self.hook_failed = true;
            self.last_error = Some(format!("{why} (later failures go to the log only)"));
            self.dirty = true;
        }
        Vec::new()
    }

    /// A configured service whose client could not be made: its tasks show `no service`, with
    /// why, and are not polled.
    fn service_unusable(&mut self, service: String, error: String) -> Vec<Cmd> {
        let mut services = self.watch.services.clone();
        let name = services.name(&service);
        self.last_error = Some(format!("service {name}: {error}"));
        services.unusable.insert(service, error);
        let cmds = self.watch.set_services(services);
        self.dirty = true;
        cmds
    }

    /// Carries out a reducer's effects on the status bar and the redraw; the commands remain.
    fn absorb(&mut self, fx: Effects) -> Vec<Cmd> {
        if let Some(text) = fx.notice {
            self.say(text);
            if let Some(n) = &mut self.notice {
                n.whole = fx.whole;
            }
        }
        if let Some(error) = fx.error {
            self.last_error = Some(error);
            self.dirty = true;
        }
        self.dirty |= fx.redraw;
        fx.cmds
    }

    /// Shows a notice for `NOTICE_SECONDS`, replacing any other: the status bar tells of the
    /// latest action only. Task IDs and URLs in it may come from a file or a service.
    fn say(&mut self, text: impl Into<String>) {
        self.notice = Some(Notice {
            text: crate::api::sanitize::sanitize(&text.into()),
            until: self.now.saturating_add(NOTICE_SECONDS),
            whole: false,
        });
        self.dirty = true;
    }

    /// A notice the status bar shows alone, so nothing else cuts it short.
    fn say_whole(&mut self, text: String) {
        self.say(text);
        if let Some(n) = &mut self.notice {
            n.whole = true;
        }
    }

    /// On the demo service: its token goes into the request log's curl lines, so a newcomer
    /// can try one, and the status bar says where downloads go (the download notice names
    /// each file in full too).
    pub fn begin_demo(&mut self, demo: Demo) {
        let dir = demo.downloads.display();
        self.say(if demo.temporary {
            format!("demo: downloads go to {dir}")
        } else {
            format!("demo: downloads go to {dir} (download_dir)")
        });
        self.requests.demo_token = Some(demo.token);
    }

    /// `reconnected` has been said long enough: now simply `connected`.
    fn settle_health(&mut self) {
        if let Health::Reconnected { until } = self.health
            && self.now >= until
        {
            self.health = Health::Connected;
            self.dirty = true;
        }
    }

    /// The service answered: after trouble, the stale error goes and the health says
    /// `reconnected` for a while (in its own place: a notice beside a later `trouble` would
    /// say both at once).
    fn connected(&mut self) {
        let next = match self.health {
            Health::Trouble(_) | Health::WrongPath(_) => {
                self.last_error = None;
                Health::Reconnected {
                    until: self.now.saturating_add(NOTICE_SECONDS),
                }
            }
            Health::Reconnected { until } => Health::Reconnected { until },
            Health::Unknown | Health::Connected => Health::Connected,
        };
        if self.health != next {
            self.health = next;
            self.dirty = true;
        }
    }

    fn note_error(&mut self, e: &crate::api::ApiError) {
        use crate::api::ApiError as E;
        let text = e.to_string();
        if matches!(
            e,
            E::Connect { .. }
                | E::Timeout { .. }
                | E::Transport { .. }
                | E::Auth { .. }
                | E::Decode { .. }
                | E::TooLarge { .. }
        ) || matches!(e, E::Http { status, .. } if *status >= 500 || *status == 429)
        {
            self.health = Health::Trouble(text.clone());
        } else if matches!(e, E::WrongPath { .. }) {
            self.health = Health::WrongPath(text.clone());
        } else if matches!(e, E::Lookup { .. } | E::Http { .. }) {
            // The service answered (an unknown task, a 404): it is reachable again.
            self.connected();
        }
        if self.last_error.as_deref() != Some(text.as_str()) {
            self.last_error = Some(text);
            self.dirty = true;
        }
    }

    /// A digest of what the clock changes on screen: the counts in the title (stalls), and
    /// the ages, ETAs, phases and retry countdowns of the rows shown and the selected one.
    fn age_signature(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        let now = self.now;
        self.watch.counts(now).hash(&mut h);
        for r in self.watch.visible().chain(self.watch.selected_row()) {
            crate::fmt::age_label(r.entry.added_at, now).hash(&mut h);
            r.entry
                .last
                .as_ref()
                .map(|l| crate::fmt::age_label(l.updated_at, now))
                .hash(&mut h);
            r.eta(now).map(crate::fmt::format_eta).hash(&mut h);
            r.phase(now, self.watch.stall_after).hash(&mut h);
            r.next_retry_at.map(|t| t.saturating_sub(now)).hash(&mut h);
            // The detail's "polled 5s ago", which an error answers too.
            r.polled_at
                .map(|t| crate::fmt::age_label(t, now))
                .hash(&mut h);
        }
        self.browser.cached_mark(now).hash(&mut h);
        h.finish()
    }

    /// The focused pane, for the view (derived from popups and focus).
    pub fn is_focused(&self, pane: Pane) -> bool {
        self.popup.is_none() && self.focus == pane
    }
}

/// The error for a paste into the add dialog that holds an ID with control or invisible
/// characters (line breaks and tabs separate IDs), naming the first such ID escaped.
fn refused_id(text: &str) -> Option<String> {
    let spaced = text.replace(['\n', '\r', '\t'], " ");
    split_ids(&spaced)
        .iter()
        .find(|id| crate::api::client::holds_controls(id))
        .map(|id| {
            format!(
                "not added: task ID {} holds control or invisible characters",
                crate::api::client::escaped_id(id)
            )
        })
}

/// Pasted text as the fields keep it: line breaks and tabs become spaces (they separate task
/// IDs), everything a terminal would obey is removed.
fn clean_paste(text: &str) -> String {
    let spaced: String = text
        .chars()
        .map(|c| {
            if matches!(c, '\n' | '\r' | '\t') {
                ' '
            } else {
                c
            }
        })
        .collect();
    crate::api::sanitize::sanitize_with_limit(&spaced, 64 * 1024)
}

/// How far `lines` of help scroll in an overlay `height` rows high (borders included): until
/// the last line is on the overlay's last row; not at all when they fit.
pub fn help_scroll_max(lines: usize, height: u16) -> u16 {
    let rows = usize::from(height.saturating_sub(2));
    u16::try_from(lines.saturating_sub(rows)).unwrap_or(u16::MAX)
}

/// Tasks as a message names them: the one task's ID, or how many.
fn tasks(ids: &[String]) -> String {
    match ids {
        [one] => one.clone(),
        _ => format!("{} tasks", ids.len()),
    }
}

/// Why a task has no file to `verb` ("open", "download"): it failed, or has no URL (yet).
fn no_file(row: &Row, verb: &str) -> String {
    let id = &row.entry.task_id;
    match row.state {
        TaskState::Failed => format!("{id} failed: no file to {verb}"),
        TaskState::Completed => format!("{id} finished without a file to {verb}"),
        TaskState::Running => format!("{id} has no download URL yet"),
    }
}

/// Which pane a screen position belongs to.
fn pane_at(areas: &Areas, column: u16, row: u16) -> Option<Pane> {
    areas.region_at(column, row).map(|r| match r {
        Region::Browser => Pane::Browser,
        Region::Watch => Pane::Watch,
    })
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
