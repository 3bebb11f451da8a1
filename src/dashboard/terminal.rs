//! Owning the terminal: raw mode, the alternate screen, mouse and bracketed paste on entry;
//! everything undone on every way out — normal quit, error, panic in any thread, signals — and
//! around a suspend (Ctrl-Z).

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use crossterm::{cursor, execute};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use std::io::{self, Stdout, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub type Tui = Terminal<CrosstermBackend<Stdout>>;

/// Whether we currently hold the terminal; restore is a no-op otherwise.
static ACTIVE: AtomicBool = AtomicBool::new(false);

fn enter_modes() -> io::Result<()> {
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    execute!(
        io::stdout(),
        EnterAlternateScreen,
        EnableMouseCapture,
        EnableBracketedPaste,
        cursor::Hide
    )
}

/// Takes over the terminal. Nothing here asks the terminal a question: its size comes from
/// the kernel, the alternate screen starts blank and ratatui's first draw paints every cell.
pub fn enter() -> io::Result<Tui> {
    enter_modes()?;
    Terminal::new(CrosstermBackend::new(io::stdout()))
}

/// Both standard input and output are a terminal: only then is the terminal ever asked
/// anything.
pub fn is_terminal() -> bool {
    use std::io::IsTerminal;
    io::stdin().is_terminal() && io::stdout().is_terminal()
}

/// A cell's size in pixels as the kernel reports it (`TIOCGWINSZ`; many terminals leave the
/// pixel fields zero). Asks the terminal nothing.
pub fn cell_pixels() -> Option<(u16, u16)> {
    let size = crossterm::terminal::window_size().ok()?;
    if size.columns == 0 || size.rows == 0 || size.width == 0 || size.height == 0 {
        return None;
    }
    Some((size.width / size.columns, size.height / size.rows)).filter(|(w, h)| *w > 0 && *h > 0)
}

/// Puts a question to the terminal and waits at most `bound` for the answer: writes `query`,
/// then reads standard input until `complete` says the reply is whole. Returns what came,
/// possibly nothing. For use in raw mode and before the event reader starts (it would take the
/// reply). Reads a byte at a time, so keys typed after the reply stay for the event reader.
pub fn ask(query: &[u8], complete: fn(&[u8]) -> bool, bound: Duration) -> io::Result<Vec<u8>> {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    use std::os::fd::AsFd;
    /// Far more than any reply to our questions: a terminal that keeps talking is cut off.
    const MOST: usize = 4096;
    let mut out = io::stdout();
    out.write_all(query)?;
    out.flush()?;
    let deadline = Instant::now() + bound;
    let stdin = io::stdin();
    let fd = stdin.as_fd();
    let mut reply = Vec::new();
    while reply.len() < MOST && !complete(&reply) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        let timeout = Timespec::try_from(left).map_err(io::Error::other)?;
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        match poll(&mut fds, Some(&timeout)) {
            Ok(0) => break,
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
        let mut byte = [0u8; 1];
        match rustix::io::read(fd, &mut byte) {
            Ok(0) => break,
            Ok(_) => reply.push(byte[0]),
            Err(rustix::io::Errno::INTR | rustix::io::Errno::AGAIN) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(reply)
}

/// Gives the terminal back: leaves the alternate screen, shows the cursor, cooked mode. Safe to
/// call more than once and from a panic hook.
pub fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let mut out = io::stdout();
        let _ = execute!(
            out,
            DisableBracketedPaste,
            DisableMouseCapture,
            LeaveAlternateScreen,
            cursor::Show
        );
        let _ = disable_raw_mode();
        let _ = out.flush();
    }
}

/// Restores the terminal on drop, whatever path leaves the scope.
pub struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

/// A panic anywhere restores the terminal before the message is printed, then ends the
/// process: a dashboard with a dead worker would show stale data as if it were live.
pub fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
        std::process::exit(101);
    }));
}

/// Suspends like a shell job (Ctrl-Z): restores the terminal, stops the process, and takes the
/// terminal back when continued. The caller redraws the whole screen afterwards.
pub fn suspend() -> io::Result<()> {
    restore();
    // SIGSTOP cannot be caught, so this stops us exactly like an untrapped Ctrl-Z would.
    signal_hook::low_level::raise(signal_hook::consts::SIGSTOP)?;
    enter_modes()
}

/// The window title for `text`: sanitised, since a title travels inside an escape sequence.
pub fn title_text(text: &str) -> String {
    crate::api::sanitize::sanitize_with_limit(text, 120)
}

/// Sets the window title.
pub fn set_title(text: &str) {
    let _ = execute!(
        io::stdout(),
        crossterm::terminal::SetTitle(title_text(text))
    );
}

/// Ends an OSC 8 hyperlink.
pub const HYPERLINK_CLOSE: &str = "\x1b]8;;\x1b\\";

