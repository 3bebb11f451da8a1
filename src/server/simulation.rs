//! Simulated generation tasks of the reference service.
//!
//! Most tasks are driven by lookups, not by the clock: every lookup of a running `sim-`/`fail-`
//! task advances it one step. That makes the service deterministic — a test knows exactly what
//! the n-th lookup returns and never sleeps — while a dashboard polling every two seconds still
//! sees tasks move. `timed-` tasks follow the service's clock instead (the wall clock when
//! served, a test's [`super::pace::ManualClock`] in tests), so how often a client polls does not
//! change how fast they run: what measuring a polling cadence needs.
//!
//! The task ID grammar (also in docs/reference-service.md). Task IDs that start themselves
//! (the first lookup creates the task under the kind it was asked for):
//! - `sim-<steps>-<anything>`: runs `<steps>` lookups, then `COMPLETED` at 100%.
//! - `fail-<steps>-<anything>`: runs `<steps>` lookups, then `FAILED`.
//! - `hold-<anything>`: stays `IN_PROGRESS` forever.
//! - `timed-<seconds>-<anything>`: `IN_PROGRESS` from its first lookup for `<seconds>` of the
//!   service's clock (whole or decimal, `12.5`; at most a day), its percent rising steadily with the time, then
//!   `COMPLETED`.
//! - `queued-<seconds>-<rest>`: `QUEUED` at 0% for `<seconds>` from its first lookup, then the
//!   task `<rest>` names (a `timed-` one starts its time then), else completed.
//! - `late-<n>-<rest>`: unknown for its first `<n>` lookups (registered late, as a task whose
//!   ID was handed out before the service knew it), then the task `<rest>` names if that is
//!   one of the above (`late-2-hold-x`), else completed.
//!
//! Faulty IDs, for testing a client against a misbehaving service (a prefix in front of any ID):
//! - `slow-<ms>-<rest>`: every answer is delayed `<ms>` milliseconds (at most 60,000), then is
//!   what `<rest>` answers (`slow-2000-hold-x`).
//! - `http-<code>-<anything>`: every lookup answers HTTP `<code>` (400–599) with a short
//!   `text/html` body, as a gateway in front of the service does (`http-502-x`).
//! - `garbage-<anything>`: every lookup answers `200` with `Content-Type: application/json` and
//!   a body that is not JSON.
//!
//! Any ID with an `extra` part of its own (`sim-5-castle-extra`) answers fields beyond the
//! spec's five in `data.data`: `queue_position`, `logs`, `preview_url`, `worker`.
//!
//! Two finished tasks always exist: `demo-image-done` (image) and `demo-video-done` (video).
//! Every other ID is unknown and answers `is_success: false` with an `error_description`.

use crate::api::types::TaskKind;
use std::collections::HashMap;
use std::time::Duration;

/// `gendash --demo`'s watch list: some running, one finishing within seconds, failed ones,
/// finished ones.
pub const DEMO_TASKS: &[(&str, TaskKind)] = &[
    ("sim-3-sunset-over-harbor", TaskKind::Image),
    ("sim-45-portrait-batch", TaskKind::Image),
    ("sim-25-drone-flyover", TaskKind::Video),
    ("hold-queued-behind-others", TaskKind::Image),
    ("fail-0-rejected-prompt", TaskKind::Image),
    ("fail-6-upscale-out-of-memory", TaskKind::Video),
    ("demo-image-done", TaskKind::Image),
    ("demo-video-done", TaskKind::Video),
];

/// How many simulated tasks the service remembers before it refuses new ones.
pub const MAX_TASKS: usize = 100_000;

/// The longest `timed-` or `queued-` time, in seconds (a day).
const MAX_SECONDS: f64 = 86_400.0;

/// The longest `slow-` delay, in milliseconds.
const MAX_SLOW_MS: u64 = 60_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Complete,
    Fail,
    Never,
}

/// How a task moves: a step per lookup, or with the clock.
#[derive(Debug, Clone, Copy)]
enum Pace {
    Steps {
        steps: u32,
        done: u32,
    },
    /// Runs `length` from `start` (set at its first lookup, or when its queue time ends).
    Timed {
        start: Duration,
        length: Duration,
    },
}

