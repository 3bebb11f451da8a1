//! The real `gendash` binary against the reference service: output, JSON shapes, exit codes.

use crate::common;

use common::{Fault, TOKEN, fault_server, response, service};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Output;
use tokio::io::AsyncBufReadExt;
use url::Url;

/// Runs the binary with a clean environment (its own HOME and XDG dirs under `home`), the
/// service's address and a token.
pub(crate) async fn run_in(home: &Path, base: &Url, token: &str, args: &[&str]) -> Output {
    let mut cmd = common::gendash_async(home);
    cmd.env("GENDASH_BASE_URL", base.as_str())
        .env("GENDASH_TOKEN", token)
        .args(args);
    finished(cmd).await
}

/// What `cmd` wrote and how it exited, once it finished (within a minute).
pub(crate) async fn finished(mut cmd: tokio::process::Command) -> Output {
    tokio::time::timeout(std::time::Duration::from_secs(60), cmd.output())
        .await
        .expect("the binary finished")
        .unwrap()
}

pub(crate) async fn run(base: &Url, args: &[&str]) -> (u8, String, String) {
    let home = tempfile::tempdir().unwrap();
    let out = run_in(home.path(), base, TOKEN, args).await;
    split(&out)
}

pub(crate) fn split(out: &Output) -> (u8, String, String) {
    (
        out.status.code().unwrap_or(-1) as u8,
        String::from_utf8(out.stdout.clone()).unwrap(),
        String::from_utf8(out.stderr.clone()).unwrap(),
    )
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

#[tokio::test]
async fn models_plain_filters_and_json() {
    let svc = service().await;
    let (code, out, err) = run(&svc.base_url(), &["models"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("MODEL "), "{out}");
    let n = gendash::server::served_catalogue::embedded().len();
    assert_eq!(out.lines().count(), n + 1, "a header and one row per model");
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        [format!("{n} of {n} models")],
        "stderr is the count alone"
    );

    let (code, out, _) = run(
        &svc.base_url(),
        &["models", "--type", "sdxl", "--cate", "style", "--json"],
    )
    .await;
    assert_eq!(code, 0);
    let items = json_lines(&out).remove(0);
    let items = items.as_array().unwrap();
    assert!(!items.is_empty());
    for item in items {
        assert_eq!(keys(item), ["metadata", "model"]);
        assert_eq!(item["metadata"]["type"], "sdxl");
        assert_eq!(item["metadata"]["category"], "style");
    }

    let (code, out, _) = run(
        &svc.base_url(),
        &["models", "--filter", "watercolor", "--json"],
    )
    .await;
    assert_eq!(code, 0);
    let items = json_lines(&out).remove(0);
    let first = items[0]["model"].as_str().unwrap();
    assert!(
        first.starts_with("watercolor"),
        "best match first, got {first}"
    );

    let (code, _, err) = run(&svc.base_url(), &["models", "--type", "sd3"]).await;
    assert_eq!(code, 2, "{err}");
}

/// `--filter` takes the dashboard's language: operators and metadata fields locally, `type:`
/// and `cate:` as the request's filters, and a bad `type:` as a usage error.
#[tokio::test]
async fn models_filter_language() {
    let svc = service().await;
    let base = svc.base_url();
    let models =
        |out: &str| -> Vec<Value> { json_lines(out).remove(0).as_array().unwrap().clone() };
    let (code, out, err) = run(
        &base,
        &[
            "models",
            "--filter",
            "type:sdxl cate:style !license:apache ^",
            "--json",
        ],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    let items = models(&out);
    assert!(!items.is_empty());
    for item in &items {
        assert_eq!(item["metadata"]["type"], "sdxl");
        assert_eq!(item["metadata"]["category"], "style");
        let license = item["metadata"]["license"].as_str().unwrap().to_lowercase();
        assert!(!license.contains("apache"), "{license}");
    }
    let (code, out, _) = run(
        &base,
        &[
            "models",
            "--filter",
            "base:\"SD 1.5\" | base:pony xl$",
            "--json",
        ],
    )
    .await;
    assert_eq!(code, 0);
    let items = models(&out);
    assert!(!items.is_empty());
    for item in &items {
        let base_model = item["metadata"]["base_model"].as_str().unwrap();
        assert!(["SD 1.5", "Pony"].contains(&base_model), "{base_model}");
        assert!(item["model"].as_str().unwrap().ends_with("xl"));
    }
    let (code, out, err) = run(&base, &["models", "--filter", "nokey:x", "--json"]).await;
    assert_eq!(
        (code, out.as_str(), err.trim()),
        (2, "", "gendash: error: --filter: nokey: no such field"),
        "an unknown key is named, not a silent empty list"
    );
    let (code, _, err) = run(&base, &["models", "--filter", "type:xl"]).await;
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("type:xl is not a type (sd, sdxl or all)"),
        "{err}"
    );
}

/// What `models --filter` cannot use is named on stderr with exit 2 and nothing on stdout: a
/// comparison with no number, a field no model has, the browser's `is:` terms, `!type:`.
#[tokio::test]
async fn models_filter_names_what_it_cannot_use() {
    let svc = service().await;
    let base = svc.base_url();
    for (filter, said) in [
        (
            "rating:>abc",
            "gendash: error: --filter: rating:>abc: not a number or a date",
        ),
        (
            "nosuchfield:x",
            "gendash: error: --filter: nosuchfield: no such field",
        ),
        (
            "pixel rating:>4 nosuchfield:>2",
            "gendash: error: --filter: nosuchfield: no such field",
        ),
        (
            "is:foo",
            "gendash: error: --filter: is:foo is not new, changed or fav",
        ),
        (
            "is:new",
            "gendash: error: --filter: is:new is the model browser's marks and favourites; gendash models has none; --diff lists what is new or changed",
        ),
        (
            "!type:sd",
            "gendash: error: --filter: !type:sd cannot be negated",
        ),
    ] {
        let (code, out, err) = run(&base, &["models", "--filter", filter, "--json"]).await;
        assert_eq!((code, out.as_str(), err.trim()), (2, "", said), "{filter}");
    }
}

/// Every date form the docs list works in `models --filter`, quoted, escaped or with a `T`.
#[tokio::test]
async fn models_filter_takes_every_date_form() {
    let svc = service().await;
    let base = svc.base_url();
    let updated = |filter: &'static str| {
        let base = base.clone();
        async move {
            let (code, out, err) = run(&base, &["models", "--filter", filter, "--json"]).await;
            assert_eq!(code, 0, "{filter}: {err}");
            let items = json_lines(&out).remove(0);
            let mut dates: Vec<String> = items
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["metadata"]["updated"].as_str().unwrap().to_string())
                .collect();
            dates.sort();
            dates
        }
    };
    let after_june = updated(r#"updated:>"2026-06-01""#).await;
    assert!(!after_june.is_empty() && after_june.iter().all(|d| d.as_str() > "2026-06-01"));
    assert!(after_june.len() < gendash::server::served_catalogue::embedded().len());
    for same in [
        "updated:>2026-06-01",
        r#"updated:>"2026-06-01 23:59""#,
        r"updated:>2026-06-01\ 23:59",
        "updated:>2026-06-01T23:59",
        "updated:>=2026-06-02T00:00:00",
    ] {
        assert_eq!(updated(same).await, after_june, "{same}");
    }
    assert!(
        updated(r#"updated:>"2026-06-01" | updated:<"2026-06-01""#)
            .await
            .len()
            > after_june.len()
    );
}

#[tokio::test]
async fn status_lines_json_shapes_and_exit_codes() {
    let svc = service().await;
    let base = svc.base_url();
    let (code, out, _) = run(&base, &["status", "demo-image-done"]).await;
    assert_eq!(code, 0);
    assert!(
        out.contains("demo-image-done")
            && out.contains("COMPLETED")
            && out.contains("100%")
            && out.contains("/files/demo-image-done.png"),
        "{out}"
    );

    let (code, out, _) = run(
        &base,
        &[
            "status",
            "--video",
            "--json",
            "demo-video-done",
            "sim-9-a",
            "missing-one",
        ],
    )
    .await;
    assert_eq!(code, 4, "an unknown task is exit 4");
    let lines = json_lines(&out);
    assert_eq!(
        keys(&lines[0]),
        [
            "kind",
            "percent",
            "status",
            "task_id",
            "total_tasks",
            "url_download"
        ]
    );
    assert_eq!(lines[0]["kind"], "video");
    assert_eq!(lines[1]["status"], "QUEUED");
    assert_eq!(lines[1]["url_download"], Value::Null);
    assert_eq!(keys(&lines[2]), ["error", "kind", "task_id"]);
    assert!(lines[2]["error"].as_str().unwrap().contains("missing-one"));

    // A task that ended failed: exit 5.
    let (code, _, _) = run(&base, &["status", "fail-0-z"]).await;
    assert_eq!(code, 5);

    let home = tempfile::tempdir().unwrap();
    let out = run_in(
        home.path(),
        &base,
        "not-the-token",
        &["status", "demo-image-done"],
    )
    .await;
    let (code, _, err) = split(&out);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("authentication refused"), "{err}");

    let (code, _, err) = run(&base, &["status"]).await;
    assert_eq!(code, 2, "{err}");
    let (code, _, _) = run(&base, &["status", "--no-such-flag", "x"]).await;
    assert_eq!(code, 2);

    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let (code, _, err) = run(
        &Url::parse(&format!("http://{closed}")).unwrap(),
        &["status", "x"],
    )
    .await;
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("cannot connect"), "{err}");
}

