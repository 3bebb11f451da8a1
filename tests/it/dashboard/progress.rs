//! The whole list's progress on the terminal itself (OSC 9;4 and the window title, the old
//! title saved and restored around it, also across Ctrl-Z), switched off by
//! `terminal_progress` and `set_title`; and what the notification policy does at the end of a
//! run (`notify = "batch"`, `on_all_done`).

use crate::common;
use common::pty::{Session, command};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use std::time::{Duration, Instant};

const PUSH: &str = "\x1b[22;0t";
const POP: &str = "\x1b[23;0t";

fn text(s: &Session) -> String {
    String::from_utf8_lossy(&s.raw()).into_owned()
}

fn stopped(pid: i32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rsplit(')')
        .next()
        .and_then(|r| r.trim_start().chars().next())
        == Some('T')
}

#[test]
fn progress_and_title_are_written_on_change_and_undone_on_exit_and_suspend() {
    let served = common::Served::with(
        // The failure 4 s in: the list shows a normal progress first even when the dashboard
        // starts slowly and draws what polls bring at its background pace.
        "poll_interval = 0.2\nbell = false\nimage_preview = \"off\"\n",
        &["sim-8-progress", "fail-4-progress"],
    );
    let mut s = Session::spawn(command(served.path(), &[], &served.env()), 150, 40);
    s.wait_for("both finished", Duration::from_secs(30), |t| {
        t.contains("COMPLETED") && t.contains("FAILED")
    });
    s.wait_for("the indicator removed", Duration::from_secs(10), |_| {
        text(&s).contains("\x1b]9;4;0;0\x07")
    });
    // More frames, nothing changed in the list: nothing more is written.
    for cols in [140, 150] {
        let before = s.raw().len();
        s.resize(cols, 40);
        s.wait_for("the redraw", Duration::from_secs(10), |_| {
            s.raw().len() > before + 1000
        });
    }
    let raw = text(&s);
    let at = |needle: &str| {
        raw.find(needle)
            .unwrap_or_else(|| panic!("{needle:?} in {}", raw.escape_debug()))
    };
    // The title saved first, then the progress: normal, in error once a task failed while the
    // other ran, removed when nothing runs.
    let normal = at("\x1b]9;4;1;");
    assert!(at(PUSH) < normal, "{}", raw.escape_debug());
    let error = at("\x1b]9;4;2;");
    assert!(normal < error && error < at("\x1b]9;4;0;0\x07"));
    assert!(at("\x1b]0;gendash · 0/2 · 0%\x07") < at("\x1b]0;gendash · 1/2 · "));
    assert!(raw.contains("\x1b]0;gendash · 2/2 · 100%\x07"));
    // Only on change: the final title once, however many frames were drawn.
    assert_eq!(raw.matches("gendash · 2/2 · 100%").count(), 1);
    assert_eq!(raw.matches("\x1b]9;4;0;0\x07").count(), 1);

    // Ctrl-Z gives the title back; on resume it is saved again and written anew.
    let before = s.raw().len();
    s.send("\x1a");
    let pid = s.pid();
    let until = Instant::now() + Duration::from_secs(10);
    while !stopped(pid) {
        assert!(Instant::now() < until, "the process did not stop");
        std::thread::sleep(Duration::from_millis(20));
    }
    kill(Pid::from_raw(pid), Signal::SIGCONT).unwrap();
    s.wait_for("the title after resume", Duration::from_secs(10), |_| {
        let raw = s.raw();
        String::from_utf8_lossy(&raw[before..]).contains("gendash · 2/2 · 100%")
    });
    let after = String::from_utf8_lossy(&s.raw()[before..]).into_owned();
    let (pop, push) = (
        after.find(POP).expect("popped"),
        after.find(PUSH).expect("pushed"),
    );
    assert!(
        pop < push && push < after.find("\x1b]0;gendash · 2/2").expect("title"),
        "{}",
        after.escape_debug()
    );

    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
    let raw = text(&s);
    assert_eq!(raw.matches(PUSH).count(), 2, "{}", raw.escape_debug());
    assert_eq!(raw.matches(POP).count(), 2, "{}", raw.escape_debug());
    assert!(raw.rfind(POP) > raw.rfind(PUSH), "restored on exit");
    assert!(
        raw.rfind(POP) > raw.rfind("\x1b]0;"),
        "no title after the restore"
    );
}

