//! The watch list as `gendash watch` and a restarted dashboard see it: what `add` reports, IDs
//! that are refused, and the last trouble kept in the file.

use crate::common;
use common::pty::{Session, command};
use std::io::Write;
use std::path::Path;
use std::time::Duration;

/// Runs `gendash` with `args` (and `stdin`, if given) in `home`; exit code, stdout, stderr.
fn run(home: &Path, args: &[&str], stdin: Option<&[u8]>) -> (i32, String, String) {
    let mut cmd = common::gendash(home);
    cmd.args(["--base-url", "http://127.0.0.1:9"])
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(bytes) = stdin {
        input.write_all(bytes).unwrap();
    }
    drop(input);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn watched(home: &Path) -> Vec<(String, String)> {
    let (code, out, err) = run(home, &["watch", "list", "--json"], None);
    assert_eq!(code, 0, "{err}");
    let list: serde_json::Value = serde_json::from_str(&out).unwrap();
    list.as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["task_id"].as_str().unwrap().to_string(),
                e["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `watch add` says what it added and what was there already, and as what; an ID watched as
/// an image is not added again as a video.
#[test]
fn watch_add_reports_what_it_added_and_what_was_there() {
    let home = tempfile::tempdir().unwrap();
    let (code, out, _) = run(home.path(), &["watch", "add", "sim-1", "sim-2"], None);
    assert_eq!(
        (code, out.as_str()),
        (0, "added image tasks: sim-1, sim-2\n")
    );
    let (code, out, _) = run(
        home.path(),
        &["watch", "add", "--video", "sim-2", "v-1", "sim-1"],
        None,
    );
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "added video task: v-1\nalready watched: sim-2 (as image), sim-1 (as image)\n"
        )
    );
    let (code, out, _) = run(home.path(), &["watch", "add", "-"], Some(b"v-1\n"));
    assert_eq!(
        (code, out.as_str()),
        (0, "already watched: v-1 (as video)\n")
    );
    assert_eq!(
        watched(home.path()),
        [
            ("sim-1".to_string(), "image".to_string()),
            ("sim-2".into(), "image".into()),
            ("v-1".into(), "video".into())
        ]
    );
}

/// An ID holding a control character, from the arguments or from stdin, is refused with an
/// error that shows it escaped (exit 2), and nothing is stored, not even the good IDs beside it.
#[test]
fn ids_with_control_characters_are_refused_from_args_and_stdin() {
    let home = tempfile::tempdir().unwrap();
    let (code, out, err) = run(
        home.path(),
        &["watch", "add", "ok-1", "bad\u{1b}[31m"],
        None,
    );
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains(r#"task ID "bad\u{1b}[31m" holds control"#),
        "{err:?}"
    );
    let (code, _, err) = run(
        home.path(),
        &["watch", "add", "-"],
        Some(b"ok-2 tab\x07bell\nok-3\n"),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(r#""tab\u{7}bell""#), "{err:?}");
    let (code, _, err) = run(home.path(), &["watch", "add", "bidi\u{202e}x"], None);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(r#""bidi\u{202e}x""#), "{err:?}");
    assert!(watched(home.path()).is_empty(), "nothing was stored");
}

/// The dashboard finds a task the service does not know: the file keeps NOT FOUND and the
/// service's words, so `watch list` shows them rather than `(not polled yet)`; an old file
/// without the field still loads.
#[test]
fn not_found_is_kept_in_the_file_for_watch_list() {
    let served = common::Served::new();
    served.config(&format!(
        "poll_interval = 0.2\nbell = false\ndesktop_notifications = false\n\
         base_url = \"{}\"\ntoken = \"{}\"\n",
        served.svc.base_url(),
        common::TOKEN
    ));
    let common::Served {
        home, svc, rt: _rt, ..
    } = served;
    let list = |home: &Path| {
        let out = common::gendash(home)
            .args(["watch", "list"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stdout).unwrap()
    };
    let add = common::gendash(home.path())
        .args(["watch", "add", "gone-1", "sim-1-found"])
        .output()
        .unwrap();
    assert_eq!(add.status.code(), Some(0));
    assert!(list(home.path()).contains("(not polled yet)"));

    let mut s = Session::spawn(command(home.path(), &[], &[]), 150, 40);
    s.wait_for("gone-1 to be NOT FOUND", Duration::from_secs(20), |t| {
        t.lines()
            .any(|l| l.contains("gone-1") && l.contains("NOT FOUND"))
            && t.lines()
                .any(|l| l.contains("sim-1-found") && l.contains("COMPLETED"))
    });
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);

    let text = list(home.path());
    let gone = text.lines().find(|l| l.contains("gone-1")).unwrap();
    assert!(
        gone.contains("NOT FOUND")
            && gone.contains("no image generation task with ID gone-1 (for "),
        "{text}"
    );
    assert!(!text.contains("(not polled yet)"), "{text}");
    let found = text.lines().find(|l| l.contains("sim-1-found")).unwrap();
    assert!(
        found.contains("COMPLETED") && !found.contains("error"),
        "{text}"
    );

    // A restart with the service gone: the file's NOT FOUND is on screen, not `not polled`.
    // Meanwhile a paste holding an ID with a bell in it is refused, the ID written out, and
    // an ID watched as an image is not added again as a video.
    drop(svc);
    let mut s = Session::spawn(command(home.path(), &[], &[]), 150, 40);
    s.wait_for(
        "gone-1 NOT FOUND from the file",
        Duration::from_secs(20),
        |t| {
            t.lines()
                .any(|l| l.contains("gone-1") && l.contains("NOT FOUND"))
        },
    );
    assert!(!s.contents().contains("not polled"), "{}", s.contents());
    s.send("a");
    s.wait_text("Add tasks to the watch list");
    s.send("\x1b[200~new-1 ring\x07x\x1b[201~");
    s.wait_text(r#"task ID "ring\u{7}x" holds control"#);
    s.send("\x1b[200~sim-1-found new-2\x1b[201~");
    s.send("\t");
    s.send("\r");
    s.wait_text("added new-2; already watching sim-1-found (as image)");
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    let text = list(home.path());
    assert!(
        text.contains("video  new-2") && !text.contains("ring") && !text.contains("new-1"),
        "{text}"
    );

    // An old file, written before troubles were kept, loads as it is.
    let out = common::gendash(home.path())
        .args(["watch", "list", "--json"])
        .output()
        .unwrap();
    let mut entries: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(entries[0]["trouble"]["kind"], "not_found", "{entries}");
    let data = home.path().join("data/gendash");
    let file = data.join("watchlist.json");
    assert!(file.exists(), "the watch list is at {}", file.display());
    for e in entries.as_array_mut().unwrap() {
        let e = e.as_object_mut().unwrap();
        e.retain(|k, _| ["task_id", "kind", "added_at", "last"].contains(&k.as_str()));
    }
    std::fs::write(
        &file,
        serde_json::json!({"version": 1, "tasks": entries}).to_string(),
    )
    .unwrap();
    let text = list(home.path());
    assert!(
        text.contains("gone-1") && text.contains("sim-1-found") && !text.contains("NOT FOUND"),
        "{text}"
    );
}

// ---- the pane and its detail, on TestBackend -------------------------------------------------

mod view {
    use gendash::api::types::default_failure_statuses;
    use gendash::api::{ApiError, TaskKind, TaskResult};
    use gendash::app::action::Action;
    use gendash::app::state::{State, UiSettings};
    use gendash::cmd::TaskKey;
    use gendash::msg::Msg;
    use gendash::store::watchlist::WatchEntry;
    use gendash::testing::task_result as result;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use std::time::Duration;

    /// 2027-01-15 08:00:00 UTC.
    const NOW: u64 = 1_800_000_000;
    const HERE: &str = "http://127.0.0.1:8787";
    const GONE: &str = "https://old.example.net";
    const LONG_1: &str = "batch-2026-11-25-portrait-render-0001";
    const LONG_2: &str = "batch-2026-11-25-portrait-render-0002";

    fn entry(id: &str, service: &str) -> WatchEntry {
        WatchEntry {
            service: Some(service.into()),
            ..gendash::app::watch::new_entry(id, TaskKind::Image, NOW - 300)
        }
    }

    fn poll(s: &mut State, at: u64, id: &str, r: Result<TaskResult, ApiError>) {
        s.apply(Msg::Tick(at));
        let retry_in = r.is_err().then(|| Duration::from_secs(8));
        s.apply(Msg::Polled {
            key: TaskKey::new(TaskKind::Image, id),
            result: r,
            retry_in,
            next: None,
        });
    }

    /// A poll's answer, in the shape the poller reports every poll in.
    #[allow(clippy::unnecessary_wraps)]
    fn ok(id: &str, status: &str, percent: u8) -> Result<TaskResult, ApiError> {
        Ok(result(id, status, percent))
    }

    /// A dashboard watching `watch` at `HERE`, made at `at`, quiet (no bell, no notifications).
    fn state_at(watch: Vec<WatchEntry>, at: u64) -> State {
        State::new(gendash::app::state::Init {
            service_url: HERE.into(),
            categories: Vec::new(),
            watch,
            failure_statuses: default_failure_statuses(),
            settings: UiSettings {
                bell: false,
                desktop_notifications: false,
                no_color: false,
                poll_interval: 2,
            },
            now: at,
            ..gendash::app::state::Init::default()
        })
    }

    /// One task in each state, and two long IDs that differ only at their end.
    pub fn every_state(width: u16, height: u16) -> State {
        let ids = [
            "sim-3", "sim-20", "sim-100", "gone-4", "err-5", "stuck-6", "old-7", "new-8", LONG_1,
            LONG_2,
        ];
        let watch = ids
            .iter()
            .map(|id| entry(id, if *id == "old-7" { GONE } else { HERE }))
            .collect();
        let mut s = state_at(watch, NOW - 400);
        s.watch.stall_after = 300;
        let _ = gendash::app::watch::service::set(
            &mut s.watch,
            gendash::app::services::Services::single(HERE),
        );
        s.update(Action::Resize { width, height });
        s.start();
        poll(
            &mut s,
            NOW - 400,
            "stuck-6",
            ok("stuck-6", "IN_PROGRESS", 30),
        );
        poll(&mut s, NOW - 200, "sim-20", ok("sim-20", "QUEUED", 0));
        poll(&mut s, NOW - 100, "sim-20", ok("sim-20", "COMPLETED", 100));
        poll(
            &mut s,
            NOW - 95,
            "sim-100",
            ok("sim-100", "IN_PROGRESS", 60),
        );
        poll(&mut s, NOW - 90, "sim-100", ok("sim-100", "FAILED", 20));
        for (t, p) in [(60, 0), (30, 20), (0, 40)] {
            poll(&mut s, NOW - t, "sim-3", ok("sim-3", "IN_PROGRESS", p));
        }
        poll(&mut s, NOW - 10, "err-5", ok("err-5", "IN_PROGRESS", 50));
        poll(&mut s, NOW - 5, "stuck-6", ok("stuck-6", "IN_PROGRESS", 30));
        poll(&mut s, NOW, LONG_1, ok(LONG_1, "IN_PROGRESS", 5));
        poll(&mut s, NOW, LONG_2, ok(LONG_2, "IN_PROGRESS", 6));
        let lookup = Err(ApiError::Lookup {
            description: "no image generation task with ID gone-4".into(),
        });
        poll(&mut s, NOW, "gone-4", lookup);
        let http = Err(ApiError::Http {
            status: 502,
            excerpt: "Bad Gateway".into(),
            retry_after: None,
        });
        poll(&mut s, NOW, "err-5", http);
        s.update(Action::FocusNext);
        // The detail shown whatever the height, as the key that toggles it does.
        s.watch.detail = Some(true);
        s.update(Action::Resize { width, height });
        s
    }

    /// Selects the row of `id`.
    pub fn select(s: &mut State, id: &str) {
        let at = s
            .watch
            .order
            .iter()
            .position(|&i| s.watch.rows[i].entry.task_id == id)
            .unwrap();
        s.watch.select(at);
    }

    pub use crate::common::drawn as draw;

    /// The screen's rows as text.
    pub fn rows(t: &Terminal<TestBackend>) -> Vec<String> {
        let buf = t.backend().buffer();
        (0..buf.area.height)
            .map(|y| {
                (0..buf.area.width)
                    .map(|x| buf[(x, y)].symbol().to_string())
                    .collect()
            })
            .collect()
    }

    /// The detail of the row of `id`, selected, as one text.
    fn detail_of(s: &mut State, id: &str) -> String {
        select(s, id);
        detail(s, &draw(s)).join("\n")
    }

    /// The detail's lines (below its ` task ` rule), without the pane's borders.
    pub fn detail(s: &State, t: &Terminal<TestBackend>) -> Vec<String> {
        let a = s.areas.watch_detail;
        let rows = rows(t);
        rows[usize::from(a.y) + 1..usize::from(a.y + a.height)]
            .iter()
            .map(|r| {
                r.chars()
                    .skip(usize::from(a.x))
                    .take(usize::from(a.width))
                    .collect::<String>()
                    .trim_end()
                    .to_string()
            })
            .collect()
    }

    #[test]
    fn every_state_and_its_detail_at_80_and_220() {
        for (width, height) in [(80, 60), (220, 50)] {
            let mut s = every_state(width, height);
            for id in ["sim-20", "err-5", "gone-4", "old-7"] {
                select(&mut s, id);
                let t = draw(&s);
                insta::assert_snapshot!(format!("watch_list_{id}_{width}x{height}"), t.backend());
                let screen = rows(&t);
                let detail = detail(&s, &t);
                // A label and its text never run together.
                for line in detail
                    .iter()
                    .filter(|l| !l.is_empty() && !l.starts_with(' '))
                {
                    let label: String = line.chars().take(10).collect();
                    assert!(label.ends_with(' '), "{width} {id}: {line:?}");
                }
                // The two long IDs are told apart on screen whatever the width.
                for long in [LONG_1, LONG_2] {
                    assert!(
                        screen.iter().any(|r| r.contains(long)),
                        "{width}: {long}\n{}",
                        screen.join("\n")
                    );
                }
                // The status bar, cut short at 80 columns, says so.
                let status_bar = screen[screen.len() - 2].trim_end();
                assert!(
                    status_bar.contains("1 done)") || status_bar.ends_with('…'),
                    "{width}: {status_bar}"
                );
            }
        }
    }

    #[test]
    fn the_title_and_the_status_bar_count_every_state_in_the_right_number() {
        let s = every_state(220, 50);
        let t = draw(&s);
        let screen = rows(&t).join("\n");
        // Each task counted once: they add up to the 10 (the erroring one is not running too).
        assert!(
            screen.contains(
                " 10 tasks (1 failed, 1 not found, 1 erroring, 1 stalled, 1 no service, \
                 3 running, 1 not polled, 1 done)"
            ),
            "{screen}"
        );
        assert!(
            screen.contains(
                " Watch list · 10 tasks · 2 new · 1 failed · 1 not found · 1 erroring · \
                 1 stalled · … · all done ~"
            ),
            "{screen}"
        );
        // Narrower, the counts give way from the least urgent and say so with `…`.
        let s = every_state(80, 40);
        let title = rows(&draw(&s))
            .into_iter()
            .find(|r| r.contains("Watch list"))
            .unwrap();
        assert!(
            title.contains(" Watch list · 10 tasks · 2 new · 1 failed · ") && title.contains("… "),
            "{title}"
        );
        // The detail cut short by the pane's height says so.
        let mut s = every_state(80, 40);
        select(&mut s, "sim-20");
        let t = draw(&s);
        let d = detail(&s, &t);
        let last = d.iter().rev().find(|l| !l.is_empty()).unwrap();
        assert!(last.ends_with(" …"), "{d:?}");
        let status_bar = rows(&t)[38].trim_end().to_string();
        assert!(status_bar.ends_with('…'), "{status_bar}");
        // One task: singular.
        let mut one = state_at(vec![entry("sim-1", HERE)], NOW);
        one.update(Action::Resize {
            width: 220,
            height: 50,
        });
        let screen = rows(&draw(&one)).join("\n");
        assert!(screen.contains("1 task (1 not polled)"), "{screen}");
        assert!(
            screen.contains(" Watch list · 1 task · 1 not polled "),
            "{screen}"
        );
    }

    /// A task whose every poll failed has only the detail's "polled … ago" to age: the tick
    /// that changes it redraws.
    #[test]
    fn the_polled_age_redraws_when_it_changes() {
        let mut s = state_at(vec![entry("err-1", HERE)], NOW);
        s.update(Action::Resize {
            width: 140,
            height: 45,
        });
        s.apply(Msg::Polled {
            key: TaskKey::new(TaskKind::Image, "err-1"),
            result: Err(ApiError::Http {
                status: 502,
                excerpt: "Bad Gateway".into(),
                retry_after: None,
            }),
            retry_in: None,
            next: None,
        });
        s.apply(Msg::Tick(NOW + 30));
        s.dirty = false;
        s.apply(Msg::Tick(NOW + 31));
        assert!(s.dirty, "polled 30s ago → 31s ago");
        let d = detail(&s, &draw(&s)).join("\n");
        assert!(d.contains("polled    31s ago"), "{d}");
    }

    /// History in clock times; `took` only when the start and the finish were both seen;
    /// `retry in` only while the retry is ahead; the polled line agrees with the status.
    #[test]
    fn the_detail_says_when_and_why_without_contradicting_itself() {
        let mut s = every_state(220, 50);
        let d = detail_of(&mut s, "sim-20");
        assert!(
            d.contains("started 07:56:40 · finished 07:58:20 · took 1m40s"),
            "{d}"
        );
        assert!(
            d.contains("history   07:56:40 QUEUED → 07:58:20 COMPLETED"),
            "{d}"
        );
        assert!(
            d.contains("polled    1m ago · finished, so not polled again"),
            "{d}"
        );
        // Seen running at 60%: its start was not seen, so how long it took is not known.
        let d = detail_of(&mut s, "sim-100");
        assert!(
            d.contains("seen running 07:58:25 · finished 07:58:30") && !d.contains("took"),
            "{d}"
        );
        let d = detail_of(&mut s, "new-8");
        assert!(d.contains("status    not polled"), "{d}");
        assert!(d.contains("polled    never · "), "{d}");
        let d = detail_of(&mut s, "old-7");
        assert!(
            d.contains("polled    never · not polled: https://old.example.net"),
            "{d}"
        );
        // Finished when first asked: neither its start nor its finish was seen.
        poll(&mut s, NOW, "new-8", ok("new-8", "COMPLETED", 100));
        let d = detail_of(&mut s, "new-8");
        assert!(
            d.contains("found finished 08:00:00") && !d.contains("took"),
            "{d}"
        );
        let d = detail_of(&mut s, "err-5");
        assert!(d.contains("polled    0s ago · retry in 8s"), "{d}");
        // The retry is due: the request is under way, no countdown stuck at 0s.
        s.apply(Msg::Tick(NOW + 8));
        let t = draw(&s);
        let d = detail(&s, &t).join("\n");
        assert!(d.contains("polled    8s ago · asking again now"), "{d}");
        let screen = rows(&t).join("\n");
        assert!(!screen.contains("retry in 0s"), "{screen}");
        assert!(!screen.contains("retry in"), "{screen}");
    }
}
