//! Polling the watched tasks. `Schedule` is the pure part — who is due, in which order, how
//! long to wait after a success or an error — and is unit-tested without a clock; `run` drives
//! it with tokio time, so tests can use a paused clock.
//!
//! Rules: one request in flight per task, at most `max_in_flight` overall; a task is polled
//! every `interval` until it reaches a final state; errors back off exponentially with jitter
//! (capped), or as long as `Retry-After` asks; `PollNow` makes a task due at once. When the
//! limit cannot keep the cadence (a slow service, a long list), due tasks that are preferred
//! (the rows on screen) go before the others, except that a task that has waited long past its
//! due time goes first: each running task is still polled at least every `STARVATION_BOUND`
//! intervals, as long as the service can answer every task that often at all.
//!
//! Every operation costs O(log n) amortised in the number of watched tasks: waiting tasks sit
//! in two binary heaps (preferred, others) by due time; a task whose due time or class changes
//! gets a new entry and its old one, now stale, is skipped when it surfaces.

use crate::api::backoff::{LOOKUP_BASE, LOOKUP_CAP, backoff_delay, retry_delay};
use crate::api::types::{TaskState, classify};
use crate::api::{ApiError, Client, TaskResult};
use crate::cmd::{PollCmd, TaskKey};
use crate::msg::Msg;
use rand::{Rng, SeedableRng};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::future::Future;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// Queue depth towards the poller: far beyond what a person can cause.
const COMMANDS: usize = 4096;

/// Each running task is polled at least once per this many intervals, whatever is preferred,
/// while the service can answer every watched task that often (a backoff or `Retry-After` may
/// ask for longer).
pub const STARVATION_BOUND: u32 = 10;

/// A due task goes before the preferred ones once it has waited this many intervals past its
/// due time. It became due one interval after its last answer, so it is asked again within
/// about `STARVATION_BOUND - 1` intervals of that: one interval is left for request slots to
/// free up for it and for the tasks that started starving just before it.
const STARVING_AFTER: u32 = STARVATION_BOUND - 2;

/// Stale heap entries tolerated before the heaps are rebuilt, so that a few never cost a pass.
const STALE_SLACK: usize = 64;

#[derive(Debug, Clone)]
struct Slot {
    key: TaskKey,
    due: Instant,
    failures: u32,
    in_flight: bool,
    finished: bool,
    preferred: bool,
    /// The sequence number of the slot's one live heap entry, while it waits for its turn.
    queued: Option<u64>,
}

impl Slot {
    fn waits(&self) -> bool {
        !self.in_flight && !self.finished
    }
}

/// A waiting task in a heap: earliest due first, then first queued. Sequence numbers are never
/// reused, so an entry is live only while its slot still names it.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
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

#[derive(Debug)]
pub struct Schedule {
    /// Slots by index (freed ones are `None` until reused); heap entries refer to these.
    slots: Vec<Option<Slot>>,
    free: Vec<usize>,
    index: HashMap<TaskKey, usize>,
    /// Kept apart from the slots: a task may be preferred before it is watched.
    preferred_keys: HashSet<TaskKey>,
    /// Both heaps' heads are always live (`settle`), so `next_due` needs no `&mut`.
    preferred: Queue,
    others: Queue,
    stale: usize,
    next_seq: u64,
    interval: Duration,
    starving_after: Duration,
    max_in_flight: usize,
    in_flight: usize,
}

impl Schedule {
    pub fn new(interval: Duration, max_in_flight: usize) -> Self {
        Schedule {
            slots: Vec::new(),
            free: Vec::new(),
            index: HashMap::new(),
            preferred_keys: HashSet::new(),
            preferred: BinaryHeap::new(),
            others: BinaryHeap::new(),
            stale: 0,
            next_seq: 0,
            interval,
            starving_after: interval.saturating_mul(STARVING_AFTER),
            max_in_flight: max_in_flight.max(1),
            in_flight: 0,
        }
    }

    pub fn watch(&mut self, key: TaskKey, now: Instant) {
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
        let i = self.slot_for(key, now);
        if let Some(slot) = self.slots[i].as_mut() {
            slot.due = now;
            slot.finished = false;
        }
        self.requeue(i);
        self.settle();
    }

