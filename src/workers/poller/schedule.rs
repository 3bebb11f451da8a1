//! Who is polled when: `Schedule` is the pure part of the poller — who is due, in which
//! order, how long to wait after an answer or an error, how many may be in flight — tested
//! on an explicit clock; `run` drives it with tokio time.
//!
//! Rules: one request in flight per task, at most the limiter's limit overall (and its pace,
//! after a 429); each running task is asked again when its cadence says (`cadence.rs`) until
//! it reaches a final state; errors back off exponentially with jitter (capped), or as long as
//! `Retry-After` asks; `PollNow` makes a task due at once. When the limit cannot keep the
//! cadence (a slow service, a long list), due tasks that are preferred (the rows on screen) go
//! before the others, except that a task that has waited long past its due time goes first:
//! each running task is still polled at least every `STARVATION_BOUND` of its own delays, as
//! long as the service can answer every task that often at all. A task whose last answer was
//! slow (see `Limiter::is_slow`), or a request that has run that long (`promote`), uses slow
//! slots of its own beside the limit, so a few slow lookups never starve the rest.
//!
//! Every operation costs O(log n) amortised in the number of watched tasks: waiting tasks sit
//! in three binary heaps (preferred, others, slow) by due time; a task whose due time or class
//! changes gets a new entry and its old one, now stale, is skipped when it surfaces.

use super::cadence::{Cadence, is_queued};
use super::limiter::{Limiter, Outcome};
use crate::api::backoff::{LOOKUP_BASE, LOOKUP_CAP, backoff_delay, retry_delay};
use crate::api::types::{TaskState, classify};
use crate::api::{ApiError, TaskResult};
use crate::cmd::TaskKey;
use crate::eta::Progress;
use crate::msg::{NextPoll, PollLoad, PollWhy};
use rand::Rng;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::time::Duration;
use tokio::time::Instant;

/// Each running task is polled at least once per this many of its delays, whatever is
/// preferred, while the service can answer every watched task that often (a backoff or
/// `Retry-After` may ask for longer).
pub const STARVATION_BOUND: u32 = 10;

/// A due task goes before the preferred ones once it has waited this many intervals past its
/// due time. It became due one interval after its last answer, so it is asked again within
/// about `STARVATION_BOUND - 1` intervals of that: one interval is left for request slots to
/// free up for it and for the tasks that started starving just before it.
pub(super) const STARVING_AFTER: u32 = STARVATION_BOUND - 2;

/// Stale heap entries tolerated before the heaps are rebuilt, so that a few never cost a pass.
pub(super) const STALE_SLACK: usize = 64;

/// Slow requests have slots of their own beside the limit: 1/n of the ceiling (at least two).
/// Their time is the task's, not the service's: they neither take a healthy task's slot nor
/// count in the limiter's latency.
const SLOW_SHARE: usize = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Preferred,
    Other,
    Slow,
}

// Each bool is one independent fact about the task, not a state machine in disguise.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone)]
pub(super) struct Slot {
    key: TaskKey,
    due: Instant,
    pub(super) failures: u32,
    pub(super) in_flight: bool,
    pub(super) finished: bool,
    preferred: bool,
    /// The last answer took long: polled within the slow share of the slots.
    pub(super) slow: bool,
    /// The sequence number of the slot's one live heap entry, while it waits for its turn.
    queued: Option<u64>,
    /// When the request in flight was sent.
    sent_at: Option<Instant>,
    /// When the last answer came.
    answered_at: Option<Instant>,
    /// Since when its status says it is queued.
    queued_since: Option<Instant>,
    /// The percent over time (from the first answer after it left the queue).
    progress: Progress,
}

impl Slot {
    pub(super) fn waits(&self) -> bool {
        !self.in_flight && !self.finished
    }

    fn class(&self) -> Class {
        if self.slow {
            Class::Slow
        } else if self.preferred {
            Class::Preferred
        } else {
            Class::Other
        }
    }
}

/// A waiting task in a heap: earliest due first, then first queued. Sequence numbers are never
/// reused, so an entry is live only while its slot still names it.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Entry {
    due: Instant,
    seq: u64,
    slot: usize,
}

type Queue = BinaryHeap<Reverse<Entry>>;

