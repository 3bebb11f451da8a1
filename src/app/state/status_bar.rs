//! The status bar's side of the state: carrying out a reducer's `Effects` on the health, the
//! last error and the notice; the health as the service's answers tell it.

use super::{Demo, State};
use crate::app::effects::Effects;
use crate::app::status::{Health, NOTICE_SECONDS, Notice};
use crate::cmd::Cmd;

impl State {
    /// Carries out a reducer's effects on the status bar and the redraw; the commands remain.
    pub(super) fn absorb(&mut self, fx: Effects) -> Vec<Cmd> {
        if let Some(text) = fx.notice {
            self.say(text);
            if let Some(n) = &mut self.notice {
                n.whole = fx.whole;
            }
        }
        if let Some(error) = fx.error {
            self.last_error = Some(error);
            self.dirty = true;
        }
        self.dirty |= fx.redraw;
        fx.cmds
    }

    /// Shows a notice for `NOTICE_SECONDS`, replacing any other: the status bar tells of the
    /// latest action only. Task IDs and URLs in it may come from a file or a service.
    fn say(&mut self, text: impl Into<String>) {
        self.notice = Some(Notice {
            text: crate::api::sanitize::sanitize(&text.into()),
            until: self.now.saturating_add(NOTICE_SECONDS),
            whole: false,
        });
        self.dirty = true;
    }

    /// On the demo service: its token goes into the request log's curl lines, so a newcomer
    /// can try one, and the status bar says where downloads go (the download notice names
    /// each file in full too).
    pub fn begin_demo(&mut self, demo: Demo) {
        self.say(format!(
            "demo: downloads go to {}",
            demo.downloads.display()
        ));
        self.requests.demo_token = Some(demo.token);
    }

    /// `reconnected` has been said long enough: now simply `connected`.
    pub(super) fn settle_health(&mut self) {
        if let Health::Reconnected { until } = self.health
            && self.now >= until
        {
            self.health = Health::Connected;
            self.dirty = true;
        }
    }

    /// The service answered: after trouble, the stale error goes and the health says
    /// `reconnected` for a while (in its own place: a notice beside a later `trouble` would
    /// say both at once).
    pub(super) fn connected(&mut self) {
        let next = match self.health {
            Health::Trouble(_) | Health::WrongPath(_) => {
                self.last_error = None;
                Health::Reconnected {
                    until: self.now.saturating_add(NOTICE_SECONDS),
                }
            }
            Health::Reconnected { until } => Health::Reconnected { until },
            Health::Unknown | Health::Connected => Health::Connected,
        };
        if self.health != next {
            self.health = next;
            self.dirty = true;
        }
    }

    pub(super) fn note_error(&mut self, e: &crate::api::ApiError) {
        use crate::api::ApiError as E;
        let text = e.to_string();
        if matches!(
            e,
            E::Connect { .. }
                | E::Tls { .. }
                | E::Timeout { .. }
                | E::Transport { .. }
                | E::Auth { .. }
                | E::Decode { .. }
                | E::TooLarge { .. }
        ) || matches!(e, E::Http { status, .. } if *status >= 500 || *status == 429)
        {
            self.health = Health::Trouble(text.clone());
        } else if matches!(e, E::WrongPath { .. }) {
            self.health = Health::WrongPath(text.clone());
        } else if matches!(e, E::Lookup { .. } | E::Http { .. }) {
            // The service answered (an unknown task, a 404): it is reachable again.
            self.connected();
        }
        if self.last_error.as_deref() != Some(text.as_str()) {
            self.last_error = Some(text);
            self.dirty = true;
        }
    }
}

#[cfg(test)]
#[path = "status_bar_tests.rs"]
mod tests;
