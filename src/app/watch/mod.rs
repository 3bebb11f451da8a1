//! The watch list's state: the `Watch` and the types it holds are defined here, with its small
//! read-only accessors; what is done to it is split by concern into modules of functions that
//! take the `Watch` and return `Effects` (or the commands) where they change it: `row` (what
//! a row knows and shows), `order` (sort and filter), `undo` (add, remove, undo), `poll` (poll
//! results), `trouble` (a row's poll trouble), `end` (a finished task's claim, automatic
//! download and hook), `fetch` (fetching a file), `merge` (the file other processes wrote),
//! `service` (the service a row belongs to), `label`, `unseen`, and the pane's keys in
//! `reducer`.

pub mod end;
pub mod fetch;
pub mod filter_fields;
pub mod focus;
pub mod label;
pub mod merge;
pub mod next_poll;
pub mod notify;
pub mod order;
pub mod poll;
pub mod reducer;
pub mod row;
pub mod service;
pub mod timing;
pub mod trouble;
pub mod undo;
pub mod unseen;

use super::cursor::Cursor;
use super::services::Services;
use crate::api::ApiError;
use crate::api::types::TaskState;
use crate::cmd::{Cmd, Finished, TaskKey};
use crate::eta::Progress;
use crate::store::watchlist::WatchEntry;

#[derive(Debug, Clone, PartialEq)]
pub enum DownloadView {
    /// Waiting for the preview's fetch of the same file, to copy it.
    Waiting,
    Running {
        done: u64,
        total: Option<u64>,
    },
    Saved(String),
    /// A file was already where this one would go and was kept (nothing went wrong): the
    /// download key replaces it.
    Kept(String),
    Failed(String),
}

/// What a row says about its task, derived from what the polls found and the clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Not asked yet (since it was added or the dashboard started).
    NotPolled,
    Running,
    /// Running, but the percent has not moved for `stall_after`.
    Stalled,
    Completed,
    Failed,
    /// The service answered that it does not know the task (`is_success: false`).
    NotFound,
    /// No configured service matches the one the task was added for: never polled.
    NoService,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub entry: WatchEntry,
    pub state: TaskState,
    /// What went wrong the last times the task was asked about; `None` after an answer.
    pub trouble: Option<PollTrouble>,
    pub download: Option<DownloadView>,
    /// The percent over time, for the ETA and stalls; not saved.
    pub progress: Progress,
    /// Set when no configured service matches the entry's.
    pub no_service: bool,
    /// When a poll last came back (answer or error) in this session, on the reducer's clock.
    pub polled_at: Option<u64>,
    /// When the poller asks next, and why, as its last answer said.
    pub next_poll: Option<next_poll::Planned>,
    /// Where the task's end is (claimed, downloading, hook waiting).
    pub end: End,
    /// The service's last answer's times, for the provenance file (`sidecar`); not saved. Kept
    /// only from an answer with a download URL (no file is fetched without one), boxed: a
    /// running task's row spends 8 bytes on it, not 112 and its strings.
    pub reported: Option<Box<crate::api::types::Envelope>>,
}

/// Counts for the pane's title.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Counts {
    pub running: usize,
    pub stalled: usize,
    pub completed: usize,
    pub failed: usize,
    pub not_found: usize,
    pub no_service: usize,
    pub not_polled: usize,
    pub erroring: usize,
}

/// What the dashboard that claims a finished task does for it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Duties {
    /// It finished while watched: the notification and `on_complete`.
    pub announce: Option<Finished>,
    /// Its file is fetched by itself (`auto_download`, `A`).
    pub download: bool,
}

/// A row's task's end.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum End {
    /// Running, or finished with nothing taken on for it here (yet).
    #[default]
    Open,
    /// This dashboard asked to take it on (`PersistOp::Claim`); what waits for the answer.
    /// Boxed, as are the `Finished` of `Stage`: every row holds an `End`, few rows a finish
    /// under way (16 bytes a row, not 168).
    Claiming(Box<Duties>),
    /// Taken on here; what of it is still under way.
    Ours(Stage),
    /// Another running dashboard took it on: it is not announced, nor its file fetched by
    /// itself, here.
    Theirs,
}

/// What of a task's end taken on here is still under way.
#[derive(Debug, Clone, PartialEq)]
pub enum Stage {
    /// Its file is fetched by itself (so a file already there is kept, never asked about);
    /// `hook`: `on_complete` waits for the download's end, so `{file}` is the file.
    Fetching { hook: Option<Box<Finished>> },
    /// A download the user started (`D`) is under way: `on_complete` waits for its end.
    HookWaits(Box<Finished>),
    /// Nothing more.
    Done,
}

