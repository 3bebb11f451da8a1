//! What the service answered, counted for the measurement scripts (`GET /_gendash/stats`, not a
//! route of the spec): every answer of the three operations by status, and per task ID the
//! lookups, when they came, and for a finished task when it finished on the service's clock and
//! when the service first answered it finished, which is when a client saw it.

use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

/// How many task IDs are counted one by one; beyond them only the totals grow.
pub const MAX_IDS: usize = 100_000;

#[derive(Debug, Default)]
pub struct Tally {
    /// Answers of the three operations, by HTTP status.
    by_status: BTreeMap<u16, u64>,
    /// Refused by `--capacity` (also counted under 429).
    refused: u64,
    tasks: HashMap<String, TaskTally>,
}

#[derive(Debug, Clone, Default)]
struct TaskTally {
    requests: u64,
    first: Duration,
    last: Duration,
    /// The longest time between two lookups.
    max_gap: Duration,
    /// When it finished (service clock), once it has.
    finished_at: Option<Duration>,
    /// When it was first answered finished.
    finished_answered: Option<Duration>,
    /// The last status answered (`429`, `502`, ... for an answer that was not the task's).
    last_status: Option<&'static str>,
}

/// One answer of a task-result operation, as the tally records it.
#[derive(Debug, Clone, Copy)]
pub struct Answered<'a> {
    pub id: &'a str,
    pub at: Duration,
    pub http: u16,
    /// The task's status when the answer carried one.
    pub status: Option<&'static str>,
    pub finished_at: Option<Duration>,
    /// Refused by the capacity limit.
    pub refused: bool,
}

impl Tally {
    /// Counts an answer of `POST /lora/` (a `429` is always the capacity limit's).
    pub fn listing(&mut self, http: u16) {
        *self.by_status.entry(http).or_default() += 1;
        self.refused += u64::from(http == 429);
    }

    /// Counts an answer of a task-result operation.
    pub fn task(&mut self, a: Answered<'_>) {
        *self.by_status.entry(a.http).or_default() += 1;
        self.refused += u64::from(a.refused);
        if !self.tasks.contains_key(a.id) && self.tasks.len() >= MAX_IDS {
            return;
        }
        let t = self
            .tasks
            .entry(a.id.to_string())
            .or_insert_with(|| TaskTally {
                first: a.at,
                last: a.at,
                ..TaskTally::default()
            });
        t.requests += 1;
        t.max_gap = t.max_gap.max(a.at.saturating_sub(t.last));
        t.last = a.at;
        t.last_status = a.status;
        if let Some(finished) = a.finished_at {
            t.finished_at = Some(finished);
            t.finished_answered.get_or_insert(a.at);
        }
    }

    /// The stats document at `now`.
    pub fn report(&self, now: Duration) -> Value {
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let tasks: serde_json::Map<String, Value> = self
            .tasks
            .iter()
            .map(|(id, t)| {
                (
                    id.clone(),
                    json!({
                        "requests": t.requests,
                        "first_ms": ms(t.first),
                        "last_ms": ms(t.last),
                        "max_gap_ms": ms(t.max_gap),
                        "last_status": t.last_status,
                        "finished_ms": t.finished_at.map(ms),
                        "finished_answered_ms": t.finished_answered.map(ms),
                    }),
                )
            })
            .collect();
        let by_status: serde_json::Map<String, Value> = self
            .by_status
            .iter()
            .map(|(k, v)| (k.to_string(), json!(v)))
            .collect();
        json!({
            "now_ms": ms(now),
            "requests": self.by_status.values().sum::<u64>(),
            "refused": self.refused,
            "by_status": by_status,
            "tasks": tasks,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_each_task_its_gaps_and_when_its_end_was_first_answered() {
        let s = Duration::from_secs(1);
        let mut t = Tally::default();
        let answer = |at, http, finished_at| Answered {
            id: "timed-3-x",
            at,
            http,
            status: Some("IN_PROGRESS"),
            finished_at,
            refused: http == 429,
        };
        t.task(answer(s, 200, None));
        t.task(answer(2 * s, 429, None));
        t.task(answer(5 * s, 200, Some(4 * s)));
        t.task(answer(6 * s, 200, Some(4 * s)));
        t.listing(200);
        let r = t.report(7 * s);
        assert_eq!(r["requests"], 5);
        assert_eq!(r["refused"], 1);
        assert_eq!(r["by_status"]["200"], 4);
        assert_eq!(r["by_status"]["429"], 1);
        let x = &r["tasks"]["timed-3-x"];
        assert_eq!(x["requests"], 4);
        assert_eq!(x["max_gap_ms"], 3000);
        assert_eq!(x["finished_ms"], 4000);
        assert_eq!(x["finished_answered_ms"], 5000);
        assert_eq!(r["now_ms"], 7000);
    }
}
