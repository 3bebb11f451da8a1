//! A video's poster frame: ffmpeg (found once on `PATH`) turns a file, whole or only its first
//! bytes, into one PNG frame, decoded by [`super::decode`] like any preview.
//!
//! The moment shown is 10 % into the video (the first frames of a generated clip are often a
//! fade-in or a still of the prompt's start), or the first frame when the duration is unknown.
//! When only the first bytes of the file are here, the moment is at most half of what they
//! cover (the duration times their share of the file), so it is a frame they hold.
//!
//! The duration is read from ffmpeg's own report of its input (`Duration: 00:00:05.00`), not
//! from ffprobe: the static ffmpeg builds people install by hand (and the one pip's
//! `imageio-ffmpeg` brings) come without ffprobe, and one program is one thing to find.
//!
//! ffmpeg runs through the hooks' runner (`store::program`): no shell, stdin closed, no token in
//! its environment, its own process group killed whole at the time limit, stdout and stderr
//! read with caps.

use super::decode::{self, Decoded, PreviewError, PreviewImage};
use crate::store::program::{self, INSTALL_FFMPEG, ProgramError};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The share of the duration at which the frame is taken, in percent.
pub const MOMENT_PERCENT: u32 = 10;

/// How much of ffmpeg's stderr is kept: its last lines say why it failed.
const STDERR_CAP: usize = 64 * 1024;

/// The frame is scaled to at most this many pixels wide (more than a pane shows), which also
/// bounds the PNG ffmpeg writes.
const FRAME_WIDTH: u32 = 1280;

/// The ffmpeg program the frames are made with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ffmpeg(PathBuf);

impl Ffmpeg {
    /// The program at `path` (a test's fake).
    pub fn at(path: impl Into<PathBuf>) -> Self {
        Ffmpeg(path.into())
    }

    /// `ffmpeg` in one of `path`'s directories (a `PATH` value), if it is there and executable.
    pub fn find_in(path: Option<&OsStr>) -> Option<Self> {
        program::find_in("ffmpeg", path).map(Ffmpeg)
    }

    /// `ffmpeg` on this process's `PATH`, looked for once.
    pub fn on_path() -> Option<Self> {
        program::ffmpeg().map(Ffmpeg)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

/// What a frame may cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Each run of ffmpeg is stopped (with what it started) after this long.
    pub timeout: Duration,
    /// The largest PNG ffmpeg may write.
    pub frame_bytes: u64,
}

impl Default for Limits {
    /// 10 s a run: a frame from a few-megabyte clip takes ffmpeg a tenth of that on a loaded
    /// machine; a stuck one (a file that never ends, a network mount) is stopped.
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(10),
            frame_bytes: decode::MAX_FILE_BYTES,
        }
    }
}

/// The file a frame is made from.
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    pub file: &'a Path,
    /// The whole video's length in bytes when `file` holds only its first bytes; `None` when
    /// `file` is the whole video.
    pub whole: Option<u64>,
}

/// A frame and what ffmpeg said of the video.
#[derive(Clone)]
pub struct Poster {
    pub frame: Decoded,
    pub duration: Option<Duration>,
    /// The moment the frame was taken at.
    pub at: Duration,
}

/// Why there is no frame: one line, fit to show in place of it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VideoFrameError {
    #[error("no ffmpeg on PATH: {INSTALL_FFMPEG}")]
    NoFfmpeg,
    /// The runner's reason (it names the program).
    #[error("{0}")]
    Start(String),
    #[error("ffmpeg took longer than {}s and was stopped", .0.as_secs())]
    TooSlow(Duration),
    /// The last line ffmpeg wrote, sanitised, the file's path put as "the video".
    #[error("ffmpeg failed: {0}")]
    Failed(String),
    #[error("ffmpeg found no frame in the video")]
    NoFrame,
    /// Only the first bytes are here, and the index (`moov`) is not among them.
    #[error("the video's index is at its end, not in the part fetched: save it to see a frame")]
    IndexAtEnd,
    #[error("ffmpeg's frame is too large ({0} bytes)")]
    TooBig(u64),
    #[error("ffmpeg's frame: {0}")]
    Frame(PreviewError),
}