    /// These tasks go before the others from now on; the previous set no longer does. Costs
    /// O(k log n) for the k tasks that change class.
    pub fn prefer(&mut self, keys: Vec<TaskKey>) {
        let wanted: HashSet<TaskKey> = keys.into_iter().collect();
        let changed: Vec<usize> = self
            .preferred_keys
            .symmetric_difference(&wanted)
            .filter_map(|k| self.index.get(k).copied())
            .collect();
        self.preferred_keys = wanted;
        for i in changed {
            if let Some(slot) = self.slots[i].as_mut() {
                slot.preferred = self.preferred_keys.contains(&slot.key);
            }
            self.requeue(i);
        }
        self.settle();
    }

    /// The earliest moment a task becomes due, if there is capacity to poll it.
    pub fn next_due(&self) -> Option<Instant> {
        if self.in_flight >= self.max_in_flight {
            return None;
        }
        [&self.preferred, &self.others]
            .into_iter()
            .filter_map(|q| q.peek().map(|Reverse(e)| e.due))
            .min()
    }

    /// Tasks to poll now, within capacity, in order (see `pick`); marks them in flight.
    pub fn take_due(&mut self, now: Instant) -> Vec<TaskKey> {
        let mut keys = Vec::new();
        while self.in_flight < self.max_in_flight {
            let Some(from_preferred) = self.pick(now) else {
                break;
            };
            let queue = if from_preferred {
                &mut self.preferred
            } else {
                &mut self.others
            };
            let Some(Reverse(entry)) = queue.pop() else {
                break;
            };
            if let Some(slot) = self.slots[entry.slot].as_mut() {
                slot.queued = None;
                slot.in_flight = true;
                self.in_flight += 1;
                keys.push(slot.key.clone());
            }
            self.settle();
        }
        keys
    }

    /// Which queue's head goes next, if either is due: the preferred one, unless the other has
    /// been starving (waited `starving_after` past its due time) for longer.
    fn pick(&self, now: Instant) -> Option<bool> {
        let due = |q: &Queue| q.peek().map(|Reverse(e)| e.due).filter(|d| *d <= now);
        match (due(&self.preferred), due(&self.others)) {
            (None, None) => None,
            (Some(_), None) => Some(true),
            (None, Some(_)) => Some(false),
            (Some(p), Some(o)) => {
                Some(!(now.saturating_duration_since(o) >= self.starving_after && o < p))
            }
        }
    }

    /// Records a finished request; returns the retry delay after an error.
    pub fn completed(
        &mut self,
        key: &TaskKey,
        result: &Result<TaskResult, ApiError>,
        failure_statuses: &[String],
        now: Instant,
        rng: &mut impl Rng,
    ) -> Option<Duration> {
        let i = *self.index.get(key)?;
        let slot = self.slots[i].as_mut()?;
        if slot.in_flight {
            slot.in_flight = false;
            self.in_flight -= 1;
        }
        let retry_in = match result {
            Ok(t) => {
                // Counted from when the poll was due, not from when its answer came, so the
                // cadence holds whatever the round trip takes. After a retry, or a poll more
                // than an interval late (the service cannot keep up), it is counted from now:
                // being behind never makes polls bunch up.
                let next = slot.due + self.interval;
                slot.due = if slot.failures == 0 && next > now {
                    next
                } else {
                    now + self.interval
                };
                slot.failures = 0;
                slot.finished = classify(&t.status, failure_statuses) != TaskState::Running;
                None
            }
            Err(e) if e.is_retryable() => {
                slot.failures += 1;
                let delay = retry_delay(slot.failures, e.retry_after(), rng).max(self.interval);
                slot.due = now + delay;
                Some(delay)
            }
            Err(ApiError::Lookup { .. } | ApiError::WrongPath { .. }) => {
                // The service does not know the task (yet): tasks can be registered late, so it
                // is asked again on a slow, capped backoff rather than given up on. A wrong base
                // path is asked again as slowly: a gateway's routes can be fixed while we wait.
                slot.failures += 1;
                let delay =
                    backoff_delay(slot.failures, LOOKUP_BASE, LOOKUP_CAP, rng).max(self.interval);
                slot.due = now + delay;
                Some(delay)
            }
            Err(_) => {
                // A refused token, an unknown task or another 4xx will not fix itself: never
                // retried; the row shows the error and `R` asks again.
                slot.failures += 1;
                slot.finished = true;
                None
            }
        };
        self.requeue(i);
        self.settle();
        retry_in
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
            queued: None,
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
        if slot.preferred {
            self.preferred.push(entry);
        } else {
            self.others.push(entry);
        }
    }

