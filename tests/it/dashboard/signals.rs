//! Hard exits in a pseudo-terminal: panics (main task and worker), SIGINT, SIGTERM, Ctrl-Z
//! and SIGCONT (a SIGHUP while the terminal is there reloads the config: `reload.rs`). After each the terminal is handed back — alternate screen left, cursor
//! shown, cooked mode — the exit status is right and the watch list file is intact.

use crate::common;

use common::pty::{Session, command};
use gendash::api::TaskKind;
use gendash::store::watchlist::{WatchEntry, WatchStore};
use nix::sys::signal::{Signal, kill};
use nix::sys::termios::LocalFlags;
use nix::unistd::Pid;
use std::path::Path;
use std::time::Duration;

struct Setup {
    home: tempfile::TempDir,
    _svc: gendash::server::Running,
    base: String,
    _rt: tokio::runtime::Runtime,
}

fn setup() -> Setup {
    let home = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let svc = rt.block_on(common::service());
    let base = svc.base_url().to_string();
    let store = WatchStore::new(home.path().join("data/gendash/watchlist.json"));
    store
        .update(|l| {
            l.push(WatchEntry::new("hold-a", TaskKind::Image));
            l.push(WatchEntry::new("sim-1000-b", TaskKind::Video));
            l.push(WatchEntry::new("demo-image-done", TaskKind::Image));
        })
        .unwrap();
    let dir = home.path().join("config/gendash");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.toml"), "poll_interval = 0.2\n").unwrap();
    Setup {
        home,
        _svc: svc,
        base,
        _rt: rt,
    }
}

fn dashboard(s: &Setup, extra: &[(&str, &str)]) -> Session {
    let mut env = vec![
        ("GENDASH_BASE_URL", s.base.as_str()),
        ("GENDASH_TOKEN", common::TOKEN),
    ];
    env.extend_from_slice(extra);
    let session = Session::spawn(command(s.home.path(), &[], &env), 120, 36);
    session.wait_text("320/320");
    session.wait_text("demo-image-done");
    assert_modes_on(&session);
    session
}

/// While it runs, the dashboard holds the modes it must give back (else their check after
/// an exit would prove nothing).
fn assert_modes_on(session: &Session) {
    session.with_screen(|screen| {
        assert!(screen.alternate_screen());
        assert_ne!(
            screen.mouse_protocol_mode(),
            vt100::MouseProtocolMode::None,
            "mouse reporting on while running"
        );
        assert!(screen.bracketed_paste(), "bracketed paste on while running");
    });
}

fn assert_cooked(session: &Session) {
    let t = session.master.get_termios().expect("termios of the pty");
    assert!(
        t.local_flags.contains(LocalFlags::ICANON),
        "canonical mode is back"
    );
    assert!(t.local_flags.contains(LocalFlags::ECHO), "echo is back");
    assert!(
        t.local_flags.contains(LocalFlags::ISIG),
        "signals from keys are back"
    );
}

fn assert_list_intact(home: &Path) {
    let loaded = WatchStore::new(home.join("data/gendash/watchlist.json"))
        .load()
        .unwrap();
    assert!(loaded.set_aside.is_none(), "the watch list file parses");
    let ids: Vec<_> = loaded.entries.iter().map(|e| e.task_id.as_str()).collect();
    assert_eq!(ids, ["hold-a", "sim-1000-b", "demo-image-done"]);
}

fn assert_no_token(session: &Session) {
    let raw = session.raw();
    assert!(
        memchr::memmem::find(&raw, common::TOKEN.as_bytes()).is_none(),
        "the token reached the screen"
    );
}

fn after_last_leave(session: &Session) -> String {
    let raw = String::from_utf8_lossy(&session.raw()).into_owned();
    raw.rfind("\x1b[?1049l")
        .map(|i| raw[i..].to_string())
        .unwrap_or_default()
}

