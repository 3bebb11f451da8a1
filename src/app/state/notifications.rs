//! The notification glue: what the watch list saw (a finish, the clock's stalls) handed to the
//! notification policy (`watch::notify`), and its answer as commands, as configured (`bell`,
//! `desktop_notifications`, `on_all_done`).

use super::State;
use crate::app::effects::Effects;
use crate::app::watch::{self, notify};
use crate::cmd::Cmd;

impl State {
    /// A finish seen while watched, for the notification policy: `ours` when this dashboard
    /// claimed it.
    pub(super) fn told_finish(&mut self, f: &crate::cmd::Finished, ours: bool) {
        use notify::{Event, What};
        let event = Event {
            what: if f.status_failed {
                What::Failed
            } else {
                What::Completed
            },
            line: format!("{} {} — {}", f.kind.as_str(), f.task_id, f.status),
        };
        self.notifier.finished(event, ours, self.now);
    }

    /// The run ended (`Msg::RunEnded`): `here`, this dashboard's write to the watch list file
    /// left nothing running, so `batch`'s notice and `on_all_done` are its to give.
    pub(super) fn run_ended(&mut self, here: bool) -> Effects {
        let out = self
            .notifier
            .run_ended(here, watch::end::ends_waiting(&self.watch));
        self.as_configured(told(out))
    }

    /// `on_all_done` held for the ends taken on here, once the last of them started its
    /// `on_complete` (after the commands `fx` holds, so the workers get it after them).
    pub(super) fn settle_all_done(&mut self, mut fx: Effects) -> Effects {
        if let Some(run) = self
            .notifier
            .settled(|| watch::end::ends_waiting(&self.watch))
        {
            fx.cmds.push(Cmd::AllDone(run));
        }
        fx
    }

    /// The clock moved: stalls newly seen are told once, and a window whose time is up.
    pub(super) fn told_stalls(&mut self, now: u64) -> Effects {
        use notify::{Event, What};
        let stall_after = self.watch.stall_after;
        let stalled = self
            .watch
            .rows
            .iter()
            .filter(|r| r.phase(now, stall_after) == watch::Phase::Stalled)
            .map(|r| {
                let line = format!(
                    "{} {} — stalled at {}%",
                    r.entry.kind.as_str(),
                    r.entry.task_id,
                    r.percent()
                );
                let event = Event {
                    what: What::Stalled,
                    line,
                };
                (r.key(), event)
            })
            .collect();
        let out = self.notifier.tick(stalled, now);
        self.as_configured(told(out))
    }

    /// A notification rings the bell too with `bell`, and is sent only with
    /// `desktop_notifications`.
    pub(super) fn as_configured(&self, mut fx: Effects) -> Effects {
        let notices = fx
            .cmds
            .iter()
            .filter(|c| matches!(c, Cmd::Notify { .. }))
            .count();
        if !self.settings.desktop_notifications {
            fx.cmds.retain(|c| !matches!(c, Cmd::Notify { .. }));
        }
        if self.settings.bell {
            fx.cmds.extend(std::iter::repeat_n(Cmd::Bell, notices));
        }
        fx
    }
}

/// The policy's answer as commands: one notification each (the bell follows in
/// `as_configured`), and `on_all_done`'s run.
fn told(out: notify::Out) -> Effects {
    let mut cmds: Vec<Cmd> = out
        .notices
        .into_iter()
        .map(|n| Cmd::Notify {
            title: n.title,
            body: n.body,
        })
        .collect();
    cmds.extend(out.all_done.map(Cmd::AllDone));
    Effects::cmds(cmds)
}

#[cfg(test)]
#[path = "notifications_tests.rs"]
mod tests;
