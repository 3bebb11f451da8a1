//! The preview worker: a finished task's picture, fetched once (the saved file, else the
//! download URL into the size-capped cache), decoded on a blocking thread, and encoded for the
//! area the App asks for, sent back by value. A new area costs an encoding, not a fetch.
//!
//! A finished video shows its poster frame (`picture::video`), made by ffmpeg from the saved
//! file, the cached copy, or else the first [`VIDEO_HEAD_BYTES`] of the URL fetched with a
//! `Range` request; never from a whole file fetched for the preview.
//!
//! Only the latest request matters: a request for another file aborts what is in flight for
//! the previous one. Decoded pictures of the last few files are kept, so coming back to a
//! task or resizing the pane is instant.

use super::copies::Copies;
use super::video_frames::{VideoFrames, blocking, first_line};
use crate::api::ApiError;
use crate::api::download::Downloader;
use crate::api::types::TaskKind;
use crate::cmd::{PreviewRequest, PreviewSource};
use crate::msg::PreviewReport;
use crate::picture::decode::{self as decode, Decoded, MAX_FILE_BYTES, PreviewError};
use crate::picture::video::{self, Ffmpeg, Frame, Poster, VideoFrameError, VideoPreview};
use crate::picture::{Graphics, Picture};
use crate::store::cache::ImageCache;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{Notify, OnceCell, mpsc};
use tokio::task::JoinHandle;

/// Decoded pictures kept for the files most recently shown: each is at most
/// `KEPT_SIDE`² pixels, so this bounds the memory they hold.
const KEPT: usize = 3;

pub use super::video_frames::VIDEO_HEAD_BYTES;

/// What a file turned out to be; kept, so it is fetched and decoded once.
enum Fetched {
    Image(Arc<Decoded>),
    /// A video's size (when known) and its frame, or why there is none.
    Video(Option<u64>, Result<Arc<Poster>, VideoFrameError>),
    /// It will not be shown however often it is asked for: too big, not an image, a
    /// refused link. (Transport errors are not kept: the next request tries again.)
    Refused(PreviewError),
}

type Slot = Arc<OnceCell<Fetched>>;

struct Shared {
    graphics: Graphics,
    cache: ImageCache,
    downloader: Downloader,
    kept: Mutex<VecDeque<(PreviewSource, Slot)>>,
    frames: VideoFrames,
}

/// The App's handle on the preview worker; dropping it abandons the work in flight. Reports go
/// out as `wrap(report)`: `Msg::Preview` in the dashboard, the bare report in tests.
pub struct Handle<T> {
    shared: Arc<Shared>,
    out: mpsc::Sender<T>,
    wrap: fn(PreviewReport) -> T,
    jobs: Vec<(PreviewSource, JoinHandle<()>)>,
    next_id: u32,
    /// Shared with the downloads, so a file is fetched once.
    copies: Copies,
    /// How long a request waits before its work starts (`settling`): one for another file
    /// cancels it meanwhile, so pictures flashed past while typing are never fetched.
    settle: std::time::Duration,
}

/// Draws pictures with `graphics`, fetching with `downloader` into `cache`; takes turns with
/// the downloads on each URL through `copies`, and uses theirs.
pub fn spawn<T: Send + 'static>(
    graphics: Graphics,
    cache: ImageCache,
    downloader: Downloader,
    copies: Copies,
    out: mpsc::Sender<T>,
    wrap: fn(PreviewReport) -> T,
) -> Handle<T> {
    Handle {
        shared: Arc::new(Shared {
            frames: VideoFrames::new(cache.clone(), downloader.clone()),
            graphics,
            cache,
            downloader,
            kept: Mutex::new(VecDeque::new()),
        }),
        out,
        wrap,
        jobs: Vec::new(),
        copies,
        settle: std::time::Duration::ZERO,
        // Kitty tells pictures apart by id; another program's pictures may share the
        // screen's history, so start somewhere unlikely.
        next_id: std::process::id().wrapping_mul(2_654_435_761).max(1),
    }
}

