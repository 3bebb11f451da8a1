//! The adaptive cadence and limit: pure units on an explicit clock, and the running poller on
//! a paused one.

use super::*;
use crate::api::TaskKind;
use crate::api::types::{Envelope, default_failure_statuses};
use crate::eta::Progress;
use crate::msg::{NextPoll, PollLoad, PollWhy};
use rand::SeedableRng;
use rand::rngs::StdRng;
use std::sync::{Arc, Mutex};

const INTERVAL: Duration = Duration::from_secs(2);
const MS: fn(u64) -> Duration = Duration::from_millis;
const SECS: fn(u64) -> Duration = Duration::from_secs;

fn adaptive() -> Cadence {
    Cadence {
        interval: INTERVAL,
        max_interval: SECS(30),
        adaptive: true,
        stall_after: SECS(300),
    }
}

fn key(id: &str) -> TaskKey {
    TaskKey::new(TaskKind::Image, id)
}

#[allow(clippy::unnecessary_wraps)]
fn answer(id: &str, status: &str, percent: u8) -> Result<TaskResult, ApiError> {
    Ok(TaskResult {
        task_id: id.into(),
        kind: TaskKind::Image,
        status: status.into(),
        percent,
        total_tasks: None,
        url_download: None,
        envelope: Envelope::default(),
        extra: None,
    })
}

/// A task at 1% a second, seen every 2 s from 0 s up to `until` seconds.
fn steady(until: u32) -> Progress {
    let mut p = Progress::default();
    for t in (0..=until).step_by(2) {
        p.observe(f64::from(t), t.min(99) as u8);
    }
    p
}

fn next(
    c: &Cadence,
    preferred: bool,
    waiting: Option<Duration>,
    p: &Progress,
    now: f64,
) -> NextPoll {
    c.next(preferred, waiting, p, now)
}

#[test]
fn a_far_task_is_asked_rarely_a_near_one_every_interval() {
    let c = adaptive();
    // 40 s left: half is 20 s.
    let far = next(&c, false, None, &steady(60), 60.0);
    assert_eq!((far.after, far.why), (SECS(20), PollWhy::EtaFar));
    // 900 s left: half would be 450 s, capped at 30 s.
    let mut slow = Progress::default();
    for t in 0..=4 {
        slow.observe(f64::from(t * 10), t as u8);
    }
    let capped = next(&c, false, None, &slow, 40.0);
    assert_eq!((capped.after, capped.why), (SECS(30), PollWhy::EtaFar));
    // 3 s left (within NEAR_INTERVALS intervals): every interval.
    let near = next(&c, false, None, &steady(97), 97.0);
    assert_eq!((near.after, near.why), (INTERVAL, PollWhy::EtaNear));
    // A slow task (15 s a percent) 25 s from its end: its ETA can be a percent off, so it is
    // near too, or halving the wait could jump past the end.
    let mut crawling = Progress::default();
    for p in 90..=98u8 {
        crawling.observe(f64::from(p) * 15.0, p);
    }
    let close = next(&c, false, None, &crawling, 98.0 * 15.0 + 5.0);
    assert_eq!((close.after, close.why), (INTERVAL, PollWhy::EtaNear));
    // Not yet an ETA: every interval.
    let fresh = next(&c, false, None, &steady(2), 2.0);
    assert_eq!((fresh.after, fresh.why), (INTERVAL, PollWhy::NoEta));
}

#[test]
fn rows_on_screen_are_asked_every_interval_and_fixed_is_fixed() {
    let c = adaptive();
    let far = steady(20);
    let shown = next(&c, true, None, &far, 20.0);
    assert_eq!((shown.after, shown.why), (INTERVAL, PollWhy::Preferred));
    let fixed = Cadence {
        adaptive: false,
        ..adaptive()
    };
    for (preferred, waiting) in [(false, None), (true, None), (false, Some(SECS(600)))] {
        let n = next(&fixed, preferred, waiting, &far, 20.0);
        assert_eq!((n.after, n.why), (INTERVAL, PollWhy::Fixed));
    }
}

