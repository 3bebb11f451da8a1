//! The watch list on disk. Every change is a locked read-modify-write, so the dashboard and any
//! number of `gendash watch` processes can edit it at once without losing each other's entries;
//! every save is atomic (temporary file, fsync, rename), so a crash leaves the whole old or the
//! whole new list; a file that does not parse is set aside byte for byte, never overwritten.

pub mod figures;

use crate::api::TaskKind;
use serde::{Deserialize, Serialize};
use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

const FORMAT_VERSION: u32 = 1;

/// The last status seen for a task, kept so a restart shows it before the first refresh.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LastKnown {
    pub status: String,
    pub percent: u8,
    #[serde(default)]
    pub url_download: Option<String>,
    /// Seconds since the Unix epoch.
    pub updated_at: u64,
    /// When the task was first seen running (seconds since the epoch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running_since: Option<u64>,
    /// When the task was first seen finished (seconds since the epoch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<u64>,
    /// The task was first seen running at 0%: its start was seen, so `finished_at` minus
    /// `running_since` is how long it took.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub start_seen: bool,
    /// The recent status transitions, oldest first, at most `HISTORY` of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<Transition>,
    /// The fields the service sent beyond the spec's five, as of the last answer (saved with
    /// the status, so the archive keeps those of the task's end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<Box<crate::api::ExtraFields>>,
}

/// How many status transitions a task keeps.
pub const HISTORY: usize = 20;

/// A status the task moved to, and when it was first seen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transition {
    pub at: u64,
    pub status: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WatchEntry {
    pub task_id: String,
    pub kind: TaskKind,
    /// Seconds since the Unix epoch.
    pub added_at: u64,
    #[serde(default)]
    pub last: Option<LastKnown>,
    /// The base URL of the service the task was added for; lists saved before entries
    /// remembered it adopt the current service when loaded by the dashboard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<String>,
    /// Where its file was saved (by `D` or `auto_download`), so a restart never fetches it
    /// again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saved: Option<String>,
    /// `A`'s choice for this task; `None` follows `auto_download`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_download: Option<bool>,
    /// The dashboard (its ID in `store::dashboards`) that took on the task's end: its
    /// notification, `on_complete` and automatic download, so that two dashboards on one data
    /// directory do each once between them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed_by: Option<String>,
    /// The running dashboard that polls the unfinished task: it keeps the list's run going
    /// for every dashboard on the data directory, whatever services their configs can poll.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub polled_by: Option<String>,
    /// What went wrong the last time the task was asked about, until an answer clears it; kept
    /// so `watch list` and a restart show it rather than the last good status alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trouble: Option<Trouble>,
    /// The user's name for the task (`watch add --label`, the add dialog, the label key):
    /// one line of plain text, never empty (no label is `None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Whether the user looked at the task since it finished while watched: `Some(false)` it
    /// is new (`●`), `Some(true)` it was seen; `None` it never finished while watched (added
    /// finished, still running, or saved before this was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seen: Option<bool>,
}

/// The last poll's trouble: the service does not know the task, or asking it failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trouble {
    pub kind: TroubleKind,
    /// The service's description, or the error.
    pub text: String,
    /// When it was first seen (seconds since the epoch).
    pub since: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TroubleKind {
    NotFound,
    Error,
}

impl WatchEntry {
    pub fn new(task_id: impl Into<String>, kind: TaskKind) -> Self {
        WatchEntry {
            task_id: task_id.into(),
            kind,
            added_at: unix_now(),
            last: None,
            service: None,
            saved: None,
            auto_download: None,
            trouble: None,
            claimed_by: None,
            polled_by: None,
            label: None,
            seen: None,
        }
    }

    /// Finished while watched and not looked at since.
    pub fn unseen(&self) -> bool {
        self.seen == Some(false)
    }

    pub fn same_task(&self, other: &WatchEntry) -> bool {
        self.task_id == other.task_id && self.kind == other.kind
    }
}

