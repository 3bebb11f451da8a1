//! `on_complete`: a program the user names, run without a shell when a watched task finishes.
//! Each argument's placeholders are replaced by the task's (sanitised) values, one argument
//! staying one argument whatever the values hold. At most `MAX_RUNNING` run at once, each for
//! at most `TIMEOUT`; what they print goes to the log, and a failure is reported to the App,
//! which says so once. Nothing a hook does can stop the dashboard.
//!
//! `on_all_done` runs the same way, once when the last running task finished, with the run's
//! counts (`{completed}`, `{failed}`, `{count}`), after every `on_complete` started before it
//! has ended.

use crate::api::sanitize::sanitize;
use crate::cmd::{AllDone, Finished};
use crate::msg::Msg;
use crate::store::config::fill;
use crate::store::program;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedRwLockReadGuard, RwLock, Semaphore, mpsc};
use tokio::task::JoinHandle;

pub const MAX_RUNNING: usize = 4;
pub const TIMEOUT: Duration = Duration::from_secs(30);
/// How much of a hook's output reaches the log.
const LOGGED: usize = 2000;

/// The App's handle on `on_complete`: each finished task's run is its own task, waiting for one
/// of the slots.
#[derive(Clone)]
pub struct Handle {
    /// The key it was configured by, for its messages.
    name: &'static str,
    argv: Arc<[String]>,
    slots: Arc<Semaphore>,
    timeout: Duration,
    msgs: mpsc::Sender<Msg>,
    /// Each `on_complete` run reads it while it runs; `on_all_done` waits to write it, so it
    /// starts once those started before it ended.
    order: Arc<RwLock<()>>,
}

/// Where a run stands in the order of `on_complete` and `on_all_done`.
enum Turn {
    /// An `on_complete`, holding its place from the moment it was asked for (`None` when an
    /// `on_all_done` waits already: it runs after it).
    Complete(Option<OwnedRwLockReadGuard<()>>),
    /// `on_all_done`: after every `on_complete` asked for before it.
    AllDone,
}

/// Runs `argv` for each finished task, at most `MAX_RUNNING` at once, each for at most
/// `TIMEOUT`.
pub fn spawn(argv: Vec<String>, msgs: mpsc::Sender<Msg>) -> Handle {
    spawn_limited(argv, MAX_RUNNING, TIMEOUT, msgs)
}

/// As `spawn`, with `running` at once, each for at most `timeout`.
pub fn spawn_limited(
    argv: Vec<String>,
    running: usize,
    timeout: Duration,
    msgs: mpsc::Sender<Msg>,
) -> Handle {
    Handle {
        name: "on_complete",
        argv: argv.into(),
        slots: Arc::new(Semaphore::new(running)),
        timeout,
        msgs,
        order: Arc::default(),
    }
}

/// `on_all_done`'s handle: `argv` run as `on_complete`'s, at most `MAX_RUNNING` at once, each
/// after the runs of `on_complete` (`after`) asked for before it.
pub fn spawn_all_done(
    argv: Vec<String>,
    after: Option<&Handle>,
    msgs: mpsc::Sender<Msg>,
) -> Handle {
    let spawned = spawn(argv, msgs);
    Handle {
        name: "on_all_done",
        order: after.map_or(spawned.order.clone(), |h| h.order.clone()),
        ..spawned
    }
}

impl Handle {
    /// Runs `on_all_done` with the run's counts (`Cmd::AllDone`) once a slot is free.
    pub fn run_all_done(&self, run: AllDone) -> JoinHandle<()> {
        let args = fill(&self.argv, |name| {
            Some(match name {
                "completed" => run.completed.to_string(),
                "failed" => run.failed.to_string(),
                "count" => run.count.to_string(),
                _ => return None,
            })
        });
        self.start(Turn::AllDone, move || args)
    }

    /// Runs the arguments `args` makes once a slot is free; a failure is told to the App.
    fn start(
        &self,
        turn: Turn,
        args: impl FnOnce() -> Vec<String> + Send + 'static,
    ) -> JoinHandle<()> {
        let (slots, name) = (self.slots.clone(), self.name);
        let (timeout, msgs, order) = (self.timeout, self.msgs.clone(), self.order.clone());
        tokio::spawn(async move {
            let _running = match turn {
                Turn::Complete(Some(place)) => Some(place),
                Turn::Complete(None) => Some(order.read_owned().await),
                Turn::AllDone => {
                    drop(order.write().await);
                    None
                }
            };
            let args = args();
            let Ok(_slot) = slots.acquire_owned().await else {
                return;
            };
            if let Err(why) = run_one(name, &args, timeout).await {
                tracing::warn!("{why}");
                let _ = msgs.send(Msg::HookFailed(why.to_string())).await;
            }
        })
    }

