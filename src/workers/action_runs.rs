//! `[[actions]]`: the user's own commands, run on demand on the rows the App filled them for
//! (`Cmd::RunAction`). Each run is a task of its own, its commands one after another, so an
//! action never blocks the dashboard, nor another action. Each command is run as the hooks'
//! are (`program`: no shell, no token, its own process group, `action_timeout`); its end is
//! told to the App (exit code and last line, `Msg::ActionEnded`) and recorded in the request
//! log (a `RUN` row: the command line, exit code, time, bytes written), its output in the log.

use crate::api::recording::{
    RUN_METHOD, RUN_OUTPUT_CHARS, RUN_OUTPUT_LINES, RequestRecord, shell_quote,
};
use crate::api::sanitize::sanitize;
use crate::cmd::ActionRun;
use crate::msg::{ActionEnded, Msg};
use crate::store::program;
use std::time::{Duration, Instant, SystemTime};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// How much of an action's output reaches the log.
const LOGGED: usize = 4000;

/// The App's handle on the actions: how long each command may take, and where ends are told.
#[derive(Clone)]
pub struct Handle {
    timeout: Duration,
    msgs: mpsc::Sender<Msg>,
}

pub fn spawn(timeout: Duration, msgs: mpsc::Sender<Msg>) -> Handle {
    Handle { timeout, msgs }
}

impl Handle {
    /// How long each command may take.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Runs `run`'s commands in turn, each told as it ends.
    pub fn run(&self, run: ActionRun) -> JoinHandle<()> {
        let (timeout, msgs) = (self.timeout, self.msgs.clone());
        tokio::spawn(async move {
            let count = run.runs.len();
            for (n, (rows, args)) in run.runs.into_iter().enumerate() {
                let (ended, record) = run_one(&run.name, &args, timeout).await;
                let _ = msgs.send(Msg::Request(record)).await;
                let _ = msgs
                    .send(Msg::ActionEnded(ActionEnded {
                        id: run.id,
                        name: run.name.clone(),
                        rows,
                        outcome: ended,
                        last: n + 1 == count,
                    }))
                    .await;
            }
        })
    }
}

/// Runs one command: how it ended (see `ActionEnded::outcome`) and its request log row.
pub async fn run_one(
    name: &str,
    args: &[String],
    timeout: Duration,
) -> (Result<(Option<i32>, Option<String>), String>, RequestRecord) {
    let (at, started) = (SystemTime::now(), Instant::now());
    let ran = program::run(args, timeout).await;
    let line: Vec<String> = args.iter().map(|a| shell_quote(&sanitize(a))).collect();
    let mut record = RequestRecord {
        at,
        method: RUN_METHOD,
        url: line.join(" "),
        authorized: false,
        status: None,
        error: None,
        duration: started.elapsed(),
        bytes: 0,
        output: None,
    };
    let ended = match ran {
        Ok(ran) => {
            ran.log(&format!("action {}", sanitize(name)), LOGGED);
            let code = ran.status.code();
            let last = ran.last_line();
            record.status = code.and_then(|c| u16::try_from(c).ok());
            record.bytes = (ran.stdout.len() + ran.stderr.len()) as u64;
            record.output = ran.tail(RUN_OUTPUT_LINES, RUN_OUTPUT_CHARS);
            if code != Some(0) {
                record.error = Some(match (&last, code) {
                    (Some(l), _) => l.clone(),
                    (None, Some(c)) => format!("exit {c}"),
                    (None, None) => format!("{}", ran.status),
                });
            }
            Ok((code, last))
        }
        Err(why) => {
            tracing::warn!("action {}: {why}", sanitize(name));
            record.error = Some(why.to_string());
            Err(why.to_string())
        }
    };
    (ended, record)
}

#[cfg(test)]
#[path = "action_runs_tests.rs"]
mod tests;
