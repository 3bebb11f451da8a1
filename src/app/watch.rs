//! The watch list's state and reducer: rows, add/remove/undo, poll results, downloads, and
//! merging changes other processes made to the saved list.

use super::cursor::Cursor;
use crate::api::types::{TaskState, classify};
use crate::api::{ApiError, TaskResult};
use crate::msg::{Cmd, DownloadEvent, PersistOp, TaskKey};
use crate::store::watchlist::{LastKnown, WatchEntry};
use std::time::Duration;

/// How many undo steps are kept.
const UNDO_DEPTH: usize = 50;

#[derive(Debug, Clone, PartialEq)]
pub enum DownloadView {
    Running { done: u64, total: Option<u64> },
    Saved(String),
    Failed(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub entry: WatchEntry,
    pub state: TaskState,
    /// The last poll's error, cleared by the next success.
    pub error: Option<String>,
    pub retry_in: Option<Duration>,
    pub download: Option<DownloadView>,
}

impl Row {
    fn new(entry: WatchEntry, failure_statuses: &[String]) -> Self {
        let state = entry.last.as_ref().map_or(TaskState::Running, |l| {
            classify(&l.status, failure_statuses)
        });
        Row {
            entry,
            state,
            error: None,
            retry_in: None,
            download: None,
        }
    }
    pub fn key(&self) -> TaskKey {
        TaskKey::of(&self.entry)
    }
    pub fn url(&self) -> Option<&str> {
        self.entry
            .last
            .as_ref()
            .and_then(|l| l.url_download.as_deref())
    }
}

#[derive(Debug, Clone)]
enum Undo {
    Removed(Vec<(usize, WatchEntry)>),
    Added(Vec<TaskKey>),
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
    pub rows: Vec<Row>,
    pub cursor: Cursor,
    undo: Vec<Undo>,
    failure_statuses: Vec<String>,
}

/// Counts for the status bar.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub running: usize,
    pub completed: usize,
    pub failed: usize,
    pub erroring: usize,
}

impl Watch {
    pub fn new(entries: Vec<WatchEntry>, failure_statuses: Vec<String>) -> Self {
        let rows = entries
            .into_iter()
            .map(|e| Row::new(e, &failure_statuses))
            .collect();
        Watch {
            rows,
            cursor: Cursor::default(),
            undo: Vec::new(),
            failure_statuses,
        }
    }

