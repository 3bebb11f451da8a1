//! Simulated generation tasks of the reference service.
//!
//! Progress is driven by lookups, not by the clock: every lookup of a running task advances it
//! one step. That makes the service deterministic — a test knows exactly what the n-th lookup
//! returns and never sleeps — while a dashboard polling every two seconds still sees tasks move.
//!
//! Task IDs that start themselves (first lookup creates the task under the kind it was asked
//! for):
//! - `sim-<steps>-<anything>`: runs `<steps>` lookups, then `COMPLETED` at 100%.
//! - `fail-<steps>-<anything>`: runs `<steps>` lookups, then `FAILED`.
//! - `hold-<anything>`: stays `IN_PROGRESS` forever.
//! - `late-<n>-<rest>`: unknown for its first `<n>` lookups (registered late, as a task whose
//!   ID was handed out before the service knew it), then the task `<rest>` names if that is
//!   one of the above (`late-2-hold-x`), else completed.
//!
//! Two finished tasks always exist: `demo-image-done` (image) and `demo-video-done` (video).
//! Every other ID is unknown and answers `is_success: false` with an `error_description`.

use crate::api::types::TaskKind;
use std::collections::HashMap;

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Complete,
    Fail,
    Never,
}

#[derive(Debug, Clone)]
struct SimTask {
    kind: TaskKind,
    steps: u32,
    done: u32,
    outcome: Outcome,
}

/// What a lookup reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub status: &'static str,
    pub percent: u8,
    pub finished_ok: bool,
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

fn parse_sim(id: &str, kind: TaskKind) -> Option<SimTask> {
    let (outcome, rest) = if let Some(r) = id.strip_prefix("sim-") {
        (Outcome::Complete, r)
    } else if let Some(r) = id.strip_prefix("fail-") {
        (Outcome::Fail, r)
    } else if id.starts_with("hold-") {
        return Some(SimTask {
            kind,
            steps: u32::MAX,
            done: 0,
            outcome: Outcome::Never,
        });
    } else {
        return None;
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let steps = digits.parse::<u32>().ok()?.min(100_000);
    Some(SimTask {
        kind,
        steps,
        done: 0,
        outcome,
    })
}

impl Tasks {
    pub fn new() -> Self {
        let mut t = Tasks::default();
        for (id, kind) in [
            ("demo-image-done", TaskKind::Image),
            ("demo-video-done", TaskKind::Video),
        ] {
            t.tasks.insert(
                id.into(),
                SimTask {
                    kind,
                    steps: 0,
                    done: 0,
                    outcome: Outcome::Complete,
                },
            );
        }
        t
    }

    /// Looks a task up, creating self-starting ones, and advances it one step.
    pub fn lookup(&mut self, id: &str, kind: TaskKind) -> Result<Snapshot, Unknown> {
        if !self.tasks.contains_key(id) {
            let sim = match parse_late(id) {
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
                    parse_sim(rest, kind).unwrap_or(SimTask {
                        kind,
                        steps: 0,
                        done: 0,
                        outcome: Outcome::Complete,
                    })
                }
                None => parse_sim(id, kind).ok_or(Unknown::NoSuchTask)?,
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
        let snapshot = snapshot(task);
        if task.done < task.steps && task.outcome != Outcome::Never {
            task.done += 1;
        }
        Ok(snapshot)
    }
}

/// `late-<n>-<rest>`: how many lookups it stays unknown, and what it is then.
fn parse_late(id: &str) -> Option<(u32, &str)> {
    let (n, rest) = id.strip_prefix("late-")?.split_once('-')?;
    Some((n.parse().ok()?, rest))
}

fn snapshot(task: &SimTask) -> Snapshot {
    if task.outcome == Outcome::Never {
        return Snapshot {
            status: "IN_PROGRESS",
            percent: 50,
            finished_ok: false,
        };
    }
    if task.done >= task.steps {
        return match task.outcome {
            Outcome::Fail => Snapshot {
                status: "FAILED",
                percent: (u64::from(task.steps.saturating_sub(1)) * 100
                    / u64::from(task.steps.max(1))) as u8,
                finished_ok: false,
            },
            _ => Snapshot {
                status: "COMPLETED",
                percent: 100,
                finished_ok: true,
            },
        };
    }
    if task.done == 0 {
        return Snapshot {
            status: "QUEUED",
            percent: 0,
            finished_ok: false,
        };
    }
    let percent = (u64::from(task.done) * 100 / u64::from(task.steps)) as u8;
    Snapshot {
        status: "IN_PROGRESS",
        percent: percent.min(99),
        finished_ok: false,
    }
}

impl Tasks {
    /// Whether `id` is a known task of `kind` that has completed (for the file route).
    pub fn is_completed(&self, id: &str, kind: TaskKind) -> bool {
        self.tasks
            .get(id)
            .is_some_and(|t| t.kind == kind && snapshot(t).finished_ok)
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
}