#[test]
fn queued_and_stalled_tasks_are_backed_off_gently_up_to_the_cap() {
    let c = adaptive();
    let p = Progress::default();
    let waits: Vec<Duration> = [0, 16, 40, 80, 240, 2_400]
        .into_iter()
        .map(|w| next(&c, false, Some(SECS(w)), &p, 0.0))
        .inspect(|n| assert_eq!(n.why, PollWhy::Queued))
        .map(|n| n.after)
        .collect();
    assert_eq!(
        waits,
        [INTERVAL, INTERVAL, SECS(5), SECS(10), SECS(30), SECS(30)]
    );
    // Running at 50% and not moving: every interval at first, then less often.
    let mut still = Progress::default();
    still.observe(0.0, 50);
    assert_eq!(next(&c, false, None, &still, 10.0).why, PollWhy::NoEta);
    let stalled = next(&c, false, None, &still, 80.0);
    assert_eq!((stalled.after, stalled.why), (SECS(10), PollWhy::Stalled));
    assert_eq!(next(&c, false, None, &still, 1_000.0).after, SECS(30));
    // With an ETA, stalled after `stall_after`, as the row says.
    let mut behind = steady(20);
    behind.observe(20.0, 20);
    assert_eq!(next(&c, false, None, &behind, 330.0).why, PollWhy::Stalled);
}

/// Steady tasks of many lengths, polled by the schedule (answers at once, on an explicit
/// clock) until each is seen finished: with the adaptive cadence, 95% are seen within an
/// interval of their end, with at most a third of the fixed cadence's requests.
#[test]
fn steady_tasks_are_seen_finished_within_an_interval_with_a_third_of_the_requests() {
    struct Sim {
        requests: usize,
        delays: Vec<Duration>,
    }
    fn simulate(cadence: Cadence) -> Sim {
        let t0 = Instant::now();
        let mut s = Schedule::with(cadence, Limiter::new(64));
        let mut rng = StdRng::seed_from_u64(11);
        let mut tasks = HashMap::new();
        for n in 0..300u64 {
            // Lengths from 20 s to about 25 minutes, watched over the first minute.
            let length = MS(20_000 + (n * 7_919 % 300) * 5_000 + n * 37);
            let start = t0 + MS(n * 211 % 60_000);
            tasks.insert(key(&format!("t{n}")), (start, length));
        }
        let mut pending: Vec<(Instant, TaskKey)> =
            tasks.iter().map(|(k, (at, _))| (*at, k.clone())).collect();
        pending.sort();
        pending.reverse();
        let (mut requests, mut delays) = (0, Vec::new());
        let mut now = t0;
        loop {
            while pending.last().is_some_and(|(at, _)| *at <= now) {
                let (_, k) = pending.pop().expect("pending");
                s.watch(k, now);
            }
            for k in s.take_due(now) {
                requests += 1;
                let (start, length) = tasks[&k];
                let ran = now.saturating_duration_since(start);
                let result = if ran >= length {
                    delays.push(ran.saturating_sub(length));
                    answer(&k.id, "COMPLETED", 100)
                } else {
                    let percent = (ran.as_millis() * 100 / length.as_millis()) as u8;
                    answer(&k.id, "IN_PROGRESS", percent)
                };
                s.completed(&k, &result, &default_failure_statuses(), now, &mut rng);
            }
            let wake = [s.next_due(), pending.last().map(|(at, _)| *at)]
                .into_iter()
                .flatten()
                .min();
            match wake {
                Some(at) => now = at.max(now + MS(1)),
                None => break,
            }
        }
        assert_eq!(delays.len(), tasks.len(), "every task seen finished");
        Sim { requests, delays }
    }
    let p95 = |sim: &mut Sim| {
        sim.delays.sort();
        sim.delays[sim.delays.len() * 95 / 100]
    };
    let mut fixed = simulate(Cadence {
        adaptive: false,
        ..adaptive()
    });
    let mut smart = simulate(adaptive());
    let (fixed_p95, smart_p95) = (p95(&mut fixed), p95(&mut smart));
    assert!(fixed_p95 <= INTERVAL, "fixed p95 {fixed_p95:?}");
    assert!(smart_p95 <= INTERVAL, "adaptive p95 {smart_p95:?}");
    assert!(
        smart.requests * 3 <= fixed.requests,
        "adaptive {} requests, fixed {}",
        smart.requests,
        fixed.requests
    );
}

