//! Adding and removing tasks, as steps the user can undo.

use super::{Added, Changed, Row, Undo, Undone, Watch};
use crate::cmd::{Cmd, PersistOp, PollCmd, TaskKey};
use crate::store::watchlist::WatchEntry;

/// How many undo steps are kept.
const UNDO_DEPTH: usize = 50;

impl Watch {
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
}
