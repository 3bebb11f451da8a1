//! A finished video's size and poster frame (`picture::video`), for the preview and the
//! gallery's tiles alike: made by ffmpeg from the saved file, the cached copy, or else the
//! first [`VIDEO_HEAD_BYTES`] of the URL fetched with a `Range` request; never from a whole
//! file fetched for a picture.

use crate::api::ApiError;
use crate::api::download::Downloader;
use crate::cmd::PreviewSource;
use crate::picture::decode::PreviewError;
use crate::picture::video::{self, Ffmpeg, Poster, VideoFrameError};
use crate::store::cache::ImageCache;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

/// A video not saved or cached is previewed from at most its first 4 MiB: the whole of a
/// 5-second 720p clip (2 to 4 MB as generators write them), and with the index at the file's
/// start (as generators and `-movflags faststart` put it) seconds of a 1080p one, well past
/// the moment shown.
pub const VIDEO_HEAD_BYTES: u64 = 4 * 1024 * 1024;

/// What a video shows: its size when known, and its frame or why there is none.
pub struct Shot {
    pub bytes: Option<u64>,
    pub frame: Result<Poster, VideoFrameError>,
}

/// Makes frames with the ffmpeg found once on `PATH` (or the one tests give), fetching the
/// heads of videos not saved into `cache`'s scratch space with `downloader`.
#[derive(Clone)]
pub struct VideoFrames {
    /// `None` without one.
    ffmpeg: Option<Ffmpeg>,
    limits: video::Limits,
    cache: ImageCache,
    downloader: Downloader,
}

impl VideoFrames {
    pub fn new(cache: ImageCache, downloader: Downloader) -> Self {
        VideoFrames {
            ffmpeg: Ffmpeg::on_path(),
            limits: video::Limits::default(),
            cache,
            downloader,
        }
    }

    /// Uses `ffmpeg` (`None`: none installed) within `limits` instead of the one on `PATH`.
    pub fn set_ffmpeg(&mut self, ffmpeg: Option<Ffmpeg>, limits: video::Limits) {
        self.ffmpeg = ffmpeg;
        self.limits = limits;
    }

    /// A video's size and poster frame: from the file when there is one (saved, or cached),
    /// else from the URL's first [`VIDEO_HEAD_BYTES`]. Without ffmpeg, only the size, asked
    /// without the body.
    pub async fn poster(&self, source: &PreviewSource) -> Result<Shot, PreviewError> {
        let make = |file: PathBuf, whole: Option<u64>| {
            let (ffmpeg, limits) = (self.ffmpeg.clone(), self.limits);
            async move {
                let source = video::Source { file: &file, whole };
                video::poster_frame(ffmpeg.as_ref(), source, &limits).await
            }
        };
        let local = match source {
            PreviewSource::File(path) => Some(path.clone()),
            PreviewSource::Url(url) => {
                let (cache, key) = (self.cache.clone(), url.clone());
                blocking(move || cache.hit(&key)).await?
            }
        };
        if let Some(file) = local {
            let bytes = tokio::fs::metadata(&file).await.ok().map(|m| m.len());
            return Ok(Shot {
                bytes,
                frame: make(file, None).await,
            });
        }
        let PreviewSource::Url(url) = source else {
            unreachable!("a file is local")
        };
        if self.ffmpeg.is_none() {
            let bytes = self.remote_size(url).await;
            return Ok(Shot {
                bytes,
                frame: Err(VideoFrameError::NoFfmpeg),
            });
        }
        let cache = self.cache.clone();
        let scratch = blocking(move || cache.scratch())
            .await?
            .map_err(|e| PreviewError::Cache(e.to_string()))?;
        let file = scratch.path().join("head");
        let fetched = match self
            .downloader
            .fetch_head(url, &file, VIDEO_HEAD_BYTES)
            .await
        {
            Ok(head) => {
                let whole = head.total.filter(|total| *total > head.bytes);
                let bytes = head
                    .total
                    .or((head.bytes < VIDEO_HEAD_BYTES).then_some(head.bytes));
                Ok(Shot {
                    bytes,
                    frame: make(file, whole).await,
                })
            }
            Err(ApiError::Invalid(reason)) => Err(PreviewError::Refused(reason)),
            Err(e) => Err(PreviewError::Fetch(first_line(&e.to_string()))),
        };
        tokio::task::spawn_blocking(move || drop(scratch));
        fetched
    }

    /// A video's size as the server announces it: asked with `HEAD`, so the file is fetched
    /// only by its download; a server without `HEAD` gets a `GET` stopped at the headers.
    pub async fn remote_size(&self, url: &str) -> Option<u64> {
        let (cache, key) = (self.cache.clone(), url.to_string());
        if let Ok(Some(path)) = blocking(move || cache.hit(&key)).await {
            return tokio::fs::metadata(path).await.ok().map(|m| m.len());
        }
        if let Ok(Some(len)) = self.downloader.announced_length(url).await {
            return Some(len);
        }
        let cache = self.cache.clone();
        let scratch = blocking(move || cache.scratch()).await.ok()?.ok()?;
        let total = Arc::new(Mutex::new(None));
        let stop = Arc::new(Notify::new());
        let mut progress = {
            let (total, stop) = (total.clone(), stop.clone());
            move |_: u64, announced: Option<u64>| {
                if let Ok(mut t) = total.lock() {
                    *t = announced;
                }
                stop.notify_one();
            }
        };
        let size = tokio::select! {
            biased;
            () = stop.notified() => total.lock().ok().and_then(|t| *t),
            r = self.downloader.fetch(url, scratch.path(), "probe", false, &mut progress) => {
                match r {
                    Ok(file) => tokio::fs::metadata(file).await.ok().map(|m| m.len()),
                    Err(_) => None,
                }
            }
        };
        tokio::task::spawn_blocking(move || drop(scratch));
        size
    }
}

/// Runs slow work on a blocking thread, off the App's one-thread runtime (the picture
/// workers' way).
pub(super) async fn blocking<R: Send + 'static>(
    f: impl FnOnce() -> R + Send + 'static,
) -> Result<R, PreviewError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| PreviewError::Worker(e.to_string()))
}

/// An error's first line, at most 160 characters: what a picture's place can show.
pub(super) fn first_line(text: &str) -> String {
    text.lines()
        .next()
        .unwrap_or_default()
        .chars()
        .take(160)
        .collect()
}
