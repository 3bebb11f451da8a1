//! When a watched task finishes: `on_complete` runs with the task's values as exact arguments
//! (no shell), and inside tmux the desktop notification is wrapped in tmux's passthrough.

use crate::common;
use common::pty::{Session, command};
use std::time::Duration;

/// How many OSC 9 notices (`ESC ] 9;`) in `raw` stand outside tmux's passthrough, where the
/// ESC inside is doubled (`ESC ESC ] 9;`). OSC 9;4, the progress indicator, is no notice.
fn unwrapped_notices(raw: &[u8]) -> usize {
    memchr::memmem::find_iter(raw, b"\x1b]9;")
        .filter(|&at| at == 0 || raw[at - 1] != 0x1b)
        .filter(|&at| !raw[at..].starts_with(b"\x1b]9;4;"))
        .count()
}

#[test]
fn unwrapped_notices_are_counted() {
    assert_eq!(unwrapped_notices(b"\x1b]9;a\x07"), 1);
    assert_eq!(unwrapped_notices(b"\x1b]9;4;1;50\x07"), 0);
    assert_eq!(unwrapped_notices(b"\x1bPtmux;\x1b\x1b]9;a\x07\x1b\\"), 0);
    assert_eq!(
        unwrapped_notices(b"x\x1b\\\x1b]9;a\x07\x1bPtmux;\x1b\x1b]9;a"),
        1
    );
}

#[test]
fn on_complete_runs_without_a_shell_and_tmux_gets_the_notice_passed_through() {
    let served = common::Served::new();
    let (home, base) = (&served.home, &served.base);
    let record = home.path().join("hook.jsonl");
    // The recording program appends its arguments, one JSON array a line.
    let program = "import json,sys; open(sys.argv[1],'a').write(json.dumps(sys.argv[2:])+chr(10))";
    served.config(&format!(
            "poll_interval = 0.2\nbell = false\n\
             on_complete = [\"python3\", \"-c\", \"{program}\", \"{}\", \"{{task_id}} {{status}}\", \
             \"{{kind}}\", \"{{percent}}\", \"{{url}}\", \"[{{file}}]\", \"; rm -rf $(pwd) '\\\"\"]\n",
            record.display()
    ));
    served.watch_add(&["sim-2-hooked"]);
    let mut env = served.env().to_vec();
    env.push(("TMUX", "/tmp/tmux-1000/default,4242,0"));
    let mut s = Session::spawn(command(home.path(), &[], &env), 150, 40);
    s.wait_for("the hook to have run", Duration::from_secs(20), |_| {
        std::fs::read_to_string(&record).is_ok_and(|t| t.ends_with('\n'))
    });
    let lines: Vec<Vec<String>> = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines,
        [vec![
            "sim-2-hooked COMPLETED".to_string(),
            "image".into(),
            "100".into(),
            format!("{}/files/sim-2-hooked.png", base.trim_end_matches('/')),
            "[]".into(),
            "; rm -rf $(pwd) '\"".into(),
        ]],
        "once, each argument exactly as configured"
    );
    let wrapped = b"\x1bPtmux;\x1b\x1b]9;gendash: task completed: image sim-2-hooked";
    // The notice follows once the notification window (2 s) closed.
    s.wait_for("the notice", Duration::from_secs(10), |_| {
        memchr::memmem::find(&s.raw(), wrapped).is_some()
    });
    let raw = s.raw();
    assert!(
        memchr::memmem::find(&raw, wrapped).is_some(),
        "the notification in tmux's passthrough: {}",
        String::from_utf8_lossy(&raw).escape_debug()
    );
    assert_eq!(
        unwrapped_notices(&raw),
        0,
        "never unwrapped inside tmux: {}",
        String::from_utf8_lossy(&raw).escape_debug()
    );
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
    assert_eq!(
        std::fs::read_to_string(&record).unwrap().lines().count(),
        1,
        "not run again"
    );
}

