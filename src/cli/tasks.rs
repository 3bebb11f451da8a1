//! `gendash status` and `gendash wait`.

use super::{CliResult, Failure, Global, client_from, output};
use crate::api::backoff::retry_delay;
use crate::api::types::{TaskState, classify};
use crate::api::{ApiError, Client, TaskKind, TaskResult};
use crate::cli::exit;
use crate::progress::{Progress, Seconds, format_eta};
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
        help = "Seconds between polls (default: poll_interval from the config, 2)"
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
    #[arg(required = true, value_name = "TASK_ID")]
    pub ids: Vec<String>,
}

/// The JSON shape of a task in `status --json` and `wait --json`.
pub fn task_json(t: &TaskResult) -> Value {
    json!({
        "task_id": t.task_id, "kind": t.kind.as_str(), "status": t.status, "percent": t.percent,
        "total_tasks": t.total_tasks, "url_download": t.url_download,
    })
}

pub fn error_json(id: &str, kind: TaskKind, e: &ApiError) -> Value {
    json!({"task_id": id, "kind": kind.as_str(), "error": e.to_string()})
}

/// One task on one line; `id_width` aligns the columns of several tasks.
fn plain(t: &TaskResult, id_width: usize) -> String {
    format!(
        "{:<5}  {}  {}  {:>3}%  {}",
        t.kind.as_str(),
        output::fit(&t.task_id, id_width),
        output::fit(&t.status, 12),
        t.percent,
        t.url_download.as_deref().unwrap_or("-")
    )
}