fn live(slots: &[Option<Slot>], e: &Entry) -> bool {
    slots
        .get(e.slot)
        .and_then(Option::as_ref)
        .is_some_and(|s| s.queued == Some(e.seq))
}

/// How an answer counts for the limiter.
fn outcome(result: &Result<TaskResult, ApiError>) -> Outcome {
    match result {
        Err(ApiError::Http {
            status: 429,
            retry_after,
            ..
        }) => Outcome::Throttled(*retry_after),
        Err(ApiError::Http { status, .. }) if *status >= 500 => Outcome::Overloaded,
        Err(ApiError::Timeout { .. } | ApiError::Connect { .. } | ApiError::Transport { .. }) => {
            Outcome::Overloaded
        }
        _ => Outcome::Answered,
    }
}

/// What an answer led to: the retry delay after an error, and the next poll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answered {
    pub retry_in: Option<Duration>,
    pub next: NextPoll,
}

#[derive(Debug)]
pub struct Schedule {
    /// Slots by index (freed ones are `None` until reused); heap entries refer to these.
    pub(super) slots: Vec<Option<Slot>>,
    free: Vec<usize>,
    pub(super) index: HashMap<TaskKey, usize>,
    /// Kept apart from the slots: a task may be preferred before it is watched.
    preferred_keys: HashSet<TaskKey>,
    /// The heaps' heads are always live (`settle`), so `next_due` needs no `&mut`.
    pub(super) preferred: Queue,
    pub(super) others: Queue,
    pub(super) slow: Queue,
    pub(super) stale: usize,
    next_seq: u64,
    cadence: Cadence,
    starving_after: Duration,
    pub(super) limiter: Limiter,
    pub(super) in_flight: usize,
    pub(super) slow_in_flight: usize,
    /// Requests in flight in the order they were sent (when, which slot), so one that runs
    /// long moves to the slow slots and frees its own; answered ones are dropped lazily.
    flying: std::collections::VecDeque<(Instant, usize)>,
    /// The progress clock's origin (the first time the schedule was told anything).
    origin: Option<Instant>,
}

impl Schedule {
    /// Today's schedule: every `interval`, at most `max_in_flight` at once from the start (the
    /// limit still adapts below it).
    pub fn new(interval: Duration, max_in_flight: usize) -> Self {
        let mut limiter = Limiter::new(max_in_flight);
        limiter.start_at_ceiling();
        Self::with(Cadence::fixed(interval), limiter)
    }

    /// A schedule with this cadence and limiter.
    pub fn with(cadence: Cadence, limiter: Limiter) -> Self {
        Schedule {
            slots: Vec::new(),
            free: Vec::new(),
            index: HashMap::new(),
            preferred_keys: HashSet::new(),
            preferred: BinaryHeap::new(),
            others: BinaryHeap::new(),
            slow: BinaryHeap::new(),
            stale: 0,
            next_seq: 0,
            starving_after: cadence.interval.saturating_mul(STARVING_AFTER),
            cadence,
            limiter,
            in_flight: 0,
            slow_in_flight: 0,
            flying: std::collections::VecDeque::new(),
            origin: None,
        }
    }

    /// The config was read again: each task's next wait follows `cadence`, and at most
    /// `ceiling` requests are in flight from now on.
    pub fn configure(&mut self, cadence: Cadence, ceiling: usize) {
        self.starving_after = cadence.interval.saturating_mul(STARVING_AFTER);
        self.cadence = cadence;
        self.limiter.set_ceiling(ceiling);
    }

    /// Seconds on the progress clock.
    fn clock(&mut self, now: Instant) -> f64 {
        let origin = *self.origin.get_or_insert(now);
        now.saturating_duration_since(origin).as_secs_f64()
    }

    pub fn watch(&mut self, key: TaskKey, now: Instant) {
        self.clock(now);
        let i = self.slot_for(key, now);
        if let Some(slot) = self.slots[i].as_mut() {
            slot.finished = false;
            if slot.queued.is_none() {
                self.requeue(i);
            }
        }
        self.settle();
    }