#[derive(Debug, Clone)]
struct SimTask {
    kind: TaskKind,
    pace: Pace,
    outcome: Outcome,
    /// `queued-`: answers `QUEUED` until this time of the service's clock.
    queued_until: Option<Duration>,
    /// When it was first answered finished (for a timed task: when its time ran out).
    finished_at: Option<Duration>,
}

/// What a lookup reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub status: &'static str,
    pub percent: u8,
    pub finished_ok: bool,
    /// When the task finished on the service's clock, once it has.
    pub finished_at: Option<Duration>,
}

#[derive(Debug, Default)]
pub struct Tasks {
    tasks: HashMap<String, SimTask>,
    /// How many lookups each `late-` task has answered as unknown so far.
    misses: HashMap<String, u32>,
}

/// Why a lookup found nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unknown {
    NoSuchTask,
    WrongKind(TaskKind),
    Full,
}

/// A faulty ID's answer, instead of the task's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// `http-<code>-…`: this HTTP status with a short `text/html` body.
    Status(u16),
    /// `garbage-…`: `200`, `application/json`, a body that is not JSON.
    Garbage,
}

/// How the service answers `id`, before looking it up: the `slow-` delay, and the fault that
/// replaces the lookup, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Treatment {
    pub delay: Duration,
    pub fault: Option<Fault>,
}

/// The `slow-` delay and fault of `id` (see the module's header).
pub fn treatment(id: &str) -> Treatment {
    let (delay, rest) = strip_slow(id);
    let fault = if rest.starts_with("garbage-") {
        Some(Fault::Garbage)
    } else {
        rest.strip_prefix("http-")
            .and_then(|r| r.split_once('-'))
            .and_then(|(code, _)| code.parse::<u16>().ok())
            .filter(|c| (400..=599).contains(c))
            .map(Fault::Status)
    };
    Treatment { delay, fault }
}

/// Whether `id` asks for fields beyond the spec's five: an `extra` part of its own anywhere
/// in it (`sim-5-castle-extra`, `hold-extra`).
pub fn has_extra_fields(id: &str) -> bool {
    id.split('-').any(|part| part == "extra")
}

/// The fields an `-extra` task's `data.data` gains after the spec's five, as a service that
/// adds its own would send them: a queue position, logs (the first line coloured with escape
/// sequences, as a worker's log often is: the client must show it inert), a preview URL (the
/// file's, once there is one) and the worker, a nested object.
pub fn extra_fields(snap: &Snapshot, url: &str) -> serde_json::Map<String, serde_json::Value> {
    let queued = snap.status == "QUEUED";
    let mut logs = vec![
        "\u{1b}[32mmodel loaded\u{1b}[0m".to_string(),
        format!("step {} of 100", snap.percent),
    ];
    if snap.finished_at.is_some() {
        logs.push(format!("finished: {}", snap.status));
    }
    let json = serde_json::json!({
        "queue_position": if queued { 2 } else { 0 },
        "logs": logs,
        "preview_url": if url.is_empty() { serde_json::Value::Null } else { url.into() },
        "worker": {"node": "ref-1", "gpu": "A100"},
    });
    match json {
        serde_json::Value::Object(map) => map,
        _ => serde_json::Map::new(),
    }
}

/// `slow-<ms>-<rest>` (repeated): the delays added up (at most a minute), and what follows.
fn strip_slow(id: &str) -> (Duration, &str) {
    let mut ms = 0u64;
    let mut rest = id;
    while let Some((n, r)) = rest
        .strip_prefix("slow-")
        .and_then(|r| r.split_once('-'))
        .and_then(|(n, r)| Some((n.parse::<u64>().ok()?, r)))
    {
        ms = ms.saturating_add(n).min(MAX_SLOW_MS);
        rest = r;
    }
    (Duration::from_millis(ms), rest)
}

/// `<seconds>-<rest>` at the start of `s`: a whole or decimal number of seconds (`12`,
/// `12.375`), at most a day.
fn seconds_then(s: &str) -> Option<(Duration, &str)> {
    let (n, rest) = s.split_once('-')?;
    if !n.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let secs: f64 = n.parse().ok()?;
    Some((Duration::from_secs_f64(secs.min(MAX_SECONDS)), rest))
}

