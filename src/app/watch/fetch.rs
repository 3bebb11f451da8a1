//! The commands that fetch a task's file (`A`'s choice of fetching it by itself is `end`'s).

use super::{Row, Watch};
use crate::cmd::{Cmd, DownloadJob, TaskKey};
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