/// A task that comes on screen while it waits a long delay is asked an interval after its
/// last answer; `R` asks at once.
#[test]
fn coming_on_screen_or_r_cuts_a_long_wait_short() {
    let t0 = Instant::now();
    let mut s = Schedule::with(adaptive(), Limiter::new(64));
    let mut rng = StdRng::seed_from_u64(1);
    s.watch(key("a"), t0);
    let mut now = t0;
    // 1% a second: after a few polls the ETA is far.
    for t in [0u64, 2, 4] {
        now = t0 + SECS(t);
        assert_eq!(s.take_due(now), [key("a")]);
        s.completed(
            &key("a"),
            &answer("a", "IN_PROGRESS", t as u8),
            &default_failure_statuses(),
            now,
            &mut rng,
        );
    }
    let far = s.next_due().expect("due");
    assert!(far >= now + SECS(20), "far: {:?}", far - now);
    s.prefer(vec![key("a")]);
    assert_eq!(s.next_due(), Some(now + INTERVAL));
    s.prefer(Vec::new());
    s.poll_now(key("a"), now + MS(100));
    assert_eq!(s.take_due(now + MS(100)), [key("a")]);
}

/// Feeds `n` answers of `latency` each, `in_flight` at each send, one every `every`.
fn feed(l: &mut Limiter, now: &mut Instant, n: usize, latency: Duration, outcome: Outcome) {
    for _ in 0..n {
        let in_flight = l.limit();
        l.sent(*now, in_flight);
        *now += MS(2);
        l.answered(*now, latency, outcome);
    }
}

#[test]
fn the_limit_grows_while_latency_is_flat_and_shrinks_when_it_rises() {
    let mut now = Instant::now();
    let mut l = Limiter::new(64);
    assert_eq!(l.limit(), INITIAL_LIMIT);
    feed(&mut l, &mut now, 5_000, MS(50), Outcome::Answered);
    assert_eq!(l.limit(), 64, "flat latency: up to the ceiling");
    assert_eq!(l.baseline(), Some(MS(50)));
    feed(&mut l, &mut now, 1_000, MS(150), Outcome::Answered);
    let shrunk = l.limit();
    assert!(shrunk < 40, "three times the latency: {shrunk}");
    // Within 1.5 times the baseline it holds (neither grows nor shrinks).
    let mut steady = Limiter::new(64);
    let mut t = Instant::now();
    feed(&mut steady, &mut t, 100, MS(50), Outcome::Answered);
    let before = steady.limit();
    feed(&mut steady, &mut t, 200, MS(90), Outcome::Answered);
    assert_eq!(steady.limit(), before, "1.8 times: held");
    // Unused, it does not grow: a few in flight at a time.
    let mut idle = Limiter::new(64);
    for _ in 0..1_000 {
        idle.sent(t, 1);
        t += MS(50);
        idle.answered(t, MS(50), Outcome::Answered);
    }
    assert_eq!(idle.limit(), INITIAL_LIMIT, "not in use: not grown");
}

/// A service that answers in 0.3 ms and, while the machine is busy, in 5 ms: ten times
/// slower, but not under load. The limit holds.
#[test]
fn a_fast_service_s_jitter_is_not_load() {
    let mut now = Instant::now();
    let mut l = Limiter::new(64);
    feed(
        &mut l,
        &mut now,
        2_000,
        Duration::from_micros(300),
        Outcome::Answered,
    );
    let before = l.limit();
    assert!(before > INITIAL_LIMIT, "{before}");
    feed(&mut l, &mut now, 500, MS(5), Outcome::Answered);
    assert!(l.limit() >= before, "{} < {before}", l.limit());
    // Really under load (40 ms): it shrinks.
    for _ in 0..50 {
        feed(&mut l, &mut now, 64, MS(40), Outcome::Answered);
        now += MS(100);
    }
    assert!(l.limit() < before, "{} >= {before}", l.limit());
}

