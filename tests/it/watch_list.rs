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
    let home = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let svc = rt.block_on(common::service());
    let dir = home.path().join("config/gendash");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        format!(
            "poll_interval = 0.2\nbell = false\ndesktop_notifications = false\n\
             base_url = \"{}\"\ntoken = \"{}\"\n",
            svc.base_url(),
            common::TOKEN
        ),
    )
    .unwrap();
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
    drop(svc);
}
