//! Owning the terminal: raw mode, the alternate screen, mouse, bracketed paste and focus
//! reports (a changed config is read again when the focus comes back) on entry;
//! everything undone on every way out — normal quit, error, panic in any thread, signals — and
//! around a suspend (Ctrl-Z).

use super::frame_out::FrameOut;
use crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, DisableMouseCapture, EnableBracketedPaste,
    EnableFocusChange, EnableMouseCapture,
};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use crossterm::{cursor, execute};
use ratatui::Terminal;
use ratatui_crossterm::CrosstermBackend;
use std::io::{self, Stdout, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub type Tui = Terminal<CrosstermBackend<FrameOut<Stdout>>>;

/// Whether we currently hold the terminal; restore is a no-op otherwise.
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// Begins a frame: what is drawn is held until `end_frame` (see `FrameOut`), inside a
/// synchronized update (DEC mode 2026) when the terminal supports it and the settings allow.
/// The update's opening and its end go out in the frame's one write, so no way out of the
/// dashboard (an error, a panic mid-frame) leaves the terminal holding back its screen.
pub fn begin_frame(tui: &mut Tui, synchronized: bool) {
    let out = tui.backend_mut().writer_mut();
    out.hold();
    if synchronized {
        let _ = crossterm::queue!(out, crossterm::terminal::BeginSynchronizedUpdate);
    }
}

/// Ends the frame `begin_frame` began: writes it.
pub fn end_frame(tui: &mut Tui, synchronized: bool) -> io::Result<()> {
    let out = tui.backend_mut().writer_mut();
    if synchronized {
        let _ = crossterm::queue!(out, crossterm::terminal::EndSynchronizedUpdate);
    }
    out.release()
}

fn enter_modes() -> io::Result<()> {
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    execute!(
        io::stdout(),
        EnterAlternateScreen,
        EnableMouseCapture,
        EnableBracketedPaste,
        EnableFocusChange,
        cursor::Hide
    )
}

/// Takes over the terminal. Nothing here asks the terminal a question: its size comes from
/// the kernel, the alternate screen starts blank and ratatui's first draw paints every cell.
pub fn enter() -> io::Result<Tui> {
    enter_modes()?;
    // A fixed viewport, resized by the event loop on each resize (`follow_resize`): a full-screen
    // one asks its size before every frame, which crossterm does by opening `/dev/tty` (an
    // open, an ioctl and a close a frame: 2.6 % of the dashboard's CPU while typing a filter).
    let (width, height) = crossterm::terminal::size()?;
    let viewport = ratatui::Viewport::Fixed(ratatui::layout::Rect::new(0, 0, width, height));
    Terminal::with_options(
        CrosstermBackend::new(FrameOut::new(io::stdout())),
        ratatui::TerminalOptions { viewport },
    )
}

/// Sizes the viewport to the terminal's new size (see `enter`); other events change nothing.
pub fn follow_resize(tui: &mut Tui, event: &crossterm::event::Event) -> io::Result<()> {
    match *event {
        crossterm::event::Event::Resize(width, height) => {
            resize(tui, ratatui::layout::Rect::new(0, 0, width, height))
        }
        _ => Ok(()),
    }
}

/// Sizes the viewport to `area` and clears the whole screen, so the next draw paints every
/// cell (a fixed viewport's own clear goes row by row).
pub fn resize(tui: &mut Tui, area: ratatui::layout::Rect) -> io::Result<()> {
    use ratatui::backend::Backend;
    tui.resize(area)?;
    tui.backend_mut()
        .clear_region(ratatui::backend::ClearType::All)
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

/// What the graphics detection, asking the terminal after the first frame, hands to the event
/// loop, in the order it happened.
#[derive(Debug)]
pub enum Early {
    /// Write this question to the terminal (the loop owns the output, so a question never
    /// lands inside a frame), then say so.
    Ask {
        query: Vec<u8>,
        written: std::sync::mpsc::Sender<()>,
    },
    /// What the user did meanwhile, read as the session's reader reads it.
    Event(crossterm::event::Event),
    /// The answer; from here on the session's reader has the terminal's input.
    Detected(crate::picture::Detection),
}

/// Runs `detect` on a thread of its own, its questions asked through the event loop and their
/// replies read here: the first frame is drawn at once, and every key typed meanwhile comes
/// out as an `Early::Event`, in order, before `Early::Detected`. The receiver's end stops it.
pub fn detect_in_background(
    detect: impl FnOnce(crate::picture::graphics::Ask<'_>) -> crate::picture::Detection + Send + 'static,
) -> tokio::sync::mpsc::UnboundedReceiver<Early> {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let spawned = std::thread::Builder::new()
        .name("gendash-graphics".into())
        .spawn(move || {
            let mut reader = EarlyReader {
                tx: tx.clone(),
                pending: Vec::new(),
            };
            let detection = {
                let mut ask = |query: &[u8], complete: fn(&[u8]) -> bool, bound: Duration| {
                    #[cfg(any(test, debug_assertions, feature = "testing"))]
                    let bound = crate::testing::query_bound().unwrap_or(bound);
                    reader.ask(query, complete, bound)
                };
                detect(&mut ask)
            };
            reader.finish();
            let _ = tx.send(Early::Detected(detection));
        });
    if let Err(e) = spawned {
        tracing::warn!("cannot start the graphics detection: {e}");
    }
    rx
}

/// Asks the terminal directly, for a program that reads no keys meanwhile (`gendash doctor`):
/// raw mode for the exchange, `query` written, standard input read until `complete` or the
/// bound (the same bound as the dashboard's, `testing::query_bound` in tests). What came.
pub fn ask_directly(
    query: &[u8],
    complete: fn(&[u8]) -> bool,
    bound: Duration,
) -> io::Result<Vec<u8>> {
    /// Cooked mode back however the exchange ends.
    struct Cooked;
    impl Drop for Cooked {
        fn drop(&mut self) {
            let _ = disable_raw_mode();
        }
    }
    #[cfg(any(test, debug_assertions, feature = "testing"))]
    let bound = crate::testing::query_bound().unwrap_or(bound);
    enable_raw_mode()?;
    let _cooked = Cooked;
    let mut out = io::stdout();
    out.write_all(query)?;
    out.flush()?;
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let mut reader = EarlyReader {
        tx,
        pending: Vec::new(),
    };
    let deadline = Instant::now() + bound;
    let mut replies = Vec::new();
    while replies.len() < 4096 && !complete(&replies) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || !reader.read_byte(left)? {
            break;
        }
        reader.split(&mut replies);
    }
    Ok(replies)
}

/// Reads standard input while the graphics questions are out.
struct EarlyReader {
    tx: tokio::sync::mpsc::UnboundedSender<Early>,
    /// The start of a key or reply still arriving.
    pending: Vec<u8>,
}

impl EarlyReader {
    /// Puts a question to the terminal through the event loop and waits at most `bound` for
    /// the answer: reads standard input until `complete` says the replies are whole. Returns
    /// the replies, possibly nothing; keys typed meanwhile go to the event loop.
    fn ask(
        &mut self,
        query: &[u8],
        complete: fn(&[u8]) -> bool,
        bound: Duration,
    ) -> io::Result<Vec<u8>> {
        /// Far more than any reply to our questions: a terminal that keeps talking is cut off.
        const MOST: usize = 4096;
        let (written, was_written) = std::sync::mpsc::channel();
        self.tx
            .send(Early::Ask {
                query: query.to_vec(),
                written,
            })
            .map_err(|_| io::Error::other("the dashboard has ended"))?;
        was_written
            .recv_timeout(bound)
            .map_err(|_| io::Error::other("the question was not written"))?;
        let deadline = Instant::now() + bound;
        let mut replies = Vec::new();
        while replies.len() < MOST && !complete(&replies) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || !self.read_byte(left)? {
                break;
            }
            self.split(&mut replies);
        }
        Ok(replies)
    }

    /// Waits up to `wait` for a byte of input and adds it to `pending`: whether one came.
    fn read_byte(&mut self, wait: Duration) -> io::Result<bool> {
        use rustix::event::{PollFd, PollFlags, Timespec, poll};
        use std::os::fd::AsFd;
        let stdin = io::stdin();
        let fd = stdin.as_fd();
        loop {
            let timeout = Timespec::try_from(wait).map_err(io::Error::other)?;
            let mut fds = [PollFd::new(&fd, PollFlags::IN)];
            match poll(&mut fds, Some(&timeout)) {
                Ok(0) => return Ok(false),
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(e.into()),
            }
            // A byte at a time: what follows the last reply stays for the session's reader.
            let mut byte = [0u8; 1];
            return match rustix::io::read(fd, &mut byte) {
                Ok(0) => Ok(false),
                Ok(_) => {
                    self.pending.push(byte[0]);
                    Ok(true)
                }
                Err(rustix::io::Errno::INTR | rustix::io::Errno::AGAIN) => Ok(true),
                Err(e) => Err(e.into()),
            };
        }
    }

    /// Passes every whole key in `pending` on and adds every whole reply to `replies`.
    fn split(&mut self, replies: &mut Vec<u8>) {
        let more = input_waiting();
        let tx = &self.tx;
        super::input::drain(&mut self.pending, more, |token| match token {
            super::input::Token::Event(event) => {
                let _ = tx.send(Early::Event(event));
            }
            super::input::Token::Reply(bytes) => replies.extend_from_slice(&bytes),
            super::input::Token::Skip => {}
        });
    }

    /// The questions are answered (or not): a key half read is waited for a moment, then
    /// passed on, so the session's reader starts on a whole token.
    fn finish(&mut self) {
        let until = Instant::now() + Duration::from_millis(50);
        let mut replies = Vec::new();
        while !self.pending.is_empty() {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() || !self.read_byte(left).unwrap_or(false) {
                break;
            }
            self.split(&mut replies);
        }
        let tx = &self.tx;
        super::input::drain(&mut self.pending, false, |token| {
            if let super::input::Token::Event(event) = token {
                let _ = tx.send(Early::Event(event));
            }
        });
    }
}

/// Whether input is waiting on standard input right now.
fn input_waiting() -> bool {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    use std::os::fd::AsFd;
    let stdin = io::stdin();
    let fd = stdin.as_fd();
    let mut fds = [PollFd::new(&fd, PollFlags::IN)];
    poll(&mut fds, Some(&Timespec::default())).is_ok_and(|n| n > 0)
}

/// Gives the terminal back: focus reports, bracketed paste and mouse reporting off, the main
/// screen, the cursor shown, cooked mode. Safe to call more than once and from a panic hook.
pub fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let mut out = io::stdout();
        let _ = execute!(
            out,
            DisableFocusChange,
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
