use super::schedule::{STALE_SLACK, STARVING_AFTER, Slot};
use super::*;
use crate::api::TaskKind;
use crate::api::backoff::{LOOKUP_BASE, LOOKUP_CAP, retry_delay};
use crate::api::types::{Envelope, default_failure_statuses};
use rand::SeedableRng;
use rand::rngs::StdRng;
use std::sync::{Arc, Mutex};

/// The next `Msg::Polled`, past the load reports.
async fn polled(rx: &mut mpsc::Receiver<Msg>) -> Option<Msg> {
    loop {
        match rx.recv().await? {
            Msg::PollLoad(_) => {}
            m => return Some(m),
        }
    }
}

fn statuses() -> Vec<String> {
    default_failure_statuses()
}

fn key(id: &str) -> TaskKey {
    TaskKey::new(TaskKind::Image, id)
}

/// The poller over `fetch`, with the spec's failure statuses, counting its requests in
/// `awaited`.
fn spawn_poller<F, Fut>(
    schedule: Schedule,
    cmds: mpsc::Receiver<PollCmd<()>>,
    msgs: mpsc::Sender<Msg>,
    fetch: F,
    awaited: &'static Awaited,
    seed: u64,
) -> tokio::task::JoinHandle<()>
where
    F: Fn(TaskKey, ()) -> Fut + Send + 'static,
    Fut: Future<Output = Result<TaskResult, ApiError>> + Send + 'static,
{
    tokio::spawn(run(
        schedule,
        cmds,
        msgs,
        fetch,
        statuses(),
        awaited,
        StdRng::seed_from_u64(seed),
    ))
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
        extra: None,
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
                .retry_in
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
        s.completed(&key("a"), &busy, &statuses(), t0, &mut rng)
            .retry_in,
        Some(Duration::from_secs(90))
    );
    s.take_due(t0 + Duration::from_secs(10_000));
    // A success resets the backoff.
    assert_eq!(
        s.completed(&key("a"), &done("a", "RUNNING"), &statuses(), t0, &mut rng)
            .retry_in,
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
            s.completed(&key("a"), &Err(e), &statuses(), t0, &mut rng)
                .retry_in,
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
            .retry_in
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
    let poller = spawn_poller(
        Schedule::new(interval, 8),
        cmd_rx,
        msg_tx,
        fetch,
        Box::leak(Box::default()),
        77,
    );
    cmd_tx
        .send(PollCmd::Watch(key("down"), ()))
        .await
        .expect("send");
    let mut reported = Vec::new();
    for _ in 0..8 {
        let Some(Msg::Polled { retry_in, .. }) = polled(&mut msg_rx).await else {
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
    let poller = spawn_poller(
        Schedule::new(Duration::from_secs(2), 8),
        cmd_rx,
        msg_tx,
        fetch,
        Box::leak(Box::default()),
        3,
    );
    for i in 0..1000 {
        cmd_tx
            .send(PollCmd::Watch(key(&format!("t{i}")), ()))
            .await
            .expect("send");
    }
    let mut results = 0;
    while results < 3000 {
        // Bounded in (paused) time: a stuck poller fails here instead of hanging.
        let got = tokio::time::timeout(Duration::from_secs(3600), polled(&mut msg_rx)).await;
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
        std::iter::from_fn(|| msg_rx.try_recv().ok()).all(|m| matches!(m, Msg::PollLoad(_))),
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
    let poller = spawn_poller(
        Schedule::new(INTERVAL, 8),
        cmd_rx,
        msg_tx,
        fetch,
        Box::leak(Box::default()),
        8,
    );
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
        match tokio::time::timeout_at(end, polled(&mut msg_rx)).await {
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

/// The runtime waits for more answers only while one is awaited (`workers::linger`): each
/// request is counted from when it is sent until it is answered, or dropped with the poller.
#[tokio::test(start_paused = true)]
async fn requests_are_awaited_from_sending_to_answer_or_drop() {
    let awaited: &'static Awaited = Box::leak(Box::default());
    let (cmd_tx, cmd_rx) = mpsc::channel(8);
    let (msg_tx, mut msg_rx) = mpsc::channel(8);
    // Each task's answer waits on a gate of its own.
    let gates: Arc<Mutex<HashMap<String, tokio::sync::oneshot::Sender<()>>>> = Arc::default();
    let fetch = {
        let gates = gates.clone();
        move |k: TaskKey, ()| {
            let (tx, rx) = tokio::sync::oneshot::channel();
            gates.lock().expect("lock").insert(k.id.clone(), tx);
            async move {
                // A gate dropped unopened (the poller gone) never answers.
                let _ = rx.await;
                done(&k.id, "COMPLETED")
            }
        }
    };
    let poller = spawn_poller(
        Schedule::new(Duration::from_secs(2), 8),
        cmd_rx,
        msg_tx,
        fetch,
        awaited,
        9,
    );
    assert_eq!(awaited.count(), 0, "nothing sent yet");
    for id in ["a", "b"] {
        cmd_tx
            .send(PollCmd::Watch(key(id), ()))
            .await
            .expect("send");
    }
    // Bounded in (paused) time.
    for _ in 0..100 {
        if gates.lock().expect("lock").len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(awaited.count(), 2, "both requests sent, neither answered");
    let gate = gates.lock().expect("lock").remove("a").expect("a was sent");
    gate.send(()).expect("the request waits");
    let Some(Msg::Polled { key: answered, .. }) = polled(&mut msg_rx).await else {
        panic!("no answer for a")
    };
    assert_eq!(answered, key("a"));
    assert_eq!(awaited.count(), 1, "a answered, b still awaited");
    // The poller stops with b in flight: b's request is dropped, and no longer awaited.
    drop(cmd_tx);
    poller.await.expect("the poller ends");
    assert_eq!(awaited.count(), 0, "a dropped request is not awaited");
}
