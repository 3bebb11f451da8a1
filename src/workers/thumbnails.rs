//! The thumbnail worker: the gallery's tiles near the screen, each made once (decoded from the
//! saved file or the download URL's copy in the preview cache, shrunk, kept on disk as a small
//! PNG in the thumbnail cache), then encoded in the terminal's protocol for the tile's size and
//! sent back by value. A later showing reads the kept PNG: no fetch, no decode of the file.
//!
//! A request names every tile near the screen: work for any other tile (scrolled away) is
//! abandoned. At most `AT_ONCE` tiles are worked on at a time, so what is decoded at once is
//! bounded whatever the number of results, and the App's loop never waits for any of it.

use super::copies::Copies;
use super::video_frames::{VideoFrames, blocking};
use crate::api::download::Downloader;
use crate::cmd::{PreviewSource, TaskKey, ThumbnailRequest, TileSource};
use crate::msg::ThumbnailReport;
use crate::picture::decode::{self as decode, Decoded, MAX_FILE_BYTES, PreviewError};
use crate::picture::video::{self, Ffmpeg, Frame, VideoPreview};
use crate::picture::{Graphics, Picture};
use crate::store::cache::ImageCache;
use crate::store::thumb_cache::{THUMB_SIDE, ThumbCache};
use ratatui::layout::Size;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinHandle;

/// Tiles worked on at once: each holds one decoded picture (at most `KEPT_SIDE`² pixels)
/// while it is shrunk.
pub const AT_ONCE: usize = 2;

struct Shared {
    graphics: Graphics,
    previews: ImageCache,
    thumbs: ThumbCache,
    downloader: Downloader,
    copies: Copies,
    turns: Semaphore,
    /// Videos' poster frames, made as the preview makes them.
    frames: VideoFrames,
    /// Thumbnails made from a file (decoded and kept on disk): a test reads it.
    made: AtomicU64,
}

/// The App's handle on the thumbnail worker; dropping it abandons the work in flight.
pub struct Handle<T> {
    shared: Arc<Shared>,
    out: mpsc::Sender<T>,
    wrap: fn(ThumbnailReport) -> T,
    jobs: HashMap<TaskKey, JoinHandle<()>>,
    next_id: u32,
}

/// Draws thumbnails with `graphics`, fetching pictures with `downloader` into `previews` (taking
/// turns with the downloads and the preview through `copies`) and keeping them in `thumbs`.
pub fn spawn<T: Send + 'static>(
    graphics: Graphics,
    previews: ImageCache,
    thumbs: ThumbCache,
    downloader: Downloader,
    copies: Copies,
    out: mpsc::Sender<T>,
    wrap: fn(ThumbnailReport) -> T,
) -> Handle<T> {
    Handle {
        shared: Arc::new(Shared {
            frames: VideoFrames::new(previews.clone(), downloader.clone()),
            graphics,
            previews,
            thumbs,
            downloader,
            copies,
            turns: Semaphore::new(AT_ONCE),
            made: AtomicU64::new(0),
        }),
        out,
        wrap,
        jobs: HashMap::new(),
        // Kitty tells pictures apart by id: a quarter of the id space away from the previews'.
        next_id: std::process::id()
            .wrapping_mul(2_654_435_761)
            .wrapping_add(1 << 30)
            .max(1),
    }
}

