//! The watch list's state and reducer: rows, add/remove/undo, poll results (status history,
//! progress, stalls, unknown tasks, errors), downloads, the order rows are shown in (sort and
//! filter), and merging changes other processes made to the saved list.

pub mod end;
pub mod label;
pub mod next_poll;
pub mod notify;
pub mod reducer;
pub mod timing;
pub mod trouble;
pub mod unseen;

use super::cursor::Cursor;
use super::effects::Effects;
use super::services::Services;
use crate::api::types::{TaskState, classify};
use crate::api::{ApiError, TaskResult};
use crate::cmd::{Cmd, DownloadJob, Finished, PersistOp, PollCmd, TaskKey};
use crate::eta::Progress;
use crate::filter::FuzzyFilter;
use crate::msg::DownloadEvent;
use crate::store::sidecar::Provenance;
use crate::store::watchlist::{HISTORY, LastKnown, Transition, Trouble, TroubleKind, WatchEntry};
pub use end::{Duties, End, Stage};
use std::time::Duration;
pub use trouble::{PollTrouble, Problem};

/// How many undo steps are kept.
const UNDO_DEPTH: usize = 50;

#[derive(Debug, Clone, PartialEq)]
pub enum DownloadView {
    Running { done: u64, total: Option<u64> },
    Saved(String),
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

impl Phase {
    /// The order of the status sort: what needs attention first.
    fn urgency(self) -> u8 {
        match self {
            Phase::Failed => 0,
            Phase::NotFound => 1,
            Phase::NoService => 2,
            Phase::Stalled => 3,
            Phase::Running => 4,
            Phase::NotPolled => 5,
            Phase::Completed => 6,
        }
    }
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

impl SortKey {
    pub const ALL: [SortKey; 5] = [
        SortKey::Added,
        SortKey::Status,
        SortKey::Progress,
        SortKey::Eta,
        SortKey::TaskId,
    ];

    pub fn label(self) -> &'static str {
        match self {
            SortKey::Added => "added",
            SortKey::Status => "status",
            SortKey::Progress => "progress",
            SortKey::Eta => "eta",
            SortKey::TaskId => "task id",
        }
    }

    /// The sort a saved label names (an unknown one is the default).
    pub fn from_label(label: &str) -> Self {
        Self::ALL
            .into_iter()
            .find(|k| k.label() == label)
            .unwrap_or_default()
    }

    fn next(self) -> Self {
        let i = Self::ALL.iter().position(|k| *k == self).unwrap_or(0);
        Self::ALL[(i + 1) % Self::ALL.len()]
    }
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
    /// The service's last answer's times, for the provenance file (`sidecar`); not saved.
    pub reported: Option<crate::api::types::Envelope>,
}

impl Row {
    fn new(entry: WatchEntry, failure_statuses: &[String], services: &Services) -> Self {
        let download = entry.saved.clone().map(DownloadView::Saved);
        let no_service = !services.usable(services.of(entry.service.as_deref()));
        let state = entry.last.as_ref().map_or(TaskState::Running, |l| {
            classify(&l.status, failure_statuses)
        });
        Row {
            // The trouble the last session saw stands until a poll says otherwise.
            trouble: entry.trouble.as_ref().map(PollTrouble::kept),
            entry,
            state,
            progress: Progress::default(),
            download,
            no_service,
            polled_at: None,
            next_poll: None,
            end: End::Open,
            reported: None,
        }
    }
    pub fn key(&self) -> TaskKey {
        TaskKey::of(&self.entry)
    }

    /// The last attempt's error, when asking about the task failed.
    pub fn error(&self) -> Option<&str> {
        self.trouble.as_ref().and_then(PollTrouble::error)
    }

    /// The service's description, when it said it does not know the task.
    pub fn not_found(&self) -> Option<&str> {
        self.trouble.as_ref().and_then(PollTrouble::not_found)
    }

    /// Failed attempts in a row, 0 after an answer.
    pub fn retries(&self) -> u32 {
        self.trouble.as_ref().map_or(0, |t| t.retries)
    }

    /// When the next retry is due, on the reducer's clock.
    pub fn next_retry_at(&self) -> Option<u64> {
        self.trouble.as_ref().and_then(|t| t.retry_at)
    }
    pub fn url(&self) -> Option<&str> {
        self.entry
            .last
            .as_ref()
            .and_then(|l| l.url_download.as_deref())
    }

    /// The download URL if it may be opened or made a link (http or https, nothing a
    /// terminal would obey): what the view links, never anything else.
    pub fn openable_url(&self) -> Option<&str> {
        self.url()
            .filter(|u| crate::api::links::validate_link(u).is_ok())
    }
    pub fn percent(&self) -> u8 {
        self.entry.last.as_ref().map_or(0, |l| l.percent.min(100))
    }

    /// The service said the task failed (one of the failure statuses).
    pub fn failed(&self) -> bool {
        self.state == TaskState::Failed
    }

    pub fn phase(&self, now: u64, stall_after: u64) -> Phase {
        if self.no_service {
            Phase::NoService
        } else if self.not_found().is_some() {
            Phase::NotFound
        } else if self.entry.last.is_none() {
            Phase::NotPolled
        } else {
            match self.state {
                TaskState::Completed => Phase::Completed,
                TaskState::Failed => Phase::Failed,
                TaskState::Running if self.progress.stalled(now as f64, stall_after as f64) => {
                    Phase::Stalled
                }
                TaskState::Running => Phase::Running,
            }
        }
    }

    /// Seconds to completion, for a running task whose percent moved twice.
    pub fn eta(&self, now: u64) -> Option<u64> {
        (self.state == TaskState::Running && self.not_found().is_none() && !self.no_service)
            .then(|| self.progress.eta(now as f64))
            .flatten()
    }

    /// Seconds since the percent last moved (or the task was first seen running).
    pub fn still_for(&self, now: u64) -> Option<u64> {
        self.progress
            .last_move_at()
            .map(|at| now.saturating_sub(at as u64))
    }
}

#[derive(Debug, Clone)]
enum Undo {
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
    matcher: FuzzyFilter,
    /// The usual durations (`timing::Usual`), worked out again by the reducer whenever rows
    /// come, go or finish (`rows_changed`).
    usual: timing::Usual,
    /// Where each task ID's row is: a poll's answer finds its row without a scan of every row
    /// (issue 19: 10,000 tasks). Remade whenever rows come or go (`rows_changed`), and checked
    /// on every use, so a change it missed costs a scan, never a wrong row.
    index: std::collections::HashMap<String, usize>,
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

impl Counts {
    /// Every state there is a task in, what needs attention first: `1 failed`, `2 running`.
    /// A task whose polls fail is counted as erroring besides its state.
    pub fn parts(&self) -> Vec<String> {
        [
            (self.failed, "failed"),
            (self.not_found, "not found"),
            (self.erroring, "erroring"),
            (self.stalled, "stalled"),
            (self.no_service, "no service"),
            (self.running, "running"),
            (self.not_polled, "not polled"),
            (self.completed, "done"),
        ]
        .into_iter()
        .filter(|&(n, _)| n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect()
    }
}

/// `1 task`, `3 tasks`: a count with its noun in the right number.
pub fn count_of(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
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
            matcher: FuzzyFilter::new(),
            usual: timing::Usual::default(),
            index: std::collections::HashMap::new(),
        };
        watch.rows_changed();
        watch.reorder(0);
        watch
    }

    /// The tasks to poll at start: everything not known to be finished.
    pub fn start_polling(&self) -> Vec<Cmd> {
        self.rows.iter().filter_map(|r| self.poll_cmd(r)).collect()
    }