/// What is in the file.
enum Read {
    Missing,
    Entries(Vec<WatchEntry>),
    /// It is there but not a watch list gendash can read: why.
    Unreadable(String),
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WatchFile {
    version: u32,
    tasks: Vec<WatchEntry>,
}

/// How a service is saved in a watch entry: its base URL without the trailing slash, so
/// `http://h/api` and `http://h/api/` are one service.
pub fn service_key(base_url: &url::Url) -> String {
    base_url.as_str().trim_end_matches('/').to_string()
}

pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// What loading found.
#[derive(Debug, Default)]
pub struct Loaded {
    pub entries: Vec<WatchEntry>,
    /// Where an unreadable file was moved to, so the user can be told.
    pub set_aside: Option<PathBuf>,
    /// The file was unreadable (set aside) or gone, and the list the caller held was written
    /// in its place (`load_keeping`, `update_keeping`).
    pub wrote_back: bool,
    /// The file as it was when read or written, taken under the lock: a change by another
    /// process right after is then never mistaken for this one.
    pub stamp: Option<Stamp>,
    /// `update_known` found the file as its caller knew it and did not read it again.
    pub as_known: bool,
}

/// What tells one version of the file from the next without reading it. Every save renames a
/// new file into place, so the inode changes with each one even when the modification time
/// (as coarse as the kernel's tick) and the length do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    modified: SystemTime,
    len: u64,
    inode: u64,
}

#[derive(Debug, thiserror::Error)]
#[error("watch list {path}: {detail}")]
pub struct StoreError {
    pub path: PathBuf,
    pub detail: String,
}

#[derive(Debug, Clone)]
pub struct WatchStore {
    path: PathBuf,
}

