//! Poll results: the status history, progress and the poll trouble of a row, and the finish
//! they may announce (once claimed: see `end`).

use super::trouble;
use super::{Problem, Row, ServiceSays, Watch, end, order, timing, unseen};
use crate::api::types::{TaskState, classify};
use crate::api::{ApiError, TaskResult};
use crate::app::effects::Effects;
use crate::cmd::{Cmd, Finished, PersistOp, PollCmd, TaskKey};
use crate::store::watchlist::{HISTORY, LastKnown, Transition, Trouble, TroubleKind};
use std::time::Duration;

/// What `key`'s poll result says of the service in force. Only its own tasks' answers
/// speak of it; one task whose answer could not be read while another of its tasks
/// answers well (or is still to answer) is that task's trouble, shown on its row: the health does not flap
/// between `trouble` and `reconnected` with it.
pub fn service_says<'a>(
    watch: &Watch,
    key: &TaskKey,
    result: &'a Result<TaskResult, ApiError>,
) -> ServiceSays<'a> {
    if !watch.at_current_service(key) {
        return ServiceSays::Nothing;
    }
    match result {
        Ok(_) => ServiceSays::Answers,
        Err(e @ (ApiError::Decode { .. } | ApiError::TooLarge { .. })) => {
            // Another task of the service answers well, or has yet to answer at all (at
            // start, the first answer to come may be the garbled one): the garbled answer
            // speaks only of its task. Only when every task of the service has answered, and
            // none well, is it the service's trouble.
            let others_answer_or_may = watch.rows.iter().any(|r| {
                r.key() != *key
                    && !r.no_service
                    && watch.services.of(r.entry.service.as_deref()) == watch.services.current
                    && match r.polled_at {
                        Some(_) => r.trouble.is_none(),
                        None => r.state == TaskState::Running,
                    }
            });
            if others_answer_or_may {
                ServiceSays::Nothing
            } else {
                ServiceSays::Reports(e)
            }
        }
        Err(e) => ServiceSays::Reports(e),
    }
}

/// The tasks to poll at start: everything not known to be finished.
pub fn start_polling(watch: &Watch) -> Vec<Cmd> {
    watch.rows.iter().filter_map(|r| cmd(watch, r)).collect()
}

/// The command that polls a row's task at its own service, if it is to be polled: not
/// when it is known to be finished, nor when its service is not configured.
pub(super) fn cmd(watch: &Watch, row: &Row) -> Option<Cmd> {
    (row.state == TaskState::Running && !row.no_service).then(|| {
        let service = watch.services.of(row.entry.service.as_deref());
        Cmd::Poll(PollCmd::Watch(row.key(), watch.services.route(service)))
    })
}

/// A poll result: the commands (persist, notify), redrawn when anything changed.
pub fn polled(
    watch: &mut Watch,
    key: &TaskKey,
    result: Result<TaskResult, ApiError>,
    retry_in: Option<Duration>,
    now: u64,
) -> Effects {
    let Some(i) = watch.position(key) else {
        return Effects::none();
    };
    let failure_statuses = &watch.failure_statuses;
    let row = &mut watch.rows[i];
    let next_retry_at = retry_in.map(|d| now + d.as_secs().max(1));
    row.polled_at = Some(now);
    let mut extra_moved = false;
    let (mut cmds, changed, announce) = match result {
        Ok(t) => {
            let before = row.state;
            extra_moved =
                row.entry.last.as_ref().and_then(|l| l.extra.as_ref()) != t.extra.as_ref();
            let answer = answered(row, &t, failure_statuses, now);
            if row.state != before {
                watch.usual = timing::Usual::work_out(watch);
            }
            answer
        }
        Err(ApiError::Lookup { description }) => {
            let found = Problem::NotFound {
                description: description.clone(),
                error: None,
            };
            let trouble = trouble::after(row.trouble.as_ref(), found, next_retry_at);
            let changed = row
                .trouble
                .as_ref()
                .is_none_or(|t| t.problem != trouble.problem || t.retry_at != trouble.retry_at);
            row.trouble = Some(trouble);
            (
                keep_trouble(row, TroubleKind::NotFound, description, now),
                changed,
                None,
            )
        }
        Err(e) => {
            let text = e.to_string();
            let trouble = trouble::after(
                row.trouble.as_ref(),
                Problem::Error(text.clone()),
                next_retry_at,
            );
            let changed = row
                .trouble
                .as_ref()
                .is_none_or(|t| t.problem != trouble.problem || t.retry_at != trouble.retry_at);
            // What the service said of the task outlasts a failure to ask it again: the
            // file keeps NOT FOUND.
            let kept = if trouble.not_found().is_some() {
                Vec::new()
            } else {
                keep_trouble(row, TroubleKind::Error, text, now)
            };
            row.trouble = Some(trouble);
            (kept, changed, None)
        }
    };
    cmds.extend(end::claim(watch, i, announce));
    if changed && order::moves(watch) {
        order::reorder(watch, now);
    }
    // A change of the extra fields alone (a queue position, a new log line) is redrawn but
    // neither reorders nor is saved: they are saved with the next status or percent, the
    // task's end included.
    Effects::cmds(cmds).redraw_if(changed || extra_moved)
}

