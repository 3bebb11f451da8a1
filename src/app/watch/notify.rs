//! The notification policy (`notify`, `notify_on_stall`, `on_all_done`), pure: what happened to
//! the watched tasks goes in with the reducer's clock, the notices to send (each with its bell)
//! and the `on_all_done` run come out. Nothing here knows the terminal.
//!
//! - `each`: every finish this dashboard claimed is told; those within `WINDOW` seconds of the
//!   first make one notice (`3 completed, 1 failed`), sent when the window closes.
//! - `batch`: one notice when the last running task finishes (`all 12 done · 1 failed`).
//! - `failures`: failed tasks only, windowed like `each`.
//! - `off`: nothing.
//!
//! A task that stalls is told once (with `notify_on_stall`, in every policy but `off`, windowed
//! with the rest), and again only after it moved and stalled anew. The end of a run (nothing
//! runs any more) brings `on_all_done`, whatever the policy; its counts are the finishes seen
//! since the last run ended, claimed here or by another dashboard. Which dashboard ends the run
//! is the watch list file's to say (`Msg::RunEnded`): the one whose write left no task running,
//! under the file's lock, so exactly one of them does.

use super::{Row, Watch};
use crate::api::types::TaskState;
use crate::cmd::{AllDone, TaskKey};
use crate::store::config::NotifyPolicy;
use std::collections::BTreeSet;

/// Finishes within this many seconds of the first make one notice.
pub const WINDOW: u64 = 2;

/// How the policy is configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub policy: NotifyPolicy,
    pub on_stall: bool,
}

impl Settings {
    /// The resolved `notify` and `notify_on_stall` (their defaults are the config schema's).
    pub fn of(config: &crate::store::config::Settings) -> Self {
        Settings {
            policy: config.notify,
            on_stall: config.notify_on_stall,
        }
    }
}

/// What befell a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum What {
    Completed,
    Failed,
    Stalled,
}

/// One thing that may be told: what, and the task's line for a notice of its own
/// (`image t-1 — COMPLETED`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub what: What,
    pub line: String,
}

/// A notification to send (and ring the bell for, with `bell`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub title: String,
    pub body: String,
}

/// What the policy asks for now.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Out {
    pub notices: Vec<Notice>,
    /// Run `on_all_done` with these counts.
    pub all_done: Option<AllDone>,
}

#[derive(Debug)]
pub struct Notifier {
    pub settings: Settings,
    /// Events waiting for their window to close, and when it opened.
    window: Vec<Event>,
    opened: Option<u64>,
    /// Finishes seen since the last run ended.
    run: AllDone,
    /// The tasks told stalled, until they move (or leave the running).
    stalled: BTreeSet<TaskKey>,
    /// The run that ended here, its `on_all_done` waiting for the ends this dashboard took
    /// on (a download, then `on_complete`).
    held: Option<AllDone>,
}

impl Notifier {
    pub fn new(settings: Settings) -> Self {
        Notifier {
            settings,
            window: Vec::new(),
            opened: None,
            run: AllDone::default(),
            stalled: BTreeSet::new(),
            held: None,
        }
    }

    /// A task finished while watched. `ours`: this dashboard claimed its finish (only those
    /// are told).
    pub fn finished(&mut self, event: Event, ours: bool, now: u64) {
        let failed = event.what == What::Failed;
        self.run.count += 1;
        if failed {
            self.run.failed += 1;
        } else {
            self.run.completed += 1;
        }
        let told = match self.settings.policy {
            NotifyPolicy::Each => true,
            NotifyPolicy::Failures => failed,
            NotifyPolicy::Batch | NotifyPolicy::Off => false,
        };
        if ours && told {
            self.hold(event, now);
        }
    }

    /// The run ended: nothing on the list runs any more. `here`: this dashboard's write to the
    /// watch list file ended it, so it tells it (`batch`) and runs `on_all_done`; else another
    /// dashboard does, and the counts start again here too. A run of no finish seen while
    /// watched (every task found finished) is not told. `on_all_done` comes after every end
    /// taken on here: with `ends_waiting` (a download, its `on_complete` after it), it waits
    /// for `settled`.
    pub fn run_ended(&mut self, here: bool, ends_waiting: bool) -> Out {
        let run = std::mem::take(&mut self.run);
        let mut out = Out::default();
        if here && run.count > 0 {
            if self.settings.policy == NotifyPolicy::Batch {
                out.notices.push(all_done_notice(run));
            }
            let held = self.held.take().unwrap_or_default();
            self.held = Some(AllDone {
                completed: held.completed + run.completed,
                failed: held.failed + run.failed,
                count: held.count + run.count,
            });
        }
        out.all_done = self.settled(|| ends_waiting);
        out
    }

