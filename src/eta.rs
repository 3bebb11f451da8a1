//! What a running task's percent says about its future: an estimated time to completion and
//! whether it has stalled. Shared by the dashboard and `gendash wait`, so both show the same
//! figures. Pure: every method takes the time (seconds, any fixed origin) as an argument.
//!
//! The rate is the average over the last few moves of the percent (time-weighted, so a burst
//! after a long wait counts for the wait too), starting from the first running sample; no ETA
//! is given until the percent has moved twice. Between moves the ETA counts down; once the
//! countdown has run out (the task is behind its own pace) the ETA is recomputed from the
//! average rate over the whole run up to now, so a stuck task's ETA grows instead of sitting at
//! zero. A percent that goes backwards starts the estimate over.

use std::collections::VecDeque;

/// Moves of the percent the rate is averaged over.
const WINDOW: usize = 8;

/// Moves of the percent needed before an ETA is given.
const MOVES_FOR_ETA: u32 = 2;

/// Seconds, as the estimator measures time.
pub type Seconds = f64;

#[derive(Debug, Clone, Copy, PartialEq)]
struct Sample {
    at: Seconds,
    percent: u8,
}

/// The progress history of one running task.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Progress {
    /// The first sample of the current run (reset when the percent goes backwards).
    first: Option<Sample>,
    /// The first sample and the samples where the percent changed, the last `WINDOW` + 1.
    window: VecDeque<Sample>,
    moves: u32,
}

impl Progress {
    /// Records a running sample.
    pub fn observe(&mut self, at: Seconds, percent: u8) {
        let percent = percent.min(100);
        let sample = Sample { at, percent };
        let Some(last) = self.window.back().copied() else {
            self.first = Some(sample);
            self.window.push_back(sample);
            return;
        };
        if percent < last.percent {
            *self = Progress::default();
            self.observe(at, percent);
            return;
        }
        if percent == last.percent || at < last.at {
            return;
        }
        self.moves += 1;
        self.window.push_back(sample);
        if self.window.len() > WINDOW + 1 {
            self.window.pop_front();
        }
    }

    /// Percent per second over the window.
    fn rate(&self) -> Option<f64> {
        let (oldest, last) = (self.window.front()?, self.window.back()?);
        let elapsed = last.at - oldest.at;
        (elapsed > 0.0 && last.percent > oldest.percent)
            .then(|| f64::from(last.percent - oldest.percent) / elapsed)
    }

    /// Seconds until 100 %, if known: never negative, `None` until the percent moved twice.
    pub fn eta(&self, now: Seconds) -> Option<u64> {
        if self.moves < MOVES_FOR_ETA {
            return None;
        }
        let (first, last, rate) = (self.first?, *self.window.back()?, self.rate()?);
        let remaining = f64::from(100 - last.percent);
        let since_move = (now - last.at).max(0.0);
        let countdown = remaining / rate - since_move;
        // Run out means below zero: a fresh estimate under a second (a fast task, the last
        // percent) is still on pace, and the whole run's average would count its queueing.
        let eta = if countdown > 0.0 || remaining == 0.0 {
            countdown.max(0.0)
        } else {
            // Behind its own pace: the average rate over the whole run, the wait included.
            let overall = f64::from(last.percent - first.percent) / (now - first.at).max(1.0);
            remaining / overall
        };
        Some(eta.round() as u64)
    }

    /// Seconds one percent takes at the measured rate, once the ETA is known: how far off an
    /// ETA can be from the percent being a whole number.
    pub fn seconds_per_percent(&self) -> Option<Seconds> {
        (self.moves >= MOVES_FOR_ETA)
            .then(|| self.rate())
            .flatten()
            .map(|r| 1.0 / r)
    }

    /// When the percent last changed (or was first seen), if it was ever seen.
    pub fn last_move_at(&self) -> Option<Seconds> {
        self.window.back().map(|s| s.at)
    }

