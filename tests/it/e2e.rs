//! The real binary in a pseudo-terminal, as a user meets it.

use crate::common;

use base64::Engine;
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
    // Its finish was announced: a desktop notification (OSC 9 here) and a bell of its own.
    s.wait_for("the notification", Duration::from_secs(5), |_| {
        String::from_utf8_lossy(&s.raw())
            .contains("\x1b]9;gendash: task completed: image sim-3-e2e-check")
    });
    let raw = String::from_utf8_lossy(&s.raw()).into_owned();
    assert!(
        raw.matches('\x07').count() > raw.matches("\x1b]").count(),
        "a bell besides the OSC terminators"
    );

    // D downloads the selected (new) task's file into the current directory.
    s.send("D");
    let saved = home.path().join("sim-3-e2e-check.png");
    s.wait_for("the download", Duration::from_secs(10), |t| {
        t.contains("saved ") && saved.exists()
    });
    assert_eq!(std::fs::read(&saved).unwrap(), gendash::server::SAMPLE_PNG);

    // y copies its URL with OSC 52.
    s.send("y");
    s.wait_for("the copy", Duration::from_secs(5), |t| {
        t.contains("copied the download URL")
    });
    let raw = String::from_utf8_lossy(&s.raw()).into_owned();
    let copied = raw
        .split("\x1b]52;c;")
        .nth(1)
        .and_then(|r| r.split('\x07').next())
        .expect("an OSC 52 sequence");
    let url = String::from_utf8(
        base64::engine::general_purpose::STANDARD
            .decode(copied)
            .unwrap(),
    )
    .unwrap();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/files/sim-3-e2e-check.png"),
        "{url}"
    );

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
    std::fs::write(
        home.path().join("config/gendash/config.toml"),
        "poll_interval = 0.2\nbell = false\ndesktop_notifications = false\n",
    )
    .unwrap();
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
    // A category typed once is offered again in the next session.
    s.send("c");
    s.type_text("style");
    s.send("\r");
    s.wait_text("cate style");
    s.wait_for("the category to be saved", Duration::from_secs(5), |_| {
        std::fs::read_to_string(home.path().join("data/gendash/recent-categories.json"))
            .is_ok_and(|t| t.contains("style"))
    });
    let raw = String::from_utf8_lossy(&s.raw()).into_owned();
    assert!(
        !raw.contains("\x1b]9;") && !raw.contains("\x1b]777;"),
        "notifications were turned off"
    );
    assert_eq!(
        raw.matches('\x07').count(),
        raw.matches("\x1b]").count(),
        "the bell was turned off"
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