    /// The held `on_all_done`, once no end taken on here waits any more. `ends_waiting` is
    /// asked only while one is held: it looks at every row, and this runs after every message
    /// (two per poll, a thousand a second at 1,000 tasks).
    pub fn settled(&mut self, ends_waiting: impl FnOnce() -> bool) -> Option<AllDone> {
        if self.held.is_none() || ends_waiting() {
            None
        } else {
            self.held.take()
        }
    }

    /// The clock moved: `stalled` are the tasks stalled now (each with its event). A task
    /// newly stalled is told once; one that moved may be told again when it stalls anew. Then
    /// the window is sent if it closed.
    pub fn tick(&mut self, stalled: Vec<(TaskKey, Event)>, now: u64) -> Out {
        let now_stalled: BTreeSet<TaskKey> = stalled.iter().map(|(k, _)| k.clone()).collect();
        let tells = self.settings.on_stall && self.settings.policy != NotifyPolicy::Off;
        for (key, event) in stalled {
            if !self.stalled.contains(&key) && tells {
                self.hold(event, now);
            }
        }
        self.stalled = now_stalled;
        self.flush(now)
    }

    /// When the waiting window closes, if one waits: the runtime's ticks must reach it.
    pub fn due(&self) -> Option<u64> {
        self.opened.map(|at| at + WINDOW)
    }

    fn hold(&mut self, event: Event, now: u64) {
        self.opened.get_or_insert(now);
        self.window.push(event);
    }

    /// The window's one notice, once it closed.
    fn flush(&mut self, now: u64) -> Out {
        let mut out = Out::default();
        if self.due().is_some_and(|due| now >= due) {
            self.opened = None;
            let events = std::mem::take(&mut self.window);
            out.notices.extend(window_notice(&events));
        }
        out
    }
}

/// Whether a row's task still runs, for the last finish and the terminal's progress: running
/// by its last answer, at a configured service that knows it.
pub fn runs(row: &Row) -> bool {
    row.state == TaskState::Running && !row.no_service && row.not_found().is_none()
}

/// The whole watch list's progress, for the terminal's tab or taskbar (OSC 9;4) and the window
/// title. Tasks the service does not know and those of no configured service are left out:
/// they go nowhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Overall {
    pub total: usize,
    /// Completed or failed.
    pub finished: usize,
    pub failed: usize,
    pub running: usize,
    /// The mean percent, a finished task counting 100, rounded down.
    pub percent: u8,
    /// Some running task has reported progress (a percent above 0).
    pub measured: bool,
}

/// The terminal's progress indicator (OSC 9;4's state and percent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bar {
    /// Nothing runs: no indicator (state 0).
    Remove,
    /// State 1, with the percent.
    Normal(u8),
    /// State 2: a task failed while others still run, with the percent.
    Error(u8),
    /// State 3: the running tasks have no percent yet.
    Indeterminate,
}

impl Overall {
    pub fn bar(&self) -> Bar {
        if self.running == 0 {
            Bar::Remove
        } else if self.failed > 0 {
            Bar::Error(self.percent)
        } else if !self.measured {
            Bar::Indeterminate
        } else {
            Bar::Normal(self.percent)
        }
    }

    /// The window title: `gendash · 5/8 · 62%`, only numbers and gendash's words (never a
    /// server's text); `gendash` alone for an empty list.
    pub fn title(&self) -> String {
        if self.total == 0 {
            "gendash".into()
        } else {
            format!(
                "gendash · {}/{} · {}%",
                self.finished, self.total, self.percent
            )
        }
    }
}

