//! What the status bar says, as the state keeps it: the service's health and the notice about
//! the last action (the state carries reducers' `Effects` out on them); and the reducers of
//! the reports that only the status bar tells of (how a copy went, what the opener said).

use crate::app::effects::Effects;
use crate::app::keymap::Keymap;
use crate::cmd::{Clip, Cmd};
use crate::msg::{CopiedVia, Opened, PollLoad};
use crate::store::config::ActionName;

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

/// How a copy went, said as far as it is known: a program that exited 0 copied it; OSC 52
/// was only sent (the terminal may ignore it). A URL that could not be opened leads, whole.
pub fn copied(clip: &Clip, via: CopiedVia) -> Effects {
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
pub fn opened(opened: Opened, keymap: &Keymap) -> Effects {
    match opened {
        Opened::Launched(what) => Effects::say(format!("opened {what}")),
        Opened::Failed(e) => Effects::fail(e),
        Opened::Missing(path) => Effects::say(format!(
            "{path} is not there any more: {} downloads it again",
            keymap.key(ActionName::Download)
        ))
        .whole(),
        Opened::NoDisplay(text) => Effects::cmds(vec![Cmd::Copy(Clip {
            text,
            what: "link".into(),
            instead_of_opening: Some("no display to open it on".into()),
        })]),
    }
}

/// The poller's load: redrawn only when the status bar's words for it change.
pub fn poll_load(shown: &mut PollLoad, load: PollLoad) -> Effects {
    let changed = load_text(shown) != load_text(&load);
    *shown = load;
    Effects::none().redraw_if(changed)
}

/// The status bar's words for the poller's load, `12 req/s · 8/64 in flight`, or nothing
/// while nothing is polled.
pub fn load_text(load: &PollLoad) -> Option<String> {
    (load.per_second_tenths > 0 || load.in_flight > 0).then(|| {
        let tenths = load.per_second_tenths;
        let rate = if tenths < 100 {
            format!("{}.{}", tenths / 10, tenths % 10)
        } else {
            (tenths / 10).to_string()
        };
        format!("{rate} req/s · {}/{} in flight", load.in_flight, load.limit)
    })
}