impl<T: Send + 'static> Handle<T> {
    /// Numbers its pictures half the id space away from another worker's, so two workers on
    /// one screen never draw over each other's kitty pictures.
    #[must_use]
    pub fn second(mut self) -> Self {
        self.next_id = self.next_id.wrapping_add(1 << 31).max(1);
        self
    }

    /// Makes videos' frames with `ffmpeg` (`None`: none installed) within `limits`, instead of
    /// the one on `PATH` (tests give a fake). Called before the first request.
    #[must_use]
    pub fn with_ffmpeg(mut self, ffmpeg: Option<Ffmpeg>, limits: video::Limits) -> Self {
        if let Some(shared) = Arc::get_mut(&mut self.shared) {
            shared.frames.set_ffmpeg(ffmpeg, limits);
        }
        self
    }

    /// Starts each request's work only once the request has stood for `settle` (the
    /// browser's pictures: the selection runs through many entries while a filter is typed).
    #[must_use]
    pub fn settling(mut self, settle: std::time::Duration) -> Self {
        self.settle = settle;
        self
    }

    /// Works on `req` (`Cmd::Preview`); work for other files is abandoned. Work for the same
    /// file goes on: both wait for the one fetch.
    pub fn request(&mut self, req: PreviewRequest) {
        self.jobs.retain(|(source, job)| {
            let keep = *source == req.source && !job.is_finished();
            if !keep {
                job.abort();
            }
            keep
        });
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1).max(1);
        let (shared, out, wrap) = (self.shared.clone(), self.out.clone(), self.wrap);
        let copies = self.copies.clone();
        let source = req.source.clone();
        let settle = self.settle;
        let job = tokio::spawn(async move {
            if !settle.is_zero() {
                tokio::time::sleep(settle).await;
            }
            let result = shared.picture(&req, id, &copies).await;
            let report = PreviewReport {
                key: req.key,
                area: req.area,
                result,
            };
            let _ = out.send(wrap(report)).await;
        });
        self.jobs.push((source, job));
    }
}

impl<T> Drop for Handle<T> {
    fn drop(&mut self) {
        for (_, job) in &self.jobs {
            job.abort();
        }
    }
}

impl Shared {
    /// The slot where `source`'s outcome is kept; the oldest slot goes when there are too many.
    fn slot(&self, source: &PreviewSource) -> Slot {
        let mut kept = self
            .kept
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(i) = kept.iter().position(|(s, _)| s == source) {
            let entry = kept
                .remove(i)
                .unwrap_or_else(|| unreachable!("found above"));
            let slot = entry.1.clone();
            kept.push_back(entry);
            return slot;
        }
        let slot = Slot::default();
        kept.push_back((source.clone(), slot.clone()));
        while kept.len() > KEPT {
            kept.pop_front();
        }
        slot
    }

    async fn picture(
        &self,
        req: &PreviewRequest,
        id: u32,
        copies: &Copies,
    ) -> Result<Picture, PreviewError> {
        let slot = self.slot(&req.source);
        let fetched = slot
            .get_or_try_init(|| self.fetch(req.key.kind, &req.source, copies))
            .await?;
        match fetched {
            Fetched::Video(bytes, poster) => {
                let frame = match poster {
                    Err(why) => Frame::Missing(why.to_string()),
                    Ok(poster) => {
                        let (poster, graphics) = (poster.clone(), self.graphics);
                        let area = video::frame_place(req.area);
                        let at = poster.at;
                        match blocking(move || decode::encode(&poster.frame, &graphics, area, id))
                            .await?
                        {
                            Ok(image) => Frame::Shown {
                                image,
                                at,
                                area: req.area,
                            },
                            Err(why) => Frame::Missing(why.to_string()),
                        }
                    }
                };
                Ok(Picture::Video(VideoPreview {
                    bytes: *bytes,
                    duration: poster.as_ref().ok().and_then(|p| p.duration),
                    frame,
                }))
            }
            Fetched::Refused(reason) => Err(reason.clone()),
            Fetched::Image(decoded) => {
                let (decoded, graphics, area) = (decoded.clone(), self.graphics, req.area);
                blocking(move || decode::encode(&decoded, &graphics, area, id))
                    .await?
                    .map(Picture::Image)
            }
        }
    }

