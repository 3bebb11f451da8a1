//! The client's own work for one poll answer, the part of issue 19's "at most 0.05 ms of CPU
//! per poll" that is gendash's code rather than the HTTP stack and the kernel: the answer's
//! body decoded and sanitised, then the reducer applying it and its request-log record, with
//! 1,000 and 10,000 watched tasks running. The answers are the reference service's for a task
//! that holds at 50% (what `scripts/measure-cpu.py --scenario watch` polls), so nothing on
//! screen changes and nothing is drawn, as in the measured dashboard.
//!
//! Besides criterion's statistics, `summary` prints the mean per answer against the budget,
//! and the decoding before (a `serde_json::Value` tree) and now (the fields read straight,
//! strings borrowed). `cargo bench --features bench --bench poll_work`.
#![allow(clippy::unwrap_used)]

use criterion::{Criterion, criterion_group};
use gendash::api::recording::RequestRecord;
use gendash::api::types::{decode_task, decode_task_tree, default_failure_statuses};
use gendash::api::{TaskKind, TaskResult};
use gendash::app::action::Action;
use gendash::app::state::{State, UiSettings};
use gendash::cmd::TaskKey;
use gendash::msg::Msg;
use gendash::store::watchlist::WatchEntry;
use std::hint::black_box;
use std::time::{Duration, Instant, SystemTime};

/// The whole CPU budget of one poll (issue 19): HTTP, kernel, scheduling and this.
const BUDGET: Duration = Duration::from_micros(50);

fn id(i: usize) -> String {
    format!("hold-{}", i + 1)
}

/// The reference service's answer for a held task, as `gendash serve` writes it.
fn body(id: &str) -> Vec<u8> {
    format!(
        r#"{{"data":{{"is_success":true,"data":{{"task_id":"{id}","total_tasks":1,"percent":50,"status":"IN_PROGRESS","url_download":""}}}},"errors":[],"error_description":"","status":"success","start_time":"2026-11-25 18:58:08.938861","end_time":"2026-11-25 18:58:08.938894","host_of_client_call_request":"127.0.0.1","total_time_by_second":0.000039523}}"#
    )
    .into_bytes()
}

/// A dashboard watching `n` running tasks, each answered once already.
fn watching(n: usize) -> State {
    let watch = (0..n)
        .map(|i| WatchEntry::new(id(i), TaskKind::Image))
        .collect();
    let mut s = State::new(gendash::app::state::Init {
        service_url: "http://127.0.0.1:8787/".into(),
        categories: Vec::new(),
        watch,
        failure_statuses: default_failure_statuses(),
        settings: UiSettings {
            bell: false,
            desktop_notifications: false,
            no_color: false,
            poll_interval: 2,
        },
        now: 1_800_000_000,
        ..gendash::app::state::Init::default()
    });
    s.update(Action::Resize {
        width: 140,
        height: 45,
    });
    s.start();
    for i in 0..n {
        let result = decode_task(&body(&id(i)), TaskKind::Image, &id(i));
        s.apply(polled(&id(i), result));
    }
    s.dirty = false;
    s
}

fn polled(id: &str, result: Result<TaskResult, gendash::api::ApiError>) -> Msg {
    Msg::Polled {
        key: TaskKey::new(TaskKind::Image, id),
        result,
        retry_in: None,
        next: None,
    }
}

fn record(id: &str, bytes: usize) -> RequestRecord {
    RequestRecord {
        at: SystemTime::now(),
        method: "POST",
        url: format!("http://127.0.0.1:8787/ai/image_generation/{id}"),
        authorized: true,
        status: Some(200),
        error: None,
        duration: Duration::from_micros(300),
        bytes: bytes as u64,
        output: None,
    }
}

/// The tasks' ids and answers, and a dashboard watching them: what one answer costs is
/// `answer(state, ids, bodies, n)`, the n-th task in turn (as the poller asks them).
struct Setup {
    state: State,
    ids: Vec<String>,
    bodies: Vec<Vec<u8>>,
}

impl Setup {
    fn new(n: usize) -> Self {
        Setup {
            state: watching(n),
            ids: (0..n).map(id).collect(),
            bodies: (0..n).map(|i| body(&id(i))).collect(),
        }
    }

    /// One answer: decoded and sanitised, applied, its request record applied.
    fn answer(&mut self, k: usize) {
        let i = k % self.ids.len();
        let (id, body) = (&self.ids[i], &self.bodies[i]);
        let result = decode_task(black_box(body), TaskKind::Image, id);
        self.state.apply(polled(id, result));
        self.state.apply(Msg::Request(record(id, body.len())));
        assert!(!self.state.dirty, "an unchanged answer draws nothing");
    }

    /// The mean cost of one answer over `rounds` answers.
    fn mean(&mut self, rounds: usize) -> Duration {
        let started = Instant::now();
        for k in 0..rounds {
            self.answer(k);
        }
        started.elapsed() / u32::try_from(rounds).unwrap()
    }
}

fn decode(c: &mut Criterion) {
    let answer = body("hold-500");
    c.bench_function("poll work: decode one answer (fields read straight)", |b| {
        b.iter(|| decode_task(black_box(&answer), TaskKind::Image, "hold-500").unwrap());
    });
    c.bench_function(
        "poll work: decode one answer (Value tree, as before)",
        |b| {
            b.iter(|| decode_task_tree(black_box(&answer), TaskKind::Image, "hold-500").unwrap());
        },
    );
}

fn answers(c: &mut Criterion) {
    for n in [1_000, 10_000] {
        let mut setup = Setup::new(n);
        let mut k = 0usize;
        c.bench_function(
            &format!("poll work: decode + reducer + request record, {n} tasks"),
            |b| {
                b.iter(|| {
                    k += 1;
                    setup.answer(k);
                });
            },
        );
    }
}

/// Prints the mean per answer against the budget, and the decoding before and after.
fn summary() {
    let answer = body("hold-500");
    let time = |f: &dyn Fn()| {
        let rounds = 200_000u32;
        let started = Instant::now();
        for _ in 0..rounds {
            f();
        }
        started.elapsed() / rounds
    };
    let tree = time(&|| {
        black_box(decode_task_tree(black_box(&answer), TaskKind::Image, "hold-500").unwrap());
    });
    let fast = time(&|| {
        black_box(decode_task(black_box(&answer), TaskKind::Image, "hold-500").unwrap());
    });
    println!(
        "poll work: decoding one answer: {:.2} µs as a Value tree (before), {:.2} µs read straight (now)",
        tree.as_secs_f64() * 1e6,
        fast.as_secs_f64() * 1e6
    );
    for n in [1_000, 10_000] {
        let mut setup = Setup::new(n);
        setup.mean(n);
        let mean = setup.mean(50_000);
        println!(
            "poll work: decode + reducer + request record with {n} tasks: {:.2} µs per answer \
             ({:.0}% of the {} µs budget of a whole poll)",
            mean.as_secs_f64() * 1e6,
            100.0 * mean.as_secs_f64() / BUDGET.as_secs_f64(),
            BUDGET.as_micros()
        );
    }
}

criterion_group!(benches, decode, answers);

fn main() {
    summary();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