/// Records a poll's trouble in the entry, and in the file when it is news (a retry that fails
/// the same way writes nothing).
fn keep_trouble(row: &mut Row, kind: TroubleKind, text: String, now: u64) -> Vec<Cmd> {
    if row
        .entry
        .trouble
        .as_ref()
        .is_some_and(|t| t.kind == kind && t.text == text)
    {
        return Vec::new();
    }
    let trouble = Trouble {
        kind,
        text,
        since: now,
    };
    row.entry.trouble = Some(trouble.clone());
    vec![Cmd::Persist(PersistOp::Trouble(row.key(), Some(trouble)))]
}

/// A poll the service answered: status, history, progress, and what is announced when it
/// finished while watched (once claimed: see `end::claim`).
fn answered(
    row: &mut Row,
    t: &TaskResult,
    failure_statuses: &[String],
    now: u64,
) -> (Vec<Cmd>, bool, Option<Finished>) {
    let state = classify(&t.status, failure_statuses);
    // What was known is replaced below: taken, not copied (an answer each, history and all).
    let known_before = row.entry.last.is_some();
    let changed_status = row.entry.last.as_ref().is_none_or(|l| {
        l.status != t.status || l.percent != t.percent || l.url_download != t.url_download
    });
    let previous = row.entry.last.take().unwrap_or_default();
    // One clock, in order: the reducer's ticks once a second, so a task another process added
    // (on the wall clock) can be answered before the tick catches up; nothing it records is
    // earlier than what was recorded before it (added ≤ each transition ≤ running ≤ finished).
    let now = [
        Some(row.entry.added_at),
        previous.history.last().map(|h| h.at),
        previous.running_since,
    ]
    .into_iter()
    .flatten()
    .fold(now, u64::max);
    let status_moved = !known_before || previous.status != t.status;
    let mut history = previous.history;
    if status_moved {
        history.push(Transition {
            at: now,
            status: t.status.clone(),
        });
        if history.len() > HISTORY {
            history.drain(..history.len() - HISTORY);
        }
    }
    let first_seen_running = previous.running_since.is_none() && state == TaskState::Running;
    let start_seen = previous.start_seen || (first_seen_running && t.percent == 0);
    let running_since = previous
        .running_since
        .or((state == TaskState::Running).then_some(now));
    let finished_at = match state {
        TaskState::Running => None,
        _ => previous.finished_at.or(Some(now)),
    };
    let last = LastKnown {
        status: t.status.clone(),
        percent: t.percent,
        url_download: t.url_download.clone(),
        updated_at: now,
        running_since,
        finished_at,
        start_seen,
        history,
        extra: t.extra.clone(),
    };
    row.reported = t
        .url_download
        .is_some()
        .then(|| Box::new(t.envelope.clone()));
    let had_trouble = row.trouble.take().is_some();
    if state == TaskState::Running {
        row.progress.observe(now as f64, t.percent);
    }
    let mut cmds = Vec::new();
    if row.entry.trouble.take().is_some() {
        cmds.push(Cmd::Persist(PersistOp::Trouble(row.key(), None)));
    }
    // Announced only when it was seen running: a task already finished when first polled (no
    // last known status) did not finish while watched.
    let announce = (state != TaskState::Running && row.state == TaskState::Running && known_before)
        .then(|| Finished {
            task_id: row.entry.task_id.clone(),
            kind: row.entry.kind,
            status: t.status.clone(),
            status_failed: state == TaskState::Failed,
            percent: t.percent,
            url: t.url_download.clone(),
            file: None,
            no_file: None,
            label: row.entry.label.clone(),
        });
    if announce.is_some() {
        unseen::finished(row);
    }
    row.state = state;
    if changed_status {
        cmds.push(Cmd::Persist(PersistOp::Status(
            TaskKey::of(&row.entry),
            last.clone(),
        )));
    }
    row.entry.last = Some(last);
    // A result that only refreshes the "updated" age redraws nothing by itself: the
    // once-a-second tick redraws when a shown age label changes. Redrawing on every unchanged
    // poll was most of the dashboard's CPU (a profile of 1,000 watched tasks: rendering
    // frames, for rows mostly off screen).
    (cmds, changed_status || had_trouble, announce)
}
