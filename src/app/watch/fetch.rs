//! The commands that fetch a task's file, and `A`'s choice of fetching it by itself.

use super::{AutoDownload, Changed, DownloadView, Row, Watch};
use crate::cmd::{Cmd, DownloadJob, PersistOp, TaskKey};
use crate::store::sidecar::Provenance;
use crate::store::watchlist::WatchEntry;

impl Watch {
    /// The command that fetches row's file with its service's token.
    pub fn download_cmd(&self, row: &Row, force: bool) -> Option<Cmd> {
        let mut job = self.download_job(&row.entry, force)?;
        job.provenance.reported = row.reported.as_deref().cloned();
        Some(Cmd::Download(job))
    }

    /// The job that fetches `entry`'s file with its service's token, with what the provenance
    /// file (`sidecar`) says of it: the watch list's rows and the archive's build theirs here.
    pub fn download_job(&self, entry: &WatchEntry, force: bool) -> Option<DownloadJob> {
        let url = entry.last.as_ref()?.url_download.clone()?;
        let service = self.services.of(entry.service.as_deref());
        // A profile's name, not a host's.
        let profile = (self.services.names.get(service))
            .filter(|name| **name != crate::app::services::host_label(service))
            .cloned();
        Some(DownloadJob {
            key: TaskKey::of(entry),
            url,
            service: self.services.route(service),
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

    /// The command that fetches an entry's file that is not a row (an archived task's), as
    /// `download_cmd` builds it for a row.
    pub fn entry_download_cmd(&self, entry: &WatchEntry, force: bool) -> Option<Cmd> {
        let row = Row::new(entry.clone(), &self.failure_statuses, &self.services);
        self.download_cmd(&row, force)
    }

    /// `A`: turns fetching by itself on or off for the selected task: its ID and the new choice;
    /// the commands save the choice, and start the download if it is due now.
    pub fn toggle_auto_download(&mut self) -> Option<Changed<AutoDownload>> {
        let &i = self.order.get(self.cursor.selected)?;
        let on = !self.auto_for(&self.rows[i]);
        let row = &mut self.rows[i];
        row.entry.auto_download = Some(on);
        if on && matches!(row.download, Some(DownloadView::Failed(_))) {
            row.download = None;
        }
        let mut cmds = vec![Cmd::Persist(PersistOp::AutoDownload(row.key(), Some(on)))];
        let id = row.entry.task_id.clone();
        cmds.extend(self.auto_download(i));
        Some(Changed {
            cmds,
            what: AutoDownload { ids: vec![id], on },
        })
    }

    /// `A` with tasks marked: fetching by itself turned on for every marked task, or off when
    /// it is on for all of them already: their IDs and the new choice.
    pub fn auto_download_marked(&mut self) -> Changed<AutoDownload> {
        let marked: Vec<usize> = (0..self.rows.len())
            .filter(|&i| self.marked.contains(&self.rows[i].key()))
            .collect();
        let on = !marked.iter().all(|&i| self.auto_for(&self.rows[i]));
        let mut ids = Vec::new();
        let mut cmds = Vec::new();
        for i in marked {
            let row = &mut self.rows[i];
            row.entry.auto_download = Some(on);
            if on && matches!(row.download, Some(DownloadView::Failed(_))) {
                row.download = None;
            }
            cmds.push(Cmd::Persist(PersistOp::AutoDownload(row.key(), Some(on))));
            ids.push(row.entry.task_id.clone());
            cmds.extend(self.auto_download(i));
        }
        Changed {
            cmds,
            what: AutoDownload { ids, on },
        }
    }
}
