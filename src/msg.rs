//! The messages between the App and its workers: what the App asks the outside world to do
//! (`Cmd`) and what the outside world reports back (`Msg`), by value over channels. Both `app`
//! and `workers` import this module; neither imports the other.

use crate::api::{ApiError, Catalogue, LoraType, SearchText, TaskKind, TaskResult};
use crate::preview::Picture;
use crate::store::watchlist::{LastKnown, Trouble, WatchEntry};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// A task's identity on the watch list.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskKey {
    pub kind: TaskKind,
    pub id: String,
}

impl TaskKey {
    pub fn new(kind: TaskKind, id: impl Into<String>) -> Self {
        TaskKey {
            kind,
            id: id.into(),
        }
    }
    pub fn of(entry: &WatchEntry) -> Self {
        TaskKey {
            kind: entry.kind,
            id: entry.task_id.clone(),
        }
    }
}

/// A request from the App to a worker or to the terminal.
#[derive(Debug, Clone, PartialEq)]
pub enum Cmd {
    FetchCatalogue {
        generation: u64,
        lora_type: Option<LoraType>,
        cate: Option<String>,
        /// Show the cached copy for these filters meanwhile (`Msg::CachedCatalogue`): at start
        /// and when the filters change, not on a reload of the list shown.
        cached: bool,
    },
    /// Poll the task at its service: the one given (a base URL, as saved in the watch list),
    /// or the current one for `None`.
    Watch(TaskKey, Option<String>),
    Unwatch(TaskKey),
    PollNow(TaskKey),
    /// Poll these (the rows on screen) before the others when both are due; replaces the
    /// previous set.
    Prefer(Vec<TaskKey>),
    Persist(PersistOp),
    Open(String),
    /// Open a saved file with the opener.
    OpenFile(PathBuf),
    /// Put text on the clipboard: with a clipboard program if there is one, else OSC 52.
    Copy(Clip),
    /// Write the OSC 52 sequence for `text` (the clipboard worker found no program).
    CopyToTerminal {
        text: String,
        /// Inside tmux: sent so that tmux can take it.
        tmux: bool,
    },
    Download {
        key: TaskKey,
        url: String,
        /// The task's service, as for `Watch`: its token goes to its origin only.
        service: Option<String>,
        /// For the template's `{status}`.
        status: String,
        /// Replace a file already there (the user said yes).
        force: bool,
    },
    Notify {
        title: String,
        body: String,
    },
    /// Rank the catalogue against the filter's query. Its text (names and metadata fields) is
    /// shared with the ranker (built once per catalogue load), never copied per keystroke.
    Rank {
        generation: u64,
        query: String,
        text: Arc<SearchText>,
    },
    /// Save the recently used categories for the next session.
    RememberCategories(Vec<String>),
    /// Save the watch list's sort order (its label) for the next session.
    RememberSort(String),
    /// Save the current service's favourite models for the next session.
    RememberFavourites(std::collections::BTreeSet<String>),
    /// Fetch, decode and encode a finished task's picture for the detail section.
    Preview(PreviewRequest),
    /// A watched task finished while watched: run `on_complete`, if configured.
    Finished(Finished),
    Bell,
}

/// Text for the clipboard, and what the status bar calls it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clip {
    pub text: String,
    /// What it is, as in "copied the download URL".
    pub what: String,
    /// Why it is copied instead of opened; the status bar then shows the text in full first.
    pub instead_of_opening: Option<String>,
}

impl Clip {
    pub fn new(text: impl Into<String>, what: impl Into<String>) -> Self {
        Clip {
            text: text.into(),
            what: what.into(),
            instead_of_opening: None,
        }
    }
}

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

/// What `on_complete` is told of a task that finished (completed or failed) while watched.
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    pub task_id: String,
    pub kind: TaskKind,
    pub status: String,
    /// The status is one of `failure_statuses`.
    pub status_failed: bool,
    pub percent: u8,
    pub url: Option<String>,
    /// Where its file was saved, if it was downloaded.
    pub file: Option<PathBuf>,
    /// Why no file was saved, for the log, when `file` is `None`.
    pub no_file: Option<String>,
}

