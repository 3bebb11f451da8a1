//! Adding and removing tasks, as steps the user can undo.

use super::{Added, Changed, Row, Undo, Undone, Watch, order, poll};
use crate::cmd::{Cmd, PersistOp, PollCmd, TaskKey};
use crate::store::watchlist::WatchEntry;

/// How many undo steps are kept.
const UNDO_DEPTH: usize = 50;

fn push(watch: &mut Watch, u: Undo) {
    watch.undo.push(u);
    if watch.undo.len() > UNDO_DEPTH {
        watch.undo.remove(0);
    }
}

/// Adds tasks not already listed: the keys added and how many were skipped as already
/// watched (or given twice).
pub fn add(watch: &mut Watch, entries: Vec<WatchEntry>, now: u64) -> Changed<Added> {
    let given = entries.len();
    let current = (!watch.services.current.is_empty()).then(|| watch.services.current.clone());
    let fresh: Vec<WatchEntry> = entries
        .into_iter()
        .map(|mut e| {
            e.service = e.service.or_else(|| current.clone());
            e
        })
        // An ID is one task whichever kind: never watched as both.
        .filter(|e| !watch.rows.iter().any(|r| r.entry.task_id == e.task_id))
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
        .map(|e| Row::new(e, &watch.failure_statuses, &watch.services))
        .collect();
    cmds.extend(rows.iter().filter_map(|r| poll::cmd(watch, r)));
    watch.rows.extend(rows);
    watch.rows_changed();
    order::reorder(watch, now);
    // The newest shown of those added (a filter may hide them).
    order::select_one_of(watch, &keys, true);
    push(watch, Undo::Added(keys.clone()));
    Changed {
        cmds,
        what: Added { keys, skipped },
    }
}

/// Removes the selected task: its ID.
pub fn remove_selected(watch: &mut Watch, now: u64) -> Changed<Option<String>> {
    let keys: Vec<TaskKey> = watch.selected_row().map(Row::key).into_iter().collect();
    let Changed { cmds, what: ids } = remove(watch, &keys, now);
    Changed {
        cmds,
        what: ids.into_iter().next(),
    }
}

/// Removes the tasks `keys` as one step of undo; returns the commands and their IDs.
pub fn remove(watch: &mut Watch, keys: &[TaskKey], now: u64) -> Changed<Vec<String>> {
    let mut removed = Vec::new();
    let mut at = 0;
    // Their places in the list as it was, in order, so an undo puts each back where it was.
    watch.rows.retain(|r| {
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
    watch.rows_changed();
    let keys: Vec<TaskKey> = removed.iter().map(|(_, e)| TaskKey::of(e)).collect();
    let ids = removed.iter().map(|(_, e)| e.task_id.clone()).collect();
    for k in &keys {
        watch.marked.remove(k);
    }
    push(watch, Undo::Removed(removed));
    // Keep the cursor at the same place in the list rather than on the same task.
    let at = watch.cursor.selected;
    order::reorder_keeping(watch, None, now);
    watch.cursor.selected = at;
    watch.scroll_into_view();
    let mut cmds: Vec<Cmd> = keys
        .iter()
        .cloned()
        .map(|k| Cmd::Poll(PollCmd::Unwatch(k)))
        .collect();
    cmds.push(Cmd::Persist(PersistOp::Remove(keys)));
    Changed { cmds, what: ids }
}

/// Reverts the last add or remove; says what it did.
pub fn revert_last(watch: &mut Watch, now: u64) -> Option<Changed<Undone>> {
    match watch.undo.pop()? {
        Undo::Removed(items) => {
            let mut cmds = Vec::new();
            let mut restored = Vec::new();
            for (at, entry) in items {
                if watch.position(&TaskKey::of(&entry)).is_some() {
                    continue;
                }
                let row = Row::new(entry.clone(), &watch.failure_statuses, &watch.services);
                cmds.extend(poll::cmd(watch, &row));
                let at = at.min(watch.rows.len());
                watch.rows.insert(at, row);
                watch.rows_changed();
                restored.push(entry);
            }
            let ids: Vec<String> = restored.iter().map(|e| e.task_id.clone()).collect();
            let keys: Vec<TaskKey> = restored.iter().map(TaskKey::of).collect();
            cmds.insert(0, Cmd::Persist(PersistOp::Add(restored)));
            order::reorder(watch, now);
            order::select_one_of(watch, &keys, false);
            Some(Changed {
                cmds,
                what: Undone::Restored(ids),
            })
        }
        Undo::Added(keys) => {
            let selected = watch.selected_row().map(Row::key);
            watch.rows.retain(|r| !keys.contains(&r.key()));
            watch.rows_changed();
            watch.marked.retain(|k| !keys.contains(k));
            order::reorder_keeping(watch, selected, now);
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