    /// Fetches and decodes. `Err` is a failure worth trying again (the network, a file
    /// system), `Ok(Refused)` one that is not.
    async fn fetch(
        &self,
        kind: TaskKind,
        source: &PreviewSource,
        copies: &Copies,
    ) -> Result<Fetched, PreviewError> {
        if kind == TaskKind::Video {
            return match self.frames.poster(source).await {
                Ok(shot) => Ok(Fetched::Video(shot.bytes, shot.frame.map(Arc::new))),
                Err(refused @ PreviewError::Refused(_)) => Ok(Fetched::Refused(refused)),
                Err(e) => Err(e),
            };
        }
        let path = match source {
            PreviewSource::File(path) => path.clone(),
            PreviewSource::Url(url) => match self.download(url, copies).await? {
                Ok(path) => path,
                Err(refused) => return Ok(Fetched::Refused(refused)),
            },
        };
        let bytes = match blocking(move || read_capped(&path)).await? {
            Ok(Ok(bytes)) => bytes,
            Ok(Err(refused)) => return Ok(Fetched::Refused(refused)),
            Err(e) => return Err(e),
        };
        Ok(match blocking(move || decode::decode(&bytes)).await? {
            Ok(decoded) => Fetched::Image(Arc::new(decoded)),
            Err(reason) => Fetched::Refused(reason),
        })
    }

    /// `url`'s file in the cache, downloaded if it is not there yet. The outer `Err` is worth
    /// trying again; the inner one is a refusal (too big, a link that is not allowed).
    async fn download(
        &self,
        url: &str,
        copies: &Copies,
    ) -> Result<Result<PathBuf, PreviewError>, PreviewError> {
        let mut known = copies.hold(url).await;
        let (cache, key) = (self.cache.clone(), url.to_string());
        if let Some(path) = blocking(move || cache.hit(&key)).await? {
            return Ok(Ok(path));
        }
        // A download of the same URL saved it while this waited.
        if let Some(saved) = known.clone()
            && tokio::fs::metadata(&saved).await.is_ok_and(|m| m.is_file())
        {
            return Ok(Ok(saved));
        }
        let cache = self.cache.clone();
        let scratch = blocking(move || cache.scratch())
            .await?
            .map_err(|e| PreviewError::Cache(e.to_string()))?;
        let over = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(Notify::new());
        let mut progress = {
            let (over, stop) = (over.clone(), stop.clone());
            move |done: u64, total: Option<u64>| {
                let size = total.filter(|t| *t > MAX_FILE_BYTES).unwrap_or(done);
                if size > MAX_FILE_BYTES {
                    over.store(size, Ordering::SeqCst);
                    stop.notify_one();
                }
            }
        };
        let fetched = tokio::select! {
            // An announced length over the cap stops it before the body; a body growing past
            // it, at the next pause.
            biased;
            () = stop.notified() => None,
            r = self.downloader.fetch_seen(url, scratch.path(), "download", false, &mut progress) => Some(r),
        };
        let result = match fetched {
            None => Ok(Err(PreviewError::TooBig(over.load(Ordering::SeqCst)))),
            Some(Err(ApiError::Invalid(reason))) => Ok(Err(PreviewError::Refused(reason))),
            Some(Err(e)) => Err(PreviewError::Fetch(first_line(&e.to_string()))),
            Some(Ok(crate::api::download::Fetched {
                path: file,
                etag,
                url: ended_at,
            })) => {
                let (cache, key) = (self.cache.clone(), url.to_string());
                let origin = crate::store::cache::Origin {
                    etag,
                    url: Some(ended_at),
                };
                blocking(move || match std::fs::metadata(&file) {
                    Ok(m) if m.len() > MAX_FILE_BYTES => Ok(Err(PreviewError::TooBig(m.len()))),
                    _ => cache
                        .admit(&file, &key, &origin)
                        .map(Ok)
                        .map_err(|e| PreviewError::Cache(e.to_string())),
                })
                .await?
            }
        };
        if let Ok(Ok(path)) = &result {
            *known = Some(path.clone());
        }
        // Removing a directory is file-system work: not on the App's thread.
        tokio::task::spawn_blocking(move || drop(scratch));
        result
    }
}

/// A file's bytes, unless it is over the cap (then the inner `Err` says so).
fn read_capped(path: &Path) -> Result<Result<Vec<u8>, PreviewError>, PreviewError> {
    let cannot = |e: std::io::Error| PreviewError::Read {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    let len = std::fs::metadata(path).map_err(cannot)?.len();
    if len > MAX_FILE_BYTES {
        return Ok(Err(PreviewError::TooBig(len)));
    }
    std::fs::read(path).map(Ok).map_err(cannot)
}