    /// Drops stale entries from the heaps' heads, and rebuilds the heaps once stale entries
    /// outnumber live ones (so memory and each pop stay O(log n) whatever the churn).
    fn settle(&mut self) {
        for queue in [&mut self.preferred, &mut self.others] {
            while let Some(Reverse(head)) = queue.peek() {
                if live(&self.slots, head) {
                    break;
                }
                queue.pop();
                self.stale -= 1;
            }
        }
        let entries = self.preferred.len() + self.others.len();
        if self.stale > STALE_SLACK && self.stale * 2 > entries {
            let slots = &self.slots;
            self.preferred.retain(|Reverse(e)| live(slots, e));
            self.others.retain(|Reverse(e)| live(slots, e));
            self.stale = 0;
        }
    }
}

/// The App's handle on the poller: its command queue, which the router feeds with each task's
/// client, and its task, stopped when the handle is dropped.
pub struct Handle {
    cmds: mpsc::Sender<PollCmd<Client>>,
    task: tokio::task::JoinHandle<()>,
}

/// Polls each watched task at its service every `interval`, at most `max_in_flight` at once;
/// a status in `failure_statuses` ends a task as failed.
pub fn spawn(
    interval: Duration,
    max_in_flight: usize,
    failure_statuses: Vec<String>,
    msgs: mpsc::Sender<Msg>,
) -> Handle {
    let (cmds, queue) = mpsc::channel(COMMANDS);
    let fetch =
        |key: TaskKey, client: Client| async move { client.task_result(key.kind, &key.id).await };
    let task = tokio::spawn(run(
        Schedule::new(interval, max_in_flight),
        queue,
        msgs,
        fetch,
        failure_statuses,
        rand::rngs::StdRng::from_os_rng(),
    ));
    Handle { cmds, task }
}

impl Handle {
    /// Where poll commands go, with the client of each task's service (the router's end).
    pub fn commands(&self) -> mpsc::Sender<PollCmd<Client>> {
        self.cmds.clone()
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Drives the schedule until the command channel closes.
pub async fn run<R, F, Fut>(
    mut schedule: Schedule,
    mut cmds: mpsc::Receiver<PollCmd<R>>,
    msgs: mpsc::Sender<Msg>,
    fetch: F,
    failure_statuses: Vec<String>,
    mut rng: impl Rng,
) where
    R: Clone,
    F: Fn(TaskKey, R) -> Fut,
    Fut: Future<Output = Result<TaskResult, ApiError>> + Send + 'static,
{
    let mut requests = tokio::task::JoinSet::new();
    let mut routes: HashMap<TaskKey, R> = HashMap::new();
    loop {
        for key in schedule.take_due(Instant::now()) {
            let Some(route) = routes.get(&key) else {
                schedule.unwatch(&key);
                continue;
            };
            let request = fetch(key.clone(), route.clone());
            requests.spawn(async move { (key, request.await) });
        }
        let wake = schedule.next_due();
        tokio::select! {
            cmd = cmds.recv() => match cmd {
                None => break,
                Some(PollCmd::Watch(k, route)) => {
                    routes.insert(k.clone(), route);
                    schedule.watch(k, Instant::now());
                }
                Some(PollCmd::Unwatch(k)) => {
                    routes.remove(&k);
                    schedule.unwatch(&k);
                }
                Some(PollCmd::PollNow(k)) => schedule.poll_now(k, Instant::now()),
                Some(PollCmd::Prefer(keys)) => schedule.prefer(keys),
            },
            Some(joined) = requests.join_next(), if !requests.is_empty() => {
                let Ok((key, result)) = joined else { continue };
                let retry_in = schedule.completed(&key, &result, &failure_statuses, Instant::now(), &mut rng);
                if msgs.send(Msg::Polled { key, result, retry_in }).await.is_err() {
                    break;
                }
            }
            () = tokio::time::sleep_until(wake.unwrap_or_else(Instant::now)), if wake.is_some() => {}
        }
    }
    requests.abort_all();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::TaskKind;
    use crate::api::types::{Envelope, default_failure_statuses};
    use rand::SeedableRng;
    use rand::rngs::StdRng;
    use std::sync::{Arc, Mutex};

    fn statuses() -> Vec<String> {
        default_failure_statuses()
    }

    fn key(id: &str) -> TaskKey {
        TaskKey::new(TaskKind::Image, id)
    }

    fn slot<'a>(s: &'a Schedule, key: &TaskKey) -> Option<&'a Slot> {
        s.index.get(key).and_then(|&i| s.slots[i].as_ref())
    }