impl<T: Send + 'static> Handle<T> {
    /// Makes videos' frames with `ffmpeg` (`None`: none installed) within `limits`, instead of
    /// the one on `PATH` (tests give a fake, or none). Called before the first request.
    #[must_use]
    pub fn with_ffmpeg(mut self, ffmpeg: Option<Ffmpeg>, limits: video::Limits) -> Self {
        if let Some(shared) = Arc::get_mut(&mut self.shared) {
            shared.frames.set_ffmpeg(ffmpeg, limits);
        }
        self
    }

    /// Works on `req` (`Cmd::Thumbnails`); work for tiles it does not keep is abandoned.
    pub fn request(&mut self, req: ThumbnailRequest) {
        self.jobs.retain(|key, job| {
            let keep = req.keep.contains(key) && !job.is_finished();
            if !keep {
                job.abort();
            }
            keep
        });
        for (key, source) in req.tiles {
            if self.jobs.contains_key(&key) {
                continue;
            }
            let id = self.next_id;
            self.next_id = self.next_id.wrapping_add(1).max(1);
            let (shared, out, wrap, size) =
                (self.shared.clone(), self.out.clone(), self.wrap, req.size);
            let job_key = key.clone();
            let job = tokio::spawn(async move {
                let Ok(_turn) = shared.turns.acquire().await else {
                    return;
                };
                let result = shared.tile(&source, size, id).await;
                let report = ThumbnailReport {
                    key: job_key,
                    size,
                    result,
                };
                let _ = out.send(wrap(report)).await;
            });
            self.jobs.insert(key, job);
        }
    }

    /// How many thumbnails were made from a file (not read back from the disk cache).
    pub fn made(&self) -> u64 {
        self.shared.made.load(Ordering::SeqCst)
    }
}

impl<T> Drop for Handle<T> {
    fn drop(&mut self) {
        for job in self.jobs.values() {
            job.abort();
        }
    }
}

impl Shared {
    async fn tile(
        &self,
        source: &TileSource,
        size: Size,
        id: u32,
    ) -> Result<Picture, PreviewError> {
        match source {
            TileSource::Video(file) => self.video_tile(file, size, id).await,
            TileSource::Image(file) => {
                let small = self.thumbnail(file).await?;
                let graphics = self.graphics;
                blocking(move || decode::encode(&small, &graphics, size, id))
                    .await?
                    .map(Picture::Image)
            }
        }
    }

    /// The picture shrunk to a thumbnail: the kept one, else made from the file and kept.
    async fn thumbnail(&self, file: &PreviewSource) -> Result<Decoded, PreviewError> {
        let key = cache_key(file);
        if let Some(decoded) = self.kept(&key).await? {
            return Ok(decoded);
        }
        let path = match file {
            PreviewSource::File(path) => path.clone(),
            PreviewSource::Url(url) => self.fetch(url).await?,
        };
        let thumbs = self.thumbs.clone();
        let made = blocking(move || make(&path, &thumbs, &key)).await??;
        self.made.fetch_add(1, Ordering::SeqCst);
        Ok(made)
    }

    /// `url`'s file in the preview cache, fetched there if it is not yet.
    async fn fetch(&self, url: &str) -> Result<PathBuf, PreviewError> {
        let mut known = self.copies.hold(url).await;
        let (cache, key) = (self.previews.clone(), url.to_string());
        if let Some(path) = blocking(move || cache.hit(&key)).await? {
            return Ok(path);
        }
        if let Some(saved) = known.clone()
            && tokio::fs::metadata(&saved).await.is_ok_and(|m| m.is_file())
        {
            return Ok(saved);
        }
        let cache = self.previews.clone();
        let scratch = blocking(move || cache.scratch())
            .await?
            .map_err(|e| PreviewError::Cache(e.to_string()))?;
        let fetched = self
            .downloader
            .fetch_seen(url, scratch.path(), "thumbnail", false, &mut |_, _| {})
            .await
            .map_err(|e| {
                PreviewError::Fetch(e.to_string().lines().next().unwrap_or("").to_string())
            })?;
        let (cache, key) = (self.previews.clone(), url.to_string());
        let origin = crate::store::cache::Origin {
            etag: fetched.etag,
            url: Some(fetched.url),
        };
        let path = blocking(move || cache.admit(&fetched.path, &key, &origin))
            .await?
            .map_err(|e| PreviewError::Cache(e.to_string()))?;
        *known = Some(path.clone());
        tokio::task::spawn_blocking(move || drop(scratch));
        Ok(path)
    }

