//! A terminal that never answers a query (a serial console, some multiplexers and embedded
//! terminals, a pipe-driven pseudo-terminal, a slow SSH link) still gets the whole dashboard:
//! gendash never asks where the cursor is, at start, on resize, on redraw or on resume.

use crate::common::pty::{Answers, Session, command};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use std::time::{Duration, Instant};

/// The cursor-position query (DSR 6) that waits for an answer.
const CURSOR_QUERY: &[u8] = b"\x1b[6n";

fn asked_for_the_cursor(s: &Session) -> bool {
    memchr::memmem::find(&s.raw(), CURSOR_QUERY).is_some()
}

fn stopped(pid: i32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rsplit(')')
        .next()
        .and_then(|r| r.trim_start().chars().next())
        == Some('T')
}

#[test]
fn a_terminal_that_never_answers_gets_a_working_dashboard() {
    let home = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let mut s = Session::spawn_answering(
        command(home.path(), &["--demo"], &[]),
        120,
        36,
        Answers::Never,
    );
    // The catalogue is on screen within a second: nothing waits for an answer (a cursor query
    // would have waited two seconds and then failed).
    s.wait_for(
        "the first frame with the catalogue",
        Duration::from_secs(20),
        |t| t.contains("320/320"),
    );
    let first_frame = started.elapsed();
    assert!(
        first_frame < Duration::from_secs(1),
        "the first frame took {first_frame:?}"
    );

    // A resize is redrawn at the new size: the hint line moves to the new last row.
    s.resize(150, 30);
    s.wait_for("the redraw at 150x30", Duration::from_secs(10), |t| {
        let rows: Vec<&str> = t.lines().collect();
        rows.len() == 30 && rows[29].contains("quit") && t.contains("320/320")
    });

    // Ctrl-Z stops it; SIGCONT brings every pane back.
    let before = s.raw().len();
    s.send("\x1a");
    let pid = s.pid();
    let until = Instant::now() + Duration::from_secs(10);
    while !stopped(pid) {
        assert!(Instant::now() < until, "the process did not stop");
        std::thread::sleep(Duration::from_millis(20));
    }
    kill(Pid::from_raw(pid), Signal::SIGCONT).unwrap();
    s.wait_for("the redraw after resume", Duration::from_secs(10), |_| {
        let raw = s.raw();
        let after = String::from_utf8_lossy(&raw[before..]);
        after.contains("\x1b[?1049h")
            && after.contains("LoRA models")
            && after.contains("Watch list")
    });

    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
    assert!(
        !asked_for_the_cursor(&s),
        "gendash asked the terminal for the cursor position"
    );
    let raw = String::from_utf8_lossy(&s.raw()).into_owned();
    assert!(
        !raw.contains("could not be read"),
        "no cursor-position error reached the screen"
    );
}
