//! Downloaded pictures kept for previews, under the platform cache directory: one file per
//! URL, the whole held under a cap by removing the least recently used first. Everything here
//! is blocking file work, for a worker's blocking thread.

use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The cache's default cap: a few dozen generated pictures.
pub const DEFAULT_CAP: u64 = 200_000_000;

/// Scratch directories older than this were left by a process that died mid-download.
const STALE_SCRATCH: Duration = Duration::from_secs(24 * 3600);

/// Kept pictures end in this; anything else in the directory is left alone by eviction.
const EXTENSION: &str = "img";

#[derive(Debug, Clone)]
pub struct ImageCache {
    dir: PathBuf,
    cap: u64,
}

impl ImageCache {
    pub fn new(dir: PathBuf, cap: u64) -> Self {
        ImageCache { dir, cap }
    }

    /// `~/.cache/gendash/previews` on Linux.
    pub fn default_dir() -> PathBuf {
        super::paths::cache_dir().join("previews")
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where `url`'s picture is kept: named by a hash of the URL, so nothing the service
    /// sends decides a path.
    pub fn path_for(&self, url: &str) -> PathBuf {
        self.dir
            .join(format!("{:016x}.{EXTENSION}", fnv1a(url.as_bytes())))
    }

    /// The kept picture for `url`, if there is one; marked as just used.
    pub fn hit(&self, url: &str) -> Option<PathBuf> {
        let path = self.path_for(url);
        let file = std::fs::OpenOptions::new().append(true).open(&path).ok()?;
        // Eviction goes by modification time: a use counts as one.
        let _ = file.set_modified(SystemTime::now());
        Some(path)
    }

    /// A private directory to download into, removed when dropped; inside the cache
    /// directory, so the finished file is renamed into place on the same file system.
    pub fn scratch(&self) -> io::Result<Scratch> {
        std::fs::create_dir_all(&self.dir)?;
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        let dir = self
            .dir
            .join(format!(".scratch-{}-{nanos}", std::process::id()));
        std::fs::create_dir(&dir)?;
        Ok(Scratch(dir))
    }

    /// Moves a finished download in as `url`'s picture, then brings the cache under its cap
    /// (never removing the newcomer).
    pub fn admit(&self, file: &Path, url: &str) -> io::Result<PathBuf> {
        let path = self.path_for(url);
        std::fs::rename(file, &path)?;
        self.evict(&path)?;
        Ok(path)
    }

    /// Removes the least recently used pictures until the rest fit under the cap, and
    /// scratch directories a dead process left behind. Returns the bytes freed.
    pub fn evict(&self, keep: &Path) -> io::Result<u64> {
        let mut kept = Vec::new();
        let now = SystemTime::now();
        for entry in std::fs::read_dir(&self.dir)? {
            let entry = entry?;
            let path = entry.path();
            let Ok(meta) = entry.metadata() else { continue };
            let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            let name = entry.file_name();
            if meta.is_dir() && name.to_string_lossy().starts_with(".scratch-") {
                if now.duration_since(modified).unwrap_or_default() > STALE_SCRATCH {
                    let _ = std::fs::remove_dir_all(&path);
                }
            } else if meta.is_file() && path.extension().is_some_and(|e| e == EXTENSION) {
                kept.push((modified, meta.len(), path));
            }
        }
        let mut total: u64 = kept.iter().map(|(_, len, _)| len).sum();
        kept.sort();
        let mut freed = 0;
        for (_, len, path) in kept {
            if total <= self.cap {
                break;
            }
            if path == keep {
                continue;
            }
            std::fs::remove_file(&path)?;
            total -= len;
            freed += len;
        }
        Ok(freed)
    }
}

/// A download's private directory, removed with whatever is left in it.
#[derive(Debug)]
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// FNV-1a, 64 bits: stable across Rust versions (unlike the std hasher), so a cache outlives
/// an upgrade.
pub(super) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(cache: &ImageCache, url: &str, len: usize, age_secs: u64) -> PathBuf {
        let scratch = cache.scratch().expect("scratch");
        let file = scratch.path().join("f");
        std::fs::write(&file, vec![7u8; len]).expect("write");
        let path = cache.admit(&file, url).expect("admit");
        let when = SystemTime::now() - Duration::from_secs(age_secs);
        std::fs::File::options()
            .append(true)
            .open(&path)
            .and_then(|f| f.set_modified(when))
            .expect("set time");
        path
    }

    #[test]
    fn the_cache_stays_under_its_cap_oldest_first() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = ImageCache::new(dir.path().join("previews"), 1000);
        let a = put(&cache, "https://x/a.png", 400, 300);
        let b = put(&cache, "https://x/b.png", 400, 200);
        assert!(a.exists() && b.exists());
        // a is used again: b is now the oldest.
        assert_eq!(cache.hit("https://x/a.png"), Some(a.clone()));
        let c = put(&cache, "https://x/c.png", 400, 0);
        assert!(a.exists() && !b.exists() && c.exists());
        assert_eq!(cache.hit("https://x/b.png"), None);
        // A newcomer bigger than the cap stays; everything else goes.
        let d = put(&cache, "https://x/d.png", 1500, 0);
        assert!(d.exists() && !a.exists() && !c.exists());
        // No scratch directory is left behind, and nothing else was touched.
        let names: Vec<_> = std::fs::read_dir(cache.dir())
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn names_come_from_the_url_hash_only() {
        let cache = ImageCache::new(PathBuf::from("/c"), 1);
        let p = cache.path_for("https://x/../../etc/passwd");
        assert_eq!(p.parent(), Some(Path::new("/c")));
        assert_ne!(p, cache.path_for("https://x/other"));
        assert_eq!(p, cache.path_for("https://x/../../etc/passwd"));
    }

    #[test]
    fn stale_scratch_directories_are_swept() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = ImageCache::new(dir.path().to_path_buf(), 1000);
        let old = dir.path().join(".scratch-1-1");
        std::fs::create_dir(&old).expect("mkdir");
        std::fs::write(old.join("part"), b"x").expect("write");
        let fresh = cache.scratch().expect("scratch");
        let past = SystemTime::now() - Duration::from_secs(3 * 24 * 3600);
        std::fs::File::open(&old)
            .and_then(|f| f.set_modified(past))
            .expect("age the directory");
        cache.evict(Path::new("")).expect("evict");
        assert!(!old.exists() && fresh.path().exists());
        let kept = fresh.path().to_path_buf();
        drop(fresh);
        assert!(!kept.exists());
    }
}
