//! `gendash status` and `gendash wait`.

use super::{CliResult, Failure, Global, client_from, output};
use crate::api::backoff::retry_delay;
use crate::api::types::{TaskState, classify};
use crate::api::{ApiError, Client, TaskKind, TaskResult};
use crate::cli::exit;
use crate::eta::{Progress, Seconds};
use crate::fmt::format_eta;
use crate::store::config;
use serde_json::{Value, json};
use std::time::Duration;
use tokio::time::Instant;

#[derive(Debug, clap::Args)]
pub struct StatusArgs {
    /// The tasks are video tasks (default: image).
    #[arg(long)]
    pub video: bool,
    /// One JSON object per line.
    #[arg(long)]
    pub json: bool,
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 0.0,
        help = "Ask again for an unknown task ID until this many seconds have passed: a task may be registered after its ID was handed out"
    )]
    pub not_found_grace: f64,
    #[arg(required = true, value_name = "TASK_ID")]
    pub ids: Vec<String>,
}

#[derive(Debug, clap::Args)]
pub struct WaitArgs {
    /// The tasks are video tasks (default: image).
    #[arg(long)]
    pub video: bool,
    #[arg(
        long,
        value_name = "SECS",
        help = "Seconds between polls, at least 0.2 (default: poll_interval from the config, 2)"
    )]
    pub interval: Option<f64>,
    /// Give up after this many seconds (exit code 6).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    #[arg(
        long,
        value_name = "SECS",
        help = "A running task whose percent has not moved this long is stalled (default: stall_after from the config, 300)"
    )]
    pub stall_after: Option<f64>,
    /// One JSON event per line for every change.
    #[arg(long)]
    pub json: bool,
    /// Stop at the first task that fails (or cannot be asked about), with its exit code.
    #[arg(long)]
    pub fail_fast: bool,
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 30.0,
        help = "Ask again for an unknown task ID until this many seconds have passed: a task may be registered after its ID was handed out"
    )]
    pub not_found_grace: f64,
    #[arg(required = true, value_name = "TASK_ID")]
    pub ids: Vec<String>,
}

/// The JSON shape of a task in `status --json` and `wait --json`.
/// The fields the service sent beyond the spec's are under `extra`, as the watch list keeps
/// them (`{"fields": {…}}`), when there are any.
pub fn task_json(t: &TaskResult) -> Value {
    let mut v = json!({
        "task_id": t.task_id, "kind": t.kind.as_str(), "status": t.status, "percent": t.percent,
        "total_tasks": t.total_tasks, "url_download": t.url_download,
    });
    if let Some(extra) = &t.extra {
        v["extra"] = json!(extra);
    }
    v
}

/// The fields the service sent beyond the spec's, one indented line each (`  logs: […]`),
/// below the task's line in `status`.
fn extra_lines(t: &TaskResult) -> Vec<String> {
    let Some(extra) = &t.extra else {
        return Vec::new();
    };
    let mut lines: Vec<String> = extra
        .shown()
        .map(|(name, value)| format!("  {name}: {value}"))
        .collect();
    if extra.omitted() > 0 {
        lines.push(format!("  … {} more not kept", extra.omitted()));
    }
    lines
}

pub fn error_json(id: &str, kind: TaskKind, e: &ApiError) -> Value {
    json!({"task_id": id, "kind": kind.as_str(), "error": e.to_string()})
}

/// One task on one line; `id_width` aligns the columns of several tasks. The status is the
/// service's own word, whole: padded to [`STATUS_WIDTH`] when shorter, never cut.
fn plain(t: &TaskResult, id_width: usize) -> String {
    format!(
        "{:<5}  {}  {}  {:>3}%  {}",
        t.kind.as_str(),
        crate::fit::pad(&t.task_id, id_width),
        pad(&t.status, STATUS_WIDTH),
        t.percent,
        t.url_download.as_deref().unwrap_or("-")
    )
}

/// Wide enough for the reference service's statuses (`IN_PROGRESS`, `COMPLETED`).
const STATUS_WIDTH: usize = 12;

