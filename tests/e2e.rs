//! The real binary in a pseudo-terminal, as a user meets it.
#![allow(clippy::unwrap_used)]

mod common;

use common::pty::{Session, command};
use std::time::Duration;

fn fast_config(home: &std::path::Path) {
    let dir = home.join("config/gendash");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.toml"), "poll_interval = 0.2\n").unwrap();
}

#[test]
fn demo_filter_add_complete_help_quit() {
    let home = tempfile::tempdir().unwrap();
    fast_config(home.path());
    let mut s = Session::spawn(command(home.path(), &["--demo"], &[]), 150, 40);
    s.wait_text("320/320");
    s.wait_text("demo-video-done");

    // Typing a filter narrows the list, best match first.
    s.send("/");
    s.type_text("watercol");
    s.wait_for("the list to narrow", Duration::from_secs(10), |t| {
        t.contains("/watercol") && !t.contains("320/320") && t.contains("/320")
    });
    let screen = s.contents();
    let first_row = screen.lines().nth(2).unwrap();
    assert!(
        first_row.contains("watercolor"),
        "best match first: {first_row}"
    );
    s.send("\x1b");
    s.send("\x1b");
    s.wait_text("320/320");

    // Add a task and watch it reach COMPLETED.
    s.send("a");
    s.wait_text("Add tasks to the watch list");
    s.type_text("sim-3-e2e-check");
    s.send("\r");
    s.wait_for("the new task to complete", Duration::from_secs(20), |t| {
        t.lines()
            .any(|l| l.contains("sim-3-e2e-check") && l.contains("COMPLETED") && l.contains("100%"))
    });

    s.send("?");
    s.wait_text("Keys · Esc or ? closes");
    s.send("\x1b");
    s.wait_for("the help to close", Duration::from_secs(5), |t| {
        !t.contains("Keys · Esc or ? closes")
    });

    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
    // The demo never touched the user's own watch list.
    assert!(!home.path().join("data/gendash/watchlist.json").exists());
}

#[test]
fn the_dashboard_picks_up_scripted_watch_changes() {
    let home = tempfile::tempdir().unwrap();
    fast_config(home.path());
    let svc_home = home.path().to_path_buf();
    // A real service in this process, and the dashboard pointed at it.
    let rt = tokio::runtime::Runtime::new().unwrap();
    let svc = rt.block_on(common::service());
    let base = svc.base_url().to_string();
    let env = [
        ("GENDASH_BASE_URL", base.as_str()),
        ("GENDASH_TOKEN", common::TOKEN),
    ];
    let mut s = Session::spawn(command(home.path(), &[], &env), 150, 40);
    s.wait_text("320/320");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gendash"))
        .args(["watch", "add", "--video", "sim-2-from-script"])
        .env("XDG_DATA_HOME", svc_home.join("data"))
        .output()
        .unwrap();
    assert!(out.status.success());
    s.wait_for(
        "the scripted task to appear and complete",
        Duration::from_secs(20),
        |t| {
            t.lines()
                .any(|l| l.contains("sim-2-from-script") && l.contains("COMPLETED"))
        },
    );
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
    // Its last known status was saved for the next start.
    let saved = std::fs::read_to_string(home.path().join("data/gendash/watchlist.json")).unwrap();
    assert!(
        saved.contains("sim-2-from-script") && saved.contains("COMPLETED"),
        "{saved}"
    );
}
