//! The yes/no questions' reducers: replace a task's file (the download decides, see
//! `watch::download`, for the watch list's and the archive view's), remove every completed task.

use super::action::Action;
use super::archive_view::ArchiveView;
use super::effects::Effects;
use super::keymap::Keymap;
use super::popup::{Confirm, Popup, Then};
use super::watch::Watch;
use super::watch::reducer::{self as watch, Download};

/// "overwrite …?": `y` replaces the file (a download that may overwrite), `n` or Esc keeps it.
pub fn update(
    popup: &mut Option<Popup>,
    watch: &mut Watch,
    archive: &mut ArchiveView,
    action: &Action,
    keymap: &Keymap,
) -> Effects {
    let Some(Popup::Confirm(Confirm {
        then: Then::Replace(key),
        ..
    })) = popup
    else {
        return Effects::none();
    };
    let key = key.clone();
    let yes = match action {
        Action::Submit => true,
        Action::Cancel => false,
        _ => return Effects::none(),
    };
    *popup = None;
    watch::download(
        watch,
        archive,
        popup,
        keymap,
        Download::Overwrite { key, yes },
    )
}

/// "remove the completed tasks?": `y` removes every completed task (one undo brings them
/// back), `n` keeps them.
pub fn remove_completed(
    popup: &mut Option<Popup>,
    watch: &mut Watch,
    action: &Action,
    keymap: &Keymap,
    now: u64,
) -> Effects {
    match action {
        Action::Submit => {
            *popup = None;
            let keys = watch.completed();
            watch::remove(watch, &keys, keymap, now)
        }
        Action::Cancel => {
            *popup = None;
            Effects::say("kept the completed tasks")
        }
        _ => Effects::none(),
    }
}

#[cfg(test)]
#[path = "confirm_tests.rs"]
mod tests;
