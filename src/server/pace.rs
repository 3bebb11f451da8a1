//! The service's clock and its capacity limit.
//!
//! Everything in the service that follows time (timed tasks, the token bucket of
//! `--capacity`, the request counts' timestamps) reads one [`Clock`], given in
//! [`super::Options`]: the wall clock when served, a [`ManualClock`] in a test, which moves only
//! when the test says so, so nothing sleeps.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Time since the service's clock started. Never goes back.
pub trait Clock: Send + Sync + std::fmt::Debug {
    fn now(&self) -> Duration;
}

/// The wall clock (monotonic): time since it was made.
#[derive(Debug)]
pub struct SystemClock(Instant);

impl SystemClock {
    pub fn new() -> Self {
        SystemClock(Instant::now())
    }
}

impl Default for SystemClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        self.0.elapsed()
    }
}

/// A clock a test drives: it starts at zero and moves only by [`ManualClock::advance`].
#[derive(Debug, Default)]
pub struct ManualClock(Mutex<Duration>);

impl ManualClock {
    pub fn new() -> Self {
        Self::default()
    }
    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: Duration) {
        if let Ok(mut now) = self.0.lock() {
            *now += by;
        }
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        self.0.lock().map(|n| *n).unwrap_or_default()
    }
}

/// `--capacity N`: a token bucket holding at most `burst` requests, refilled at `per_second`.
/// A request that finds it empty is refused (`429`) with how long until the next token.
#[derive(Debug, Clone)]
pub struct TokenBucket {
    per_second: f64,
    burst: f64,
    tokens: f64,
    /// When `tokens` was last brought up to date.
    at: Duration,
}

impl TokenBucket {
    /// A full bucket of `burst` tokens at clock time `now`, refilled at `per_second`.
    pub fn new(per_second: u32, burst: u32, now: Duration) -> Self {
        let burst = f64::from(burst.max(1));
        TokenBucket {
            per_second: f64::from(per_second.max(1)),
            burst,
            tokens: burst,
            at: now,
        }
    }

    /// Takes one token at `now`: `Ok` when there was one, else `Err(wait)`, the time until the
    /// next one.
    pub fn take(&mut self, now: Duration) -> Result<(), Duration> {
        let elapsed = now.saturating_sub(self.at).as_secs_f64();
        self.at = self.at.max(now);
        self.tokens = (self.tokens + elapsed * self.per_second).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64(
                (1.0 - self.tokens) / self.per_second,
            ))
        }
    }
}

/// `Retry-After` for a wait: whole seconds, rounded up, at least 1.
pub fn retry_after_secs(wait: Duration) -> u64 {
    let whole = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    whole.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn the_bucket_serves_its_burst_then_refuses_until_it_refills() {
        let mut b = TokenBucket::new(10, 10, Duration::ZERO);
        for _ in 0..10 {
            assert_eq!(b.take(Duration::ZERO), Ok(()));
        }
        // Empty: the next token comes in 100 ms.
        assert_eq!(b.take(Duration::ZERO), Err(100 * MS));
        assert_eq!(b.take(40 * MS), Err(60 * MS));
        assert_eq!(b.take(100 * MS), Ok(()));
        assert!(b.take(100 * MS).is_err());
        // Over a long idle stretch it fills up to its burst, no further.
        let later = Duration::from_secs(60);
        for _ in 0..10 {
            assert_eq!(b.take(later), Ok(()));
        }
        assert!(b.take(later).is_err());
    }

    #[test]
    fn the_bucket_holds_its_rate_over_a_second() {
        // 100/s with a one-second burst: 100 at once, then one per 10 ms.
        let mut b = TokenBucket::new(100, 100, Duration::ZERO);
        let mut served = 0;
        // 1,000 requests spread evenly over 2 s: 100 from the burst + 200 refilled.
        for i in 0..1000u32 {
            if b.take(2 * MS * i).is_ok() {
                served += 1;
            }
        }
        assert!((299..=301).contains(&served), "{served}");
    }

    #[test]
    fn retry_after_is_whole_seconds_rounded_up_at_least_one() {
        assert_eq!(retry_after_secs(Duration::ZERO), 1);
        assert_eq!(retry_after_secs(10 * MS), 1);
        assert_eq!(retry_after_secs(Duration::from_secs(1)), 1);
        assert_eq!(retry_after_secs(1001 * MS), 2);
    }

    #[test]
    fn the_manual_clock_moves_only_when_told() {
        let c = ManualClock::new();
        assert_eq!(c.now(), Duration::ZERO);
        c.advance(1500 * MS);
        assert_eq!(c.now(), 1500 * MS);
    }
}
