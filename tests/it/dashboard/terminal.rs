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
    let mut s = Session::spawn_answering(
        command(home.path(), &["--demo"], &[]),
        120,
        36,
        Answers::Never,
    );
    // The catalogue comes on screen: nothing waits for an answer (a cursor query would have
    // waited two seconds and then failed; the cursor query is looked for below). How long the
    // first frame takes is measured by `scripts/measure-cpu.py --scenario startup`.
    s.wait_for(
        "the first frame with the catalogue",
        Duration::from_secs(20),
        |t| t.contains("320/320"),
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

/// The demo's watch list, in its order (`server::simulation::DEMO_TASKS`).
const DEMO_TASKS: [&str; 8] = [
    "sim-3-sunset-over-harbor",
    "sim-45-portrait-batch",
    "sim-25-drone-flyover",
    "hold-queued-behind-others",
    "fail-0-rejected-prompt",
    "fail-6-upscale-out-of-memory",
    "demo-image-done",
    "demo-video-done",
];

/// The demo at 140x45, once every one of its tasks is on screen.
fn demo_with_its_tasks(home: &std::path::Path) -> Session {
    let s = Session::spawn(command(home, &["--demo"], &[]), 140, 45);
    s.wait_for("the demo's tasks", Duration::from_secs(20), |t| {
        DEMO_TASKS.iter().all(|id| t.contains(id))
    });
    s
}

/// The report: Tab, G, a resize to 60x14 (three watch rows, the list scrolled to its end) and
/// back to 140x45 left the list scrolled with empty rows below. Back at full size every task
/// is on screen again.
#[test]
fn a_resize_back_to_full_size_shows_the_whole_watch_list_again() {
    let home = tempfile::tempdir().unwrap();
    let mut s = demo_with_its_tasks(home.path());
    s.send("\t");
    s.send("G");
    s.resize(60, 14);
    s.wait_for(
        "the watch list at 60x14, scrolled to its end",
        Duration::from_secs(10),
        |t| t.lines().count() == 14 && t.contains("demo-video-done") && !t.contains(DEMO_TASKS[0]),
    );
    s.resize(140, 45);
    s.wait_for(
        "every task on screen again at 140x45",
        Duration::from_secs(10),
        |t| DEMO_TASKS.iter().all(|id| t.contains(id)),
    );
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
}

/// The mouse reaches the dashboard (its input is read and parsed on the loop's own thread): a
/// click on a watch row selects it, and the detail shows that task.
#[test]
fn a_click_on_a_watch_row_selects_it_and_its_detail_shows() {
    let home = tempfile::tempdir().unwrap();
    let mut s = demo_with_its_tasks(home.path());
    let last = DEMO_TASKS[DEMO_TASKS.len() - 1];
    let shown = |t: &str| t.contains(&format!("task      {last}"));
    assert!(!shown(&s.contents()), "{last} is not the selected task yet");
    let (row, column) = s
        .contents()
        .lines()
        .enumerate()
        .find_map(|(y, line)| line.find(last).map(|x| (y, line[..x].chars().count())))
        .expect("the row on screen");
    // SGR mouse reports count from 1: a press and its release on the row's task ID. Clicks
    // while the terminal is still being asked what it can draw are dropped (nothing is laid
    // out for them yet): click again until it is done.
    let (x, y) = (column + 2, row + 1);
    let until = Instant::now() + Duration::from_secs(20);
    while !shown(&s.contents()) {
        assert!(
            Instant::now() < until,
            "no click selected {last}:\n{}",
            s.contents()
        );
        s.send(&format!("\x1b[<0;{x};{y}M\x1b[<0;{x};{y}m"));
        std::thread::sleep(Duration::from_millis(300));
    }
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
}