#[tokio::test]
async fn wait_reports_each_change_and_ends_with_the_right_code() {
    let svc = service().await;
    let base = svc.base_url();
    let (code, out, err) = run(&base, &["wait", "--json", "--interval", "0.2", "sim-3-a"]).await;
    assert_eq!(code, 0, "{err}");
    let events = json_lines(&out);
    let seen: Vec<(String, u64)> = events
        .iter()
        .map(|e| {
            (
                e["status"].as_str().unwrap().to_string(),
                e["percent"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("QUEUED".into(), 0),
            ("IN_PROGRESS".into(), 33),
            ("IN_PROGRESS".into(), 66),
            ("COMPLETED".into(), 100)
        ]
    );
    assert_eq!(events[3]["state"], "completed");
    assert!(
        events[3]["url_download"]
            .as_str()
            .unwrap()
            .ends_with("sim-3-a.png")
    );

    let (code, out, _) = run(&base, &["wait", "--interval", "0.2", "sim-2-b", "fail-2-c"]).await;
    assert_eq!(code, 5, "{out}");
    assert!(out.contains("FAILED") && out.contains("COMPLETED"), "{out}");

    let (code, out, _) = run(
        &base,
        &[
            "wait",
            "--json",
            "--interval",
            "0.2",
            "--timeout",
            "0.3",
            "hold-forever",
        ],
    )
    .await;
    assert_eq!(code, 6);
    assert!(out.contains(r#""event":"timeout""#), "{out}");

    let (code, _, _) = run(
        &base,
        &[
            "wait",
            "--interval",
            "0.2",
            "--not-found-grace",
            "0",
            "unknown-task",
        ],
    )
    .await;
    assert_eq!(code, 4);
}

#[tokio::test]
async fn wait_json_events_carry_the_eta_once_progress_moved_twice() {
    let svc = service().await;
    let (code, out, err) = run(
        &svc.base_url(),
        &["wait", "--json", "--interval", "0.2", "sim-5-e"],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    let events = json_lines(&out);
    let (finished, running) = events.split_last().unwrap();
    assert_eq!(finished["state"], "completed", "{out}");
    assert!(finished.get("eta_seconds").is_none(), "{out}");
    let percents: Vec<u64> = running
        .iter()
        .map(|e| e["percent"].as_u64().unwrap())
        .collect();
    assert_eq!(percents, [0, 20, 40, 60, 80], "{out}");
    for (i, e) in running.iter().enumerate() {
        assert_eq!(e["state"], "running", "{out}");
        assert_eq!(e["stalled"], false, "{out}");
        // 0 % is the first sample, 20 % the first move: no ETA until the second.
        if i < 2 {
            assert!(e["eta_seconds"].is_null(), "{out}");
        } else {
            assert!(e["eta_seconds"].is_u64(), "{out}");
        }
    }
}

/// Starts `gendash ARGS` against `base` and returns its stdout's lines until one satisfies
/// `wanted` (included), or panics with what it read when the deadline passes first.
async fn lines_until(
    home: &Path,
    base: &Url,
    args: &[&str],
    wanted: impl Fn(&str) -> bool,
) -> Vec<String> {
    let mut child = common::gendash_async(home)
        .env("GENDASH_BASE_URL", base.as_str())
        .env("GENDASH_TOKEN", TOKEN)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    let found = tokio::time::timeout(std::time::Duration::from_secs(20), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            seen.push(line);
            if wanted(seen.last().unwrap()) {
                return true;
            }
        }
        false
    })
    .await;
    child.kill().await.unwrap();
    assert!(matches!(found, Ok(true)), "{seen:#?}");
    seen
}

#[tokio::test]
async fn wait_reports_a_task_that_does_not_move_as_stalled() {
    // `hold-…` stays at 50 % forever; a one-second threshold (the flag, or the config key)
    // makes it stalled within about a second. `--timeout` only bounds a stray process.
    let svc = service().await;
    let base = svc.base_url();
    let (json_home, plain_home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let config = plain_home.path().join("config/gendash/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "stall_after = 1\n").unwrap();
    let json_args = [
        "wait",
        "--json",
        "--interval",
        "0.2",
        "--stall-after",
        "1",
        "--timeout",
        "30",
        "hold-json",
    ];
    let plain_args = ["wait", "--interval", "0.2", "--timeout", "30", "hold-plain"];
    let (events, plain) = tokio::join!(
        lines_until(json_home.path(), &base, &json_args, |l| l
            .contains(r#""stalled":true"#)),
        lines_until(plain_home.path(), &base, &plain_args, |l| l
            .contains("stalled")),
    );

    let events: Vec<Value> = events
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        events.len(),
        2,
        "one event when seen, one when stalled: {events:#?}"
    );
    for (e, stalled) in events.iter().zip([false, true]) {
        assert_eq!(e["state"], "running");
        assert_eq!(e["percent"], 50);
        assert_eq!(e["stalled"], stalled);
        assert!(e["eta_seconds"].is_null(), "never moved: {e}");
    }

    assert_eq!(plain.len(), 2, "{plain:#?}");
    assert!(
        plain[0].contains("hold-plain") && plain[0].ends_with("50%  -"),
        "{plain:#?}"
    );
    let stall = &plain[1];
    assert!(
        stall.starts_with("hold-plain stalled at 50% (no progress for ") && stall.ends_with("s)"),
        "{stall}"
    );
}

#[tokio::test]
async fn wait_retries_through_errors_and_honours_retry_after() {
    // A service that is always busy: wait keeps retrying until its timeout.
    let raw = response(
        "503 Service Unavailable",
        "text/plain",
        "Retry-After: 1\r\n",
        "busy",
    );
    let fs = fault_server(Fault::Raw(raw)).await;
    let (code, out, _) = run(
        &fs.url(),
        &["wait", "--json", "--interval", "0.2", "--timeout", "4", "t"],
    )
    .await;
    assert_eq!(code, 6);
    let errors: Vec<Value> = json_lines(&out)
        .into_iter()
        .filter(|e| e.get("error").is_some())
        .collect();
    // A second apart at least (Retry-After: 1), so at most five in four seconds; at least
    // two even on a loaded machine.
    assert!(errors.len() >= 2 && errors.len() <= 5, "{out}");
    assert!(
        errors
            .iter()
            .all(|e| e["retry_in_ms"].as_u64().unwrap() >= 1000),
        "{out}"
    );
}

#[tokio::test]
async fn download_writes_files_and_refuses_to_overwrite() {
    let svc = service().await;
    let base = svc.base_url();
    let home = tempfile::tempdir().unwrap();
    let out = run_in(
        home.path(),
        &base,
        TOKEN,
        &["download", "-o", "out", "demo-image-done"],
    )
    .await;
    assert_eq!(
        split(&out).0,
        0,
        "a missing directory is made: {}",
        split(&out).2
    );
    std::fs::write(home.path().join("a-file"), "x").unwrap();
    let out = run_in(
        home.path(),
        &base,
        TOKEN,
        &["download", "-o", "a-file", "demo-image-done"],
    )
    .await;
    let (code, _, err) = split(&out);
    assert_eq!(code, 1);
    assert!(err.contains("a-file is not a directory"), "{err}");
    assert_eq!(
        std::fs::read(home.path().join("out/demo-image-done.png")).unwrap(),
        gendash::server::SAMPLE_PNG.as_slice()
    );
    let out = run_in(
        home.path(),
        &base,
        TOKEN,
        &["download", "-o", "out", "demo-image-done"],
    )
    .await;
    let (code, _, err) = split(&out);
    assert_eq!(code, 1);
    assert!(err.contains("--force"), "{err}");
    let out = run_in(
        home.path(),
        &base,
        TOKEN,
        &["download", "--force", "-o", "out", "demo-image-done"],
    )
    .await;
    assert_eq!(split(&out).0, 0);
    let out = run_in(
        home.path(),
        &base,
        TOKEN,
        &["download", "--video", "demo-video-done"],
    )
    .await;
    assert_eq!(split(&out).0, 0);
    assert_eq!(
        std::fs::read(home.path().join("demo-video-done.mp4")).unwrap(),
        gendash::server::SAMPLE_MP4
    );
    let out = run_in(home.path(), &base, TOKEN, &["download", "hold-x"]).await;
    let (code, _, err) = split(&out);
    assert_eq!(code, 1);
    assert!(err.contains("not completed"), "{err}");
    let out = run_in(home.path(), &base, TOKEN, &["download", "fail-0-x"]).await;
    assert_eq!(split(&out).0, 5);
}

#[tokio::test]
async fn download_refuses_a_non_http_url_from_the_service() {
    let body = serde_json::json!({"data": {"is_success": true, "data": {"task_id": "t", "percent": 100,
        "status": "COMPLETED", "url_download": "file:///etc/passwd"}}, "errors": [], "error_description": ""});
    let fs = fault_server(Fault::Raw(response(
        "200 OK",
        "application/json",
        "",
        &body.to_string(),
    )))
    .await;
    let (code, _, err) = run(&fs.url(), &["download", "t"]).await;
    assert_eq!(code, 1);
    assert!(err.contains("refused to open link: scheme `file`"), "{err}");
}

#[tokio::test]
async fn config_path_show_and_errors() {
    let svc = service().await;
    let home = tempfile::tempdir().unwrap();
    let out = run_in(home.path(), &svc.base_url(), TOKEN, &["config", "path"]).await;
    let (code, stdout, _) = split(&out);
    assert_eq!(code, 0);
    assert_eq!(
        stdout.trim(),
        home.path()
            .join("config/gendash/config.toml")
            .display()
            .to_string()
    );

    let cfg = home.path().join("config/gendash/config.toml");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    std::fs::write(
        &cfg,
        "token = \"file-token-SECRET\"\npoll_interval = 5\n[profiles.x]\nrequest_timeout = 9\n",
    )
    .unwrap();
    let out = run_in(
        home.path(),
        &svc.base_url(),
        TOKEN,
        &["config", "show", "--profile", "x"],
    )
    .await;
    let (code, stdout, stderr) = split(&out);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("environment GENDASH_BASE_URL"), "{stdout}");
    assert!(
        stdout.contains("<redacted>")
            && !stdout.contains(TOKEN)
            && !stdout.contains("file-token-SECRET"),
        "{stdout}"
    );
    assert!(
        stdout.contains("poll_interval")
            && stdout.contains("5s")
            && stdout.contains("# config file"),
        "{stdout}"
    );
    assert!(
        stdout.contains("9s") && stdout.contains("# profile x"),
        "{stdout}"
    );
    // A token in a file others can read draws a warning.
    assert!(stderr.contains("readable by others"), "{stderr}");

    std::fs::write(
        &cfg,
        "base_url = \"https://x.example\"\n\npoll_intreval = 5\n",
    )
    .unwrap();
    let out = run_in(home.path(), &svc.base_url(), TOKEN, &["status", "x"]).await;
    let (code, _, stderr) = split(&out);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("config.toml line 3") && stderr.contains("poll_intreval"),
        "{stderr}"
    );
}

/// Starts `gendash serve ARGS` on an ephemeral port; returns the child and its first lines.
async fn serve(
    home: &Path,
    args: &[&str],
    lines_wanted: usize,
) -> (tokio::process::Child, Vec<String>) {
    let mut child = common::gendash_async(home)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut out = Vec::new();
    for _ in 0..lines_wanted {
        let line = tokio::time::timeout(std::time::Duration::from_secs(30), lines.next_line())
            .await
            .expect("serve printed its address")
            .unwrap()
            .expect("a line");
        out.push(line);
    }
    (child, out)
}

fn base_in(line: &str) -> Url {
    Url::parse(
        line.split_whitespace()
            .find(|w| w.starts_with("http://127.0.0.1:"))
            .unwrap(),
    )
    .unwrap()
}

#[tokio::test]
async fn serve_prints_its_address_and_token_and_answers() {
    let home = tempfile::tempdir().unwrap();
    let (mut child, lines) = serve(home.path(), &[], 2).await;
    let token = lines[1].strip_prefix("token: ").unwrap();
    let c = common::client_with(
        &base_in(&lines[0]),
        token,
        std::time::Duration::from_secs(5),
    );
    assert!(!c.list_loras(None, None).await.unwrap().entries.is_empty());
    child.kill().await.unwrap();
}

#[tokio::test]
async fn serve_takes_a_catalogue_file_and_a_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mine.json");
    std::fs::write(&file, r#"[{"model": "only_one", "type": "sd", "cate": "tests", "metadata": {"source": "https://x.example/1"}}]"#).unwrap();
    let (mut child, lines) = serve(
        dir.path(),
        &[
            "--token",
            "tt",
            "--prefix",
            "/api/v1",
            "--catalogue",
            file.to_str().unwrap(),
        ],
        1,
    )
    .await;
    assert!(lines[0].contains("(1 catalogue entry)"), "{}", lines[0]);
    let base = base_in(&lines[0]);
    assert!(base.path().ends_with("/api/v1"), "{base}");
    let c = common::client_with(&base, "tt", std::time::Duration::from_secs(5));
    let cat = c
        .list_loras(Some(gendash::api::LoraType::Sd), Some("tests"))
        .await
        .unwrap();
    assert_eq!(cat.entries.len(), 1);
    assert_eq!(cat.entries[0].model(), "only_one");
    child.kill().await.unwrap();
}

#[tokio::test]
async fn watch_add_list_rm_and_concurrent_writers() {
    let svc = service().await;
    let home = tempfile::tempdir().unwrap();
    let base = svc.base_url();
    let out = run_in(home.path(), &base, TOKEN, &["watch", "add", "a1", "a2"]).await;
    assert_eq!(split(&out).0, 0);
    let out = run_in(
        home.path(),
        &base,
        TOKEN,
        &["watch", "add", "--video", "v1"],
    )
    .await;
    assert_eq!(split(&out).0, 0);
    let out = run_in(home.path(), &base, TOKEN, &["watch", "list", "--json"]).await;
    let list = json_lines(&split(&out).1).remove(0);
    let ids: Vec<(&str, &str)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["task_id"].as_str().unwrap(), e["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(ids, [("a1", "image"), ("a2", "image"), ("v1", "video")]);
    let out = run_in(home.path(), &base, TOKEN, &["watch", "rm", "a2", "zz"]).await;
    assert_eq!(split(&out).0, 4, "removing an unknown ID says so");
    let out = run_in(home.path(), &base, TOKEN, &["watch", "list"]).await;
    let text = split(&out).1;
    assert!(
        text.contains("a1") && !text.contains("a2") && text.contains("v1"),
        "{text}"
    );

    // Twenty processes adding at once lose nothing.
    let runs = (0..20).map(|i| {
        let home = home.path().to_path_buf();
        let base = base.clone();
        async move { run_in(&home, &base, TOKEN, &["watch", "add", &format!("c{i}")]).await }
    });
    for out in futures_util::future::join_all(runs).await {
        assert_eq!(split(&out).0, 0);
    }
    let out = run_in(home.path(), &base, TOKEN, &["watch", "list", "--json"]).await;
    let list = json_lines(&split(&out).1).remove(0);
    assert_eq!(list.as_array().unwrap().len(), 22);
}

/// Every test's child starts from an empty environment plus what the test sets: the shared
/// helpers pass nothing of this process's own environment on (whatever `GENDASH_*`, `NO_COLOR`
/// or config the developer's shell has), only `PATH`, and `HOME` and the XDG dirs of its own.
#[test]
fn children_start_from_an_empty_environment() {
    let home = tempfile::tempdir().unwrap();
    let allowed: Vec<(String, String)> = common::clean_env(home.path())
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string_lossy().into_owned()))
        .collect();
    let out = common::clean_command("env", home.path()).output().unwrap();
    assert!(out.status.success());
    let mut seen: Vec<(String, String)> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (k, v) = l.split_once('=').unwrap();
            (k.to_string(), v.to_string())
        })
        .collect();
    seen.sort();
    let mut want = allowed.clone();
    want.sort();
    assert_eq!(seen, want, "exactly the clean environment");
    // `gendash` through the helper: its settings come from defaults alone, and what a test
    // sets is what it sees.
    let show = |cmd: &mut std::process::Command| {
        let out = cmd.args(["config", "show"]).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let text = show(&mut common::gendash(home.path()));
    let lines: Vec<&str> = text.lines().collect();
    let config = home.path().join("config/gendash/config.toml");
    assert_eq!(
        lines[..2],
        [
            format!("config file: {} (not found)", config.display()),
            "profile: (none)".to_string()
        ],
        "{text}"
    );
    assert!(
        lines[2..].iter().all(|l| l.ends_with("# default")),
        "every setting is the default: {text}"
    );
    let text = show(common::gendash(home.path()).env("GENDASH_BASE_URL", "http://127.0.0.1:1/"));
    assert!(
        text.lines().any(
            |l| l.contains("http://127.0.0.1:1/") && l.contains("environment GENDASH_BASE_URL")
        ),
        "{text}"
    );
}

/// `gendash completions SHELL` and `gendash man` print what shells and `man` read.
#[test]
fn completions_and_the_manual_are_generated() {
    let home = tempfile::tempdir().unwrap();
    for (shell, marker) in [
        ("bash", "complete -F _gendash"),
        ("zsh", "#compdef gendash"),
        ("fish", "complete -c gendash"),
        ("elvish", "edit:completion:arg-completer[gendash]"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let out = common::gendash(home.path())
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains(marker),
            "{shell}: {}",
            &text[..200.min(text.len())]
        );
        assert!(
            text.contains("download") && text.contains("watch"),
            "{shell}"
        );
    }
    let out = common::gendash(home.path()).args(["man"]).output().unwrap();
    assert!(out.status.success());
    let man = String::from_utf8(out.stdout).unwrap();
    assert!(
        man.contains(".TH gendash 1") && man.contains("LoRA"),
        "{man}"
    );
    let out = common::gendash(home.path())
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown shell is a usage error"
    );
}

/// `gendash watch add -` reads task IDs from standard input.
#[test]
fn watch_add_reads_ids_from_stdin() {
    use std::io::Write;
    let home = tempfile::tempdir().unwrap();
    let mut child = common::gendash(home.path())
        .args([
            "--base-url",
            "http://127.0.0.1:9",
            "watch",
            "add",
            "-",
            "x-0",
        ])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"a-1 a-2,a-3\n\na-4\n")
        .unwrap();
    assert!(child.wait().unwrap().success());
    let out = common::gendash(home.path())
        .args(["watch", "list", "--json"])
        .output()
        .unwrap();
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["task_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["a-1", "a-2", "a-3", "a-4", "x-0"]);
    let out = common::gendash(home.path())
        .args(["watch", "add", "-"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("stdin was empty"));
}

/// Rough edges: a base URL without a scheme is a usage error that says what was meant; the
/// watch list's columns line up.
#[tokio::test]
async fn a_base_url_without_scheme_says_what_was_meant_and_lists_line_up() {
    let home = tempfile::tempdir().unwrap();
    let out = common::gendash_async(home.path())
        .args(["--base-url", "127.0.0.1:8787", "models"])
        .env("GENDASH_TOKEN", TOKEN)
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("did you mean `http://127.0.0.1:8787`"),
        "{err}"
    );

    let svc = service().await;
    let base = svc.base_url();
    run_in(
        home.path(),
        &base,
        TOKEN,
        &["watch", "add", "a", "a-much-longer-task-id"],
    )
    .await;
    let out = run_in(home.path(), &base, TOKEN, &["watch", "list"]).await;
    let text = split(&out).1;
    let at: Vec<usize> = text
        .lines()
        .map(|l| l.find("(not polled yet)").unwrap())
        .collect();
    assert_eq!(at.len(), 2, "{text}");
    assert_eq!(at[0], at[1], "the status column lines up:\n{text}");
}

/// `config show` with a `token_file` that is gone shows every other setting, and the token's
/// line says what is wrong; a command that needs the token says the same.
#[tokio::test]
async fn config_show_survives_an_unreadable_token() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("config/gendash");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        "base_url = \"http://127.0.0.1:9\"\ntoken_file = \"/nonexistent/gendash-token\"\n",
    )
    .unwrap();
    let show = |args: &'static [&'static str]| {
        let mut cmd = common::gendash_async(home.path());
        cmd.args(args);
        async move { cmd.output().await.unwrap() }
    };
    let out = show(&["config", "show"]).await;
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("(unreadable: cannot read token_file /nonexistent/gendash-token")
            && text.contains("poll_interval"),
        "{text}"
    );
    let out = show(&["models"]).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot read token_file"),
        "{out:?}"
    );
}

