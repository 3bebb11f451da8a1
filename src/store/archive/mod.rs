//! The archive: finished tasks that left the watch list (removed by hand, by "remove
//! completed", or `archive_after` days after they finished), kept with everything the watch
//! list knew, in an SQLite database in the data directory.
//!
//! Any number of processes (dashboards, `gendash watch`, `gendash history`) may open it at
//! once: the file is in WAL mode with a busy timeout, and every change is one `IMMEDIATE`
//! transaction, so a crash (kill -9) leaves the whole old or the whole new state. The schema
//! version is `PRAGMA user_version`; a file from a newer gendash is refused with an error
//! naming it. A file that is not a readable database is set aside (renamed, never
//! overwritten) and a fresh one started, and `set_aside` says where it went and why. On its
//! first open the archive copies in the watch list's finished tasks, once ever (a `meta` row
//! records it, so a row deleted later is not imported again).

mod schema;
#[cfg(test)]
mod tests;

use crate::api::{TaskKind, TaskState};
use crate::store::watchlist::{LastKnown, Transition, WatchEntry};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use schema::VERSION;

/// The archive's file in the data directory.
pub const FILE_NAME: &str = crate::store::paths::ARCHIVE_FILE;

/// The archive's file and the watch list its first open copies finished tasks from: both
/// taken from [`DataFiles`](crate::store::paths::DataFiles), neither made from the other's path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Files {
    pub archive: PathBuf,
    pub watchlist: PathBuf,
}

impl Files {
    /// The archive and watch list of the data directory `data`.
    pub fn in_dir(data: &Path) -> Files {
        Files::from(&crate::store::paths::DataFiles::new(data, data))
    }
}

impl From<&crate::store::paths::DataFiles> for Files {
    fn from(files: &crate::store::paths::DataFiles) -> Files {
        Files {
            archive: files.archive.clone(),
            watchlist: files.watchlist.clone(),
        }
    }
}

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

/// A field the filter reads of an archived task (`label:`, `finished:>2026-11-01`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchKey {
    Label,
    Status,
    Kind,
    Service,
    Finished,
    Added,
    Saved,
    Id,
}

impl SearchKey {
    /// Every field, in the order of `SEARCH_KEYS`.
    pub const ALL: [SearchKey; 8] = [
        SearchKey::Label,
        SearchKey::Status,
        SearchKey::Kind,
        SearchKey::Service,
        SearchKey::Finished,
        SearchKey::Added,
        SearchKey::Saved,
        SearchKey::Id,
    ];

    /// Whether its value is a moment (`SearchValue::Time`), else text.
    pub fn is_date(self) -> bool {
        matches!(self, SearchKey::Finished | SearchKey::Added)
    }
}

/// The filter's field names for archived tasks, in the order of `SearchKey::ALL`.
pub const SEARCH_KEYS: &[&str] = &[
    "label", "status", "kind", "service", "finished", "added", "saved", "id",
];

/// A field's value: the task's own text, or a moment (seconds since the epoch) that the
/// reader shows as a local date (`fmt::local_minute`), so the store formats nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchValue<'a> {
    Text(&'a str),
    Time(u64),
}

