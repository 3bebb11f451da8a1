//! One fetch per file: the preview and the download of the same URL take turns on it, and
//! whichever comes second uses the whole copy the first one left (the preview cache's, or the
//! saved file), so the service sees the file asked for once (`A` right after the detail showed
//! the picture).

use crate::store::cache::{ImageCache, Origin};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// The last whole copy of one URL's file this process made, if any; held while it is fetched.
pub type Known = tokio::sync::OwnedMutexGuard<Option<PathBuf>>;

#[derive(Clone, Default)]
pub struct Copies(Arc<Inner>);

#[derive(Default)]
struct Inner {
    /// Per URL: held while it is fetched, so a second fetch waits for the first.
    urls: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Option<PathBuf>>>>>,
    /// The preview cache, once previews started: a picture it holds from an earlier session
    /// need not be fetched again either.
    cache: OnceLock<ImageCache>,
}

impl Copies {
    /// Waits until no one else fetches `url`; the guard holds the path of its last whole copy.
    pub async fn hold(&self, url: &str) -> Known {
        self.slot(url).lock_owned().await
    }

    /// `url`'s guard at once if no one else fetches it.
    pub fn try_hold(&self, url: &str) -> Option<Known> {
        self.slot(url).try_lock_owned().ok()
    }

    /// `url`'s lock, made on first use.
    fn slot(&self, url: &str) -> Arc<tokio::sync::Mutex<Option<PathBuf>>> {
        let mut urls = self
            .0
            .urls
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        urls.entry(url.to_string()).or_default().clone()
    }

    pub fn set_cache(&self, cache: ImageCache) {
        let _ = self.0.cache.set(cache);
    }

    /// The preview cache's whole copy of `url`'s file, if it holds one, and what it came
    /// with (its `ETag`, the URL its fetch ended at). Blocking file work.
    pub fn cached(&self, url: &str) -> Option<(PathBuf, Origin)> {
        let cache = self.0.cache.get()?;
        Some((cache.hit(url)?, cache.origin(url)))
    }
}

/// Copies the whole file `from` to `target` through a temporary file beside it, so `target`
/// never holds a part. Blocking file work.
pub fn copy_whole(from: &Path, target: &Path) -> std::io::Result<()> {
    let mut source = std::fs::File::open(from)?;
    let mut file = crate::store::atomic::AtomicFile::create(target, None)?;
    std::io::copy(&mut source, file.writer())?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_second_fetch_of_a_url_waits_and_finds_the_first_ones_copy() {
        let dir = tempfile::tempdir().expect("dir");
        let copies = Copies::default();
        let mut first = copies.hold("http://x/a.png").await;
        let second = {
            let copies = copies.clone();
            tokio::spawn(async move { copies.hold("http://x/a.png").await.clone() })
        };
        tokio::task::yield_now().await;
        assert!(!second.is_finished(), "waits while the first fetches");
        let saved = dir.path().join("a.png");
        std::fs::write(&saved, b"whole").expect("write");
        *first = Some(saved.clone());
        drop(first);
        assert_eq!(second.await.expect("joined"), Some(saved.clone()));

        let target = dir.path().join("out/b.png");
        copy_whole(&saved, &target).expect("copied");
        assert_eq!(std::fs::read(&target).expect("read"), b"whole");
        assert_eq!(copies.cached("http://x/a.png"), None, "no cache yet");
        let cache = ImageCache::new(dir.path().join("cache"), 1_000_000);
        let scratch = cache.scratch().expect("scratch");
        std::fs::write(scratch.path().join("f"), b"whole").expect("write");
        let origin = Origin {
            etag: Some("\"e1\"".into()),
            url: Some(url::Url::parse("http://y/a.png").expect("url")),
        };
        let kept = cache
            .admit(&scratch.path().join("f"), "http://x/a.png", &origin)
            .expect("admitted");
        copies.set_cache(cache);
        assert_eq!(copies.cached("http://x/a.png"), Some((kept, origin)));
    }
}
