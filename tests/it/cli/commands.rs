//! The real `gendash` binary against the reference service: output, JSON shapes, exit codes.

use crate::common;

use common::{Fault, TOKEN, fault_server, response, service};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Output;
use tokio::io::AsyncBufReadExt;
use url::Url;

mod models;
mod wait;

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
