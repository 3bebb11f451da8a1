//! The watch list's state: the `Watch` and its rows, split by concern: `row` (what a row knows
//! and shows), `order` (sort and filter), `undo` (add, remove, undo), `poll` (poll results),
//! `trouble` (a row's poll trouble), `end` (a finished task's claim, automatic download and
//! hook), `download` (fetching a file), `merge` (the file other processes wrote), and the
//! pane's keys in `reducer`.

mod download;
pub mod end;
pub mod label;
mod merge;
pub mod next_poll;
pub mod notify;
mod order;
mod poll;
pub mod reducer;
mod row;
pub mod timing;
pub mod trouble;
mod undo;
pub mod unseen;

use super::cursor::Cursor;
use super::services::Services;
use crate::api::types::TaskState;
use crate::cmd::{Cmd, PersistOp, PollCmd, TaskKey};
use crate::filter::FuzzyFilter;
use crate::store::watchlist::WatchEntry;
pub use end::{Duties, End, Stage};
pub use order::{SortKey, natural_cmp};
pub use poll::ServiceSays;
pub use row::{Counts, DownloadView, Phase, Row, count_of};
pub use trouble::{PollTrouble, Problem};
use undo::Undo;

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
        label: None,
        seen: None,
    }
}

#[cfg(test)]
mod tests;
