//! Two dashboards on one data directory, and the files they share changed under them: a watch
//! list that turns unreadable, an archive another dashboard writes to.

use crate::common;
use common::pty::{Session, command};
use std::path::Path;
use std::time::Duration;

/// The home's watch list (`XDG_DATA_HOME/gendash`, as a child with `clean_env` finds it).
fn watch_list(home: &Path) -> std::path::PathBuf {
    home.join("data/gendash/watchlist.json")
}

/// Two dashboards on one data directory, each logging to a file of its own (`-v`).
fn two_dashboards(served: &common::Served) -> [Session; 2] {
    let home = served.path();
    ["one", "two"].map(|name| {
        let log = home.join(format!("{name}.log")).display().to_string();
        let mut env = served.env().to_vec();
        env.push(("GENDASH_LOG_FILE", log.as_str()));
        Session::spawn(command(home, &["-v"], &env), 200, 40)
    })
}

/// The watch list replaced by bytes that are no watch list while two dashboards run: it is set
/// aside byte for byte, a dashboard writes back the list it shows and says so on its status bar
/// and in its log, and neither view is emptied; the file is whole again.
#[test]
fn a_watch_list_that_turns_bad_is_set_aside_and_written_back() {
    let served = common::Served::with(
        "poll_interval = 0.2\nbell = false\ndesktop_notifications = false\n",
        &["sim-900-keep-one", "sim-900-keep-two"],
    );
    let home = served.path();
    let mut sessions = two_dashboards(&served);
    for s in &sessions {
        s.wait_row("sim-900-keep-two", "IN_PROGRESS");
        s.wait_row("sim-900-keep-one", "IN_PROGRESS");
    }
    let file = watch_list(home);
    let bad = b"{\"version\":1,\"tasks\":[{\"task_id\":";
    // Replaced whole, as an editor saves: no dashboard reads half of it.
    let temp = file.with_file_name("broken.tmp");
    std::fs::write(&temp, bad).unwrap();
    std::fs::rename(&temp, &file).unwrap();

    let said = "wrote back the 2 tasks it shows";
    let start = std::time::Instant::now();
    while !sessions.iter().any(|s| s.contents().contains(said))
        && start.elapsed() < Duration::from_secs(20)
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    let screens: Vec<String> = sessions.iter().map(Session::contents).collect();
    assert!(
        screens.iter().any(|s| s.contains(said)),
        "a status bar says so: {screens:#?}"
    );
    // Both views keep their rows, now and after the next checks of the file (one a second).
    std::thread::sleep(Duration::from_millis(2500));
    for s in &sessions {
        let screen = s.contents();
        assert!(
            screen.contains("sim-900-keep-one") && screen.contains("sim-900-keep-two"),
            "{screen}"
        );
    }
    let kept = gendash::store::watchlist::WatchStore::new(&file)
        .read()
        .expect("the file is whole again");
    let mut ids: Vec<String> = kept.into_iter().map(|e| e.task_id).collect();
    ids.sort();
    assert_eq!(ids, ["sim-900-keep-one", "sim-900-keep-two"]);
    let aside: Vec<_> = std::fs::read_dir(file.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("watchlist.json.corrupt-"))
        .collect();
    assert_eq!(aside.len(), 1, "set aside once: {aside:?}");
    assert_eq!(std::fs::read(&aside[0]).unwrap(), bad, "byte for byte");
    for s in &mut sessions {
        s.send("q");
        assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    }
    let logged: String = ["one", "two"]
        .iter()
        .map(|n| std::fs::read_to_string(home.join(format!("{n}.log"))).unwrap_or_default())
        .collect();
    assert!(logged.contains(said), "{logged}");
}

/// Two dashboards on one data directory: one has its Archive view open when the other
/// removes a finished task; the open view shows it within a couple of seconds, with no key.
#[test]
fn an_open_archive_view_sees_what_another_dashboard_archives() {
    let served = common::Served::new();
    served.config("poll_interval = 0.2\nbell = false\ndesktop_notifications = false\n");
    let home = served.path();
    // The archive exists, empty, before the task is added: its first open copies in the
    // watch list's finished tasks, which would put the task there before it is removed.
    drop(
        gendash::store::archive::Archive::open(&gendash::store::archive::Files::in_dir(
            &home.join("data/gendash"),
        ))
        .unwrap(),
    );
    let id = "sim-1-archived-elsewhere";
    served.watch_add(&[id]);
    let [mut archiving, mut viewing] = two_dashboards(&served);
    for s in [&archiving, &viewing] {
        s.wait_row(id, "COMPLETED");
    }
    // The view opens from the watch list.
    viewing.send("\t");
    viewing.send("H");
    viewing.wait_for("the empty archive view", Duration::from_secs(10), |t| {
        t.contains("Archive · 0 tasks") && t.contains("The archive is empty.")
    });
    archiving.send("\t");
    archiving.send("d");
    archiving.wait_for(
        "the task to leave its watch list",
        Duration::from_secs(10),
        |t| !t.lines().any(|l| l.contains(id) && l.contains("COMPLETED")),
    );
    viewing.wait_for(
        "the other dashboard's archived task in the open view",
        Duration::from_secs(10),
        |t| t.contains("Archive · 1 task") && t.lines().any(|l| l.contains(id)),
    );
    viewing.send("\x1b");
    viewing.wait_for("the watch list again", Duration::from_secs(10), |t| {
        !t.contains("Archive ·")
    });
    for s in [&mut archiving, &mut viewing] {
        s.send("q");
        assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
        s.assert_restored();
    }
}