    /// The command that polls a row's task at its own service, if it is to be polled: not
    /// when it is known to be finished, nor when its service is not configured.
    fn poll_cmd(&self, row: &Row) -> Option<Cmd> {
        (row.state == TaskState::Running && !row.no_service).then(|| {
            let service = self.services.of(row.entry.service.as_deref());
            Cmd::Poll(PollCmd::Watch(row.key(), self.services.route(service)))
        })
    }

    /// Sets the services (at start, and when one turns out unusable); rows of a service that
    /// cannot be polled stop being polled.
    pub fn set_services(&mut self, services: Services) -> Vec<Cmd> {
        self.services = services;
        let mut cmds = Vec::new();
        for r in &mut self.rows {
            let service = self.services.of(r.entry.service.as_deref());
            let no_service = !self.services.usable(service);
            if no_service && !r.no_service {
                cmds.push(Cmd::Poll(PollCmd::Unwatch(r.key())));
            }
            r.no_service = no_service;
        }
        cmds
    }

    /// Entries that remember no service belong to the current one, from now on in the file.
    pub fn adopt(&mut self) -> Vec<Cmd> {
        let current = self.services.current.clone();
        if current.is_empty() || self.rows.iter().all(|r| r.entry.service.is_some()) {
            return Vec::new();
        }
        for r in self.rows.iter_mut().filter(|r| r.entry.service.is_none()) {
            r.entry.service = Some(current.clone());
        }
        vec![Cmd::Persist(PersistOp::Adopt(current))]
    }

