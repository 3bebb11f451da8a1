//! Downloaded pictures kept for previews, under the platform cache directory: one file per
//! URL, with the `ETag` it came with and the URL its fetch ended at (after redirects) beside
//! it (so a download copied from here still tells its provenance file which version it is and
//! where it came from), the whole held under a cap by removing the least
//! recently used first. Everything here is blocking file work, for a worker's blocking thread.

use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The cache's default cap: a few dozen generated pictures.
pub const DEFAULT_CAP: u64 = 200_000_000;

/// Scratch directories older than this were left by a process that died mid-download.
const STALE_SCRATCH: Duration = Duration::from_secs(24 * 3600);

/// Kept pictures end in this; anything else in the directory is left alone by eviction.
const EXTENSION: &str = "img";
/// A kept picture's origin, beside it: `<hash>.etag`, holding `<inode> <length>`, then its
/// `ETag` and its final URL, each on a line of its own (empty when unknown). A tag of another
/// form (an older gendash's) is not read.
const ETAG_EXTENSION: &str = "etag";
/// More than a tag file ever holds (two numbers, a validator of at most 512 bytes, a URL).
const TAG_MOST: u64 = 16_384;

/// What a kept picture came with: the `ETag` the server sent (a strong one) and the URL its
/// fetch ended at, after redirects.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origin {
    pub etag: Option<String>,
    pub url: Option<url::Url>,
}

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
        super::paths::DataFiles::user().previews
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

    /// What `url`'s kept picture came with, as far as known. The tag names the picture it
    /// belongs to (its inode and length): a picture put there since by anything else
    /// (another gendash, an older one that knows no tags) has none. The `ETag` is read back
    /// as the downloader reads a validator (only a strong one of printable ASCII and a sane
    /// length), the URL only when it is http(s).
    pub fn origin(&self, url: &str) -> Origin {
        self.read_origin(url).unwrap_or_default()
    }

    fn read_origin(&self, url: &str) -> Option<Origin> {
        use std::io::Read as _;
        let path = self.path_for(url);
        let mut text = String::new();
        std::fs::File::open(path.with_extension(ETAG_EXTENSION))
            .ok()?
            .take(TAG_MOST)
            .read_to_string(&mut text)
            .ok()?;
        let mut lines = text.split('\n');
        let mut id = lines.next()?.split(' ');
        let (ino, len) = (id.next()?.parse().ok()?, id.next()?.parse().ok()?);
        let (etag, final_url) = (lines.next()?, lines.next()?);
        if id.next().is_some() || picture_id(&std::fs::metadata(&path).ok()?) != (ino, len) {
            return None;
        }
        Some(Origin {
            etag: crate::api::download::usable_validator(etag).filter(|v| v.starts_with('"')),
            url: url::Url::parse(final_url)
                .ok()
                .filter(|u| matches!(u.scheme(), "http" | "https")),
        })
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

    /// Moves a finished download in as `url`'s picture, with what it came with, then brings
    /// the cache under its cap (never removing the newcomer). The tag is written after the
    /// picture, naming it, so it is never read for another picture. A tag that cannot be
    /// written is logged: the picture is kept all the same, and a copy of it says `null` for
    /// its `ETag` and the URL asked for as its own.
    pub fn admit(&self, file: &Path, url: &str, origin: &Origin) -> io::Result<PathBuf> {
        let path = self.path_for(url);
        let tag = path.with_extension(ETAG_EXTENSION);
        // The old picture's tag could name the new one too, were its inode reused.
        let _ = remove_if_there(&tag);
        std::fs::rename(file, &path)?;
        if *origin != Origin::default() {
            // Staged beside the download, in its scratch directory: a crash leaves nothing
            // in the cache that a sweep would not remove.
            let staged = file.with_extension(ETAG_EXTENSION);
            let (etag, to) = (
                origin.etag.as_deref().unwrap_or(""),
                origin.url.as_ref().map_or("", url::Url::as_str),
            );
            let written = std::fs::metadata(&path).and_then(|picture| {
                let (ino, len) = picture_id(&picture);
                std::fs::write(&staged, format!("{ino} {len}\n{etag}\n{to}\n"))?;
                std::fs::rename(&staged, &tag)
            });
            if let Err(e) = written {
                tracing::warn!("cannot keep the ETag beside {}: {e}", path.display());
            }
        }
        self.evict(&path)?;
        Ok(path)
    }

    /// Removes the least recently used pictures until the rest fit under the cap, and
    /// scratch directories a dead process left behind. Returns the bytes freed.
    pub fn evict(&self, keep: &Path) -> io::Result<u64> {
        let mut kept = Vec::new();
        let mut tags = Vec::new();
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
            } else if meta.is_file() && path.extension().is_some_and(|e| e == ETAG_EXTENSION) {
                tags.push(path);
            }
        }
        let freed = evict_oldest(kept, self.cap, keep)?;
        // A tag whose picture is gone (evicted just now, removed by hand, or left by a crash
        // between the two): nothing may read it for the next picture of that URL.
        for tag in tags {
            if !tag.with_extension(EXTENSION).exists() {
                remove_if_there(&tag)?;
            }
        }
        Ok(freed)
    }
}

/// Removes the oldest of `files` (modified, length, path) until their total is at most `cap`,
/// never `keep` (the picture just written); one already gone (another dashboard evicted it)
/// counts as removed. Returns the bytes freed. Both caches evict this way.
pub(super) fn evict_oldest(
    mut files: Vec<(SystemTime, u64, PathBuf)>,
    cap: u64,
    keep: &Path,
) -> io::Result<u64> {
    let mut total: u64 = files.iter().map(|(_, len, _)| len).sum();
    files.sort();
    let mut freed = 0;
    for (_, len, path) in files {
        if total <= cap {
            break;
        }
        if path == keep {
            continue;
        }
        remove_if_there(&path)?;
        total -= len;
        freed += len;
    }
    Ok(freed)
}

