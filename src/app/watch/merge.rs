//! Merging the watch list file that other processes (another dashboard, `gendash watch`)
//! wrote: tasks they added or removed, files they saved, labels and marks.

use super::{DownloadView, Row, Watch, label};
use crate::api::types::TaskKind;
use crate::app::effects::Effects;
use crate::cmd::{Cmd, PollCmd, TaskKey};
use crate::store::watchlist::WatchEntry;
use std::collections::HashSet;

impl Watch {
    /// Files that another dashboard saved (it claimed the task's end): the rows show them
    /// unless a download of their own is under way. Returns whether any row changed.
    fn take_saved(&mut self, entries: &[WatchEntry]) -> bool {
        let saved: std::collections::HashMap<TaskKey, &String> = entries
            .iter()
            .filter_map(|e| Some((TaskKey::of(e), e.saved.as_ref()?)))
            .collect();
        if saved.is_empty() {
            return false;
        }
        let mut changed = false;
        for row in &mut self.rows {
            let Some(&path) = saved.get(&row.key()) else {
                continue;
            };
            if row.entry.saved.as_ref() != Some(path)
                && !row.download.as_ref().is_some_and(DownloadView::under_way)
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
        // A set, not a scan per row: the saver sends the whole list after each write, and a
        // scan made every merge of 1,000 tasks a million key comparisons.
        let listed: HashSet<(TaskKind, &str)> = entries
            .iter()
            .map(|e| (e.kind, e.task_id.as_str()))
            .collect();
        let is_listed = |r: &Row| listed.contains(&(r.entry.kind, r.entry.task_id.as_str()));
        let gone: Vec<TaskKey> = self
            .rows
            .iter()
            .filter(|r| !is_listed(r))
            .map(Row::key)
            .collect();
        if !gone.is_empty() {
            self.rows.retain(is_listed);
            // `position` (below, and in `take_marks`) finds rows by the index.
            self.rows_changed();
        }
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
        if added > 0 {
            self.rows_changed();
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