impl ArchivedTask {
    /// The value of one of the filter's fields; borrowed, so reading every row's costs no
    /// allocation.
    pub fn search_value(&self, key: SearchKey) -> SearchValue<'_> {
        fn text(s: Option<&String>) -> &str {
            s.map_or("", String::as_str)
        }
        let e = &self.entry;
        match key {
            SearchKey::Label => SearchValue::Text(text(e.label.as_ref())),
            SearchKey::Status => SearchValue::Text(self.status()),
            SearchKey::Kind => SearchValue::Text(e.kind.as_str()),
            SearchKey::Service => SearchValue::Text(text(e.service.as_ref())),
            SearchKey::Finished => SearchValue::Time(self.finished_at()),
            SearchKey::Added => SearchValue::Time(e.added_at),
            SearchKey::Saved => SearchValue::Text(text(e.saved.as_ref())),
            SearchKey::Id => SearchValue::Text(&e.task_id),
        }
    }

    /// The text a query's plain words match: the task ID, its status and its label, as the
    /// watch list's rows are matched.
    pub fn search_name(&self) -> String {
        let label = self.entry.label.as_deref().unwrap_or("");
        format!("{} {} {label}", self.entry.task_id, self.status())
    }

    /// The last status the service gave, or nothing.
    pub fn status(&self) -> &str {
        self.entry.last.as_ref().map_or("", |l| l.status.as_str())
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

#[derive(Debug, thiserror::Error)]
#[error("archive {path}: {detail}")]
pub struct ArchiveError {
    pub path: PathBuf,
    pub detail: String,
}

/// How long a writer waits for another process's transaction before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// An unreadable archive file moved out of the way when it was opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetAside {
    /// Where the file now is.
    pub to: PathBuf,
    /// What was wrong with it.
    pub reason: String,
}

impl std::fmt::Display for SetAside {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the archive could not be read ({}) and was set aside as {}; a new one was started",
            self.reason,
            self.to.display()
        )
    }
}

/// An open archive. Every change is one transaction: a crash (kill -9) leaves the whole old or
/// the whole new state; any number of processes may open it at once.
pub struct Archive {
    path: PathBuf,
    conn: Connection,
    set_aside: Option<SetAside>,
    imported: usize,
}

impl std::fmt::Debug for Archive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// Sorts `rows` (indices, ascending) by `moment`, the latest first, ties in the rows' order.
/// Each row's moment is read once, in order: comparing two tasks at each step reads 100,000
/// tasks' memory in a scattered order 1.7 million times.
pub fn latest_first(rows: &mut Vec<u32>, moment: impl Fn(usize) -> u64) {
    let mut keyed: Vec<(std::cmp::Reverse<u64>, u32)> = rows
        .iter()
        .map(|&i| (std::cmp::Reverse(moment(i as usize)), i))
        .collect();
    keyed.sort_unstable();
    rows.clear();
    rows.extend(keyed.into_iter().map(|(_, i)| i));
}

/// Whether the watch list's entry is finished: its finish was seen, or its last status is
/// `COMPLETED` or one of the default failure statuses.
pub fn is_finished(entry: &WatchEntry) -> bool {
    entry.last.as_ref().is_some_and(|l| {
        l.finished_at.is_some()
            || crate::api::types::classify(&l.status, crate::api::types::DEFAULT_FAILURE_STATUSES)
                != TaskState::Running
    })
}

/// What `archive_dropped` did.
#[derive(Debug, Default)]
pub struct Dropped {
    /// The finished tasks that moved to the archive.
    pub archived: Vec<WatchEntry>,
    /// Where an unreadable archive was moved when it was opened.
    pub set_aside: Option<SetAside>,
}

/// Moves the finished tasks of `before` that `list` no longer has to the archive in `files`,
/// archived at `now`: called under the watch list's lock, before the list is saved without
/// them, so a crash in between leaves them in both, never in neither. If the archive cannot
/// take them, they are put back on `list` and the error returned. Unfinished tasks are not
/// archived.
pub fn archive_dropped(
    files: &Files,
    before: &[WatchEntry],
    list: &mut Vec<WatchEntry>,
    now: u64,
) -> Result<Dropped, ArchiveError> {
    let gone: Vec<WatchEntry> = before
        .iter()
        .filter(|e| is_finished(e) && !list.iter().any(|x| x.same_task(e)))
        .cloned()
        .collect();
    if gone.is_empty() {
        return Ok(Dropped::default());
    }
    let mut set_aside = None;
    let written = Archive::open(files).and_then(|mut a| {
        set_aside = a.set_aside.take();
        a.insert(&gone, now)
    });
    match written {
        Ok(_) => Ok(Dropped {
            archived: gone,
            set_aside,
        }),
        Err(e) => {
            list.extend(gone);
            Err(e)
        }
    }
}