/// The first round meets slow tasks nobody knew were slow: once a request has run longer than
/// a slow answer takes, it moves to the slow tasks' own slots and a healthy task takes its
/// place, so eight of them cannot hold every slot for their two seconds.
#[test]
fn a_request_that_runs_long_frees_its_slot() {
    let t0 = Instant::now();
    let mut s = Schedule::with(Cadence::fixed(INTERVAL), Limiter::new(64));
    for i in 0..20 {
        s.watch(key(&format!("t{i}")), t0);
    }
    let first = s.take_due(t0);
    assert_eq!(
        first.len(),
        INITIAL_LIMIT,
        "the limit before anything is known"
    );
    assert!(s.take_due(t0).is_empty());
    let later = t0 + SECS(1);
    assert_eq!(s.next_promotion(), Some(later), "wakes when they turn slow");
    s.promote(later - MS(1));
    assert!(s.take_due(later - MS(1)).is_empty(), "not yet slow");
    s.promote(later);
    let second = s.take_due(later);
    assert_eq!(
        second.len(),
        INITIAL_LIMIT,
        "their slots are free: {second:?}"
    );
    let load = s.load(later);
    assert_eq!(load.in_flight as usize, 2 * INITIAL_LIMIT);
    // The slow slots are bounded: 64 / 8 requests run long at once, then the rest wait.
    s.promote(later + SECS(1));
    assert_eq!(s.slow_in_flight, 8);
    assert!(
        s.take_due(later + SECS(1)).is_empty(),
        "the slow slots are full"
    );
    assert_eq!(s.next_promotion(), None, "nothing to wake for");
}

#[test]
fn server_errors_shrink_the_limit_only_when_many() {
    let mut now = Instant::now();
    let mut l = Limiter::new(64);
    feed(&mut l, &mut now, 5_000, MS(50), Outcome::Answered);
    assert_eq!(l.limit(), 64);
    // One faulty task among healthy ones: one 502 a window.
    for _ in 0..20 {
        feed(&mut l, &mut now, 63, MS(50), Outcome::Answered);
        feed(&mut l, &mut now, 1, MS(5), Outcome::Overloaded);
    }
    assert_eq!(l.limit(), 64, "a faulty task does not shrink it");
    // Half of them 502: it shrinks.
    for _ in 0..400 {
        feed(&mut l, &mut now, 1, MS(50), Outcome::Answered);
        feed(&mut l, &mut now, 1, MS(50), Outcome::Overloaded);
        now += MS(100);
    }
    assert!(l.limit() < 32, "{}", l.limit());
}

#[test]
fn a_429_shrinks_paces_and_pauses_growth_for_its_retry_after() {
    let mut now = Instant::now();
    let mut l = Limiter::new(64);
    // 500 requests a second, answered in 50 ms.
    for _ in 0..2_000 {
        l.sent(now, l.limit());
        now += MS(2);
        l.answered(now, MS(50), Outcome::Answered);
    }
    let before = l.limit();
    l.answered(now, MS(5), Outcome::Throttled(Some(SECS(10))));
    assert!(l.limit() < before, "shrunk: {} from {before}", l.limit());
    let rate = l.rate().expect("a pace");
    assert!(
        (350.0..=450.0).contains(&rate),
        "four fifths of 500/s: {rate}"
    );
    // Paced: after a send, the next waits 1/rate.
    l.sent(now, 1);
    assert!(!l.may_send(now));
    let at = l.send_at().expect("paced");
    assert!(l.may_send(at));
    // The answers already under way say 429 too: counted once.
    let shrunk = l.limit();
    l.answered(now + MS(1), MS(5), Outcome::Throttled(Some(SECS(10))));
    assert_eq!(l.limit(), shrunk);
    // Nothing grows before the Retry-After has passed, then it does.
    let until = now + SECS(10);
    while now < until - MS(100) {
        let t = l.send_at().unwrap_or(now).max(now);
        l.sent(t, l.limit());
        now = t + MS(1);
        l.answered(now, MS(50), Outcome::Answered);
    }
    assert_eq!(l.limit(), shrunk, "held while the service asked");
    assert_eq!(l.rate(), Some(rate), "the pace held too");
    for _ in 0..3_000 {
        let t = l.send_at().unwrap_or(now).max(now);
        l.sent(t, l.limit());
        now = t + MS(1);
        l.answered(now, MS(50), Outcome::Answered);
    }
    assert!(l.limit() > shrunk, "grows again");
    assert!(l.rate().expect("pace") > rate, "the pace grows again");
}

