//! What the outside world reports back to the App (`Msg`), by value over the one channel, and
//! the task identity both directions use. The requests are `crate::cmd::Cmd`. Both `app` and
//! `workers` import these modules; neither imports the other.

use crate::api::{ApiError, Listing, TaskResult};
use crate::cmd::{Clip, TaskKey};
use crate::filter::texts::{Table, Texts, Values};
use crate::picture::Picture;
use crate::store::archive::{ArchivedTask, SearchKey, SearchValue, latest_first};
use crate::store::watchlist::WatchEntry;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// How the clipboard worker copied a [`Clip`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CopiedVia {
    /// A clipboard program (`wl-copy`, `xclip`, `xsel`, `pbcopy`) took it and exited 0.
    Program(String),
    /// None could: the App sends OSC 52, which the terminal may or may not obey. `failed`
    /// says why a program present did not take it.
    Terminal { tmux: bool, failed: Option<String> },
}

/// How an open request ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opened {
    /// Handed to the opener: the URL or path.
    Launched(String),
    /// Nothing can show it here (Linux without a display, over SSH say): the URL or path,
    /// to show and copy instead.
    NoDisplay(String),
    /// The saved file is not there any more: its path.
    Missing(String),
    /// Refused, or the opener could not start: why.
    Failed(String),
}

/// A download's progress, reported by the downloader.
#[derive(Debug, Clone, PartialEq)]
pub enum DownloadEvent {
    /// The preview is fetching the same file: the download waits to copy it.
    WaitingForPreview,
    Progress {
        done: u64,
        total: Option<u64>,
    },
    Saved(PathBuf),
    /// A file is already there: the user is asked before it is replaced.
    Exists(PathBuf),
    Failed(String),
}

/// The preview worker's answer to a [`PreviewRequest`], as `Msg::Preview`: the picture encoded
/// for exactly `area`, a video's size, or one line saying why there is none.
#[derive(Debug, Clone)]
pub struct PreviewReport {
    pub key: TaskKey,
    pub area: ratatui::layout::Size,
    pub result: Result<Picture, crate::picture::decode::PreviewError>,
}

/// The thumbnail worker's word: it started (drawing with cells of `cell` pixels), or a
/// tile's picture for `Cmd::Thumbnails`.
#[derive(Debug, Clone)]
pub enum ThumbnailMsg {
    Started { cell: (u16, u16) },
    Report(ThumbnailReport),
}

/// One tile's picture, encoded to fit `size`, or why there is none.
#[derive(Debug, Clone)]
pub struct ThumbnailReport {
    pub key: TaskKey,
    pub size: ratatui::layout::Size,
    pub result: Result<Picture, crate::picture::decode::PreviewError>,
}

