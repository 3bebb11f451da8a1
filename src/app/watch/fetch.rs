//! The commands that fetch a task's file, and `A`'s choice of fetching it by itself.

use super::{AutoDownload, Changed, DownloadView, Row, Watch, end};
use crate::cmd::{Cmd, DownloadJob, PersistOp, TaskKey};
use crate::store::sidecar::Provenance;
use crate::store::watchlist::WatchEntry;

/// The command that fetches `row`'s file with its service's token.
pub fn cmd(watch: &Watch, row: &Row, force: bool) -> Option<Cmd> {
    let mut job = job(watch, &row.entry, force)?;
    job.provenance.reported = row.reported.as_deref().cloned();
    Some(Cmd::Download(job))
}

/// The job that fetches `entry`'s file with its service's token, with what the provenance
/// file (`sidecar`) says of it: the watch list's rows and the archive's build theirs here.
pub fn job(watch: &Watch, entry: &WatchEntry, force: bool) -> Option<DownloadJob> {
    let url = entry.last.as_ref()?.url_download.clone()?;
    let service = watch.services.of(entry.service.as_deref());
    // A profile's name, not a host's.
    let profile = (watch.services.names.get(service))
        .filter(|name| **name != crate::app::services::host_label(service))
        .cloned();
    Some(DownloadJob {
        key: TaskKey::of(entry),
        url,
        service: watch.services.route(service),
        status: entry
            .last
            .as_ref()
            .map(|l| l.status.clone())
            .unwrap_or_default(),
        force,
        label: entry.label.clone(),
        provenance: Box::new(Provenance::of_entry(entry, service, profile)),
    })
}

/// The command that fetches an entry's file that is not a row (an archived task's), as `cmd`
/// builds it for a row.
pub fn entry_cmd(watch: &Watch, entry: &WatchEntry, force: bool) -> Option<Cmd> {
    let row = Row::new(entry.clone(), &watch.failure_statuses, &watch.services);
    cmd(watch, &row, force)
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
    cmds.extend(end::auto_download(watch, i));
    id
}

/// `A`: turns fetching by itself on or off for the selected task: its ID and the new choice;
/// the commands save the choice, and start the download if it is due now.
pub fn toggle_auto(watch: &mut Watch) -> Option<Changed<AutoDownload>> {
    let &i = watch.order.get(watch.cursor.selected)?;
    let on = !end::auto_for(watch, &watch.rows[i]);
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
    let on = !marked.iter().all(|&i| end::auto_for(watch, &watch.rows[i]));
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