    // Shaped like a fetch's answer.
    #[allow(clippy::unnecessary_wraps)]
    fn done(id: &str, status: &str) -> Result<TaskResult, ApiError> {
        Ok(TaskResult {
            task_id: id.into(),
            kind: TaskKind::Image,
            status: status.into(),
            percent: 50,
            total_tasks: None,
            url_download: None,
            envelope: Envelope::default(),
        })
    }

    #[test]
    fn capacity_one_in_flight_per_task_and_final_states_stop() {
        let t0 = Instant::now();
        let mut s = Schedule::new(Duration::from_secs(2), 2);
        for id in ["a", "b", "c"] {
            s.watch(key(id), t0);
        }
        let first = s.take_due(t0);
        assert_eq!(first.len(), 2, "bounded overall");
        assert!(s.take_due(t0).is_empty());
        assert_eq!(s.next_due(), None, "no capacity, nothing to wake for");
        let mut rng = StdRng::seed_from_u64(1);
        s.completed(
            &first[0],
            &done("x", "IN_PROGRESS"),
            &statuses(),
            t0,
            &mut rng,
        );
        let second = s.take_due(t0);
        assert_eq!(second.len(), 1);
        assert!(
            !first.contains(&second[0]) || second[0] != first[1],
            "in-flight task not doubled"
        );
        s.completed(
            &first[1],
            &done("x", "COMPLETED"),
            &statuses(),
            t0,
            &mut rng,
        );
        assert_eq!(slot(&s, &first[1]).map(|slot| slot.finished), Some(true));
        s.completed(&second[0], &done("x", "FAILED"), &statuses(), t0, &mut rng);
        // Only the still-running task comes due again, one interval later.
        assert!(s.take_due(t0 + Duration::from_secs(1)).is_empty());
        assert_eq!(
            s.take_due(t0 + Duration::from_secs(2)),
            vec![first[0].clone()]
        );
    }

    #[test]
    fn errors_back_off_and_respect_retry_after() {
        let t0 = Instant::now();
        let mut s = Schedule::new(Duration::from_secs(2), 8);
        s.watch(key("a"), t0);
        let mut rng = StdRng::seed_from_u64(9);
        let mut delays = Vec::new();
        for _ in 0..10 {
            assert_eq!(s.take_due(t0 + Duration::from_secs(10_000)).len(), 1);
            let err = Err(ApiError::Connect {
                origin: "o".into(),
                detail: "refused".into(),
            });
            delays.push(
                s.completed(&key("a"), &err, &statuses(), t0, &mut rng)
                    .expect("delay"),
            );
        }
        assert!(
            delays
                .iter()
                .all(|d| *d >= Duration::from_secs(2) && *d <= crate::api::backoff::CAP)
        );
        assert!(delays[9] >= Duration::from_secs(30), "{delays:?}");
        s.take_due(t0 + Duration::from_secs(10_000));
        let busy = Err(ApiError::Http {
            status: 429,
            excerpt: String::new(),
            retry_after: Some(Duration::from_secs(90)),
        });
        assert_eq!(
            s.completed(&key("a"), &busy, &statuses(), t0, &mut rng),
            Some(Duration::from_secs(90))
        );
        s.take_due(t0 + Duration::from_secs(10_000));
        // A success resets the backoff.
        assert_eq!(
            s.completed(&key("a"), &done("a", "RUNNING"), &statuses(), t0, &mut rng),
            None
        );
        assert_eq!(s.next_due(), Some(t0 + Duration::from_secs(2)));
    }

    #[test]
    fn poll_now_and_unwatch() {
        let t0 = Instant::now();
        let mut s = Schedule::new(Duration::from_secs(2), 8);
        s.watch(key("a"), t0);
        s.take_due(t0);
        let mut rng = StdRng::seed_from_u64(2);
        s.completed(
            &key("a"),
            &done("a", "COMPLETED"),
            &statuses(),
            t0,
            &mut rng,
        );
        assert_eq!(s.next_due(), None);
        s.poll_now(key("a"), t0);
        assert_eq!(s.take_due(t0), vec![key("a")]);
        s.unwatch(&key("a"));
        assert_eq!(s.in_flight, 0);
        assert_eq!(s.next_due(), None);
    }

