//! Unseen tasks: a task that finished (completed or failed) while watched is new (`●`) until
//! the user looks at it (the cursor on it in the watch pane, or its detail shown); `n` goes to
//! the next new one. Kept in the watch list file, so two dashboards and a restart agree.

use super::{Row, Watch};
use crate::app::effects::Effects;
use crate::app::keymap::Keymap;
use crate::cmd::{Cmd, PersistOp};
use crate::store::config::ActionName;

/// Row `row` finished while watched: new until looked at. The file records it with the
/// status (the saver marks an entry new when its status first turns finished there), so
/// there is no command of its own.
pub(super) fn finished(row: &mut Row) {
    if row.entry.seen.is_none() {
        row.entry.seen = Some(false);
    }
}

/// The user looked at the selected task (`looking`: the watch pane has the keys, or the
/// selected task's detail is on screen): it is no longer new.
pub fn look(watch: &mut Watch, looking: bool) -> Effects {
    if !looking {
        return Effects::none();
    }
    let Some(&i) = watch.order.get(watch.cursor.selected) else {
        return Effects::none();
    };
    let row = &mut watch.rows[i];
    if !row.entry.unseen() {
        return Effects::none();
    }
    row.entry.seen = Some(true);
    Effects::cmds(vec![Cmd::Persist(PersistOp::Seen(vec![row.key()]))]).redraw_if(true)
}

/// How many tasks are new.
pub fn count(watch: &Watch) -> usize {
    watch.rows.iter().filter(|r| r.entry.unseen()).count()
}

/// `n`: the cursor to the next new task shown after the selected one, from the top again
/// after the last; says so when there is none (or when the filter hides them).
pub fn next(watch: &mut Watch, keymap: &Keymap) -> Effects {
    let shown = watch.order.len();
    let from = watch.cursor.selected;
    let found = (1..=shown)
        .map(|step| (from + step) % shown)
        .find(|&at| watch.rows[watch.order[at]].entry.unseen());
    if let Some(at) = found {
        watch.select(at);
        return Effects::none().redraw_if(true);
    }
    let all = count(watch);
    if all == 0 {
        return Effects::say("no new task: each finished task has been seen");
    }
    Effects::say(format!(
        "{} hidden by the filter ({} clears it)",
        if all == 1 {
            "the new task is".to_string()
        } else {
            format!("the {} are", crate::fmt::count(all, "new task"))
        },
        keymap.key(ActionName::ClearFilter)
    ))
}

#[cfg(test)]
#[path = "unseen_tests.rs"]
mod tests;