#[test]
fn slow_answers_are_told_apart() {
    let mut now = Instant::now();
    let mut l = Limiter::new(64);
    assert!(
        !l.is_slow(SECS(5)),
        "nothing is slow before the baseline is known"
    );
    feed(&mut l, &mut now, 100, MS(50), Outcome::Answered);
    assert!(!l.is_slow(MS(200)));
    assert!(l.is_slow(SECS(2)));
    // The whole service slows down: no task is singled out.
    let before = l.limit();
    feed(&mut l, &mut now, 100, SECS(2), Outcome::Answered);
    assert!(!l.is_slow(SECS(2)));
    assert!(l.limit() < before, "the limit shrinks instead");
}

/// What a fake service saw: when each request came, per task, and how many slow ones were in
/// flight at most.
struct Seen {
    asked: HashMap<TaskKey, Vec<Instant>>,
    slow_live: usize,
    max_slow_live: usize,
    throttled: Vec<Instant>,
    /// Requests answered in the current second (for a capacity limit).
    second: Option<(Instant, u32)>,
    /// From when slow requests in flight are counted.
    warm: Instant,
}

impl Default for Seen {
    fn default() -> Self {
        Seen {
            asked: HashMap::new(),
            slow_live: 0,
            max_slow_live: 0,
            throttled: Vec::new(),
            second: None,
            warm: Instant::now() + SECS(10),
        }
    }
}

/// Runs the poller for `span` of paused time over `n` tasks against `service`, which answers
/// a task after the latency it returns (or 429 if it returns `None`).
async fn run_against(
    n: usize,
    schedule: Schedule,
    span: Duration,
    service: impl Fn(&TaskKey, &mut Seen, Instant) -> Option<Duration> + Send + Sync + 'static,
) -> (Arc<Mutex<Seen>>, Vec<Msg>) {
    let (cmd_tx, cmd_rx) = mpsc::channel(n + 1);
    let (msg_tx, mut msg_rx) = mpsc::channel(256);
    let seen = Arc::new(Mutex::new(Seen::default()));
    let fake = seen.clone();
    let service = Arc::new(service);
    let fetch = move |k: TaskKey, (): ()| {
        let seen = fake.clone();
        let service = service.clone();
        async move {
            let now = Instant::now();
            let latency = {
                let mut s = seen.lock().expect("lock");
                s.asked.entry(k.clone()).or_default().push(now);
                let latency = service(&k, &mut s, now);
                if latency.is_none() {
                    s.throttled.push(now);
                }
                latency
            };
            let Some(latency) = latency else {
                return Err(ApiError::Http {
                    status: 429,
                    excerpt: String::new(),
                    retry_after: Some(SECS(1)),
                });
            };
            // Counted once the first round is over: a task is known slow by its answers.
            let slow = latency >= SECS(1) && now >= seen.lock().expect("lock").warm;
            if slow {
                let mut s = seen.lock().expect("lock");
                s.slow_live += 1;
                s.max_slow_live = s.max_slow_live.max(s.slow_live);
            }
            tokio::time::sleep(latency).await;
            if slow {
                seen.lock().expect("lock").slow_live -= 1;
            }
            answer(&k.id, "IN_PROGRESS", 50)
        }
    };
    let poller = tokio::spawn(run(
        schedule,
        cmd_rx,
        msg_tx,
        fetch,
        default_failure_statuses(),
        Box::leak(Box::default()),
        StdRng::seed_from_u64(8),
    ));
    for i in 0..n {
        cmd_tx
            .send(PollCmd::Watch(key(&format!("t{i}")), ()))
            .await
            .expect("send");
    }
    let end = Instant::now() + span;
    let mut loads = Vec::new();
    loop {
        match tokio::time::timeout_at(end, msg_rx.recv()).await {
            Err(_) => break,
            Ok(Some(m @ Msg::PollLoad(_))) => loads.push(m),
            Ok(Some(_)) => {}
            Ok(None) => panic!("the poller stopped"),
        }
    }
    drop(msg_rx);
    drop(cmd_tx);
    poller.await.expect("poller ends");
    (seen, loads)
}

