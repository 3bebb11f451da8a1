//! Waiting a moment before sleeping while answers are on their way: the runtime, about to
//! sleep on its sockets with polls in flight, first waits [`LINGER`], so the answers that come
//! close together are handled in one wake-up rather than one each.
//!
//! Why: a wake-up (the sleep in `epoll_wait`, the switch away and back) costs more than handling
//! an answer. Against a service that answers each request on a thread of its own and writes the
//! headers and the body apart (`scripts/python_service.py`), the dashboard woke ~0.9 times a
//! poll, and a poll took 0.050–0.056 ms of CPU at 1,000 tasks every 2 s; waiting 1 ms before
//! sleeping made it ~0.040 ms (docs/decisions.md). A key that comes meanwhile waits at most that
//! millisecond, and nothing waits when no poll is in flight: an idle dashboard sleeps as before.
//!
//! A wait pays only when something comes during it. When answers are sparse (a slow service
//! asked a few times a second: the soak), a wait that gathered nothing is one more wake-up, so
//! after each such wait the next chances are skipped, twice as many each time (`Judge`).

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long the runtime waits for more answers before it sleeps: shorter (0.5 ms) gathered
/// too few to matter on the 2-core VM, longer (2–3 ms) saved little more.
pub const LINGER: Duration = Duration::from_millis(1);

/// The requests whose answers are awaited.
#[derive(Debug, Default)]
pub struct Awaited(AtomicUsize);

/// The process's own count: what the runtime's hook (`before_park`) reads.
static PROCESS: Awaited = Awaited(AtomicUsize::new(0));

impl Awaited {
    /// The count the runtime looks at.
    pub fn process() -> &'static Awaited {
        &PROCESS
    }

    /// Requests awaited now.
    pub fn count(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }

    /// Counts one request until the returned guard is dropped (answered, or dropped unsent).
    pub fn one(&'static self) -> Awaiting {
        self.0.fetch_add(1, Ordering::Relaxed);
        Awaiting(self)
    }

    /// Whether any answer is awaited.
    pub fn any(&self) -> bool {
        self.count() > 0
    }
}

/// One awaited request, counted while this lives.
#[derive(Debug)]
pub struct Awaiting(&'static Awaited);

impl Drop for Awaiting {
    fn drop(&mut self) {
        self.0.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A wait gathered something when the thread found work this soon after it (its sleep on the
/// sockets returned at once): far less than the time between sparse answers.
const GATHERED_WITHIN: Duration = Duration::from_micros(100);

/// At most this many chances are skipped after waits that gathered nothing.
const MOST_SKIPPED: u32 = 16;

/// Whether the waits pay, judged by the last one: after a wait that gathered nothing, the next
/// 1, 2, 4 … `MOST_SKIPPED` chances to wait are skipped; one that gathered something resets it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Judge {
    skip: u32,
    backoff: u32,
    /// When the last wait ended, until the thread runs again.
    waited: Option<Instant>,
    /// Waits so far.
    waits: u64,
}

impl Judge {
    /// Whether to wait before sleeping, with `awaited` answers on their way.
    pub fn wait_now(&mut self, awaited: bool) -> bool {
        self.waited = None;
        if !awaited {
            return false;
        }
        if self.skip > 0 {
            self.skip -= 1;
            return false;
        }
        true
    }

    /// The wait ended at `at`.
    pub fn waited(&mut self, at: Instant) {
        self.waited = Some(at);
        self.waits += 1;
    }

    /// The thread runs again at `now`: whether the last wait gathered something.
    pub fn running(&mut self, now: Instant) {
        let Some(at) = self.waited.take() else {
            return;
        };
        if now.saturating_duration_since(at) <= GATHERED_WITHIN {
            self.backoff = 0;
        } else {
            self.backoff = (self.backoff * 2).clamp(1, MOST_SKIPPED);
            self.skip = self.backoff;
        }
    }

    fn waiting(self) -> bool {
        self.waited.is_some()
    }
}

thread_local! {
    /// The runtime's one thread's judge (the hooks run on it).
    static JUDGE: Cell<Judge> = Cell::new(Judge::default());
}

/// The runtime's hook before it sleeps (`on_thread_park`): on its one thread, nothing else is
/// left to run, so this wait delays no work, only the wake-up.
pub fn before_park() {
    JUDGE.with(|judge| {
        let mut j = judge.get();
        if j.wait_now(Awaited::process().any()) {
            std::thread::sleep(LINGER);
            j.waited(Instant::now());
        }
        judge.set(j);
    });
}

/// How many times the runtime on this thread waited before sleeping.
pub fn waits_on_this_thread() -> u64 {
    JUDGE.with(|judge| judge.get().waits)
}

/// The runtime's hook when it runs again (`on_thread_unpark`).
pub fn after_unpark() {
    JUDGE.with(|judge| {
        let mut j = judge.get();
        if j.waiting() {
            j.running(Instant::now());
            judge.set(j);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh() -> &'static Awaited {
        Box::leak(Box::default())
    }

    #[test]
    fn an_answer_is_awaited_from_the_first_request_until_the_last_is_dropped() {
        let a = fresh();
        assert!(!a.any(), "nothing in flight: no wait");
        let first = a.one();
        let second = a.one();
        assert_eq!(a.count(), 2);
        assert!(a.any());
        drop(first);
        assert!(a.any(), "one still awaited");
        drop(second);
        assert_eq!(a.count(), 0);
        assert!(!a.any(), "all answered: sleep at once");
    }

    #[test]
    fn waits_that_gather_nothing_are_skipped_more_and_more_until_one_gathers() {
        let t0 = Instant::now();
        let mut j = Judge::default();
        assert!(!j.wait_now(false), "nothing awaited: no wait");
        let mut waits = Vec::new();
        // 40 chances, each wait gathering nothing: waited at chances 0, 2, 5, 10, 19, 36.
        for chance in 0..40 {
            if j.wait_now(true) {
                waits.push(chance);
                j.waited(t0);
                j.running(t0 + Duration::from_millis(5));
            }
        }
        assert_eq!(waits, [0, 2, 5, 10, 19, 36]);
        // Skipping on: the next waits come 16 chances apart, no more.
        let mut gap = 0;
        while !j.wait_now(true) {
            gap += 1;
            assert!(gap <= MOST_SKIPPED, "skipped more than {MOST_SKIPPED}");
        }
        // This one gathers something (work at once): every chance waits again.
        j.waited(t0);
        j.running(t0 + Duration::from_micros(20));
        assert!((0..10).all(|_| {
            let wait = j.wait_now(true);
            j.waited(t0);
            j.running(t0 + Duration::from_micros(20));
            wait
        }));
    }
}