    #[test]
    fn final_errors_are_not_retried() {
        let t0 = Instant::now();
        let mut s = Schedule::new(Duration::from_secs(2), 8);
        s.watch(key("a"), t0);
        s.take_due(t0);
        let mut rng = StdRng::seed_from_u64(4);
        for e in [
            ApiError::Auth {
                status: 401,
                excerpt: String::new(),
            },
            ApiError::Http {
                status: 400,
                excerpt: String::new(),
                retry_after: None,
            },
        ] {
            assert_eq!(
                s.completed(&key("a"), &Err(e), &statuses(), t0, &mut rng),
                None
            );
            assert_eq!(s.next_due(), None, "never polled again by itself");
            s.poll_now(key("a"), t0);
            assert_eq!(s.take_due(t0).len(), 1, "R still asks again");
        }
    }

    #[test]
    fn unknown_tasks_are_asked_again_slowly() {
        let t0 = Instant::now();
        let interval = Duration::from_secs(2);
        let mut s = Schedule::new(interval, 8);
        s.watch(key("late"), t0);
        let mut rng = StdRng::seed_from_u64(9);
        let mut now = t0;
        for failures in 1..=12u32 {
            assert_eq!(s.take_due(now), [key("late")]);
            let unknown = Err(ApiError::Lookup {
                description: "no such task".into(),
            });
            let delay = s
                .completed(&key("late"), &unknown, &statuses(), now, &mut rng)
                .expect("retried");
            assert!(delay >= LOOKUP_BASE / 2 && delay <= LOOKUP_CAP, "{delay:?}");
            assert!(delay >= interval);
            if failures > 6 {
                assert!(delay >= LOOKUP_CAP / 2, "grows to the cap: {delay:?}");
            }
            assert_eq!(s.next_due(), Some(now + delay));
            now += delay;
        }
    }

    /// Against a service that always fails, the poller's real retry times (paused clock) are
    /// exactly what the pure backoff function gives for the same seed.
    #[tokio::test(start_paused = true)]
    async fn retry_schedule_is_the_backoff_functions() {
        let (cmd_tx, cmd_rx) = mpsc::channel(8);
        let (msg_tx, mut msg_rx) = mpsc::channel(64);
        let calls = Arc::new(Mutex::new(Vec::<Instant>::new()));
        let seen = calls.clone();
        let fetch = move |_k: TaskKey, (): ()| {
            seen.lock().expect("lock").push(Instant::now());
            async {
                Err(ApiError::Connect {
                    origin: "o".into(),
                    detail: "refused".into(),
                })
            }
        };
        let interval = Duration::from_secs(2);
        let poller = tokio::spawn(run(
            Schedule::new(interval, 8),
            cmd_rx,
            msg_tx,
            fetch,
            statuses(),
            StdRng::seed_from_u64(77),
        ));
        cmd_tx
            .send(PollCmd::Watch(key("down"), ()))
            .await
            .expect("send");
        let mut reported = Vec::new();
        for _ in 0..8 {
            let Some(Msg::Polled { retry_in, .. }) = msg_rx.recv().await else {
                panic!("stopped")
            };
            reported.push(retry_in.expect("a retry delay"));
        }
        let mut rng = StdRng::seed_from_u64(77);
        let expected: Vec<Duration> = (1..=8)
            .map(|n| retry_delay(n, None, &mut rng).max(interval))
            .collect();
        assert_eq!(reported, expected);
        let times = calls.lock().expect("lock").clone();
        let gaps: Vec<Duration> = times.windows(2).map(|w| w[1] - w[0]).collect();
        assert_eq!(gaps, expected[..gaps.len()]);
        drop(cmd_tx);
        poller.await.expect("ends");
    }

    /// What the fake service saw: requests in flight now and at most, tasks in flight now,
    /// requests for a task already in flight, and requests per task. The fake only records;
    /// the test body asserts, since a panic inside a request would be swallowed by the
    /// poller's task set and hang the test rather than fail it.
    #[derive(Default)]
    struct Seen {
        live: usize,
        max_live: usize,
        tasks: std::collections::HashSet<TaskKey>,
        doubled: Vec<TaskKey>,
        calls: HashMap<TaskKey, u32>,
    }