#[test]
fn keys_prints_the_bindings_in_force_as_text_and_json() {
    let home = tempfile::tempdir().unwrap();
    let cfg = home.path().join("config/gendash/config.toml");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    let keys = |args: &[&str]| {
        let out = common::gendash(home.path()).args(args).output().unwrap();
        split(&out)
    };
    let (code, stdout, stderr) = keys(&["keys"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("Always, even while typing or in a popup\n"),
        "{stdout}"
    );
    let download = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("download "))
        .unwrap();
    assert!(
        download.contains(" D ") && download.contains("download the file"),
        "{download}"
    );

    std::fs::write(
        &cfg,
        "[keys]\ndownload = \"ctrl-d\"\nopen = [\"enter\", \"o\", \"f2\"]\n",
    )
    .unwrap();
    let (code, stdout, _) = keys(&["keys", "--json"]);
    assert_eq!(code, 0);
    let rows: Vec<Value> = serde_json::from_str(&stdout).unwrap();
    let row = |ctx: &str, action: &str| {
        rows.iter()
            .find(|r| r["context"] == ctx && r["action"] == action)
            .unwrap_or_else(|| panic!("{ctx} {action}"))
            .clone()
    };
    assert_eq!(row("watch", "download")["keys"], json!(["ctrl-d"]));
    assert_eq!(row("watch", "download")["label"], "^D");
    assert_eq!(row("browser", "open")["keys"], json!(["enter", "o", "f2"]));
    assert_eq!(row("watch", "open")["keys"], json!(["enter", "o", "f2"]));
    assert_eq!(row("always", "interrupt")["keys"], json!(["ctrl-c"]));
    assert!(
        rows.iter()
            .all(|r| r["description"].as_str().is_some_and(|d| !d.is_empty()))
    );

    // The docs' example: the user's key wins, and the built-in action that had it is named.
    std::fs::write(&cfg, "[keys]\nundo = \"ctrl-z\"\n").unwrap();
    let (code, stdout, stderr) = keys(&["keys"]);
    assert_eq!(code, 0, "{stderr}");
    let undo = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("undo "))
        .unwrap();
    assert!(undo.contains(" ctrl-z "), "{undo}");
    assert!(
        stdout
            .contains("Built-in keys your [keys] took\n  `ctrl-z` is `undo`'s ([keys]); `suspend`")
            && stdout.contains("gave it up and has no key left"),
        "{stdout}"
    );
    std::fs::write(&cfg, "[keys]\nremove = \"s\"\nundo = \"s\"\n").unwrap();
    let (code, _, stderr) = keys(&["keys"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("`s` is bound to both `remove`") && stderr.contains("`undo`"),
        "{stderr}"
    );
    std::fs::write(&cfg, "[keys]\nremvoe = \"x\"\n").unwrap();
    let (code, _, stderr) = keys(&["keys"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("config.toml line 2: unknown field `remvoe`"),
        "{stderr}"
    );
}

/// `models --offline` reads what an earlier `models` cached for the same service, type and
/// category, and says how old it is; without a cache it fails naming what it looked for.
#[tokio::test]
async fn models_offline_reads_the_cache() {
    let home = tempfile::tempdir().unwrap();
    let svc = service().await;
    let base = svc.base_url();
    let args = ["models", "--type", "sdxl", "--cate", "style", "--json"];
    let offline = [&args[..], &["--offline"]].concat();

    let (code, _, err) = split(&run_in(home.path(), &base, TOKEN, &offline).await);
    assert_eq!(code, 4, "not found: {err}");
    let service = base.as_str().trim_end_matches('/');
    assert!(
        err.contains(service) && err.contains("type sdxl") && err.contains("category style"),
        "{err}"
    );

    let (code, online, err) = split(&run_in(home.path(), &base, TOKEN, &args).await);
    assert_eq!(code, 0, "{err}");
    drop(svc);
    let (code, out, err) = split(&run_in(home.path(), &base, TOKEN, &offline).await);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, online, "the same entries, as served");
    assert!(err.contains("cached just now"), "{err}");

    // Another category has its own entry in the cache: none.
    let (code, _, err) = split(
        &run_in(
            home.path(),
            &base,
            TOKEN,
            &["models", "--type", "sdxl", "--offline"],
        )
        .await,
    );
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("category any"), "{err}");
}