    /// Whether the percent has not changed for `stall_after` seconds.
    pub fn stalled(&self, now: Seconds, stall_after: Seconds) -> bool {
        self.last_move_at()
            .is_some_and(|at| now - at >= stall_after && stall_after > 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fed(samples: &[(f64, u8)]) -> Progress {
        let mut p = Progress::default();
        for &(at, percent) in samples {
            p.observe(at, percent);
        }
        p
    }

    #[test]
    fn steady_progress_gives_the_remaining_time() {
        // 1 % per second.
        let p = fed(&[(0.0, 10), (10.0, 20), (20.0, 30)]);
        assert_eq!(p.eta(20.0), Some(70));
        assert_eq!(p.eta(25.0), Some(65), "counts down between samples");
    }

    #[test]
    fn no_eta_until_two_moves() {
        assert_eq!(fed(&[]).eta(5.0), None);
        assert_eq!(fed(&[(0.0, 10)]).eta(5.0), None);
        assert_eq!(fed(&[(0.0, 10), (2.0, 10), (4.0, 10)]).eta(5.0), None);
        assert_eq!(fed(&[(0.0, 10), (10.0, 20)]).eta(10.0), None, "one move");
        assert!(
            fed(&[(0.0, 10), (10.0, 20), (20.0, 30)])
                .eta(20.0)
                .is_some()
        );
    }

    #[test]
    fn bursty_progress_is_smoothed() {
        // 20 % in a burst after 5 s, then 1 % after 20 s, twice: 42 % in 50 s overall. The
        // last step alone (0.05 %/s) would say 1160 s, the bursts alone (4 %/s) 15 s; the
        // average over the moves says 58 % at 0.84 %/s.
        let p = fed(&[(0.0, 0), (5.0, 20), (25.0, 21), (30.0, 41), (50.0, 42)]);
        assert_eq!(p.eta(50.0), Some(69));
    }

    #[test]
    fn a_stuck_task_s_eta_grows_and_never_goes_negative() {
        let p = fed(&[(0.0, 10), (10.0, 20), (20.0, 30)]);
        let mut previous = 0;
        for now in [90.0, 200.0, 1000.0, 10_000.0] {
            let eta = p.eta(now).expect("an eta");
            assert!(eta >= previous, "{eta} after {previous}");
            previous = eta;
        }
        assert!(previous > 70);
        assert_eq!(
            p.eta(-50.0),
            Some(70),
            "a clock behind the samples counts nothing"
        );
    }

    #[test]
    fn a_fresh_estimate_under_a_second_is_not_behind_pace() {
        // Queued for ten minutes at 0 %, then 2 % a second; the last percent is half a second
        // away. Right after a move nothing has run out: the countdown stands, instead of the
        // whole run's average (queue included), which said 7 s.
        let mut samples = vec![(0.0, 0)];
        samples.extend((1..=49).map(|k| (600.0 + f64::from(k), (2 * k) as u8)));
        samples.push((649.5, 99));
        let p = fed(&samples);
        assert_eq!(p.eta(649.5), Some(1));
        assert_eq!(p.eta(649.9), Some(0), "counts down to zero");
        assert!(p.eta(651.0).expect("an eta") > 1, "then it is behind");
        // The same at the speed of `wait --interval 0.05` against the reference service.
        assert_eq!(fed(&[(0.0, 0), (0.05, 20), (0.1, 40)]).eta(0.1), Some(0));
    }

    #[test]
    fn going_backwards_starts_over() {
        let mut p = fed(&[(0.0, 10), (10.0, 20), (20.0, 30)]);
        p.observe(30.0, 5);
        assert_eq!(p.eta(30.0), None);
        assert_eq!(p.last_move_at(), Some(30.0));
        p.observe(40.0, 15);
        p.observe(50.0, 25);
        assert_eq!(p.eta(50.0), Some(75));
    }

    #[test]
    fn stalls_are_counted_from_the_last_move() {
        let p = fed(&[(0.0, 10), (100.0, 20), (200.0, 20), (350.0, 20)]);
        assert!(!p.stalled(399.0, 300.0));
        assert!(p.stalled(400.0, 300.0));
        assert!(!fed(&[]).stalled(1e9, 300.0), "never seen, never stalled");
        let mut moved = p.clone();
        moved.observe(401.0, 21);
        assert!(!moved.stalled(401.0, 300.0));
    }
}