    pub fn unwatch(&mut self, key: &TaskKey) {
        let Some(i) = self.index.remove(key) else {
            return;
        };
        if let Some(slot) = self.slots[i].take() {
            if slot.in_flight {
                self.in_flight -= 1;
                if slot.slow {
                    self.slow_in_flight -= 1;
                }
            }
            if slot.queued.is_some() {
                self.stale += 1;
            }
        }
        self.free.push(i);
        self.settle();
    }

    /// Due at once, even if finished (a manual refresh); a request in flight is not doubled.
    pub fn poll_now(&mut self, key: TaskKey, now: Instant) {
        self.clock(now);
        let i = self.slot_for(key, now);
        if let Some(slot) = self.slots[i].as_mut() {
            slot.due = now;
            slot.finished = false;
        }
        self.requeue(i);
        self.settle();
    }

    /// These tasks go before the others from now on; the previous set no longer does. A task
    /// that comes on screen while it waits a long (adaptive) delay is asked an interval after
    /// its last answer instead. Costs O(k log n) for the k tasks that change class.
    pub fn prefer(&mut self, keys: Vec<TaskKey>) {
        let wanted: HashSet<TaskKey> = keys.into_iter().collect();
        let changed: Vec<usize> = self
            .preferred_keys
            .symmetric_difference(&wanted)
            .filter_map(|k| self.index.get(k).copied())
            .collect();
        self.preferred_keys = wanted;
        let (interval, adaptive) = (self.cadence.interval, self.cadence.adaptive);
        for i in changed {
            if let Some(slot) = self.slots[i].as_mut() {
                slot.preferred = self.preferred_keys.contains(&slot.key);
                if slot.preferred
                    && adaptive
                    && slot.failures == 0
                    && let Some(at) = slot.answered_at
                {
                    slot.due = slot.due.min(at + interval);
                }
            }
            self.requeue(i);
        }
        self.settle();
    }

    /// The most slow requests in flight at once, beside the limit.
    fn slow_share(&self) -> usize {
        (self.limiter.ceiling() / SLOW_SHARE).max(2)
    }

    /// Whether the limit leaves room for one more healthy request.
    fn fast_room(&self) -> bool {
        self.in_flight - self.slow_in_flight < self.limiter.limit()
    }

    /// Moves requests that have run longer than a slow answer takes into the slow slots, as
    /// far as there is room, so that tasks nobody knew were slow (their first poll, or a task
    /// that just turned slow) do not hold the healthy ones' slots.
    pub fn promote(&mut self, now: Instant) {
        let after = self.limiter.slow_after();
        while let Some(&(sent, i)) = self.flying.front() {
            let live = self.slots[i]
                .as_ref()
                .is_some_and(|s| s.in_flight && !s.slow && s.sent_at == Some(sent));
            if live {
                if now.saturating_duration_since(sent) < after
                    || self.slow_in_flight >= self.slow_share()
                {
                    return;
                }
                if let Some(slot) = self.slots[i].as_mut() {
                    slot.slow = true;
                    self.slow_in_flight += 1;
                }
            }
            self.flying.pop_front();
        }
    }

    /// When the oldest request in flight would move to the slow slots, if there is room.
    pub fn next_promotion(&self) -> Option<Instant> {
        if self.slow_in_flight >= self.slow_share() {
            return None;
        }
        self.flying
            .front()
            .map(|(sent, _)| *sent + self.limiter.slow_after())
    }

    fn head(q: &Queue) -> Option<Instant> {
        q.peek().map(|Reverse(e)| e.due)
    }

    /// The earliest moment a task can be sent, if there is room in flight for it: its due
    /// time, or later if the pace asks for it.
    pub fn next_due(&self) -> Option<Instant> {
        let fast = self.fast_room();
        let slow = (self.slow_in_flight < self.slow_share())
            .then(|| Self::head(&self.slow))
            .flatten();
        let due = [
            Self::head(&self.preferred).filter(|_| fast),
            Self::head(&self.others).filter(|_| fast),
            slow,
        ]
        .into_iter()
        .flatten()
        .min()?;
        Some(self.limiter.send_at().map_or(due, |at| at.max(due)))
    }

