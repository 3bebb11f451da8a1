//! The watch list's progress on the terminal itself: OSC 9;4 (the tab or taskbar progress of
//! Windows Terminal, Ghostty, WezTerm, iTerm2, VTE) and the window title
//! (`gendash · 5/8 · 62%`). What to show is the app's (`Watch::overall`); this writes it, only
//! when it changed, and undoes it on every way out: the title saved at start (XTWINOPS push,
//! `CSI 22;0 t`) is restored (`CSI 23;0 t`) and the indicator removed on quit, error, panic
//! and around a suspend (Ctrl-Z), where both are taken back and written again on resume.
//!
//! Inside tmux the progress goes through tmux's passthrough, as the notifications do; the
//! title goes plain, which tmux takes as the pane's title (and passes on with `set-titles`).

use crate::app::watch::notify::{Bar, Overall};
use std::io::{self, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Saves the window title (and icon name) on the terminal's stack.
pub const PUSH_TITLE: &str = "\x1b[22;0t";
/// Restores the title saved by `PUSH_TITLE`.
pub const POP_TITLE: &str = "\x1b[23;0t";

/// The title is pushed: a pop is owed.
static PUSHED: AtomicBool = AtomicBool::new(false);
/// A progress indicator is shown: its removal is owed.
static SHOWN: AtomicBool = AtomicBool::new(false);
/// What is configured and what was last written.
static WRITER: Mutex<Option<Writer>> = Mutex::new(None);

#[derive(Debug, Clone, PartialEq, Eq)]
struct Writer {
    /// `terminal_progress`, `set_title`.
    progress: bool,
    title: bool,
    /// Inside tmux: the progress goes through the passthrough.
    tmux: bool,
    last_bar: Option<Bar>,
    last_title: Option<String>,
}

/// OSC 9;4 for `bar`, wrapped in tmux's passthrough inside tmux.
pub fn bar_sequence(bar: Bar, tmux: bool) -> String {
    let (state, percent) = match bar {
        Bar::Remove => (0, 0),
        Bar::Normal(p) => (1, p),
        Bar::Error(p) => (2, p),
        Bar::Indeterminate => (3, 0),
    };
    let plain = format!("\x1b]9;4;{state};{percent}\x07");
    if tmux {
        super::terminal::tmux_passthrough(&plain)
    } else {
        plain
    }
}

/// OSC 0 for the title (sanitised all the same: it travels inside an escape sequence).
pub fn title_sequence(title: &str) -> String {
    format!("\x1b]0;{}\x07", super::terminal::title_text(title))
}

fn write(bytes: &str) {
    if bytes.is_empty() {
        return;
    }
    let mut out = io::stdout();
    let _ = out.write_all(bytes.as_bytes());
    let _ = out.flush();
}

/// Starts with `terminal_progress` and `set_title` as configured: saves the window title when
/// it is to be set. Call once the terminal is entered.
pub fn start(progress: bool, title: bool, env: &dyn Fn(&str) -> Option<String>) {
    let writer = Writer {
        progress,
        title,
        tmux: env("TMUX").is_some(),
        last_bar: None,
        last_title: None,
    };
    if let Ok(mut w) = WRITER.lock() {
        *w = Some(writer);
    }
    resume();
}

/// Writes the list's progress and title where they changed since last written.
pub fn show(overall: &Overall) {
    let Ok(mut guard) = WRITER.lock() else {
        return;
    };
    let Some(w) = guard.as_mut() else {
        return;
    };
    let mut bytes = String::new();
    if w.progress {
        let bar = overall.bar();
        // Nothing shown yet and nothing to show: nothing to write.
        let unchanged = w.last_bar.map_or(bar == Bar::Remove, |last| last == bar);
        if !unchanged {
            bytes.push_str(&bar_sequence(bar, w.tmux));
            SHOWN.store(bar != Bar::Remove, Ordering::SeqCst);
            w.last_bar = Some(bar);
        }
    }
    if w.title && PUSHED.load(Ordering::SeqCst) {
        let title = overall.title();
        if w.last_title.as_deref() != Some(title.as_str()) {
            bytes.push_str(&title_sequence(&title));
            w.last_title = Some(title);
        }
    }
    drop(guard);
    write(&bytes);
}

/// Takes the title and the indicator back (before a suspend); `resume` writes them again.
pub fn suspend() {
    restore();
}

/// After `start` or a suspend: saves the title again, and the next `show` writes both anew.
pub fn resume() {
    let Ok(mut guard) = WRITER.lock() else {
        return;
    };
    let Some(w) = guard.as_mut() else {
        return;
    };
    w.last_bar = None;
    w.last_title = None;
    if w.title && !PUSHED.swap(true, Ordering::SeqCst) {
        drop(guard);
        write(PUSH_TITLE);
    }
}

/// Removes the indicator and restores the saved title, if they are owed. Safe to call more
/// than once and from a panic hook (it takes no lock).
pub fn restore() {
    let mut bytes = String::new();
    if SHOWN.swap(false, Ordering::SeqCst) {
        let tmux = std::env::var_os("TMUX").is_some();
        bytes.push_str(&bar_sequence(Bar::Remove, tmux));
    }
    if PUSHED.swap(false, Ordering::SeqCst) {
        bytes.push_str(POP_TITLE);
    }
    write(&bytes);
}

/// Restores on drop, whatever path leaves the scope.
pub struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

/// A panic anywhere restores the title and removes the indicator too. Install before the
/// terminal's own hook, which calls this one after it gave the terminal back.
pub fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_indicator_states_and_tmux() {
        assert_eq!(bar_sequence(Bar::Normal(62), false), "\x1b]9;4;1;62\x07");
        assert_eq!(bar_sequence(Bar::Error(40), false), "\x1b]9;4;2;40\x07");
        assert_eq!(bar_sequence(Bar::Indeterminate, false), "\x1b]9;4;3;0\x07");
        assert_eq!(bar_sequence(Bar::Remove, false), "\x1b]9;4;0;0\x07");
        assert_eq!(
            bar_sequence(Bar::Normal(5), true),
            "\x1bPtmux;\x1b\x1b]9;4;1;5\x07\x1b\\"
        );
        assert_eq!(
            title_sequence("gendash · 5/8 · 62%"),
            "\x1b]0;gendash · 5/8 · 62%\x07"
        );
        assert_eq!(title_sequence("a\x1b]0;x\x07").matches('\x1b').count(), 1);
    }
}
