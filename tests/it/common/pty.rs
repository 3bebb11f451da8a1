//! Runs the real binary in a pseudo-terminal: keys in, screen out (vt100), raw bytes kept.

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct Screen {
    pub parser: vt100::Parser,
    pub raw: Vec<u8>,
}

pub struct Session {
    pub child: Box<dyn Child + Send + Sync>,
    pub master: Box<dyn MasterPty + Send>,
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    pub screen: Arc<Mutex<Screen>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

/// The binary in a terminal: [`super::clean_env`] plus `TERM`, an opener that opens nothing,
/// and `env`.
pub fn command(home: &Path, args: &[&str], env: &[(&str, &str)]) -> CommandBuilder {
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_gendash"));
    cmd.args(args);
    cmd.env_clear();
    for (k, v) in super::clean_env(home) {
        cmd.env(k, v);
    }
    cmd.env("TERM", "xterm-256color");
    cmd.env("GENDASH_OPENER", "true");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.cwd(home);
    cmd
}

/// How the pseudo-terminal answers the program's queries.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Answers {
    /// Cursor-position queries (DSR) are answered, as by a real terminal.
    Cursor,
    /// Nothing is ever answered: a serial console, some multiplexers, a pipe-driven pty.
    Never,
    /// Cursor positions, and the questions of graphics detection as a sixel terminal with
    /// 10x20-pixel cells answers them: device attributes (`ESC [ c`) and the cell size
    /// (`ESC [ 16 t`).
    Sixel,
    /// As `Sixel`, and also what a 2026 terminal on a white background answers: synchronized
    /// output supported (DECRQM `ESC [ ? 2026 $ p`) and its background (OSC 11).
    SixelLightSync,
}

impl Session {
    pub fn spawn(cmd: CommandBuilder, cols: u16, rows: u16) -> Session {
        Self::spawn_answering(cmd, cols, rows, Answers::Cursor)
    }