    /// The running poller with a paused clock and a fake service: 1,000 tasks never have more
    /// than 8 requests in flight (and do reach 8), each task at most one, and finished tasks
    /// stop polling.
    #[tokio::test(start_paused = true)]
    async fn a_thousand_tasks_never_stampede() {
        let (cmd_tx, cmd_rx) = mpsc::channel(2048);
        let (msg_tx, mut msg_rx) = mpsc::channel(64);
        let seen = Arc::new(Mutex::new(Seen::default()));
        let fake = seen.clone();
        let fetch = move |k: TaskKey, (): ()| {
            let seen = fake.clone();
            async move {
                {
                    let mut s = seen.lock().expect("lock");
                    if !s.tasks.insert(k.clone()) {
                        s.doubled.push(k.clone());
                    }
                    s.live += 1;
                    s.max_live = s.max_live.max(s.live);
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
                let n = {
                    let mut s = seen.lock().expect("lock");
                    s.live -= 1;
                    s.tasks.remove(&k);
                    let n = s.calls.entry(k.clone()).or_default();
                    *n += 1;
                    *n
                };
                done(&k.id, if n >= 3 { "COMPLETED" } else { "IN_PROGRESS" })
            }
        };
        let poller = tokio::spawn(run(
            Schedule::new(Duration::from_secs(2), 8),
            cmd_rx,
            msg_tx,
            fetch,
            statuses(),
            StdRng::seed_from_u64(3),
        ));
        for i in 0..1000 {
            cmd_tx
                .send(PollCmd::Watch(key(&format!("t{i}")), ()))
                .await
                .expect("send");
        }
        let mut results = 0;
        while results < 3000 {
            // Bounded in (paused) time: a stuck poller fails here instead of hanging.
            let got = tokio::time::timeout(Duration::from_secs(3600), msg_rx.recv()).await;
            let Ok(Some(Msg::Polled { .. })) = got else {
                panic!("the poller stopped answering after {results} results")
            };
            results += 1;
        }
        {
            let s = seen.lock().expect("lock");
            assert!(
                s.doubled.is_empty(),
                "two requests in flight for one task: {:?}",
                &s.doubled[..s.doubled.len().min(5)]
            );
            assert_eq!(s.max_live, 8, "at most 8 in flight, and the cap is used");
        }
        // Everything finished: nothing more is polled however long we wait.
        tokio::time::sleep(Duration::from_secs(600)).await;
        assert!(
            msg_rx.try_recv().is_err(),
            "a finished task was polled again"
        );
        {
            let s = seen.lock().expect("lock");
            assert_eq!(s.calls.len(), 1000);
            assert!(
                s.calls.values().all(|&n| n == 3),
                "each task polled to its end, then no more"
            );
        }
        drop(cmd_tx);
        poller.await.expect("poller ends when the App goes away");
    }

    /// The cadence is counted from when a poll was due: a 300 ms round trip does not stretch
    /// a 2 s interval; a poll answered more than an interval late starts afresh from its
    /// answer, and so does the first success after a retry.
    #[test]
    fn the_cadence_holds_whatever_the_round_trip_takes() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut s = Schedule::new(Duration::from_secs(2), 8);
        let mut rng = StdRng::seed_from_u64(9);
        let ok = done("a", "IN_PROGRESS");
        s.watch(key("a"), t0);
        assert_eq!(s.take_due(t0), [key("a")]);
        s.completed(&key("a"), &ok, &statuses(), t0 + ms(300), &mut rng);
        assert_eq!(s.next_due(), Some(t0 + ms(2_000)));
        assert_eq!(s.take_due(t0 + ms(2_000)), [key("a")]);
        s.completed(&key("a"), &ok, &statuses(), t0 + ms(2_450), &mut rng);
        assert_eq!(s.next_due(), Some(t0 + ms(4_000)));
        // Answered 5 s after it was due: the next poll is an interval after the answer.
        assert_eq!(s.take_due(t0 + ms(4_000)), [key("a")]);
        s.completed(&key("a"), &ok, &statuses(), t0 + ms(9_000), &mut rng);
        assert_eq!(s.next_due(), Some(t0 + ms(11_000)));
    }

    /// The order of polls when the limit is reached: the preferred tasks first (whenever they
    /// were watched), then the others by due time; a task that has waited `STARVING_AFTER`
    /// intervals past its due time goes before the preferred ones.
    #[test]
    fn preferred_tasks_go_first_and_the_starving_before_them() {
        let t0 = Instant::now();
        let i = Duration::from_secs(2);
        let mut s = Schedule::new(i, 1);
        let mut rng = StdRng::seed_from_u64(5);
        let mut poll = |s: &mut Schedule, now: Instant| {
            let taken = s.take_due(now);
            for k in &taken {
                s.completed(k, &done(&k.id, "IN_PROGRESS"), &statuses(), now, &mut rng);
            }
            taken
        };
        s.prefer(vec![key("c")]);
        for id in ["a", "b", "c"] {
            s.watch(key(id), t0);
        }
        assert_eq!(
            poll(&mut s, t0),
            [key("c")],
            "preferred though watched last"
        );
        assert_eq!(
            poll(&mut s, t0 + i),
            [key("c")],
            "due again: before a and b"
        );
        s.prefer(vec![key("b")]);
        assert_eq!(
            poll(&mut s, t0 + i * 2),
            [key("b")],
            "the new set replaces the old"
        );
        // a has waited 8 intervals: it goes before b, then b before c.
        let late = t0 + i * STARVING_AFTER;
        assert_eq!(poll(&mut s, late), [key("a")]);
        assert_eq!(poll(&mut s, late), [key("b")]);
        assert_eq!(poll(&mut s, late), [key("c")]);
        assert!(poll(&mut s, late).is_empty());
        assert_eq!(
            s.next_due(),
            Some(late + i),
            "all polled: due an interval later"
        );
        s.poll_now(key("a"), late);
        assert_eq!(poll(&mut s, late), [key("a")]);
    }

