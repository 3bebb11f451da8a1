//! What the App asks the outside world to do: `Cmd`, with the payloads the workers take as
//! they are. The answers come back as `crate::msg::Msg`.

use crate::api::{LoraType, SearchText, TaskKind};
use crate::store::watchlist::{LastKnown, Trouble, WatchEntry};
use std::path::PathBuf;
use std::sync::Arc;

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
    /// For the catalogue worker: a newer request replaces one still in flight.
    FetchCatalogue(CatalogueRequest),
    /// For the poller, through the router, which swaps each task's service for its client.
    Poll(PollCmd),
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
    /// Fetch a finished task's file.
    Download(DownloadJob),
    Notify {
        title: String,
        body: String,
    },
    /// Rank the catalogue against the filter's query. Its text (names and metadata fields) is
    /// shared with the ranker (built once per catalogue load), never copied per keystroke.
    Rank(RankJob),
    /// Compare a fresh catalogue with the list it replaces, off the UI loop (tens of ms over
    /// 100,000 models); answered by `Msg::Compared` with the same generation.
    Compare(CompareJob),
    /// Save the recently used categories for the next session.
    RememberCategories(Vec<String>),
    /// Save the watch list's sort order (its label) for the next session.
    RememberSort(String),
    /// Save the current service's favourite models for the next session.
    RememberFavourites(std::collections::BTreeSet<String>),
    /// A change to the saved views or a pane's last state, merged into the file; answered by
    /// `Msg::ViewsSaved`.
    Views(crate::store::views_file::ViewsOp),
    /// Fetch, decode and encode a finished task's picture for the detail section.
    Preview(PreviewRequest),
    /// The same for the picture the selected catalogue entry's metadata names (its key the
    /// model's name): a worker of its own, so the two details never cancel each other.
    ModelPreview(PreviewRequest),
    /// For the thumbnail worker: the gallery's tiles near the screen (a newer request drops
    /// what is in flight for tiles it no longer keeps).
    Thumbnails(ThumbnailRequest),
    /// A watched task finished while watched: run `on_complete`, if configured.
    Finished(Finished),
    Bell,
    /// The last running task finished: run `on_all_done`, if configured, with the run's counts.
    AllDone(AllDone),
    /// For the archiver: read or change the archive.
    Archive(ArchiveOp),
    /// Read the config file again (the runtime reads and validates it as at start, and hands
    /// the App the result: `State::reconfigure`).
    ReloadConfig,
    /// The config was read again: the workers take their settings from it (the poller's
    /// cadence and limit, the hooks, where downloads go).
    Configure(NewSettings),
    /// The configured services changed (a reloaded config): tasks of these are polled, and
    /// count in the watch list's run.
    Services(Vec<String>),
    /// Run one of the user's `[[actions]]`: its commands, filled, one after another.
    RunAction(ActionRun),
}

/// Settings read again, shared; two are equal when they are the same read.
#[derive(Debug, Clone)]
pub struct NewSettings(pub Arc<crate::store::config::Settings>);

impl PartialEq for NewSettings {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// One run of an action the user started: its commands, each with the rows it is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionRun {
    /// Tells its end (`Msg::ActionEnded`) from another run's.
    pub id: u64,
    pub name: String,
    /// Each command with the rows it is for (a task ID, a model's name), run in turn.
    pub runs: Vec<(Vec<String>, Vec<String>)>,
}

impl Cmd {
    /// Written to the terminal by the loop itself (the clipboard's OSC 52, the bell, a desktop
    /// notification), not sent to a worker.
    pub fn writes_to_terminal(&self) -> bool {
        matches!(
            self,
            Cmd::CopyToTerminal { .. } | Cmd::Bell | Cmd::Notify { .. }
        )
    }
}

/// The run that ended: the finishes seen since the last run ended, what `on_all_done` is told
/// (the notification policy counts them, the hooks worker writes them into its arguments).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AllDone {
    pub completed: usize,
    pub failed: usize,
    pub count: usize,
}

/// A request to the archiver worker; each answered by `Msg::Archive`.
#[derive(Debug, Clone, PartialEq)]
pub enum ArchiveOp {
    /// Read the whole list (`ArchiveReport::Listed`).
    Load,
    /// One row with all it keeps (`ArchiveReport::Got`), for the detail.
    Get(i64),
    /// Delete these rows (`ArchiveReport::Deleted`, which carries them for undo).
    Delete(Vec<i64>),
    /// Put deleted rows back (undo).
    Restore(Vec<crate::store::archive::ArchivedTask>),
    /// "Watch again": these rows leave the archive; the app adds their entries back to the
    /// watch list (`PersistOp::Add`).
    Unarchive(Vec<i64>),
    /// The row's file was saved here (download again).
    Saved(i64, String),
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

/// The catalogue for these filters, for `Cmd::FetchCatalogue`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogueRequest {
    /// Answers carry it; the App keeps only those of its latest request.
    pub generation: u64,
    pub lora_type: Option<LoraType>,
    pub cate: Option<String>,
    /// Show the cached copy for these filters meanwhile (`Msg::CachedCatalogue`): at start and
    /// when the filters change, not on a reload of the list shown.
    pub cached: bool,
    /// The list shown when asked: the fresh list shares its unchanged entries.
    pub earlier: Arc<[crate::api::LoraEntry]>,
}