/// What the last polls of a task found wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// Asking failed (transport, HTTP, an answer that could not be read).
    Error(String),
    /// The service said it does not know the task (its description); `error` when asking
    /// again failed since: what the service said outlasts a failure to ask it again.
    NotFound {
        description: String,
        error: Option<String>,
    },
}

/// A row's poll trouble; a row without trouble has none (`Row::trouble` is `None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PollTrouble {
    pub problem: Problem,
    /// Failed attempts in a row in this session (0 for trouble the last session saw).
    pub retries: u32,
    /// When the next retry is due, on the reducer's clock, if the poller said.
    pub retry_at: Option<u64>,
}

/// The orders the watch list can be shown in, cycled by `s`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortKey {
    #[default]
    Added,
    Status,
    Progress,
    Eta,
    TaskId,
}

/// The order a person expects of IDs: runs of digits compare as numbers, so `sim-3` comes
/// before `sim-20` (and `sim-03` beside `sim-3`); equal under that, the plain order decides.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    natural_parts(a)
        .cmp(natural_parts(b))
        .then_with(|| a.cmp(b))
}

/// A part of an ID for [`natural_cmp`]: text, or a number as its digits without leading zeros
/// (a longer number is larger, then digit by digit, so any length compares right).
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Part<'a> {
    Number(usize, &'a str),
    Text(&'a str),
}

fn natural_parts(id: &str) -> impl Iterator<Item = Part<'_>> {
    let mut rest = id;
    std::iter::from_fn(move || {
        let first = rest.chars().next()?;
        let digits = first.is_ascii_digit();
        let end = rest
            .find(|c: char| c.is_ascii_digit() != digits)
            .unwrap_or(rest.len());
        let (run, tail) = rest.split_at(end);
        rest = tail;
        Some(if digits {
            let value = run.trim_start_matches('0');
            Part::Number(value.len(), value)
        } else {
            Part::Text(run)
        })
    })
}

/// What a poll's result says of the service in force, for the status bar's health.
#[derive(Debug, PartialEq)]
pub enum ServiceSays<'a> {
    /// Nothing: another service's task, or one task's own trouble.
    Nothing,
    /// It answers.
    Answers,
    /// This error, for the status bar to weigh (unreachable, refusing the token, answering
    /// garbage throughout are trouble; an unknown task says it answers).
    Reports(&'a ApiError),
}

#[derive(Debug, Clone)]
pub(super) enum Undo {
    Removed(Vec<(usize, WatchEntry)>),
    Added(Vec<TaskKey>),
}

/// What a change to the list did: the commands it calls for, and `what` the reducer's message
/// about it names.
#[derive(Debug, Clone, PartialEq)]
pub struct Changed<T> {
    pub cmds: Vec<Cmd>,
    pub what: T,
}

/// Tasks added: their keys, and how many of those given were skipped (watched already, or
/// given twice).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Added {
    pub keys: Vec<TaskKey>,
    pub skipped: usize,
}

/// `A`'s choice: the tasks it was made for, and whether their files are now fetched by
/// themselves once completed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoDownload {
    pub ids: Vec<String>,
    pub on: bool,
}

/// What an undo did, for the message that says so: the task IDs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Undone {
    /// Removed tasks put back (none when all were on the list again already).
    Restored(Vec<String>),
    /// Added tasks taken off the list again.
    TookBack(Vec<String>),
}

#[derive(Debug)]
pub struct Watch {
    /// Every watched task, in the order it was added.
    pub rows: Vec<Row>,
    /// The rows shown, as indices into `rows`: filtered and sorted. The cursor moves over
    /// these.
    pub order: Vec<usize>,
    pub cursor: Cursor,
    pub sort: SortKey,
    /// The filter's query (task ID and status, fuzzy); empty shows every row.
    pub query: String,
    /// Whether the filter field has the keyboard.
    pub editing: bool,
    /// The detail section: `None` shows it where there is room, `Some` is the user's choice.
    pub detail: Option<bool>,
    /// A running task whose percent has not moved for this many seconds is stalled.
    pub stall_after: u64,
    /// The services tasks belong to, and which can be polled.
    pub services: Services,
    /// `auto_download` of the config: fetch each completed task's file once.
    pub auto_download: bool,
    /// Tasks marked for the bulk actions (remove, download, auto-download).
    pub marked: std::collections::BTreeSet<TaskKey>,
    /// `on_complete` failed once already (said once, then only logged).
    pub hook_failed: bool,
    undo: Vec<Undo>,
    failure_statuses: Vec<String>,
    pub matcher: filter_fields::WatchFilter,
    /// The usual durations (`timing::Usual`), worked out again by the reducer whenever rows
    /// come, go or finish (`rows_changed`).
    usual: timing::Usual,
    /// Where each task ID's row is: a poll's answer finds its row without a scan of every row
    /// (issue 19: 10,000 tasks). Remade whenever rows come or go (`rows_changed`), and checked
    /// on every use, so a change it missed costs a scan, never a wrong row.
    index: std::collections::HashMap<String, usize>,
    /// When a focus-in last asked for polls, on the reducers' clock (see `focus`).
    pub focus_asked_at: Option<u64>,
}