/// Requests per second the service saw in `[from, to)`.
fn rate(seen: &Seen, from: Instant, to: Instant, of: impl Fn(&TaskKey) -> bool) -> f64 {
    let n = seen
        .asked
        .iter()
        .filter(|(k, _)| of(k))
        .flat_map(|(_, times)| times)
        .filter(|t| (from..to).contains(t))
        .count();
    n as f64 / (to - from).as_secs_f64()
}

/// 1,000 tasks due every 2 s (`adaptive_polling = false`) against a service that takes 50 ms:
/// the limit grows from 8 until the poller holds the 500 polls a second the cadence asks (at
/// least 450), and the load reports say so.
#[tokio::test(start_paused = true)]
async fn a_thousand_tasks_at_50ms_hold_450_polls_a_second() {
    let start = Instant::now();
    let schedule = Schedule::with(Cadence::fixed(INTERVAL), Limiter::new(64));
    let (seen, loads) = run_against(1000, schedule, SECS(60), |_, _, _| Some(MS(50))).await;
    let seen = seen.lock().expect("lock");
    let held = rate(&seen, start + SECS(10), start + SECS(60), |_| true);
    assert!(held >= 450.0, "{held} polls a second");
    let Some(Msg::PollLoad(last)) = loads.last() else {
        panic!("no load reported")
    };
    assert!(last.per_second_tenths >= 4500, "{last:?}");
    // The limit grew past where it started (the status bar adds the slow tasks' 8 slots).
    assert!(
        last.limit > INITIAL_LIMIT as u32 + 8 && last.limit <= 64 + 8,
        "{last:?}"
    );
    assert!(
        loads.len() <= 61,
        "at most one report a second: {}",
        loads.len()
    );
}

/// 50 of 1,000 tasks take 2 s to answer: they never hold more than their own slots,
/// and the healthy ones keep their cadence.
#[tokio::test(start_paused = true)]
async fn slow_tasks_take_at_most_their_share_and_the_rest_keep_the_cadence() {
    let start = Instant::now();
    let slow = |k: &TaskKey| k.id[1..].parse::<usize>().is_ok_and(|n| n % 20 == 0);
    let schedule = Schedule::with(Cadence::fixed(INTERVAL), Limiter::new(64));
    let (seen, _) = run_against(1000, schedule, SECS(60), move |k, _, _| {
        Some(if slow(k) { SECS(2) } else { MS(50) })
    })
    .await;
    let seen = seen.lock().expect("lock");
    let healthy = rate(&seen, start + SECS(10), start + SECS(60), |k| !slow(k));
    assert!(healthy >= 450.0, "healthy tasks: {healthy} polls a second");
    assert!(
        seen.max_slow_live <= 16,
        "slow requests in flight: {}",
        seen.max_slow_live
    );
}

/// As `gendash serve` measures it: a fast service (about 1 ms), the 50 slow tasks added last, so
/// the first round meets them all at once before anything is known of the service. They must
/// not drag the limit down for the rest: their time is theirs, not the service's.
#[tokio::test(start_paused = true)]
async fn slow_tasks_met_first_do_not_collapse_the_limit() {
    let start = Instant::now();
    let slow = |k: &TaskKey| k.id[1..].parse::<usize>().is_ok_and(|n| n >= 950);
    let schedule = Schedule::with(Cadence::fixed(INTERVAL), Limiter::new(64));
    // A fast service's answer times vary by many times over (0.3 ms, and 8 ms for a moment
    // every few seconds when the machine is busy): that is noise, not a service under load.
    let (seen, loads) = run_against(1000, schedule, SECS(60), move |k, _, now| {
        let busy = (now - start).as_millis() % 3000 < 400;
        Some(if slow(k) {
            SECS(2)
        } else if busy {
            MS(8)
        } else {
            Duration::from_micros(300)
        })
    })
    .await;
    let seen = seen.lock().expect("lock");
    let healthy = rate(&seen, start + SECS(20), start + SECS(60), |k| !slow(k));
    assert!(healthy >= 450.0, "healthy tasks: {healthy} polls a second");
    let slow_rate = rate(&seen, start + SECS(20), start + SECS(60), slow);
    assert!(
        slow_rate >= 2.0,
        "slow tasks are still asked: {slow_rate} a second"
    );
    assert!(
        seen.max_slow_live <= 16,
        "slow requests in flight: {}",
        seen.max_slow_live
    );
    let Some(Msg::PollLoad(last)) = loads.last() else {
        panic!("no load reported")
    };
    assert!(last.limit >= 4, "{last:?}");
}