/// Makes `source`'s poster frame with `ffmpeg` (`None`: not installed) within `limits`.
pub async fn poster_frame(
    ffmpeg: Option<&Ffmpeg>,
    source: Source<'_>,
    limits: &Limits,
) -> Result<Poster, VideoFrameError> {
    let ffmpeg = ffmpeg.ok_or(VideoFrameError::NoFfmpeg)?;
    let duration = probe(ffmpeg, source, limits).await?;
    let at = moment(duration, source);
    let mut png = frame_at(ffmpeg, source.file, at, limits).await?;
    let mut at = at;
    if png.is_empty() && !at.is_zero() {
        // A duration longer than the streams really are: the first frame is there.
        at = Duration::ZERO;
        png = frame_at(ffmpeg, source.file, at, limits).await?;
    }
    if png.is_empty() {
        return Err(VideoFrameError::NoFrame);
    }
    let frame = tokio::task::spawn_blocking(move || decode::decode(&png))
        .await
        .map_err(|e| VideoFrameError::Start(e.to_string()))?
        .map_err(VideoFrameError::Frame)?;
    Ok(Poster {
        frame,
        duration,
        at,
    })
}

/// The moment to take the frame at: [`MOMENT_PERCENT`] in, at most half of what a partial
/// file covers.
fn moment(duration: Option<Duration>, source: Source<'_>) -> Duration {
    let Some(duration) = duration else {
        return Duration::ZERO;
    };
    let wanted = duration * MOMENT_PERCENT / 100;
    let Some(whole) = source.whole.filter(|w| *w > 0) else {
        return wanted;
    };
    let have = std::fs::metadata(source.file).map_or(0, |m| m.len());
    #[allow(clippy::cast_precision_loss)]
    let share = (have as f64 / whole as f64).min(1.0);
    wanted.min(duration.mul_f64(share / 2.0))
}

fn text(file: &Path) -> String {
    file.to_string_lossy().into_owned()
}

/// The video's duration as ffmpeg reports its input. ffmpeg, given no output, exits 1 after
/// that report: what tells a readable file is the report, not the status.
async fn probe(
    ffmpeg: &Ffmpeg,
    source: Source<'_>,
    limits: &Limits,
) -> Result<Option<Duration>, VideoFrameError> {
    let file = source.file;
    let args = [
        text(ffmpeg.path()),
        "-hide_banner".into(),
        "-nostdin".into(),
        "-i".into(),
        text(file),
    ];
    let (ran, _) = run(&args, limits, STDERR_CAP).await?;
    let said = String::from_utf8_lossy(&ran.stderr);
    if !said.contains("Input #0") {
        if source.whole.is_some() && said.contains("moov atom not found") {
            return Err(VideoFrameError::IndexAtEnd);
        }
        return Err(failed(&ran, file));
    }
    Ok(said.lines().find_map(duration_of))
}

/// The PNG of the frame at `at` (empty when ffmpeg found none there).
async fn frame_at(
    ffmpeg: &Ffmpeg,
    file: &Path,
    at: Duration,
    limits: &Limits,
) -> Result<Vec<u8>, VideoFrameError> {
    let args: Vec<String> = [
        text(ffmpeg.path()),
        "-hide_banner".into(),
        "-nostdin".into(),
        "-loglevel".into(),
        "error".into(),
        // Before the input: a fast seek to the key frame before `at`, then decoded up to it.
        "-ss".into(),
        format!("{:.3}", at.as_secs_f64()),
        "-i".into(),
        text(file),
        "-frames:v".into(),
        "1".into(),
        "-an".into(),
        "-vf".into(),
        format!("scale='min({FRAME_WIDTH},iw)':-2"),
        "-f".into(),
        "image2pipe".into(),
        "-c:v".into(),
        "png".into(),
        "-".into(),
    ]
    .into();
    let cap = usize::try_from(limits.frame_bytes).unwrap_or(usize::MAX);
    let (ran, total) = run(&args, limits, cap.saturating_add(1)).await?;
    if !ran.status.success() {
        return Err(failed(&ran, file));
    }
    if total > limits.frame_bytes {
        return Err(VideoFrameError::TooBig(total));
    }
    Ok(ran.stdout)
}