/// A change to the saved watch list.
#[derive(Debug, Clone, PartialEq)]
pub enum PersistOp {
    Add(Vec<WatchEntry>),
    Remove(Vec<TaskKey>),
    Status(TaskKey, LastKnown),
    /// The task's file was saved here.
    Saved(TaskKey, String),
    /// `A` for this task: download when completed, or not; `None` follows the config.
    AutoDownload(TaskKey, Option<bool>),
    /// Entries that remember no service (saved before entries did) belong to this one.
    Adopt(String),
    /// The last poll's trouble, or `None` once the service answered again.
    Trouble(TaskKey, Option<Trouble>),
    /// Take on the finished task's end (its notification, `on_complete` and automatic
    /// download) unless another running dashboard did; answered by `Msg::Claimed`.
    Claim(TaskKey),
}

/// A download's progress, reported by the downloader.
#[derive(Debug, Clone, PartialEq)]
pub enum DownloadEvent {
    Progress {
        done: u64,
        total: Option<u64>,
    },
    Saved(PathBuf),
    /// A file is already there: the user is asked before it is replaced.
    Exists(PathBuf),
    Failed(String),
}

/// Where a finished task's file is read from for its preview.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PreviewSource {
    /// The file saved by a download (`D`).
    File(PathBuf),
    /// The task's `url_download`: fetched (through the link check, the token only to the
    /// service's origin) into the preview cache, once.
    Url(String),
}

/// Ask the preview worker for task `key`'s picture, encoded to fit `area` (in cells). Travels
/// as `Cmd::Preview`; a newer request replaces one still in flight.
#[derive(Debug, Clone, PartialEq)]
pub struct PreviewRequest {
    pub key: TaskKey,
    pub source: PreviewSource,
    pub area: ratatui::layout::Size,
}

/// The preview worker's answer to a [`PreviewRequest`], as `Msg::Preview`: the picture encoded
/// for exactly `area`, a video's size, or one line saying why there is none.
#[derive(Debug, Clone)]
pub struct PreviewReport {
    pub key: TaskKey,
    pub area: ratatui::layout::Size,
    pub result: Result<Picture, String>,
}

/// A report from a worker, carried by value over the one channel into the App.
#[derive(Debug, Clone)]
pub enum Msg {
    Catalogue {
        generation: u64,
        result: Result<Catalogue, ApiError>,
    },
    /// The catalogue cache's answer for the filters of fetch `generation`, read off the UI
    /// loop: the copy to show until the fresh one arrives (kept for these filters, or for
    /// broader ones and narrowed to these), or `None` when nothing is kept for them. Sent
    /// before the fetch reports a failure, so the failure can say whether there is anything.
    CachedCatalogue {
        generation: u64,
        cached: Option<crate::store::catalogue::Cached>,
    },
    Polled {
        key: TaskKey,
        result: Result<TaskResult, ApiError>,
        retry_in: Option<Duration>,
    },
    Download {
        key: TaskKey,
        event: DownloadEvent,
    },
    /// The saved list as it is on disk now; `applied` counts the App's ops it includes.
    WatchFile {
        entries: Vec<WatchEntry>,
        applied: u64,
    },
    /// The answer to `Cmd::Rank` of this generation: indices of the matching names, best first.
    Ranked {
        generation: u64,
        matches: Arc<[u32]>,
    },
    StoreProblem(String),
    /// The answer to `PersistOp::Claim`: whether this dashboard took the task's end on (`false`
    /// when another running dashboard had, or the task is no longer listed).
    Claimed {
        key: TaskKey,
        won: bool,
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
    /// The preview worker's answer.
    Preview(PreviewReport),
    /// `on_complete` failed (could not start, exited non-zero, timed out): one line.
    HookFailed(String),
    /// A request finished, for the request log.
    Request(crate::api::requests::RequestRecord),
}