    /// Tasks to poll now, within the limit and the pace, in order (see `pick`); marks them in
    /// flight.
    pub fn take_due(&mut self, now: Instant) -> Vec<TaskKey> {
        let mut keys = Vec::new();
        while self.limiter.may_send(now) {
            let Some(class) = self.pick(now) else {
                break;
            };
            let queue = match class {
                Class::Preferred => &mut self.preferred,
                Class::Other => &mut self.others,
                Class::Slow => &mut self.slow,
            };
            let Some(Reverse(entry)) = queue.pop() else {
                break;
            };
            if let Some(slot) = self.slots[entry.slot].as_mut() {
                slot.queued = None;
                slot.in_flight = true;
                slot.sent_at = Some(now);
                self.in_flight += 1;
                if slot.slow {
                    self.slow_in_flight += 1;
                } else {
                    self.flying.push_back((now, entry.slot));
                }
                keys.push(slot.key.clone());
                self.limiter.sent(now, self.in_flight);
            }
            self.settle();
        }
        keys
    }

    /// Which queue's head goes next, if any is due: the preferred one, unless the other has
    /// been starving (waited `starving_after` past its due time) for longer; a slow task only
    /// within the slow share, and before a healthy one only if it was due earlier.
    fn pick(&self, now: Instant) -> Option<Class> {
        let due = |q: &Queue| Self::head(q).filter(|d| *d <= now);
        let fast = if self.fast_room() {
            (due(&self.preferred), due(&self.others))
        } else {
            (None, None)
        };
        let fast = match fast {
            (None, None) => None,
            (Some(p), None) => Some((Class::Preferred, p)),
            (None, Some(o)) => Some((Class::Other, o)),
            (Some(p), Some(o)) => {
                if now.saturating_duration_since(o) >= self.starving_after && o < p {
                    Some((Class::Other, o))
                } else {
                    Some((Class::Preferred, p))
                }
            }
        };
        let slow = due(&self.slow).filter(|_| self.slow_in_flight < self.slow_share());
        match (fast, slow) {
            (Some((_, f)), Some(s)) if s < f => Some(Class::Slow),
            (Some((class, _)), _) => Some(class),
            (None, Some(_)) => Some(Class::Slow),
            (None, None) => None,
        }
    }

    /// Records a finished request: the retry delay after an error, and the next poll.
    pub fn completed(
        &mut self,
        key: &TaskKey,
        result: &Result<TaskResult, ApiError>,
        failure_statuses: &[String],
        now: Instant,
        rng: &mut impl Rng,
    ) -> Answered {
        let finished = Answered {
            retry_in: None,
            next: NextPoll {
                after: Duration::ZERO,
                why: PollWhy::Finished,
            },
        };
        let clock = self.clock(now);
        let Some(&i) = self.index.get(key) else {
            return finished;
        };
        let Some(slot) = self.slots[i].as_mut() else {
            return finished;
        };
        if slot.in_flight {
            slot.in_flight = false;
            self.in_flight -= 1;
            if slot.slow {
                self.slow_in_flight -= 1;
            }
        }
        let latency = slot
            .sent_at
            .take()
            .map_or(Duration::ZERO, |t| now.saturating_duration_since(t));
        let outcome = outcome(result);
        if slot.slow {
            // A slow task's time says nothing of the service's load.
            self.limiter.answered_aside(now, outcome);
        } else {
            self.limiter.answered(now, latency, outcome);
        }
        slot.slow =
            self.limiter.is_slow(latency) || matches!(result, Err(ApiError::Timeout { .. }));
        slot.answered_at = Some(now);
        let interval = self.cadence.interval;
        let answered = match result {
            Ok(t) => {
                slot.finished = classify(&t.status, failure_statuses) != TaskState::Running;
                let next = if slot.finished {
                    finished.next
                } else {
                    let waiting = if is_queued(&t.status) {
                        Some(now - *slot.queued_since.get_or_insert(now))
                    } else {
                        slot.queued_since = None;
                        slot.progress.observe(clock, t.percent);
                        None
                    };
                    self.cadence
                        .next(slot.preferred, waiting, &slot.progress, clock)
                };
                // Counted from when the poll was due, not from when its answer came, so the
                // cadence holds whatever the round trip takes. After a retry, or a poll more
                // than a delay late (the service cannot keep up), it is counted from now:
                // being behind never makes polls bunch up.
                let due = slot.due + next.after;
                slot.due = if slot.failures == 0 && due > now {
                    due
                } else {
                    now + next.after
                };
                slot.failures = 0;
                Answered {
                    retry_in: None,
                    next,
                }
            }
            Err(e) if e.is_retryable() => {
                slot.failures += 1;
                let delay = retry_delay(slot.failures, e.retry_after(), rng).max(interval);
                slot.due = now + delay;
                let why = if e.retry_after().is_some() {
                    PollWhy::RetryAfter
                } else {
                    PollWhy::Backoff
                };
                Answered {
                    retry_in: Some(delay),
                    next: NextPoll { after: delay, why },
                }
            }
            Err(ApiError::Lookup { .. } | ApiError::WrongPath { .. }) => {
                // The service does not know the task (yet): tasks can be registered late, so it
                // is asked again on a slow, capped backoff rather than given up on. A wrong base
                // path is asked again as slowly: a gateway's routes can be fixed while we wait.
                slot.failures += 1;
                let delay =
                    backoff_delay(slot.failures, LOOKUP_BASE, LOOKUP_CAP, rng).max(interval);
                slot.due = now + delay;
                Answered {
                    retry_in: Some(delay),
                    next: NextPoll {
                        after: delay,
                        why: PollWhy::Backoff,
                    },
                }
            }
            Err(_) => {
                // A refused token, an unknown task or another 4xx will not fix itself: never
                // retried; the row shows the error and `R` asks again.
                slot.failures += 1;
                slot.finished = true;
                finished
            }
        };
        self.requeue(i);
        self.settle();
        answered
    }

