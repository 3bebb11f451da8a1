//! Where a finished task's end is: not taken on yet, waiting for this dashboard's claim in the
//! watch list file, taken on here (its automatic download, then `on_complete`), or taken on by
//! another running dashboard. One value per row, so no two states can be said at once.

use crate::cmd::Finished;

/// What the dashboard that claims a finished task does for it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Duties {
    /// It finished while watched: the notification and `on_complete`.
    pub announce: Option<Finished>,
    /// Its file is fetched by itself (`auto_download`, `A`).
    pub download: bool,
}

/// A row's task's end.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum End {
    /// Running, or finished with nothing taken on for it here (yet).
    #[default]
    Open,
    /// This dashboard asked to take it on (`PersistOp::Claim`); what waits for the answer.
    Claiming(Duties),
    /// Taken on here; what of it is still under way.
    Ours(Stage),
    /// Another running dashboard took it on: it is not announced, nor its file fetched by
    /// itself, here.
    Theirs,
}

/// What of a task's end taken on here is still under way.
#[derive(Debug, Clone, PartialEq)]
pub enum Stage {
    /// Its file is fetched by itself (so a file already there is kept, never asked about);
    /// `hook`: `on_complete` waits for the download's end, so `{file}` is the file.
    Fetching { hook: Option<Finished> },
    /// A download the user started (`D`) is under way: `on_complete` waits for its end.
    HookWaits(Finished),
    /// Nothing more.
    Done,
}

impl End {
    /// The duties waiting for the claim's answer.
    pub fn claiming(&self) -> Option<&Duties> {
        match self {
            End::Claiming(d) => Some(d),
            _ => None,
        }
    }

    /// The download under way was started by itself (`auto_download`, `A`), not by `D`.
    pub fn fetching_by_itself(&self) -> bool {
        matches!(self, End::Ours(Stage::Fetching { .. }))
    }

    /// The task's file is to be fetched by itself here, once the claim is answered.
    pub fn will_fetch(&self) -> bool {
        self.claiming().is_some_and(|d| d.download)
    }

    /// The hook waiting for a download's end, taken out: the end has nothing more to do.
    pub fn take_hook(&mut self) -> Option<Finished> {
        match std::mem::replace(self, End::Ours(Stage::Done)) {
            End::Ours(Stage::Fetching { hook }) => hook,
            End::Ours(Stage::HookWaits(f)) => Some(f),
            other => {
                *self = other;
                None
            }
        }
    }
}