#[test]
fn a_panic_in_the_main_task_restores_the_terminal() {
    let s = setup();
    let mut d = dashboard(&s, &[("GENDASH_TEST_PANIC", "main")]);
    d.send("?");
    assert_eq!(d.wait_exit(Duration::from_secs(10)), 101);
    d.assert_restored();
    assert_cooked(&d);
    assert!(
        after_last_leave(&d).contains("test panic in the main task"),
        "the message is printed after the restore"
    );
    assert_list_intact(s.home.path());
    assert_no_token(&d);
}

#[test]
fn a_panic_in_a_worker_restores_the_terminal() {
    let s = setup();
    // The first frame is on screen (`dashboard` waited for it); then the worker is told to
    // panic, with no timer to race.
    let mut d = dashboard(&s, &[("GENDASH_TEST_PANIC", "worker")]);
    kill(Pid::from_raw(d.pid()), Signal::SIGUSR1).unwrap();
    assert_eq!(d.wait_exit(Duration::from_secs(10)), 101);
    d.assert_restored();
    assert_cooked(&d);
    assert!(after_last_leave(&d).contains("test panic in a worker"));
    assert_list_intact(s.home.path());
}

#[test]
fn sigint_sigterm_quit_cleanly() {
    for (signal, code) in [(Signal::SIGINT, 130), (Signal::SIGTERM, 143)] {
        let s = setup();
        let mut d = dashboard(&s, &[]);
        kill(Pid::from_raw(d.pid()), signal).unwrap();
        assert_eq!(d.wait_exit(Duration::from_secs(10)), code, "{signal}");
        d.assert_restored();
        assert_cooked(&d);
        assert_list_intact(s.home.path());
        assert_no_token(&d);
    }
}

fn state_of(pid: i32) -> char {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The state follows the command name in parentheses.
    stat.rsplit(')')
        .next()
        .and_then(|r| r.trim_start().chars().next())
        .unwrap_or('?')
}

#[test]
fn ctrl_z_suspends_and_sigcont_redraws_everything() {
    let s = setup();
    let mut d = dashboard(&s, &[]);
    let before_stop = d.raw().len();
    d.send("\x1a");
    let pid = d.pid();
    let start = std::time::Instant::now();
    while state_of(pid) != 'T' {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the process did not stop"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // While stopped, the terminal is the shell's again: after the stop request the program left
    // the alternate screen and showed the cursor, and did not take either back.
    d.wait_for(
        "the terminal to be handed back",
        Duration::from_secs(5),
        |_| {
            let raw = d.raw();
            let tail = String::from_utf8_lossy(&raw[before_stop..]);
            tail.rfind("\x1b[?1049l")
                .is_some_and(|leave| tail[leave..].find("\x1b[?1049h").is_none())
                && tail
                    .rfind("\x1b[?25h")
                    .is_some_and(|shown| tail[shown..].find("\x1b[?25l").is_none())
        },
    );
    d.with_screen(common::pty::assert_modes_off);
    assert_cooked(&d);
    let before = d.raw().len();
    kill(Pid::from_raw(pid), Signal::SIGCONT).unwrap();
    d.wait_for(
        "the whole screen to be redrawn",
        Duration::from_secs(10),
        |t| t.contains("320/320") && t.contains("demo-image-done"),
    );
    let after = String::from_utf8_lossy(&d.raw()[before..]).into_owned();
    assert!(
        after.contains("\x1b[?1049h"),
        "back on the alternate screen"
    );
    assert_modes_on(&d);
    assert!(
        after.contains("\x1b[2J"),
        "the screen was cleared for a full redraw"
    );
    assert!(
        after.contains("LoRA models") && after.contains("Watch list"),
        "every pane was drawn again"
    );
    d.send("q");
    assert_eq!(d.wait_exit(Duration::from_secs(10)), 0);
    d.assert_restored();
    assert_cooked(&d);
    assert_list_intact(s.home.path());
}