    /// The tasks to poll at start: everything not known to be finished.
    pub fn start_polling(&self) -> Vec<Cmd> {
        self.rows
            .iter()
            .filter(|r| r.state == TaskState::Running)
            .map(|r| Cmd::Watch(r.key()))
            .collect()
    }

    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for r in &self.rows {
            match r.state {
                TaskState::Running => c.running += 1,
                TaskState::Completed => c.completed += 1,
                TaskState::Failed => c.failed += 1,
            }
            if r.error.is_some() {
                c.erroring += 1;
            }
        }
        c
    }

    /// The rows on screen; the cursor keeps the selected one among them.
    pub fn visible(&self) -> &[Row] {
        let start = self.cursor.offset.min(self.rows.len());
        let end = start
            .saturating_add(self.cursor.viewport.max(1))
            .min(self.rows.len());
        &self.rows[start..end]
    }

    pub fn selected_row(&self) -> Option<&Row> {
        self.rows.get(self.cursor.selected)
    }

    fn position(&self, key: &TaskKey) -> Option<usize> {
        self.rows
            .iter()
            .position(|r| r.entry.kind == key.kind && r.entry.task_id == key.id)
    }

    pub fn move_by(&mut self, delta: isize) {
        self.cursor.move_by(self.rows.len(), delta);
    }

    pub fn select(&mut self, index: usize) {
        self.cursor.select(self.rows.len(), index);
    }

    pub fn scroll_into_view(&mut self) {
        self.cursor.scroll_into_view(self.rows.len());
    }

    fn push_undo(&mut self, u: Undo) {
        self.undo.push(u);
        if self.undo.len() > UNDO_DEPTH {
            self.undo.remove(0);
        }
    }

    /// Adds tasks not already listed; returns the commands and how many were new.
    pub fn add(&mut self, entries: Vec<WatchEntry>) -> (Vec<Cmd>, usize) {
        let fresh: Vec<WatchEntry> = entries
            .into_iter()
            .filter(|e| self.position(&TaskKey::of(e)).is_none())
            .fold(Vec::new(), |mut acc, e| {
                if !acc.iter().any(|a: &WatchEntry| a.same_task(&e)) {
                    acc.push(e);
                }
                acc
            });
        if fresh.is_empty() {
            return (Vec::new(), 0);
        }
        let keys: Vec<TaskKey> = fresh.iter().map(TaskKey::of).collect();
        let mut cmds = vec![Cmd::Persist(PersistOp::Add(fresh.clone()))];
        cmds.extend(keys.iter().cloned().map(Cmd::Watch));
        let n = fresh.len();
        self.rows.extend(
            fresh
                .into_iter()
                .map(|e| Row::new(e, &self.failure_statuses)),
        );
        self.cursor.selected = self.rows.len() - 1;
        self.scroll_into_view();
        self.push_undo(Undo::Added(keys));
        (cmds, n)
    }

    pub fn remove_selected(&mut self) -> Vec<Cmd> {
        if self.cursor.selected >= self.rows.len() {
            return Vec::new();
        }
        let row = self.rows.remove(self.cursor.selected);
        let key = row.key();
        self.push_undo(Undo::Removed(vec![(self.cursor.selected, row.entry)]));
        self.scroll_into_view();
        vec![
            Cmd::Unwatch(key.clone()),
            Cmd::Persist(PersistOp::Remove(vec![key])),
        ]
    }

    /// Reverts the last add or remove; says what it did.
    pub fn undo(&mut self) -> Option<(Vec<Cmd>, Undone)> {
        match self.undo.pop()? {
            Undo::Removed(items) => {
                let mut cmds = Vec::new();
                let mut restored = Vec::new();
                for (at, entry) in items {
                    if self.position(&TaskKey::of(&entry)).is_some() {
                        continue;
                    }
                    let row = Row::new(entry.clone(), &self.failure_statuses);
                    if row.state == TaskState::Running {
                        cmds.push(Cmd::Watch(row.key()));
                    }
                    let at = at.min(self.rows.len());
                    self.rows.insert(at, row);
                    self.cursor.selected = at;
                    restored.push(entry);
                }
                let ids = restored.iter().map(|e| e.task_id.clone()).collect();
                cmds.insert(0, Cmd::Persist(PersistOp::Add(restored)));
                self.scroll_into_view();
                Some((cmds, Undone::Restored(ids)))
            }
            Undo::Added(keys) => {
                self.rows.retain(|r| !keys.contains(&r.key()));
                self.scroll_into_view();
                let mut cmds: Vec<Cmd> = keys.iter().cloned().map(Cmd::Unwatch).collect();
                let ids = keys.iter().map(|k| k.id.clone()).collect();
                cmds.push(Cmd::Persist(PersistOp::Remove(keys)));
                Some((cmds, Undone::TookBack(ids)))
            }
        }
    }

    /// A poll result. Returns the commands (persist, notify) and whether anything changed.
    pub fn polled(
        &mut self,
        key: &TaskKey,
        result: Result<TaskResult, ApiError>,
        retry_in: Option<Duration>,
        now: u64,
    ) -> (Vec<Cmd>, bool) {
        let Some(i) = self.position(key) else {
            return (Vec::new(), false);
        };
        let failure_statuses = &self.failure_statuses;
        let row = &mut self.rows[i];
        match result {
            Ok(t) => {
                let state = classify(&t.status, failure_statuses);
                let last = LastKnown {
                    status: t.status.clone(),
                    percent: t.percent,
                    url_download: t.url_download.clone(),
                    updated_at: now,
                };
                let changed_status = row.entry.last.as_ref().is_none_or(|l| {
                    l.status != last.status
                        || l.percent != last.percent
                        || l.url_download != last.url_download
                });
                let had_error = row.error.take().is_some();
                row.retry_in = None;
                let mut cmds = Vec::new();
                // Announced only when it was seen running: a task already finished when first
                // polled (no last known status) did not finish while watched.
                if state != TaskState::Running
                    && row.state == TaskState::Running
                    && row.entry.last.is_some()
                {
                    let title = if state == TaskState::Completed {
                        "gendash: task completed"
                    } else {
                        "gendash: task failed"
                    };
                    cmds.push(Cmd::Notify {
                        title: title.into(),
                        body: format!(
                            "{} {} — {}",
                            row.entry.kind.as_str(),
                            row.entry.task_id,
                            t.status
                        ),
                    });
                }
                row.state = state;
                row.entry.last = Some(last.clone());
                if changed_status {
                    cmds.push(Cmd::Persist(PersistOp::Status(key.clone(), last)));
                }
                // A result that only refreshes the "updated" age redraws nothing by itself: the
                // once-a-second tick redraws when a shown age label changes. Redrawing on every
                // unchanged poll was most of the dashboard's CPU (a profile of 1,000 watched
                // tasks: rendering frames, for rows mostly off screen).
                (cmds, changed_status || had_error)
            }
            Err(e) => {
                let text = e.to_string();
                let changed =
                    row.error.as_deref() != Some(text.as_str()) || row.retry_in != retry_in;
                row.error = Some(text);
                row.retry_in = retry_in;
                (Vec::new(), changed)
            }
        }
    }

    pub fn download(&mut self, key: &TaskKey, event: DownloadEvent) -> bool {
        let Some(i) = self.position(key) else {
            return false;
        };
        self.rows[i].download = Some(match event {
            DownloadEvent::Progress { done, total } => DownloadView::Running { done, total },
            DownloadEvent::Saved(p) => DownloadView::Saved(p.display().to_string()),
            DownloadEvent::Failed(e) => DownloadView::Failed(e),
        });
        true
    }

    /// Brings the rows in line with the saved list after another process changed it:
    /// new entries are added and polled, vanished ones removed. Returns the commands and
    /// whether anything changed.
    pub fn merge_external(&mut self, entries: &[WatchEntry]) -> (Vec<Cmd>, bool) {
        let mut cmds = Vec::new();
        let before = self.rows.len();
        let gone: Vec<TaskKey> = self
            .rows
            .iter()
            .map(Row::key)
            .filter(|k| !entries.iter().any(|e| TaskKey::of(e) == *k))
            .collect();
        self.rows.retain(|r| !gone.contains(&r.key()));
        cmds.extend(gone.iter().cloned().map(Cmd::Unwatch));
        let mut added = 0;
        for e in entries {
            if self.position(&TaskKey::of(e)).is_none() {
                let row = Row::new(e.clone(), &self.failure_statuses);
                if row.state == TaskState::Running {
                    cmds.push(Cmd::Watch(row.key()));
                }
                self.rows.push(row);
                added += 1;
            }
        }
        self.scroll_into_view();
        (
            cmds,
            !gone.is_empty() || added > 0 || before != self.rows.len(),
        )
    }
}