/// Which file a tag belongs to: its inode and length.
fn picture_id(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt as _;
    (meta.ino(), meta.len())
}

fn remove_if_there(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
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
        let path = cache.admit(&file, url, &Origin::default()).expect("admit");
        let when = SystemTime::now() - Duration::from_secs(age_secs);
        std::fs::File::options()
            .append(true)
            .open(&path)
            .and_then(|f| f.set_modified(when))
            .expect("set time");
        path
    }

    /// A kept picture's `ETag` is read back with it; a picture admitted again without one
    /// has none (never its predecessor's); an evicted picture's tag goes with it, as does a
    /// tag left without its picture; a tag that is not a strong `ETag` of printable text is
    /// not read.
    #[test]
    fn each_picture_keeps_its_etag_and_loses_it_with_the_picture() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = ImageCache::new(dir.path().join("previews"), 1000);
        let admit = |url: &str, len: usize, etag: Option<&str>| {
            let scratch = cache.scratch().expect("scratch");
            let file = scratch.path().join("f");
            std::fs::write(&file, vec![7u8; len]).expect("write");
            let origin = Origin {
                etag: etag.map(str::to_string),
                url: None,
            };
            cache.admit(&file, url, &origin).expect("admit")
        };
        let etag = |url: &str| cache.origin(url).etag;
        let a = admit("https://x/a.png", 400, Some("\"v1\""));
        assert_eq!(etag("https://x/a.png").as_deref(), Some("\"v1\""));
        assert_eq!(etag("https://x/b.png"), None);
        admit("https://x/a.png", 400, None);
        assert_eq!(etag("https://x/a.png"), None, "not the old version's");
        admit("https://x/a.png", 400, Some("\"v2\""));
        assert_eq!(etag("https://x/a.png").as_deref(), Some("\"v2\""));
        // b and c push a out (the cap is 1,000 bytes): its tag goes too.
        admit("https://x/b.png", 400, Some("\"b\""));
        std::fs::File::options()
            .append(true)
            .open(&a)
            .and_then(|f| f.set_modified(SystemTime::now() - Duration::from_secs(60)))
            .expect("age a");
        admit("https://x/c.png", 400, None);
        assert!(!a.exists());
        let tag_of = |url: &str| cache.path_for(url).with_extension(ETAG_EXTENSION);
        assert!(!tag_of("https://x/a.png").exists(), "a's tag went with it");
        // A tag whose picture was removed by hand goes at the next eviction.
        std::fs::remove_file(cache.path_for("https://x/b.png")).expect("remove b");
        cache.evict(Path::new("")).expect("evict");
        assert!(!tag_of("https://x/b.png").exists());
        // The tag names its picture: one put in its place by anything else has none.
        let d = admit("https://x/d.png", 100, Some("\"d1\""));
        let other = dir.path().join("other");
        std::fs::write(&other, vec![8u8; 100]).expect("write");
        std::fs::rename(&other, &d).expect("replace d behind the cache's back");
        assert!(tag_of("https://x/d.png").exists());
        assert_eq!(etag("https://x/d.png"), None, "not the replaced picture's");
        // Only a strong ETag of printable text is read back.
        let c = cache.path_for("https://x/c.png");
        let (ino, len) = picture_id(&std::fs::metadata(&c).expect("c"));
        for bad in ["W/\"weak\"", "\"esc\u{1b}[31m\"", "unquoted"] {
            let tag = format!("{ino} {len}\n{bad}\n\n");
            std::fs::write(c.with_extension(ETAG_EXTENSION), tag).expect("write tag");
            assert_eq!(etag("https://x/c.png"), None, "{bad:?}");
        }
        let old = format!("{ino} {len} \"c1\"");
        std::fs::write(c.with_extension(ETAG_EXTENSION), old).expect("write tag");
        assert_eq!(etag("https://x/c.png"), None, "an older gendash's tag");
        let good = format!("{ino} {len}\n\"c1\"\n\n");
        std::fs::write(c.with_extension(ETAG_EXTENSION), good).expect("write tag");
        assert_eq!(etag("https://x/c.png").as_deref(), Some("\"c1\""));
    }

    /// The URL a kept picture's fetch ended at is read back with it (a download copied from
    /// here records it), and only an http(s) one.
    #[test]
    fn each_picture_keeps_its_final_url() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = ImageCache::new(dir.path().join("previews"), 1000);
        let scratch = cache.scratch().expect("scratch");
        let file = scratch.path().join("f");
        std::fs::write(&file, b"picture").expect("write");
        let origin = Origin {
            etag: Some("\"v1\"".into()),
            url: Some(url::Url::parse("http://away:9/files/a.png?sig=1").expect("url")),
        };
        let kept = cache
            .admit(&file, "http://x/a.png", &origin)
            .expect("admit");
        assert_eq!(cache.origin("http://x/a.png"), origin);
        assert_eq!(cache.origin("http://x/b.png"), Origin::default());
        let (ino, len) = picture_id(&std::fs::metadata(&kept).expect("kept"));
        let tag = format!("{ino} {len}\n\nfile:///etc/passwd\n");
        std::fs::write(kept.with_extension(ETAG_EXTENSION), tag).expect("write tag");
        assert_eq!(cache.origin("http://x/a.png"), Origin::default());
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