/// Starts an OSC 8 hyperlink to `url` (an http/https URL the caller checked). Only printable
/// ASCII is kept, so nothing in it can end the sequence early or start another.
pub fn hyperlink_open(url: &str) -> String {
    let clean: String = url
        .chars()
        .filter(|c| matches!(c, ' '..='~') && *c != ' ')
        .collect();
    format!("\x1b]8;;{clean}\x1b\\")
}

/// OSC 52: put `text` on the clipboard of the terminal, even over SSH.
pub fn copy_sequence(text: &str) -> String {
    use base64::Engine;
    format!(
        "\x1b]52;c;{}\x07",
        base64::engine::general_purpose::STANDARD.encode(text)
    )
}

/// OSC 52 as sent: inside tmux, plain first (tmux takes it with `set -g set-clipboard on`,
/// keeps it as a paste buffer and passes it on to the terminal), then wrapped in tmux's
/// passthrough (which reaches the terminal only with `set -g allow-passthrough on`). Either
/// setting is enough; with both, the clipboard is set twice to the same text.
pub fn clipboard_sequence(text: &str, tmux: bool) -> String {
    let plain = copy_sequence(text);
    if tmux {
        let wrapped = tmux_passthrough(&plain);
        plain + &wrapped
    } else {
        plain
    }
}

/// A desktop notification: OSC 777 on terminals known for it (VTE-based, rxvt, foot), OSC 9
/// elsewhere (iTerm2, WezTerm, kitty, Windows Terminal, ghostty). Text is sanitised and may
/// not contain the `;` that separates OSC 777 fields.
pub fn notify_sequence(title: &str, body: &str, env: &dyn Fn(&str) -> Option<String>) -> String {
    let clean = |s: &str| crate::api::sanitize::sanitize_with_limit(s, 200).replace(';', ",");
    let term = env("TERM").unwrap_or_default();
    let osc777 =
        env("VTE_VERSION").is_some() || term.starts_with("rxvt") || term.starts_with("foot");
    let sequence = if osc777 {
        format!("\x1b]777;notify;{};{}\x07", clean(title), clean(body))
    } else {
        format!("\x1b]9;{}: {}\x07", clean(title), clean(body))
    };
    if env("TMUX").is_some() {
        tmux_passthrough(&sequence)
    } else {
        sequence
    }
}

/// Inside tmux a sequence reaches the outer terminal only wrapped in tmux's passthrough, with
/// every ESC inside doubled (and only with `set -g allow-passthrough on`).
pub fn tmux_passthrough(sequence: &str) -> String {
    format!("\x1bPtmux;{}\x1b\\", sequence.replace('\x1b', "\x1b\x1b"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_carry_no_injected_controls() {
        let n = notify_sequence("t\x1b]0;x\x07", "b;\x1b[2Jody", &|k| {
            (k == "TERM").then(|| "xterm-256color".into())
        });
        assert_eq!(n, "\x1b]9;t: b,ody\x07");
        let n = notify_sequence("done", "a;b", &|k| {
            (k == "VTE_VERSION").then(|| "7600".into())
        });
        assert_eq!(n, "\x1b]777;notify;done;a,b\x07");
        assert_eq!(copy_sequence("hi"), "\x1b]52;c;aGk=\x07");
    }

    #[test]
    fn inside_tmux_the_copy_goes_plain_and_through_passthrough() {
        assert_eq!(clipboard_sequence("hi", false), "\x1b]52;c;aGk=\x07");
        assert_eq!(
            clipboard_sequence("hi", true),
            "\x1b]52;c;aGk=\x07\x1bPtmux;\x1b\x1b]52;c;aGk=\x07\x1b\\"
        );
    }

    #[test]
    fn inside_tmux_notifications_pass_through_with_escs_doubled() {
        let env = |k: &str| match k {
            "TMUX" => Some("/tmp/tmux-0/default,123,0".into()),
            "TERM" => Some("tmux-256color".into()),
            _ => None,
        };
        assert_eq!(
            notify_sequence("done", "image a1 — COMPLETED", &env),
            "\x1bPtmux;\x1b\x1b]9;done: image a1 — COMPLETED\x07\x1b\\"
        );
        let vte = |k: &str| match k {
            "TMUX" => Some("x".into()),
            "VTE_VERSION" => Some("7600".into()),
            _ => None,
        };
        assert_eq!(
            notify_sequence("t", "b", &vte),
            "\x1bPtmux;\x1b\x1b]777;notify;t;b\x07\x1b\\"
        );
        // An ESC smuggled into the text is gone before wrapping, so nothing ends it early.
        let n = notify_sequence("t\x1b\\x", "b", &env);
        assert_eq!(n.matches("\x1b\\").count(), 1, "{n:?}");
    }

    #[test]
    fn window_titles_are_inert() {
        let t = title_text("gendash \x1b]0;evil\x07 \u{9d}x\u{9c} \u{202e}rtl\r\n");
        assert!(
            t.chars().all(|c| !c.is_control() && c != '\u{202e}'),
            "{t:?}"
        );
        assert!(title_text(&"x".repeat(10_000)).chars().count() <= 120);
    }
}
