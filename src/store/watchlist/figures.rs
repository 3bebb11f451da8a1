//! How long tasks take, from what the watch list keeps of each (its status history and
//! times): the figures of a group of tasks, as `gendash stats` shows them per kind and per
//! service, and as the dashboard compares a running task with its kind's (pure, over watch-list
//! entries).
//!
//! A task's duration is from its start to its finish, known only when both were seen (first
//! seen running at 0%, then seen finished), as the detail's `took` is; the median and the
//! 90th percentile are of the completed tasks' durations, by nearest rank.

use super::WatchEntry;
use crate::api::types::{TaskState, classify};

/// A finished task's duration in seconds, when its start and its finish were both seen.
pub fn duration(e: &WatchEntry) -> Option<u64> {
    let last = e.last.as_ref()?;
    let (from, to) = (last.running_since?, last.finished_at?);
    last.start_seen.then(|| to.saturating_sub(from))
}

/// The figures of a group of tasks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Figures {
    /// Every task of the group on the list.
    pub seen: usize,
    pub completed: usize,
    pub failed: usize,
    /// The completed tasks' durations, in seconds, shortest first (those known).
    pub durations: Vec<u64>,
    /// From the first start (or add) to the last completion, in seconds: the span the
    /// completions per hour are counted over.
    pub span: Option<u64>,
}

impl Figures {
    /// The figures of `entries`, each classified with `failure_statuses`.
    pub fn of<'a>(
        entries: impl IntoIterator<Item = &'a WatchEntry>,
        failure_statuses: &[String],
    ) -> Self {
        let mut f = Figures::default();
        let (mut first, mut last_done) = (None::<u64>, None::<u64>);
        for e in entries {
            f.seen += 1;
            let began = e
                .last
                .as_ref()
                .and_then(|l| l.running_since)
                .unwrap_or(e.added_at)
                .min(e.added_at);
            first = Some(first.map_or(began, |t| t.min(began)));
            let Some(last) = &e.last else { continue };
            match classify(&last.status, failure_statuses) {
                TaskState::Completed => {
                    f.completed += 1;
                    f.durations.extend(duration(e));
                    if let Some(t) = last.finished_at {
                        last_done = Some(last_done.map_or(t, |d| d.max(t)));
                    }
                }
                TaskState::Failed => f.failed += 1,
                TaskState::Running => {}
            }
        }
        f.durations.sort_unstable();
        f.span = first.zip(last_done).map(|(a, b)| b.saturating_sub(a));
        f
    }

    /// Failed among the finished, 0 to 1; `None` while none finished.
    pub fn failure_rate(&self) -> Option<f64> {
        let finished = self.completed + self.failed;
        (finished > 0).then(|| self.failed as f64 / finished as f64)
    }

    /// The `p`th percentile (0 to 100) of the durations, by nearest rank.
    pub fn percentile(&self, p: usize) -> Option<u64> {
        let n = self.durations.len();
        if n == 0 {
            return None;
        }
        let rank = (p * n).div_ceil(100).clamp(1, n);
        Some(self.durations[rank - 1])
    }

    pub fn median(&self) -> Option<u64> {
        self.percentile(50)
    }

    pub fn p90(&self) -> Option<u64> {
        self.percentile(90)
    }

    /// Completions per hour over `span`; `None` without a completion or a span of a minute.
    pub fn per_hour(&self) -> Option<f64> {
        let span = self.span.filter(|&s| s >= 60)?;
        (self.completed > 0).then(|| self.completed as f64 * 3600.0 / span as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::types::TaskKind;
    use crate::store::watchlist::LastKnown;

    fn done(id: &str, kind: TaskKind, status: &str, from: u64, to: u64) -> WatchEntry {
        let mut e = WatchEntry::new(id, kind);
        e.added_at = from;
        e.last = Some(LastKnown {
            status: status.into(),
            percent: 100,
            running_since: Some(from),
            finished_at: Some(to),
            start_seen: true,
            ..LastKnown::default()
        });
        e
    }

    #[test]
    fn figures_count_and_rank_the_durations() {
        let statuses = crate::api::types::default_failure_statuses();
        let mut entries: Vec<WatchEntry> = (1..=10)
            .map(|n| done(&format!("t{n}"), TaskKind::Image, "COMPLETED", 0, n * 60))
            .collect();
        entries.push(done("f", TaskKind::Image, "FAILED", 0, 30));
        // Seen only once it ran: its duration is not known.
        let mut late = done("late", TaskKind::Image, "COMPLETED", 0, 7200);
        late.last.as_mut().expect("known").start_seen = false;
        entries.push(late);
        let mut new = WatchEntry::new("new", TaskKind::Image);
        new.added_at = 0;
        entries.push(new);
        let f = Figures::of(&entries, &statuses);
        assert_eq!((f.seen, f.completed, f.failed), (13, 11, 1));
        assert_eq!(f.durations.len(), 10);
        assert_eq!(f.median(), Some(300));
        assert_eq!(f.p90(), Some(540));
        assert_eq!(f.failure_rate(), Some(1.0 / 12.0));
        // 11 completions over the two hours from the first start to the last.
        assert_eq!(f.per_hour(), Some(5.5));
        assert_eq!(Figures::of(&[], &statuses).median(), None);
    }
}