    /// A video's tile: the thumbnail of its poster frame (the kept one, else made from the
    /// frame ffmpeg takes, as the preview does, and kept), with its size; without a frame, why.
    async fn video_tile(
        &self,
        file: &PreviewSource,
        size: Size,
        id: u32,
    ) -> Result<Picture, PreviewError> {
        let key = format!("frame {}", cache_key(file));
        let (small, bytes) = if let Some(small) = self.kept(&key).await? {
            (Ok(small), self.video_size(file).await)
        } else {
            let shot = self.frames.poster(file).await?;
            let small = match shot.frame {
                Ok(poster) => {
                    let thumbs = self.thumbs.clone();
                    let made = blocking(move || keep(&poster.frame, &thumbs, &key)).await??;
                    self.made.fetch_add(1, Ordering::SeqCst);
                    Ok(made)
                }
                Err(why) => Err(why.to_string()),
            };
            (small, shot.bytes)
        };
        let frame = match small {
            Ok(small) => {
                let graphics = self.graphics;
                let image = blocking(move || decode::encode(&small, &graphics, size, id)).await??;
                Frame::Shown {
                    image,
                    at: std::time::Duration::ZERO,
                    area: size,
                }
            }
            Err(why) => Frame::Missing(why),
        };
        Ok(Picture::Video(VideoPreview {
            bytes,
            duration: None,
            frame,
        }))
    }

    /// The thumbnail kept as `key`, if there is one that decodes.
    async fn kept(&self, key: &str) -> Result<Option<Decoded>, PreviewError> {
        let (thumbs, key) = (self.thumbs.clone(), key.to_string());
        let Some(png) = blocking(move || thumbs.get(&key)).await? else {
            return Ok(None);
        };
        Ok(blocking(move || decode::decode(&png)).await?.ok())
    }

    async fn video_size(&self, file: &PreviewSource) -> Option<u64> {
        match file {
            PreviewSource::File(path) => tokio::fs::metadata(path).await.ok().map(|m| m.len()),
            PreviewSource::Url(url) => self.downloader.announced_length(url).await.ok().flatten(),
        }
    }
}

/// The name a picture's thumbnail is kept under: the URL, or the file's path with its length
/// and time (a file replaced by another gets a thumbnail of its own).
fn cache_key(file: &PreviewSource) -> String {
    match file {
        PreviewSource::Url(url) => format!("url {url}"),
        PreviewSource::File(path) => {
            let stamp = std::fs::metadata(path).ok().map(|m| {
                let when = m
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos());
                (m.len(), when)
            });
            format!("file {} {stamp:?}", path.display())
        }
    }
}

/// Reads, decodes and shrinks the picture at `path`, and keeps it as `key`'s thumbnail.
fn make(path: &Path, thumbs: &ThumbCache, key: &str) -> Result<Decoded, PreviewError> {
    let cannot = |e: std::io::Error| PreviewError::Read {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    let len = std::fs::metadata(path).map_err(cannot)?.len();
    if len > MAX_FILE_BYTES {
        return Err(PreviewError::TooBig(len));
    }
    let bytes = std::fs::read(path).map_err(cannot)?;
    let decoded = decode::decode(&bytes)?;
    drop(bytes);
    keep(&decoded, thumbs, key)
}

/// `decoded` shrunk to a thumbnail, kept as `key`'s.
fn keep(decoded: &Decoded, thumbs: &ThumbCache, key: &str) -> Result<Decoded, PreviewError> {
    let small = decoded.image.thumbnail(THUMB_SIDE, THUMB_SIDE);
    let mut png = Vec::new();
    small
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .map_err(|e| PreviewError::Cache(e.to_string()))?;
    // A thumbnail that cannot be kept is still shown; the next showing makes it again.
    if let Err(e) = thumbs.put(key, &png) {
        tracing::warn!("cannot keep a thumbnail in {}: {e}", thumbs.dir().display());
    }
    Ok(Decoded {
        image: small,
        pixels: decoded.pixels,
    })
}

#[cfg(test)]
mod tests;
