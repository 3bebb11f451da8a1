//! The watch list as `gendash watch` and a restarted dashboard see it: what `add` reports, IDs
//! that are refused, and the last trouble kept in the file.

use crate::common;
use std::io::Write;
use std::path::Path;

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
