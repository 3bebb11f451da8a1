//! The terminal's events, read on the event loop's own thread.
//!
//! The loop waits on the terminal itself (epoll, through tokio): a key wakes the one thread
//! that handles it, where a reading thread took a second wake-up (keys measured as fast either
//! way, by turns; a thread and its wake-ups fewer). crossterm's reader cannot run here: on a
//! terminal that hung up, its reads return at once and it loops on them without returning,
//! which froze the dashboard at 100 % CPU. Here a hang-up's end of file (or `EIO`) ends the
//! input instead.
//!
//! The bytes become events as crossterm's reader makes them (`input::Tokenizer`); a resize is
//! `SIGWINCH`, answered with the terminal's size, as crossterm does.

use super::input::{Token, Tokenizer};
use crossterm::event::Event;
use std::collections::VecDeque;
use std::io;
use std::os::fd::OwnedFd;
use tokio::io::Interest;
use tokio::io::unix::AsyncFd;
use tokio::signal::unix::{Signal, SignalKind, signal};

/// As crossterm reads: a full read means more is waiting (a lone ESC then starts a sequence).
const READ: usize = 1024;

pub struct TtyInput {
    tty: AsyncFd<OwnedFd>,
    resized: Signal,
    tokens: Tokenizer,
    events: VecDeque<Event>,
    ended: bool,
}

impl TtyInput {
    /// Opens the terminal for reading (its own open file, non-blocking, so standard input's
    /// mode, shared with the shell, is left alone) and registers it with the runtime.
    pub fn open() -> io::Result<Self> {
        let tty = open_terminal()?;
        rustix::io::ioctl_fionbio(&tty, true)?;
        // Readable only: the terminal turns writable after every frame written to it, and
        // each such edge woke the loop for nothing. Deprecated for file descriptors that
        // something else may close (tokio#8587; the replacement is `unsafe`, forbidden here):
        // this `OwnedFd` is moved in, so only the `AsyncFd` closes it, after deregistering it.
        #[allow(deprecated)]
        let tty = AsyncFd::with_interest(tty, Interest::READABLE)?;
        Ok(TtyInput {
            tty,
            resized: signal(SignalKind::window_change())?,
            tokens: Tokenizer::default(),
            events: VecDeque::new(),
            ended: false,
        })
    }

    /// The next event; `None` once the terminal's input ended (it hung up), and from then on
    /// nothing (never a busy loop).
    pub async fn next(&mut self) -> Option<io::Result<Event>> {
        loop {
            if let Some(event) = self.events.pop_front() {
                return Some(Ok(event));
            }
            if self.ended {
                return std::future::pending().await;
            }
            tokio::select! {
                ready = self.tty.readable() => {
                    let mut ready = match ready {
                        Ok(ready) => ready,
                        Err(e) => return Some(Err(e)),
                    };
                    let mut buf = [0u8; READ];
                    match ready.try_io(|tty| read(tty.get_ref(), &mut buf)) {
                        Ok(Ok(0)) => {
                            self.ended = true;
                            return None;
                        }
                        Ok(Ok(n)) => {
                            // All there was: no second read to learn so (a new key is a new
                            // edge, which the runtime reports even if it came meanwhile).
                            if n < READ {
                                ready.clear_ready();
                            }
                            let events = &mut self.events;
                            self.tokens.feed(&buf[..n], n == READ, |token| {
                                if let Token::Event(event) = token {
                                    events.push_back(event);
                                }
                            });
                        }
                        Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                        // What a hung-up terminal's read says on Linux.
                        Ok(Err(e)) if e.raw_os_error() == Some(rustix::io::Errno::IO.raw_os_error()) => {
                            self.ended = true;
                            return None;
                        }
                        Ok(Err(e)) => return Some(Err(e)),
                        // Nothing after all: the readiness is cleared, wait for the next.
                        Err(_would_block) => {}
                    }
                }
                Some(()) = self.resized.recv() => {
                    match rustix::termios::tcgetwinsize(self.tty.get_ref()) {
                        Ok(size) => self.events.push_back(Event::Resize(size.ws_col, size.ws_row)),
                        Err(e) => return Some(Err(e.into())),
                    }
                }
            }
        }
    }
}

fn read(tty: &OwnedFd, buf: &mut [u8]) -> io::Result<usize> {
    rustix::io::read(tty, buf).map_err(io::Error::from)
}

/// The controlling terminal, or, where there is none (a session started without one), the
/// terminal on standard input opened anew.
fn open_terminal() -> io::Result<OwnedFd> {
    let open = |path: &str| std::fs::File::open(path).map(OwnedFd::from);
    open("/dev/tty").or_else(|_| open("/proc/self/fd/0"))
}