async fn run(
    args: &[String],
    limits: &Limits,
    cap: usize,
) -> Result<(program::Ran, u64), VideoFrameError> {
    program::run_capped(args, limits.timeout, cap)
        .await
        .map_err(|e| match e {
            ProgramError::TooSlow { timeout, .. } => VideoFrameError::TooSlow(timeout),
            e => VideoFrameError::Start(e.to_string()),
        })
}

/// ffmpeg's last line (sanitised by the runner), the file's path put as "the video".
fn failed(ran: &program::Ran, file: &Path) -> VideoFrameError {
    let line = ran
        .last_line()
        .unwrap_or_else(|| format!("it ended with {}", ran.status));
    let line = line.replace(&*file.to_string_lossy(), "the video");
    VideoFrameError::Failed(crate::fit::cut(&line, 160))
}

/// `  Duration: 00:01:02.50, start: …` → 62.5 s; `Duration: N/A` → `None`.
fn duration_of(line: &str) -> Option<Duration> {
    let rest = line.trim_start().strip_prefix("Duration:")?;
    let stamp = rest.split(',').next()?.trim();
    let mut parts = stamp.split(':');
    let (h, m, s) = (parts.next()?, parts.next()?, parts.next()?);
    let (h, m): (u64, u64) = (h.parse().ok()?, m.parse().ok()?);
    let s: f64 = s.parse().ok()?;
    if parts.next().is_some() || !s.is_finite() || s < 0.0 {
        return None;
    }
    Some(Duration::from_secs(h * 3600 + m * 60) + Duration::from_secs_f64(s))
}

/// A duration as the preview writes it: `4.2 s` under a minute, else `1:05` or `1:02:03`.
pub fn duration_text(d: Duration) -> String {
    let secs = d.as_secs();
    if secs < 60 {
        return format!("{:.1} s", d.as_secs_f64());
    }
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

/// The cells a video's frame is encoded for in a preview of `area`: all but the line under it,
/// which says the video's duration and size.
pub fn frame_place(area: ratatui::layout::Size) -> ratatui::layout::Size {
    ratatui::layout::Size::new(area.width, area.height.saturating_sub(1))
}

/// A finished video task's preview: its frame when there is one, else why not.
#[derive(Debug, Clone)]
pub struct VideoPreview {
    /// The file's size, when known.
    pub bytes: Option<u64>,
    pub duration: Option<Duration>,
    pub frame: Frame,
}

#[derive(Debug, Clone)]
pub enum Frame {
    /// The frame taken `at` into the video, encoded for the picture's place of `area` cells
    /// (the line under it is the video's facts).
    Shown {
        image: PreviewImage,
        at: Duration,
        area: ratatui::layout::Size,
    },
    /// Why there is none, in one line.
    Missing(String),
}

impl VideoPreview {
    /// The line under the frame, or in place of it: `video · 4.2 s · 3.9 kB · frame at 0.4 s`.
    pub fn caption(&self) -> String {
        let mut parts = vec!["video".to_string()];
        parts.extend(self.duration.map(duration_text));
        parts.extend(self.bytes.map(crate::fmt::human_bytes));
        match &self.frame {
            Frame::Shown { at, .. } => {
                parts.push(format!("frame at {}", duration_text(*at)));
                parts.join(" · ")
            }
            Frame::Missing(why) => format!("{}: {why}", parts.join(" · ")),
        }
    }

    /// The area the frame was encoded for, if there is a frame.
    pub fn area(&self) -> Option<ratatui::layout::Size> {
        match &self.frame {
            Frame::Shown { area, .. } => Some(*area),
            Frame::Missing(_) => None,
        }
    }
}

#[cfg(test)]
mod tests;
