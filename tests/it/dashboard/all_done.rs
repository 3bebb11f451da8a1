//! `on_all_done` with two dashboards on one data directory (`auto_download`, `notify =
//! "batch"`, `on_complete`): it runs exactly once each time the whole list is done, whichever
//! dashboard claimed which finish (the write to the watch list file that left nothing running
//! decides, under the file's lock), also when their configs poll different services.

use crate::common;
use common::pty::{Session, command};
use gendash::api::TaskKind;
use gendash::store::watchlist::{WatchEntry, WatchStore};
use std::time::Duration;

/// The `on_all_done` program of these tests: it appends its arguments to the file its first
/// names, as a JSON line.
pub(super) const RECORD: &str =
    "import json,sys; open(sys.argv[1],'a').write(json.dumps(sys.argv[2:])+chr(10))";

/// The lines a hook wrote to `path` so far.
pub(super) fn recorded(path: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Quits each dashboard with `q`: each exits 0 and leaves its terminal restored.
pub(super) fn quit_all(sessions: &mut [Session]) {
    for s in sessions {
        s.send("q");
        assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
        s.assert_restored();
    }
}

/// How many runs the test makes: the first, and one begun by tasks added while both
/// dashboards run (a third would cross the same edge again).
const RUNS: usize = 2;

/// Two runs of three tasks (two complete, one fails) watched by two dashboards at once: the
/// hook's record on disk has one line per run, never two, never none.
#[test]
fn two_dashboards_run_on_all_done_exactly_once_per_run() {
    let served = common::Served::new();
    let home = served.path();
    let all_done = home.join("all-done.jsonl");
    let hooked = home.join("complete.tsv");
    common::write_config(
        home,
        &format!(
            "base_url = \"{}\"\ntoken = \"{}\"\npoll_interval = 0.2\nbell = false\n\
             auto_download = true\ndownload_dir = \"~/dl\"\nimage_preview = \"off\"\n\
             notify = \"batch\"\n\
             on_complete = [\"sh\", \"-c\", \"printf '%s\\\\n' \\\"$1\\\" >> \\\"$0\\\"\", \"{}\", \"{{task_id}}\"]\n\
             on_all_done = [\"python3\", \"-c\", \"{RECORD}\", \"{}\", \"{{count}}\"]\n",
            served.base,
            common::TOKEN,
            hooked.display(),
            all_done.display(),
        ),
    );
    let lines = |path: &std::path::Path| recorded(path);
    let run = |n: usize| {
        [
            format!("sim-6-run{n}a"),
            format!("sim-10-run{n}b"),
            format!("fail-8-run{n}c"),
        ]
    };
    let first = run(1);
    common::gendash_ok(home, &["watch", "add", &first[0], &first[1], &first[2]]);
    let dashboard = || Session::spawn(command(home, &[], &[]), 150, 40);
    let mut sessions = [dashboard(), dashboard()];
    for n in 1..=RUNS {
        if n > 1 {
            // The next run: new tasks added while both dashboards run (each reads the file).
            let ids = run(n);
            common::gendash_ok(home, &["watch", "add", &ids[0], &ids[1], &ids[2]]);
        }
        sessions[0].wait_for(
            &format!("on_complete for the 3 tasks of run {n}"),
            Duration::from_secs(60),
            |_| lines(&hooked).len() >= 3 * n,
        );
        sessions[0].wait_for(
            &format!("on_all_done of run {n}"),
            Duration::from_secs(20),
            |_| lines(&all_done).len() >= n,
        );
        // Time for a second run of it, were the other dashboard to end the run too (the
        // file is read every second).
        std::thread::sleep(Duration::from_millis(2500));
        assert_eq!(
            lines(&all_done).len(),
            n,
            "run {n}: on_all_done once: {:?}",
            lines(&all_done)
        );
    }
    quit_all(&mut sessions);
    let mut ran = lines(&hooked);
    ran.sort();
    let mut expected: Vec<String> = (1..=RUNS).flat_map(run).collect();
    expected.sort();
    assert_eq!(ran, expected, "on_complete once per task");
    assert_eq!(lines(&all_done).len(), RUNS, "{:?}", lines(&all_done));
}

/// Two dashboards of different configs on one data directory: `narrow` knows one service,
/// `wide` a second one too, where a longer task runs that only `wide` can poll. The finish
/// of the task both poll does not end the run: `narrow`, which sees and claims that finish
/// (it asks every 0.2 s, `wide` every 2.5 s), knows the far task goes on because `wide` marks
/// it; the finish of the longer one does end it, and `on_all_done` runs once, counting both.
#[test]
fn dashboards_of_different_configs_run_on_all_done_once() {
    let served = common::Served::new();
    let other = common::Served::new();
    let home = served.path();
    let all_done = home.join("all-done.jsonl");
    let config = format!(
        "base_url = \"{}\"\ntoken = \"{}\"\npoll_interval = 0.2\nbell = false\n\
         image_preview = \"off\"\n\
         on_all_done = [\"python3\", \"-c\", \"{RECORD}\", \"{}\", \"{{count}}\"]\n",
        served.base,
        common::TOKEN,
        all_done.display(),
    );
    common::write_config(home, &config);
    let wide = home.join("wide.toml");
    // `wide` asks every 2.5 s: the near task's finish (3 s after `wide`'s first lookup) is
    // `narrow`'s to see and claim, well before `wide` asks again at 5 s.
    std::fs::write(
        &wide,
        format!(
            "{}\n[profiles.other]\nbase_url = \"{}\"\ntoken = \"{}\"\n",
            config.replace("poll_interval = 0.2", "poll_interval = 2.5"),
            other.base,
            common::TOKEN
        ),
    )
    .expect("wide config");
    common::gendash_ok(home, &["watch", "add", "timed-3-near"]);
    let mut far = WatchEntry::new("timed-6-far", TaskKind::Image);
    far.service = Some(other.base.trim_end_matches('/').to_string());
    let store = WatchStore::new(home.join("data/gendash/watchlist.json"));
    store
        .update(|l| l.push(far))
        .expect("the far task is written");
    let lines = || recorded(&all_done);
    let wide_env = [("GENDASH_CONFIG", wide.to_str().expect("utf-8 path"))];
    let wide_session = Session::spawn(command(home, &[], &wide_env), 150, 40);
    // Both dashboards run before the run can end: `narrow` starts once the file says that
    // `wide` polls the far task (it says so at once; a dashboard that starts after the run
    // ended begins another). Under load `wide` may take seconds to start.
    wide_session.wait_for("wide to mark the far task", Duration::from_secs(60), |_| {
        store.load().is_ok_and(|l| {
            l.entries
                .iter()
                .any(|e| e.task_id == "timed-6-far" && e.polled_by.is_some())
        })
    });
    let mut sessions = [
        Session::spawn(command(home, &[], &[]), 150, 40),
        wide_session,
    ];
    // The far task finishes 3 s after the near one and is seen at `wide`'s lookup at 7.5 s:
    // the time in which `narrow` would wrongly end the run. Bounded, with room for load.
    sessions[1].wait_for(
        "the far task to complete",
        Duration::from_secs(240),
        |screen| {
            screen
                .lines()
                .any(|l| l.contains("timed-6-far") && l.contains("COMPLETED"))
        },
    );
    sessions[1].wait_for("on_all_done", Duration::from_secs(60), |_| {
        !lines().is_empty()
    });
    // Time for a second run of it, were the other dashboard to end the run too.
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(lines(), ["[\"2\"]"], "once, at the end of both");
    quit_all(&mut sessions);
}