fn parse_sim(id: &str, kind: TaskKind, now: Duration) -> Option<SimTask> {
    let task = |pace, outcome| SimTask {
        kind,
        pace,
        outcome,
        queued_until: None,
        finished_at: None,
    };
    if let Some(r) = id.strip_prefix("queued-") {
        let (wait, rest) = seconds_then(r)?;
        let until = now + wait;
        let mut inner = parse_sim(rest, kind, until).unwrap_or_else(|| done(kind));
        inner.queued_until = Some(until);
        return Some(inner);
    }
    if let Some(r) = id.strip_prefix("timed-") {
        let (length, _) = seconds_then(r)?;
        return Some(task(Pace::Timed { start: now, length }, Outcome::Complete));
    }
    if id.starts_with("hold-") {
        return Some(task(
            Pace::Steps {
                steps: u32::MAX,
                done: 0,
            },
            Outcome::Never,
        ));
    }
    let (outcome, rest) = if let Some(r) = id.strip_prefix("sim-") {
        (Outcome::Complete, r)
    } else if let Some(r) = id.strip_prefix("fail-") {
        (Outcome::Fail, r)
    } else {
        return None;
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let steps = digits.parse::<u32>().ok()?.min(100_000);
    Some(task(Pace::Steps { steps, done: 0 }, outcome))
}

/// A task that is already completed.
fn done(kind: TaskKind) -> SimTask {
    SimTask {
        kind,
        pace: Pace::Steps { steps: 0, done: 0 },
        outcome: Outcome::Complete,
        queued_until: None,
        finished_at: None,
    }
}

impl Tasks {
    pub fn new() -> Self {
        let mut t = Tasks::default();
        for (id, kind) in [
            ("demo-image-done", TaskKind::Image),
            ("demo-video-done", TaskKind::Video),
        ] {
            t.tasks.insert(id.into(), done(kind));
        }
        t
    }

    /// [`Tasks::lookup_at`] with the clock at zero: for the stepped tasks, which do not follow
    /// it (the demo's screenshot drives them so).
    pub fn lookup(&mut self, id: &str, kind: TaskKind) -> Result<Snapshot, Unknown> {
        self.lookup_at(id, kind, Duration::ZERO)
    }

    /// Looks a task up at `now` on the service's clock, creating self-starting ones, and
    /// advances a stepped one one step.
    pub fn lookup_at(
        &mut self,
        id: &str,
        kind: TaskKind,
        now: Duration,
    ) -> Result<Snapshot, Unknown> {
        if !self.tasks.contains_key(id) {
            let (_, behaviour) = strip_slow(id);
            let sim = match parse_late(behaviour) {
                Some((wanted, rest)) => {
                    if self.misses.len() >= MAX_TASKS && !self.misses.contains_key(id) {
                        return Err(Unknown::Full);
                    }
                    let misses = self.misses.entry(id.to_string()).or_insert(0);
                    if *misses < wanted {
                        *misses += 1;
                        return Err(Unknown::NoSuchTask);
                    }
                    self.misses.remove(id);
                    parse_sim(rest, kind, now).unwrap_or_else(|| done(kind))
                }
                None => parse_sim(behaviour, kind, now).ok_or(Unknown::NoSuchTask)?,
            };
            if self.tasks.len() >= MAX_TASKS {
                return Err(Unknown::Full);
            }
            self.tasks.insert(id.to_string(), sim);
        }
        let task = self.tasks.get_mut(id).ok_or(Unknown::NoSuchTask)?;
        if task.kind != kind {
            return Err(Unknown::WrongKind(task.kind));
        }
        let mut snapshot = snapshot(task, now);
        if snapshot.status == "COMPLETED" || snapshot.status == "FAILED" {
            let finished = *task.finished_at.get_or_insert(match task.pace {
                Pace::Timed { start, length } => start + length,
                Pace::Steps { .. } => now,
            });
            snapshot.finished_at = Some(finished);
        }
        let queued = task.queued_until.is_some_and(|until| now < until);
        if let Pace::Steps { steps, done } = &mut task.pace
            && *done < *steps
            && task.outcome != Outcome::Never
            && !queued
        {
            *done += 1;
        }
        Ok(snapshot)
    }
}

/// `late-<n>-<rest>`: how many lookups it stays unknown, and what it is then.
fn parse_late(id: &str) -> Option<(u32, &str)> {
    let (n, rest) = id.strip_prefix("late-")?.split_once('-')?;
    Some((n.parse().ok()?, rest))
}

fn snapshot(task: &SimTask, now: Duration) -> Snapshot {
    let running = |percent: u64| Snapshot {
        status: "IN_PROGRESS",
        percent: u8::try_from(percent.min(99)).unwrap_or(99),
        finished_ok: false,
        finished_at: None,
    };
    let completed = Snapshot {
        status: "COMPLETED",
        percent: 100,
        finished_ok: true,
        finished_at: None,
    };
    let queued = Snapshot {
        status: "QUEUED",
        percent: 0,
        finished_ok: false,
        finished_at: None,
    };
    if task.queued_until.is_some_and(|until| now < until) {
        return queued;
    }
    if task.outcome == Outcome::Never {
        return running(50);
    }
    match task.pace {
        Pace::Timed { start, length } => {
            let elapsed = now.saturating_sub(start);
            if elapsed >= length {
                return completed;
            }
            let percent = elapsed.as_millis() * 100 / length.as_millis().max(1);
            running(u64::try_from(percent).unwrap_or(99))
        }
        Pace::Steps { steps, done } => {
            if done >= steps {
                return match task.outcome {
                    Outcome::Fail => Snapshot {
                        status: "FAILED",
                        percent: (u64::from(steps.saturating_sub(1)) * 100
                            / u64::from(steps.max(1))) as u8,
                        finished_ok: false,
                        finished_at: None,
                    },
                    _ => completed,
                };
            }
            if done == 0 {
                return queued;
            }
            running(u64::from(done) * 100 / u64::from(steps))
        }
    }
}

impl Tasks {
    /// Whether `id` is a known task of `kind` that has completed (for the file route), at
    /// `now`.
    pub fn is_completed(&self, id: &str, kind: TaskKind, now: Duration) -> bool {
        self.tasks
            .get(id)
            .is_some_and(|t| t.kind == kind && snapshot(t, now).finished_ok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sim_task_walks_to_completed() {
        let mut t = Tasks::new();
        let seen: Vec<_> = (0..6)
            .map(|_| t.lookup("sim-4-x", TaskKind::Image).expect("known"))
            .collect();
        let statuses: Vec<_> = seen.iter().map(|s| (s.status, s.percent)).collect();
        assert_eq!(
            statuses,
            [
                ("QUEUED", 0),
                ("IN_PROGRESS", 25),
                ("IN_PROGRESS", 50),
                ("IN_PROGRESS", 75),
                ("COMPLETED", 100),
                ("COMPLETED", 100)
            ]
        );
    }

    #[test]
    fn a_late_task_is_unknown_for_its_first_lookups() {
        let mut t = Tasks::new();
        for _ in 0..2 {
            assert_eq!(
                t.lookup("late-2-hold-x", TaskKind::Image),
                Err(Unknown::NoSuchTask)
            );
        }
        for _ in 0..3 {
            let s = t
                .lookup("late-2-hold-x", TaskKind::Image)
                .expect("registered");
            assert_eq!((s.status, s.percent), ("IN_PROGRESS", 50));
        }
        assert_eq!(
            t.lookup("late-0-x", TaskKind::Image).expect("known").status,
            "COMPLETED"
        );
    }

    #[test]
    fn fail_task_ends_failed_and_kinds_are_kept() {
        let mut t = Tasks::new();
        for _ in 0..3 {
            t.lookup("fail-2-y", TaskKind::Video).expect("known");
        }
        assert_eq!(
            t.lookup("fail-2-y", TaskKind::Video).expect("known").status,
            "FAILED"
        );
        assert_eq!(
            t.lookup("fail-2-y", TaskKind::Image),
            Err(Unknown::WrongKind(TaskKind::Video))
        );
        assert_eq!(t.lookup("nope", TaskKind::Image), Err(Unknown::NoSuchTask));
        assert_eq!(
            t.lookup("demo-video-done", TaskKind::Video)
                .expect("known")
                .status,
            "COMPLETED"
        );
        assert_eq!(
            t.lookup("sim-0", TaskKind::Image).expect("known").status,
            "COMPLETED"
        );
    }

    const S: Duration = Duration::from_secs(1);

    fn seen(t: &mut Tasks, id: &str, at: Duration) -> (&'static str, u8) {
        let s = t.lookup_at(id, TaskKind::Image, at).expect("known");
        (s.status, s.percent)
    }

    #[test]
    fn a_timed_task_follows_the_clock_not_the_lookups() {
        let mut t = Tasks::new();
        // Its time starts at its first lookup (here at 100 s of the service's clock).
        assert_eq!(seen(&mut t, "timed-10-x", 100 * S), ("IN_PROGRESS", 0));
        assert_eq!(seen(&mut t, "timed-2.5-y", 100 * S), ("IN_PROGRESS", 0));
        assert_eq!(seen(&mut t, "timed-2.5-y", 102 * S), ("IN_PROGRESS", 80));
        assert_eq!(
            seen(&mut t, "timed-2.5-y", 102 * S + S / 2),
            ("COMPLETED", 100)
        );
        assert!(t.lookup("timed-x-z", TaskKind::Image).is_err());
        // However often it is asked, the percent is the time's.
        for _ in 0..20 {
            assert_eq!(seen(&mut t, "timed-10-x", 100 * S), ("IN_PROGRESS", 0));
        }
        assert_eq!(seen(&mut t, "timed-10-x", 102 * S), ("IN_PROGRESS", 20));
        assert_eq!(
            seen(&mut t, "timed-10-x", 107 * S + S / 2),
            ("IN_PROGRESS", 75)
        );
        assert_eq!(
            seen(&mut t, "timed-10-x", 109 * S + 99 * S / 100),
            ("IN_PROGRESS", 99)
        );
        let end = t
            .lookup_at("timed-10-x", TaskKind::Image, 113 * S)
            .expect("known");
        assert_eq!((end.status, end.percent), ("COMPLETED", 100));
        assert!(end.finished_ok);
        // It finished when its time ran out, not when it was asked.
        assert_eq!(end.finished_at, Some(110 * S));
        assert!(t.is_completed("timed-10-x", TaskKind::Image, 113 * S));
    }

    #[test]
    fn a_queued_task_waits_its_time_then_runs() {
        let mut t = Tasks::new();
        let id = "queued-5-timed-10-x";
        assert_eq!(seen(&mut t, id, Duration::ZERO), ("QUEUED", 0));
        assert_eq!(seen(&mut t, id, 4 * S), ("QUEUED", 0));
        assert_eq!(seen(&mut t, id, 5 * S), ("IN_PROGRESS", 0));
        assert_eq!(seen(&mut t, id, 10 * S), ("IN_PROGRESS", 50));
        assert_eq!(seen(&mut t, id, 15 * S), ("COMPLETED", 100));
        // A stepped task does not step while queued.
        assert_eq!(
            seen(&mut t, "queued-3-sim-1-y", Duration::ZERO),
            ("QUEUED", 0)
        );
        assert_eq!(seen(&mut t, "queued-3-sim-1-y", S), ("QUEUED", 0));
        assert_eq!(seen(&mut t, "queued-3-sim-1-y", 3 * S), ("QUEUED", 0));
        assert_eq!(seen(&mut t, "queued-3-sim-1-y", 3 * S), ("COMPLETED", 100));
    }

    #[test]
    fn faulty_ids_are_read_from_their_prefixes() {
        let none = Treatment {
            delay: Duration::ZERO,
            fault: None,
        };
        assert_eq!(treatment("hold-x"), none);
        assert_eq!(treatment("http-abc-x"), none);
        assert_eq!(treatment("http-200-x"), none, "only 400-599");
        assert_eq!(treatment("http-502-x").fault, Some(Fault::Status(502)));
        assert_eq!(treatment("garbage-1").fault, Some(Fault::Garbage));
        assert_eq!(
            treatment("slow-2000-hold-x"),
            Treatment {
                delay: 2 * S,
                fault: None
            }
        );
        assert_eq!(
            treatment("slow-250-http-503-z"),
            Treatment {
                delay: Duration::from_millis(250),
                fault: Some(Fault::Status(503))
            }
        );
        assert_eq!(treatment("slow-99999999-x").delay, 60 * S);
        // A slow task is the task its rest names.
        let mut t = Tasks::new();
        assert_eq!(
            seen(&mut t, "slow-10-hold-x", Duration::ZERO),
            ("IN_PROGRESS", 50)
        );
        assert_eq!(
            t.lookup("slow-10-nothing", TaskKind::Image),
            Err(Unknown::NoSuchTask)
        );
    }
}
