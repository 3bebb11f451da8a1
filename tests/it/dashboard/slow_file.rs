//! A download that waits for the preview's copy of a slow file says so on its row at once, and
//! the file is asked of the service once: the real binary in a pseudo-terminal against the
//! reference service's `-slowfile` fault.

use crate::common::{self, Served};
use common::pty::{Session, command};
use std::time::{Duration, Instant};

/// Completed after a second; each `GET` of its file sends the body 4 s after the headers.
const TASK: &str = "sim-1-pic-slowfile4000";

/// How many `GET`s of the task's file the service has answered.
fn gets(served: &Served) -> usize {
    served
        .svc
        .file_requests()
        .iter()
        .filter(|r| r.name == format!("{TASK}.png") && r.method == "GET")
        .count()
}

#[test]
fn a_download_behind_the_previews_slow_fetch_says_it_waits_at_once_and_fetches_nothing() {
    let served = Served::with(
        &format!("{}image_preview = \"halfblocks\"\n", common::QUICK_TO_DL),
        &[TASK],
    );
    let mut s = Session::spawn(command(served.path(), &[], &served.env()), 150, 40);
    s.wait_row(TASK, "COMPLETED");
    // The watch pane focused, its row selected: the preview asks for the file.
    s.send("\t");
    let until = Instant::now() + Duration::from_secs(20);
    while gets(&served) == 0 {
        assert!(
            Instant::now() < until,
            "the preview never asked for the file; the screen was:\n{}",
            s.contents()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let asked = Instant::now();
    s.send("D");
    // Well before the body comes (4 s after the preview asked), the row says why nothing moves.
    s.wait_for(
        "the row to say it waits for the preview's copy",
        Duration::from_millis(1500),
        |t| {
            t.lines()
                .any(|l| l.contains(TASK) && l.contains("waits for the preview"))
        },
    );
    assert!(
        asked.elapsed() < Duration::from_millis(3500),
        "said only after the body came"
    );
    let saved = served.path().join("dl").join(format!("{TASK}.png"));
    s.wait_for(
        "the row to say the file is saved",
        Duration::from_secs(30),
        |t| saved.exists() && t.lines().any(|l| l.contains(TASK) && l.contains(" saved ")),
    );
    assert_eq!(std::fs::read(&saved).unwrap(), *gendash::server::SAMPLE_PNG);
    // The download took the preview's copy: one GET of the file on the wire.
    assert_eq!(gets(&served), 1, "{:?}", served.svc.file_requests());
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
}
