//! The watch pane's reducer: its keys, its filter field, and the reports about its tasks that
//! need more than the list (a download's end, a service that cannot be used, a failed hook).
//! Who started a download (the watch list or the archive view) and whether to ask before
//! replacing a file is decided in one place, `download`.

use super::{Changed, DownloadView, Row, Undone, Watch, end, fetch, order, service, undo};
use crate::api::TaskState;
use crate::api::links::validate_link;
use crate::app::action::Action;
use crate::app::archive_view::{ArchiveView, reducer as archived};
use crate::app::effects::{Effects, tasks};
use crate::app::keymap::Keymap;
use crate::app::popup::{Confirm, Popup, Then};
use crate::cmd::{Cmd, PollCmd, TaskKey};
use crate::msg::DownloadEvent;
use crate::store::config::ActionName;

/// The watch pane's keys (the popup is the one they may open, `now` the reducers' clock).
pub fn update(
    watch: &mut Watch,
    popup: &mut Option<Popup>,
    action: &Action,
    keymap: &Keymap,
    now: u64,
) -> Effects {
    match action {
        Action::Remove => {
            let keys = watch.targets();
            remove(watch, &keys, keymap, now)
        }
        Action::ToggleMark => match watch.toggle_mark() {
            None => Effects::say(no_task(keymap)),
            Some(_) => Effects::none(),
        },
        Action::RemoveCompleted => {
            let count = watch.completed().len();
            if count == 0 {
                return Effects::say("no completed task to remove");
            }
            *popup = Some(Popup::RemoveCompleted { count });
            Effects::none()
        }
        Action::Undo => {
            let Some(Changed { cmds, what: undone }) = undo::revert_last(watch, now) else {
                return Effects::say("nothing to undo");
            };
            Effects::cmds(cmds).with_notice(match undone {
                Undone::Restored(ids) if ids.is_empty() => {
                    "nothing to restore: those tasks are on the list again".to_string()
                }
                Undone::Restored(ids) => format!("restored {}", tasks(&ids)),
                Undone::TookBack(ids) => format!("took back {}", tasks(&ids)),
            })
        }
        Action::FocusFilter => {
            watch.editing = true;
            Effects::none()
        }
        Action::Cancel => clear_filter_or_marks(watch, now),
        Action::CycleSort => {
            let sort = order::cycle_sort(watch, now);
            Effects::cmds(vec![Cmd::RememberSort(sort.label().to_string())])
                .with_notice(format!("sorted by {}", sort.label()))
        }
        Action::PollNow => {
            let Some(r) = watch.selected_row() else {
                return Effects::say(no_task(keymap));
            };
            let text = format!("asking the service for {} now", r.entry.task_id);
            Effects::cmds(vec![Cmd::Poll(PollCmd::PollNow(r.key()))]).with_notice(text)
        }
        Action::Open => {
            let (url, missing) = match watch.selected_row() {
                Some(r) => (r.url().map(str::to_string), no_file(r, "open")),
                None => (None, no_task(keymap)),
            };
            Effects::open(url, &missing)
        }
        Action::OpenFile => open_file(watch, keymap),
        Action::CopyUrl => {
            let url = watch
                .selected_row()
                .and_then(|r| r.url())
                .map(str::to_string);
            Effects::copy(url, "download URL")
        }
        Action::CopyName => {
            let id = watch.selected_row().map(|r| r.entry.task_id.clone());
            Effects::copy(id, "task ID")
        }
        Action::Download => download_asked(watch, keymap),
        Action::ToggleAutoDownload => toggle_auto_download(watch, keymap),
        Action::NextUnseen => super::unseen::next(watch, keymap),
        Action::EditLabel => super::label::edit(watch, popup, keymap),
        _ => Effects::none(),
    }
}

/// Typing in the watch list's filter: the rows follow every keystroke (a list of tasks is
/// small enough to filter on the spot).
pub fn update_filter(watch: &mut Watch, action: Action, now: u64) -> Effects {
    let mut query = watch.query.clone();
    match action.edit_text(&mut query) {
        Ok(()) => {}
        // As in the browser: the field is left, the filter stays (Esc in the pane clears it).
        Err(Action::Submit | Action::Cancel) => {
            watch.editing = false;
            return Effects::none();
        }
        Err(_) => return Effects::none(),
    }
    if query != watch.query {
        order::set_query(watch, query, now);
    }
    Effects::none()
}

