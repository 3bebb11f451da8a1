//! The archive view's reducer: its keys, its filter field, the archiver's reports and the
//! downloads started here. Every key a message names comes from the keymap.

use super::ArchiveView;
use crate::api::links::validate_link;
use crate::app::action::Action;
use crate::app::effects::{Effects, tasks};
use crate::app::keymap::Keymap;
use crate::app::watch::{DownloadView, Watch};
use crate::cmd::{ArchiveOp, Cmd, TaskKey};
use crate::msg::{ArchiveReport, DownloadEvent};
use crate::store::archive::ArchivedTask;
use crate::store::config::ActionName;

/// The view's keys (the watch list is where "watch again" puts a task back).
pub fn update(
    view: &mut ArchiveView,
    watch: &mut Watch,
    action: &Action,
    keymap: &Keymap,
    now: u64,
) -> Effects {
    // Every key here acts on the whole list.
    view.settle();
    let page = |v: usize| isize::try_from(v.max(1)).unwrap_or(isize::MAX);
    let fx = match action {
        Action::ToggleArchive => {
            view.close();
            Effects::none()
        }
        Action::Up => move_by(view, -1),
        Action::Down => move_by(view, 1),
        Action::PageUp => move_by(view, -page(view.cursor.viewport)),
        Action::PageDown => move_by(view, page(view.cursor.viewport)),
        Action::Top => move_by(view, -page(view.order.len())),
        Action::Bottom => move_by(view, page(view.order.len())),
        Action::FocusFilter => {
            view.editing = true;
            Effects::none()
        }
        Action::CycleSort => {
            let sort = view.cycle_sort();
            Effects::say(format!("archive sorted by {}", sort.label()))
        }
        Action::Open => match view.selected() {
            None => Effects::say(empty(view, keymap)),
            Some(t) => Effects::open(url(t), &no_file(t, "open")),
        },
        Action::CopyUrl => Effects::copy(view.selected().and_then(url), "download URL"),
        Action::CopyName => {
            Effects::copy(view.selected().map(|t| t.entry.task_id.clone()), "task ID")
        }
        Action::OpenFile => open_file(view, keymap),
        Action::Download => download(view, watch, keymap),
        Action::WatchAgain => watch_again(view, watch, keymap, now),
        Action::Remove => {
            let Some(t) = view.selected() else {
                return Effects::say(empty(view, keymap));
            };
            let id = t.id;
            view.drop_ids(&[id]);
            Effects::cmds(vec![Cmd::Archive(ArchiveOp::Delete(vec![id]))])
        }
        Action::Undo => match view.undo.pop() {
            None => Effects::say("nothing to undo in the archive"),
            Some(rows) => {
                let ids: Vec<String> = rows.iter().map(|t| t.entry.task_id.clone()).collect();
                Effects::cmds(vec![Cmd::Archive(ArchiveOp::Restore(rows))])
                    .with_notice(format!("restored {}", tasks(&ids)))
            }
        },
        _ => Effects::none(),
    };
    fx.and(Effects::cmd(view.want_detail()))
}

fn move_by(view: &mut ArchiveView, delta: isize) -> Effects {
    view.move_by(delta);
    Effects::none()
}

/// Typing in the filter: the rows follow every keystroke.
pub fn update_filter(view: &mut ArchiveView, action: Action) -> Effects {
    let mut query = view.query.clone();
    match action.edit_text(&mut query) {
        Ok(()) => {}
        Err(Action::PickPrevious) => view.move_by(-1),
        Err(Action::PickNext) => view.move_by(1),
        Err(Action::Submit | Action::Cancel) => {
            view.settle();
            view.editing = false;
            return Effects::none();
        }
        Err(_) => return Effects::none(),
    }
    if query != view.query {
        view.set_query(query);
    }
    Effects::cmd(view.want_detail())
}

/// The archiver's answer, or word that the archive changed.
pub fn report(view: &mut ArchiveView, report: ArchiveReport, keymap: &Keymap) -> Effects {
    match report {
        ArchiveReport::Listed(tasks, table) => {
            view.listed(tasks, table);
            let detail = if view.open { view.want_detail() } else { None };
            Effects::cmd(detail).redraw_if(view.open)
        }
        ArchiveReport::Got(id, task) => Effects::none().redraw_if(view.got(id, task.map(|t| *t))),
        ArchiveReport::Deleted(rows) => {
            if rows.is_empty() {
                return Effects::none();
            }
            let ids: Vec<String> = rows.iter().map(|t| t.entry.task_id.clone()).collect();
            view.undo.push(rows);
            Effects::say(format!(
                "deleted {} from the archive — {} undoes",
                tasks(&ids),
                keymap.key(ActionName::Undo)
            ))
        }
        ArchiveReport::Changed if view.open => Effects::cmds(vec![Cmd::Archive(ArchiveOp::Load)]),
        ArchiveReport::Changed => {
            view.loaded = false;
            Effects::none()
        }
        ArchiveReport::Failed(line) => {
            view.error = Some(line.clone());
            Effects::fail(line).redraw_if(true)
        }
    }
}

/// Whether a download's report is about a file the archive view asked for (who started a
/// download is decided in `watch::reducer::download`, which calls the three below).
pub fn downloading(view: &ArchiveView, key: &TaskKey) -> bool {
    view.downloads.contains_key(key)
}