    /// 10,000 tasks, the screen scrolling one row per poll, a far row refreshed by hand now
    /// and then: every poll goes to a row on screen. Then the screen jumps back and forth
    /// between two pages with no time passing, each jump re-filing 100 tasks whose old entries
    /// lie deep in the heaps. Throughout, stale entries never outnumber the live ones (beyond
    /// a small slack), so every operation stays O(log n). The bench times them.
    #[test]
    fn ten_thousand_tasks_keep_their_order_and_the_heaps_compact() {
        const N: usize = 10_000;
        const ROWS: usize = 50;
        fn compact(s: &Schedule, step: usize) {
            let entries = s.preferred.len() + s.others.len();
            assert!(
                s.stale <= (entries - s.stale).max(STALE_SLACK),
                "step {step}: {} stale of {entries}",
                s.stale
            );
        }
        let t0 = Instant::now();
        let keys: Vec<TaskKey> = (0..N).map(|n| key(&format!("t{n}"))).collect();
        let row_of: HashMap<TaskKey, usize> = keys.iter().cloned().zip(0..).collect();
        let mut s = Schedule::new(Duration::from_secs(2), 8);
        s.prefer(keys[..ROWS].to_vec());
        for k in &keys {
            s.watch(k.clone(), t0);
        }
        let mut in_flight: std::collections::VecDeque<TaskKey> = s.take_due(t0).into();
        let mut rng = StdRng::seed_from_u64(6);
        for top in 1..5_000 {
            let now = t0 + Duration::from_millis(top as u64);
            s.prefer(keys[top..top + ROWS].to_vec());
            if top % 3 == 0 {
                s.poll_now(keys[(top * 7919) % N].clone(), now);
            }
            let k = in_flight.pop_front().expect("8 in flight");
            s.completed(&k, &done(&k.id, "IN_PROGRESS"), &statuses(), now, &mut rng);
            for k in s.take_due(now) {
                let row = row_of[&k];
                assert!(
                    (top..top + ROWS).contains(&row),
                    "row {row} polled while rows {top}.. are on screen"
                );
                in_flight.push_back(k);
            }
            assert_eq!(in_flight.len(), 8);
            compact(&s, top);
        }
        let pages = [keys[..ROWS].to_vec(), keys[N - ROWS..].to_vec()];
        for jump in 0..2_000 {
            s.prefer(pages[jump % 2].clone());
            compact(&s, jump);
        }
        let waiting = s.slots.iter().flatten().filter(|slot| slot.waits()).count();
        assert_eq!(s.preferred.len() + s.others.len() - s.stale, waiting);
    }

    /// When each task of `keys` was asked, running the poller against a fake service that
    /// takes `service_time` to say "still running", with `preferred` preferred, for `span` of
    /// paused time after the watches.
    async fn asked_over(
        keys: &[TaskKey],
        preferred: &[TaskKey],
        service_time: Duration,
        span: Duration,
    ) -> HashMap<TaskKey, Vec<Instant>> {
        let (cmd_tx, cmd_rx) = mpsc::channel(keys.len() + 1);
        let (msg_tx, mut msg_rx) = mpsc::channel(64);
        let asked = Arc::new(Mutex::new(HashMap::<TaskKey, Vec<Instant>>::new()));
        let fake = asked.clone();
        let fetch = move |k: TaskKey, (): ()| {
            fake.lock()
                .expect("lock")
                .entry(k.clone())
                .or_default()
                .push(Instant::now());
            async move {
                tokio::time::sleep(service_time).await;
                done(&k.id, "IN_PROGRESS")
            }
        };
        let poller = tokio::spawn(run(
            Schedule::new(INTERVAL, 8),
            cmd_rx,
            msg_tx,
            fetch,
            statuses(),
            StdRng::seed_from_u64(8),
        ));
        cmd_tx
            .send(PollCmd::Prefer(preferred.to_vec()))
            .await
            .expect("send");
        for k in keys {
            cmd_tx
                .send(PollCmd::Watch(k.clone(), ()))
                .await
                .expect("send");
        }
        let end = Instant::now() + span;
        // Bounded twice: by (paused) time, and by far more answers than 8 slots can give.
        for _ in 0..1_000_000 {
            match tokio::time::timeout_at(end, msg_rx.recv()).await {
                Err(_) => break,
                Ok(Some(Msg::Polled { .. })) => {}
                Ok(other) => panic!("the poller stopped: {other:?}"),
            }
        }
        assert!(Instant::now() >= end, "ran for the whole span");
        drop(msg_rx);
        drop(cmd_tx);
        poller.await.expect("poller ends");
        asked.lock().expect("lock").clone()
    }