/// A service that answers 429 beyond 100 requests a second: the poller settles near 100 a
/// second, with a few 429s a minute.
#[tokio::test(start_paused = true)]
async fn over_capacity_the_poller_settles_near_the_capacity() {
    let start = Instant::now();
    let schedule = Schedule::with(Cadence::fixed(INTERVAL), Limiter::new(64));
    let (seen, _) = run_against(1000, schedule, SECS(180), |_, s, now| {
        let (since, n) = s.second.get_or_insert((now, 0));
        if now - *since >= SECS(1) {
            *since = now;
            *n = 0;
        }
        *n += 1;
        (*n <= 100).then_some(MS(5))
    })
    .await;
    let seen = seen.lock().expect("lock");
    let (from, to) = (start + SECS(60), start + SECS(180));
    let held = rate(&seen, from, to, |_| true);
    let throttled = seen
        .throttled
        .iter()
        .filter(|t| (from..to).contains(t))
        .count();
    assert!((75.0..=101.0).contains(&held), "{held} requests a second");
    assert!(throttled <= 20, "{throttled} 429s in two minutes");
}

/// The load is reported at most once a second while tasks are polled, and once more as zero
/// when nothing is: then the poller sleeps (no timer while idle).
#[tokio::test(start_paused = true)]
async fn the_load_report_stops_when_nothing_is_polled() {
    let (cmd_tx, cmd_rx) = mpsc::channel(16);
    let (msg_tx, mut msg_rx) = mpsc::channel(64);
    let fetch = |k: TaskKey, (): ()| async move {
        tokio::time::sleep(MS(50)).await;
        answer(&k.id, "COMPLETED", 100)
    };
    let poller = tokio::spawn(run(
        Schedule::with(adaptive(), Limiter::new(64)),
        cmd_rx,
        msg_tx,
        fetch,
        default_failure_statuses(),
        Box::leak(Box::default()),
        StdRng::seed_from_u64(3),
    ));
    for i in 0..10 {
        cmd_tx
            .send(PollCmd::Watch(key(&format!("t{i}")), ()))
            .await
            .expect("send");
    }
    let start = Instant::now();
    let mut loads = Vec::new();
    while let Ok(Some(m)) = tokio::time::timeout(SECS(600), msg_rx.recv()).await {
        if let Msg::PollLoad(load) = m {
            loads.push((Instant::now() - start, load));
        }
    }
    let figures: Vec<(u32, u32)> = loads
        .iter()
        .map(|(_, l)| (l.per_second_tenths, l.in_flight))
        .collect();
    // Ten requests over the five seconds the rate is averaged on: 2.0 a second, then none.
    assert_eq!(figures, [(20, 0), (0, 0)], "{loads:?}");
    assert!(loads[1].0.saturating_sub(loads[0].0) >= LOAD_EVERY);
    drop(cmd_tx);
    poller.await.expect("ends");
}

#[test]
fn an_idle_poller_keeps_no_report_timer() {
    let busy = PollLoad {
        per_second_tenths: 30,
        in_flight: 1,
        limit: 8,
    };
    let idle = PollLoad {
        limit: 8,
        ..PollLoad::default()
    };
    assert!(keep_reporting(busy, busy), "busy: looked at again");
    assert!(keep_reporting(idle, busy), "idle, not yet told");
    assert!(!keep_reporting(idle, idle), "idle and told: no timer");
}