/// A report from a worker, carried by value over the one channel into the App.
#[derive(Debug, Clone)]
pub enum Msg {
    /// A fetch's answer, made ready to be shown off the UI loop.
    Catalogue {
        generation: u64,
        result: Result<Listing, ApiError>,
    },
    /// The catalogue cache's answer for the filters of fetch `generation`, read off the UI
    /// loop: the copy to show until the fresh one arrives (kept for these filters, or for
    /// broader ones and narrowed to these), or `None` when nothing is kept for them. Sent
    /// before the fetch reports a failure, so the failure can say whether there is anything.
    CachedCatalogue {
        generation: u64,
        cached: Option<crate::store::catalogue_cache::Cached<Listing>>,
    },
    Polled {
        key: TaskKey,
        result: Result<TaskResult, ApiError>,
        retry_in: Option<Duration>,
        /// When the poller will ask again, and why (`None`: not said).
        next: Option<NextPoll>,
    },
    Download {
        key: TaskKey,
        event: DownloadEvent,
    },
    /// The saved list as it is on disk now; `applied` counts the App's ops it includes. Shared
    /// with the saver, which keeps it as the list it last wrote or read, not copied (10,000
    /// tasks are 3.3 MB).
    WatchFile {
        entries: Arc<Vec<WatchEntry>>,
        applied: u64,
    },
    /// The saved list after a write that brought nothing but the App's own ops: shared with
    /// the saver, not copied. The App already holds what it says, unless it set aside a
    /// `WatchFile` since its last merge (that one was older than its ops): then it merges this.
    WatchSaved {
        entries: Arc<Vec<WatchEntry>>,
        applied: u64,
    },
    /// The answer to `Cmd::Compare` of this generation: what changed in the catalogue.
    Compared {
        generation: u64,
        diff: crate::store::catalogue_cache::Diff,
    },
    /// The answer to `Cmd::Rank` of this generation: indices of the matching names, best first.
    Ranked {
        generation: u64,
        matches: Arc<[u32]>,
    },
    StoreProblem(String),
    /// The saved views as the file holds them after a change (another dashboard's too).
    ViewsSaved(std::collections::BTreeMap<String, crate::store::config::ViewSpec>),
    /// The answer to `PersistOp::Claim`: whether this dashboard took the task's end on (`false`
    /// when another running dashboard had, or the task is no longer listed).
    Claimed {
        key: TaskKey,
        won: bool,
    },
    /// The watch list file holds no running task any more after holding some: `here` when this
    /// dashboard's write (under the file's lock) made it so, which happens in exactly one
    /// dashboard's write; `false` when another's did. Sent after that write's claim answers.
    RunEnded {
        here: bool,
    },
    /// A configured service whose client could not be made (its token is missing, say): its
    /// tasks are not polled.
    ServiceUnusable {
        service: String,
        error: String,
    },
    Opened(Opened),
    /// The clipboard worker's answer to `Cmd::Copy`.
    Copied {
        clip: Clip,
        via: CopiedVia,
    },
    /// Wall-clock seconds since the epoch, once a second.
    Tick(u64),
    /// The terminal told its background colour (after the first frame): whether it is light.
    Background {
        light: bool,
    },
    /// The preview worker's answer.
    Preview(PreviewReport),
    /// The catalogue entries' preview worker's answer (`Cmd::ModelPreview`).
    ModelPreview(PreviewReport),
    /// The thumbnail worker's word (`Cmd::Thumbnails`).
    Thumbnail(ThumbnailMsg),
    /// `on_complete` failed (could not start, exited non-zero, timed out): one line.
    HookFailed(String),
    /// One command of an action ended (`Cmd::RunAction`); `last` says whether it was the run's
    /// last.
    ActionEnded(ActionEnded),
    /// A request finished, for the request log.
    Request(crate::api::recording::RequestRecord),
    /// The poller's load, sent when a shown figure changes, at most about once a second, and
    /// not at all while nothing is polled.
    PollLoad(PollLoad),
    /// The archiver's answer to `Cmd::Archive`, or word that the archive changed.
    Archive(ArchiveReport),
}

/// What the archiver tells the app.
#[derive(Debug, Clone, PartialEq)]
pub enum ArchiveReport {
    /// The whole list, the most recently finished first, with the filter's text of it
    /// (`search_table`, made where the list is read so the view never waits for it).
    Listed(Arc<[ArchivedTask]>, Arc<Table>),
    /// One row with all it keeps, or `None` when it is gone.
    Got(i64, Option<Box<ArchivedTask>>),
    /// These rows were deleted (kept for undo).
    Deleted(Vec<ArchivedTask>),
    /// The archive changed (tasks moved in, rows restored or unarchived): a shown list reloads.
    Changed,
    /// Reading or writing the archive failed: one line naming the file and what went wrong.
    Failed(String),
}

/// Why the poller asks a task again when it does (`Msg::Polled`), as the detail says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PollWhy {
    /// On screen or selected: every `poll_interval`.
    Preferred,
    /// Its ETA is near: every `poll_interval`, so its end is seen promptly.
    EtaNear,
    /// Its ETA is far: about a quarter of the time left, at most `max_poll_interval`.
    EtaFar,
    /// Running, but its percent has not moved often enough to estimate an ETA yet.
    NoEta,
    /// Queued: asked less often the longer it waits.
    Queued,
    /// Its percent has stopped moving: asked less often the longer it stays.
    Stalled,
    /// The last request failed: the backoff.
    Backoff,
    /// The service asked for the wait (`Retry-After`).
    RetryAfter,
    /// Finished (or refused for good): not asked again unless the user asks.
    Finished,
    /// `adaptive_polling = false`: every `poll_interval`.
    #[default]
    Fixed,
}

