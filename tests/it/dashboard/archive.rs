//! The archive view in the real binary: a finished task removed from the watch list is found
//! in the Archive view (`H`), against the reference service.

use crate::common::{self, pty::Session, pty::command};
use std::time::Duration;

#[test]
fn a_removed_finished_task_is_in_the_archive_view() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("config/gendash");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        "poll_interval = 0.2\nbell = false\ndesktop_notifications = false\n",
    )
    .unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let svc = rt.block_on(common::service());
    let base = svc.base_url().to_string();
    let env = [
        ("GENDASH_BASE_URL", base.as_str()),
        ("GENDASH_TOKEN", common::TOKEN),
    ];
    let out = common::gendash(home.path())
        .args(["watch", "add", "--label", "kept one", "sim-1-archived"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let mut s = Session::spawn(command(home.path(), &[], &env), 120, 30);
    s.wait_text("320/320");
    s.wait_for("the task to complete", Duration::from_secs(20), |t| {
        t.lines()
            .any(|l| l.contains("sim-1-archived") && l.contains("COMPLETED"))
    });
    // The watch list has the keys; the task leaves it, into the archive.
    s.send("\t");
    s.send("d");
    s.wait_for(
        "the task to leave the watch list",
        Duration::from_secs(10),
        |t| {
            !t.lines()
                .any(|l| l.contains("sim-1-archived") && l.contains("COMPLETED"))
        },
    );
    s.send("H");
    s.wait_for(
        "the archive view with the task",
        Duration::from_secs(10),
        |t| {
            t.contains("Archive · 1 task")
                && t.lines()
                    .any(|l| l.contains("sim-1-archived") && l.contains("kept one"))
        },
    );
    let screen = s.contents();
    assert!(screen.contains("✓ COMPLETED"), "{screen}");
    s.send("\x1b");
    s.wait_for("the watch list again", Duration::from_secs(10), |t| {
        !t.contains("Archive ·")
    });
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
}