    /// Runs the hook for `task` (`Cmd::Finished`) once a slot is free.
    pub fn run(&self, task: Finished) -> JoinHandle<()> {
        if let (None, Some(why)) = (&task.file, &task.no_file) {
            tracing::info!(
                "on_complete for {}: {{file}} is empty: {}",
                sanitize(&task.task_id),
                sanitize(why)
            );
        }
        let argv = self.argv.clone();
        let place = self.order.clone().try_read_owned().ok();
        self.start(Turn::Complete(place), move || arguments(&argv, &task))
    }
}

/// Why a hook did not run to a good end; each names the hook (`on_complete`, `on_all_done`)
/// and its program (sanitised).
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    #[error("{hook}: {source}")]
    Program {
        hook: &'static str,
        source: program::ProgramError,
    },
    #[error("{hook}: {program} failed ({status})")]
    Failed {
        hook: &'static str,
        program: String,
        status: std::process::ExitStatus,
    },
}

async fn run_one(hook: &'static str, args: &[String], timeout: Duration) -> Result<(), HookError> {
    let ran = program::run(args, timeout)
        .await
        .map_err(|source| HookError::Program { hook, source })?;
    ran.log(hook, LOGGED);
    if ran.status.success() {
        Ok(())
    } else {
        Err(HookError::Failed {
            hook,
            program: ran.program,
            status: ran.status,
        })
    }
}

