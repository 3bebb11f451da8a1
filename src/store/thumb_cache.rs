//! The gallery's thumbnails on disk, in the preview cache's `thumbnails/` (which the preview
//! cache's eviction leaves alone): one small PNG per picture (at
//! most `THUMB_SIDE` pixels a side), named by a hash of where the picture came from, made once
//! and read back on every later showing. The whole is held under a cap by removing the oldest
//! first. Everything here is blocking file work, for a worker's blocking thread.

use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The cap on the thumbnails kept: about a thousand pictures of 30 kB.
pub const DEFAULT_CAP: u64 = 32_000_000;
/// A kept thumbnail's longer side in pixels: a tile of 32 cells of 10 pixels.
pub const THUMB_SIDE: u32 = 320;
/// Kept thumbnails end in this; anything else in the directory is left alone.
const EXTENSION: &str = "png";

#[derive(Debug, Clone)]
pub struct ThumbCache {
    dir: PathBuf,
    cap: u64,
}

impl ThumbCache {
    pub fn new(dir: PathBuf, cap: u64) -> Self {
        ThumbCache { dir, cap }
    }

    /// `thumbnails/` in the preview cache's directory.
    pub fn inside(previews: &Path) -> PathBuf {
        previews.join("thumbnails")
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the thumbnail of the picture known as `key` is kept: named by a hash, so nothing
    /// the service sends decides a path.
    pub fn path_for(&self, key: &str) -> PathBuf {
        self.dir
            .join(format!("{:016x}.{EXTENSION}", fnv1a(key.as_bytes())))
    }

    /// The kept thumbnail's bytes, if there is one.
    pub fn get(&self, key: &str) -> Option<Vec<u8>> {
        std::fs::read(self.path_for(key)).ok()
    }

    /// Keeps `png` as `key`'s thumbnail (written beside, then renamed: a reader never sees a
    /// part), then evicts the oldest until the rest fit under the cap.
    pub fn put(&self, key: &str, png: &[u8]) -> io::Result<PathBuf> {
        std::fs::create_dir_all(&self.dir)?;
        let path = self.path_for(key);
        let part = path.with_extension(format!("part{}", std::process::id()));
        std::fs::write(&part, png)?;
        std::fs::rename(&part, &path)?;
        self.evict(&path)?;
        Ok(path)
    }

    /// Removes the oldest thumbnails until the rest fit under the cap, never `keep`. Returns
    /// the bytes freed.
    pub fn evict(&self, keep: &Path) -> io::Result<u64> {
        let mut kept = Vec::new();
        for entry in std::fs::read_dir(&self.dir)? {
            let entry = entry?;
            let path = entry.path();
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_file() && path.extension().is_some_and(|e| e == EXTENSION) {
                let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                kept.push((modified, meta.len(), path));
            }
        }
        super::cache::evict_oldest(kept, self.cap, keep)
    }
}

/// FNV-1a: a stable name for a key (not a defence: the key is ours).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set_age(path: &Path, secs_ago: u64) {
        let when = SystemTime::now() - std::time::Duration::from_secs(secs_ago);
        let f = std::fs::File::options()
            .write(true)
            .open(path)
            .expect("the test's file work");
        f.set_modified(when).expect("the test's file work");
    }

    #[test]
    fn a_thumbnail_is_read_back_and_the_oldest_go_past_the_cap() {
        let dir = tempfile::tempdir().expect("the test's file work");
        let cache = ThumbCache::new(dir.path().join("thumbnails"), 250);
        assert_eq!(cache.get("a"), None);
        let a = cache.put("a", &[1; 100]).expect("the test's file work");
        set_age(&a, 30);
        let b = cache.put("b", &[2; 100]).expect("the test's file work");
        set_age(&b, 20);
        assert_eq!(cache.get("a"), Some(vec![1; 100]));
        // 300 bytes over a cap of 250: the oldest (a) goes, b and c stay.
        let c = cache.put("c", &[3; 100]).expect("the test's file work");
        assert!(!a.exists(), "the oldest was evicted");
        assert!(b.exists() && c.exists());
        assert_eq!(cache.get("b"), Some(vec![2; 100]));
        assert_eq!(cache.get("a"), None);
    }
}