/// "12s", "5m", "3h", "2d": short ages for the table.
pub fn age_label(since: u64, now: u64) -> String {
    let s = now.saturating_sub(since);
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86_400 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86_400),
    }
}

/// An entry added at `now` (the reducer's clock, never the wall clock).
pub fn new_entry(id: &str, kind: crate::api::TaskKind, now: u64) -> WatchEntry {
    WatchEntry {
        task_id: id.to_string(),
        kind,
        added_at: now,
        last: None,
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
    fn add_remove_undo() {
        let mut w = Watch::new(Vec::new(), statuses());
        let (cmds, n) = w.add(vec![
            new_entry("a", TaskKind::Image, 0),
            new_entry("b", TaskKind::Video, 0),
            new_entry("a", TaskKind::Image, 0),
        ]);
        assert_eq!(n, 2);
        assert!(matches!(&cmds[0], Cmd::Persist(PersistOp::Add(v)) if v.len() == 2));
        assert_eq!(
            cmds[1..],
            [
                Cmd::Watch(TaskKey::new(TaskKind::Image, "a")),
                Cmd::Watch(TaskKey::new(TaskKind::Video, "b"))
            ]
        );
        assert_eq!(
            w.add(vec![new_entry("a", TaskKind::Image, 0)]).1,
            0,
            "duplicates are not added"
        );
        w.select(0);
        let cmds = w.remove_selected();
        assert_eq!(cmds[0], Cmd::Unwatch(TaskKey::new(TaskKind::Image, "a")));
        assert_eq!(w.rows.len(), 1);
        let (cmds, undone) = w.undo().expect("undo remove");
        assert!(matches!(&cmds[0], Cmd::Persist(PersistOp::Add(v)) if v[0].task_id == "a"));
        assert_eq!(undone, Undone::Restored(vec!["a".into()]));
        assert_eq!(w.rows[0].entry.task_id, "a", "restored at its old place");
        let (cmds, undone) = w.undo().expect("undo add");
        assert_eq!(undone, Undone::TookBack(vec!["a".into(), "b".into()]));
        assert!(w.rows.is_empty());
        assert!(cmds.contains(&Cmd::Unwatch(TaskKey::new(TaskKind::Video, "b"))));
        assert!(w.undo().is_none());
    }

    #[test]
    fn polls_update_rows_and_notify_once_on_finish() {
        let mut w = Watch::new(vec![new_entry("t", TaskKind::Image, 0)], statuses());
        let key = TaskKey::new(TaskKind::Image, "t");
        let (cmds, changed) = w.polled(&key, Ok(result("t", "IN_PROGRESS", 40)), None, 100);
        assert!(changed);
        assert!(matches!(&cmds[..], [Cmd::Persist(PersistOp::Status(_, l))] if l.percent == 40));
        let (cmds, _) = w.polled(
            &key,
            Err(ApiError::Http {
                status: 502,
                excerpt: "bad".into(),
                retry_after: None,
            }),
            Some(Duration::from_secs(4)),
            101,
        );
        assert!(cmds.is_empty());
        assert_eq!(w.rows[0].error.as_deref(), Some("HTTP 502: bad"));
        assert_eq!(w.counts().erroring, 1);
        let (cmds, _) = w.polled(&key, Ok(result("t", "COMPLETED", 100)), None, 102);
        assert!(matches!(&cmds[0], Cmd::Notify { title, .. } if title.contains("completed")));
        assert_eq!(w.rows[0].state, TaskState::Completed);
        assert_eq!(w.rows[0].error, None);
        assert_eq!(w.rows[0].url(), Some("http://127.0.0.1:8787/files/t.png"));
        let (cmds, _) = w.polled(&key, Ok(result("t", "COMPLETED", 100)), None, 103);
        assert!(
            cmds.is_empty(),
            "no second notification, nothing to persist"
        );
        let c = w.counts();
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
        });
        let w = Watch::new(vec![done, new_entry("r", TaskKind::Image, 0)], statuses());
        assert_eq!(
            w.start_polling(),
            [Cmd::Watch(TaskKey::new(TaskKind::Image, "r"))]
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
        let (cmds, changed) = w.merge_external(&[
            new_entry("b", TaskKind::Image, 0),
            new_entry("c", TaskKind::Video, 0),
        ]);
        assert!(changed);
        assert_eq!(
            cmds,
            [
                Cmd::Unwatch(TaskKey::new(TaskKind::Image, "a")),
                Cmd::Watch(TaskKey::new(TaskKind::Video, "c"))
            ]
        );
        let ids: Vec<_> = w.rows.iter().map(|r| r.entry.task_id.as_str()).collect();
        assert_eq!(ids, ["b", "c"]);
        assert!(
            !w.merge_external(&[
                new_entry("b", TaskKind::Image, 0),
                new_entry("c", TaskKind::Video, 0)
            ])
            .1
        );
    }

    #[test]
    fn ages() {
        assert_eq!(age_label(100, 100), "0s");
        assert_eq!(age_label(100, 159), "59s");
        assert_eq!(age_label(0, 3599), "59m");
        assert_eq!(age_label(0, 7200), "2h");
        assert_eq!(age_label(0, 200_000), "2d");
        assert_eq!(age_label(500, 100), "0s");
    }
}