/// The hook's arguments for `task`: each `{placeholder}` replaced by its value, in one pass
/// (a value holding `{file}` stays as it is).
pub fn arguments(argv: &[String], task: &Finished) -> Vec<String> {
    let value = |name: &str| -> Option<String> {
        Some(match name {
            "task_id" => sanitize(&task.task_id),
            "kind" => task.kind.as_str().to_string(),
            "status" => sanitize(&task.status),
            "percent" => task.percent.to_string(),
            "url" => task.url.as_deref().map(sanitize).unwrap_or_default(),
            "file" => task
                .file
                .as_ref()
                .map(|p| sanitize(&p.to_string_lossy()))
                .unwrap_or_default(),
            "label" => task.label.as_deref().map(sanitize).unwrap_or_default(),
            _ => return None,
        })
    };
    fill(argv, value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::TaskKind;

    fn finished(id: &str) -> Finished {
        Finished {
            task_id: id.into(),
            kind: TaskKind::Image,
            status: "COMPLETED".into(),
            percent: 100,
            url: Some("http://127.0.0.1:1/files/a.png".into()),
            file: None,
            no_file: Some("auto_download is off for it".into()),
            status_failed: false,
            label: None,
        }
    }

    #[test]
    fn the_label_is_an_argument_of_its_own_sanitised() {
        let task = Finished {
            label: Some("sunset\u{1b}[2J v2".into()),
            ..finished("t")
        };
        assert_eq!(
            arguments(&argv(&["x", "[{label}]"]), &task),
            ["x", "[sunset v2]"]
        );
        assert_eq!(arguments(&argv(&["{label}"]), &finished("t")), [""]);
    }

    fn argv(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| (*a).to_string()).collect()
    }

    #[test]
    fn placeholders_fill_arguments_and_never_split_them() {
        let args = arguments(
            &argv(&[
                "notify-send",
                "gendash",
                "{task_id} {status}",
                "{kind}:{percent}%",
                "{url}",
                "[{file}]",
                "{unknown} {",
            ]),
            &finished("a b;$(id)'\"{file}"),
        );
        assert_eq!(
            args,
            [
                "notify-send",
                "gendash",
                "a b;$(id)'\"{file} COMPLETED",
                "image:100%",
                "http://127.0.0.1:1/files/a.png",
                "[]",
                "{unknown} {",
            ]
        );
        let mut with_file = finished("x\u{1b}]0;t\u{7}y");
        with_file.file = Some("/tmp/out dir/x.png".into());
        assert_eq!(
            arguments(&argv(&["{task_id}", "{file}"]), &with_file),
            ["xy", "/tmp/out dir/x.png"]
        );
    }

    /// A recording program: its arguments arrive exactly, with no shell between.
    #[tokio::test]
    async fn the_program_gets_its_arguments_exactly() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("args.json");
        let (tx, mut rx) = mpsc::channel(4);
        let hooks = spawn(
            argv(&[
                "python3",
                "-c",
                "import json,sys; open(sys.argv[1],'w').write(json.dumps(sys.argv[2:]))",
                &out.to_string_lossy(),
                "{task_id}",
                "; echo pwned",
                "$(id) `id` '\" |",
                "{status} {percent}",
            ]),
            tx,
        );
        hooks.run(finished("t-1")).await.expect("ran");
        let got: Vec<String> =
            serde_json::from_str(&std::fs::read_to_string(&out).expect("recorded")).expect("json");
        assert_eq!(
            got,
            ["t-1", "; echo pwned", "$(id) `id` '\" |", "COMPLETED 100"]
        );
        assert!(rx.try_recv().is_err(), "no failure reported");
    }

    /// `on_all_done`: the run's counts, each argument exactly; its failures named as its own.
    #[tokio::test]
    async fn all_done_gets_the_counts_exactly() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("args.json");
        let (tx, mut rx) = mpsc::channel(4);
        let hooks = spawn_all_done(
            argv(&[
                "python3",
                "-c",
                "import json,sys; open(sys.argv[1],'w').write(json.dumps(sys.argv[2:]))",
                &out.to_string_lossy(),
                "{completed}",
                "{failed} of {count}; $(id)",
                "{task_id}",
            ]),
            None,
            tx.clone(),
        );
        let run = AllDone {
            completed: 11,
            failed: 1,
            count: 12,
        };
        hooks.run_all_done(run).await.expect("ran");
        let got: Vec<String> =
            serde_json::from_str(&std::fs::read_to_string(&out).expect("recorded")).expect("json");
        assert_eq!(got, ["11", "1 of 12; $(id)", "{task_id}"]);
        assert!(rx.try_recv().is_err(), "no failure reported");
        spawn_all_done(argv(&["false"]), None, tx)
            .run_all_done(AllDone {
                completed: 1,
                failed: 0,
                count: 1,
            })
            .await
            .expect("ran");
        assert!(
            matches!(rx.try_recv(), Ok(Msg::HookFailed(s)) if s.starts_with("on_all_done: false failed")),
        );
    }

    /// `on_all_done` starts after every `on_complete` asked for before it has ended, however
    /// long that one takes.
    #[tokio::test]
    async fn on_all_done_runs_after_the_on_complete_runs_before_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("order.txt");
        let record = |word: &str, pause: &str| {
            argv(&[
                "sh",
                "-c",
                "sleep \"$2\"; echo \"$1\" >> \"$0\"",
                &out.to_string_lossy(),
                word,
                pause,
            ])
        };
        let (tx, _rx) = mpsc::channel(8);
        let complete = spawn(record("{task_id}", "0.6"), tx.clone());
        let all_done = spawn_all_done(record("all-done", "0"), Some(&complete), tx);
        let first = complete.run(finished("t-1"));
        let last = all_done.run_all_done(AllDone::default());
        for h in [first, last] {
            h.await.expect("ran");
        }
        assert_eq!(
            std::fs::read_to_string(&out).expect("recorded"),
            "t-1\nall-done\n"
        );
    }

    #[tokio::test]
    async fn failures_are_reported_and_slow_hooks_stopped() {
        let (tx, mut rx) = mpsc::channel(8);
        spawn(argv(&["/nonexistent/gendash-hook"]), tx.clone())
            .run(finished("a"))
            .await
            .expect("ran");
        spawn(argv(&["false"]), tx.clone())
            .run(finished("a"))
            .await
            .expect("ran");
        spawn_limited(argv(&["sleep", "30"]), 1, Duration::from_millis(100), tx)
            .run(finished("a"))
            .await
            .expect("ran");
        let said: Vec<String> = std::iter::from_fn(|| match rx.try_recv() {
            Ok(Msg::HookFailed(s)) => Some(s),
            _ => None,
        })
        .collect();
        assert_eq!(said.len(), 3, "{said:?}");
        assert!(
            said[0].contains("cannot run /nonexistent/gendash-hook"),
            "{said:?}"
        );
        assert!(said[1].contains("false failed"), "{said:?}");
        assert!(
            said[2].contains("sleep took longer than 0s and was stopped"),
            "{said:?}"
        );
    }

    /// Six hooks, four slots: never more than four at once.
    #[tokio::test]
    async fn at_most_four_run_at_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let script = "import os,sys,time\n\
            d=sys.argv[1]; me=os.path.join(d, sys.argv[2]); open(me,'w').close()\n\
            n=len([f for f in os.listdir(d) if not f.startswith('max')])\n\
            open(os.path.join(d,'max-'+str(n)),'w').close()\n\
            time.sleep(0.3); os.remove(me)\n";
        let (tx, _rx) = mpsc::channel(8);
        let hooks = spawn(
            argv(&[
                "python3",
                "-c",
                script,
                &dir.path().to_string_lossy(),
                "{task_id}",
            ]),
            tx,
        );
        let runs: Vec<_> = (0..6)
            .map(|i| hooks.run(finished(&format!("t{i}"))))
            .collect();
        for r in runs {
            r.await.expect("ran");
        }
        let most = std::fs::read_dir(dir.path())
            .expect("dir")
            .filter_map(|e| {
                e.ok()?
                    .file_name()
                    .to_str()?
                    .strip_prefix("max-")?
                    .parse::<usize>()
                    .ok()
            })
            .max()
            .expect("some ran");
        assert!((1..=MAX_RUNNING).contains(&most), "{most} at once");
    }
}