impl PollWhy {
    /// The detail's words for it.
    pub fn words(self) -> &'static str {
        match self {
            PollWhy::Preferred => "on screen",
            PollWhy::EtaNear => "ETA near",
            PollWhy::EtaFar => "ETA far",
            PollWhy::NoEta => "no ETA yet",
            PollWhy::Queued => "queued",
            PollWhy::Stalled => "stalled",
            PollWhy::Backoff => "backoff after error",
            PollWhy::RetryAfter => "retry-after",
            PollWhy::Finished => "finished",
            PollWhy::Fixed => "fixed cadence",
        }
    }
}

/// When a task is asked next: `after` the answer that carries it (zero when `why` is
/// `Finished`), and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NextPoll {
    pub after: Duration,
    pub why: PollWhy,
}

/// The poller's load, for the status bar: `12 req/s · 8/64 in flight`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PollLoad {
    /// Requests sent a second, averaged over the last few seconds, in tenths.
    pub per_second_tenths: u32,
    pub in_flight: u32,
    /// The adaptive limit on requests in flight now (at most `max_concurrent_polls`).
    pub limit: u32,
}

impl ArchiveReport {
    /// `Listed` with the filter's text made here, dates at `utc_offset` seconds from UTC.
    pub fn listed(tasks: Arc<[ArchivedTask]>, utc_offset: i32) -> ArchiveReport {
        let table = Arc::new(search_table(&tasks, utc_offset));
        ArchiveReport::Listed(tasks, table)
    }
}

/// The filter's text for archived tasks: each one's name (ID, status, label) and its
/// `SEARCH_KEYS` fields, dates as local minutes at `utc_offset` seconds from UTC, each distinct
/// minute formatted once (a list holds far fewer minutes than tasks); and the view's first
/// order, the latest finished first.
pub fn search_table(tasks: &[ArchivedTask], utc_offset: i32) -> Table {
    let names: Vec<String> = tasks.iter().map(ArchivedTask::search_name).collect();
    let fields = SearchKey::ALL
        .iter()
        .map(|&key| {
            if !key.is_date() {
                return Values::new(tasks.iter().map(|t| match t.search_value(key) {
                    SearchValue::Text(text) => text,
                    SearchValue::Time(_) => "",
                }));
            }
            let mut index: HashMap<i64, usize> = HashMap::new();
            let mut minutes: Vec<String> = Vec::new();
            let of: Vec<usize> = tasks
                .iter()
                .map(|t| {
                    let SearchValue::Time(at) = t.search_value(key) else {
                        return usize::MAX;
                    };
                    // The local minute it falls in: all its moments read the same.
                    let local = i64::try_from(at).unwrap_or(0) + i64::from(utc_offset);
                    *index.entry(local.div_euclid(60)).or_insert_with(|| {
                        minutes.push(crate::fmt::local_minute(at, utc_offset));
                        minutes.len() - 1
                    })
                })
                .collect();
            Values::new(
                of.iter()
                    .map(|&m| minutes.get(m).map_or("", String::as_str)),
            )
        })
        .collect();
    // The archive view's first order: the latest finished first.
    let mut order: Vec<u32> = (0..u32::try_from(tasks.len()).unwrap_or(u32::MAX)).collect();
    latest_first(&mut order, |i| tasks[i].finished_at());
    Table::new(Texts::new(names.iter().map(String::as_str)), fields, order)
}

/// How one command of an action went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionEnded {
    pub id: u64,
    pub name: String,
    /// The rows it ran for.
    pub rows: Vec<String>,
    /// Its exit code (`None`: ended by a signal) and the last line it wrote, or why it did not
    /// run to its end.
    pub outcome: Result<(Option<i32>, Option<String>), String>,
    /// The run has no more commands.
    pub last: bool,
}
