//! `gendash status` and `gendash wait`.

use super::{CliResult, Failure, Global, client_from, output};
use crate::api::backoff::retry_delay;
use crate::api::types::{TaskState, classify};
use crate::api::{ApiError, Client, TaskKind, TaskResult};
use crate::cli::exit;
use serde_json::{Value, json};
use std::time::Duration;

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
    /// Seconds between polls (default: `poll_interval` from the config, 2).
    #[arg(long, value_name = "SECS")]
    pub interval: Option<f64>,
    /// Give up after this many seconds (exit code 6).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
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
    let kind = TaskKind::from_video_flag(args.video);
    let interval = match args.interval {
        Some(s) if s.is_finite() && s >= 0.0 => Duration::from_secs_f64(s.min(86_400.0)),
        Some(_) => {
            return Err(Failure::new(
                exit::USAGE,
                "--interval must be a non-negative number of seconds",
            ));
        }
        None => settings.poll_interval,
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
        wait_one(
            &client,
            kind,
            id,
            interval,
            &settings.failure_statuses,
            Style {
                json: args.json,
                id_width: id_width(&args.ids),
            },
            bar,
        )
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

async fn wait_one(
    client: &Client,
    kind: TaskKind,
    id: &str,
    interval: Duration,
    failure_statuses: &[String],
    style: Style,
    bar: Option<indicatif::ProgressBar>,
) -> Ended {
    let mut rng = rand::rngs::StdRng::from_os_rng();
    let mut failures = 0u32;
    let mut last: Option<(String, u8, Option<String>)> = None;
    loop {
        let delay = match client.task_result(kind, id).await {
            Ok(t) => {
                failures = 0;
                let state = classify(&t.status, failure_statuses);
                let now = (t.status.clone(), t.percent, t.url_download.clone());
                if last.as_ref() != Some(&now) {
                    report(&t, state, style, bar.as_ref());
                    last = Some(now);
                }
                if state != TaskState::Running {
                    if let Some(b) = &bar {
                        b.finish();
                    }
                    return Ended::Done(state);
                }
                interval
            }
            Err(e) if e.is_retryable() => {
                failures += 1;
                let delay = retry_delay(failures, e.retry_after(), &mut rng).max(interval);
                if style.json {
                    let mut v = error_json(id, kind, &e);
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
                if style.json {
                    output::json_line(error_json(id, kind, &e));
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

fn report(t: &TaskResult, state: TaskState, style: Style, bar: Option<&indicatif::ProgressBar>) {
    if style.json {
        let mut v = task_json(t);
        v["state"] = json!(state);
        output::json_line(v);
    } else if let Some(b) = bar {
        b.set_position(u64::from(t.percent));
        b.set_message(output::sanitize_line(&match &t.url_download {
            Some(u) if state == TaskState::Completed => format!("{} {u}", t.status),
            _ => t.status.clone(),
        }));
    } else {
        output::line(&plain(t, style.id_width));
    }
}

use rand::SeedableRng as _;
