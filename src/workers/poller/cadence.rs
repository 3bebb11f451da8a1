//! When a running task is asked again after an answer: pure, from what the poller has seen of
//! it (its percent over time, whether it is queued, whether it is on screen).
//!
//! - `adaptive_polling = false`: every `poll_interval` (`Fixed`).
//! - On screen or selected: every `poll_interval` (`Preferred`).
//! - Queued, or stalled (the percent has not moved for a while): an eighth of the time it has
//!   waited so far, between `poll_interval` and `max_poll_interval`, so the wait grows gently.
//! - Its ETA known and near (at most [`NEAR_INTERVALS`] intervals): every `poll_interval`
//!   (`EtaNear`); far: half the time left, between `poll_interval` and
//!   `max_poll_interval` (`EtaFar`).
//! - No ETA yet (the percent has not moved twice): every `poll_interval` (`NoEta`).
//!
//! Why half, and why near is [`NEAR_INTERVALS`] intervals: a task polled half its estimated
//! remaining time `e` ahead is seen late only if it really ends before that poll, that is if
//! the estimate was more than twice too long; a steady task's estimate is off by less (the
//! percent is a whole number, so two moves measure the rate within a factor of 1.5). Halving
//! the wait each time lands a poll within [`NEAR_INTERVALS`] intervals of the end, from where
//! the task is polled every interval. A quarter (and near at 6 intervals) kept the same delay
//! with 42% of the fixed cadence's requests, half with about a quarter. The simulation in the
//! tests checks the promise: 95% of steady tasks are seen finished within `poll_interval` of
//! their end.

use crate::eta::Progress;
use crate::msg::{NextPoll, PollWhy};
use std::time::Duration;

/// An ETA of at most this many intervals is near: the task is asked every interval.
pub const NEAR_INTERVALS: u32 = 2;

/// An ETA within the time this many percent take is near too (see `Cadence::near`).
const NEAR_PERCENTS: u32 = 2;

/// A far task is asked again after this fraction (1/n) of its estimated remaining time.
const FAR_FRACTION: u32 = 2;

/// A queued or stalled task is asked again after this fraction (1/n) of the time it has waited.
const WAIT_FRACTION: u32 = 8;

/// A running task with no ETA whose percent has not moved for this many intervals counts as
/// stalled (with an ETA, `stall_after` decides, as on screen).
const STILL_INTERVALS: u32 = 8;

/// The cadence's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cadence {
    /// `poll_interval`.
    pub interval: Duration,
    /// `max_poll_interval` (never below `interval`).
    pub max_interval: Duration,
    /// `adaptive_polling`.
    pub adaptive: bool,
    /// `stall_after`: a task whose percent has not moved this long is stalled.
    pub stall_after: Duration,
}

impl Cadence {
    /// Today's cadence: every `interval`, whatever the task does.
    pub fn fixed(interval: Duration) -> Self {
        Cadence {
            interval,
            max_interval: interval,
            adaptive: false,
            stall_after: Duration::from_secs(300),
        }
    }

    /// The cadence the config's poll settings ask for.
    pub fn of(settings: &crate::cmd::PollSettings) -> Self {
        Cadence {
            interval: settings.interval,
            max_interval: settings.max_interval,
            adaptive: settings.adaptive,
            stall_after: settings.stall_after,
        }
    }

    fn clamp(&self, d: Duration) -> Duration {
        d.clamp(self.interval, self.max_interval.max(self.interval))
    }

    /// The next poll of a running task answered at `now` (seconds on the progress' clock):
    /// `preferred` when on screen, `waiting` for how long it has been queued (if it is).
    pub fn next(
        &self,
        preferred: bool,
        waiting: Option<Duration>,
        progress: &Progress,
        now: f64,
    ) -> NextPoll {
        let every = |why| NextPoll {
            after: self.interval,
            why,
        };
        if !self.adaptive {
            return every(PollWhy::Fixed);
        }
        if preferred {
            return every(PollWhy::Preferred);
        }
        if let Some(waited) = waiting {
            return NextPoll {
                after: self.clamp(waited / WAIT_FRACTION),
                why: PollWhy::Queued,
            };
        }
        let still = progress
            .last_move_at()
            .map_or(Duration::ZERO, |at| secs(now - at));
        let eta = progress.eta(now);
        let stalled = match eta {
            Some(_) => progress.stalled(now, self.stall_after.as_secs_f64()),
            None => still >= self.interval * STILL_INTERVALS,
        };
        if stalled {
            return NextPoll {
                after: self.clamp(still / WAIT_FRACTION),
                why: PollWhy::Stalled,
            };
        }
        match eta {
            None => every(PollWhy::NoEta),
            Some(e) if Duration::from_secs(e) <= self.near(progress) => every(PollWhy::EtaNear),
            Some(e) => NextPoll {
                after: self.clamp(Duration::from_secs(e) / FAR_FRACTION),
                why: PollWhy::EtaFar,
            },
        }
    }
}

impl Cadence {
    /// How close the ETA must be to poll every interval: [`NEAR_INTERVALS`] intervals, or the
    /// time [`NEAR_PERCENTS`] percent take if longer. A slow task's percent moves seldom, so its
    /// ETA can be off by that much; halving the wait must not jump past the end.
    fn near(&self, progress: &Progress) -> Duration {
        let steps = progress
            .seconds_per_percent()
            .map_or(Duration::ZERO, |s| secs(s * f64::from(NEAR_PERCENTS)));
        (self.interval * NEAR_INTERVALS).max(steps)
    }
}

/// Whether a running task's status says it waits for its turn.
pub fn is_queued(status: &str) -> bool {
    ["QUEUED", "PENDING", "WAITING", "SUBMITTED"]
        .iter()
        .any(|q| status.trim().eq_ignore_ascii_case(q))
}

fn secs(s: f64) -> Duration {
    Duration::try_from_secs_f64(s.max(0.0)).unwrap_or(Duration::MAX)
}