/// Rank the catalogue's text against the filter's query, for `Cmd::Rank`; answered by
/// `Msg::Ranked` with the same generation.
#[derive(Debug, Clone, PartialEq)]
pub struct RankJob {
    pub generation: u64,
    pub query: String,
    pub text: Arc<SearchText>,
}

/// For `Cmd::Compare`: the list shown before and the fresh one, shared, never copied.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareJob {
    pub generation: u64,
    pub before: Arc<[crate::api::LoraEntry]>,
    pub after: Arc<[crate::api::LoraEntry]>,
}

/// What the App asks of the poller. `S` is how the task's service is reached: its saved base
/// URL (`None`: the current service) as the App says it, the service's client once the router
/// has made it. Each task is asked of the service it was added for, and of no other.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PollCmd<S = Option<String>> {
    Watch(TaskKey, S),
    Unwatch(TaskKey),
    PollNow(TaskKey),
    /// Poll these (the rows on screen) before the others when both are due; replaces the
    /// previous set.
    Prefer(Vec<TaskKey>),
    /// The config was read again: poll with these settings from now on.
    Settings(PollSettings),
}

/// What the poller takes from the config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PollSettings {
    /// `poll_interval`.
    pub interval: std::time::Duration,
    /// `max_poll_interval`.
    pub max_interval: std::time::Duration,
    /// `adaptive_polling`.
    pub adaptive: bool,
    /// `stall_after`.
    pub stall_after: std::time::Duration,
    /// `max_concurrent_polls`: the ceiling of the requests in flight.
    pub max_in_flight: usize,
}

impl PollSettings {
    pub fn of(settings: &crate::store::config::Settings) -> Self {
        PollSettings {
            interval: settings.poll_interval,
            max_interval: settings.max_poll_interval,
            adaptive: settings.adaptive_polling,
            stall_after: settings.stall_after,
            max_in_flight: settings.max_concurrent_polls,
        }
    }
}

/// One file to fetch, as the download worker takes it.
#[derive(Debug, Clone, PartialEq)]
pub struct DownloadJob {
    pub key: TaskKey,
    pub url: String,
    /// The task's service, as for `Cmd::Watch`: its token goes to its origin only.
    pub service: Option<String>,
    /// The task's status, for the template's `{status}`.
    pub status: String,
    /// Replace a file already there (the user said yes).
    pub force: bool,
    /// The task's label, for the template's `{label}`.
    pub label: Option<String>,
    /// What the provenance file beside it says (`sidecar = true`) besides the download.
    pub provenance: Box<crate::store::sidecar::Provenance>,
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
    /// The task's label, for `{label}`.
    pub label: Option<String>,
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
    /// The user looked at these tasks: no longer new. (A task is new from the `Status` that
    /// first records it finished after it was seen running: see the saver.)
    Seen(Vec<TaskKey>),
    /// These tasks' label (`None` clears it).
    Label(Vec<TaskKey>, Option<String>),
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

/// What a gallery tile is made from: a picture, or a video (a text tile until a poster frame
/// is plugged in).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TileSource {
    Image(PreviewSource),
    Video(PreviewSource),
}

/// The gallery's tiles near the screen: `tiles` lack a picture, `keep` are all of them (work
/// for any other tile is dropped), every picture encoded to fit `size` cells.
#[derive(Debug, Clone, PartialEq)]
pub struct ThumbnailRequest {
    pub tiles: Vec<(TaskKey, TileSource)>,
    pub keep: Vec<TaskKey>,
    pub size: ratatui::layout::Size,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The dashboard holds the workers' commands until the frame is drawn, but writes these at
    /// once: the frame that says the clipboard was sent must come after the OSC 52.
    #[test]
    fn only_what_the_loop_writes_itself_goes_to_the_terminal_at_once() {
        let terminal = [
            Cmd::CopyToTerminal {
                text: "curl …".into(),
                tmux: false,
            },
            Cmd::Bell,
            Cmd::Notify {
                title: "gendash".into(),
                body: "sim-3 completed".into(),
            },
        ];
        assert!(terminal.iter().all(Cmd::writes_to_terminal));
        let workers = [
            Cmd::Open("https://example.com/".into()),
            Cmd::OpenFile(PathBuf::from("/tmp/x.png")),
            Cmd::RememberSort("status".into()),
        ];
        assert!(!workers.iter().any(Cmd::writes_to_terminal));
    }
}
