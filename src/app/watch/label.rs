//! Labels: the user's name for a task, set when adding (`watch add --label`, the add
//! dialog's label field) or later with the label key (the add dialog, its label field only);
//! what another process changed in the file (labels, seen marks) is taken on.

use super::{Changed, Watch, order};
use crate::app::effects::{Effects, tasks};
use crate::app::keymap::Keymap;
use crate::app::popup::{AddDialog, Popup};
use crate::cmd::{Cmd, PersistOp, TaskKey};
use crate::store::config::ActionName;
use crate::store::watchlist::{WatchEntry, clean_label};

/// The label key: the dialog that edits the label of the marked tasks, or the selected one,
/// holding the label they share (if they do).
pub fn edit(watch: &Watch, popup: &mut Option<Popup>, keymap: &Keymap) -> Effects {
    let keys = watch.targets();
    if keys.is_empty() {
        return Effects::say(format!(
            "no task selected: the watch list is empty ({} adds tasks)",
            keymap.key(ActionName::Add)
        ));
    }
    let labels: Vec<Option<&String>> = keys
        .iter()
        .filter_map(|k| watch.rows.iter().find(|r| r.key() == *k))
        .map(|r| r.entry.label.as_ref())
        .collect();
    let shared = match labels.split_first() {
        Some((first, rest)) if rest.iter().all(|l| l == first) => first.cloned(),
        _ => None,
    };
    *popup = Some(Popup::Add(AddDialog::relabel(
        keys,
        shared.unwrap_or_default(),
    )));
    Effects::none()
}

/// Sets (or, `None`, clears) the label of the tasks `keys`: the IDs of those changed.
pub fn set(
    watch: &mut Watch,
    keys: &[TaskKey],
    label: Option<String>,
    now: u64,
) -> Changed<Vec<String>> {
    let mut ids = Vec::new();
    for row in watch.rows.iter_mut().filter(|r| keys.contains(&r.key())) {
        if row.entry.label != label {
            row.entry.label.clone_from(&label);
            ids.push(row.entry.task_id.clone());
        }
    }
    let cmds = if ids.is_empty() {
        Vec::new()
    } else {
        vec![Cmd::Persist(PersistOp::Label(keys.to_vec(), label))]
    };
    // A filter may match the label.
    if !watch.query.trim().is_empty() {
        order::reorder(watch, now);
    }
    Changed { cmds, what: ids }
}

/// The label dialog's Enter: the label typed (cleaned; empty clears it) on the tasks `keys`.
pub fn save(watch: &mut Watch, keys: &[TaskKey], text: &str, now: u64) -> Effects {
    let label = clean_label(text);
    let Changed { cmds, what: ids } = set(watch, keys, label.clone(), now);
    let named: Vec<String> = keys.iter().map(|k| k.id.clone()).collect();
    let text = match (&label, ids.is_empty()) {
        (_, true) => format!("the label of {} is unchanged", tasks(&named)),
        (Some(l), false) => format!("labelled {} \"{l}\"", tasks(&ids)),
        (None, false) => format!("cleared the label of {}", tasks(&ids)),
    };
    Effects::cmds(cmds).with_notice(text).redraw_if(true)
}

/// Labels and seen marks another process saved (the file is the truth once every change of
/// this dashboard is in it): whether any row changed.
pub(super) fn take_marks(watch: &mut Watch, entries: &[WatchEntry]) -> bool {
    let mut changed = false;
    for e in entries {
        // By the index, not a scan: this runs for every entry of every list the saver sends.
        let Some(i) = watch.position(&TaskKey::of(e)) else {
            continue;
        };
        let row = &mut watch.rows[i];
        if row.entry.label != e.label {
            row.entry.label.clone_from(&e.label);
            changed = true;
        }
        if row.entry.seen != e.seen && e.seen.is_some() {
            row.entry.seen = e.seen;
            changed = true;
        }
    }
    changed
}
