//! How many polls may be in flight, and how fast they may be sent: an adaptive limit between 1
//! and `max_concurrent_polls`, learnt from the service's answers. Pure: every method takes the
//! time as an argument, so it is tested on an explicit clock.
//!
//! - **Latency** (as in TCP Vegas or Netflix's gradient limiter): answers are taken in windows
//!   of about `limit` samples; the window's median is compared with the baseline (the lowest
//!   median seen, drifting up over a minute so that a service that became slower for good is not
//!   punished forever). Near the baseline (at most 1.5 times) and with the limit in use (at
//!   least half of it in flight), the limit grows by one per window; above twice the baseline it
//!   shrinks by a fifth. The median ignores a few slow tasks.
//! - **Overload**: when a quarter of a window's answers are 5xx, timeouts or broken
//!   connections, the limit shrinks by a quarter (one faulty task among healthy ones does not).
//! - **429**: the limit shrinks by a quarter, sending is paced at four fifths of the rate that
//!   drew it (a concurrency limit alone cannot slow a fast service down), and neither grows
//!   again before the `Retry-After` (at least two seconds) has passed. Then the pace grows by 1%
//!   a second while it holds sends back, so it settles just under the service's capacity with a
//!   429 now and then.
//!
//! Each decrease is followed by a short quiet time in which further signals, from requests
//! sent before it, do not count again.

use std::collections::VecDeque;
use std::time::Duration;
use tokio::time::Instant;

/// The limit before anything is known: today's fixed limit.
pub const INITIAL_LIMIT: usize = 8;

/// The seconds the shown rate is averaged over.
const RATE_WINDOW_SECS: usize = 5;

/// Latency up to this many times the baseline lets the limit grow (in tenths).
const GROW_BELOW_TENTHS: u32 = 15;
/// Latency above this many times the baseline shrinks it.
const SHRINK_ABOVE: u32 = 2;
/// The fewest samples in a window.
const MIN_WINDOW: usize = 4;
/// A request is slow when it took this many times the baseline, and at least `SLOW_FLOOR` more.
const SLOW_TIMES: u32 = 4;
const SLOW_FLOOR: Duration = Duration::from_millis(250);
/// Before the service's usual answer time is known, a request is slow after this long.
const UNKNOWN_SLOW: Duration = Duration::from_secs(1);
/// Latency within this much of the baseline is noise, whatever the ratio: a service that
/// answers in 0.3 ms and now and then in 3 ms is not under load.
const NOISE: Duration = Duration::from_millis(20);
/// After a decrease, further signals are ignored this long (or two medians, if longer).
const QUIET: Duration = Duration::from_millis(500);
/// After a 429, nothing grows for at least this long.
const THROTTLE_HOLD: Duration = Duration::from_secs(2);
/// A service that became slower for good becomes the baseline over about this long.
const DRIFT: Duration = Duration::from_secs(60);
/// The slowest pace a 429 can bring about: one request every two seconds.
const MIN_RATE: f64 = 0.5;

/// How an answer went, as the limiter counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// An answer (even an error of the task's own, such as an unknown task).
    Answered,
    /// 429, with its `Retry-After`.
    Throttled(Option<Duration>),
    /// 5xx, a timeout, a refused or broken connection.
    Overloaded,
}

#[derive(Debug, Clone)]
pub struct Limiter {
    ceiling: usize,
    limit: usize,
    baseline: Option<Duration>,
    window: Vec<Duration>,
    window_trouble: usize,
    /// The most requests in flight at a send during this window.
    window_peak: usize,
    quiet_until: Option<Instant>,
    hold_until: Option<Instant>,
    /// Requests per second, once a 429 asked for a pace.
    rate: Option<f64>,
    /// When the next request may be sent, at that pace.
    next_send: Option<Instant>,
    /// A send waited for the pace since the pace last grew.
    paced: bool,
    rate_grown_at: Option<Instant>,
    /// When the last window closed.
    closed_at: Option<Instant>,
    /// The last window's median.
    typical: Option<Duration>,
    /// When each request of about the last second was sent.
    sent: VecDeque<Instant>,
}