/// Why opening failed: the file is not a database we can read (set it aside), or anything
/// else (say so).
enum OpenError {
    Unreadable(String),
    Other(String),
}

impl From<rusqlite::Error> for OpenError {
    fn from(e: rusqlite::Error) -> Self {
        if unreadable(&e) {
            OpenError::Unreadable(e.to_string())
        } else {
            OpenError::Other(e.to_string())
        }
    }
}

/// The errors that mean the file is not (or no longer) a database.
fn unreadable(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt)
    )
}

impl Archive {
    /// The archive's path in `data_dir`.
    pub fn path_in(data_dir: &Path) -> PathBuf {
        data_dir.join(FILE_NAME)
    }

    /// The user's archive and watch list: in `GENDASH_DATA_DIR` or the platform data dir.
    pub fn user_files() -> Files {
        Files::from(&crate::store::paths::DataFiles::user())
    }

    /// Opens (creating it and its tables when missing) the archive `files.archive`; on its
    /// first open it copies in the finished tasks of `files.watchlist`.
    pub fn open(files: &Files) -> Result<Archive, ArchiveError> {
        Self::open_setting_aside(files, true)
    }

    /// [`Archive::open`] for a command that only reads it (`history`): a file that is not a
    /// readable database is an error and stays where it is, never renamed.
    pub fn open_to_read(files: &Files) -> Result<Archive, ArchiveError> {
        Self::open_setting_aside(files, false)
    }

    fn open_setting_aside(
        files: &Files,
        set_aside_unreadable: bool,
    ) -> Result<Archive, ArchiveError> {
        let path = files.archive.as_path();
        let err = |detail: String| ArchiveError {
            path: path.to_path_buf(),
            detail,
        };
        if let Some(dir) = path.parent()
            && !dir.as_os_str().is_empty()
        {
            std::fs::create_dir_all(dir)
                .map_err(|e| err(format!("cannot create {}: {e}", dir.display())))?;
        }
        let mut set_aside = None;
        let conn = match connect(path) {
            Ok(conn) => conn,
            Err(OpenError::Other(detail)) => return Err(err(detail)),
            Err(OpenError::Unreadable(reason)) if !set_aside_unreadable => {
                return Err(err(format!(
                    "cannot be read ({reason}); it was left as it is (a dashboard or `gendash \
                     watch rm` sets it aside)"
                )));
            }
            Err(OpenError::Unreadable(reason)) => {
                let to = set_aside_file(path)
                    .map_err(|e| err(format!("cannot set the unreadable file aside: {e}")))?;
                set_aside = Some(SetAside { to, reason });
                match connect(path) {
                    Ok(conn) => conn,
                    Err(OpenError::Other(d) | OpenError::Unreadable(d)) => return Err(err(d)),
                }
            }
        };
        let mut archive = Archive {
            path: path.to_path_buf(),
            conn,
            set_aside,
            imported: 0,
        };
        archive.imported = archive
            .import_watch_list_once(&files.watchlist, crate::store::watchlist::unix_now())?;
        Ok(archive)
    }

    /// The file this archive is kept in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where an unreadable file was moved when this archive was opened, and why.
    pub fn set_aside(&self) -> Option<&SetAside> {
        self.set_aside.as_ref()
    }

    /// How many of the watch list's finished tasks this open copied in (the first open only).
    pub fn imported(&self) -> usize {
        self.imported
    }

    fn err(&self, e: impl std::fmt::Display) -> ArchiveError {
        ArchiveError {
            path: self.path.clone(),
            detail: e.to_string(),
        }
    }