/// `s` padded with spaces to `width` display columns; longer text is left whole.
fn pad(s: &str, width: usize) -> String {
    let used = unicode_width::UnicodeWidthStr::width(s);
    format!("{s}{}", " ".repeat(width.saturating_sub(used)))
}

/// The ID column's width: the widest ID in display columns, within bounds.
fn id_width(ids: &[String]) -> usize {
    ids.iter()
        .map(|i| unicode_width::UnicodeWidthStr::width(output::sanitize_line(i).as_str()))
        .max()
        .unwrap_or(7)
        .clamp(7, 40)
}

/// A progress bar's prefix: the ID in a column as wide as the widest, so every bar starts in
/// the same column.
fn bar_prefix(id: &str, id_width: usize) -> String {
    crate::fit::pad(&output::sanitize_line(id), id_width)
}

/// How `wait` reports changes.
#[derive(Clone, Copy)]
struct Style {
    json: bool,
    id_width: usize,
}

/// What every task's wait shares.
struct Waiting<'a> {
    client: &'a Client,
    kind: TaskKind,
    interval: Duration,
    stall_after: Seconds,
    /// The origin of the estimator's clock: monotonic, and paused with tokio's clock in tests.
    start: Instant,
    /// How long an ID the service does not know is asked about again.
    not_found_grace: Duration,
    failure_statuses: &'a [String],
    style: Style,
}

/// A running task's pace between polls: its progress and whether it was last seen stalled.
#[derive(Debug, Default)]
struct Pace {
    progress: Progress,
    stalled: bool,
}

/// What one poll of a running task says about its pace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Reading {
    eta: Option<u64>,
    stalled: bool,
    /// Set on the poll where the task became stalled or moved again.
    turn: Option<Turn>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Turn {
    Stalled { percent: u8, still_for: u64 },
    Moving { percent: u8 },
}

impl Pace {
    fn observe(&mut self, at: Seconds, percent: u8, stall_after: Seconds) -> Reading {
        self.progress.observe(at, percent);
        let stalled = self.progress.stalled(at, stall_after);
        let turn = match (self.stalled, stalled) {
            (false, true) => Some(Turn::Stalled {
                percent,
                still_for: self
                    .progress
                    .last_move_at()
                    .map_or(0, |moved| (at - moved).max(0.0).round() as u64),
            }),
            (true, false) => Some(Turn::Moving { percent }),
            _ => None,
        };
        self.stalled = stalled;
        Reading {
            eta: self.progress.eta(at),
            stalled,
            turn,
        }
    }
}

/// The line printed when a task stalls or moves again.
fn turn_text(id: &str, turn: Turn) -> String {
    match turn {
        Turn::Stalled { percent, still_for } => {
            // The ETA's units and rounding, so "5m" here reads like "~5m" there.
            let span = format_eta(still_for);
            let span = span.trim_start_matches('~');
            format!("{id} stalled at {percent}% (no progress for {span})")
        }
        Turn::Moving { percent } => format!("{id} moving again: {percent}%"),
    }
}

