//! Where a finished task's end is: not taken on yet, waiting for this dashboard's claim in the
//! watch list file, taken on here (its automatic download, then `on_complete`), or taken on by
//! another running dashboard. One value per row, so no two states can be said at once. `A`'s
//! choice of fetching a task's file by itself is made here too.

use super::{AutoDownload, Changed, DownloadView, Duties, End, Row, Stage, Watch};
use crate::api::types::TaskState;
use crate::app::effects::Effects;
use crate::cmd::{Cmd, Finished, PersistOp, TaskKey};
use crate::msg::DownloadEvent;

impl End {
    /// The duties waiting for the claim's answer.
    pub fn claiming(&self) -> Option<&Duties> {
        match self {
            End::Claiming(d) => Some(d),
            _ => None,
        }
    }

    /// The download under way was started by itself (`auto_download`, `A`), not by `D`.
    pub fn fetching_by_itself(&self) -> bool {
        matches!(self, End::Ours(Stage::Fetching { .. }))
    }

    /// The task's file is to be fetched by itself here, once the claim is answered.
    pub fn will_fetch(&self) -> bool {
        self.claiming().is_some_and(|d| d.download)
    }

    /// The hook waiting for a download's end, taken out: the end has nothing more to do.
    pub fn take_hook(&mut self) -> Option<Finished> {
        match std::mem::replace(self, End::Ours(Stage::Done)) {
            End::Ours(Stage::Fetching { hook }) => hook.map(|f| *f),
            End::Ours(Stage::HookWaits(f)) => Some(*f),
            other => {
                *self = other;
                None
            }
        }
    }
}

/// Whether the end of a task is still under way here: its claim unanswered, or taken on
/// and its download or `on_complete` not yet started. `on_all_done` waits for them.
pub fn ends_waiting(watch: &Watch) -> bool {
    watch.rows.iter().any(|r| {
        matches!(
            r.end,
            End::Claiming(_) | End::Ours(Stage::Fetching { .. } | Stage::HookWaits(_))
        )
    })
}

/// Whether `row`'s file is fetched by itself once completed: `A`'s choice for it, else
/// `auto_download`.
pub fn auto_for(watch: &Watch, row: &Row) -> bool {
    row.entry.auto_download.unwrap_or(watch.auto_download)
}

/// Whether row `i`'s file is to be fetched by itself now: completed, with a URL,
/// auto-download on, never saved, no download under way or failed.
fn wants_auto_download(watch: &Watch, i: usize) -> bool {
    let row = &watch.rows[i];
    row.state == TaskState::Completed
        && row.entry.saved.is_none()
        && row.download.is_none()
        && !row.no_service
        && row.url().is_some()
        && auto_for(watch, row)
}

/// The download of row `i`'s file, if it is to be fetched by itself now: its end is
/// then this dashboard's, fetching (a hook already waiting still waits).
pub(super) fn auto_download(watch: &mut Watch, i: usize) -> Option<Cmd> {
    let wanted = wants_auto_download(watch, i);
    // A claim under way decides whether the file is fetched here: its answer starts it.
    if let End::Claiming(duties) = &mut watch.rows[i].end {
        duties.download = wanted;
        return None;
    }
    let cmd = super::fetch::cmd(watch, &watch.rows[i], false).filter(|_| wanted)?;
    let row = &mut watch.rows[i];
    let hook = row.end.take_hook();
    row.end = End::Ours(Stage::Fetching {
        hook: hook.map(Box::new),
    });
    row.download = Some(DownloadView::Running {
        done: 0,
        total: None,
    });
    Some(cmd)
}

/// The downloads due at start (tasks that completed while gendash was closed), each
/// claimed first: another dashboard on the same data directory may be fetching it.
pub fn start_downloads(watch: &mut Watch) -> Effects {
    Effects::cmds(
        (0..watch.rows.len())
            .filter_map(|i| claim(watch, i, None))
            .collect(),
    )
}

