//! The terminal's focus coming back (a focus-in report): the running tasks on screen are
//! polled at once, by the rule of `watch::focus`.

use super::State;
use crate::app::popup::Popup;
use crate::app::watch;
use crate::cmd::Cmd;

impl State {
    /// The terminal has the focus again: the polls the watch pane's rows on screen call for.
    /// Nothing is drawn differently and no unseen mark is cleared: that waits for an input.
    pub fn focus_gained(&mut self) -> Vec<Cmd> {
        // The rows are on screen unless the archive view, a zoomed browser or a full-screen
        // overlay (the help, the request log) covers them.
        let on_screen = !self.archive.open
            && self.areas.watch_rows.height > 0
            && !matches!(self.popup, Some(Popup::Help { .. } | Popup::Requests));
        let cmds = watch::focus::regained(
            &mut self.watch,
            on_screen,
            self.settings.poll_interval,
            self.now,
        );
        self.track(cmds)
    }
}