    /// Runs `change` in one immediate transaction (it waits for another writer's lock, not
    /// for a conflict at commit) and commits it; any error leaves the archive as it was.
    fn write<T>(
        &mut self,
        change: impl FnOnce(&rusqlite::Transaction<'_>) -> rusqlite::Result<T>,
    ) -> Result<T, ArchiveError> {
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| err_at(&path, e))?;
        let done = change(&tx).map_err(|e| err_at(&path, e))?;
        tx.commit().map_err(|e| err_at(&path, e))?;
        Ok(done)
    }

    /// Copies the finished tasks of the watch list at `watch_list` in, unless that was done
    /// before; returns how many. A watch list that cannot be read is left for the next open
    /// (the watch list's own reader sets it aside and says so).
    fn import_watch_list_once(
        &mut self,
        watch_list: &Path,
        now: u64,
    ) -> Result<usize, ArchiveError> {
        let done = |conn: &Connection| -> rusqlite::Result<bool> {
            conn.query_row(
                "SELECT 1 FROM meta WHERE key = ?1",
                [schema::MIGRATED],
                |_| Ok(()),
            )
            .optional()
            .map(|r| r.is_some())
        };
        if done(&self.conn).map_err(|e| self.err(e))? {
            return Ok(0);
        }
        let Ok(entries) = read_watch_list(watch_list) else {
            return Ok(0);
        };
        let finished: Vec<WatchEntry> = entries.into_iter().filter(is_finished).collect();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| err_at(&self.path, e))?;
        // Another process may have done it while this one read the file.
        if done(&tx).map_err(|e| err_at(&self.path, e))? {
            return Ok(0);
        }
        let mut written = 0;
        for e in &finished {
            written += upsert(&tx, e, now).map_err(|e| err_at(&self.path, e))?;
        }
        tx.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2)",
            params![schema::MIGRATED, now.to_string()],
        )
        .map_err(|e| err_at(&self.path, e))?;
        tx.commit().map_err(|e| err_at(&self.path, e))?;
        Ok(written)
    }

    /// Moves these finished tasks in (a task already archived, same service, kind and ID, is
    /// replaced); returns how many were written.
    pub fn insert(
        &mut self,
        entries: &[WatchEntry],
        archived_at: u64,
    ) -> Result<usize, ArchiveError> {
        if entries.is_empty() {
            return Ok(0);
        }
        let written = self.write(|tx| {
            let mut written = 0;
            for e in entries {
                written += upsert(tx, e, archived_at)?;
            }
            Ok(written)
        })?;
        Ok(written)
    }

    /// Every archived task, the most recently finished first, read from the columns alone so
    /// the whole list reads fast: without the status history, the last poll's trouble, the
    /// claim and the `auto_download` choice (`get` has everything).
    pub fn list(&self) -> Result<Vec<ArchivedTask>, ArchiveError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, archived_at, service, kind, task_id, status, added_at, label, \
                 saved, url, percent, updated_at, running_since, seen_finished, start_seen, \
                 seen FROM tasks ORDER BY finished_at DESC, id DESC",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt.query_map([], row_columns).map_err(|e| self.err(e))?;
        rows.map(|r| r.map_err(|e| self.err(e))).collect()
    }

    /// Every archived task with everything kept for it (its status history too), the most
    /// recently finished first; at most `limit` of them.
    pub fn list_full(&self, limit: Option<usize>) -> Result<Vec<ArchivedTask>, ArchiveError> {
        let limit = limit.map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX));
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, archived_at, entry, history FROM tasks \
                 ORDER BY finished_at DESC, id DESC LIMIT ?1",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt.query_map([limit], row_task).map_err(|e| self.err(e))?;
        rows.map(|r| r.map_err(|e| self.err(e))).collect()
    }

    /// One task with everything kept for it (its whole status history).
    pub fn get(&self, id: i64) -> Result<Option<ArchivedTask>, ArchiveError> {
        self.conn
            .query_row(
                "SELECT id, archived_at, entry, history FROM tasks WHERE id = ?1",
                [id],
                row_task,
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Deletes these rows; returns what was deleted, for undo.
    pub fn delete(&mut self, ids: &[i64]) -> Result<Vec<ArchivedTask>, ArchiveError> {
        self.write(|tx| {
            let mut gone = Vec::new();
            for &id in ids {
                let task = tx
                    .query_row(
                        "SELECT id, archived_at, entry, history FROM tasks WHERE id = ?1",
                        [id],
                        row_task,
                    )
                    .optional()?;
                if let Some(task) = task {
                    tx.execute("DELETE FROM tasks WHERE id = ?1", [id])?;
                    gone.push(task);
                }
            }
            Ok(gone)
        })
    }

    /// Puts deleted rows back as they were (undo), keeping their ids. A row whose id is taken
    /// again, or whose task was archived again meanwhile, is left as it is now.
    pub fn restore(&mut self, tasks: &[ArchivedTask]) -> Result<(), ArchiveError> {
        self.write(|tx| {
            for t in tasks {
                write_row(tx, Some(t.id), &t.entry, t.archived_at, "INSERT OR IGNORE")?;
            }
            Ok(())
        })
    }

    /// The task's file was saved (again) here.
    pub fn set_saved(&mut self, id: i64, path: &str) -> Result<(), ArchiveError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| err_at(&self.path, e))?;
        let entry: Option<String> = tx
            .query_row("SELECT entry FROM tasks WHERE id = ?1", [id], |r| r.get(0))
            .optional()
            .map_err(|e| err_at(&self.path, e))?;
        if let Some(entry) = entry {
            let mut entry: WatchEntry =
                serde_json::from_str(&entry).map_err(|e| err_at(&self.path, e))?;
            entry.saved = Some(path.to_string());
            let json = serde_json::to_string(&entry).map_err(|e| err_at(&self.path, e))?;
            tx.execute(
                "UPDATE tasks SET saved = ?2, entry = ?3 WHERE id = ?1",
                params![id, path, json],
            )
            .map_err(|e| err_at(&self.path, e))?;
        }
        tx.commit().map_err(|e| err_at(&self.path, e))
    }

    /// Deletes the rows of these tasks (service, kind and ID), if archived: they are on the
    /// watch list again. Returns how many rows went.
    pub fn forget(&mut self, entries: &[WatchEntry]) -> Result<usize, ArchiveError> {
        if entries.is_empty() {
            return Ok(0);
        }
        self.write(|tx| {
            let mut gone = 0;
            for e in entries {
                gone += tx.execute(
                    "DELETE FROM tasks WHERE service = ?1 AND kind = ?2 AND task_id = ?3",
                    params![
                        e.service.as_deref().unwrap_or(""),
                        e.kind.as_str(),
                        e.task_id
                    ],
                )?;
            }
            Ok(gone)
        })
    }

    /// A number that changes when another connection (process, or another `Archive` in this
    /// one) commits a change: a list read before is current while it stays the same.
    pub fn data_version(&self) -> Result<i64, ArchiveError> {
        self.conn
            .query_row("PRAGMA data_version", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// How many tasks are archived.
    pub fn count(&self) -> Result<usize, ArchiveError> {
        self.conn
            .query_row("SELECT count(*) FROM tasks", [], |r| r.get::<_, i64>(0))
            .map(|n| usize::try_from(n).unwrap_or(0))
            .map_err(|e| self.err(e))
    }
}

fn err_at(path: &Path, e: impl std::fmt::Display) -> ArchiveError {
    ArchiveError {
        path: path.to_path_buf(),
        detail: e.to_string(),
    }
}

/// Opens the file, sets it up for many processes, and brings its tables up to date.
fn connect(path: &Path) -> Result<Connection, OpenError> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // Reading the journal mode reads the header: a file that is no database fails here.
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(OpenError::Other(format!(
            "cannot use write-ahead logging (the journal mode is {mode})"
        )));
    }
    conn.pragma_update(None, "synchronous", "FULL")?;
    let version = user_version(&conn)?;
    if version > schema::VERSION {
        return Err(OpenError::Other(format!(
            "written by a newer gendash (schema version {version}; this one knows up to {}): \
             upgrade gendash, or move the file away to start a new archive",
            schema::VERSION
        )));
    }
    if version < schema::VERSION {
        let tx = rusqlite::Transaction::new_unchecked(&conn, TransactionBehavior::Immediate)?;
        // Another process may have done it meanwhile.
        if user_version(&tx)? < schema::VERSION {
            tx.execute_batch(schema::CREATE)?;
            tx.pragma_update(None, "user_version", schema::VERSION)?;
        }
        tx.commit()?;
    }
    // The tables must be there and readable.
    conn.query_row("SELECT count(*) FROM meta", [], |_| Ok(()))?;
    Ok(conn)
}

fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA user_version", [], |r| r.get(0))
}

/// Renames an unreadable archive (and its write-ahead log and index, which belong to it) to
/// `<file>.corrupt-<UTC time>`, byte for byte.
fn set_aside_file(path: &Path) -> std::io::Result<PathBuf> {
    let fmt = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]-[minute]-[second].[subsecond digits:3]Z"
    );
    let stamp = time::OffsetDateTime::now_utc()
        .format(&fmt)
        .unwrap_or_else(|_| "unknown-time".into());
    let with = |suffix: &str| {
        let mut p = path.as_os_str().to_os_string();
        p.push(suffix);
        PathBuf::from(p)
    };
    let aside = with(&format!(".corrupt-{stamp}"));
    match std::fs::rename(path, &aside) {
        Ok(()) => {}
        // Another process set it aside first.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    for part in ["-wal", "-shm"] {
        let _ = std::fs::rename(with(part), with(&format!(".corrupt-{stamp}{part}")));
    }
    Ok(aside)
}

/// The watch list's entries, or `Err` when the file is there but unreadable. A missing file
/// is an empty list.
fn read_watch_list(path: &Path) -> Result<Vec<WatchEntry>, ()> {
    #[derive(serde::Deserialize)]
    struct File {
        tasks: Vec<WatchEntry>,
    }
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice::<File>(&bytes)
            .map(|f| f.tasks)
            .map_err(|_| ()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(_) => Err(()),
    }
}