/// A step of a download after it started, as `download` decides it.
#[derive(Debug)]
pub enum Download {
    /// The answer to "overwrite …?": `yes` replaces the file of task `key`.
    Overwrite { key: TaskKey, yes: bool },
    /// The downloader's report on task `key`'s file.
    Event { key: TaskKey, event: DownloadEvent },
}

/// `D` in the watch list: the files of the marked tasks, or the selected task's (the user's,
/// never replacing a file; the archive view starts its own, see `archive_view::reducer`).
fn download_asked(watch: &Watch, keymap: &Keymap) -> Effects {
    if !watch.marked.is_empty() {
        return download_marked(watch);
    }
    let Some(r) = watch.selected_row() else {
        return Effects::say(no_task(keymap));
    };
    let Some(url) = r.url() else {
        return Effects::say(no_file(r, "download"));
    };
    if let Err(e) = validate_link(url) {
        return Effects::say(e.to_string());
    }
    // The row shows the progress; the status bar says where the file went.
    Effects::cmd(fetch::cmd(watch, r, false))
}

/// Every decision about a started download the user sees, in one place, for the watch list's
/// and the archive view's alike. Who started it: the archive view when it holds the task among
/// its downloads, else the watch list's row. A file already there asks the user only when the
/// user started the download (`D` in either; an automatic download says `D replaces it` on its
/// row) and nothing else is asked; the answer replaces the file or keeps it (the task shows its
/// file as before); a saved file is named in full, a failure is an error.
pub fn download(
    watch: &mut Watch,
    archive: &mut ArchiveView,
    popup: &mut Option<Popup>,
    keymap: &Keymap,
    step: Download,
) -> Effects {
    let (Download::Overwrite { key, .. } | Download::Event { key, .. }) = &step;
    let archived = archived::downloading(archive, key);
    match step {
        Download::Overwrite { key, yes: true } => {
            let cmd = if archived {
                archived::replace(archive, watch, &key)
            } else {
                let row = watch.rows.iter().find(|r| r.key() == key);
                row.and_then(|r| fetch::cmd(watch, r, true))
            };
            Effects::cmd(cmd)
                .with_notice(format!("replacing the file of {}", key.id))
                .redraw_if(archived)
        }
        Download::Overwrite { key, yes: false } => {
            if archived {
                archived::kept(archive, &key);
            }
            Effects::say(format!("kept the file; {} not downloaded", key.id)).redraw_if(archived)
        }
        Download::Event { key, event } => {
            let by_user = archived
                || watch
                    .rows
                    .iter()
                    .find(|r| r.key() == key)
                    .is_some_and(|r| !r.end.fetching_by_itself());
            match &event {
                DownloadEvent::Exists(path) if by_user && popup.is_none() => {
                    *popup = Some(Popup::Confirm(Confirm {
                        question: format!("overwrite {}?", path.display()),
                        then: Then::Replace(key.clone()),
                    }));
                    // Nothing went wrong: the row stays as it was (`saved …`) whatever the
                    // answer; the archive's task says the file is there until it is answered.
                    if archived {
                        return archived::downloaded(archive, &key, event, keymap);
                    }
                    return end::download_not_started(watch, &key);
                }
                _ if archived => return archived::downloaded(archive, &key, event, keymap),
                _ => {}
            }
            let said = match &event {
                DownloadEvent::Failed(e) => Effects::fail(format!("download of {}: {e}", key.id)),
                DownloadEvent::Saved(path) => Effects::say(format!("saved {}", path.display())),
                _ => Effects::none(),
            };
            said.and(end::download(watch, &key, event))
        }
    }
}

/// `D` with tasks marked: each marked task's file that can be fetched; the others named.
fn download_marked(watch: &Watch) -> Effects {
    let mut cmds = Vec::new();
    let mut without = Vec::new();
    for key in watch.targets() {
        let Some(r) = watch.rows.iter().find(|r| r.key() == key) else {
            continue;
        };
        match r.url().map(validate_link) {
            Some(Ok(_)) => cmds.extend(fetch::cmd(watch, r, false)),
            _ => without.push(r.entry.task_id.clone()),
        }
    }
    let fetched = crate::fmt::count(cmds.len(), "task");
    let text = match (cmds.len(), without.is_empty()) {
        (0, _) => format!("no file to download for {}", tasks(&without)),
        (_, true) => format!("downloading the files of {fetched}"),
        (_, false) => format!(
            "downloading the files of {fetched}; none yet for {}",
            tasks(&without)
        ),
    };
    Effects::cmds(cmds).with_notice(text)
}