#[test]
fn switched_off_nothing_of_either_is_written() {
    let served = common::Served::with(
        "poll_interval = 0.2\nbell = false\nimage_preview = \"off\"\n\
         terminal_progress = false\nset_title = false\n",
        &["sim-3-quiet"],
    );
    let mut s = Session::spawn(command(served.path(), &[], &served.env()), 150, 40);
    s.wait_for("the task finished", Duration::from_secs(30), |t| {
        t.contains("COMPLETED")
    });
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
    let raw = text(&s);
    for needle in ["\x1b]9;4;", PUSH, POP, "\x1b]0;", "\x1b]2;"] {
        assert!(
            !raw.contains(needle),
            "{needle:?} in {}",
            raw.escape_debug()
        );
    }
}

/// `notify = "batch"`: one notice when the last task finished, none for each; `on_all_done`
/// runs once, without a shell, with the run's counts.
#[test]
fn batch_tells_once_at_the_end_and_on_all_done_gets_the_counts() {
    let served = common::Served::new();
    let record = served.path().join("all-done.jsonl");
    let program = "import json,sys; open(sys.argv[1],'a').write(json.dumps(sys.argv[2:])+chr(10))";
    served.config(&format!(
        "poll_interval = 0.2\nbell = false\nimage_preview = \"off\"\nnotify = \"batch\"\n\
         on_all_done = [\"python3\", \"-c\", \"{program}\", \"{}\", \"{{completed}}\", \
         \"{{failed}}\", \"{{count}}\", \"all {{count}}; $(id)\"]\n",
        record.display()
    ));
    served.watch_add(&["sim-3-batch", "fail-5-batch", "sim-7-batch"]);
    let mut s = Session::spawn(command(served.path(), &[], &served.env()), 150, 40);
    s.wait_for("on_all_done to have run", Duration::from_secs(30), |_| {
        std::fs::read_to_string(&record).is_ok_and(|t| t.ends_with('\n'))
    });
    s.wait_for("the notice", Duration::from_secs(5), |_| {
        text(&s).contains("\x1b]9;gendash: all 3 done")
    });
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
    let lines: Vec<Vec<String>> = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines, [["2", "1", "3", "all 3; $(id)"]], "once, exactly");
    let raw = text(&s);
    assert_eq!(
        raw.matches("\x1b]9;gendash").count(),
        1,
        "one notice: {}",
        raw.escape_debug()
    );
    assert!(raw.contains("\x1b]9;gendash: all 3 done · 1 failed\x07"));
}

#[test]
fn a_bad_notify_or_on_all_done_is_an_error_naming_the_line_and_key() {
    let home = tempfile::tempdir().unwrap();
    for (line, says) in [
        (
            r#"notify = "sometimes""#,
            r#"`sometimes` is not one of "each""#,
        ),
        (
            r#"on_all_done = ["notify-send", "{task_id}"]"#,
            "`{task_id}` is not a placeholder of on_all_done",
        ),
        ("on_all_done = []", "on_all_done names no program"),
        (r#"on_all_done = ["x", "{count"]"#, "without its `}`"),
    ] {
        common::write_config(home.path(), &format!("bell = false\n{line}\n"));
        let out = common::gendash(home.path())
            .args(["config", "show"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{line}");
        assert!(
            err.contains("config.toml line 2") && err.contains(says),
            "{line}: {err}"
        );
    }
    common::write_config(
        home.path(),
        "notify = \"batch\"\non_all_done = [\"x\", \"{completed}/{failed}/{count}\"]\n",
    );
    let out = common::gendash_ok(home.path(), &["config", "show"]);
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("batch"), "{shown}");
    assert!(shown.contains("{completed}/{failed}/{count}"), "{shown}");
}