/// Inserts or replaces the task's row (keeping its id when it was archived before).
fn upsert(conn: &Connection, entry: &WatchEntry, archived_at: u64) -> rusqlite::Result<usize> {
    write_row(conn, None, entry, archived_at, "INSERT")
}

fn write_row(
    conn: &Connection,
    id: Option<i64>,
    entry: &WatchEntry,
    archived_at: u64,
    verb: &str,
) -> rusqlite::Result<usize> {
    let mut bare = entry.clone();
    // Labels are user text another process may have written anyhow.
    bare.label = bare
        .label
        .as_deref()
        .and_then(crate::store::watchlist::clean_label);
    let history = bare
        .last
        .as_mut()
        .map(|l| std::mem::take(&mut l.history))
        .unwrap_or_default();
    let to_sql = |e: serde_json::Error| rusqlite::Error::ToSqlConversionFailure(Box::new(e));
    let json = serde_json::to_string(&bare).map_err(to_sql)?;
    let history = serde_json::to_string(&history).map_err(to_sql)?;
    let task = ArchivedTask {
        id: 0,
        entry: bare,
        archived_at,
    };
    let last = task.entry.last.as_ref();
    let upsert = if id.is_none() {
        " ON CONFLICT (service, kind, task_id) DO UPDATE SET \
          status = excluded.status, finished_at = excluded.finished_at, \
          added_at = excluded.added_at, archived_at = excluded.archived_at, \
          label = excluded.label, saved = excluded.saved, url = excluded.url, \
          entry = excluded.entry, history = excluded.history, \
          percent = excluded.percent, updated_at = excluded.updated_at, \
          running_since = excluded.running_since, seen_finished = excluded.seen_finished, \
          start_seen = excluded.start_seen, seen = excluded.seen"
    } else {
        ""
    };
    let sql = format!(
        "{verb} INTO tasks (id, service, kind, task_id, status, finished_at, added_at, \
         archived_at, label, saved, url, entry, history, percent, updated_at, running_since, \
         seen_finished, start_seen, seen) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, \
         ?18, ?19){upsert}"
    );
    let secs = |t: u64| i64::try_from(t).unwrap_or(i64::MAX);
    conn.prepare_cached(&sql)?.execute(params![
        id,
        task.entry.service.as_deref().unwrap_or(""),
        task.entry.kind.as_str(),
        task.entry.task_id,
        last.map_or("", |l| l.status.as_str()),
        secs(task.finished_at()),
        secs(task.entry.added_at),
        secs(archived_at),
        task.entry.label,
        task.entry.saved,
        last.and_then(|l| l.url_download.as_deref()),
        json,
        history,
        last.map(|l| l.percent),
        last.map(|l| secs(l.updated_at)),
        last.and_then(|l| l.running_since).map(secs),
        last.and_then(|l| l.finished_at).map(secs),
        last.is_some_and(|l| l.start_seen),
        task.entry.seen,
    ])
}