impl Watch {
    pub fn new(entries: Vec<WatchEntry>, failure_statuses: Vec<String>) -> Self {
        let rows = entries
            .into_iter()
            .map(|e| Row::new(e, &failure_statuses, &Services::default()))
            .collect();
        let mut watch = Watch {
            rows,
            order: Vec::new(),
            cursor: Cursor::default(),
            sort: SortKey::default(),
            query: String::new(),
            editing: false,
            detail: None,
            stall_after: crate::store::config::DEFAULT_STALL_AFTER.as_secs(),
            services: Services::default(),
            auto_download: false,
            marked: std::collections::BTreeSet::new(),
            hook_failed: false,
            undo: Vec::new(),
            failure_statuses,
            matcher: filter_fields::WatchFilter::default(),
            usual: timing::Usual::default(),
            index: std::collections::HashMap::new(),
            focus_asked_at: None,
        };
        watch.rows_changed();
        order::reorder(&mut watch, 0);
        watch
    }

    /// The rows on screen, in the order shown; the cursor keeps the selected one among them.
    pub fn visible(&self) -> impl Iterator<Item = &Row> {
        let start = self.cursor.offset.min(self.order.len());
        let end = start
            .saturating_add(self.cursor.viewport.max(1))
            .min(self.order.len());
        self.order[start..end].iter().map(|&i| &self.rows[i])
    }

    pub fn selected_row(&self) -> Option<&Row> {
        self.order
            .get(self.cursor.selected)
            .and_then(|&i| self.rows.get(i))
    }

    /// Whether `key` is polled at the service in force: only those answers tell the status
    /// bar's health, which stands beside that service's URL (a task of another configured
    /// service answering says nothing of it).
    pub fn at_current_service(&self, key: &TaskKey) -> bool {
        self.position(key).is_none_or(|i| {
            self.services.of(self.rows[i].entry.service.as_deref()) == self.services.current
        })
    }

    fn position(&self, key: &TaskKey) -> Option<usize> {
        let is = |r: &Row| r.entry.kind == key.kind && r.entry.task_id == key.id;
        match self.index.get(&key.id) {
            Some(&i) if self.rows.get(i).is_some_and(is) => Some(i),
            _ => self.rows.iter().position(is),
        }
    }

    /// Rows came, went or finished: the index and the usual durations follow.
    fn rows_changed(&mut self) {
        self.index = self
            .rows
            .iter()
            .enumerate()
            .map(|(i, r)| (r.entry.task_id.clone(), i))
            .collect();
        self.usual = timing::Usual::work_out(self);
    }

    /// The usual durations of the list's kinds (see `timing::Usual`).
    pub fn usual(&self) -> timing::Usual {
        self.usual
    }

    pub fn move_by(&mut self, delta: isize) {
        self.cursor.move_by(self.order.len(), delta);
    }

    pub fn select(&mut self, index: usize) {
        self.cursor.select(self.order.len(), index);
    }

    pub fn scroll_into_view(&mut self) {
        self.cursor.scroll_into_view(self.order.len());
    }

    /// The tasks an action on "the task" applies to: the marked ones (in list order) if any,
    /// else the selected one.
    pub fn targets(&self) -> Vec<TaskKey> {
        if self.marked.is_empty() {
            return self.selected_row().map(Row::key).into_iter().collect();
        }
        self.rows
            .iter()
            .map(Row::key)
            .filter(|k| self.marked.contains(k))
            .collect()
    }

    /// Every completed task.
    pub fn completed(&self) -> Vec<TaskKey> {
        self.rows
            .iter()
            .filter(|r| r.state == TaskState::Completed)
            .map(Row::key)
            .collect()
    }

    /// `space`: marks the selected task, or unmarks it, and moves down; `None` when no task is
    /// selected, else whether it is marked now.
    pub fn toggle_mark(&mut self) -> Option<bool> {
        let key = self.selected_row()?.key();
        let marked = !self.marked.remove(&key);
        if marked {
            self.marked.insert(key);
        }
        self.move_by(1);
        Some(marked)
    }
}

/// An entry added at `now` (the reducer's clock, never the wall clock).
pub fn new_entry(id: &str, kind: crate::api::TaskKind, now: u64) -> WatchEntry {
    WatchEntry {
        task_id: id.to_string(),
        kind,
        added_at: now,
        last: None,
        service: None,
        saved: None,
        auto_download: None,
        trouble: None,
        claimed_by: None,
        polled_by: None,
        label: None,
        seen: None,
    }
}

#[cfg(test)]
mod tests;