impl Limiter {
    /// A limiter between 1 and `ceiling`, starting at [`INITIAL_LIMIT`] (or the ceiling).
    pub fn new(ceiling: usize) -> Self {
        let ceiling = ceiling.max(1);
        Limiter {
            ceiling,
            limit: INITIAL_LIMIT.min(ceiling),
            baseline: None,
            window: Vec::new(),
            window_trouble: 0,
            window_peak: 0,
            quiet_until: None,
            hold_until: None,
            rate: None,
            next_send: None,
            paced: false,
            rate_grown_at: None,
            closed_at: None,
            typical: None,
            sent: VecDeque::new(),
        }
    }

    /// Starts at the ceiling rather than at [`INITIAL_LIMIT`] (a fixed limit that may still
    /// shrink).
    pub fn start_at_ceiling(&mut self) {
        self.limit = self.ceiling;
    }

    /// Requests allowed in flight now.
    pub fn limit(&self) -> usize {
        self.limit
    }

    pub fn ceiling(&self) -> usize {
        self.ceiling
    }

    /// A new ceiling (`max_concurrent_polls` read again); the limit stays under it.
    pub fn set_ceiling(&mut self, ceiling: usize) {
        self.ceiling = ceiling.max(1);
        self.limit = self.limit.min(self.ceiling);
    }

    /// The pace asked for by a 429, in requests per second, if any.
    pub fn rate(&self) -> Option<f64> {
        self.rate
    }

    /// The usual answer time, once known: the baseline.
    pub fn baseline(&self) -> Option<Duration> {
        self.baseline
    }

    /// When the pace lets the next request go (`None`: at once).
    pub fn send_at(&self) -> Option<Instant> {
        self.next_send
    }

    /// Whether the pace lets a request go at `now`.
    pub fn may_send(&self, now: Instant) -> bool {
        self.next_send.is_none_or(|t| now >= t)
    }

    /// A request was sent at `now`, making `in_flight`.
    pub fn sent(&mut self, now: Instant, in_flight: usize) {
        self.window_peak = self.window_peak.max(in_flight);
        self.sent.push_back(now);
        self.trim(now);
        if let Some(rate) = self.rate {
            let gap = Duration::from_secs_f64(1.0 / rate);
            let at = match self.next_send {
                // It went as soon as the pace allowed: the pace holds sends back.
                Some(t) if now < t + gap => {
                    self.paced = true;
                    t
                }
                _ => now,
            };
            self.next_send = Some(at + gap);
            self.grow_rate(now);
        }
    }

    /// Requests sent over the last second.
    pub fn per_second(&mut self, now: Instant) -> usize {
        self.trim(now);
        self.sent
            .iter()
            .rev()
            .take_while(|t| now.saturating_duration_since(**t) <= Duration::from_secs(1))
            .count()
    }

    /// Requests a second over the last `RATE_WINDOW`, in tenths: what a person is shown. A
    /// second alone is too short: tasks polled every 2 s are sent together, so most seconds
    /// would say nothing at all.
    pub fn rate_tenths(&mut self, now: Instant) -> usize {
        self.trim(now);
        self.sent.len() * 10 / RATE_WINDOW_SECS
    }

    fn trim(&mut self, now: Instant) {
        let window = Duration::from_secs(RATE_WINDOW_SECS as u64);
        while self
            .sent
            .front()
            .is_some_and(|t| now.saturating_duration_since(*t) > window)
        {
            self.sent.pop_front();
        }
    }

    /// A request's answer took `latency` and went as `outcome`.
    pub fn answered(&mut self, now: Instant, latency: Duration, outcome: Outcome) {
        if let Outcome::Throttled(retry_after) = outcome {
            self.throttled(now, retry_after);
        }
        self.window.push(latency);
        if outcome == Outcome::Overloaded {
            self.window_trouble += 1;
        }
        if self.window.len() >= self.limit.max(MIN_WINDOW) {
            self.close_window(now);
        }
    }

