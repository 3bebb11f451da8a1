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
    leave_and_quit(&mut s, "\x1b");
}

/// `keys` (the view's back key), then `q` from the watch list: the dashboard ends well and
/// leaves the terminal as it found it.
fn leave_and_quit(s: &mut Session, keys: &str) {
    s.send(keys);
    s.wait_for("the watch list again", Duration::from_secs(10), |t| {
        !t.contains("Archive ·")
    });
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
}

/// A long archive: a query that thousands of tasks match shows its first matches at once, and
/// the dashboard reads the rest of the list after that frame by itself, so the title's count
/// comes without another key.
#[test]
fn a_long_archives_count_follows_its_first_matches_by_itself() {
    use gendash::api::TaskKind;
    use gendash::store::archive::{Archive, Files};
    use gendash::store::watchlist::{LastKnown, WatchEntry};
    let served = common::Served::new();
    served.config("bell = false\ndesktop_notifications = false\nimage_preview = \"off\"\n");
    let now = gendash::store::watchlist::unix_now();
    let entries: Vec<WatchEntry> = (0..5_000)
        .map(|i| {
            let mut e = WatchEntry::new(format!("bulk-{i}"), TaskKind::Image);
            e.last = Some(LastKnown {
                status: "COMPLETED".into(),
                percent: 100,
                url_download: None,
                updated_at: now - i,
                running_since: None,
                finished_at: Some(now - i),
                start_seen: false,
                history: Vec::new(),
                extra: None,
            });
            e
        })
        .collect();
    let data = served.path().join("data/gendash");
    std::fs::create_dir_all(&data).unwrap();
    let mut archive = Archive::open(&Files::in_dir(&data)).unwrap();
    assert_eq!(archive.insert(&entries, now).unwrap(), 5_000);
    drop(archive);
    let mut s = Session::spawn(command(served.path(), &[], &served.env()), 120, 30);
    s.wait_text("320/320");
    s.send("\t");
    s.send("H");
    s.wait_text("Archive · 5,000 tasks · sorted by finished");
    // `k` is in every task's ID: all 5,000 match, more than a keystroke reads at once.
    s.send("/");
    s.send("k");
    s.wait_for("the count of every match", Duration::from_secs(10), |t| {
        t.contains("Archive · 5,000 tasks · filtered 5,000 ·")
    });
    assert!(s.contents().contains("bulk-0 "), "{}", s.contents());
    // Esc leaves the filter field (sent alone: ESC ESC in one read is a single Esc).
    s.send("\x1b");
    leave_and_quit(&mut s, "\x1b");
}
