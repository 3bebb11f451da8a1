//! A watched task's row: what it knows of its task and what it shows (its phase, its ETA, its
//! download), and the pane title's counts of them.

use super::{Counts, DownloadView, End, Phase, PollTrouble, Row, Watch};
use crate::api::types::{TaskState, classify};
use crate::app::services::Services;
use crate::cmd::TaskKey;
use crate::eta::Progress;
use crate::store::watchlist::WatchEntry;

impl DownloadView {
    /// A download is under way (fetching, or waiting for the preview's copy).
    pub fn under_way(&self) -> bool {
        matches!(self, DownloadView::Waiting | DownloadView::Running { .. })
    }
}

impl Phase {
    /// The order of the status sort: what needs attention first.
    pub(super) fn urgency(self) -> u8 {
        match self {
            Phase::Failed => 0,
            Phase::NotFound => 1,
            Phase::NoService => 2,
            Phase::Stalled => 3,
            Phase::Running => 4,
            Phase::NotPolled => 5,
            Phase::Completed => 6,
        }
    }
}

impl Row {
    pub(super) fn new(entry: WatchEntry, failure_statuses: &[String], services: &Services) -> Self {
        let download = entry.saved.clone().map(DownloadView::Saved);
        let no_service = !services.usable(services.of(entry.service.as_deref()));
        let state = entry.last.as_ref().map_or(TaskState::Running, |l| {
            classify(&l.status, failure_statuses)
        });
        Row {
            // The trouble the last session saw stands until a poll says otherwise.
            trouble: entry.trouble.as_ref().map(PollTrouble::kept),
            entry,
            state,
            progress: Progress::default(),
            download,
            no_service,
            polled_at: None,
            next_poll: None,
            end: End::Open,
            reported: None,
        }
    }
    pub fn key(&self) -> TaskKey {
        TaskKey::of(&self.entry)
    }

    /// Whether this is `key`'s row (without making its key).
    pub fn is(&self, key: &TaskKey) -> bool {
        self.entry.kind == key.kind && self.entry.task_id == key.id
    }

    /// The last attempt's error, when asking about the task failed.
    pub fn error(&self) -> Option<&str> {
        self.trouble.as_ref().and_then(PollTrouble::error)
    }

    /// The service's description, when it said it does not know the task.
    pub fn not_found(&self) -> Option<&str> {
        self.trouble.as_ref().and_then(PollTrouble::not_found)
    }

    /// Failed attempts in a row, 0 after an answer.
    pub fn retries(&self) -> u32 {
        self.trouble.as_ref().map_or(0, |t| t.retries)
    }

    /// When the next retry is due, on the reducer's clock.
    pub fn next_retry_at(&self) -> Option<u64> {
        self.trouble.as_ref().and_then(|t| t.retry_at)
    }
    pub fn url(&self) -> Option<&str> {
        self.entry
            .last
            .as_ref()
            .and_then(|l| l.url_download.as_deref())
    }

    /// The download URL if it may be opened or made a link (http or https, nothing a
    /// terminal would obey): what the view links, never anything else.
    pub fn openable_url(&self) -> Option<&str> {
        self.url()
            .filter(|u| crate::api::links::validate_link(u).is_ok())
    }
    pub fn percent(&self) -> u8 {
        self.entry.last.as_ref().map_or(0, |l| l.percent.min(100))
    }

    /// The service said the task failed (one of the failure statuses).
    pub fn failed(&self) -> bool {
        self.state == TaskState::Failed
    }

    pub fn phase(&self, now: u64, stall_after: u64) -> Phase {
        if self.no_service {
            Phase::NoService
        } else if self.not_found().is_some() {
            Phase::NotFound
        } else if self.entry.last.is_none() {
            Phase::NotPolled
        } else {
            match self.state {
                TaskState::Completed => Phase::Completed,
                TaskState::Failed => Phase::Failed,
                TaskState::Running if self.progress.stalled(now as f64, stall_after as f64) => {
                    Phase::Stalled
                }
                TaskState::Running => Phase::Running,
            }
        }
    }

    /// Seconds to completion, for a running task whose percent moved twice.
    pub fn eta(&self, now: u64) -> Option<u64> {
        (self.state == TaskState::Running && self.not_found().is_none() && !self.no_service)
            .then(|| self.progress.eta(now as f64))
            .flatten()
    }

    /// Seconds since the percent last moved (or the task was first seen running).
    pub fn still_for(&self, now: u64) -> Option<u64> {
        self.progress
            .last_move_at()
            .map(|at| now.saturating_sub(at as u64))
    }
}

impl Counts {
    /// Every state there is a task in, what needs attention first: `1 failed`, `2 running`.
    /// Each task is counted once, so they add up to the total.
    pub fn parts(&self) -> Vec<String> {
        [
            (self.failed, "failed"),
            (self.not_found, "not found"),
            (self.erroring, "erroring"),
            (self.stalled, "stalled"),
            (self.no_service, "no service"),
            (self.running, "running"),
            (self.not_polled, "not polled"),
            (self.completed, "done"),
        ]
        .into_iter()
        .filter(|&(n, _)| n > 0)
        .map(|(n, what)| format!("{} {what}", crate::fmt::grouped(n)))
        .collect()
    }
}

/// How many tasks are in each state, each task in one: a task whose polls fail is erroring
/// rather than what its last answer said (a finished one stays finished, and what the service
/// said of an unknown task stands).
pub fn counts(watch: &Watch, now: u64) -> Counts {
    let mut c = Counts::default();
    for r in &watch.rows {
        let phase = r.phase(now, watch.stall_after);
        let count = match phase {
            Phase::Running | Phase::Stalled | Phase::NotPolled if r.error().is_some() => {
                &mut c.erroring
            }
            Phase::Running => &mut c.running,
            Phase::Stalled => &mut c.stalled,
            Phase::Completed => &mut c.completed,
            Phase::Failed => &mut c.failed,
            Phase::NotFound => &mut c.not_found,
            Phase::NoService => &mut c.no_service,
            Phase::NotPolled => &mut c.not_polled,
        };
        *count += 1;
    }
    c
}