    /// Whether an answer that took `latency` was slow: its task gets a bounded share of the
    /// slots from now on.
    /// Judged against the last window's median when that is higher than the baseline: when
    /// the whole service slows down, no task is singled out (the limit shrinks instead).
    pub fn is_slow(&self, latency: Duration) -> bool {
        self.baseline.is_some() && latency > self.slow_after()
    }

    /// How long an answer takes before it counts as slow (`UNKNOWN_SLOW` before anything is
    /// known of the service).
    pub fn slow_after(&self) -> Duration {
        self.baseline
            .map(|b| b.max(self.typical.unwrap_or_default()))
            .map_or(UNKNOWN_SLOW, |b| (b * SLOW_TIMES).max(b + SLOW_FLOOR))
    }

    /// The answer of a request that ran in the slow slots: only a 429 counts (its pace is the
    /// service's); its time does not.
    pub fn answered_aside(&mut self, now: Instant, outcome: Outcome) {
        if let Outcome::Throttled(retry_after) = outcome {
            self.throttled(now, retry_after);
        }
    }

    fn quiet(&self, now: Instant) -> bool {
        self.quiet_until.is_some_and(|t| now < t)
    }

    fn held(&self, now: Instant) -> bool {
        self.hold_until.is_some_and(|t| now < t)
    }

    fn shrink(&mut self, now: Instant, numerator: usize, denominator: usize, median: Duration) {
        self.limit = (self.limit * numerator / denominator).max(1);
        self.quiet_until = Some(now + QUIET.max(median * 2));
    }

    fn throttled(&mut self, now: Instant, retry_after: Option<Duration>) {
        self.hold_until = Some(now + retry_after.unwrap_or_default().max(THROTTLE_HOLD));
        if self.quiet(now) {
            return;
        }
        let measured = self.per_second(now) as f64;
        let current = self
            .rate
            .map_or(measured, |r| r.min(measured.max(MIN_RATE)));
        self.rate = Some((current * 0.8).max(MIN_RATE));
        self.rate_grown_at = Some(now);
        self.paced = false;
        self.shrink(now, 3, 4, self.baseline.unwrap_or_default());
    }

    /// Once a second, the pace grows by 1% (at least one request a second) if it held sends
    /// back, and no 429 asked for a pause.
    fn grow_rate(&mut self, now: Instant) {
        let (Some(rate), Some(at)) = (self.rate, self.rate_grown_at) else {
            return;
        };
        if now < at + Duration::from_secs(1) {
            return;
        }
        self.rate_grown_at = Some(now);
        if self.paced && !self.held(now) {
            self.rate = Some(rate + (rate / 100.0).max(1.0));
        }
        self.paced = false;
    }

    fn close_window(&mut self, now: Instant) {
        let mut window = std::mem::take(&mut self.window);
        let trouble = std::mem::take(&mut self.window_trouble);
        let peak = std::mem::take(&mut self.window_peak);
        let mid = window.len() / 2;
        let median = *window.select_nth_unstable(mid).1;
        self.typical = Some(median);
        // Down at once, up slowly: a higher median moves the baseline towards it by the
        // share of `DRIFT` that passed since the last window.
        let since = self
            .closed_at
            .map_or(Duration::ZERO, |t| now.saturating_duration_since(t));
        self.closed_at = Some(now);
        let baseline = match self.baseline {
            Some(b) if median >= b => {
                b + median
                    .saturating_sub(b)
                    .mul_f64((since.as_secs_f64() / DRIFT.as_secs_f64()).min(1.0))
            }
            _ => median,
        };
        self.baseline = Some(baseline);
        if trouble * 4 >= window.len() {
            if !self.quiet(now) {
                self.shrink(now, 3, 4, median);
            }
        } else if median > baseline * SHRINK_ABOVE && median > baseline + NOISE {
            if !self.quiet(now) {
                self.shrink(now, 4, 5, median);
            }
        } else if (median * 10 <= baseline * GROW_BELOW_TENTHS || median <= baseline + NOISE / 4)
            && peak * 2 >= self.limit
            && !self.held(now)
            && !self.quiet(now)
        {
            self.limit = (self.limit + 1).min(self.ceiling);
        }
        window.clear();
        self.window = window;
    }
}