    const INTERVAL: Duration = Duration::from_secs(2);

    /// The longest time a task went unasked: from `start` to its first request, between
    /// requests, and from its last request to `end`.
    fn longest_wait(asked: Option<&Vec<Instant>>, start: Instant, end: Instant) -> Duration {
        let times = asked.map_or(&[][..], Vec::as_slice);
        std::iter::once(start)
            .chain(times.iter().copied())
            .chain(std::iter::once(end))
            .collect::<Vec<_>>()
            .windows(2)
            .map(|w| w[1] - w[0])
            .max()
            .unwrap_or_default()
    }

    fn mean_requests(asked: &HashMap<TaskKey, Vec<Instant>>, keys: &[TaskKey]) -> f64 {
        let total: usize = keys.iter().map(|k| asked.get(k).map_or(0, Vec::len)).sum();
        total as f64 / keys.len() as f64
    }

    /// 1,000 tasks at a 2 s interval against a service that takes 100 ms, 8 at a time (80
    /// answers a second, not the 500 the cadence asks): the 20 rows on screen, in the middle of
    /// the list, keep the cadence; the others take turns, slower, and each is still asked at
    /// least once per `STARVATION_BOUND` intervals.
    #[tokio::test(start_paused = true)]
    async fn rows_on_screen_keep_the_cadence_and_no_task_starves() {
        let keys: Vec<TaskKey> = (0..1000).map(|n| key(&format!("t{n}"))).collect();
        let (shown, rest) = (&keys[500..520], [&keys[..500], &keys[520..]].concat());
        let span = Duration::from_secs(120);
        let start = Instant::now();
        let asked = asked_over(&keys, shown, Duration::from_millis(100), span).await;
        let end = start + span;
        for k in shown {
            let wait = longest_wait(asked.get(k), start, end);
            assert!(
                wait <= INTERVAL + Duration::from_millis(300),
                "{} on screen waited {wait:?}",
                k.id
            );
        }
        for k in &rest {
            let wait = longest_wait(asked.get(k), start, end);
            assert!(
                wait <= INTERVAL * STARVATION_BOUND,
                "{} waited {wait:?}",
                k.id
            );
        }
        let (on_screen, others) = (mean_requests(&asked, shown), mean_requests(&asked, &rest));
        assert!(
            others * 3.0 < on_screen,
            "requests per task: {on_screen} on screen, {others} others"
        );
    }

    /// Even when the rows on screen alone ask more than the service can answer (90 tasks at a
    /// 2 s interval, 20 answers a second), the others are asked within the bound: a task that
    /// has waited long goes before them.
    #[tokio::test(start_paused = true)]
    async fn waiting_tasks_go_before_the_rows_on_screen_within_the_bound() {
        let keys: Vec<TaskKey> = (0..100).map(|n| key(&format!("t{n}"))).collect();
        let (shown, rest) = keys.split_at(90);
        let span = Duration::from_secs(120);
        let start = Instant::now();
        let asked = asked_over(&keys, shown, Duration::from_millis(400), span).await;
        let end = start + span;
        for k in &keys {
            let wait = longest_wait(asked.get(k), start, end);
            assert!(
                wait <= INTERVAL * STARVATION_BOUND,
                "{} waited {wait:?}",
                k.id
            );
        }
        let (on_screen, others) = (mean_requests(&asked, shown), mean_requests(&asked, rest));
        assert!(
            others < on_screen,
            "requests per task: {on_screen} on screen, {others} others"
        );
    }
}
