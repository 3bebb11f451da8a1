//! Labels, new tasks and `gendash stats` end to end, against the reference service: `watch
//! add --label`, `watch list` (and `--json`) printing labels, the dashboard marking what
//! finished as new until it is looked at, `{label}` in the download template, and the figures
//! `stats` (and `stats --json`) draw from the file.

use crate::common::{self, Served};
use common::pty::{Session, command};
use std::path::Path;
use std::time::Duration;

fn gendash(home: &Path, args: &[&str]) -> (i32, String, String) {
    let out = common::gendash(home).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn json(home: &Path, args: &[&str]) -> serde_json::Value {
    let (code, out, err) = gendash(home, args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn labels_new_tasks_and_stats_against_the_reference_service() {
    let served = Served::new();
    let dl = served.path().join("dl");
    served.config(&format!(
        "poll_interval = 0.2\nbell = false\ndesktop_notifications = false\n\
         auto_download = true\ndownload_dir = \"{}\"\n\
         download_template = \"{{label}}/{{task_id}}.{{ext}}\"\n\
         base_url = \"{}\"\ntoken = \"{}\"\n",
        dl.display(),
        served.base,
        common::TOKEN
    ));
    let home = served.path();
    // One label for the IDs given, cleaned of controls.
    let (code, out, err) = gendash(
        home,
        &[
            "watch",
            "add",
            "--label",
            "sunset\u{1b}[31m v2",
            "sim-3-a",
            "sim-4-b",
        ],
    );
    assert_eq!(
        (code, out.as_str()),
        (0, "added image tasks: sim-3-a, sim-4-b\n"),
        "{err}"
    );
    let (code, ..) = gendash(home, &["watch", "add", "--video", "fail-2-c"]);
    assert_eq!(code, 0);
    // Finished before it was watched: never new.
    let (code, ..) = gendash(home, &["watch", "add", "demo-image-done"]);
    assert_eq!(code, 0);

    let (code, text, _) = gendash(home, &["watch", "list"]);
    assert_eq!(code, 0);
    let line = text.lines().find(|l| l.contains("sim-3-a")).unwrap();
    assert!(
        line.starts_with("image  sim-3-a          sunset v2  "),
        "{text}"
    );
    let list = json(home, &["watch", "list", "--json"]);
    assert_eq!(list[0]["label"], "sunset v2", "{list}");
    assert!(list[2].get("label").is_none(), "{list}");

    let mut s = Session::spawn(command(home, &[], &[]), 150, 40);
    s.wait_for("3 new", Duration::from_secs(30), |t| {
        t.contains("· 3 new ·") && t.contains("●fail-2-c")
    });
    // The watch pane takes the keys, its cursor on the first task: seen.
    s.send("\t");
    s.wait_text("· 2 new ·");
    s.send("n");
    s.wait_text("· 1 new ·");
    // Both files saved before the quit: a download cut short by `q` is only resumed at the
    // next start, which this test would race.
    let saved = |id: &str| dl.join("sunset v2").join(format!("{id}.png"));
    s.wait_for("both files saved", Duration::from_secs(30), |t| {
        ["sim-3-a", "sim-4-b"]
            .iter()
            .all(|id| saved(id).exists() && t.contains(&format!("{id}.png")))
    });
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);

    let list = json(home, &["watch", "list", "--json"]);
    let seen: Vec<(&str, Option<bool>)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["task_id"].as_str().unwrap(), e["seen"].as_bool()))
        .collect();
    assert_eq!(
        seen,
        [
            ("sim-3-a", Some(true)),
            ("sim-4-b", Some(true)),
            ("fail-2-c", Some(false)),
            ("demo-image-done", None)
        ]
    );
    let (_, text, _) = gendash(home, &["watch", "list"]);
    assert!(text.contains("video  ●fail-2-c"), "{text}");
    // A restart agrees: what was looked at stays seen, the rest stays new.
    let mut s = Session::spawn(command(home, &[], &[]), 150, 40);
    s.wait_for("1 new after a restart", Duration::from_secs(30), |t| {
        t.contains("· 1 new ·") && t.contains("●fail-2-c") && !t.contains("●sim-")
    });
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    // `{label}` in the download template.
    for id in ["sim-3-a", "sim-4-b"] {
        let file = saved(id);
        assert!(file.exists(), "{} is missing", file.display());
    }

    // `gendash download` reads the label from the watch list for the same template.
    let other = home.join("other");
    let out = other.to_string_lossy().into_owned();
    let (code, text, err) = gendash(home, &["download", "-o", &out, "sim-4-b"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        text.trim_end(),
        other
            .join("sunset v2")
            .join("sim-4-b.png")
            .to_string_lossy()
    );
    stats_are_those_of_the_file(home, &served.base);
}

/// What `stats` and `stats --json` say of the list the test above left.
fn stats_are_those_of_the_file(home: &Path, base: &str) {
    let stats = json(home, &["stats", "--json"]);
    let groups = stats["groups"].as_array().unwrap();
    let of = |kind: &str| {
        groups
            .iter()
            .find(|g| g["kind"] == kind)
            .unwrap_or_else(|| panic!("{kind} in {stats}"))
    };
    let image = of("image");
    assert_eq!(
        (&image["seen"], &image["completed"], &image["failed"]),
        (&3.into(), &3.into(), &0.into()),
        "{stats}"
    );
    assert_eq!(
        image["durations_known"], 2,
        "demo-image-done's start was not seen"
    );
    assert!(image["median_seconds"].is_u64() && image["p90_seconds"].is_u64());
    assert_eq!(image["failure_rate"], 0.0);
    let video = of("video");
    assert_eq!((&video["seen"], &video["failed"]), (&1.into(), &1.into()));
    assert_eq!(video["failure_rate"], 1.0);
    assert!(video["median_seconds"].is_null());
    assert_eq!(stats["all"]["seen"], 4);
    assert_eq!(image["service"], base.trim_end_matches('/'));

    let (code, text, err) = gendash(home, &["stats"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("SERVICE") && lines[0].contains("P90"),
        "{text}"
    );
    let video_line = lines.iter().find(|l| l.contains(" video ")).unwrap();
    assert!(video_line.contains(" 100% "), "{text}");
    assert!(lines.last().unwrap().starts_with("all "), "{text}");
}

/// `stats` on an empty list says so and succeeds; `--json` still gives the shape.
#[test]
fn stats_of_an_empty_list() {
    let home = tempfile::tempdir().unwrap();
    let (code, out, err) = gendash(home.path(), &["stats"]);
    assert_eq!((code, out.as_str()), (0, ""));
    assert!(err.contains("the watch list is empty"), "{err}");
    let v = json(home.path(), &["stats", "--json"]);
    assert_eq!(v["groups"], serde_json::json!([]));
    assert_eq!(v["all"]["seen"], 0);
}
