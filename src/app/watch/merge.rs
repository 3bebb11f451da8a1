//! Merging the watch list file that other processes (another dashboard, `gendash watch`)
//! wrote: tasks they added or removed, files they saved, labels and marks.

use super::{DownloadView, Row, Watch, label, order, poll};
use crate::api::types::TaskKind;
use crate::app::effects::Effects;
use crate::cmd::{Cmd, PollCmd, TaskKey};
use crate::store::watchlist::WatchEntry;
use std::collections::HashSet;

/// Files that another dashboard saved (it claimed the task's end): the rows show them unless
/// a download of their own is under way. Returns whether any row changed.
fn take_saved(watch: &mut Watch, entries: &[WatchEntry]) -> bool {
    let saved: std::collections::HashMap<TaskKey, &String> = entries
        .iter()
        .filter_map(|e| Some((TaskKey::of(e), e.saved.as_ref()?)))
        .collect();
    if saved.is_empty() {
        return false;
    }
    let mut changed = false;
    for row in &mut watch.rows {
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

/// Brings the rows in line with the saved list after another process changed it: new
/// entries are added and polled, vanished ones removed.
pub fn external(watch: &mut Watch, entries: &[WatchEntry], now: u64) -> Effects {
    let mut cmds = Vec::new();
    let before = watch.rows.len();
    let selected = watch.selected_row().map(Row::key);
    // A set, not a scan per row: the saver sends the whole list after each write, and a scan
    // made every merge of 1,000 tasks a million key comparisons.
    let listed: HashSet<(TaskKind, &str)> = entries
        .iter()
        .map(|e| (e.kind, e.task_id.as_str()))
        .collect();
    let is_listed = |r: &Row| listed.contains(&(r.entry.kind, r.entry.task_id.as_str()));
    let gone: Vec<TaskKey> = watch
        .rows
        .iter()
        .filter(|r| !is_listed(r))
        .map(Row::key)
        .collect();
    if !gone.is_empty() {
        watch.rows.retain(is_listed);
        // `position` (below, and in `take_marks`) finds rows by the index.
        watch.rows_changed();
    }
    for k in &gone {
        watch.marked.remove(k);
    }
    cmds.extend(gone.iter().cloned().map(|k| Cmd::Poll(PollCmd::Unwatch(k))));
    let mut added = 0;
    for e in entries {
        if watch.position(&TaskKey::of(e)).is_none() {
            let mut e = e.clone();
            if e.service.is_none() && !watch.services.current.is_empty() {
                e.service = Some(watch.services.current.clone());
            }
            let row = Row::new(e, &watch.failure_statuses, &watch.services);
            cmds.extend(poll::cmd(watch, &row));
            watch.rows.push(row);
            added += 1;
        }
    }
    if added > 0 {
        watch.rows_changed();
    }
    let saved_elsewhere = take_saved(watch, entries);
    let relabelled = label::take_marks(watch, entries);
    let changed = !gone.is_empty()
        || added > 0
        || before != watch.rows.len()
        || saved_elsewhere
        || relabelled;
    if changed {
        watch.rows_changed();
        order::reorder_keeping(watch, selected, now);
    }
    Effects::cmds(cmds).redraw_if(changed)
}
