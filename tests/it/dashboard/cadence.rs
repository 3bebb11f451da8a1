//! The adaptive poller in the real binary: the status bar's requests per second and polls in
//! flight, the detail's next poll and why.

use crate::common;

use common::pty::{Session, command};
use std::time::{Duration, Instant};

#[test]
fn the_status_bar_shows_the_poll_rate_and_the_detail_the_next_poll() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("config/gendash");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.toml"), "poll_interval = 0.2\n").unwrap();
    let tmp = home.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let env = [("TMPDIR", tmp.to_str().unwrap())];
    let mut s = Session::spawn(command(home.path(), &["--demo"], &env), 200, 40);
    s.wait_text("demo-video-done");
    // The demo's endless task keeps the poller busy: five requests a second at 0.2 s, once
    // the others have finished.
    s.wait_for("the poll rate", Duration::from_secs(20), |t| {
        t.contains(" 5.0 req/s · ") && t.contains(" in flight")
    });
    // The watch pane, down to a running task: its next poll, on screen.
    s.send("\t");
    let start = Instant::now();
    while !s.contents().contains("· on screen") {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no running task said its next poll:\n{}",
            s.contents()
        );
        s.send("\x1b[B");
        std::thread::sleep(Duration::from_millis(300));
    }
    let screen = s.contents();
    assert!(
        screen.contains("next poll in 1s · on screen")
            || screen.contains("polling now · on screen"),
        "{screen}"
    );
    s.send("q");
}
