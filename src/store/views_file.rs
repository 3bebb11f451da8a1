//! The views saved from the dashboard and each pane's last state, kept across sessions in one
//! small JSON file beside the favourites (`views.json`). Every change is one op applied under
//! a lock to what the file holds then (read, change, atomic write), so two dashboards on one
//! data directory keep each other's views; a pane's last state is simply the last one written
//! (last writer wins). A file that does not parse is set aside byte for byte (renamed to
//! `views.json.corrupt-<UTC time>`), said, and never overwritten.

use super::atomic::write_atomic;
use super::config::{ViewPane, ViewSpec, check_view_name};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};

const FORMAT_VERSION: u32 = 1;

/// What a pane showed when it was left: its filter (with the sort's term, except the watch
/// list's, whose sort has its own file), the browser's type and category, and the view in use.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastState {
    #[serde(default)]
    pub filter: String,
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub lora_type: Option<crate::api::LoraType>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub category: String,
    /// The view applied last, while the pane still shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<String>,
}

/// The file's content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewsFile {
    #[serde(default)]
    pub saved: BTreeMap<String, ViewSpec>,
    #[serde(default)]
    pub last: BTreeMap<ViewPane, LastState>,
}

#[derive(Serialize, Deserialize)]
struct OnDisk {
    version: u32,
    #[serde(flatten)]
    content: ViewsFile,
}

/// One change to the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewsOp {
    /// A view saved under a name (replacing one of that name).
    Save(String, ViewSpec),
    Delete(String),
    /// A pane's last state.
    Last(ViewPane, LastState),
    /// No change: what the file holds now is read again (another dashboard's views, when the
    /// list opens), and nothing is written.
    Reread,
}

/// What reading found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Loaded {
    pub content: ViewsFile,
    /// Where an unreadable file was moved to, for the user to be told.
    pub set_aside: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
#[error("views {}: {detail}", path.display())]
pub struct ViewsError {
    pub path: PathBuf,
    pub detail: String,
}

fn err(path: &Path, detail: impl std::fmt::Display) -> ViewsError {
    ViewsError {
        path: path.to_path_buf(),
        detail: detail.to_string(),
    }
}

/// Reads the file under its lock; an unreadable one is set aside and counts as empty.
pub fn load(path: &Path) -> Result<Loaded, ViewsError> {
    let _lock = lock(path)?;
    read(path)
}

/// Applies `ops`, in order, to what the file holds now, under its lock, and writes the result
/// atomically; what the file holds after (the other dashboards' views too).
pub fn update(path: &Path, ops: impl IntoIterator<Item = ViewsOp>) -> Result<Loaded, ViewsError> {
    let _lock = lock(path)?;
    let mut loaded = read(path)?;
    let content = &mut loaded.content;
    let mut changed = false;
    for op in ops {
        changed |= apply(content, op);
    }
    if !changed {
        return Ok(loaded);
    }
    let body = serde_json::to_vec_pretty(&OnDisk {
        version: FORMAT_VERSION,
        content: loaded.content.clone(),
    })
    .map_err(|e| err(path, e))?;
    write_atomic(path, &body, None).map_err(|e| err(path, format!("cannot write: {e}")))?;
    Ok(loaded)
}

/// Whether `op` asks for a write.
fn apply(content: &mut ViewsFile, op: ViewsOp) -> bool {
    match op {
        ViewsOp::Save(name, spec) => {
            content.saved.insert(name, spec);
        }
        ViewsOp::Delete(name) => {
            content.saved.remove(&name);
        }
        ViewsOp::Last(pane, last) => {
            content.last.insert(pane, last);
        }
        ViewsOp::Reread => return false,
    }
    true
}

fn lock(path: &Path) -> Result<File, ViewsError> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| err(path, format!("cannot create its folder: {e}")))?;
    }
    let mut lock_path = path.as_os_str().to_owned();
    lock_path.push(".lock");
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| err(path, format!("cannot open the lock file: {e}")))?;
    file.lock()
        .map_err(|e| err(path, format!("cannot lock: {e}")))?;
    Ok(file)
}

/// The file's content (only under the lock); names that are not view names are dropped.
fn read(path: &Path) -> Result<Loaded, ViewsError> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Loaded::default()),
        Err(e) => return Err(err(path, format!("cannot read: {e}"))),
    };
    match serde_json::from_slice::<OnDisk>(&bytes) {
        Ok(f) if f.version == FORMAT_VERSION => {
            let mut content = f.content;
            // Another process may have written anything: only clean names and text stay.
            content.saved = content
                .saved
                .into_iter()
                .filter_map(|(n, mut spec)| {
                    spec.filter = crate::api::sanitize::sanitize_with_limit(&spec.filter, 1000);
                    spec.category = crate::api::sanitize::sanitize_with_limit(&spec.category, 100);
                    check_view_name(&n).ok().map(|n| (n, spec))
                })
                .collect();
            for last in content.last.values_mut() {
                last.filter = crate::api::sanitize::sanitize_with_limit(&last.filter, 1000);
                last.category = crate::api::sanitize::sanitize_with_limit(&last.category, 100);
                last.view = last.view.take().and_then(|v| check_view_name(&v).ok());
            }
            Ok(Loaded {
                content,
                set_aside: None,
            })
        }
        _ => Ok(Loaded {
            content: ViewsFile::default(),
            set_aside: Some(set_aside(path)?),
        }),
    }
}