/// Claims row `i`'s end in the watch list file when there is something to do for it (an
/// announcement, an automatic download): two dashboards on one data directory do each
/// once between them. What is to be done waits for the answer (`claimed`).
pub(super) fn claim(watch: &mut Watch, i: usize, announce: Option<Finished>) -> Option<Cmd> {
    let download = wants_auto_download(watch, i);
    let row = &mut watch.rows[i];
    if announce.is_none() && !download {
        return None;
    }
    match &mut row.end {
        End::Claiming(waiting) => {
            waiting.announce = waiting.announce.take().or(announce);
            waiting.download |= download;
            None
        }
        // A finish taken on here whose download is under way: announced after it.
        End::Ours(Stage::Fetching { hook }) if announce.is_some() => {
            *hook = hook.take().or(announce.map(Box::new));
            None
        }
        End::Theirs | End::Ours(Stage::Fetching { .. } | Stage::HookWaits(_)) => None,
        End::Open | End::Ours(Stage::Done) => {
            row.end = End::Claiming(Box::new(Duties { announce, download }));
            Some(Cmd::Persist(PersistOp::Claim(row.key())))
        }
    }
}

/// The finish waiting for `key`'s claim to be answered, if one does.
pub fn awaiting_announce(watch: &Watch, key: &TaskKey) -> Option<Finished> {
    let i = watch.position(key)?;
    watch.rows[i].end.claiming()?.announce.clone()
}

/// The answer to a claim: when this dashboard took the task's end on, the notification,
/// the automatic download and `on_complete` (after the download, with the saved file);
/// else nothing, and the row shows the other dashboard's file once it is saved. Redrawn
/// whatever the answer.
pub fn claimed(watch: &mut Watch, key: &TaskKey, won: bool) -> Effects {
    Effects::cmds(take_on(watch, key, won)).redraw_if(true)
}

/// The commands of `claimed`.
fn take_on(watch: &mut Watch, key: &TaskKey, won: bool) -> Vec<Cmd> {
    let Some(i) = watch.position(key) else {
        return Vec::new();
    };
    let duties = match std::mem::take(&mut watch.rows[i].end) {
        End::Claiming(duties) => duties,
        // Not waiting for this answer: its end stays where it is.
        other => {
            watch.rows[i].end = other;
            return Vec::new();
        }
    };
    if !won {
        watch.rows[i].end = End::Theirs;
        return Vec::new();
    }
    watch.rows[i].end = End::Ours(Stage::Done);
    let mut cmds: Vec<Cmd> = Vec::new();
    let download = if duties.download {
        auto_download(watch, i)
    } else {
        None
    };
    let row = &mut watch.rows[i];
    if let Some(mut finished) = duties.announce {
        // The hook waits for the download under way, its own or one the user started
        // (`D`), so `{file}` is the file.
        match &mut row.end {
            End::Ours(Stage::Fetching { hook }) => *hook = Some(Box::new(finished)),
            _ if row.download.as_ref().is_some_and(DownloadView::under_way) => {
                row.end = End::Ours(Stage::HookWaits(Box::new(finished)));
            }
            _ => {
                (finished.file, finished.no_file) = file_of(row, watch.auto_download);
                cmds.push(Cmd::Finished(finished));
            }
        }
    }
    cmds.extend(download);
    cmds
}

/// A download's progress or end: the commands (saving where the file went); a file
/// already there is kept, and the row says so.
pub fn download(watch: &mut Watch, key: &TaskKey, event: DownloadEvent) -> Effects {
    let Some(i) = watch.position(key) else {
        return Effects::none();
    };
    let row = &mut watch.rows[i];
    let mut cmds = Vec::new();
    let ended = !matches!(
        event,
        DownloadEvent::Progress { .. } | DownloadEvent::WaitingForPreview
    );
    row.download = Some(match event {
        DownloadEvent::WaitingForPreview => DownloadView::Waiting,
        DownloadEvent::Progress { done, total } => DownloadView::Running { done, total },
        DownloadEvent::Saved(p) => {
            let path = p.display().to_string();
            row.entry.saved = Some(path.clone());
            cmds.push(Cmd::Persist(PersistOp::Saved(row.key(), path.clone())));
            DownloadView::Saved(path)
        }
        DownloadEvent::Exists(p) => DownloadView::Kept(p.display().to_string()),
        DownloadEvent::Failed(e) => DownloadView::Failed(e),
    });
    if let Some(mut finished) = ended.then(|| row.end.take_hook()).flatten() {
        (finished.file, finished.no_file) = match &row.download {
            Some(DownloadView::Saved(path)) => (Some(path.into()), None),
            Some(DownloadView::Kept(path)) => (
                None,
                Some(format!("a file was already there, kept: {path}")),
            ),
            Some(DownloadView::Failed(why)) => (None, Some(format!("the download failed: {why}"))),
            _ => (None, Some("the download did not end".into())),
        };
        cmds.push(Cmd::Finished(finished));
    }
    Effects::cmds(cmds).redraw_if(true)
}