/// Against a service whose routes live under a prefix the base URL lacks, every answer is a
/// 404: `models` says the base URL's path looks wrong and shows what was asked, and `status`
/// does not call the task unknown. With the prefix, both work.
#[tokio::test]
async fn models_against_a_wrong_prefix_says_the_path_looks_wrong() {
    let svc = common::service_with(gendash::server::Options {
        prefix: Some("/api/v1".into()),
        ..gendash::server::Options::new(gendash::api::Secret::new(TOKEN))
    })
    .await;
    let wrong = svc.base_url();
    let (code, out, err) = run(&wrong, &["models", "--type", "sd"]).await;
    assert_eq!(code, 4, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains(&format!(
            "the base URL's path looks wrong: POST {wrong}lora/ → 404: is the path prefix right?"
        )),
        "{err}"
    );
    let (code, _, err) = run(&wrong, &["status", "demo-image-done"]).await;
    assert_eq!(code, 4, "{err}");
    assert!(
        err.contains(&format!(
            "POST {wrong}ai/image_generation/demo-image-done → 404: is the path prefix right?"
        )) && !err.contains("lookup failed"),
        "{err}"
    );
    let right = wrong.join("api/v1/").unwrap();
    let (code, out, err) = run(&right, &["models", "--type", "sd"]).await;
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().count() > 50, "{out}");
}

/// `models --offline` without a copy for its type and category narrows a broader one here,
/// and says so; what it prints is what the service lists for them.
#[tokio::test]
async fn models_offline_narrows_a_broader_copy() {
    let home = tempfile::tempdir().unwrap();
    let svc = service().await;
    let base = svc.base_url();
    let (code, _, err) = split(&run_in(home.path(), &base, TOKEN, &["models", "--json"]).await);
    assert_eq!(code, 0, "{err}");
    let args = ["models", "--type", "sdxl", "--cate", "style", "--json"];
    let (code, online, _) = split(&run_in(home.path(), &base, TOKEN, &args).await);
    assert_eq!(code, 0);
    std::fs::remove_dir_all(home.path().join(".cache/gendash/catalogues")).unwrap();
    let (code, _, _) = split(&run_in(home.path(), &base, TOKEN, &["models", "--json"]).await);
    assert_eq!(code, 0);
    drop(svc);
    let offline = [&args[..], &["--offline"]].concat();
    let (code, out, err) = split(&run_in(home.path(), &base, TOKEN, &offline).await);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("for broader filters, narrowed here"), "{err}");
    assert_eq!(out, online, "what the service lists for sdxl and style");
}