/// A download started here progressed or ended: a saved file is recorded in the archive; a
/// file already there is named with the key that replaces it.
pub fn downloaded(
    view: &mut ArchiveView,
    key: &TaskKey,
    event: DownloadEvent,
    keymap: &Keymap,
) -> Effects {
    let Some((id, shown)) = view.downloads.get_mut(key) else {
        return Effects::none();
    };
    let id = *id;
    match event {
        DownloadEvent::WaitingForPreview => {
            *shown = DownloadView::Waiting;
            Effects::none().redraw_if(true)
        }
        DownloadEvent::Progress { done, total } => {
            *shown = DownloadView::Running { done, total };
            Effects::none().redraw_if(true)
        }
        DownloadEvent::Saved(path) => {
            let text = path.display().to_string();
            *shown = DownloadView::Saved(text.clone());
            Effects::cmds(vec![Cmd::Archive(ArchiveOp::Saved(id, text.clone()))])
                .with_notice(format!("saved {text}"))
                .redraw_if(true)
        }
        DownloadEvent::Exists(path) => {
            *shown = DownloadView::Failed(format!(
                "{} exists; {} replaces it",
                path.display(),
                keymap.key(ActionName::Download)
            ));
            Effects::none().redraw_if(true)
        }
        DownloadEvent::Failed(e) => {
            *shown = DownloadView::Failed(e.clone());
            Effects::fail(format!("download of {}: {e}", key.id)).redraw_if(true)
        }
    }
}

/// "overwrite …?" answered yes for a download started here: the file again, replacing it.
pub fn replace(view: &mut ArchiveView, watch: &Watch, key: &TaskKey) -> Option<Cmd> {
    let (id, shown) = view.downloads.get_mut(key)?;
    let task = view.tasks.iter().find(|t| t.id == *id)?;
    *shown = DownloadView::Running {
        done: 0,
        total: None,
    };
    crate::app::watch::fetch::entry_cmd(watch, &task.entry, true)
}

/// "overwrite …?" answered no: the task shows the file the archive knows of, as before.
pub fn kept(view: &mut ArchiveView, key: &TaskKey) {
    view.downloads.remove(key);
}

fn url(t: &ArchivedTask) -> Option<String> {
    t.entry.last.as_ref().and_then(|l| l.url_download.clone())
}

/// What a key about the selected task says when there is none.
fn empty(view: &ArchiveView, keymap: &Keymap) -> String {
    if view.query.trim().is_empty() {
        format!(
            "the archive is empty: a finished task removed from the watch list ({} there) \
             comes here",
            keymap.key(ActionName::Remove)
        )
    } else {
        "no archived task matches the filter".to_string()
    }
}

/// Why a task has no file to `verb`.
fn no_file(t: &ArchivedTask, verb: &str) -> String {
    format!("{} has no file to {verb}", t.entry.task_id)
}

/// `O`: the saved file, or what to press to save one.
fn open_file(view: &ArchiveView, keymap: &Keymap) -> Effects {
    let Some(t) = view.selected() else {
        return Effects::say(empty(view, keymap));
    };
    if let Some(path) = view.saved_file(t) {
        return Effects::cmds(vec![Cmd::OpenFile(path.into())]);
    }
    Effects::say(if url(t).is_some() {
        format!(
            "no file saved for {}: {} downloads it",
            t.entry.task_id,
            keymap.key(ActionName::Download)
        )
    } else {
        no_file(t, "open")
    })
}

/// `D`: the file again, as the watch list downloads it; the archive learns where it went.
fn download(view: &mut ArchiveView, watch: &Watch, keymap: &Keymap) -> Effects {
    let Some(t) = view.selected() else {
        return Effects::say(empty(view, keymap));
    };
    let Some(u) = url(t) else {
        return Effects::say(no_file(t, "download"));
    };
    if let Err(e) = validate_link(&u) {
        return Effects::say(e.to_string());
    }
    let (key, id) = (TaskKey::of(&t.entry), t.id);
    let cmd = crate::app::watch::fetch::entry_cmd(watch, &t.entry, false);
    let text = format!("downloading the file of {}", t.entry.task_id);
    view.downloads.insert(
        key,
        (
            id,
            DownloadView::Running {
                done: 0,
                total: None,
            },
        ),
    );
    Effects::cmd(cmd).with_notice(text)
}

/// `w`: the task back on the watch list and out of the archive; a task already watched stays
/// where it is.
fn watch_again(view: &mut ArchiveView, watch: &mut Watch, keymap: &Keymap, now: u64) -> Effects {
    let Some(t) = view.selected() else {
        return Effects::say(empty(view, keymap));
    };
    let id = t.entry.task_id.clone();
    if watch.rows.iter().any(|r| r.entry.task_id == id) {
        return Effects::say(format!("{id} is on the watch list already"));
    }
    let (row, entry) = (t.id, t.entry.clone());
    let added = crate::app::watch::undo::add(watch, vec![entry], now);
    view.drop_ids(&[row]);
    let mut cmds = added.cmds;
    cmds.push(Cmd::Archive(ArchiveOp::Unarchive(vec![row])));
    Effects::cmds(cmds).with_notice(format!(
        "{id} is on the watch list again ({} goes back to it)",
        keymap.key(ActionName::CloseArchive)
    ))
}
