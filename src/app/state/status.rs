//! What the status bar says, kept by the state: the service's health, the last error and the
//! notice about the last action; carrying out a reducer's `Effects` on them.

use super::{Demo, State};
use crate::app::effects::Effects;
use crate::app::keymap::Keymap;
use crate::cmd::{Clip, Cmd};
use crate::msg::{CopiedVia, Opened};

/// How long a notice stays on the status bar, in seconds of the reducers' clock.
pub const NOTICE_SECONDS: u64 = 5;

/// A short message about the last action ("copied …", "removed …"), shown for a few seconds:
/// a message about an earlier action must not read as one about the latest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub text: String,
    /// When it goes, on the reducers' clock (`State::now`).
    pub until: u64,
    /// Shown alone on the status bar, so it is read whole (how a copy went, a URL).
    pub whole: bool,
}

/// The service's health as its last answers tell it: one state, shown in one place, so the
/// status bar cannot say two things at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Health {
    Unknown,
    Connected,
    /// Answering again after trouble: said until `until` (the reducers' clock), then
    /// `Connected`.
    Reconnected {
        until: u64,
    },
    Trouble(String),
    /// Answers came, but 404 where the spec's routes should be: the base URL's path looks
    /// wrong (the error's text, which shows what was asked).
    WrongPath(String),
}

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
        let dir = demo.downloads.display();
        self.say(if demo.temporary {
            format!("demo: downloads go to {dir}")
        } else {
            format!("demo: downloads go to {dir} (download_dir)")
        });
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

/// How a copy went, said as far as it is known: a program that exited 0 copied it; OSC 52
/// was only sent (the terminal may ignore it). A URL that could not be opened leads, whole.
pub(super) fn copied(clip: &Clip, via: CopiedVia) -> Effects {
    let object = match &clip.instead_of_opening {
        Some(_) => "it".to_string(),
        None => format!("the {}", clip.what),
    };
    let (how, cmds) = match via {
        CopiedVia::Program(program) => (format!("copied {object} with {program}"), Vec::new()),
        CopiedVia::Terminal { tmux, failed } => {
            let through = if tmux { " through tmux" } else { "" };
            let sent = format!("sent {object} to the terminal's clipboard{through} (OSC 52)");
            let how = match failed {
                Some(why) => format!("{why}; {sent}"),
                None => sent,
            };
            let text = clip.text.clone();
            (how, vec![Cmd::CopyToTerminal { text, tmux }])
        }
    };
    // Alone on the status bar: after the counts, it would be cut short at 80 columns.
    Effects::cmds(cmds)
        .with_notice(match &clip.instead_of_opening {
            Some(why) => format!("{} · {why} · {how}", clip.text),
            None => how,
        })
        .whole()
}

/// What the opener said: a link or file nothing here can show is shown whole and copied.
pub(super) fn opened(opened: Opened, keymap: &Keymap) -> Effects {
    match opened {
        Opened::Launched(what) => Effects::say(format!("opened {what}")),
        Opened::Failed(e) => Effects::fail(e),
        Opened::Missing(path) => Effects::say(format!(
            "{path} is not there any more: {} downloads it again",
            keymap.key("download")
        ))
        .whole(),
        Opened::NoDisplay(text) => Effects::cmds(vec![Cmd::Copy(Clip {
            text,
            what: "link".into(),
            instead_of_opening: Some("no display to open it on".into()),
        })]),
    }
}

#[cfg(test)]
#[path = "status_tests.rs"]
mod tests;
