//! The poll scheduler's cost per event with 1,000, 10,000 and 100,000 watched tasks: one
//! answer recorded (`completed`), what is due taken (`take_due`), the next wake-up asked
//! (`next_due`). Measured in the state that matters: the concurrency limit (8) cannot keep the
//! cadence, so thousands of tasks are due at once, and 50 rows on screen are preferred. The
//! heaps make each event O(log n); the figures should grow by a constant step per tenfold.
#![allow(clippy::unwrap_used)]

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use gendash::api::types::{Envelope, default_failure_statuses};
use gendash::api::{ApiError, TaskKind, TaskResult};
use gendash::cmd::TaskKey;
use gendash::workers::poller::Schedule;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::collections::VecDeque;
use std::hint::black_box;
use std::time::Duration;
use tokio::time::Instant;

/// Rows on screen, preferred by the scheduler.
const ROWS: usize = 50;

fn running() -> TaskResult {
    TaskResult {
        task_id: "t".into(),
        kind: TaskKind::Image,
        status: "IN_PROGRESS".into(),
        percent: 50,
        total_tasks: None,
        url_download: None,
        envelope: Envelope::default(),
        extra: None,
    }
}

fn cycle(c: &mut Criterion) {
    let statuses = default_failure_statuses();
    let answer: Result<TaskResult, ApiError> = Ok(running());
    let mut group = c.benchmark_group("scheduler: completed + take_due + next_due");
    for n in [1_000, 10_000, 100_000] {
        group.bench_function(BenchmarkId::from_parameter(n), |b| {
            let t0 = Instant::now();
            let keys: Vec<TaskKey> = (0..n)
                .map(|i| TaskKey::new(TaskKind::Image, format!("task-{i:06}")))
                .collect();
            let mut s = Schedule::new(Duration::from_secs(2), 8);
            s.prefer(keys[n / 2..n / 2 + ROWS].to_vec());
            for k in &keys {
                s.watch(k.clone(), t0);
            }
            let mut in_flight: VecDeque<TaskKey> = s.take_due(t0).into();
            let mut now = t0;
            let mut rng = SmallRng::seed_from_u64(1);
            b.iter(|| {
                // An answer every 10 ms: 100 a second, where even 1,000 tasks at a 2 s
                // interval ask for 500.
                now += Duration::from_millis(10);
                let k = in_flight.pop_front().unwrap();
                s.completed(&k, &answer, &statuses, now, &mut rng);
                in_flight.extend(s.take_due(now));
                black_box(s.next_due())
            });
        });
    }
    group.finish();
}

criterion_group!(benches, cycle);
criterion_main!(benches);
