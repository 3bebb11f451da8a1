//! The archive: finished tasks that left the watch list (removed by hand, by "remove
//! completed", or `archive_after` days after they finished), kept with everything the watch
//! list knew, in an SQLite database in the data directory.
//!
//! INTERFACE SKELETON (issue 20): the types and signatures below are what the archive pane,
//! the archiver worker and `gendash history` are written against. The bodies are filled in by
//! the archive-store work; nothing may ship while one still answers `not_ready`.

use crate::store::watchlist::WatchEntry;
use std::path::{Path, PathBuf};

/// The archive's file in the data directory.
pub const FILE_NAME: &str = "archive.sqlite3";

/// One archived task.
#[derive(Debug, Clone, PartialEq)]
pub struct ArchivedTask {
    /// The row's key in the archive (stable while the row exists).
    pub id: i64,
    /// Everything the watch list knew, as it was when the task left it.
    pub entry: WatchEntry,
    /// When it moved to the archive (seconds since the epoch).
    pub archived_at: u64,
}

/// The filter's field names for archived tasks, in the order `search_fields` returns values.
pub const SEARCH_KEYS: &[&str] = &[
    "label", "status", "kind", "service", "finished", "added", "saved", "id",
];

impl ArchivedTask {
    /// The text of each `SEARCH_KEYS` field; dates as local `YYYY-MM-DD HH:MM` at
    /// `utc_offset_seconds` (the dashboard's and the CLI's one clock offset).
    pub fn search_fields(&self, utc_offset_seconds: i32) -> [String; 8] {
        let e = &self.entry;
        [
            e.label.clone().unwrap_or_default(),
            e.last
                .as_ref()
                .map(|l| l.status.clone())
                .unwrap_or_default(),
            e.kind.as_str().to_string(),
            e.service.clone().unwrap_or_default(),
            local_minute(self.finished_at(), utc_offset_seconds),
            local_minute(e.added_at, utc_offset_seconds),
            e.saved.clone().unwrap_or_default(),
            e.task_id.clone(),
        ]
    }

    /// When it finished (seconds since the epoch), else when it was archived.
    pub fn finished_at(&self) -> u64 {
        self.entry
            .last
            .as_ref()
            .and_then(|l| l.finished_at)
            .unwrap_or(self.archived_at)
    }
}

/// `YYYY-MM-DD HH:MM` at this offset from UTC.
pub fn local_minute(t: u64, utc_offset_seconds: i32) -> String {
    let offset =
        time::UtcOffset::from_whole_seconds(utc_offset_seconds).unwrap_or(time::UtcOffset::UTC);
    let at = time::OffsetDateTime::from_unix_timestamp(i64::try_from(t).unwrap_or(0))
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH)
        .to_offset(offset);
    format!("{} {:02}:{:02}", at.date(), at.hour(), at.minute())
}

#[derive(Debug, thiserror::Error)]
#[error("archive {path}: {detail}")]
pub struct ArchiveError {
    pub path: PathBuf,
    pub detail: String,
}

/// An open archive. Every change is one transaction: a crash (kill -9) leaves the whole old or
/// the whole new state; any number of processes may open it at once.
pub struct Archive {
    path: PathBuf,
}

impl std::fmt::Debug for Archive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive").field("path", &self.path).finish()
    }
}

impl Archive {
    /// The archive's path in `data_dir`.
    pub fn path_in(data_dir: &Path) -> PathBuf {
        data_dir.join(FILE_NAME)
    }

    /// Opens (creating it and its tables when missing) the archive at `path`.
    pub fn open(path: &Path) -> Result<Archive, ArchiveError> {
        Ok(Archive {
            path: path.to_path_buf(),
        })
    }

    /// Moves these finished tasks in (a task already archived, same service, kind and ID, is
    /// replaced); returns how many were written.
    pub fn insert(
        &mut self,
        entries: &[WatchEntry],
        archived_at: u64,
    ) -> Result<usize, ArchiveError> {
        let _ = (entries, archived_at);
        Err(self.not_ready())
    }

    /// Every archived task, the most recently finished first.
    pub fn list(&self) -> Result<Vec<ArchivedTask>, ArchiveError> {
        Err(self.not_ready())
    }

    /// One task with everything kept for it (its whole status history).
    pub fn get(&self, id: i64) -> Result<Option<ArchivedTask>, ArchiveError> {
        let _ = id;
        Err(self.not_ready())
    }

    /// Deletes these rows; returns what was deleted, for undo.
    pub fn delete(&mut self, ids: &[i64]) -> Result<Vec<ArchivedTask>, ArchiveError> {
        let _ = ids;
        Err(self.not_ready())
    }

    /// Puts deleted rows back as they were (undo), keeping their ids.
    pub fn restore(&mut self, tasks: &[ArchivedTask]) -> Result<(), ArchiveError> {
        let _ = tasks;
        Err(self.not_ready())
    }

    /// The task's file was saved (again) here.
    pub fn set_saved(&mut self, id: i64, path: &str) -> Result<(), ArchiveError> {
        let _ = (id, path);
        Err(self.not_ready())
    }

    fn not_ready(&self) -> ArchiveError {
        ArchiveError {
            path: self.path.clone(),
            detail: "not_ready".into(),
        }
    }
}