/// "eta ~45s", "eta ~3m, stalled", "stalled", or nothing while neither is known.
fn pace_text(reading: &Reading) -> String {
    let eta = reading.eta.map(|s| format!("eta {}", format_eta(s)));
    let stalled = reading.stalled.then(|| "stalled".to_string());
    eta.into_iter()
        .chain(stalled)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A progress line of `wait`: the `status` columns, then the pace after them (so a script
/// reading the columns by position finds them where `status` puts them).
fn wait_line(t: &TaskResult, id_width: usize, reading: Option<&Reading>) -> String {
    let line = plain(t, id_width);
    match reading.map(pace_text) {
        Some(pace) if !pace.is_empty() => format!("{line}  {pace}"),
        _ => line,
    }
}

/// The message beside a task's progress bar.
fn bar_message(t: &TaskResult, state: TaskState, reading: Option<&Reading>) -> String {
    let status = match &t.url_download {
        Some(u) if state == TaskState::Completed => format!("{} {u}", t.status),
        _ => t.status.clone(),
    };
    match reading.map(pace_text) {
        Some(pace) if !pace.is_empty() => format!("{status}  {pace}"),
        _ => status,
    }
}

/// A flag's number of seconds, checked against its floor and a day, like the config's.
fn seconds_flag(flag: &str, secs: f64, floor: Duration) -> Result<Duration, Failure> {
    config::check_seconds(secs, floor)
        .map_err(|e| Failure::new(exit::USAGE, format!("{flag}: {e}")))
}

/// A grace or a time limit: any number of seconds from zero.
fn span_flag(flag: &str, secs: f64) -> Result<Duration, Failure> {
    if secs.is_finite() && secs >= 0.0 {
        Ok(Duration::from_secs_f64(secs.min(1e9)))
    } else {
        Err(Failure::new(
            exit::USAGE,
            format!("{flag}: `{secs}` is not a number of seconds from 0 up"),
        ))
    }
}

/// Combines exit codes: the first error's code wins, then a failed task (5), then a task
/// still running (7, `status` only), else success.
fn combine(codes: impl IntoIterator<Item = u8>) -> u8 {
    let codes: Vec<u8> = codes.into_iter().collect();
    let outcomes = [exit::OK, exit::TASK_FAILED, exit::RUNNING];
    codes
        .iter()
        .copied()
        .find(|c| !outcomes.contains(c))
        .or_else(|| codes.iter().copied().find(|&c| c == exit::TASK_FAILED))
        .or_else(|| codes.iter().copied().find(|&c| c == exit::RUNNING))
        .unwrap_or(exit::OK)
}

/// Whether the service said it does not know the task (not a wrong path or a refusal): such
/// an ID may yet be registered, so it is asked about again during the grace period.
fn unknown_task(e: &ApiError) -> bool {
    matches!(e, ApiError::Lookup { .. })
}

pub async fn status(global: &Global, args: &StatusArgs) -> CliResult {
    let grace = span_flag("--not-found-grace", args.not_found_grace)?;
    let settings = global.settings()?;
    let client = client_from(&settings)?;
    let kind = TaskKind::from_video_flag(args.video);
    let start = Instant::now();
    let results = futures_util::future::join_all(
        args.ids
            .iter()
            .map(|id| ask_within_grace(&client, kind, id, start, grace, &settings)),
    )
    .await;
    let mut codes = Vec::new();
    for (id, result) in args.ids.iter().zip(results) {
        match result {
            Ok(t) => {
                codes.push(match classify(&t.status, &settings.failure_statuses) {
                    TaskState::Completed => exit::OK,
                    TaskState::Failed => exit::TASK_FAILED,
                    TaskState::Running => exit::RUNNING,
                });
                if args.json {
                    output::json_line(task_json(&t));
                } else {
                    output::line(&plain(&t, id_width(&args.ids)));
                    for line in extra_lines(&t) {
                        output::line(&line);
                    }
                }
            }
            Err(e) => {
                codes.push(exit::for_api_error(&e));
                if args.json {
                    output::json_line(error_json(id, kind, &e));
                } else {
                    output::error(&format!("{id}: {}", super::explain(&e)));
                }
            }
        }
    }
    Ok(combine(codes))
}

/// One lookup, asked again while the service does not know the task and `grace` (counted
/// from `start`) has not passed.
async fn ask_within_grace(
    client: &Client,
    kind: TaskKind,
    id: &str,
    start: Instant,
    grace: Duration,
    settings: &config::Settings,
) -> Result<TaskResult, ApiError> {
    loop {
        match client.task_result(kind, id).await {
            Err(e) if unknown_task(&e) && start.elapsed() < grace => {
                let left = grace.saturating_sub(start.elapsed());
                tokio::time::sleep(settings.poll_interval.min(left)).await;
            }
            result => return result,
        }
    }
}

/// How one task's wait ended.
enum Ended {
    Done(TaskState),
    Error(ApiError),
}

impl Ended {
    fn code(&self) -> u8 {
        match self {
            Ended::Done(TaskState::Completed) => exit::OK,
            Ended::Done(_) => exit::TASK_FAILED,
            Ended::Error(err) => exit::for_api_error(err),
        }
    }
}

pub async fn wait(global: &Global, args: &WaitArgs) -> CliResult {
    let flag_interval = args
        .interval
        .map(|s| seconds_flag("--interval", s, config::POLL_FLOOR))
        .transpose()?;
    let flag_stall_after = args
        .stall_after
        .map(|s| seconds_flag("--stall-after", s, config::Seconds::<1000>::FLOOR))
        .transpose()?;
    let timeout = args
        .timeout
        .map(|s| span_flag("--timeout", s))
        .transpose()?;
    let grace = span_flag("--not-found-grace", args.not_found_grace)?;
    let settings = global.settings()?;
    let client = client_from(&settings)?;
    let id_width = id_width(&args.ids);
    let waiting = Waiting {
        client: &client,
        kind: TaskKind::from_video_flag(args.video),
        interval: flag_interval.unwrap_or(settings.poll_interval),
        stall_after: flag_stall_after
            .unwrap_or(settings.stall_after)
            .as_secs_f64(),
        start: Instant::now(),
        not_found_grace: grace,
        failure_statuses: &settings.failure_statuses,
        style: Style {
            json: args.json,
            id_width,
        },
    };
    let multi = (!args.json && output::stderr_is_terminal()).then(indicatif::MultiProgress::new);
    let bars: Vec<Option<indicatif::ProgressBar>> = args
        .ids
        .iter()
        .map(|id| multi.as_ref().map(|m| new_bar(m, id, id_width)))
        .collect();
    let mut waits: futures_util::stream::FuturesUnordered<_> = args
        .ids
        .iter()
        .zip(&bars)
        .enumerate()
        .map(|(i, (id, bar))| {
            let waiting = &waiting;
            async move { (i, wait_one(waiting, id, bar.clone()).await) }
        })
        .collect();
    let mut ended: Vec<Option<Ended>> = args.ids.iter().map(|_| None).collect();
    let all = async {
        while let Some((i, end)) = futures_util::StreamExt::next(&mut waits).await {
            let stop = args.fail_fast && end.code() != exit::OK;
            ended[i] = Some(end);
            if stop {
                break;
            }
        }
    };
    let timed_out = if let Some(limit) = timeout {
        tokio::time::timeout(limit, all).await.is_err()
    } else {
        all.await;
        false
    };
    drop(waits);
    // Bars of tasks still waited for keep their last line on screen, with why they stopped.
    let why = if timed_out {
        "gave up waiting"
    } else {
        "stopped by --fail-fast"
    };
    for bar in bars.iter().flatten().filter(|b| !b.is_finished()) {
        // Why it stopped stays whole: the status before it is what is cut to make room.
        let why = format!("  ({why})");
        bar.abandon_with_message(fitted(id_width, &bar.message(), &why, stderr_columns()));
    }
    if timed_out {
        let t = args.timeout.unwrap_or_default();
        if args.json {
            output::json_line(json!({"event": "timeout", "after_seconds": t}));
        }
        return Err(Failure::new(
            exit::TIMED_OUT,
            format!("gave up waiting after {t}s"),
        ));
    }
    let codes = args.ids.iter().zip(&ended).filter_map(|(id, e)| {
        let e = e.as_ref()?;
        if let (Ended::Error(err), false) = (e, args.json) {
            output::error(&format!("{id}: {}", super::explain(err)));
        }
        Some(e.code())
    });
    Ok(combine(codes.collect::<Vec<_>>()))
}

/// A task's progress bar in `multi`, its prefix the ID in a column of `id_width`.
fn new_bar(multi: &indicatif::MultiProgress, id: &str, id_width: usize) -> indicatif::ProgressBar {
    let bar = multi.add(indicatif::ProgressBar::new(100));
    bar.set_style(
        indicatif::ProgressStyle::with_template("{prefix:.bold} [{bar:30}] {pos:>3}% {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_prefix(bar_prefix(id, id_width));
    bar
}

/// Columns of a bar's line before its message: the ID, ` [`, the 30-column bar, `] `, `100%`
/// and a space.
const BAR_BEFORE_MESSAGE: usize = 2 + 30 + 2 + 4 + 1;

/// Says `text` on `bar`, cut with `…` to what is left of the terminal's width after the ID and
/// the bar, so a long status or error never wraps the line (indicatif would then redraw the
/// wrong lines). The width is asked each time: the terminal may have been resized.
fn say(bar: &indicatif::ProgressBar, id_width: usize, text: &str) {
    bar.set_message(fitted(id_width, text, "", stderr_columns()));
}

/// `text` then `tail` as a bar's message in a terminal `columns` wide (unknown: whole), `text`
/// cut with `…` where both do not fit.
fn fitted(id_width: usize, text: &str, tail: &str, columns: Option<usize>) -> String {
    let text = output::sanitize_line(text);
    match columns {
        // The last column is left empty: a terminal wraps a line that reaches it.
        Some(columns) => {
            let room = columns.saturating_sub(id_width + BAR_BEFORE_MESSAGE + 1);
            let tail = crate::fit::cut(tail, room);
            let text = crate::fit::cut(&text, room - crate::fit::width(&tail));
            format!("{text}{tail}")
        }
        None => format!("{text}{tail}"),
    }
}

/// The width of the terminal the bars are drawn on (standard error), when it is one.
fn stderr_columns() -> Option<usize> {
    rustix::termios::tcgetwinsize(std::io::stderr())
        .ok()
        .map(|size| usize::from(size.ws_col))
        .filter(|&columns| columns > 0)
}

async fn wait_one(w: &Waiting<'_>, id: &str, bar: Option<indicatif::ProgressBar>) -> Ended {
    let mut rng = rand::rngs::StdRng::from_os_rng();
    let mut failures = 0u32;
    let mut last: Option<(String, u8, Option<String>)> = None;
    let mut pace = Pace::default();
    let mut said_unknown = false;
    loop {
        let delay = match w.client.task_result(w.kind, id).await {
            Ok(t) => {
                failures = 0;
                let state = classify(&t.status, w.failure_statuses);
                let reading = (state == TaskState::Running).then(|| {
                    let at = w.start.elapsed().as_secs_f64();
                    pace.observe(at, t.percent, w.stall_after)
                });
                let now = (t.status.clone(), t.percent, t.url_download.clone());
                let changed = last.as_ref() != Some(&now);
                let turned = reading.is_some_and(|r| r.turn.is_some());
                if let Some(b) = &bar {
                    // Every poll: the ETA counts down between changes.
                    b.set_position(u64::from(t.percent));
                    say(
                        b,
                        w.style.id_width,
                        &bar_message(&t, state, reading.as_ref()),
                    );
                } else if changed || turned {
                    report(id, &t, state, reading.as_ref(), w.style, changed);
                }
                last = Some(now);
                if state != TaskState::Running {
                    if let Some(b) = &bar {
                        b.finish();
                    }
                    return Ended::Done(state);
                }
                w.interval
            }
            Err(e) if unknown_task(&e) && w.start.elapsed() < w.not_found_grace => {
                let grace = w.not_found_grace.as_secs_f64();
                let note = format!("not found yet; asking again until {grace}s have passed");
                if let Some(b) = &bar {
                    say(b, w.style.id_width, &note);
                } else if !said_unknown {
                    if w.style.json {
                        let mut v = error_json(id, w.kind, &e);
                        v["retry_in_ms"] = json!(w.interval.as_millis() as u64);
                        output::json_line(v);
                    } else {
                        output::note(&format!("{id}: {note}"));
                    }
                }
                said_unknown = true;
                w.interval
            }
            Err(e) if e.is_retryable() => {
                failures += 1;
                let delay = retry_delay(failures, e.retry_after(), &mut rng).max(w.interval);
                let text = format!(
                    "{} (retrying in {})",
                    super::explain(&e),
                    crate::fmt::countdown(delay.as_secs_f64().ceil() as u64)
                );
                if w.style.json {
                    let mut v = error_json(id, w.kind, &e);
                    v["retry_in_ms"] = json!(delay.as_millis() as u64);
                    output::json_line(v);
                } else if let Some(b) = &bar {
                    say(b, w.style.id_width, &text);
                } else {
                    // Not an `error:`: the wait goes on, and may yet end well.
                    output::note(&format!("{id}: {text}"));
                }
                delay
            }
            Err(e) => {
                if w.style.json {
                    output::json_line(error_json(id, w.kind, &e));
                }
                if let Some(b) = &bar {
                    say(b, w.style.id_width, &super::explain(&e));
                    b.abandon();
                }
                return Ended::Error(e);
            }
        };
        tokio::time::sleep(delay).await;
    }
}

/// Prints a change as a JSON event or as lines; `reading` is there while the task runs.
fn report(
    id: &str,
    t: &TaskResult,
    state: TaskState,
    reading: Option<&Reading>,
    style: Style,
    changed: bool,
) {
    if style.json {
        let mut v = task_json(t);
        v["state"] = json!(state);
        if let Some(r) = reading {
            v["eta_seconds"] = json!(r.eta);
            v["stalled"] = json!(r.stalled);
        }
        output::json_line(v);
        return;
    }
    if let Some(turn) = reading.and_then(|r| r.turn) {
        output::line(&turn_text(id, turn));
    }
    if changed {
        output::line(&wait_line(t, style.id_width, reading));
    }
}

use rand::SeedableRng as _;

#[cfg(test)]
mod tests {
    use super::*;

    fn task(status: &str, percent: u8, url: Option<&str>) -> TaskResult {
        TaskResult {
            task_id: "sim-x".into(),
            kind: TaskKind::Image,
            status: status.into(),
            percent,
            total_tasks: Some(1),
            url_download: url.map(Into::into),
            envelope: crate::api::types::Envelope::default(),
            extra: None,
        }
    }

    fn reading(eta: Option<u64>, stalled: bool) -> Reading {
        Reading {
            eta,
            stalled,
            turn: None,
        }
    }

    #[test]
    fn a_pace_turns_stalled_once_and_moving_once() {
        let mut pace = Pace::default();
        let seen: Vec<Reading> = [(0.0, 40), (2.0, 40), (5.0, 40), (9.0, 40), (10.0, 45)]
            .into_iter()
            .map(|(at, percent)| pace.observe(at, percent, 5.0))
            .collect();
        let turns: Vec<Option<Turn>> = seen.iter().map(|r| r.turn).collect();
        assert_eq!(
            turns,
            [
                None,
                None,
                Some(Turn::Stalled {
                    percent: 40,
                    still_for: 5
                }),
                None,
                Some(Turn::Moving { percent: 45 }),
            ]
        );
        let stalled: Vec<bool> = seen.iter().map(|r| r.stalled).collect();
        assert_eq!(stalled, [false, false, true, true, false]);
    }

    #[test]
    fn a_pace_s_eta_is_the_estimator_s() {
        let mut pace = Pace::default();
        let etas: Vec<Option<u64>> = [(0.0, 10), (10.0, 20), (20.0, 30), (25.0, 30)]
            .into_iter()
            .map(|(at, percent)| pace.observe(at, percent, 300.0).eta)
            .collect();
        assert_eq!(etas, [None, None, Some(70), Some(65)]);
    }

    #[test]
    fn turn_lines() {
        assert_eq!(
            turn_text(
                "sim-x",
                Turn::Stalled {
                    percent: 40,
                    still_for: 300
                }
            ),
            "sim-x stalled at 40% (no progress for 5m)"
        );
        assert_eq!(
            turn_text(
                "sim-x",
                Turn::Stalled {
                    percent: 0,
                    still_for: 1
                }
            ),
            "sim-x stalled at 0% (no progress for 1s)"
        );
        assert_eq!(
            turn_text("sim-x", Turn::Moving { percent: 45 }),
            "sim-x moving again: 45%"
        );
    }

    #[test]
    fn pace_texts() {
        assert_eq!(pace_text(&reading(None, false)), "");
        assert_eq!(pace_text(&reading(Some(45), false)), "eta ~45s");
        assert_eq!(pace_text(&reading(None, true)), "stalled");
        assert_eq!(pace_text(&reading(Some(3900), true)), "eta ~1h05m, stalled");
    }

    #[test]
    fn wait_lines_keep_the_status_columns_and_add_the_pace() {
        let t = task("IN_PROGRESS", 20, None);
        let columns = plain(&t, 7);
        assert_eq!(wait_line(&t, 7, None), columns);
        assert_eq!(wait_line(&t, 7, Some(&reading(None, false))), columns);
        assert_eq!(
            wait_line(&t, 7, Some(&reading(Some(8), false))),
            format!("{columns}  eta ~8s")
        );
    }

    #[test]
    fn bar_messages() {
        let running = task("IN_PROGRESS", 20, None);
        assert_eq!(
            bar_message(&running, TaskState::Running, Some(&reading(None, false))),
            "IN_PROGRESS"
        );
        assert_eq!(
            bar_message(
                &running,
                TaskState::Running,
                Some(&reading(Some(170), true))
            ),
            "IN_PROGRESS  eta ~3m, stalled"
        );
        let done = task("COMPLETED", 100, Some("http://127.0.0.1/x.png"));
        assert_eq!(
            bar_message(&done, TaskState::Completed, None),
            "COMPLETED http://127.0.0.1/x.png"
        );
    }

    #[test]
    fn seconds_flags() {
        assert_eq!(
            seconds_flag("--interval", 0.2, config::POLL_FLOOR).ok(),
            Some(Duration::from_millis(200))
        );
        assert_eq!(
            seconds_flag("--stall-after", 1.5, Duration::from_secs(1)).ok(),
            Some(Duration::from_millis(1500))
        );
        for (flag, secs, floor, said) in [
            (
                "--interval",
                0.0,
                config::POLL_FLOOR,
                "--interval: 0 is too short: it must be at least 0.2 seconds",
            ),
            (
                "--interval",
                0.1,
                config::POLL_FLOOR,
                "--interval: 0.1 is too short: it must be at least 0.2 seconds",
            ),
            (
                "--stall-after",
                0.0,
                Duration::from_secs(1),
                "--stall-after: 0 is too short: it must be at least 1 second",
            ),
            (
                "--stall-after",
                1e12,
                Duration::from_secs(1),
                "--stall-after: 1000000000000 is too long: it must be at most 86400 seconds (a day)",
            ),
            (
                "--x",
                f64::NAN,
                Duration::from_secs(1),
                "--x: not a number of seconds",
            ),
        ] {
            let e = seconds_flag(flag, secs, floor).expect_err("refused");
            assert_eq!(e.code, exit::USAGE);
            assert_eq!(e.message, said);
        }
        assert_eq!(span_flag("--timeout", 0.0).ok(), Some(Duration::ZERO));
        assert!(span_flag("--timeout", -1.0).is_err());
    }

    #[test]
    fn statuses_are_shown_whole_and_padded_when_short() {
        let long = task("WAITING_FOR_A_FREE_GPU_IN_REGION_EU", 5, None);
        let line = plain(&long, 7);
        assert!(
            line.contains("WAITING_FOR_A_FREE_GPU_IN_REGION_EU    5%"),
            "{line}"
        );
        let short = plain(&task("QUEUED", 0, None), 7);
        let running = plain(&task("IN_PROGRESS", 10, None), 7);
        assert_eq!(short.find('%'), running.find('%'), "{short}\n{running}");
    }

    #[test]
    fn bar_prefixes_are_one_width_whatever_the_ids() {
        let ids: Vec<String> = ["a", "sim-2-quite-a-long-id", "画像-1"]
            .map(String::from)
            .to_vec();
        let width = id_width(&ids);
        let widths: Vec<usize> = ids
            .iter()
            .map(|i| unicode_width::UnicodeWidthStr::width(bar_prefix(i, width).as_str()))
            .collect();
        assert_eq!(widths, [21, 21, 21]);
    }

    #[test]
    fn codes_combine_error_then_failed_then_running() {
        assert_eq!(combine([exit::RUNNING, exit::OK]), exit::RUNNING);
        assert_eq!(
            combine([exit::RUNNING, exit::TASK_FAILED, exit::OK]),
            exit::TASK_FAILED
        );
        assert_eq!(
            combine([exit::RUNNING, exit::NOT_FOUND, exit::TASK_FAILED]),
            exit::NOT_FOUND
        );
        assert_eq!(combine([exit::OK, exit::OK]), exit::OK);
    }
}
