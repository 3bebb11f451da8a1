//! What a reducer hands back: the one small value every pane's and popup's reducer returns
//! (commands for the runtime, a notice or an error for the status bar, whether to redraw),
//! which `State` applies in one place.

use crate::api::links::validate_link;
use crate::cmd::{Clip, Cmd};

/// A reducer's outcome beside the state it changed.
#[derive(Debug, Default, PartialEq)]
#[must_use]
pub struct Effects {
    /// What the runtime carries out, in order.
    pub cmds: Vec<Cmd>,
    /// A short message about the action, for the status bar (replaces any other).
    pub notice: Option<String>,
    /// The notice is shown alone on the status bar, so it is read whole (a copy, a URL).
    pub whole: bool,
    /// An error for the status bar (replaces the last one).
    pub error: Option<String>,
    /// Something on screen changed.
    pub redraw: bool,
}

impl Effects {
    /// Nothing to do.
    pub fn none() -> Self {
        Effects::default()
    }

    /// These commands, nothing else.
    pub fn cmds(cmds: Vec<Cmd>) -> Self {
        Effects {
            cmds,
            ..Effects::default()
        }
    }

    /// This command if any, nothing else.
    pub fn cmd(cmd: Option<Cmd>) -> Self {
        Effects::cmds(cmd.into_iter().collect())
    }

    /// Only a notice.
    pub fn say(text: impl Into<String>) -> Self {
        Effects::none().with_notice(text)
    }

    /// Only an error.
    pub fn fail(text: impl Into<String>) -> Self {
        Effects {
            error: Some(text.into()),
            ..Effects::default()
        }
    }

    /// The same, with this notice (replacing any).
    pub fn with_notice(mut self, text: impl Into<String>) -> Self {
        self.notice = Some(text.into());
        self
    }

    /// The same, with the notice shown alone on the status bar.
    pub fn whole(mut self) -> Self {
        self.whole = true;
        self
    }

    /// The same, with a redraw when `changed`.
    pub fn redraw_if(mut self, changed: bool) -> Self {
        self.redraw |= changed;
        self
    }

    /// The same, followed by `other` (its commands after these; its notice and error, when
    /// it has them, replace these).
    pub fn and(mut self, other: Effects) -> Self {
        self.cmds.extend(other.cmds);
        if other.notice.is_some() {
            self.notice = other.notice;
            self.whole = other.whole;
        }
        if other.error.is_some() {
            self.error = other.error;
        }
        self.redraw |= other.redraw;
        self
    }

    /// Opens only links that pass the http/https check; anything else is refused with the
    /// reason shown, and no link at all says `missing`.
    pub fn open(url: Option<String>, missing: &str) -> Self {
        match url {
            None => Effects::say(missing),
            Some(u) => match validate_link(&u) {
                Ok(_) => Effects::cmds(vec![Cmd::Open(u)]),
                Err(e) => Effects::say(e.to_string()),
            },
        }
    }

    /// Copies `text` (the clipboard worker says how it went); nothing to copy says so.
    pub fn copy(text: Option<String>, what: &str) -> Self {
        match text {
            Some(t) if !t.is_empty() => Effects::cmds(vec![Cmd::Copy(Clip::new(t, what))]),
            _ => Effects::say(format!("no {what} to copy")),
        }
    }
}

impl From<Vec<Cmd>> for Effects {
    fn from(cmds: Vec<Cmd>) -> Self {
        Effects::cmds(cmds)
    }
}

/// Tasks as a message names them: the one task's ID, or how many.
pub fn tasks(ids: &[String]) -> String {
    match ids {
        [one] => one.clone(),
        _ => crate::fmt::count(ids.len(), "task"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_later_notice_and_error_replace_earlier_ones_and_commands_add_up() {
        let first = Effects::cmds(vec![Cmd::Bell]).with_notice("one");
        let both = first.and(Effects::fail("broke").with_notice("two").redraw_if(true));
        assert_eq!(both.cmds, vec![Cmd::Bell]);
        assert_eq!(both.notice.as_deref(), Some("two"));
        assert_eq!(both.error.as_deref(), Some("broke"));
        assert!(both.redraw);
        let kept = Effects::say("kept").and(Effects::cmds(vec![Cmd::Bell]));
        assert_eq!(kept.notice.as_deref(), Some("kept"));
    }
}