/// A download that did not start (the file is there and the user is asked): the row goes
/// back to what it knew before, its saved file if any, and a hook that waited for the
/// download runs now.
pub fn download_not_started(watch: &mut Watch, key: &TaskKey) -> Effects {
    let Some(i) = watch.position(key) else {
        return Effects::none();
    };
    let auto_download = watch.auto_download;
    let row = &mut watch.rows[i];
    let before = row.entry.saved.clone().map(DownloadView::Saved);
    let changed = std::mem::replace(&mut row.download, before) != row.download;
    let hook = row.end.take_hook().map(|mut finished| {
        (finished.file, finished.no_file) = file_of(row, auto_download);
        Cmd::Finished(finished)
    });
    Effects::cmd(hook).redraw_if(changed)
}

/// Row `i`'s choice set to `on`: saved, a failed download forgotten when turned on, and the
/// download started if it is due now.
fn choose(watch: &mut Watch, i: usize, on: bool, cmds: &mut Vec<Cmd>) -> String {
    let row = &mut watch.rows[i];
    row.entry.auto_download = Some(on);
    if on && matches!(row.download, Some(DownloadView::Failed(_))) {
        row.download = None;
    }
    cmds.push(Cmd::Persist(PersistOp::AutoDownload(row.key(), Some(on))));
    let id = row.entry.task_id.clone();
    cmds.extend(auto_download(watch, i));
    id
}

/// `A`: turns fetching by itself on or off for the selected task: its ID and the new choice;
/// the commands save the choice, and start the download if it is due now.
pub fn toggle_auto(watch: &mut Watch) -> Option<Changed<AutoDownload>> {
    let &i = watch.order.get(watch.cursor.selected)?;
    let on = !auto_for(watch, &watch.rows[i]);
    let mut cmds = Vec::new();
    let id = choose(watch, i, on, &mut cmds);
    Some(Changed {
        cmds,
        what: AutoDownload { ids: vec![id], on },
    })
}

/// `A` with tasks marked: fetching by itself turned on for every marked task, or off when it
/// is on for all of them already: their IDs and the new choice.
pub fn auto_marked(watch: &mut Watch) -> Changed<AutoDownload> {
    let marked: Vec<usize> = (0..watch.rows.len())
        .filter(|&i| watch.marked.contains(&watch.rows[i].key()))
        .collect();
    let on = !marked.iter().all(|&i| auto_for(watch, &watch.rows[i]));
    let mut cmds = Vec::new();
    let ids = marked
        .into_iter()
        .map(|i| choose(watch, i, on, &mut cmds))
        .collect();
    Changed {
        cmds,
        what: AutoDownload { ids, on },
    }
}

/// `on_complete`'s `{file}` for a row whose file is not being fetched: the saved file, or
/// why there is none (for the log).
fn file_of(row: &Row, auto_download: bool) -> (Option<std::path::PathBuf>, Option<String>) {
    let why = match &row.download {
        Some(DownloadView::Saved(path)) => return (Some(path.into()), None),
        Some(DownloadView::Kept(path)) => format!("a file was already there, kept: {path}"),
        Some(DownloadView::Failed(e)) => format!("its download failed: {e}"),
        None if row.state == TaskState::Failed => "the task failed".into(),
        None if row.url().is_none() => "the service gave no url_download".into(),
        None if !row.entry.auto_download.unwrap_or(auto_download) => {
            "auto_download is off for it".into()
        }
        _ => "it was not downloaded".into(),
    };
    (None, Some(why))
}