/// The whole list's progress (see `Overall`).
pub fn overall(watch: &Watch) -> Overall {
    let mut o = Overall::default();
    let mut sum = 0usize;
    for r in watch
        .rows
        .iter()
        .filter(|r| !r.no_service && r.not_found().is_none())
    {
        o.total += 1;
        match r.state {
            TaskState::Completed | TaskState::Failed => {
                o.finished += 1;
                o.failed += usize::from(r.state == TaskState::Failed);
                sum += 100;
            }
            TaskState::Running => {
                o.running += 1;
                o.measured |= r.percent() > 0;
                sum += usize::from(r.percent());
            }
        }
    }
    if let Some(mean) = sum.checked_div(o.total) {
        o.percent = u8::try_from(mean).unwrap_or(100);
    }
    o
}

/// One event told alone, as before windows: `gendash: task completed` / `image t-1 —
/// COMPLETED`; several as counts: `gendash` / `3 completed, 1 failed`.
fn window_notice(events: &[Event]) -> Option<Notice> {
    match events {
        [] => None,
        [one] => Some(Notice {
            title: match one.what {
                What::Completed => "gendash: task completed",
                What::Failed => "gendash: task failed",
                What::Stalled => "gendash: task stalled",
            }
            .into(),
            body: one.line.clone(),
        }),
        many => {
            let n = |w: What| many.iter().filter(|e| e.what == w).count();
            let parts: Vec<String> = [
                (n(What::Completed), "completed"),
                (n(What::Failed), "failed"),
                (n(What::Stalled), "stalled"),
            ]
            .into_iter()
            .filter(|(k, _)| *k > 0)
            .map(|(k, word)| format!("{k} {word}"))
            .collect();
            Some(Notice {
                title: "gendash".into(),
                body: parts.join(", "),
            })
        }
    }
}

