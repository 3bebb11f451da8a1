//! How long tasks take on the dashboard: the `slower than usual` flag of a running task (from
//! its kind's figures, `store::watchlist::figures`, which `gendash stats` shows too), and when
//! the whole list should be done (`all done ~14:32`).

use super::{Phase, Watch};
use crate::api::types::TaskKind;
use crate::store::watchlist::WatchEntry;
use crate::store::watchlist::figures::Figures;

/// How many completed tasks of a kind with a known duration it takes before a running one is
/// compared with them.
pub const USUAL_AFTER: usize = 5;

/// The usual duration of each kind: the p90 of its completed tasks, once `USUAL_AFTER` of
/// them have a known duration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usual {
    image: Option<u64>,
    video: Option<u64>,
}

impl Usual {
    /// The watch list's, as its reducer last worked them out (see `Watch::usual`).
    pub fn of(watch: &Watch) -> Self {
        watch.usual()
    }

    /// Worked out from the rows (by the reducer, when they change).
    pub(super) fn work_out(watch: &Watch) -> Self {
        let p90 = |kind: TaskKind| {
            let f = Figures::of(
                watch
                    .rows
                    .iter()
                    .map(|r| &r.entry)
                    .filter(|e| e.kind == kind),
                &watch.failure_statuses,
            );
            (f.durations.len() >= USUAL_AFTER)
                .then(|| f.p90())
                .flatten()
        };
        Usual {
            image: p90(TaskKind::Image),
            video: p90(TaskKind::Video),
        }
    }

    /// The p90 of `kind`, if known.
    pub fn p90(self, kind: TaskKind) -> Option<u64> {
        match kind {
            TaskKind::Image => self.image,
            TaskKind::Video => self.video,
        }
    }

    /// How long the running task `e` has taken so far, when that is longer than the p90 of
    /// its kind (`None` otherwise, or while too few of its kind finished).
    pub fn slower(self, e: &WatchEntry, phase: Phase, now: u64) -> Option<(u64, u64)> {
        if !matches!(phase, Phase::Running | Phase::Stalled) {
            return None;
        }
        let since = e.last.as_ref()?.running_since?;
        let p90 = self.p90(e.kind)?;
        let taken = now.saturating_sub(since);
        (taken > p90).then_some((taken, p90))
    }
}

/// When the whole list should be done: the latest ETA among the running tasks (seconds since
/// the epoch), and whether some running task has no ETA yet (then it is a lower bound,
/// written `~14:32+`). `None` when nothing runs or no running task has an ETA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AllDone {
    pub at: u64,
    pub more: bool,
}

/// When the whole list should be done (see [`AllDone`]).
pub fn all_done(watch: &Watch, now: u64) -> Option<AllDone> {
    let mut latest = None::<u64>;
    let mut more = false;
    for r in &watch.rows {
        let phase = r.phase(now, watch.stall_after);
        if !matches!(phase, Phase::Running | Phase::Stalled | Phase::NotPolled) {
            continue;
        }
        match r.eta(now) {
            Some(eta) => latest = Some(latest.map_or(now + eta, |l| l.max(now + eta))),
            None => more = true,
        }
    }
    latest.map(|at| AllDone { at, more })
}