/// Moves an unreadable file out of the way (a rename keeps it byte for byte).
fn set_aside(path: &Path) -> Result<PathBuf, ViewsError> {
    let fmt = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]-[minute]-[second].[subsecond digits:3]Z"
    );
    let stamp = time::OffsetDateTime::now_utc()
        .format(&fmt)
        .unwrap_or_else(|_| "unknown-time".into());
    let mut aside = path.as_os_str().to_owned();
    aside.push(format!(".corrupt-{stamp}"));
    let aside = PathBuf::from(aside);
    fs::rename(path, &aside)
        .map_err(|e| err(path, format!("cannot set the unreadable file aside: {e}")))?;
    Ok(aside)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(pane: ViewPane, filter: &str) -> ViewSpec {
        ViewSpec {
            pane,
            filter: filter.into(),
            lora_type: None,
            category: String::new(),
        }
    }

    #[test]
    fn a_saved_view_and_a_last_state_come_back_and_no_temporary_file_stays() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("views.json");
        let failed = spec(ViewPane::Watch, "status:failed sort:status");
        update(&path, [ViewsOp::Save("failed".into(), failed.clone())]).expect("save");
        let last = LastState {
            filter: "tilt sort:-rating".into(),
            lora_type: Some(crate::api::LoraType::Sdxl),
            category: "style".into(),
            view: None,
        };
        update(&path, [ViewsOp::Last(ViewPane::Browser, last.clone())]).expect("last");
        let loaded = load(&path).expect("load");
        assert_eq!(loaded.content.saved.get("failed"), Some(&failed));
        assert_eq!(loaded.content.last.get(&ViewPane::Browser), Some(&last));
        update(&path, [ViewsOp::Delete("failed".into())]).expect("delete");
        assert!(load(&path).expect("load").content.saved.is_empty());
        let names: Vec<String> = fs::read_dir(dir.path())
            .expect("ls")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            names.iter().all(|n| !n.contains(".tmp-")),
            "no temporary file left: {names:?}"
        );
    }

    /// Two dashboards on one data directory, each saving from the list it read at start: the
    /// file ends with both views (each write merges into what the file holds then).
    #[test]
    fn two_writers_keep_each_others_views() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("views.json");
        let first = load(&path).expect("first dashboard");
        let second = load(&path).expect("second dashboard");
        assert_eq!(first, second);
        update(
            &path,
            [ViewsOp::Save("mine".into(), spec(ViewPane::Watch, "a"))],
        )
        .expect("one");
        let after = update(
            &path,
            [ViewsOp::Save("theirs".into(), spec(ViewPane::Archive, "b"))],
        )
        .expect("two");
        let names: Vec<&String> = after.content.saved.keys().collect();
        assert_eq!(
            names,
            ["mine", "theirs"],
            "the second write kept the first's view"
        );
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let path = path.clone();
                std::thread::spawn(move || {
                    update(
                        &path,
                        [ViewsOp::Save(format!("v{i}"), spec(ViewPane::Watch, "x"))],
                    )
                    .expect("save")
                })
            })
            .collect();
        for t in threads {
            t.join().expect("thread");
        }
        assert_eq!(load(&path).expect("load").content.saved.len(), 10);
    }

    /// Opening the list rereads the file: another dashboard's view comes back, and nothing
    /// is written (no file made where there was none, the file's bytes and time untouched).
    #[test]
    fn a_reread_reads_the_others_views_and_writes_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("views.json");
        assert_eq!(
            update(&path, [ViewsOp::Reread]).expect("reread"),
            Loaded::default()
        );
        assert!(!path.exists(), "a reread made the file");
        update(
            &path,
            [ViewsOp::Save("theirs".into(), spec(ViewPane::Watch, "a"))],
        )
        .expect("the other dashboard's save");
        let before = (
            fs::read(&path).expect("read"),
            fs::metadata(&path).expect("meta"),
        );
        let after = update(&path, [ViewsOp::Reread]).expect("reread");
        assert!(after.content.saved.contains_key("theirs"));
        assert_eq!(fs::read(&path).expect("read"), before.0);
        assert_eq!(
            fs::metadata(&path)
                .expect("meta")
                .modified()
                .expect("mtime"),
            before.1.modified().expect("mtime"),
            "a reread rewrote the file"
        );
    }

    #[test]
    fn a_corrupt_file_is_set_aside_byte_for_byte_said_and_never_overwritten() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("views.json");
        let garbage = b"{\"version\":1,\"saved\":{\"half";
        fs::write(&path, garbage).expect("write");
        let loaded = load(&path).expect("load");
        let aside = loaded.set_aside.expect("set aside");
        assert!(
            aside
                .file_name()
                .expect("name")
                .to_string_lossy()
                .starts_with("views.json.corrupt-"),
            "{aside:?}"
        );
        assert_eq!(fs::read(&aside).expect("aside"), garbage);
        assert!(loaded.content.saved.is_empty());
        update(
            &path,
            [ViewsOp::Save("new".into(), spec(ViewPane::Watch, "x"))],
        )
        .expect("save");
        assert_eq!(fs::read(&aside).expect("aside"), garbage, "left as it was");
        assert_eq!(load(&path).expect("load").content.saved.len(), 1);
    }
}