    pub fn counts(&self, now: u64) -> Counts {
        let mut c = Counts::default();
        for r in &self.rows {
            match r.phase(now, self.stall_after) {
                Phase::Running => c.running += 1,
                Phase::Stalled => c.stalled += 1,
                Phase::Completed => c.completed += 1,
                Phase::Failed => c.failed += 1,
                Phase::NotFound => c.not_found += 1,
                Phase::NoService => c.no_service += 1,
                // Asked, but every answer so far was an error: counted as erroring.
                Phase::NotPolled if r.error().is_some() => {}
                Phase::NotPolled => c.not_polled += 1,
            }
            if r.error().is_some() {
                c.erroring += 1;
            }
        }
        c
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

    /// Recomputes the rows shown (filter, then sort), keeping the selected task selected.
    pub fn reorder(&mut self, now: u64) {
        let selected = self.selected_row().map(Row::key);
        self.reorder_keeping(selected, now);
    }

    /// Recomputes the rows shown, with `selected` (taken before the rows changed) selected.
    fn reorder_keeping(&mut self, selected: Option<TaskKey>, now: u64) {
        let mut order: Vec<usize> = if self.query.trim().is_empty() {
            (0..self.rows.len()).collect()
        } else {
            let haystacks: Vec<String> = self
                .rows
                .iter()
                .map(|r| {
                    let status = r.entry.last.as_ref().map_or("", |l| l.status.as_str());
                    let label = r.entry.label.as_deref().unwrap_or("");
                    format!("{} {status} {label}", r.entry.task_id)
                })
                .collect();
            let labels: Vec<[&str; 1]> = self
                .rows
                .iter()
                .map(|r| [r.entry.label.as_deref().unwrap_or("")])
                .collect();
            let mut matched: Vec<usize> = self
                .matcher
                .rank_fields(
                    &self.query,
                    &["label"],
                    haystacks
                        .iter()
                        .map(String::as_str)
                        .zip(labels.iter().map(|l| &l[..])),
                )
                .into_iter()
                .map(|m| m.index as usize)
                .collect();
            matched.sort_unstable();
            matched
        };
        let stall_after = self.stall_after;
        let rows = &self.rows;
        match self.sort {
            SortKey::Added => {}
            SortKey::Status => order.sort_by_key(|&i| rows[i].phase(now, stall_after).urgency()),
            SortKey::Progress => order.sort_by_key(|&i| std::cmp::Reverse(rows[i].percent())),
            SortKey::Eta => order.sort_by_key(|&i| rows[i].eta(now).unwrap_or(u64::MAX)),
            SortKey::TaskId => {
                order.sort_by(|&a, &b| natural_cmp(&rows[a].entry.task_id, &rows[b].entry.task_id));
            }
        }
        self.order = order;
        if let Some(key) = selected
            && let Some(at) = self.order.iter().position(|&i| self.rows[i].key() == key)
        {
            self.cursor.selected = at;
        }
        self.scroll_into_view();
    }

    /// Selects the first (or, with `last`, the last) shown row among `keys`, if any is shown.
    fn select_one_of(&mut self, keys: &[TaskKey], last: bool) {
        let is_one = |&i: &usize| keys.contains(&self.rows[i].key());
        let at = if last {
            self.order.iter().rposition(is_one)
        } else {
            self.order.iter().position(is_one)
        };
        if let Some(at) = at {
            self.cursor.selected = at;
        }
        self.scroll_into_view();
    }

    /// Whether the order depends on what polls and the clock change.
    fn order_moves(&self) -> bool {
        !matches!(self.sort, SortKey::Added | SortKey::TaskId) || !self.query.trim().is_empty()
    }

    /// `s`: the next sort order.
    pub fn cycle_sort(&mut self, now: u64) -> SortKey {
        self.sort = self.sort.next();
        self.reorder(now);
        self.sort
    }

    pub fn set_query(&mut self, query: String, now: u64) {
        self.query = query;
        self.reorder(now);
    }

    /// The clock moved: stalls and ETAs may reorder the rows.
    pub fn tick(&mut self, now: u64) {
        if matches!(self.sort, SortKey::Status | SortKey::Eta) {
            self.reorder(now);
        }
    }

    fn push_undo(&mut self, u: Undo) {
        self.undo.push(u);
        if self.undo.len() > UNDO_DEPTH {
            self.undo.remove(0);
        }
    }

    /// Adds tasks not already listed: the keys added and how many were skipped as already
    /// watched (or given twice).
    pub fn add(&mut self, entries: Vec<WatchEntry>, now: u64) -> Changed<Added> {
        let given = entries.len();
        let current = (!self.services.current.is_empty()).then(|| self.services.current.clone());
        let fresh: Vec<WatchEntry> = entries
            .into_iter()
            .map(|mut e| {
                e.service = e.service.or_else(|| current.clone());
                e
            })
            // An ID is one task whichever kind: never watched as both.
            .filter(|e| !self.rows.iter().any(|r| r.entry.task_id == e.task_id))
            .fold(Vec::new(), |mut acc, e| {
                if !acc.iter().any(|a: &WatchEntry| a.task_id == e.task_id) {
                    acc.push(e);
                }
                acc
            });
        let skipped = given - fresh.len();
        if fresh.is_empty() {
            return Changed {
                cmds: Vec::new(),
                what: Added {
                    keys: Vec::new(),
                    skipped,
                },
            };
        }
        let keys: Vec<TaskKey> = fresh.iter().map(TaskKey::of).collect();
        let mut cmds = vec![Cmd::Persist(PersistOp::Add(fresh.clone()))];
        let rows: Vec<Row> = fresh
            .into_iter()
            .map(|e| Row::new(e, &self.failure_statuses, &self.services))
            .collect();
        cmds.extend(rows.iter().filter_map(|r| self.poll_cmd(r)));
        self.rows.extend(rows);
        self.rows_changed();
        self.reorder(now);
        // The newest shown of those added (a filter may hide them).
        self.select_one_of(&keys, true);
        self.push_undo(Undo::Added(keys.clone()));
        Changed {
            cmds,
            what: Added { keys, skipped },
        }
    }

    /// Removes the selected task: its ID.
    pub fn remove_selected(&mut self, now: u64) -> Changed<Option<String>> {
        let keys: Vec<TaskKey> = self.selected_row().map(Row::key).into_iter().collect();
        let Changed { cmds, what: ids } = self.remove(&keys, now);
        Changed {
            cmds,
            what: ids.into_iter().next(),
        }
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

    /// Removes the tasks `keys` as one step of undo; returns the commands and their IDs.
    pub fn remove(&mut self, keys: &[TaskKey], now: u64) -> Changed<Vec<String>> {
        let mut removed = Vec::new();
        let mut at = 0;
        // Their places in the list as it was, in order, so an undo puts each back where it was.
        self.rows.retain(|r| {
            let gone = keys.contains(&r.key());
            if gone {
                removed.push((at, r.entry.clone()));
            }
            at += 1;
            !gone
        });
        if removed.is_empty() {
            return Changed {
                cmds: Vec::new(),
                what: Vec::new(),
            };
        }
        self.rows_changed();
        let keys: Vec<TaskKey> = removed.iter().map(|(_, e)| TaskKey::of(e)).collect();
        let ids = removed.iter().map(|(_, e)| e.task_id.clone()).collect();
        for k in &keys {
            self.marked.remove(k);
        }
        self.push_undo(Undo::Removed(removed));
        // Keep the cursor at the same place in the list rather than on the same task.
        let at = self.cursor.selected;
        self.reorder_keeping(None, now);
        self.cursor.selected = at;
        self.scroll_into_view();
        let mut cmds: Vec<Cmd> = keys
            .iter()
            .cloned()
            .map(|k| Cmd::Poll(PollCmd::Unwatch(k)))
            .collect();
        cmds.push(Cmd::Persist(PersistOp::Remove(keys)));
        Changed { cmds, what: ids }
    }

    /// Reverts the last add or remove; says what it did.
    pub fn undo(&mut self, now: u64) -> Option<Changed<Undone>> {
        match self.undo.pop()? {
            Undo::Removed(items) => {
                let mut cmds = Vec::new();
                let mut restored = Vec::new();
                for (at, entry) in items {
                    if self.position(&TaskKey::of(&entry)).is_some() {
                        continue;
                    }
                    let row = Row::new(entry.clone(), &self.failure_statuses, &self.services);
                    cmds.extend(self.poll_cmd(&row));
                    let at = at.min(self.rows.len());
                    self.rows.insert(at, row);
                    self.rows_changed();
                    restored.push(entry);
                }
                let ids: Vec<String> = restored.iter().map(|e| e.task_id.clone()).collect();
                let keys: Vec<TaskKey> = restored.iter().map(TaskKey::of).collect();
                cmds.insert(0, Cmd::Persist(PersistOp::Add(restored)));
                self.reorder(now);
                self.select_one_of(&keys, false);
                Some(Changed {
                    cmds,
                    what: Undone::Restored(ids),
                })
            }
            Undo::Added(keys) => {
                let selected = self.selected_row().map(Row::key);
                self.rows.retain(|r| !keys.contains(&r.key()));
                self.rows_changed();
                self.marked.retain(|k| !keys.contains(k));
                self.reorder_keeping(selected, now);
                let mut cmds: Vec<Cmd> = keys
                    .iter()
                    .cloned()
                    .map(|k| Cmd::Poll(PollCmd::Unwatch(k)))
                    .collect();
                let ids = keys.iter().map(|k| k.id.clone()).collect();
                cmds.push(Cmd::Persist(PersistOp::Remove(keys)));
                Some(Changed {
                    cmds,
                    what: Undone::TookBack(ids),
                })
            }
        }
    }

    /// A poll result: the commands (persist, notify), redrawn when anything changed.
    pub fn polled(
        &mut self,
        key: &TaskKey,
        result: Result<TaskResult, ApiError>,
        retry_in: Option<Duration>,
        now: u64,
    ) -> Effects {
        let Some(i) = self.position(key) else {
            return Effects::none();
        };
        let failure_statuses = &self.failure_statuses;
        let row = &mut self.rows[i];
        let next_retry_at = retry_in.map(|d| now + d.as_secs().max(1));
        row.polled_at = Some(now);
        let (mut cmds, changed, announce) =
            match result {
                Ok(t) => {
                    let before = row.state;
                    let answer = answered(row, &t, failure_statuses, now);
                    if row.state != before {
                        self.usual = timing::Usual::work_out(self);
                    }
                    answer
                }
                Err(ApiError::Lookup { description }) => {
                    let found = Problem::NotFound {
                        description: description.clone(),
                        error: None,
                    };
                    let trouble = trouble::after(row.trouble.as_ref(), found, next_retry_at);
                    let changed = row.trouble.as_ref().is_none_or(|t| {
                        t.problem != trouble.problem || t.retry_at != trouble.retry_at
                    });
                    row.trouble = Some(trouble);
                    (
                        keep_trouble(row, TroubleKind::NotFound, description, now),
                        changed,
                        None,
                    )
                }
                Err(e) => {
                    let text = e.to_string();
                    let trouble = trouble::after(
                        row.trouble.as_ref(),
                        Problem::Error(text.clone()),
                        next_retry_at,
                    );
                    let changed = row.trouble.as_ref().is_none_or(|t| {
                        t.problem != trouble.problem || t.retry_at != trouble.retry_at
                    });
                    // What the service said of the task outlasts a failure to ask it again: the
                    // file keeps NOT FOUND.
                    let kept = if trouble.not_found().is_some() {
                        Vec::new()
                    } else {
                        keep_trouble(row, TroubleKind::Error, text, now)
                    };
                    row.trouble = Some(trouble);
                    (kept, changed, None)
                }
            };
        cmds.extend(self.claim(i, announce));
        if changed && self.order_moves() {
            self.reorder(now);
        }
        Effects::cmds(cmds).redraw_if(changed)
    }

    /// Whether row `i`'s file is fetched by itself once completed: `A`'s choice for it, else
    /// `auto_download`.
    pub fn auto_for(&self, row: &Row) -> bool {
        row.entry.auto_download.unwrap_or(self.auto_download)
    }

    /// Whether row `i`'s file is to be fetched by itself now: completed, with a URL,
    /// auto-download on, never saved, no download under way or failed.
    fn wants_auto_download(&self, i: usize) -> bool {
        let row = &self.rows[i];
        row.state == TaskState::Completed
            && row.entry.saved.is_none()
            && row.download.is_none()
            && !row.no_service
            && row.url().is_some()
            && self.auto_for(row)
    }

    /// The download of row `i`'s file, if it is to be fetched by itself now: its end is
    /// then this dashboard's, fetching (a hook already waiting still waits).
    fn auto_download(&mut self, i: usize) -> Option<Cmd> {
        let wanted = self.wants_auto_download(i);
        let cmd = self.download_cmd(&self.rows[i], false).filter(|_| wanted)?;
        let row = &mut self.rows[i];
        let hook = row.end.take_hook();
        row.end = End::Ours(Stage::Fetching { hook });
        row.download = Some(DownloadView::Running {
            done: 0,
            total: None,
        });
        Some(cmd)
    }

    /// The downloads due at start (tasks that completed while gendash was closed), each
    /// claimed first: another dashboard on the same data directory may be fetching it.
    pub fn start_downloads(&mut self) -> Vec<Cmd> {
        (0..self.rows.len())
            .filter_map(|i| self.claim(i, None))
            .collect()
    }

    /// Claims row `i`'s end in the watch list file when there is something to do for it (an
    /// announcement, an automatic download): two dashboards on one data directory do each
    /// once between them. What is to be done waits for the answer (`claimed`).
    fn claim(&mut self, i: usize, announce: Option<Finished>) -> Option<Cmd> {
        let download = self.wants_auto_download(i);
        let row = &mut self.rows[i];
        if announce.is_none() && !download {
            return None;
        }
        match &mut row.end {
            End::Claiming(waiting) => {
                waiting.announce = waiting.announce.take().or(announce);
                waiting.download |= download;
                None
            }
            // A finish taken on here whose download is under way: announced after it.
            End::Ours(Stage::Fetching { hook }) if announce.is_some() => {
                *hook = hook.take().or(announce);
                None
            }
            End::Theirs | End::Ours(Stage::Fetching { .. } | Stage::HookWaits(_)) => None,
            End::Open | End::Ours(Stage::Done) => {
                row.end = End::Claiming(Duties { announce, download });
                Some(Cmd::Persist(PersistOp::Claim(row.key())))
            }
        }
    }

    /// The finish waiting for `key`'s claim to be answered, if one does.
    pub fn awaiting_announce(&self, key: &TaskKey) -> Option<Finished> {
        let i = self.position(key)?;
        self.rows[i].end.claiming()?.announce.clone()
    }

    /// The answer to a claim: when this dashboard took the task's end on, the notification,
    /// the automatic download and `on_complete` (after the download, with the saved file);
    /// else nothing, and the row shows the other dashboard's file once it is saved.
    pub fn claimed(&mut self, key: &TaskKey, won: bool) -> Vec<Cmd> {
        let Some(i) = self.position(key) else {
            return Vec::new();
        };
        let End::Claiming(duties) = std::mem::take(&mut self.rows[i].end) else {
            return Vec::new();
        };
        if !won {
            self.rows[i].end = End::Theirs;
            return Vec::new();
        }
        self.rows[i].end = End::Ours(Stage::Done);
        let mut cmds: Vec<Cmd> = Vec::new();
        let download = if duties.download {
            self.auto_download(i)
        } else {
            None
        };
        let row = &mut self.rows[i];
        if let Some(mut finished) = duties.announce {
            // The hook waits for the download under way, its own or one the user started
            // (`D`), so `{file}` is the file.
            match &mut row.end {
                End::Ours(Stage::Fetching { hook }) => *hook = Some(finished),
                _ if matches!(row.download, Some(DownloadView::Running { .. })) => {
                    row.end = End::Ours(Stage::HookWaits(finished));
                }
                _ => {
                    (finished.file, finished.no_file) = file_of(row, self.auto_download);
                    cmds.push(Cmd::Finished(finished));
                }
            }
        }
        cmds.extend(download);
        cmds
    }

    /// The command that fetches row's file with its service's token.
    pub fn download_cmd(&self, row: &Row, force: bool) -> Option<Cmd> {
        let mut job = self.download_job(&row.entry, force)?;
        job.provenance.reported.clone_from(&row.reported);
        Some(Cmd::Download(job))
    }

    /// The job that fetches `entry`'s file with its service's token, with what the provenance
    /// file (`sidecar`) says of it: the watch list's rows and the archive's build theirs here.
    pub fn download_job(&self, entry: &WatchEntry, force: bool) -> Option<DownloadJob> {
        let url = entry.last.as_ref()?.url_download.clone()?;
        let service = self.services.of(entry.service.as_deref());
        // A profile's name, not a host's.
        let profile = (self.services.names.get(service))
            .filter(|name| **name != crate::app::services::host_label(service))
            .cloned();
        Some(DownloadJob {
            key: TaskKey::of(entry),
            url,
            service: self.services.route(service),
            status: entry
                .last
                .as_ref()
                .map(|l| l.status.clone())
                .unwrap_or_default(),
            force,
            label: entry.label.clone(),
            provenance: Box::new(Provenance::of_entry(entry, service, profile)),
        })
    }

    /// The command that fetches an entry's file that is not a row (an archived task's), as
    /// `download_cmd` builds it for a row.
    pub fn entry_download_cmd(&self, entry: &WatchEntry, force: bool) -> Option<Cmd> {
        let row = Row::new(entry.clone(), &self.failure_statuses, &self.services);
        self.download_cmd(&row, force)
    }

    /// `A`: turns fetching by itself on or off for the selected task: its ID and the new choice;
    /// the commands save the choice, and start the download if it is due now.
    pub fn toggle_auto_download(&mut self) -> Option<Changed<AutoDownload>> {
        let &i = self.order.get(self.cursor.selected)?;
        let on = !self.auto_for(&self.rows[i]);
        let row = &mut self.rows[i];
        row.entry.auto_download = Some(on);
        if on && matches!(row.download, Some(DownloadView::Failed(_))) {
            row.download = None;
        }
        let mut cmds = vec![Cmd::Persist(PersistOp::AutoDownload(row.key(), Some(on)))];
        let id = row.entry.task_id.clone();
        cmds.extend(self.auto_download(i));
        Some(Changed {
            cmds,
            what: AutoDownload { ids: vec![id], on },
        })
    }

    /// `A` with tasks marked: fetching by itself turned on for every marked task, or off when
    /// it is on for all of them already: their IDs and the new choice.
    pub fn auto_download_marked(&mut self) -> Changed<AutoDownload> {
        let marked: Vec<usize> = (0..self.rows.len())
            .filter(|&i| self.marked.contains(&self.rows[i].key()))
            .collect();
        let on = !marked.iter().all(|&i| self.auto_for(&self.rows[i]));
        let mut ids = Vec::new();
        let mut cmds = Vec::new();
        for i in marked {
            let row = &mut self.rows[i];
            row.entry.auto_download = Some(on);
            if on && matches!(row.download, Some(DownloadView::Failed(_))) {
                row.download = None;
            }
            cmds.push(Cmd::Persist(PersistOp::AutoDownload(row.key(), Some(on))));
            ids.push(row.entry.task_id.clone());
            cmds.extend(self.auto_download(i));
        }
        Changed {
            cmds,
            what: AutoDownload { ids, on },
        }
    }

    /// A download's progress or end: the commands (saving where the file went); a file
    /// already there says which key (`download_key`) replaces it.
    pub fn download(&mut self, key: &TaskKey, event: DownloadEvent, download_key: &str) -> Effects {
        let Some(i) = self.position(key) else {
            return Effects::none();
        };
        let row = &mut self.rows[i];
        let mut cmds = Vec::new();
        let ended = !matches!(event, DownloadEvent::Progress { .. });
        row.download = Some(match event {
            DownloadEvent::Progress { done, total } => DownloadView::Running { done, total },
            DownloadEvent::Saved(p) => {
                let path = p.display().to_string();
                row.entry.saved = Some(path.clone());
                cmds.push(Cmd::Persist(PersistOp::Saved(row.key(), path.clone())));
                DownloadView::Saved(path)
            }
            DownloadEvent::Exists(p) => DownloadView::Failed(format!(
                "{} exists; {download_key} replaces it",
                p.display()
            )),
            DownloadEvent::Failed(e) => DownloadView::Failed(e),
        });
        if let Some(mut finished) = ended.then(|| row.end.take_hook()).flatten() {
            (finished.file, finished.no_file) = match &row.download {
                Some(DownloadView::Saved(path)) => (Some(path.into()), None),
                Some(DownloadView::Failed(why)) => {
                    (None, Some(format!("the download failed: {why}")))
                }
                _ => (None, Some("the download did not end".into())),
            };
            cmds.push(Cmd::Finished(finished));
        }
        Effects::cmds(cmds).redraw_if(true)
    }

    /// A download that did not start (the file is there and the user is asked): the row goes
    /// back to what it knew before, its saved file if any, and a hook that waited for the
    /// download runs now.
    pub fn download_not_started(&mut self, key: &TaskKey) -> Effects {
        let Some(i) = self.position(key) else {
            return Effects::none();
        };
        let auto_download = self.auto_download;
        let row = &mut self.rows[i];
        let before = row.entry.saved.clone().map(DownloadView::Saved);
        let changed = std::mem::replace(&mut row.download, before) != row.download;
        let hook = row.end.take_hook().map(|mut finished| {
            (finished.file, finished.no_file) = file_of(row, auto_download);
            Cmd::Finished(finished)
        });
        Effects::cmd(hook).redraw_if(changed)
    }

    /// Files that another dashboard saved (it claimed the task's end): the rows show them
    /// unless a download of their own is under way. Returns whether any row changed.
    fn take_saved(&mut self, entries: &[WatchEntry]) -> bool {
        let saved: std::collections::HashMap<TaskKey, &String> = entries
            .iter()
            .filter_map(|e| Some((TaskKey::of(e), e.saved.as_ref()?)))
            .collect();
        let mut changed = false;
        for row in &mut self.rows {
            let Some(&path) = saved.get(&row.key()) else {
                continue;
            };
            if row.entry.saved.as_ref() != Some(path)
                && !matches!(row.download, Some(DownloadView::Running { .. }))
            {
                row.entry.saved = Some(path.clone());
                row.download = Some(DownloadView::Saved(path.clone()));
                changed = true;
            }
        }
        changed
    }

    /// Brings the rows in line with the saved list after another process changed it:
    /// new entries are added and polled, vanished ones removed.
    pub fn merge_external(&mut self, entries: &[WatchEntry], now: u64) -> Effects {
        let mut cmds = Vec::new();
        let before = self.rows.len();
        let selected = self.selected_row().map(Row::key);
        let gone: Vec<TaskKey> = self
            .rows
            .iter()
            .map(Row::key)
            .filter(|k| !entries.iter().any(|e| TaskKey::of(e) == *k))
            .collect();
        self.rows.retain(|r| !gone.contains(&r.key()));
        for k in &gone {
            self.marked.remove(k);
        }
        cmds.extend(gone.iter().cloned().map(|k| Cmd::Poll(PollCmd::Unwatch(k))));
        let mut added = 0;
        for e in entries {
            if self.position(&TaskKey::of(e)).is_none() {
                let mut e = e.clone();
                if e.service.is_none() && !self.services.current.is_empty() {
                    e.service = Some(self.services.current.clone());
                }
                let row = Row::new(e, &self.failure_statuses, &self.services);
                cmds.extend(self.poll_cmd(&row));
                self.rows.push(row);
                added += 1;
            }
        }
        let saved_elsewhere = self.take_saved(entries);
        let relabelled = label::take_marks(self, entries);
        let changed = !gone.is_empty()
            || added > 0
            || before != self.rows.len()
            || saved_elsewhere
            || relabelled;
        if changed {
            self.rows_changed();
            self.reorder_keeping(selected, now);
        }
        Effects::cmds(cmds).redraw_if(changed)
    }
}

/// Records a poll's trouble in the entry, and in the file when it is news (a retry that fails
/// the same way writes nothing).
fn keep_trouble(row: &mut Row, kind: TroubleKind, text: String, now: u64) -> Vec<Cmd> {
    if row
        .entry
        .trouble
        .as_ref()
        .is_some_and(|t| t.kind == kind && t.text == text)
    {
        return Vec::new();
    }
    let trouble = Trouble {
        kind,
        text,
        since: now,
    };
    row.entry.trouble = Some(trouble.clone());
    vec![Cmd::Persist(PersistOp::Trouble(row.key(), Some(trouble)))]
}

/// `on_complete`'s `{file}` for a row whose file is not being fetched: the saved file, or
/// why there is none (for the log).
fn file_of(row: &Row, auto_download: bool) -> (Option<std::path::PathBuf>, Option<String>) {
    let why = match &row.download {
        Some(DownloadView::Saved(path)) => return (Some(path.into()), None),
        Some(DownloadView::Failed(e)) => format!("its download failed: {e}"),
        None if row.state == TaskState::Failed => "the task failed".into(),
        None if row.url().is_none() => "the service gave no url_download".into(),
        None if !row.entry.auto_download.unwrap_or(auto_download) => {
            "auto_download is off for it".into()
        }
        _ => "it was not downloaded".into(),
    };
    (None, Some(why))
}

/// A poll the service answered: status, history, progress, and what is announced when it
/// finished while watched (once claimed: see `Watch::claim`).
fn answered(
    row: &mut Row,
    t: &TaskResult,
    failure_statuses: &[String],
    now: u64,
) -> (Vec<Cmd>, bool, Option<Finished>) {
    let state = classify(&t.status, failure_statuses);
    let previous = row.entry.last.clone().unwrap_or_default();
    let status_moved = row.entry.last.is_none() || previous.status != t.status;
    let mut history = previous.history;
    if status_moved {
        history.push(Transition {
            at: now,
            status: t.status.clone(),
        });
        if history.len() > HISTORY {
            history.drain(..history.len() - HISTORY);
        }
    }
    let first_seen_running = previous.running_since.is_none() && state == TaskState::Running;
    let start_seen = previous.start_seen || (first_seen_running && t.percent == 0);
    let running_since = previous
        .running_since
        .or((state == TaskState::Running).then_some(now));
    let finished_at = match state {
        TaskState::Running => None,
        _ => previous.finished_at.or(Some(now)),
    };
    let last = LastKnown {
        status: t.status.clone(),
        percent: t.percent,
        url_download: t.url_download.clone(),
        updated_at: now,
        running_since,
        finished_at,
        start_seen,
        history,
    };
    let changed_status = row.entry.last.as_ref().is_none_or(|l| {
        l.status != last.status || l.percent != last.percent || l.url_download != last.url_download
    });
    row.reported = Some(t.envelope.clone());
    let had_trouble = row.trouble.take().is_some();
    if state == TaskState::Running {
        row.progress.observe(now as f64, t.percent);
    }
    let mut cmds = Vec::new();
    if row.entry.trouble.take().is_some() {
        cmds.push(Cmd::Persist(PersistOp::Trouble(row.key(), None)));
    }
    // Announced only when it was seen running: a task already finished when first polled (no
    // last known status) did not finish while watched.
    let announce = (state != TaskState::Running
        && row.state == TaskState::Running
        && row.entry.last.is_some())
    .then(|| Finished {
        task_id: row.entry.task_id.clone(),
        kind: row.entry.kind,
        status: t.status.clone(),
        status_failed: state == TaskState::Failed,
        percent: t.percent,
        url: t.url_download.clone(),
        file: None,
        no_file: None,
        label: row.entry.label.clone(),
    });
    if announce.is_some() {
        unseen::finished(row);
    }
    row.state = state;
    row.entry.last = Some(last.clone());
    if changed_status {
        cmds.push(Cmd::Persist(PersistOp::Status(
            TaskKey::of(&row.entry),
            last,
        )));
    }
    // A result that only refreshes the "updated" age redraws nothing by itself: the
    // once-a-second tick redraws when a shown age label changes. Redrawing on every unchanged
    // poll was most of the dashboard's CPU (a profile of 1,000 watched tasks: rendering
    // frames, for rows mostly off screen).
    (cmds, changed_status || had_trouble, announce)
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
        label: None,
        seen: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::TaskKind;
    use crate::api::types::default_failure_statuses;

    fn statuses() -> Vec<String> {
        default_failure_statuses()
    }

    use crate::testing::task_result as result;

    #[test]
    fn only_a_plain_http_or_https_url_is_openable() {
        let with_url = |url: &str| {
            let mut e = new_entry("t", TaskKind::Image, 0);
            e.last = Some(LastKnown {
                status: "COMPLETED".into(),
                url_download: Some(url.into()),
                ..LastKnown::default()
            });
            Watch::new(vec![e], statuses())
        };
        let https = "https://cdn.example/t.png";
        assert_eq!(with_url(https).rows[0].openable_url(), Some(https));
        for refused in [
            "file:///etc/passwd",
            "javascript:alert(1)",
            "https://a b/c.png",
        ] {
            let w = with_url(refused);
            assert_eq!(w.rows[0].url(), Some(refused));
            assert_eq!(w.rows[0].openable_url(), None, "{refused}");
        }
        assert_eq!(
            Watch::new(vec![new_entry("t", TaskKind::Image, 0)], statuses()).rows[0].openable_url(),
            None
        );
    }

    #[test]
    fn add_remove_undo() {
        let mut w = Watch::new(Vec::new(), statuses());
        let Changed {
            cmds,
            what: Added {
                keys: added,
                skipped,
            },
        } = w.add(
            vec![
                new_entry("a", TaskKind::Image, 0),
                new_entry("b", TaskKind::Video, 0),
                new_entry("a", TaskKind::Image, 0),
            ],
            0,
        );
        assert_eq!((added.len(), skipped), (2, 1));
        assert!(matches!(&cmds[0], Cmd::Persist(PersistOp::Add(v)) if v.len() == 2));
        assert_eq!(
            cmds[1..],
            [
                Cmd::Poll(PollCmd::Watch(TaskKey::new(TaskKind::Image, "a"), None)),
                Cmd::Poll(PollCmd::Watch(TaskKey::new(TaskKind::Video, "b"), None))
            ]
        );
        assert_eq!(
            w.add(vec![new_entry("a", TaskKind::Image, 0)], 0)
                .what
                .skipped,
            1,
            "duplicates are not added"
        );
        w.select(0);
        let Changed { cmds, what: id } = w.remove_selected(0);
        assert_eq!(id.as_deref(), Some("a"));
        assert_eq!(
            cmds[0],
            Cmd::Poll(PollCmd::Unwatch(TaskKey::new(TaskKind::Image, "a")))
        );
        assert_eq!(w.rows.len(), 1);
        let Changed { cmds, what: undone } = w.undo(0).expect("undo remove");
        assert!(matches!(&cmds[0], Cmd::Persist(PersistOp::Add(v)) if v[0].task_id == "a"));
        assert_eq!(undone, Undone::Restored(vec!["a".into()]));
        assert_eq!(w.rows[0].entry.task_id, "a", "restored at its old place");
        let Changed { cmds, what: undone } = w.undo(0).expect("undo add");
        assert_eq!(undone, Undone::TookBack(vec!["a".into(), "b".into()]));
        assert!(w.rows.is_empty());
        assert!(cmds.contains(&Cmd::Poll(PollCmd::Unwatch(TaskKey::new(
            TaskKind::Video,
            "b"
        )))));
        assert!(w.undo(0).is_none());
    }

    #[test]
    fn an_answer_reaches_its_own_row_after_rows_come_and_go() {
        let entries = ["a", "b", "c"].map(|id| new_entry(id, TaskKind::Image, 0));
        let mut w = Watch::new(entries.to_vec(), statuses());
        let key = |id: &str| TaskKey::new(TaskKind::Image, id);
        let _ = w.polled(&key("c"), Ok(result("c", "IN_PROGRESS", 10)), None, 100);
        // "a" goes: every row after it moves up one.
        w.remove(&[key("a")], 101);
        let _ = w.polled(&key("c"), Ok(result("c", "IN_PROGRESS", 30)), None, 102);
        let _ = w.polled(&key("b"), Ok(result("b", "IN_PROGRESS", 20)), None, 103);
        let percents: Vec<(&str, u8)> = w
            .rows
            .iter()
            .map(|r| (r.entry.task_id.as_str(), r.percent()))
            .collect();
        assert_eq!(percents, [("b", 20), ("c", 30)]);
        // Same ID, the other kind: not this row.
        let _ = w.polled(
            &TaskKey::new(TaskKind::Video, "b"),
            Ok(result("b", "IN_PROGRESS", 90)),
            None,
            104,
        );
        assert_eq!(w.rows[0].percent(), 20);
    }

    #[test]
    fn polls_update_rows_and_notify_once_on_finish() {
        let mut w = Watch::new(vec![new_entry("t", TaskKind::Image, 0)], statuses());
        let key = TaskKey::new(TaskKind::Image, "t");
        let Effects {
            cmds,
            redraw: changed,
            ..
        } = w.polled(&key, Ok(result("t", "IN_PROGRESS", 40)), None, 100);
        assert!(changed);
        assert!(matches!(&cmds[..], [Cmd::Persist(PersistOp::Status(_, l))] if l.percent == 40));
        let Effects { cmds, .. } = w.polled(
            &key,
            Err(ApiError::Http {
                status: 502,
                excerpt: "bad".into(),
                retry_after: None,
            }),
            Some(Duration::from_secs(4)),
            101,
        );
        assert!(matches!(
            &cmds[..],
            [Cmd::Persist(PersistOp::Trouble(_, Some(_)))]
        ));
        assert_eq!(w.rows[0].error(), Some("HTTP 502: bad"));
        assert_eq!(w.counts(200).erroring, 1);
        let Effects { cmds, .. } = w.polled(&key, Ok(result("t", "COMPLETED", 100)), None, 102);
        assert_eq!(cmds[0], Cmd::Persist(PersistOp::Trouble(key.clone(), None)));
        assert_eq!(cmds[2], Cmd::Persist(PersistOp::Claim(key.clone())));
        let cmds = w.claimed(&key, true);
        // The notice is the state's (the notification policy's): here only `on_complete`.
        assert!(matches!(&cmds[..], [Cmd::Finished(f)] if f.task_id == "t"));
        assert_eq!(w.rows[0].state, TaskState::Completed);
        assert_eq!(w.rows[0].error(), None);
        assert_eq!(w.rows[0].url(), Some("http://127.0.0.1:8787/files/t.png"));
        let Effects { cmds, .. } = w.polled(&key, Ok(result("t", "COMPLETED", 100)), None, 103);
        assert!(
            cmds.is_empty(),
            "no second notification, nothing to persist"
        );
        let c = w.counts(200);
        assert_eq!((c.running, c.completed, c.failed, c.erroring), (0, 1, 0, 0));
    }

    #[test]
    fn finished_tasks_from_disk_are_not_polled() {
        let mut done = new_entry("d", TaskKind::Image, 0);
        done.last = Some(LastKnown {
            status: "FAILED".into(),
            percent: 10,
            url_download: None,
            updated_at: 1,
            ..LastKnown::default()
        });
        let w = Watch::new(vec![done, new_entry("r", TaskKind::Image, 0)], statuses());
        assert_eq!(
            w.start_polling(),
            [Cmd::Poll(PollCmd::Watch(
                TaskKey::new(TaskKind::Image, "r"),
                None
            ))]
        );
    }

    #[test]
    fn external_changes_are_merged() {
        let mut w = Watch::new(
            vec![
                new_entry("a", TaskKind::Image, 0),
                new_entry("b", TaskKind::Image, 0),
            ],
            statuses(),
        );
        let Effects {
            cmds,
            redraw: changed,
            ..
        } = w.merge_external(
            &[
                new_entry("b", TaskKind::Image, 0),
                new_entry("c", TaskKind::Video, 0),
            ],
            0,
        );
        assert!(changed);
        assert_eq!(
            cmds,
            [
                Cmd::Poll(PollCmd::Unwatch(TaskKey::new(TaskKind::Image, "a"))),
                Cmd::Poll(PollCmd::Watch(TaskKey::new(TaskKind::Video, "c"), None))
            ]
        );
        let ids: Vec<_> = w.rows.iter().map(|r| r.entry.task_id.as_str()).collect();
        assert_eq!(ids, ["b", "c"]);
        assert!(
            !w.merge_external(
                &[
                    new_entry("b", TaskKind::Image, 0),
                    new_entry("c", TaskKind::Video, 0)
                ],
                0
            )
            .redraw
        );
    }

    fn lookup_failed() -> Result<TaskResult, ApiError> {
        Err(ApiError::Lookup {
            description: "task not found".into(),
        })
    }

    fn ids(w: &Watch) -> Vec<&str> {
        w.order
            .iter()
            .map(|&i| w.rows[i].entry.task_id.as_str())
            .collect()
    }

    #[test]
    fn each_state_is_its_own_and_counted_apart() {
        let k = |id: &str| TaskKey::new(TaskKind::Image, id);
        let mut w = Watch::new(
            ["run", "gone", "err", "done", "new"]
                .iter()
                .map(|id| new_entry(id, TaskKind::Image, 0))
                .collect(),
            statuses(),
        );
        let _ = w.polled(&k("run"), Ok(result("run", "IN_PROGRESS", 10)), None, 10);
        let Effects {
            redraw: changed, ..
        } = w.polled(
            &k("gone"),
            lookup_failed(),
            Some(Duration::from_secs(15)),
            10,
        );
        assert!(changed);
        let _ = w.polled(&k("err"), Ok(result("err", "IN_PROGRESS", 50)), None, 10);
        let _ = w.polled(
            &k("err"),
            Err(ApiError::Http {
                status: 503,
                excerpt: "busy".into(),
                retry_after: None,
            }),
            Some(Duration::from_secs(4)),
            12,
        );
        let _ = w.polled(&k("done"), Ok(result("done", "COMPLETED", 100)), None, 10);
        let phases: Vec<Phase> = w.rows.iter().map(|r| r.phase(12, 300)).collect();
        assert_eq!(
            phases,
            [
                Phase::Running,
                Phase::NotFound,
                Phase::Running,
                Phase::Completed,
                Phase::NotPolled
            ]
        );
        let gone = &w.rows[1];
        assert_eq!(gone.not_found(), Some("task not found"));
        assert_eq!(gone.next_retry_at(), Some(25), "the next retry is shown");
        assert!(gone.error().is_none(), "an unknown task is not an error");
        let err = &w.rows[2];
        assert_eq!(
            err.entry.last.as_ref().map(|l| l.percent),
            Some(50),
            "last status kept"
        );
        assert_eq!((err.retries(), err.next_retry_at()), (1, Some(16)));
        let c = w.counts(12);
        assert_eq!(
            (
                c.running,
                c.not_found,
                c.erroring,
                c.completed,
                c.not_polled
            ),
            (2, 1, 1, 1, 1)
        );
        // Found after all: the unknown task becomes an ordinary one.
        let _ = w.polled(&k("gone"), Ok(result("gone", "QUEUED", 0)), None, 30);
        assert_eq!(w.rows[1].phase(30, 300), Phase::Running);
        assert_eq!(w.rows[1].retries(), 0);
    }

    #[test]
    fn progress_gives_an_eta_and_stalls_follow_the_clock() {
        let key = TaskKey::new(TaskKind::Image, "t");
        let mut w = Watch::new(vec![new_entry("t", TaskKind::Image, 0)], statuses());
        w.stall_after = 300;
        for (at, percent) in [(100, 10), (110, 20)] {
            let _ = w.polled(&key, Ok(result("t", "IN_PROGRESS", percent)), None, at);
        }
        assert_eq!(w.rows[0].eta(110), None, "one move is not enough");
        let _ = w.polled(&key, Ok(result("t", "IN_PROGRESS", 30)), None, 120);
        assert_eq!(w.rows[0].eta(120), Some(70));
        // Unchanged polls until stall_after has passed since the last move.
        for at in (122..420).step_by(2) {
            let _ = w.polled(&key, Ok(result("t", "IN_PROGRESS", 30)), None, at);
            assert_eq!(w.rows[0].phase(at, 300), Phase::Running, "at {at}");
        }
        assert_eq!(w.rows[0].phase(420, 300), Phase::Stalled);
        assert_eq!(w.counts(420).stalled, 1);
        assert_eq!(w.rows[0].eta(420), w.rows[0].progress.eta(420.0));
        let _ = w.polled(&key, Ok(result("t", "IN_PROGRESS", 31)), None, 422);
        assert_eq!(w.rows[0].phase(422, 300), Phase::Running, "moving again");
        let _ = w.polled(&key, Ok(result("t", "COMPLETED", 100)), None, 430);
        let last = w.rows[0].entry.last.clone().expect("known");
        assert_eq!(
            (last.running_since, last.finished_at),
            (Some(100), Some(430))
        );
        let history: Vec<(u64, &str)> = last
            .history
            .iter()
            .map(|t| (t.at, t.status.as_str()))
            .collect();
        assert_eq!(history, [(100, "IN_PROGRESS"), (430, "COMPLETED")]);
        assert_eq!(w.rows[0].eta(430), None, "no ETA once finished");
    }

    #[test]
    fn sorts_cycle_and_keep_the_selection() {
        let k = |id: &str| TaskKey::new(TaskKind::Image, id);
        let mut w = Watch::new(
            ["b-run", "a-fail", "c-done", "d-gone", "e-stuck"]
                .iter()
                .map(|id| new_entry(id, TaskKind::Image, 0))
                .collect(),
            statuses(),
        );
        w.stall_after = 100;
        for (at, p) in [(0, 10), (10, 20), (20, 30)] {
            let _ = w.polled(&k("b-run"), Ok(result("b-run", "IN_PROGRESS", p)), None, at);
        }
        let _ = w.polled(&k("a-fail"), Ok(result("a-fail", "FAILED", 40)), None, 20);
        let _ = w.polled(
            &k("c-done"),
            Ok(result("c-done", "COMPLETED", 100)),
            None,
            20,
        );
        let _ = w.polled(&k("d-gone"), lookup_failed(), None, 20);
        let _ = w.polled(
            &k("e-stuck"),
            Ok(result("e-stuck", "IN_PROGRESS", 5)),
            None,
            0,
        );
        // e-stuck has not moved for 110 s, b-run for 90 s.
        let now = 110;
        w.select(2);
        assert_eq!(ids(&w), ["b-run", "a-fail", "c-done", "d-gone", "e-stuck"]);
        let mut seen = Vec::new();
        for _ in 0..5 {
            let sort = w.cycle_sort(now);
            assert_eq!(
                w.selected_row().map(|r| r.entry.task_id.as_str()),
                Some("c-done"),
                "{sort:?} keeps the selected task selected"
            );
            seen.push((sort, ids(&w).join(" ")));
        }
        assert_eq!(
            seen,
            [
                (
                    SortKey::Status,
                    "a-fail d-gone e-stuck b-run c-done".to_string()
                ),
                (
                    SortKey::Progress,
                    "c-done a-fail b-run e-stuck d-gone".to_string()
                ),
                (
                    SortKey::Eta,
                    "b-run a-fail c-done d-gone e-stuck".to_string()
                ),
                (
                    SortKey::TaskId,
                    "a-fail b-run c-done d-gone e-stuck".to_string()
                ),
                (
                    SortKey::Added,
                    "b-run a-fail c-done d-gone e-stuck".to_string()
                ),
            ]
        );
        assert_eq!(SortKey::from_label("status"), SortKey::Status);
        assert_eq!(SortKey::from_label("nonsense"), SortKey::Added);
    }

    #[test]
    fn the_filter_matches_ids_and_statuses() {
        let k = |id: &str| TaskKey::new(TaskKind::Image, id);
        let mut w = Watch::new(
            ["render-1", "clip-2", "render-3"]
                .iter()
                .map(|id| new_entry(id, TaskKind::Image, 0))
                .collect(),
            statuses(),
        );
        let _ = w.polled(&k("clip-2"), Ok(result("clip-2", "FAILED", 0)), None, 1);
        w.set_query("rend".into(), 1);
        assert_eq!(ids(&w), ["render-1", "render-3"]);
        w.set_query("failed".into(), 1);
        assert_eq!(ids(&w), ["clip-2"]);
        assert_eq!(
            w.selected_row().map(|r| r.entry.task_id.as_str()),
            Some("clip-2")
        );
        w.set_query("zzz".into(), 1);
        assert!(ids(&w).is_empty() && w.selected_row().is_none());
        w.set_query(String::new(), 1);
        assert_eq!(ids(&w).len(), 3);
    }

    /// Each task is polled at its own service: the current one (`None`), another configured
    /// one by its base URL, and none at all when its service is not configured.
    #[test]
    fn each_task_is_polled_at_its_own_service() {
        let (a, b, c) = ("http://a:1", "http://b:2", "http://c:3");
        let mut services = Services::single(a);
        services.names.insert(b.into(), "staging".into());
        let entry = |id: &str, service: Option<&str>| WatchEntry {
            service: service.map(str::to_string),
            ..new_entry(id, TaskKind::Image, 0)
        };
        let mut w = Watch::new(
            vec![
                entry("old", None),
                entry("on-a", Some(a)),
                entry("on-b", Some(b)),
                entry("on-c", Some(c)),
            ],
            statuses(),
        );
        assert!(
            w.set_services(services).is_empty(),
            "nothing was polled yet"
        );
        let key = |id: &str| TaskKey::new(TaskKind::Image, id);
        assert_eq!(
            w.start_polling(),
            [
                Cmd::Poll(PollCmd::Watch(key("old"), None)),
                Cmd::Poll(PollCmd::Watch(key("on-a"), None)),
                Cmd::Poll(PollCmd::Watch(key("on-b"), Some(b.into()))),
            ],
            "on-c's service is not configured: never polled"
        );
        assert_eq!(w.counts(0).no_service, 1);
        let on_c = w
            .rows
            .iter()
            .find(|r| r.entry.task_id == "on-c")
            .expect("on-c");
        assert_eq!(on_c.phase(0, 300), Phase::NoService);

        // Entries saved before entries remembered a service adopt the current one, in the file.
        assert_eq!(w.adopt(), [Cmd::Persist(PersistOp::Adopt(a.into()))]);
        assert_eq!(w.rows[0].entry.service.as_deref(), Some(a));
        assert!(w.adopt().is_empty(), "once");

        // Added tasks (the dialog, another process) remember the current service.
        let Changed { cmds, .. } = w.add(vec![entry("new", None)], 0);
        assert!(cmds.contains(&Cmd::Poll(PollCmd::Watch(key("new"), None))));
        assert_eq!(
            w.rows.last().expect("added").entry.service.as_deref(),
            Some(a)
        );
        let mut external: Vec<WatchEntry> = w.rows.iter().map(|r| r.entry.clone()).collect();
        external.push(entry("ext-b", Some(b)));
        external.push(entry("ext-c", Some(c)));
        let Effects { cmds, .. } = w.merge_external(&external, 0);
        assert_eq!(
            cmds,
            [Cmd::Poll(PollCmd::Watch(key("ext-b"), Some(b.into())))]
        );

        // A configured service whose client cannot be made stops being polled.
        let mut unusable = w.services.clone();
        unusable.unusable.insert(b.into(), "no token".into());
        let cmds = w.set_services(unusable);
        assert_eq!(
            cmds,
            [
                Cmd::Poll(PollCmd::Unwatch(key("on-b"))),
                Cmd::Poll(PollCmd::Unwatch(key("ext-b")))
            ]
        );
        assert_eq!(w.counts(0).no_service, 4);
    }

    /// NOT FOUND and the last error go to the file when they are news, and come back from it:
    /// a restarted dashboard shows them before its first poll; an answer clears them.
    #[test]
    fn troubles_are_kept_in_the_file_and_restored() {
        let k = |id: &str| TaskKey::new(TaskKind::Image, id);
        let mut w = Watch::new(
            vec![
                new_entry("gone", TaskKind::Image, 0),
                new_entry("err", TaskKind::Image, 0),
            ],
            statuses(),
        );
        let Effects { cmds, .. } = w.polled(&k("gone"), lookup_failed(), None, 10);
        let gone = Trouble {
            kind: TroubleKind::NotFound,
            text: "task not found".into(),
            since: 10,
        };
        assert_eq!(
            cmds,
            [Cmd::Persist(PersistOp::Trouble(
                k("gone"),
                Some(gone.clone())
            ))]
        );
        let Effects { cmds, .. } = w.polled(&k("gone"), lookup_failed(), None, 20);
        assert!(cmds.is_empty(), "the same trouble again is not news");
        let http = |status| {
            Err(ApiError::Http {
                status,
                excerpt: "bad".into(),
                retry_after: None,
            })
        };
        let _ = w.polled(&k("err"), Ok(result("err", "IN_PROGRESS", 40)), None, 10);
        let Effects { cmds, .. } = w.polled(&k("err"), http(502), Some(Duration::from_secs(4)), 11);
        let err = Trouble {
            kind: TroubleKind::Error,
            text: "HTTP 502: bad".into(),
            since: 11,
        };
        assert_eq!(
            cmds,
            [Cmd::Persist(PersistOp::Trouble(
                k("err"),
                Some(err.clone())
            ))]
        );

        // A restart: the entries as saved.
        let saved: Vec<WatchEntry> = w.rows.iter().map(|r| r.entry.clone()).collect();
        assert_eq!(saved[0].trouble, Some(gone));
        assert_eq!(saved[1].trouble, Some(err));
        let mut again = Watch::new(saved, statuses());
        assert_eq!(again.rows[0].phase(30, 300), Phase::NotFound);
        assert_eq!(again.rows[0].not_found(), Some("task not found"));
        assert_eq!(again.rows[1].error(), Some("HTTP 502: bad"));
        assert_eq!(again.rows[1].percent(), 40, "the last status stays too");
        let c = again.counts(30);
        assert_eq!((c.not_found, c.erroring, c.not_polled), (1, 1, 0));

        // Asking fails afterwards: the file still says NOT FOUND.
        let Effects { cmds, .. } =
            again.polled(&k("gone"), http(503), Some(Duration::from_secs(4)), 35);
        assert!(cmds.is_empty(), "{cmds:?}");
        assert_eq!(
            again.rows[0].entry.trouble.as_ref().map(|t| t.kind),
            Some(TroubleKind::NotFound)
        );
        // Found after all: the file forgets the trouble.
        let Effects { cmds, .. } =
            again.polled(&k("gone"), Ok(result("gone", "QUEUED", 0)), None, 40);
        assert!(
            cmds.contains(&Cmd::Persist(PersistOp::Trouble(k("gone"), None))),
            "{cmds:?}"
        );
        assert_eq!(again.rows[0].entry.trouble, None);
    }

    #[test]
    fn task_ids_sort_naturally() {
        let mut sorted = vec![
            "sim-20", "sim-3", "sim-100", "sim-03", "sim-2b", "sim-2a", "abc", "sim-", "sim-9x1",
            "sim-9x10", "sim-9x2",
        ];
        sorted.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            sorted,
            [
                "abc", "sim-", "sim-2a", "sim-2b", "sim-03", "sim-3", "sim-9x1", "sim-9x2",
                "sim-9x10", "sim-20", "sim-100"
            ]
        );
        // Numbers longer than any integer type still compare right.
        assert!(natural_cmp("t-99999999999999999999999", "t-100000000000000000000000").is_lt());
        // The watch list's sort by task ID uses it.
        let mut w = Watch::new(
            ["sim-20", "sim-3", "sim-100"]
                .iter()
                .map(|id| new_entry(id, TaskKind::Image, 0))
                .collect(),
            statuses(),
        );
        w.sort = SortKey::TaskId;
        w.reorder(0);
        assert_eq!(ids(&w), ["sim-3", "sim-20", "sim-100"]);
    }
}
