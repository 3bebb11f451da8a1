//! Polling the watched tasks: when each is asked (`cadence.rs`), how many at once and how fast
//! (`limiter.rs`), in which order (`schedule.rs`, the pure part, tested on an explicit clock),
//! and `run`, which drives them with tokio time, so tests can use a paused clock.
//!
//! Every answer reaches the App as `Msg::Polled`, with when the task is asked next and why;
//! the requests per second and the polls in flight reach it as `Msg::PollLoad`, only when a
//! figure changes, at most about once a second, and not at all while nothing is polled.

mod cadence;
mod limiter;
mod schedule;

pub use cadence::{Cadence, NEAR_INTERVALS, is_queued};
pub use limiter::{INITIAL_LIMIT, Limiter, Outcome};
pub use schedule::{Answered, STARVATION_BOUND, Schedule};

use super::linger::Awaited;
use crate::api::{ApiError, Client, TaskResult};
use crate::cmd::{PollCmd, TaskKey};
use crate::msg::{Msg, PollLoad};
use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// Queue depth towards the poller: far beyond what a person can cause.
const COMMANDS: usize = 4096;

/// How often, at most, the load is reported.
pub const LOAD_EVERY: Duration = Duration::from_secs(1);

/// The App's handle on the poller: its command queue, which the router feeds with each task's
/// client, and its task, stopped when the handle is dropped.
pub struct Handle {
    cmds: mpsc::Sender<PollCmd<Arc<Client>>>,
    task: tokio::task::JoinHandle<()>,
}

/// Polls each watched task at its service as `cadence` says, at most `max_in_flight` at once
/// (the ceiling of the adaptive limit); a status in `failure_statuses` ends a task as failed.
pub fn spawn(
    cadence: Cadence,
    max_in_flight: usize,
    failure_statuses: Vec<String>,
    msgs: mpsc::Sender<Msg>,
) -> Handle {
    let (cmds, queue) = mpsc::channel(COMMANDS);
    let fetch = |key: TaskKey, client: Arc<Client>| async move {
        client.task_result(key.kind, &key.id).await
    };
    let task = tokio::spawn(run(
        Schedule::with(cadence, Limiter::new(max_in_flight)),
        queue,
        msgs,
        fetch,
        failure_statuses,
        Awaited::process(),
        rand::rngs::StdRng::from_os_rng(),
    ));
    Handle { cmds, task }
}

impl Handle {
    /// Where poll commands go, with the client of each task's service (the router's end).
    pub fn commands(&self) -> mpsc::Sender<PollCmd<Arc<Client>>> {
        self.cmds.clone()
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Drives the schedule until the command channel closes; each request in flight is counted in
/// `awaited` until it is answered or dropped.
pub async fn run<R, F, Fut>(
    mut schedule: Schedule,
    mut cmds: mpsc::Receiver<PollCmd<R>>,
    msgs: mpsc::Sender<Msg>,
    fetch: F,
    failure_statuses: Vec<String>,
    awaited: &'static Awaited,
    mut rng: impl Rng,
) where
    R: Clone,
    F: Fn(TaskKey, R) -> Fut,
    Fut: Future<Output = Result<TaskResult, ApiError>> + Send + 'static,
{
    // The requests in flight, polled by this task: a tokio task each would cost a spawn, a
    // join and their wake-ups per poll (about 3 % of a dashboard's CPU at 500 polls a second).
    let mut requests = FuturesUnordered::new();
    let mut routes: HashMap<TaskKey, R> = HashMap::new();
    // The load last reported, and when it is looked at next (`None`: nothing is polled).
    let mut shown = PollLoad::default();
    let mut report_at: Option<Instant> = None;
    loop {
        let now = Instant::now();
        schedule.promote(now);
        for key in schedule.take_due(now) {
            let Some(route) = routes.get(&key) else {
                schedule.unwatch(&key);
                continue;
            };
            let request = fetch(key.clone(), route.clone());
            let awaiting = awaited.one();
            requests.push(async move {
                let result = request.await;
                drop(awaiting);
                (key, result)
            });
            report_at.get_or_insert(now + LOAD_EVERY);
        }
        let wake = [schedule.next_due(), schedule.next_promotion()]
            .into_iter()
            .flatten()
            .min();
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
                Some(PollCmd::Settings(settings)) => {
                    schedule.configure(Cadence::of(&settings), settings.max_in_flight);
                }
            },
            Some((key, result)) = requests.next(), if !requests.is_empty() => {
                let answered = schedule.completed(&key, &result, &failure_statuses, Instant::now(), &mut rng);
                let msg = Msg::Polled { key, result, retry_in: answered.retry_in, next: Some(answered.next) };
                if msgs.send(msg).await.is_err() {
                    break;
                }
            }
            () = tokio::time::sleep_until(wake.unwrap_or_else(Instant::now)), if wake.is_some() => {}
            () = tokio::time::sleep_until(report_at.unwrap_or_else(Instant::now)), if report_at.is_some() => {
                let now = Instant::now();
                let load = schedule.load(now);
                // A full channel drops the report; the next one says it.
                if load != shown && msgs.try_send(Msg::PollLoad(load)).is_ok() {
                    shown = load;
                }
                report_at = keep_reporting(load, shown).then_some(now + LOAD_EVERY);
            }
        }
    }
}

/// Whether the load is looked at again in a second: not once nothing is polled and the App
/// was told so, so an idle poller keeps no timer.
fn keep_reporting(load: PollLoad, shown: PollLoad) -> bool {
    let idle = load.per_second_tenths == 0 && load.in_flight == 0;
    !(idle && load == shown)
}

#[cfg(test)]
mod adaptive_tests;
#[cfg(test)]
mod settings_tests;
#[cfg(test)]
mod tests;
