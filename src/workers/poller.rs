//! Polling the watched tasks. `Schedule` is the pure part — who is due, how long to wait after
//! a success or an error — and is unit-tested without a clock; `run` drives it with tokio time,
//! so tests can use a paused clock.
//!
//! Rules: one request in flight per task, at most `max_in_flight` overall; a task is polled
//! every `interval` until it reaches a final state; errors back off exponentially with jitter
//! (capped), or as long as `Retry-After` asks; `PollNow` makes a task due at once.

use crate::api::backoff::retry_delay;
use crate::api::types::{TaskState, classify};
use crate::api::{ApiError, TaskResult};
use crate::msg::{Msg, TaskKey};
use rand::Rng;
use std::collections::HashMap;
use std::future::Future;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// What the App asks of the poller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PollCmd {
    Watch(TaskKey),
    Unwatch(TaskKey),
    PollNow(TaskKey),
}

#[derive(Debug, Clone)]
struct Slot {
    due: Instant,
    failures: u32,
    in_flight: bool,
    finished: bool,
}

#[derive(Debug)]
pub struct Schedule {
    slots: HashMap<TaskKey, Slot>,
    interval: Duration,
    max_in_flight: usize,
    in_flight: usize,
}

impl Schedule {
    pub fn new(interval: Duration, max_in_flight: usize) -> Self {
        Schedule {
            slots: HashMap::new(),
            interval,
            max_in_flight: max_in_flight.max(1),
            in_flight: 0,
        }
    }

    pub fn watch(&mut self, key: TaskKey, now: Instant) {
        let slot = self.slots.entry(key).or_insert(Slot {
            due: now,
            failures: 0,
            in_flight: false,
            finished: false,
        });
        slot.finished = false;
    }

    pub fn unwatch(&mut self, key: &TaskKey) {
        if let Some(slot) = self.slots.remove(key)
            && slot.in_flight
        {
            self.in_flight -= 1;
        }
    }

    /// Due at once, even if finished (a manual refresh); a request in flight is not doubled.
    pub fn poll_now(&mut self, key: TaskKey, now: Instant) {
        let slot = self.slots.entry(key).or_insert(Slot {
            due: now,
            failures: 0,
            in_flight: false,
            finished: false,
        });
        slot.due = now;
        slot.finished = false;
    }

    /// The earliest moment a task becomes due, if there is capacity to poll it.
    pub fn next_due(&self) -> Option<Instant> {
        if self.in_flight >= self.max_in_flight {
            return None;
        }
        self.slots
            .values()
            .filter(|s| !s.in_flight && !s.finished)
            .map(|s| s.due)
            .min()
    }

    /// Tasks to poll now, earliest due first, within capacity; marks them in flight.
    pub fn take_due(&mut self, now: Instant) -> Vec<TaskKey> {
        let room = self.max_in_flight.saturating_sub(self.in_flight);
        if room == 0 {
            return Vec::new();
        }
        let mut due: Vec<(&TaskKey, Instant)> = self
            .slots
            .iter()
            .filter(|(_, s)| !s.in_flight && !s.finished && s.due <= now)
            .map(|(k, s)| (k, s.due))
            .collect();
        due.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(b.0)));
        let keys: Vec<TaskKey> = due.into_iter().take(room).map(|(k, _)| k.clone()).collect();
        for k in &keys {
            if let Some(s) = self.slots.get_mut(k) {
                s.in_flight = true;
            }
        }
        self.in_flight += keys.len();
        keys
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
        let slot = self.slots.get_mut(key)?;
        if slot.in_flight {
            slot.in_flight = false;
            self.in_flight -= 1;
        }
        match result {
            Ok(t) => {
                slot.failures = 0;
                slot.finished = classify(&t.status, failure_statuses) != TaskState::Running;
                slot.due = now + self.interval;
                None
            }
            Err(e) if e.is_retryable() => {
                slot.failures += 1;
                let delay = retry_delay(slot.failures, e.retry_after(), rng).max(self.interval);
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
        }
    }
}

/// Drives the schedule until the command channel closes.
pub async fn run<F, Fut>(
    mut schedule: Schedule,
    mut cmds: mpsc::Receiver<PollCmd>,
    msgs: mpsc::Sender<Msg>,
    fetch: F,
    failure_statuses: Vec<String>,
    mut rng: impl Rng,
) where
    F: Fn(TaskKey) -> Fut,
    Fut: Future<Output = Result<TaskResult, ApiError>> + Send + 'static,
{
    let mut requests = tokio::task::JoinSet::new();
    loop {
        for key in schedule.take_due(Instant::now()) {
            let request = fetch(key.clone());
            requests.spawn(async move { (key, request.await) });
        }
        let wake = schedule.next_due();
        tokio::select! {
            cmd = cmds.recv() => match cmd {
                None => break,
                Some(PollCmd::Watch(k)) => schedule.watch(k, Instant::now()),
                Some(PollCmd::Unwatch(k)) => schedule.unwatch(&k),
                Some(PollCmd::PollNow(k)) => schedule.poll_now(k, Instant::now()),
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
        assert_eq!(s.slots.get(&first[1]).map(|slot| slot.finished), Some(true));
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
            ApiError::Lookup {
                description: "no such task".into(),
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

    /// Against a service that always fails, the poller's real retry times (paused clock) are
    /// exactly what the pure backoff function gives for the same seed.
    #[tokio::test(start_paused = true)]
    async fn retry_schedule_is_the_backoff_functions() {
        let (cmd_tx, cmd_rx) = mpsc::channel(8);
        let (msg_tx, mut msg_rx) = mpsc::channel(64);
        let calls = Arc::new(Mutex::new(Vec::<Instant>::new()));
        let seen = calls.clone();
        let fetch = move |_k: TaskKey| {
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
            .send(PollCmd::Watch(key("down")))
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
        let fetch = move |k: TaskKey| {
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
                .send(PollCmd::Watch(key(&format!("t{i}"))))
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
}