    /// What the status bar shows of the poller's load: every request in flight, against the
    /// limit plus the slow tasks' own slots.
    pub fn load(&mut self, now: Instant) -> PollLoad {
        let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        PollLoad {
            per_second_tenths: n(self.limiter.rate_tenths(now)),
            in_flight: n(self.in_flight),
            limit: n(self.limiter.limit() + self.slow_share()),
        }
    }

    /// The slot of `key`, made (due at `now`, not yet queued) if the task is new.
    fn slot_for(&mut self, key: TaskKey, now: Instant) -> usize {
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let slot = Slot {
            preferred: self.preferred_keys.contains(&key),
            key: key.clone(),
            due: now,
            failures: 0,
            in_flight: false,
            finished: false,
            slow: false,
            queued: None,
            sent_at: None,
            answered_at: None,
            queued_since: None,
            progress: Progress::default(),
        };
        let i = if let Some(i) = self.free.pop() {
            self.slots[i] = Some(slot);
            i
        } else {
            self.slots.push(Some(slot));
            self.slots.len() - 1
        };
        self.index.insert(key, i);
        i
    }

    /// Retires the slot's heap entry, if any, and queues it anew if it waits for a poll: after
    /// its due time or its class changed.
    fn requeue(&mut self, i: usize) {
        let Some(slot) = self.slots[i].as_mut() else {
            return;
        };
        if slot.queued.take().is_some() {
            self.stale += 1;
        }
        if !slot.waits() {
            return;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        slot.queued = Some(seq);
        let entry = Reverse(Entry {
            due: slot.due,
            seq,
            slot: i,
        });
        match slot.class() {
            Class::Preferred => self.preferred.push(entry),
            Class::Other => self.others.push(entry),
            Class::Slow => self.slow.push(entry),
        }
    }

    /// Drops stale entries from the heaps' heads, and rebuilds the heaps once stale entries
    /// outnumber live ones (so memory and each pop stay O(log n) whatever the churn).
    fn settle(&mut self) {
        for queue in [&mut self.preferred, &mut self.others, &mut self.slow] {
            while let Some(Reverse(head)) = queue.peek() {
                if live(&self.slots, head) {
                    break;
                }
                queue.pop();
                self.stale -= 1;
            }
        }
        let entries = self.preferred.len() + self.others.len() + self.slow.len();
        if self.stale > STALE_SLACK && self.stale * 2 > entries {
            let slots = &self.slots;
            self.preferred.retain(|Reverse(e)| live(slots, e));
            self.others.retain(|Reverse(e)| live(slots, e));
            self.slow.retain(|Reverse(e)| live(slots, e));
            self.stale = 0;
        }
    }
}
