//! The terminal's focus coming back: the running tasks on screen are asked at once, so what
//! the user comes back to is fresh, without focus that comes and goes costing more polls.
//!
//! The rule: on a focus-in, each row on screen whose task is running (at a configured
//! service, not waiting out a retry's backoff) is polled now (`PollNow`, as the poll-now key
//! does) unless its last answer came less than `FRESH` seconds ago; and focus-ins ask at most
//! once each `poll_interval` (the configured one, `FRESH` at the least). So focus flapping twenty times in a second costs each visible
//! task one poll at most, and a task just answered is not asked again. A focus-out changes
//! nothing: no key can come while the terminal is away, and the unseen marks are cleared only
//! by the user's input (see `unseen`), so a task that finishes then stays new until the user
//! is back and acts.

use super::Watch;
use crate::api::TaskState;
use crate::cmd::{Cmd, PollCmd};

/// Seconds (on the reducers' clock) within which an answer is fresh enough not to be asked
/// again on a focus-in: the default `poll_interval`. Focus-ins ask at most once each
/// configured `poll_interval` (this at the least), so focus coming and going adds at most one
/// lookup per task to each of the poller's: with `poll_interval = 60`, a return after half a
/// minute asks at once, and flapping every few seconds asks no more.
pub const FRESH: u64 = crate::store::config::DEFAULT_POLL_INTERVAL.as_secs();

/// The focus came back at `now`; `on_screen`: the watch pane's rows are drawn (not under the
/// archive view, a zoomed browser or a full-screen overlay); `poll_interval`: the configured
/// one, in seconds. The polls to ask for.
pub fn regained(watch: &mut Watch, on_screen: bool, poll_interval: u64, now: u64) -> Vec<Cmd> {
    let again_after = poll_interval.max(FRESH);
    if !on_screen
        || watch
            .focus_asked_at
            .is_some_and(|at| now.saturating_sub(at) < again_after)
    {
        return Vec::new();
    }
    let cmds: Vec<Cmd> = watch
        .visible()
        .filter(|r| {
            r.state == TaskState::Running
                && !r.no_service
                && r.next_retry_at().is_none_or(|at| at <= now)
                && r.polled_at.is_none_or(|at| now.saturating_sub(at) >= FRESH)
        })
        .map(|r| Cmd::Poll(PollCmd::PollNow(r.key())))
        .collect();
    if !cmds.is_empty() {
        watch.focus_asked_at = Some(now);
    }
    cmds
}

#[cfg(test)]
#[path = "focus_tests.rs"]
mod tests;