impl WatchStore {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        WatchStore { path: path.into() }
    }

    /// The user's list: `GENDASH_DATA_DIR` or the platform data dir, `watchlist.json`.
    pub fn default_path() -> PathBuf {
        super::paths::DataFiles::user().watchlist
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, detail: impl std::fmt::Display) -> StoreError {
        StoreError {
            path: self.path.clone(),
            detail: detail.to_string(),
        }
    }

    fn lock(&self) -> Result<File, StoreError> {
        if let Some(dir) = self.path.parent() {
            fs::create_dir_all(dir)
                .map_err(|e| self.err(format!("cannot create {}: {e}", dir.display())))?;
        }
        let mut lock_path = self.path.clone().into_os_string();
        lock_path.push(".lock");
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| self.err(format!("cannot open the lock file: {e}")))?;
        file.lock()
            .map_err(|e| self.err(format!("cannot lock: {e}")))?;
        Ok(file)
    }

    /// Reads the list (under the lock, so never half-way through another writer's change);
    /// a file that does not parse is set aside and the list is empty.
    pub fn load(&self) -> Result<Loaded, StoreError> {
        self.load_keeping(&[])
    }

    /// [`WatchStore::load`] for a process that holds the list: when the file turned unreadable
    /// (set aside) or vanished, `held` is written back in its place, so the list is never
    /// lost while a dashboard shows it.
    pub fn load_keeping(&self, held: &[WatchEntry]) -> Result<Loaded, StoreError> {
        let _guard = self.lock()?;
        let mut loaded = self.load_unlocked(held)?;
        if loaded.wrote_back {
            self.save_unlocked(&loaded.entries)?;
        }
        loaded.stamp = self.stamp();
        Ok(loaded)
    }

    /// Reads the list for a look only (`watch list`, `stats`): nothing is written or renamed,
    /// and a file that does not parse is an error that says it was left in place.
    pub fn read(&self) -> Result<Vec<WatchEntry>, StoreError> {
        match self.read_file()? {
            Read::Missing => Ok(Vec::new()),
            Read::Entries(entries) => Ok(entries),
            Read::Unreadable(why) => Err(self.err(format!(
                "cannot be read ({why}); it was left as it is (a dashboard or `gendash watch \
                 add` sets it aside)"
            ))),
        }
    }

    /// The file's modification time and length now (`None` when it does not exist).
    pub fn stamp(&self) -> Option<Stamp> {
        let m = fs::metadata(&self.path).ok()?;
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&m);
        #[cfg(not(unix))]
        let inode = 0;
        Some(Stamp {
            modified: m.modified().ok()?,
            len: m.len(),
            inode,
        })
    }

    /// What the file holds, read without changing anything (`gendash doctor`): how many
    /// entries; `None` when there is no file. The error says why it is unreadable.
    pub fn inspect(&self) -> Result<Option<usize>, StoreError> {
        match self.read_file()? {
            Read::Missing => Ok(None),
            Read::Entries(entries) => Ok(Some(entries.len())),
            Read::Unreadable(why) => Err(self.err(why)),
        }
    }

    fn read_file(&self) -> Result<Read, StoreError> {
        let bytes = match fs::read(&self.path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Read::Missing),
            Err(e) => return Err(self.err(format!("cannot read: {e}"))),
        };
        Ok(match serde_json::from_slice::<WatchFile>(&bytes) {
            Ok(mut f) if f.version == FORMAT_VERSION => {
                // Labels are user text another process may have written anyhow.
                for e in &mut f.tasks {
                    e.label = e.label.as_deref().and_then(clean_label);
                }
                Read::Entries(dedup(f.tasks))
            }
            Ok(f) => Read::Unreadable(format!("format version {}", f.version)),
            Err(e) => Read::Unreadable(e.to_string()),
        })
    }

    /// The list under the lock; an unreadable file is set aside. When the file is unreadable
    /// or missing and `held` is not empty, the list is `held` and `wrote_back` says it must be
    /// saved.
    fn load_unlocked(&self, held: &[WatchEntry]) -> Result<Loaded, StoreError> {
        let (set_aside, gone) = match self.read_file()? {
            Read::Entries(entries) => {
                return Ok(Loaded {
                    entries,
                    ..Loaded::default()
                });
            }
            Read::Missing => (None, true),
            Read::Unreadable(_) => (Some(self.set_aside()?), false),
        };
        let wrote_back = !held.is_empty() && (set_aside.is_some() || gone);
        Ok(Loaded {
            entries: if wrote_back {
                held.to_vec()
            } else {
                Vec::new()
            },
            set_aside,
            wrote_back,
            stamp: None,
            as_known: false,
        })
    }

    /// Moves an unreadable file out of the way (rename keeps it byte for byte).
    fn set_aside(&self) -> Result<PathBuf, StoreError> {
        // A readable UTC time, to the millisecond so two in a row do not collide.
        let fmt = time::macros::format_description!(
            "[year]-[month]-[day]T[hour]-[minute]-[second].[subsecond digits:3]Z"
        );
        let stamp = time::OffsetDateTime::now_utc()
            .format(&fmt)
            .unwrap_or_else(|_| "unknown-time".into());
        let mut aside = self.path.clone().into_os_string();
        aside.push(format!(".corrupt-{stamp}"));
        let aside = PathBuf::from(aside);
        fs::rename(&self.path, &aside)
            .map_err(|e| self.err(format!("cannot set the unreadable file aside: {e}")))?;
        Ok(aside)
    }

    /// Applies `change` to the current list under the lock and saves the result atomically.
    /// Returns the list as saved, and where an unreadable old file went, if it had to.
    pub fn update(&self, change: impl FnOnce(&mut Vec<WatchEntry>)) -> Result<Loaded, StoreError> {
        self.update_keeping(&[], change)
    }

    /// [`WatchStore::update`] for a process that holds the list: when the file turned
    /// unreadable (set aside) or vanished, `change` applies to `held` instead of an empty list.
    pub fn update_keeping(
        &self,
        held: &[WatchEntry],
        change: impl FnOnce(&mut Vec<WatchEntry>),
    ) -> Result<Loaded, StoreError> {
        self.update_known(held, None, change)
    }

    /// [`WatchStore::update_keeping`] for a process whose `held` is the list the file held when
    /// it had the stamp `known` (this process's last write or read, under the lock): while the
    /// file still has that stamp nobody else wrote it, and `change` applies to `held` without
    /// reading the file again (parsing 1,000 tasks was most of a write's CPU).
    pub fn update_known(
        &self,
        held: &[WatchEntry],
        known: Option<Stamp>,
        change: impl FnOnce(&mut Vec<WatchEntry>),
    ) -> Result<Loaded, StoreError> {
        let _guard = self.lock()?;
        let as_known = known.is_some() && self.stamp() == known;
        let mut loaded = if as_known {
            Loaded {
                entries: held.to_vec(),
                as_known,
                ..Loaded::default()
            }
        } else {
            self.load_unlocked(held)?
        };
        // What the file holds, to tell whether the change changed anything: `held` itself when
        // it was not read again, rather than another copy.
        let read = (!as_known).then(|| loaded.entries.clone());
        let before = read.as_deref().unwrap_or(held);
        change(&mut loaded.entries);
        loaded.entries = dedup(std::mem::take(&mut loaded.entries));
        if loaded.entries != before
            || loaded.set_aside.is_some()
            || loaded.wrote_back
            || !self.path.exists()
        {
            self.save_unlocked(&loaded.entries)?;
        }
        loaded.stamp = self.stamp();
        Ok(loaded)
    }

    /// Removes temporary files that writers killed mid-save left behind. Only called under the
    /// lock, when no other writer can be half-way through its own save.
    fn sweep_stale_temps(&self) {
        let Some(dir) = self.path.parent() else {
            return;
        };
        let prefix = super::atomic::temp_prefix(&self.path);
        for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
            if entry.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }

    /// Streams the list into the temporary file: neither a copy of the entries nor the whole
    /// text is held (at 10,000 tasks they were 8 MiB of the dashboard's peak, once a second).
    fn save_unlocked(&self, entries: &[WatchEntry]) -> Result<(), StoreError> {
        use std::io::Write as _;
        #[derive(Serialize)]
        struct Out<'a> {
            version: u32,
            tasks: &'a [WatchEntry],
        }
        self.sweep_stale_temps();
        let cannot = |e: &dyn std::fmt::Display| {
            self.err(format!("cannot save (the previous list is kept): {e}"))
        };
        let mut file =
            super::atomic::AtomicFile::create(&self.path, None).map_err(|e| cannot(&e))?;
        let out = Out {
            version: FORMAT_VERSION,
            tasks: entries,
        };
        // A buffer of its own, so the serialiser's many small writes are not each a call
        // through `dyn Write`.
        let mut out_file = std::io::BufWriter::with_capacity(64 * 1024, file.writer());
        serde_json::to_writer_pretty(&mut out_file, &out)
            .map_err(|e| if e.is_io() { cannot(&e) } else { self.err(e) })?;
        out_file.write_all(b"\n").map_err(|e| cannot(&e))?;
        out_file.flush().map_err(|e| cannot(&e))?;
        drop(out_file);
        file.commit().map_err(|e| cannot(&e))
    }
}

