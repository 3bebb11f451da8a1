//! Writing a file so that a crash leaves either the whole old or the whole new content: a
//! temporary file beside the target (created fresh, with its final mode from the start),
//! synced, renamed over the target, and the directory synced so the rename itself is durable.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

/// The prefix of the temporary files for `target`: `.<name>.tmp-`.
pub fn temp_prefix(target: &Path) -> String {
    let name = target
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    format!(".{name}.tmp-")
}

/// Atomically replaces `target` with `bytes`; `mode` (Unix) for a new file, e.g. 0o600.
pub fn write_atomic(target: &Path, bytes: &[u8], mode: Option<u32>) -> io::Result<()> {
    let mut file = AtomicFile::create(target, mode)?;
    file.writer().write_all(bytes)?;
    file.commit()
}

/// A replacement of `target` being written: its content goes to the temporary file, which
/// `commit` syncs and renames over the target. Dropped uncommitted, it leaves the target as
/// it was and removes the temporary file. Lets a large content be streamed rather than held.
pub struct AtomicFile {
    file: Option<io::BufWriter<File>>,
    temp: std::path::PathBuf,
    target: std::path::PathBuf,
    committed: bool,
}

impl AtomicFile {
    pub fn create(target: &Path, mode: Option<u32>) -> io::Result<AtomicFile> {
        let dir = target
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        fs::create_dir_all(dir)?;
        let temp = dir.join(format!("{}{}", temp_prefix(target), std::process::id()));
        let _ = fs::remove_file(&temp);
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        if let Some(m) = mode {
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, m);
        }
        #[cfg(not(unix))]
        let _ = mode;
        let file = options.open(&temp)?;
        Ok(AtomicFile {
            file: Some(io::BufWriter::new(file)),
            temp,
            target: target.to_path_buf(),
            committed: false,
        })
    }

    /// Where the new content goes.
    pub fn writer(&mut self) -> &mut dyn Write {
        match &mut self.file {
            Some(f) => f,
            None => unreachable!("the file is taken only by commit, which consumes it"),
        }
    }

    /// Syncs the new content and renames it over the target, then syncs the directory.
    pub fn commit(mut self) -> io::Result<()> {
        let Some(buffered) = self.file.take() else {
            return Ok(());
        };
        let file = buffered
            .into_inner()
            .map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&self.temp, &self.target)?;
        self.committed = true;
        if let Some(dir) = self.target.parent()
            && let Ok(d) = File::open(if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            })
        {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_and_sets_the_mode() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("sub/f.txt");
        write_atomic(&p, b"one", Some(0o600)).expect("write");
        write_atomic(&p, b"two", Some(0o600)).expect("write");
        assert_eq!(fs::read(&p).expect("read"), b"two");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(&p).expect("meta").permissions().mode() & 0o777,
                0o600
            );
        }
        let names: Vec<_> = fs::read_dir(p.parent().expect("dir"))
            .expect("ls")
            .map(|e| e.expect("e").file_name())
            .collect();
        assert_eq!(names.len(), 1, "no temporary file left: {names:?}");
    }

    #[test]
    fn a_streamed_replacement_lands_whole_on_commit_and_not_at_all_when_dropped() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("f.json");
        write_atomic(&p, b"old", None).expect("write");
        let mut staged = AtomicFile::create(&p, None).expect("create");
        staged.writer().write_all(b"new, ").expect("write");
        staged.writer().write_all(b"streamed").expect("write");
        assert_eq!(fs::read(&p).expect("read"), b"old", "not before the commit");
        staged.commit().expect("commit");
        assert_eq!(fs::read(&p).expect("read"), b"new, streamed");
        let mut abandoned = AtomicFile::create(&p, None).expect("create");
        abandoned.writer().write_all(b"half").expect("write");
        drop(abandoned);
        assert_eq!(fs::read(&p).expect("read"), b"new, streamed");
        let names = fs::read_dir(dir.path()).expect("ls").count();
        assert_eq!(names, 1, "no temporary file left");
    }
}
