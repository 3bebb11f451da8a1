//! When the poller asks a task next, and why, as the detail says it: `next poll in 12s · ETA
//! far`. The poller says it with each answer (`Msg::Polled`'s `next`); the row keeps it on the
//! reducers' clock.

use super::Watch;
use crate::cmd::TaskKey;
use crate::msg::{NextPoll, PollWhy};

/// A row's next poll, on the reducers' clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Planned {
    /// When it is due (seconds since the epoch).
    pub at: u64,
    pub why: PollWhy,
}

/// The plan an answer at `now` brought, if the poller said one.
pub fn plan(next: Option<NextPoll>, now: u64) -> Option<Planned> {
    next.map(|n| Planned {
        // Rounded up: "in 0s" would be said before the poll is under way.
        at: now + n.after.as_millis().div_ceil(1000) as u64,
        why: n.why,
    })
}

/// Keeps the next poll an answer at `now` brought for `key`'s row; whether the detail's
/// words for it changed (it is the selected row's).
pub fn keep(watch: &mut Watch, key: &TaskKey, next: Option<NextPoll>, now: u64) -> bool {
    let Some(i) = watch.position(key) else {
        return false;
    };
    let planned = plan(next, now);
    let before = std::mem::replace(&mut watch.rows[i].next_poll, planned);
    // Only the selected row's words are shown: the others' are not worded (an answer each).
    let words = |p: Option<Planned>| p.map(|p| p.words(now));
    watch.selected_row().is_some_and(|r| r.is(key)) && words(before) != words(planned)
}

impl Planned {
    /// The detail's words: `next poll in 12s · ETA far`; `polling now · ETA far` once due;
    /// `finished` alone when no poll is planned.
    pub fn words(&self, now: u64) -> String {
        if self.why == PollWhy::Finished {
            return "not polled again unless asked".into();
        }
        let when = if self.at > now {
            format!("next poll in {}", crate::fmt::countdown(self.at - now))
        } else {
            "polling now".into()
        };
        format!("{when} · {}", self.why.words())
    }

    /// Seconds left, for the redraw signature: what a tick changes on screen.
    pub fn left(&self, now: u64) -> u64 {
        self.at.saturating_sub(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_detail_counts_down_to_the_next_poll_and_says_why() {
        let far = NextPoll {
            after: Duration::from_millis(11_200),
            why: PollWhy::EtaFar,
        };
        let p = plan(Some(far), 100).expect("planned");
        assert_eq!(p.words(100), "next poll in 12s · ETA far");
        assert_eq!(p.words(111), "next poll in 1s · ETA far");
        assert_eq!(p.words(112), "polling now · ETA far");
        assert_eq!(plan(None, 100), None, "not said: nothing planned");
        let near = NextPoll {
            after: Duration::from_secs(2),
            why: PollWhy::EtaNear,
        };
        assert_eq!(
            plan(Some(near), 0).expect("planned").words(0),
            "next poll in 2s · ETA near"
        );
    }
}