fn id_width(ids: &[String]) -> usize {
    ids.iter()
        .map(|i| i.chars().count())
        .max()
        .unwrap_or(7)
        .clamp(7, 40)
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

/// A flag's number of seconds, checked (at most a day, like the config's).
fn seconds_flag(flag: &str, secs: f64, zero_allowed: bool) -> Result<Duration, Failure> {
    if secs.is_finite() && (secs > 0.0 || (zero_allowed && secs == 0.0)) {
        Ok(Duration::from_secs_f64(secs.min(86_400.0)))
    } else {
        let what = if zero_allowed {
            "a non-negative"
        } else {
            "a positive"
        };
        Err(Failure::new(
            exit::USAGE,
            format!("{flag} must be {what} number of seconds"),
        ))
    }
}

/// Combines exit codes: the first error's code wins, then a failed task (5), else success.
fn combine(codes: impl IntoIterator<Item = u8>) -> u8 {
    let codes: Vec<u8> = codes.into_iter().collect();
    codes
        .iter()
        .copied()
        .find(|&c| c != exit::OK && c != exit::TASK_FAILED)
        .or_else(|| codes.iter().copied().find(|&c| c == exit::TASK_FAILED))
        .unwrap_or(exit::OK)
}

pub async fn status(global: &Global, args: &StatusArgs) -> CliResult {
    let settings = global.settings()?;
    let client = client_from(&settings)?;
    let kind = TaskKind::from_video_flag(args.video);
    let results =
        futures_util::future::join_all(args.ids.iter().map(|id| client.task_result(kind, id)))
            .await;
    let mut codes = Vec::new();
    for (id, result) in args.ids.iter().zip(results) {
        match result {
            Ok(t) => {
                codes.push(
                    if classify(&t.status, &settings.failure_statuses) == TaskState::Failed {
                        exit::TASK_FAILED
                    } else {
                        exit::OK
                    },
                );
                if args.json {
                    output::json_line(task_json(&t));
                } else {
                    output::line(&plain(&t, id_width(&args.ids)));
                }
            }
            Err(e) => {
                codes.push(exit::for_api_error(&e));
                if args.json {
                    output::json_line(error_json(id, kind, &e));
                } else {
                    output::error(&format!("{id}: {e}"));
                }
            }
        }
    }
    Ok(combine(codes))
}

/// How one task's wait ended.
enum Ended {
    Done(TaskState),
    Error(ApiError),
}

pub async fn wait(global: &Global, args: &WaitArgs) -> CliResult {
    let settings = global.settings()?;
    let client = client_from(&settings)?;
    let interval = match args.interval {
        Some(s) => seconds_flag("--interval", s, true)?,
        None => settings.poll_interval,
    };
    let stall_after = match args.stall_after {
        Some(s) => seconds_flag("--stall-after", s, false)?,
        None => settings.stall_after,
    };
    let waiting = Waiting {
        client: &client,
        kind: TaskKind::from_video_flag(args.video),
        interval,
        stall_after: stall_after.as_secs_f64(),
        start: Instant::now(),
        failure_statuses: &settings.failure_statuses,
        style: Style {
            json: args.json,
            id_width: id_width(&args.ids),
        },
    };
    let bars = (!args.json && output::stderr_is_terminal()).then(indicatif::MultiProgress::new);
    let waits = args.ids.iter().map(|id| {
        let bar = bars.as_ref().map(|m| {
            let bar = m.add(indicatif::ProgressBar::new(100));
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{prefix:.bold} [{bar:30}] {pos:>3}% {msg}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar.set_prefix(output::sanitize_line(id));
            bar
        });
        wait_one(&waiting, id, bar)
    });
    let all = futures_util::future::join_all(waits);
    let ended = match args.timeout {
        Some(t) if t.is_finite() && t >= 0.0 => {
            if let Ok(ended) = tokio::time::timeout(Duration::from_secs_f64(t.min(1e9)), all).await
            {
                ended
            } else {
                if args.json {
                    output::json_line(json!({"event": "timeout", "after_seconds": t}));
                }
                return Err(Failure::new(
                    exit::TIMED_OUT,
                    format!("gave up waiting after {t}s"),
                ));
            }
        }
        Some(_) => {
            return Err(Failure::new(
                exit::USAGE,
                "--timeout must be a non-negative number of seconds",
            ));
        }
        None => all.await,
    };
    let codes = args.ids.iter().zip(&ended).map(|(id, e)| match e {
        Ended::Done(TaskState::Completed) => exit::OK,
        Ended::Done(_) => exit::TASK_FAILED,
        Ended::Error(err) => {
            if !args.json {
                output::error(&format!("{id}: {err}"));
            }
            exit::for_api_error(err)
        }
    });
    Ok(combine(codes))
}

async fn wait_one(w: &Waiting<'_>, id: &str, bar: Option<indicatif::ProgressBar>) -> Ended {
    let mut rng = rand::rngs::StdRng::from_os_rng();
    let mut failures = 0u32;
    let mut last: Option<(String, u8, Option<String>)> = None;
    let mut pace = Pace::default();
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
                    b.set_message(output::sanitize_line(&bar_message(
                        &t,
                        state,
                        reading.as_ref(),
                    )));
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
            Err(e) if e.is_retryable() => {
                failures += 1;
                let delay = retry_delay(failures, e.retry_after(), &mut rng).max(w.interval);
                if w.style.json {
                    let mut v = error_json(id, w.kind, &e);
                    v["retry_in_ms"] = json!(delay.as_millis() as u64);
                    output::json_line(v);
                } else if let Some(b) = &bar {
                    b.set_message(format!(
                        "{} (retrying in {}s)",
                        output::sanitize_line(&e.to_string()),
                        delay.as_secs()
                    ));
                } else {
                    output::error(&format!("{id}: {e} (retrying in {}s)", delay.as_secs()));
                }
                delay
            }
            Err(e) => {
                if w.style.json {
                    output::json_line(error_json(id, w.kind, &e));
                }
                if let Some(b) = &bar {
                    b.abandon_with_message(output::sanitize_line(&e.to_string()));
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
            seconds_flag("--interval", 0.0, true).ok(),
            Some(Duration::ZERO)
        );
        assert_eq!(
            seconds_flag("--stall-after", 1.5, false).ok(),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            seconds_flag("--stall-after", 1e12, false).ok(),
            Some(Duration::from_secs(86_400))
        );
        for (secs, zero_allowed) in [(0.0, false), (-1.0, true), (f64::NAN, true)] {
            let e = seconds_flag("--x", secs, zero_allowed).expect_err("refused");
            assert_eq!(e.code, exit::USAGE);
            assert!(e.message.starts_with("--x must be"), "{}", e.message);
        }
    }
}