    pub fn spawn_answering(
        mut cmd: CommandBuilder,
        cols: u16,
        rows: u16,
        answers: Answers,
    ) -> Session {
        if matches!(answers, Answers::Sixel | Answers::SixelLightSync) {
            // This terminal answers every question, from the reader thread below: give it
            // the time a loaded machine needs, not the 200 ms a real terminal gets.
            cmd.env("GENDASH_TEST_QUERY_BOUND_MS", "10000");
        }
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let child = pair.slave.spawn_command(cmd).unwrap();
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let writer = Arc::new(Mutex::new(pair.master.take_writer().unwrap()));
        let answer = writer.clone();
        let screen = Arc::new(Mutex::new(Screen {
            parser: vt100::Parser::new(rows, cols, 0),
            raw: Vec::new(),
        }));
        let sink = screen.clone();
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let mut s = sink.lock().unwrap();
                        s.parser.process(&buf[..n]);
                        s.raw.extend_from_slice(&buf[..n]);
                        let has = |q: &[u8]| buf[..n].windows(q.len()).any(|w| w == q);
                        if matches!(answers, Answers::Sixel | Answers::SixelLightSync) {
                            let mut w = answer.lock().unwrap();
                            // In the order asked, as a terminal answers.
                            if has(b"\x1b[16t") {
                                let _ = w.write_all(b"\x1b[6;20;10t");
                            }
                            if answers == Answers::SixelLightSync {
                                if has(b"\x1b[?2026$p") {
                                    let _ = w.write_all(b"\x1b[?2026;2$y");
                                }
                                if has(b"\x1b]11;?\x1b\\") {
                                    let _ = w.write_all(b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\");
                                }
                            }
                            if has(b"\x1b[c") {
                                let _ = w.write_all(b"\x1b[?62;4;22c");
                            }
                            let _ = w.flush();
                        }
                        // Answer cursor-position queries (DSR) as a real terminal does.
                        if answers != Answers::Never && has(b"\x1b[6n") {
                            let (row, col) = s.parser.screen().cursor_position();
                            let mut w = answer.lock().unwrap();
                            let _ = write!(w, "\x1b[{};{}R", row + 1, col + 1);
                            let _ = w.flush();
                        }
                    }
                }
            }
        });
        Session {
            child,
            master: pair.master,
            writer,
            screen,
            reader: Some(reader),
        }
    }

    pub fn contents(&self) -> String {
        self.screen.lock().unwrap().parser.screen().contents()
    }

    /// Waits until `pred` holds for the screen text; panics with the screen after `limit`.
    pub fn wait_for(&self, what: &str, limit: Duration, pred: impl Fn(&str) -> bool) {
        let start = Instant::now();
        while start.elapsed() < limit {
            if pred(&self.contents()) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!(
            "timed out waiting for {what}; the screen was:\n{}",
            self.contents()
        );
    }

    pub fn wait_text(&self, text: &str) {
        self.wait_for(text, Duration::from_secs(20), |s| s.contains(text));
    }

    /// Sends bytes as typed; a pause after each so an Esc is not read as Alt+key.
    /// Waits until one line of the screen shows task `id` with `state` (a key pressed on a row
    /// acts on what the dashboard knows, so a test waits for the poll that told it).
    pub fn wait_row(&self, id: &str, state: &str) {
        self.wait_for(&format!("{id} {state}"), Duration::from_secs(20), |t| {
            t.lines().any(|l| l.contains(id) && l.contains(state))
        });
    }

    pub fn send(&mut self, bytes: &str) {
        let mut w = self.writer.lock().unwrap();
        w.write_all(bytes.as_bytes()).unwrap();
        w.flush().unwrap();
        drop(w);
        // A lone Esc is Esc only if the program reads it before the next key: read together,
        // `\x1b\x1b` is one Esc and `\x1bq` is Alt+q (crossterm's parser). A loaded machine
        // left both bytes for one read after 60 ms (the e2e test's second Esc was lost).
        let settle = if bytes == "\x1b" { 300 } else { 60 };
        std::thread::sleep(Duration::from_millis(settle));
    }

    pub fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.send(c.encode_utf8(&mut [0; 4]));
        }
    }

    /// Waits for the child to exit; returns its exit code.
    pub fn wait_exit(&mut self, limit: Duration) -> u32 {
        let start = Instant::now();
        while start.elapsed() < limit {
            if let Some(status) = self.child.try_wait().unwrap() {
                if let Some(r) = self.reader.take() {
                    // The reader ends when the pty's other side is gone.
                    let _ = r.join();
                }
                return status.exit_code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        panic!(
            "the program did not exit; the screen was:\n{}",
            self.contents()
        );
    }

    pub fn pid(&self) -> i32 {
        i32::try_from(self.child.process_id().unwrap()).unwrap()
    }

    /// Resizes the terminal; the kernel sends the program SIGWINCH. The screen is resized
    /// first, under its lock: output the program writes after the signal must never be read
    /// into the old size (as a real terminal, which resizes before it signals).
    pub fn resize(&self, cols: u16, rows: u16) {
        let mut screen = self.screen.lock().unwrap();
        screen.parser.screen_mut().set_size(rows, cols);
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        drop(screen);
    }

    pub fn raw(&self) -> Vec<u8> {
        self.screen.lock().unwrap().raw.clone()
    }

    /// The terminal was handed back: the last alternate-screen switch is a leave, the cursor
    /// is shown, and mouse reporting and bracketed paste are off (as the terminal's own
    /// state, which a shell would inherit, tracks them).
    pub fn assert_restored(&self) {
        let raw = self.raw();
        let text = String::from_utf8_lossy(&raw);
        let leave = text
            .rfind("\x1b[?1049l")
            .expect("left the alternate screen");
        assert!(
            text.rfind("\x1b[?1049h").is_none_or(|enter| enter < leave),
            "the last switch must leave the alternate screen"
        );
        let shown = text.rfind("\x1b[?25h").expect("showed the cursor");
        assert!(
            text.rfind("\x1b[?25l").is_none_or(|hidden| hidden < shown),
            "the cursor must end visible"
        );
        // vt100 keeps no focus-report mode: the bytes tell.
        assert!(
            text.rfind("\x1b[?1004h")
                .is_none_or(|on| text.rfind("\x1b[?1004l").is_some_and(|off| on < off)),
            "focus reports must end off"
        );
        let s = self.screen.lock().unwrap();
        assert_modes_off(s.parser.screen());
    }

    /// The terminal's state as the program left it (the parser's screen).
    pub fn with_screen<T>(&self, read: impl FnOnce(&vt100::Screen) -> T) -> T {
        read(self.screen.lock().unwrap().parser.screen())
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

/// Every mode the dashboard takes is given back: the main screen, a visible cursor, no mouse
/// reporting (a shell would receive mouse moves as typed garbage), no bracketed paste.
pub fn assert_modes_off(screen: &vt100::Screen) {
    assert!(!screen.alternate_screen(), "left the alternate screen");
    assert!(!screen.hide_cursor(), "the cursor is shown");
    assert_eq!(
        screen.mouse_protocol_mode(),
        vt100::MouseProtocolMode::None,
        "mouse reporting is off"
    );
    assert_eq!(
        screen.mouse_protocol_encoding(),
        vt100::MouseProtocolEncoding::Default,
        "mouse reports are back to the default encoding"
    );
    assert!(!screen.bracketed_paste(), "bracketed paste is off");
}