/// Keeps the first of each (kind, task) pair.
fn dedup(mut entries: Vec<WatchEntry>) -> Vec<WatchEntry> {
    // In place: a second list was 2.8 MiB at 10,000 tasks, at each write.
    let mut seen = std::collections::HashSet::new();
    entries.retain(|e| seen.insert((e.kind, e.task_id.clone())));
    entries
}

/// A label as it is kept: control and invisible characters (line breaks, escapes, bidi
/// overrides) removed, white space runs made one space, trimmed, at most `LABEL_MAX`
/// characters; `None` when nothing is left (an empty label is no label).
pub fn clean_label(text: &str) -> Option<String> {
    let clean = crate::api::sanitize::sanitize(text);
    let words: Vec<&str> = clean.split_whitespace().collect();
    let label: String = words.join(" ").chars().take(LABEL_MAX).collect();
    (!label.is_empty()).then_some(label)
}

/// The longest label kept, in characters.
pub const LABEL_MAX: usize = 80;

/// Splits pasted text into task IDs: separated by white space or commas, empties dropped.
pub fn split_ids(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Why task IDs given by the user (the add dialog, `watch add`, `watch rm`) were refused.
#[derive(Debug, thiserror::Error)]
pub enum IdsError {
    /// Nothing but white space and commas.
    #[error("no task ID given")]
    None,
    /// The `n`th (from 1) of `of` IDs is not one the service could have made.
    #[error("{}{why}", if *of > 1 { format!("ID {n} of {of}: ") } else { String::new() })]
    Invalid {
        n: usize,
        of: usize,
        why: crate::api::ApiError,
    },
}

/// The task IDs in what the user gave, the one check of the add dialog and the command line:
/// split at white space and commas (so surrounding white space goes), each once in the order
/// given, and each valid (`validate_task_id`: not `.` or `..`, not over 1,024 bytes, no
/// control or invisible character).
pub fn task_ids<'a>(given: impl IntoIterator<Item = &'a str>) -> Result<Vec<String>, IdsError> {
    let mut seen = std::collections::HashSet::new();
    let ids: Vec<String> = given
        .into_iter()
        .flat_map(split_ids)
        .filter(|id| seen.insert(id.clone()))
        .collect();
    if ids.is_empty() {
        return Err(IdsError::None);
    }
    for (n, id) in ids.iter().enumerate() {
        crate::api::client::validate_task_id(id).map_err(|why| IdsError::Invalid {
            n: n + 1,
            of: ids.len(),
            why,
        })?;
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The task IDs the file holds, in its order.
    fn ids_on_disk(store: &WatchStore) -> Vec<String> {
        let entries = store.load().expect("load").entries;
        entries.into_iter().map(|e| e.task_id).collect()
    }

    #[test]
    fn round_trip_add_remove() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = WatchStore::new(dir.path().join("w.json"));
        assert!(store.load().expect("load").entries.is_empty());
        store
            .update(|l| l.push(WatchEntry::new("a", TaskKind::Image)))
            .expect("add");
        store
            .update(|l| {
                l.push(WatchEntry::new("b", TaskKind::Video));
                l.push(WatchEntry::new("a", TaskKind::Image));
            })
            .expect("add");
        let ids = ids_on_disk(&store);
        assert_eq!(ids, ["a", "b"]);
        store
            .update(|l| l.retain(|e| e.task_id != "a"))
            .expect("rm");
        assert_eq!(store.load().expect("load").entries.len(), 1);
    }

    /// The saver compares this stamp with the file's to see another dashboard's change: it
    /// must describe what this writer wrote, so a write that lands right after shows as new.
    #[test]
    fn an_update_reports_the_version_it_wrote_not_a_later_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (mine, theirs) = (
            WatchStore::new(dir.path().join("w.json")),
            WatchStore::new(dir.path().join("w.json")),
        );
        let wrote = mine
            .update(|l| l.push(WatchEntry::new("a", TaskKind::Image)))
            .expect("add");
        assert_eq!(wrote.stamp, mine.stamp());
        assert!(wrote.stamp.is_some());
        theirs
            .update(|l| l[0].saved = Some("/tmp/a.png".into()))
            .expect("save");
        assert_ne!(wrote.stamp, mine.stamp(), "the other writer's change shows");
        let read = mine.load().expect("load");
        assert_eq!(read.stamp, mine.stamp());
        assert_eq!(read.entries[0].saved.as_deref(), Some("/tmp/a.png"));
    }

    #[test]
    fn corrupt_files_are_set_aside_byte_for_byte() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("w.json");
        let store = WatchStore::new(&path);
        for bad in [
            &b""[..],
            b"{\"version\":1,\"tasks\":[",
            b"\0\0\0\0",
            b"[1,2,3]",
            b"{\"version\":9,\"tasks\":[]}",
        ] {
            fs::write(&path, bad).expect("write");
            let loaded = store.load().expect("load");
            let aside = loaded.set_aside.expect("set aside");
            assert_eq!(fs::read(&aside).expect("read aside"), bad);
            // Named by a readable UTC time: `watchlist.json.corrupt-2026-11-22T12-55-01.123Z`.
            let name = aside.to_string_lossy().into_owned();
            let stamp = name.rsplit(".corrupt-").next().expect("stamp");
            assert!(
                stamp.len() == 24
                    && stamp.starts_with("20")
                    && stamp.ends_with('Z')
                    && stamp.contains('T'),
                "{name}"
            );
            assert!(!path.exists());
        }
    }

    /// A process that holds the list writes it back when the file turned bad or vanished
    /// (and applies its change to it); a look only (`read`) renames nothing and says why.
    #[test]
    fn a_held_list_is_written_back_and_a_look_renames_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("w.json");
        let store = WatchStore::new(&path);
        let held = vec![WatchEntry::new("a", TaskKind::Image)];
        fs::write(&path, b"[1,2").expect("write");
        let err = store.read().expect_err("unreadable");
        assert!(err.to_string().contains("left as it is"), "{err}");
        assert_eq!(fs::read(&path).expect("still there"), b"[1,2");
        let loaded = store.load_keeping(&held).expect("load");
        assert!(loaded.wrote_back && loaded.set_aside.is_some());
        assert_eq!(store.read().expect("read"), held);
        fs::remove_file(&path).expect("rm");
        let loaded = store
            .update_keeping(&held, |l| l.push(WatchEntry::new("b", TaskKind::Video)))
            .expect("update");
        assert!(loaded.wrote_back && loaded.set_aside.is_none());
        assert_eq!(store.read().expect("read").len(), 2);
        // Nothing held: an unreadable file leaves an empty list, as at start-up.
        fs::write(&path, b"x").expect("write");
        let loaded = store.load_keeping(&[]).expect("load");
        assert!(!loaded.wrote_back && loaded.entries.is_empty());
    }

    /// A label and the seen mark are kept in the file and read back; a file written before
    /// they existed (same format version) still loads, with no label and nothing new.
    #[test]
    fn labels_and_seen_marks_round_trip_and_old_files_still_load() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("w.json");
        let store = WatchStore::new(&path);
        store
            .update(|l| {
                let mut e = WatchEntry::new("a", TaskKind::Image);
                e.label = Some("sunset v2".into());
                e.seen = Some(false);
                l.push(e);
                l.push(WatchEntry::new("b", TaskKind::Video));
            })
            .expect("save");
        let text = fs::read_to_string(&path).expect("read");
        assert!(text.contains("\"label\": \"sunset v2\""), "{text}");
        assert!(text.contains("\"seen\": false"), "{text}");
        assert!(text.contains("\"version\": 1"), "{text}");
        let read = store.load().expect("load").entries;
        assert_eq!(read[0].label.as_deref(), Some("sunset v2"));
        assert!(read[0].unseen());
        assert_eq!((read[1].label.as_deref(), read[1].seen), (None, None));

        // As the previous release wrote it.
        let old = r#"{"version":1,"tasks":[{"task_id":"old","kind":"image","added_at":5,
            "last":{"status":"COMPLETED","percent":100,"updated_at":9}}]}"#;
        fs::write(&path, old).expect("write");
        let loaded = store.load().expect("load");
        assert!(loaded.set_aside.is_none(), "an old file is not set aside");
        let e = &loaded.entries[0];
        assert_eq!((e.task_id.as_str(), e.label.as_deref()), ("old", None));
        assert!(!e.unseen(), "a task of an old file is not new");
    }

    #[test]
    fn labels_are_cleaned_of_controls() {
        assert_eq!(
            clean_label("  sunset\u{1b}[31m v2\n\t x ").as_deref(),
            Some("sunset v2 x")
        );
        assert_eq!(clean_label("\u{202e}\u{7} "), None);
        assert_eq!(
            clean_label(&"x".repeat(200)).map(|l| l.len()),
            Some(LABEL_MAX)
        );
    }

    #[test]
    fn task_ids_are_trimmed_once_each_and_checked() {
        assert_eq!(
            task_ids(["  a1 ", "b,a1", "\tc\n"]).expect("ids"),
            ["a1", "b", "c"]
        );
        assert!(matches!(task_ids(["", "  ", ","]), Err(IdsError::None)));
        let bad = task_ids(["ok", ".."]).expect_err("refused");
        assert_eq!(bad.to_string(), "ID 2 of 2: `..` is not a valid task ID");
        let bad = task_ids(["a\u{1b}[31m"]).expect_err("refused");
        assert!(bad.to_string().starts_with("task ID "), "{bad}");
    }

    #[test]
    fn split_pasted_ids() {
        assert_eq!(split_ids("a, b\nc  d,,\te"), ["a", "b", "c", "d", "e"]);
    }

    /// A list written under a stamp that still stands is not read again: the change applies
    /// to the list the caller holds (here one the file does not have, to tell them apart).
    #[test]
    fn an_update_under_a_standing_stamp_changes_the_held_list_unread() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = WatchStore::new(dir.path().join("w.json"));
        let wrote = store
            .update(|l| l.push(WatchEntry::new("on-disk", TaskKind::Image)))
            .expect("write");
        let held = vec![WatchEntry::new("held", TaskKind::Image)];
        let got = store
            .update_known(&held, wrote.stamp, |l| {
                l.push(WatchEntry::new("added", TaskKind::Video));
            })
            .expect("update");
        assert!(got.as_known);
        let ids = ids_on_disk(&store);
        assert_eq!(ids, ["held", "added"], "the file was not read again");
    }

    /// Another writer's save of the same length in the same tick of the clock has another
    /// inode (each save renames a new file into place): it is read, and its entries kept.
    #[test]
    fn an_update_reads_a_same_length_save_made_in_the_same_tick() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("w.json");
        let (mine, theirs) = (WatchStore::new(&path), WatchStore::new(&path));
        let wrote = mine
            .update(|l| l.push(WatchEntry::new("aaaa", TaskKind::Image)))
            .expect("write");
        let modified = fs::metadata(&path)
            .and_then(|m| m.modified())
            .expect("mtime");
        theirs
            .update(|l| l[0].task_id = "bbbb".into())
            .expect("their write");
        File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(modified))
            .expect("set the time back");
        let stamp = mine.stamp().expect("stamp");
        let known = wrote.stamp.expect("stamp");
        assert_eq!((stamp.modified, stamp.len), (known.modified, known.len));
        let got = mine
            .update_known(&wrote.entries, wrote.stamp, |l| {
                l.push(WatchEntry::new("cccc", TaskKind::Image));
            })
            .expect("update");
        assert!(!got.as_known);
        let ids: Vec<_> = got.entries.into_iter().map(|e| e.task_id).collect();
        assert_eq!(ids, ["bbbb", "cccc"], "their change is kept");
    }
}
