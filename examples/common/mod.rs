//! What the archive examples share: `DIR [ROUNDS] [PAUSE_MS]` from the command line, and the
//! list read from the archive in `DIR` as the view gets it (`Archive::list`).

use gendash::store::archive::{Archive, ArchivedTask};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

/// The queries typed, as `scripts/measure-archive.py` types them by default.
pub const QUERIES: &[&str] = &[
    "cat",
    "label:sunset",
    "status:failed",
    "fill-99",
    "!kind:video neon",
];

/// The archive's list, how many rounds to type (3 unless given) and the pause between keys in
/// milliseconds (`pause` unless given); else the exit code, the reason said on stderr.
pub fn archive_and_rounds(
    name: &str,
    pause: u64,
) -> Result<(Arc<[ArchivedTask]>, usize, u64), ExitCode> {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next() else {
        eprintln!("usage: {name} DIR [ROUNDS] [PAUSE_MS]");
        return Err(ExitCode::from(2));
    };
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(3);
    let pause: u64 = args.next().and_then(|r| r.parse().ok()).unwrap_or(pause);
    let files = gendash::store::archive::Files::in_dir(Path::new(&dir));
    let path = &files.archive;
    // Opening makes an empty archive where there is none: that would time nothing.
    if !path.exists() {
        eprintln!(
            "{name}: no archive at {} (examples/archive_fill.rs makes one)",
            path.display()
        );
        return Err(ExitCode::FAILURE);
    }
    match Archive::open(&files).and_then(|a| a.list()) {
        Ok(list) => Ok((list.into(), rounds, pause)),
        Err(e) => {
            eprintln!("{name}: {e}");
            Err(ExitCode::FAILURE)
        }
    }
}