#[test]
fn a_bad_on_complete_is_an_error_naming_the_line_and_key() {
    let home = tempfile::tempdir().unwrap();
    for (value, says) in [
        (
            r#"["notify-send", "{task}"]"#,
            "`{task}` is not a placeholder",
        ),
        (r#"["notify-send", "{status"]"#, "without its `}`"),
        ("[]", "on_complete names no program"),
        (r#""notify-send {status}""#, "invalid type"),
    ] {
        common::write_config(
            home.path(),
            &format!("bell = false\non_complete = {value}\n"),
        );
        let out = common::gendash(home.path())
            .args(["config", "show"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{value}");
        assert!(
            err.contains("config.toml line 2") && err.contains(says),
            "{value}: {err}"
        );
    }
}

/// Two dashboards open on one data directory, polling one service, with `auto_download` and
/// `on_complete`: each finished task gets one hook run, one notification and one download
/// between them (claimed in the watch list file); the hook runs after the download, with the
/// saved file whole; the other dashboard's row shows the file the first saved.
#[test]
fn two_dashboards_on_one_data_dir_announce_and_fetch_each_finish_once() {
    let served = common::Served::new();
    let (home, svc) = (&served.home, &served.svc);
    let record = configure_a_recording_hook(&served);
    // Long enough that both dashboards see them running before they finish.
    let (done, failed) = ("sim-30-shared", "fail-30-shared");
    common::gendash_ok(home.path(), &["watch", "add", done, failed]);
    let logs = [home.path().join("one.log"), home.path().join("two.log")];
    let dashboard = |log: &std::path::Path| {
        let log = log.display().to_string();
        Session::spawn(
            command(home.path(), &["-v"], &[("GENDASH_LOG_FILE", log.as_str())]),
            150,
            40,
        )
    };
    let mut sessions = [dashboard(&logs[0]), dashboard(&logs[1])];
    let file = home.path().join("dl/sim-30-shared.png");
    let shows_saved = |t: &str| {
        t.lines()
            .any(|l| l.contains(done) && l.contains("saved sim-30-shared.png"))
            && t.lines()
                .any(|l| l.contains(failed) && l.contains("FAILED"))
    };
    for s in &sessions {
        s.wait_for(
            "the saved file on both dashboards' rows",
            Duration::from_secs(30),
            shows_saved,
        );
    }
    let lines = || -> Vec<String> {
        std::fs::read_to_string(&record)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    };
    sessions[0].wait_for("both hooks to have run", Duration::from_secs(10), |_| {
        lines().len() >= 2
    });
    wait_for_notices(&sessions, done, failed);
    for s in &mut sessions {
        s.send("q");
        assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
        s.assert_restored();
    }

    let mut ran = lines();
    ran.sort();
    let size = gendash::server::SAMPLE_PNG.len();
    assert_eq!(
        ran,
        [
            format!("{failed}\t\tnone"),
            format!("{done}\t{}\t{size}", file.display()),
        ],
        "one run per task, the completed one's after its file was saved whole"
    );
    let raw: Vec<Vec<u8>> = sessions.iter().map(Session::raw).collect();
    let notified = |what: &str| {
        let needle = format!("\x1b]9;gendash: {what}");
        raw.iter()
            .map(|r| memchr::memmem::find_iter(r, needle.as_bytes()).count())
            .sum::<usize>()
    };
    // Told once between them: each alone, or both in one notice when one dashboard claimed
    // both within the notification window (`notify = "each"`).
    let alone = (
        notified(&format!("task completed: image {done}")),
        notified(&format!("task failed: image {failed}")),
    );
    let together = notified("1 completed, 1 failed");
    assert!(
        (alone, together) == ((1, 1), 0) || (alone, together) == ((0, 0), 1),
        "{alone:?} {together}"
    );
    let gets = svc
        .file_requests()
        .into_iter()
        .filter(|r| r.method == "GET")
        .count();
    assert_eq!(
        gets,
        1,
        "one download between them: {:?}",
        svc.file_requests()
    );
    assert_eq!(std::fs::read(&file).unwrap(), *gendash::server::SAMPLE_PNG);
    claims_stay_in_the_file_only(home.path(), &[done, failed]);
    // Why the failed task's hook had no file, in the log of the dashboard that ran it.
    let said: String = logs
        .iter()
        .map(|l| std::fs::read_to_string(l).unwrap_or_default())
        .collect();
    assert_eq!(
        said.matches(&format!(
            "on_complete for {failed}: {{file}} is empty: the task failed"
        ))
        .count(),
        1,
        "{said}"
    );
}

/// The notices follow once the notification window (2 s) closed: waits until `done` and
/// `failed` were told, alone or together, by either dashboard.
fn wait_for_notices(sessions: &[Session], done: &str, failed: &str) {
    let told = |what: &str| {
        let needle = format!("\x1b]9;gendash: {what}");
        sessions
            .iter()
            .map(|s| memchr::memmem::find_iter(&s.raw(), needle.as_bytes()).count())
            .sum::<usize>()
    };
    sessions[0].wait_for("the notices", Duration::from_secs(10), |_| {
        let together = told("1 completed, 1 failed");
        told(&format!("task completed: image {done}")) + together > 0
            && told(&format!("task failed: image {failed}")) + together > 0
    });
}

/// The config of `served`'s home for its service: `auto_download` into `~/dl` and an
/// `on_complete` that is a real program, run without a shell: it appends the task, `{file}`
/// and the file's size when it ran to the returned `hook.tsv` (so a hook run before the
/// download finished shows).
fn configure_a_recording_hook(served: &common::Served) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let (home, base) = (served.path(), &served.base);
    let record = home.join("hook.tsv");
    let hook = home.join("hook.sh");
    std::fs::write(
        &hook,
        "#!/bin/sh\nsize=$(wc -c < \"$3\" 2>/dev/null || echo none)\n\
         printf '%s\\t%s\\t%s\\n' \"$2\" \"$3\" \"$size\" >> \"$1\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    common::write_config(
        home,
        &format!(
            "base_url = \"{base}\"\ntoken = \"{}\"\npoll_interval = 0.2\nbell = false\n\
             auto_download = true\ndownload_dir = \"~/dl\"\nimage_preview = \"off\"\n\
             on_complete = [\"{}\", \"{}\", \"{{task_id}}\", \"{{file}}\"]\n",
            common::TOKEN,
            hook.display(),
            record.display()
        ),
    );
    record
}

/// The claims are in the watch list file, not in `watch list --json`; both dashboards, gone,
/// left no registration behind.
fn claims_stay_in_the_file_only(home: &std::path::Path, ids: &[&str]) {
    let data = home.join("data/gendash");
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data.join("watchlist.json")).unwrap())
            .unwrap();
    for id in ids {
        let entry = file["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["task_id"] == *id)
            .unwrap();
        assert!(
            entry["claimed_by"]
                .as_str()
                .is_some_and(|c| c.len() == 16 && c.bytes().all(|b| b.is_ascii_hexdigit())),
            "{entry}"
        );
    }
    let out = common::gendash(home)
        .args(["watch", "list", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("claimed_by"));
    let left: Vec<_> = std::fs::read_dir(data.join("dashboards"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A claim in the watch list file stands while the dashboard that holds it runs (its file in
/// `dashboards/` is locked), and is taken over once that dashboard is gone: the real binary
/// fetches the task whose claimant is dead, leaves the one whose claimant lives, and fetches
/// that one at its next start once the claimant has gone.
#[test]
fn a_claim_stands_while_its_dashboard_runs_and_is_taken_over_after() {
    let served = common::Served::new();
    let (home, svc) = (&served.home, &served.svc);
    let record = configure_a_recording_hook(&served);
    for args in [
        &["watch", "add", "demo-image-done"][..],
        &["watch", "add", "--video", "demo-video-done"],
    ] {
        common::gendash_ok(home.path(), args);
    }
    let data = home.path().join("data/gendash");
    let (dead, alive) = ("00000000000000aa", "00000000000000bb");
    let list = data.join("watchlist.json");
    let mut file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&list).unwrap()).unwrap();
    for (entry, by) in file["tasks"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .zip([dead, alive])
    {
        entry["claimed_by"] = by.into();
    }
    std::fs::write(&list, file.to_string()).unwrap();
    // A dashboard that runs holds its file locked; the dead one left an unlocked file.
    std::fs::create_dir_all(data.join("dashboards")).unwrap();
    std::fs::write(data.join(format!("dashboards/{dead}.lock")), b"").unwrap();
    let living = std::fs::File::create(data.join(format!("dashboards/{alive}.lock"))).unwrap();
    living.lock().unwrap();
    let gets = |name: &str| {
        svc.file_requests()
            .iter()
            .filter(|r| r.method == "GET" && r.name == name)
            .count()
    };

    let log = home.path().join("gendash.log");
    let log_file = log.display().to_string();
    let mut s = Session::spawn(
        command(home.path(), &["-v"], &[("GENDASH_LOG_FILE", &log_file)]),
        150,
        40,
    );
    s.wait_text("saved demo-image-done.png");
    let left = format!("video demo-video-done: claimed by dashboard {alive}, which runs");
    s.wait_for(
        "the living claim left alone",
        Duration::from_secs(10),
        |_| std::fs::read_to_string(&log).is_ok_and(|l| l.contains(&left)),
    );
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    assert_eq!(
        gets("demo-image-done.png"),
        1,
        "the dead dashboard's claim taken over"
    );
    assert_eq!(
        gets("demo-video-done.mp4"),
        0,
        "the living one's left alone"
    );

    drop(living);
    let mut s = Session::spawn(command(home.path(), &[], &[]), 150, 40);
    s.wait_text("saved demo-video-done.mp4");
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    assert_eq!(gets("demo-video-done.mp4"), 1);
    assert_eq!(
        gets("demo-image-done.png"),
        1,
        "a saved file is not fetched again"
    );
    assert!(
        !record.exists(),
        "finished before they were watched: not announced, no hook"
    );
}
