//! The dashboards running on one data directory, so that a finished task's claim in the watch
//! list (`WatchEntry::claimed_by`) can be told from one left by a dashboard that is gone. Each
//! running dashboard holds an exclusive lock on its own file in the `dashboards` folder beside
//! the watch list; the system drops the lock when the process ends, however it ends, so a
//! claim is never held by a crashed dashboard for ever, and a reused process ID fools nothing.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

/// This dashboard's entry: its ID, and the locked file that says it is running.
#[derive(Debug)]
pub struct Registration {
    id: String,
    held: Option<(File, PathBuf)>,
}

impl Registration {
    /// Registers a new dashboard in `dir`, removing the files of those that are gone. Where
    /// the file cannot be made, the ID still claims tasks, but other dashboards take it for
    /// gone (the reason is logged): at worst a task is announced twice, never not at all.
    pub fn register(dir: &Path) -> Registration {
        let id = new_id();
        sweep(dir);
        let path = file_of(dir, &id);
        // Locked under another name, then put in place: a sweep by another dashboard never
        // finds it there unlocked, and takes it for a dashboard that is gone.
        let staged = dir.join(format!("{id}.new"));
        let held = fs::create_dir_all(dir)
            .and_then(|()| {
                let file = OpenOptions::new()
                    .create_new(true)
                    .write(true)
                    .open(&staged)?;
                file.try_lock().map_err(std::io::Error::from)?;
                fs::rename(&staged, &path)?;
                Ok(file)
            })
            .map_err(|e| {
                let _ = fs::remove_file(&staged);
                tracing::warn!(
                    "cannot register this dashboard in {}: {e}; another dashboard on this data \
                     directory may also announce the tasks this one claims",
                    dir.display()
                );
            })
            .ok()
            .map(|file| (file, path));
        Registration { id, held }
    }

    /// The ID this dashboard claims tasks with.
    pub fn id(&self) -> &str {
        &self.id
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Some((file, path)) = self.held.take() {
            let _ = fs::remove_file(&path);
            drop(file);
        }
    }
}

/// Whether the dashboard `id` is running: its file is there and locked. An ID that is not one
/// of ours (the watch list is a file anyone can edit) names no running dashboard.
pub fn running(dir: &Path, id: &str) -> bool {
    if !is_id(id) {
        return false;
    }
    let Ok(file) = OpenOptions::new().write(true).open(file_of(dir, id)) else {
        return false;
    };
    match file.try_lock() {
        Ok(()) => false,
        Err(TryLockError::WouldBlock) => true,
        // A lock that cannot be tried at all: better announce twice than never.
        Err(TryLockError::Error(e)) => {
            tracing::warn!("cannot tell whether dashboard {id} runs: {e}");
            false
        }
    }
}

/// Removes the files of dashboards that are gone (their lock can be taken).
fn sweep(dir: &Path) {
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = entry.file_name();
        let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".lock")) else {
            continue;
        };
        if is_id(id) && !running(dir, id) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

const ID_LEN: usize = 16;

fn new_id() -> String {
    use rand::{Rng, SeedableRng};
    let n: u64 = rand::rngs::StdRng::from_os_rng().random();
    format!("{n:0ID_LEN$x}")
}

fn is_id(id: &str) -> bool {
    id.len() == ID_LEN && id.bytes().all(|b| b.is_ascii_hexdigit())
}

fn file_of(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}.lock"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registered_dashboard_runs_until_it_is_dropped() {
        let dir = tempfile::tempdir().expect("tempdir");
        let one = Registration::register(dir.path());
        let two = Registration::register(dir.path());
        assert_ne!(one.id(), two.id());
        assert!(running(dir.path(), one.id()));
        assert!(running(dir.path(), two.id()));
        let gone = one.id().to_string();
        drop(one);
        assert!(!running(dir.path(), &gone));
        assert!(running(dir.path(), two.id()));
        assert!(!running(dir.path(), "../../etc/passwd"));
        assert!(!running(dir.path(), "0123456789abcdef"));
    }

    #[test]
    fn files_of_dashboards_that_died_are_swept() {
        let dir = tempfile::tempdir().expect("tempdir");
        // A crashed dashboard leaves its file, unlocked.
        let stale = file_of(dir.path(), "00000000000000aa");
        fs::write(&stale, b"").expect("write");
        assert!(!running(dir.path(), "00000000000000aa"));
        let me = Registration::register(dir.path());
        assert!(!stale.exists());
        assert!(file_of(dir.path(), me.id()).exists());
    }
}
