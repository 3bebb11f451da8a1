//! The terminal's writer: a frame goes out in one `write`.
//!
//! Standard output is line-buffered with a 1 KiB buffer, and ratatui's crossterm backend writes
//! a frame as many small pieces with no newline: a keystroke's frame over the LoRA list (3–4 KB)
//! went out in four `write`s, each one waking the terminal to read and parse a part of the
//! frame, the last byte later than it need be. A frame is held here from its start
//! (`Tui::begin`, with the synchronized update's opening when the terminal has one) to its end
//! and written at once; ratatui's own flushes inside the frame write nothing. Outside a frame
//! every flush writes, as a plain writer's would (a clipboard sequence, a cleared screen).

use std::io::{self, Write};

/// Past this, the buffer kept between frames is given back (a full repaint of a large
/// terminal; a keystroke's frame is a few KB).
const KEPT: usize = 64 * 1024;

/// A writer that holds what is written while a frame is drawn and writes it whole.
pub struct FrameOut<W: Write> {
    inner: W,
    pending: Vec<u8>,
    /// A frame is being drawn: flushes wait for its end.
    holding: bool,
}

impl<W: Write> FrameOut<W> {
    pub fn new(inner: W) -> Self {
        FrameOut {
            inner,
            pending: Vec::new(),
            holding: false,
        }
    }

    /// A frame begins: nothing is written until `release`.
    pub fn hold(&mut self) {
        self.holding = true;
    }

    /// The frame is whole: everything held is written, in one `write` where the terminal
    /// takes it whole.
    pub fn release(&mut self) -> io::Result<()> {
        self.holding = false;
        self.flush()
    }

    /// The writer written to (for the tests).
    #[cfg(test)]
    pub fn inner(&self) -> &W {
        &self.inner
    }
}

impl<W: Write> Write for FrameOut<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.holding {
            return Ok(());
        }
        if !self.pending.is_empty() {
            let sent = self.inner.write_all(&self.pending);
            // Written or not (a terminal gone), the bytes are not written again later, out
            // of order with what follows.
            self.pending.clear();
            if self.pending.capacity() > KEPT {
                self.pending.shrink_to(KEPT);
            }
            sent?;
        }
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::Terminal;
    use ratatui::layout::Rect;
    use ratatui::widgets::Paragraph;
    use ratatui_crossterm::CrosstermBackend;

    /// Records each `write` it is given.
    #[derive(Default)]
    struct Writes(Vec<Vec<u8>>);

    impl Write for Writes {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.push(buf.to_vec());
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn terminal() -> Terminal<CrosstermBackend<FrameOut<Writes>>> {
        Terminal::with_options(
            CrosstermBackend::new(FrameOut::new(Writes::default())),
            ratatui::TerminalOptions {
                viewport: ratatui::Viewport::Fixed(Rect::new(0, 0, 140, 45)),
            },
        )
        .expect("terminal")
    }

    fn writes(t: &Terminal<CrosstermBackend<FrameOut<Writes>>>) -> &[Vec<u8>] {
        &t.backend().writer().inner().0
    }

    /// A whole screen drawn by ratatui (which flushes as it goes) inside a held frame reaches
    /// the terminal as one write, the synchronized update's opening first and its end last.
    #[test]
    fn a_held_frame_is_one_write() {
        let mut t = terminal();
        let text = "a frame far longer than standard output's buffer ".repeat(200);
        t.backend_mut().writer_mut().hold();
        t.backend_mut().write_all(b"\x1b[?2026h").expect("held");
        t.draw(|f| {
            f.render_widget(
                Paragraph::new(text.as_str()).wrap(ratatui::widgets::Wrap { trim: false }),
                f.area(),
            );
        })
        .expect("drawn");
        assert!(
            writes(&t).is_empty(),
            "nothing written before the frame's end"
        );
        t.backend_mut().write_all(b"\x1b[?2026l").expect("held");
        t.backend_mut().writer_mut().release().expect("written");
        let w = writes(&t);
        assert_eq!(w.len(), 1, "one write");
        assert!(w[0].len() > 6000, "the whole screen: {} bytes", w[0].len());
        assert!(w[0].starts_with(b"\x1b[?2026h") && w[0].ends_with(b"\x1b[?2026l"));
    }

    /// Outside a frame a flush writes at once, in order (a clipboard sequence, a cleared
    /// screen), and nothing is written twice.
    #[test]
    fn outside_a_frame_each_flush_writes() {
        let mut out = FrameOut::new(Writes::default());
        out.write_all(b"one").expect("write");
        assert!(out.inner().0.is_empty(), "gathered until the flush");
        out.flush().expect("flush");
        out.write_all(b"two").expect("write");
        out.flush().expect("flush");
        out.flush().expect("flush");
        assert_eq!(out.inner().0, [b"one".to_vec(), b"two".to_vec()]);
    }
}
