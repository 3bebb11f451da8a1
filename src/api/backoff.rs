//! Retry timing as pure functions, so schedules can be unit-tested with a seeded random source.

use rand::Rng;
use std::time::{Duration, SystemTime};

/// First retry delay after an error.
pub const BASE: Duration = Duration::from_secs(1);
/// No error backoff grows beyond this.
pub const CAP: Duration = Duration::from_secs(60);
/// The longest `Retry-After` we honour; a larger value is taken as this.
pub const RETRY_AFTER_CAP: Duration = Duration::from_secs(300);

/// First retry after the service said it does not know a task: it may be registered late, so
/// it is asked again, slowly.
pub const LOOKUP_BASE: Duration = Duration::from_secs(15);
/// Retries of an unknown task never wait longer than this.
pub const LOOKUP_CAP: Duration = Duration::from_secs(300);

/// Delay before the next attempt after `failures` consecutive failures (1 for the first):
/// exponential growth from `base`, capped at `cap`, with "equal jitter" (half fixed, half random)
/// so a thousand clients that failed together do not retry together.
pub fn backoff_delay(failures: u32, base: Duration, cap: Duration, rng: &mut impl Rng) -> Duration {
    let exp = failures.saturating_sub(1).min(30);
    let full = base.saturating_mul(1u32 << exp).min(cap);
    let half = full / 2;
    let jitter_ms = rng.random_range(0..=half.as_millis() as u64);
    half + Duration::from_millis(jitter_ms)
}

/// Delay to wait after a failed attempt: the backoff, or longer if the service asked for it.
pub fn retry_delay(failures: u32, retry_after: Option<Duration>, rng: &mut impl Rng) -> Duration {
    let backoff = backoff_delay(failures, BASE, CAP, rng);
    match retry_after {
        // The service knows its own load better than our guess does.
        Some(asked) => asked.min(RETRY_AFTER_CAP),
        None => backoff,
    }
}

/// Parses a `Retry-After` header: delay-seconds or an HTTP date. The result is capped.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    let asked = if let Ok(secs) = value.parse::<u64>() {
        Duration::from_secs(secs)
    } else {
        let when = httpdate::parse_http_date(value).ok()?;
        when.duration_since(now).unwrap_or(Duration::ZERO)
    };
    Some(asked.min(RETRY_AFTER_CAP))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    #[test]
    fn backoff_grows_then_caps_within_jitter_bounds() {
        let mut rng = StdRng::seed_from_u64(42);
        for failures in 1..=12u32 {
            let d = backoff_delay(failures, BASE, CAP, &mut rng);
            let full = BASE.saturating_mul(1 << (failures - 1)).min(CAP);
            assert!(
                d >= full / 2 && d <= full,
                "failures {failures}: {d:?} vs {full:?}"
            );
        }
        assert!(backoff_delay(1000, BASE, CAP, &mut rng) <= CAP);
    }

    #[test]
    fn same_seed_same_schedule() {
        let a: Vec<_> = {
            let mut r = StdRng::seed_from_u64(7);
            (1..8)
                .map(|f| backoff_delay(f, BASE, CAP, &mut r))
                .collect()
        };
        let b: Vec<_> = {
            let mut r = StdRng::seed_from_u64(7);
            (1..8)
                .map(|f| backoff_delay(f, BASE, CAP, &mut r))
                .collect()
        };
        assert_eq!(a, b);
    }

    #[test]
    fn retry_after_forms_and_cap() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        assert_eq!(parse_retry_after("7", now), Some(Duration::from_secs(7)));
        assert_eq!(parse_retry_after("99999999999", now), Some(RETRY_AFTER_CAP));
        let later = httpdate::fmt_http_date(now + Duration::from_secs(30));
        assert_eq!(
            parse_retry_after(&later, now),
            Some(Duration::from_secs(30))
        );
        let past = httpdate::fmt_http_date(now - Duration::from_secs(30));
        assert_eq!(parse_retry_after(&past, now), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("soon", now), None);
    }

    #[test]
    fn retry_after_wins_over_shorter_backoff() {
        let mut rng = StdRng::seed_from_u64(1);
        let d = retry_delay(1, Some(Duration::from_secs(20)), &mut rng);
        assert_eq!(d, Duration::from_secs(20));
        let d = retry_delay(1, Some(Duration::from_secs(100_000)), &mut rng);
        assert_eq!(d, RETRY_AFTER_CAP);
    }
}
