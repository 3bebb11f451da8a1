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
    let result = (|| {
        let mut f = options.open(&temp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&temp, target)?;
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
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
}