/// `batch`'s notice: `all 12 done · 1 failed`.
fn all_done_notice(run: AllDone) -> Notice {
    let done = if run.count == 1 {
        "1 task done".to_string()
    } else {
        format!("all {} done", run.count)
    };
    let body = if run.failed > 0 {
        format!("{done} · {} failed", run.failed)
    } else {
        done
    };
    Notice {
        title: "gendash".into(),
        body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::config::NotifyPolicy::{Batch, Each, Failures, Off};

    const T: u64 = 1_000;

    fn notifier(policy: NotifyPolicy, on_stall: bool) -> Notifier {
        Notifier::new(Settings { policy, on_stall })
    }

    fn ev(what: What, id: &str) -> Event {
        Event {
            what,
            line: format!("image {id} — {what:?}"),
        }
    }

    fn key(id: &str) -> TaskKey {
        TaskKey::new(crate::api::TaskKind::Image, id)
    }

    fn bodies(out: &Out) -> Vec<String> {
        out.notices
            .iter()
            .map(|n| format!("{}: {}", n.title, n.body))
            .collect()
    }

    /// Feeds finishes (time, what, ours, last) and ticks every second to `until`; returns every
    /// notice told, with its time, and the `on_all_done` runs.
    fn run(
        n: &mut Notifier,
        finishes: &[(u64, What, bool, bool)],
        until: u64,
    ) -> (Vec<(u64, String)>, Vec<AllDone>) {
        let (mut told, mut done) = (Vec::new(), Vec::new());
        // As the runtime does: the tick moves the clock to `t`, then what is reported meanwhile.
        for t in T..=until {
            let out = n.tick(Vec::new(), t);
            told.extend(bodies(&out).into_iter().map(|b| (t, b)));
            for (i, &(at, what, ours, last)) in finishes.iter().enumerate() {
                if at == t {
                    n.finished(ev(what, &format!("t-{i}")), ours, t);
                    // The run ends after it, by the write of the dashboard that claimed it.
                    let out = if last {
                        n.run_ended(ours, false)
                    } else {
                        Out::default()
                    };
                    told.extend(bodies(&out).into_iter().map(|b| (t, b)));
                    done.extend(out.all_done);
                }
            }
        }
        (told, done)
    }

    use What::{Completed as C, Failed as F};

    fn watch(rows: &[(&str, Option<(&str, u8)>)]) -> Watch {
        let entries = rows
            .iter()
            .map(|(id, last)| crate::app::test_support::entry(id, *last))
            .collect();
        Watch::new(entries, crate::api::types::default_failure_statuses())
    }

    /// `settled` runs after every message: while no `on_all_done` is held it answers without
    /// asking whether ends wait (a look at every row); once one is held it asks, and holds it
    /// while they do.
    #[test]
    fn settled_asks_about_waiting_ends_only_while_a_run_is_held() {
        let mut n = notifier(Batch, false);
        let asked = std::cell::Cell::new(0);
        let waiting = |answer: bool| {
            let asked = &asked;
            move || {
                asked.set(asked.get() + 1);
                answer
            }
        };
        assert_eq!(n.settled(waiting(false)), None);
        assert_eq!(asked.get(), 0, "nothing held: the rows are not looked at");
        n.finished(ev(C, "a"), true, T);
        let out = n.run_ended(true, true);
        assert_eq!(out.all_done, None, "an end still waits");
        assert_eq!(n.settled(waiting(true)), None);
        assert_eq!(asked.get(), 1);
        let run = n
            .settled(waiting(false))
            .expect("told once the ends are under way");
        assert_eq!((run.count, run.completed), (1, 1));
        assert_eq!(asked.get(), 2);
        assert_eq!(n.settled(waiting(false)), None, "told once");
        assert_eq!(asked.get(), 2);
    }

    /// The list's progress: finished/total, the mean percent with a finished task at 100,
    /// and the indicator's state.
    #[test]
    fn the_whole_list_progress_and_title() {
        let w = watch(&[
            ("a", Some(("COMPLETED", 100))),
            ("b", Some(("IN_PROGRESS", 40))),
            ("c", Some(("IN_PROGRESS", 10))),
            ("d", Some(("COMPLETED", 100))),
        ]);
        let o = overall(&w);
        assert_eq!(o.title(), "gendash · 2/4 · 62%");
        assert_eq!(o.bar(), Bar::Normal(62));
        let w = watch(&[
            ("a", Some(("FAILED", 30))),
            ("b", Some(("IN_PROGRESS", 50))),
        ]);
        assert_eq!(
            overall(&w).bar(),
            Bar::Error(75),
            "a failure while one runs"
        );
        let w = watch(&[("a", None), ("b", Some(("QUEUED", 0)))]);
        assert_eq!(overall(&w).bar(), Bar::Indeterminate, "no percent yet");
        assert_eq!(overall(&w).title(), "gendash · 0/2 · 0%");
        let w = watch(&[("a", Some(("FAILED", 30))), ("b", Some(("COMPLETED", 100)))]);
        assert_eq!(overall(&w).bar(), Bar::Remove, "nothing runs");
        assert_eq!(overall(&w).title(), "gendash · 2/2 · 100%");
        assert_eq!(overall(&watch(&[])).title(), "gendash");
        assert_eq!(overall(&watch(&[])).bar(), Bar::Remove);
    }

    /// A burst within the window, then a lone one later: each burst one notice, sent when its
    /// window closes; a lone finish told as before.
    #[test]
    fn each_coalesces_a_window_into_one_notice() {
        let mut n = notifier(Each, true);
        let finishes = [
            (T, C, true, false),
            (T + 1, C, true, false),
            (T + 1, F, true, false),
            (T + 2, C, true, false), // the window closes at T + 2: it is in the next one
            (T + 10, F, true, false),
        ];
        let (told, done) = run(&mut n, &finishes, T + 20);
        assert_eq!(
            told,
            [
                (T + 2, "gendash: 2 completed, 1 failed".to_string()),
                (
                    T + 4,
                    "gendash: task completed: image t-3 — Completed".into()
                ),
                (T + 12, "gendash: task failed: image t-4 — Failed".into()),
            ]
        );
        assert!(done.is_empty());
        assert_eq!(n.due(), None, "nothing waits");
    }

    /// Only finishes this dashboard claimed are told; another's are counted for the run.
    #[test]
    fn only_claimed_finishes_are_told() {
        let mut n = notifier(Each, true);
        let finishes = [
            (T, C, false, false),
            (T, F, true, false),
            (T + 1, C, false, false),
        ];
        let (told, _) = run(&mut n, &finishes, T + 5);
        assert_eq!(
            told,
            [(
                T + 2,
                "gendash: task failed: image t-1 — Failed".to_string()
            )]
        );
    }

    #[test]
    fn batch_tells_once_when_the_last_finishes_and_all_done_counts_the_run() {
        let mut n = notifier(Batch, true);
        let finishes = [
            (T, C, true, false),
            (T + 3, F, false, false),
            (T + 7, C, true, true),
            // A new run: one task, completed.
            (T + 30, C, true, true),
        ];
        let (told, done) = run(&mut n, &finishes, T + 40);
        assert_eq!(
            told,
            [
                (T + 7, "gendash: all 3 done · 1 failed".to_string()),
                (T + 30, "gendash: 1 task done".into()),
            ]
        );
        assert_eq!(
            done,
            [
                AllDone {
                    completed: 2,
                    failed: 1,
                    count: 3
                },
                AllDone {
                    completed: 1,
                    failed: 0,
                    count: 1
                }
            ]
        );
    }

    /// The last finish claimed elsewhere: that dashboard tells it and runs `on_all_done`; the
    /// run's counts start again here too.
    #[test]
    fn the_last_finish_claimed_elsewhere_is_not_told_here() {
        let mut n = notifier(Batch, true);
        let finishes = [
            (T, C, true, false),
            (T + 1, C, false, true),
            (T + 5, F, true, true),
        ];
        let (told, done) = run(&mut n, &finishes, T + 10);
        assert_eq!(
            told,
            [(T + 5, "gendash: 1 task done · 1 failed".to_string())]
        );
        assert_eq!(
            done,
            [AllDone {
                completed: 0,
                failed: 1,
                count: 1
            }]
        );
    }

    #[test]
    fn failures_tells_only_failed_tasks_windowed() {
        let mut n = notifier(Failures, true);
        let finishes = [
            (T, C, true, false),
            (T, F, true, false),
            (T + 1, F, true, false),
            (T + 5, C, true, false),
            (T + 8, C, true, true),
        ];
        let (told, done) = run(&mut n, &finishes, T + 12);
        assert_eq!(told, [(T + 2, "gendash: 2 failed".to_string())]);
        assert_eq!(done.len(), 1, "on_all_done whatever the policy");
    }

    #[test]
    fn off_tells_nothing_but_on_all_done_still_runs() {
        let mut n = notifier(Off, true);
        let finishes = [(T, F, true, false), (T + 1, C, true, true)];
        let (told, done) = run(&mut n, &finishes, T + 5);
        assert!(told.is_empty(), "{told:?}");
        assert_eq!(done.len(), 1);
        let out = n.tick(vec![(key("s"), ev(What::Stalled, "s"))], T + 6);
        let out2 = n.tick(vec![(key("s"), ev(What::Stalled, "s"))], T + 9);
        assert!(out.notices.is_empty() && out2.notices.is_empty());
    }

    /// A stall is told once, not again while it stays stalled; after it moved, a new stall is
    /// told again. Without `notify_on_stall`, never.
    #[test]
    fn a_stall_is_told_once_until_it_moves_and_stalls_again() {
        for (on_stall, policy, expected) in [
            (true, Each, 2),
            (true, Batch, 2),
            (true, Failures, 2),
            (false, Each, 0),
        ] {
            let mut n = notifier(policy, on_stall);
            let stalled = || vec![(key("s"), ev(What::Stalled, "s"))];
            let mut told = Vec::new();
            for t in T..T + 10 {
                told.extend(bodies(&n.tick(stalled(), t)));
            }
            // It moved: no longer stalled.
            told.extend(bodies(&n.tick(Vec::new(), T + 10)));
            for t in T + 11..T + 20 {
                told.extend(bodies(&n.tick(stalled(), t)));
            }
            assert_eq!(told.len(), expected, "{policy:?} {on_stall}: {told:?}");
            if expected > 0 {
                assert_eq!(told[0], "gendash: task stalled: image s — Stalled");
            }
        }
        // Stalls within a window join the finishes there.
        let mut n = notifier(Each, true);
        n.finished(ev(C, "a"), true, T);
        let out = n.tick(vec![(key("s"), ev(What::Stalled, "s"))], T + 1);
        assert!(out.notices.is_empty());
        assert_eq!(n.due(), Some(T + 2));
        let out = n.tick(vec![(key("s"), ev(What::Stalled, "s"))], T + 2);
        assert_eq!(bodies(&out), ["gendash: 1 completed, 1 stalled"]);
    }
}