/// `A`: the selected task's file downloaded by itself when it completes, or not (every marked
/// task's, when tasks are marked).
fn toggle_auto_download(watch: &mut Watch, keymap: &Keymap) -> Effects {
    if !watch.marked.is_empty() {
        let Changed { cmds, what } = end::auto_marked(watch);
        let ids = tasks(&what.ids);
        return Effects::cmds(cmds).with_notice(if what.on {
            format!("{ids}: each file is downloaded when it completes")
        } else {
            format!("{ids}: no automatic download")
        });
    }
    let Some(Changed { cmds, what }) = end::toggle_auto(watch) else {
        return Effects::say(no_task(keymap));
    };
    let id = tasks(&what.ids);
    Effects::cmds(cmds).with_notice(if what.on {
        format!("{id}: its file is downloaded when it completes")
    } else {
        format!("{id}: no automatic download")
    })
}

/// Esc in the watch pane: clears the filter; with none, unmarks the marked tasks.
fn clear_filter_or_marks(watch: &mut Watch, now: u64) -> Effects {
    if !watch.query.is_empty() {
        order::set_query(watch, String::new(), now);
    } else if !watch.marked.is_empty() {
        watch.marked.clear();
        return Effects::say("no task marked");
    }
    Effects::none()
}

/// Removes the tasks `keys` (one step of undo) and says which, and how to undo it.
pub fn remove(watch: &mut Watch, keys: &[TaskKey], keymap: &Keymap, now: u64) -> Effects {
    let Changed { cmds, what: ids } = undo::remove(watch, keys, now);
    let fx = Effects::cmds(cmds);
    if ids.is_empty() {
        return fx;
    }
    let undo = keymap.key(ActionName::Undo);
    fx.with_notice(format!("removed {} — {undo} undoes", tasks(&ids)))
}

/// What a key about the selected task says on an empty watch list.
fn no_task(keymap: &Keymap) -> String {
    format!(
        "no task selected: the watch list is empty ({} adds tasks)",
        keymap.key(ActionName::Add)
    )
}

/// Why a task has no file to `verb` ("open", "download"): it failed, or has no URL (yet).
fn no_file(row: &Row, verb: &str) -> String {
    let id = &row.entry.task_id;
    match row.state {
        TaskState::Failed => format!("{id} failed: no file to {verb}"),
        TaskState::Completed => format!("{id} finished without a file to {verb}"),
        TaskState::Running => format!("{id} has no download URL yet"),
    }
}

/// `O`: the selected task's saved file, or what to press to save one.
fn open_file(watch: &Watch, keymap: &Keymap) -> Effects {
    let Some(r) = watch.selected_row() else {
        return Effects::say(no_task(keymap));
    };
    let saved = match &r.download {
        Some(DownloadView::Saved(path)) => Some(path.clone()),
        _ => r.entry.saved.clone(),
    };
    if let Some(path) = saved {
        return Effects::cmds(vec![Cmd::OpenFile(path.into())]);
    }
    Effects::say(if r.url().is_some() {
        format!(
            "no file saved for {}: {} downloads it",
            r.entry.task_id,
            keymap.key(ActionName::Download)
        )
    } else {
        no_file(r, "open")
    })
}

/// A configured service whose client could not be made: its tasks show `no service`, with
/// why, and are not polled.
pub fn service_unusable(watch: &mut Watch, service: String, error: String) -> Effects {
    let mut services = watch.services.clone();
    let name = services.name(&service);
    let text = format!("service {name}: {error}");
    services.unusable.insert(service, error);
    service::set(watch, services)
        .and(Effects::fail(text))
        .redraw_if(true)
}

/// Says that `on_complete` failed, once: a hook failing for every task must not bury the
/// other errors (later failures go to the log).
pub fn hook_failed(watch: &mut Watch, why: &str) -> Effects {
    if watch.hook_failed {
        return Effects::none();
    }
    watch.hook_failed = true;
    Effects::fail(format!("{why} (later failures go to the log only)")).redraw_if(true)
}

#[cfg(test)]
#[path = "reducer_tests.rs"]
mod tests;