/// A row of `list`'s columns as an archived task (no JSON read).
fn row_columns(row: &rusqlite::Row<'_>) -> rusqlite::Result<ArchivedTask> {
    let secs = |v: i64| u64::try_from(v).unwrap_or(0);
    let text = |i: usize| -> rusqlite::Result<Option<String>> { row.get(i) };
    let service: String = row.get(2)?;
    let video = row.get_ref(3)?.as_str()? == TaskKind::Video.as_str();
    let percent: Option<u8> = row.get(10)?;
    let last = match percent {
        None => None,
        Some(percent) => Some(LastKnown {
            status: row.get(5)?,
            percent,
            url_download: text(9)?,
            updated_at: secs(row.get(11)?),
            running_since: row.get::<_, Option<i64>>(12)?.map(secs),
            finished_at: row.get::<_, Option<i64>>(13)?.map(secs),
            start_seen: row.get(14)?,
            history: Vec::new(),
            extra: None,
        }),
    };
    Ok(ArchivedTask {
        id: row.get(0)?,
        archived_at: secs(row.get(1)?),
        entry: WatchEntry {
            task_id: row.get(4)?,
            kind: TaskKind::from_video_flag(video),
            added_at: secs(row.get(6)?),
            last,
            service: (!service.is_empty()).then_some(service),
            saved: text(8)?,
            auto_download: None,
            claimed_by: None,
            polled_by: None,
            trouble: None,
            label: text(7)?,
            seen: row.get(15)?,
        },
    })
}

/// A row (`id, archived_at, entry, history`) as an archived task; a `NULL` history is left
/// empty.
fn row_task(row: &rusqlite::Row<'_>) -> rusqlite::Result<ArchivedTask> {
    let id: i64 = row.get(0)?;
    let archived_at: i64 = row.get(1)?;
    let entry: String = row.get(2)?;
    let history: Option<String> = row.get(3)?;
    let bad = |e: serde_json::Error| {
        rusqlite::Error::FromSqlConversionFailure(2, rusqlite::types::Type::Text, Box::new(e))
    };
    let mut entry: WatchEntry = serde_json::from_str(&entry).map_err(bad)?;
    if let (Some(h), Some(last)) = (history, entry.last.as_mut()) {
        last.history = serde_json::from_str::<Vec<Transition>>(&h).map_err(bad)?;
    }
    Ok(ArchivedTask {
        id,
        entry,
        archived_at: u64::try_from(archived_at).unwrap_or(0),
    })
}
