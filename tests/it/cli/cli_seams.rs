//! The command line where its features meet (issue 17, "The command line"): floors for every
//! duration, `wait`'s grace, fail-fast and bars on a terminal, `status`'s exit codes, errors
//! that say what to do, and the manual, help and completions as a user gets them.

use super::commands::{finished, run, run_in, split};
use crate::common;

use common::{Fault, TOKEN, fault_server, response, service, write_config};
use serde_json::json;
use std::path::Path;
use url::Url;

/// Runs the binary in `home` with `env` and no service variables of its own.
async fn run_env(home: &Path, env: &[(&str, &str)], args: &[&str]) -> (u8, String, String) {
    let mut cmd = common::gendash_async(home);
    cmd.envs(env.iter().copied()).args(args);
    split(&finished(cmd).await)
}

#[tokio::test]
async fn zero_is_refused_wherever_it_can_be_set_and_says_the_floor() {
    let fs = fault_server(Fault::Raw(response("200 OK", "text/plain", "", "x"))).await;
    let base = fs.url();
    for (config, wanted) in [
        (
            "poll_interval = 0\n",
            "config.toml line 1, key `poll_interval`: 0 is too short: it must be at least 0.2 seconds",
        ),
        (
            "bell = true\nstall_after = 0\n",
            "config.toml line 2, key `stall_after`: 0 is too short: it must be at least 1 second",
        ),
        (
            "request_timeout = 0.0\n",
            "config.toml line 1, key `request_timeout`: 0 is too short: it must be at least 1 second",
        ),
        (
            "[profiles.p]\nmax_concurrent_polls = 0\n",
            "config.toml line 2, key `profiles.p.max_concurrent_polls`: 0 is too few: at least 1 request must be allowed at a time",
        ),
    ] {
        let home = tempfile::tempdir().unwrap();
        write_config(home.path(), config);
        let out = run_in(home.path(), &base, TOKEN, &["status", "t"]).await;
        let (code, _, err) = split(&out);
        assert_eq!(code, 1, "{config}: {err}");
        assert!(
            err.contains(wanted),
            "{config}\n  got: {err}\n  wanted: {wanted}"
        );
    }
    let home = tempfile::tempdir().unwrap();
    let (code, _, err) = run_env(
        home.path(),
        &[
            ("GENDASH_BASE_URL", base.as_str()),
            ("GENDASH_TOKEN", TOKEN),
            ("GENDASH_REQUEST_TIMEOUT", "0"),
        ],
        &["status", "t"],
    )
    .await;
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("GENDASH_REQUEST_TIMEOUT: 0 is too short: it must be at least 1 second"),
        "{err}"
    );
    for (args, wanted) in [
        (
            ["--interval", "0"],
            "--interval: 0 is too short: it must be at least 0.2 seconds",
        ),
        (
            ["--interval", "0.05"],
            "--interval: 0.05 is too short: it must be at least 0.2 seconds",
        ),
        (
            ["--stall-after", "0"],
            "--stall-after: 0 is too short: it must be at least 1 second",
        ),
    ] {
        let (code, _, err) = run(&base, &["wait", args[0], args[1], "--timeout", "5", "t"]).await;
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(wanted), "{args:?}: {err}");
    }
    assert!(
        fs.requests.lock().unwrap().is_empty(),
        "nothing was asked of the service"
    );
}

#[tokio::test]
async fn a_task_registered_late_gets_its_grace_and_status_says_running_with_its_own_code() {
    let svc = service().await;
    let base = svc.base_url();
    let home = tempfile::tempdir().unwrap();
    write_config(home.path(), "poll_interval = 0.2\n");
    let go = |args: &'static [&'static str]| {
        let (home, base) = (home.path().to_path_buf(), base.clone());
        async move { split(&run_in(&home, &base, TOKEN, args).await) }
    };

    // Unknown for three lookups, then a task that completes: `wait` rides it out.
    let (code, out, err) = go(&["wait", "late-3-sim-1-a"]).await;
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("COMPLETED"), "{out}");
    assert!(
        err.contains("late-3-sim-1-a: not found yet; asking again until 30s have passed")
            && !err.contains("error"),
        "{err}"
    );
    // No grace: unknown is unknown at once.
    let (code, _, err) = go(&["wait", "--not-found-grace", "0", "late-3-sim-1-b"]).await;
    assert_eq!(code, 4, "{err}");
    // A grace that runs out: asked for about that long, then exit 4.
    let started = std::time::Instant::now();
    let (code, _, err) = go(&["wait", "--not-found-grace", "0.6", "never-known"]).await;
    assert_eq!(code, 4, "{err}");
    assert!(started.elapsed() >= std::time::Duration::from_millis(600));
    assert!(
        err.contains("gendash: error: never-known: lookup failed"),
        "{err}"
    );

    // `status` answers at once by default, and waits when asked to.
    let (code, _, err) = go(&["status", "late-2-hold-c"]).await;
    assert_eq!(code, 4, "{err}");
    let (code, out, err) = go(&["status", "--not-found-grace", "5", "late-2-hold-d"]).await;
    assert_eq!(code, 7, "a running task: {out}{err}");
    assert!(
        out.contains("late-2-hold-d") && out.contains("IN_PROGRESS"),
        "{out}"
    );
    // Failed beats running beats done; an error beats them all.
    let (code, _, _) = go(&["status", "demo-image-done", "hold-e"]).await;
    assert_eq!(code, 7);
    let (code, _, _) = go(&["status", "demo-image-done"]).await;
    assert_eq!(code, 0);
    let (code, _, _) = go(&["status", "hold-f", "fail-0-g"]).await;
    assert_eq!(code, 5);
    let (code, _, _) = go(&["status", "hold-h", "fail-0-i", "nobody"]).await;
    assert_eq!(code, 4);
}

#[tokio::test]
async fn wait_fail_fast_stops_at_the_first_failed_task() {
    let svc = service().await;
    let base = svc.base_url();
    let (code, out, err) = run(
        &base,
        &[
            "wait",
            "--fail-fast",
            "--interval",
            "0.2",
            "--timeout",
            "20",
            "fail-1-a",
            "hold-b",
        ],
    )
    .await;
    // Stopped at the failure, not at the 20 s time-out (which would be exit 6 and leave the
    // running task's line marked as given up).
    assert_eq!(code, 5, "{out}{err}");
    assert!(!out.contains("gave up waiting"), "{out}");
    assert!(out.contains("fail-1-a") && out.contains("FAILED"), "{out}");
    // Without it, the task still running is waited for until the timeout.
    let (code, _, _) = run(
        &base,
        &[
            "wait",
            "--interval",
            "0.2",
            "--timeout",
            "1",
            "fail-1-c",
            "hold-d",
        ],
    )
    .await;
    assert_eq!(code, 6);
}

#[tokio::test]
async fn errors_say_what_to_do() {
    // Connection refused: the address, and the question.
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
    assert!(
        err.contains(&format!("cannot connect to http://{closed}"))
            && err.contains(&format!("is the service running at http://{closed}?")),
        "{err}"
    );

    // A retried error is a note, not an `error:`; only giving up is.
    let busy = fault_server(Fault::Raw(response(
        "503 Service Unavailable",
        "text/plain",
        "",
        "busy",
    )))
    .await;
    let (code, _, err) = run(
        &busy.url(),
        &["wait", "--interval", "0.2", "--timeout", "3", "t"],
    )
    .await;
    assert_eq!(code, 6, "{err}");
    let retried: Vec<&str> = err.lines().filter(|l| l.contains("retrying in")).collect();
    assert!(!retried.is_empty(), "{err}");
    assert!(
        retried
            .iter()
            .all(|l| l.starts_with("gendash: t: HTTP 503") && !l.contains("error:")),
        "{err}"
    );
    assert!(
        err.trim_end()
            .ends_with("gendash: error: gave up waiting after 3s"),
        "{err}"
    );

    // No token: the command that stores one.
    let home = tempfile::tempdir().unwrap();
    let (code, _, err) = run_env(
        home.path(),
        &[("GENDASH_BASE_URL", busy.url().as_str())],
        &["status", "t"],
    )
    .await;
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("no token configured: run `gendash config set-token`"),
        "{err}"
    );
    write_config(home.path(), "[profiles.work]\nbell = false\n");
    let (code, _, err) = run_env(
        home.path(),
        &[("GENDASH_BASE_URL", busy.url().as_str())],
        &["--profile", "work", "status", "t"],
    )
    .await;
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("no token configured: run `gendash --profile work config set-token`"),
        "{err}"
    );
}

#[tokio::test]
async fn config_errors_suggest_the_nearest_key_and_name_the_lines() {
    // An unknown key: the nearest known one, in the file's own tables too.
    for (config, wanted) in [
        (
            "pol_interval = 2\n",
            "config.toml line 1: unknown field `pol_interval` (did you mean `poll_interval`?), expected one of",
        ),
        (
            "[profiles.w]\nrequest_timout = 9\n",
            "unknown field `request_timout` (did you mean `request_timeout`?)",
        ),
        (
            "[keys]\nquitt = \"x\"\n",
            "config.toml line 2: unknown field `quitt` (did you mean `quit`?)",
        ),
        (
            "theme = \"ligth\"\n",
            "unknown variant `ligth` (did you mean `light`?)",
        ),
    ] {
        let home = tempfile::tempdir().unwrap();
        write_config(home.path(), config);
        let (code, _, err) = run_env(home.path(), &[], &["config", "show"]).await;
        assert_eq!(code, 1, "{config}: {err}");
        assert!(
            err.contains(wanted),
            "{config}\n  got: {err}\n  wanted: {wanted}"
        );
    }
    // A `[keys]` problem found when the keymap is built names the lines it comes from.
    let home = tempfile::tempdir().unwrap();
    write_config(
        home.path(),
        "bell = false\n[keys]\nopen = \"x\"\n\nremove = \"x\"\n",
    );
    // Refused the same way by every command that reads the settings, `config show` too.
    for args in [&["keys"][..], &["config", "show"]] {
        let (code, _, err) = run_env(home.path(), &[], args).await;
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(
            err.contains("config.toml: keys: `x` is bound to both `open`")
                && err.trim_end().ends_with("[keys] (at lines 3 and 5)"),
            "{args:?}: {err}"
        );
    }
}

#[tokio::test]
async fn status_shows_a_long_status_whole() {
    let status = "WAITING_FOR_A_FREE_GPU_IN_REGION_EU";
    let body = json!({"data": {"is_success": true, "data": {"task_id": "t", "percent": 5,
        "status": status, "url_download": ""}}, "errors": [], "error_description": ""});
    let fs = fault_server(Fault::Raw(response(
        "200 OK",
        "application/json",
        "",
        &body.to_string(),
    )))
    .await;
    let (code, out, err) = run(&fs.url(), &["status", "t"]).await;
    assert_eq!(code, 7, "{err}");
    assert!(out.contains(&format!("  {status}  ")), "{out}");
}

/// Every page, help text and completion script a user can get from the binary.
fn user_facing_texts(home: &Path) -> Vec<(String, String)> {
    let text = |args: &[&str]| {
        let out = common::gendash(home).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let mut texts = Vec::new();
    for sub in [
        &[][..],
        &["models"],
        &["status"],
        &["wait"],
        &["download"],
        &["watch"],
        &["watch", "add"],
        &["watch", "list"],
        &["watch", "rm"],
        &["serve"],
        &["config"],
        &["keys"],
        &["completions"],
        &["man"],
    ] {
        let mut args = sub.to_vec();
        args.push("--help");
        texts.push((args.join(" "), text(&args)));
    }
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        texts.push((
            format!("completions {shell}"),
            text(&["completions", shell]),
        ));
    }
    let dir = home.join("man1");
    text(&["man", dir.to_str().unwrap()]);
    for page in std::fs::read_dir(&dir).unwrap() {
        let page = page.unwrap().path();
        texts.push((
            page.display().to_string(),
            std::fs::read_to_string(&page).unwrap(),
        ));
    }
    texts
}

#[test]
fn test_only_switches_are_not_in_help_completions_or_the_manual() {
    let home = tempfile::tempdir().unwrap();
    let texts = user_facing_texts(home.path());
    assert!(texts.len() > 30, "{}", texts.len());
    for (what, text) in &texts {
        assert!(text.contains("gendash"), "{what} is empty");
        for secret in ["stress", "GENDASH_TEST", "STRESS"] {
            assert!(!text.contains(secret), "{what} names {secret}");
        }
    }
    // The switches still work in the test build: the durability test relies on one.
    let file = home.path().join("w.json");
    let out = common::gendash(home.path())
        .env("GENDASH_TEST_STRESS_SAVE", &file)
        .env("GENDASH_TEST_STRESS_ROUNDS", "3")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(std::fs::read_to_string(&file).unwrap().contains("task_id"));
}

/// The variables the source reads: every `"GENDASH_…"` literal but the test-only switches.
fn variables_read() -> std::collections::BTreeSet<String> {
    fn walk(dir: &Path, found: &mut std::collections::BTreeSet<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, found);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for piece in text.split("\"GENDASH_").skip(1) {
                    let name: String = piece
                        .chars()
                        .take_while(|c| c.is_ascii_uppercase() || *c == '_')
                        .collect();
                    if piece[name.len()..].starts_with('"') && !name.starts_with("TEST_") {
                        found.insert(format!("GENDASH_{name}"));
                    }
                }
            }
        }
    }
    let mut found = std::collections::BTreeSet::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut found,
    );
    found
}

#[test]
fn man_writes_every_page_it_names_and_gendash_1_has_the_user_s_sections() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("man/man1");
    let out = common::gendash(home.path())
        .args(["man", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let said: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let mut written: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    written.sort();
    let mut said_sorted = said.clone();
    said_sorted.sort();
    assert_eq!(said_sorted, written, "it prints what it wrote");
    for sub in [
        "models",
        "status",
        "wait",
        "download",
        "watch-add",
        "config-show",
        "man",
    ] {
        assert!(
            dir.join(format!("gendash-{sub}.1")).exists(),
            "gendash-{sub}.1 in {written:?}"
        );
    }
    // Every page another page names is there.
    for page in &written {
        let text = std::fs::read_to_string(page).unwrap();
        for piece in text.split("gendash\\-").skip(1) {
            let Some((name, _)) = piece.split_once("(1)") else {
                continue;
            };
            if name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '\\')
            {
                let file = format!("gendash-{}.1", name.replace("\\-", "-"));
                assert!(dir.join(&file).exists(), "{page} names {file}");
            }
        }
    }

    let main = std::fs::read_to_string(dir.join("gendash.1")).unwrap();
    let section = |title: &str| -> String {
        let start = main
            .find(&format!(".SH \"{title}\""))
            .unwrap_or_else(|| panic!("no {title} section"));
        let rest = &main[start + 4..];
        rest[..rest.find(".SH ").unwrap_or(rest.len())].to_string()
    };
    let keys = section("KEYS");
    for binding in gendash::app::state::Keymap::default().bindings() {
        assert!(
            keys.contains(&binding.name.as_str().replace('-', "\\-")),
            "{}",
            binding.name
        );
    }
    let configuration = section("CONFIGURATION");
    for key in gendash::store::config::declared_keys() {
        assert!(
            configuration.contains(&format!("\\fB{}\\fR", key.replace('-', "\\-"))),
            "{key}"
        );
    }
    assert!(configuration.contains("default: 2s"), "{configuration}");
    let environment = section("ENVIRONMENT");
    for variable in variables_read() {
        assert!(
            environment.contains(&variable),
            "{variable} is not in ENVIRONMENT"
        );
    }
    let files = section("FILES");
    assert!(
        files.contains("config.toml") && files.contains("watchlist.json"),
        "{files}"
    );
    let exit_status = section("EXIT STATUS");
    for code in 0..=7 {
        assert!(exit_status.contains(&format!("\\fB{code}\\fR")), "{code}");
    }

    // Without a directory, gendash(1) on standard output, as before.
    let out = common::gendash(home.path()).args(["man"]).output().unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), main);
}

/// Runs `gendash ARGS` with `env` on a 140x20 terminal, which must exit with `code`; the
/// screen it left behind.
fn exit_screen(home: &Path, args: &[&str], env: &[(&str, &str)], code: u32) -> String {
    use common::pty::{Session, command};
    let mut s = Session::spawn(command(home, args, env), 140, 20);
    let exit = s.wait_exit(std::time::Duration::from_secs(30));
    assert_eq!(exit, code, "{}", s.contents());
    let screen = s.screen.lock().unwrap();
    screen
        .parser
        .screen()
        .rows(0, 140)
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_on_a_terminal_keeps_every_line_at_the_timeout_and_the_bars_line_up() {
    let svc = service().await;
    let base = svc.base_url();
    let home = tempfile::tempdir().unwrap();
    let ids = ["hold-a", "sim-1-a-much-longer-task-id", "late-1000-x"];
    // Time for sim-1's two answers on a loaded machine.
    let mut args = vec!["wait", "--interval", "0.2", "--timeout", "4"];
    args.extend(ids);
    let env = [
        ("GENDASH_BASE_URL", base.as_str()),
        ("GENDASH_TOKEN", TOKEN),
    ];
    let screen = tokio::task::block_in_place(|| exit_screen(home.path(), &args, &env, 6));
    assert!(
        screen.contains("gendash: error: gave up waiting after 4s"),
        "{screen}"
    );
    let columns: Vec<usize> = ids
        .iter()
        .map(|id| {
            let line = screen
                .lines()
                .find(|l| l.starts_with(id))
                .unwrap_or_else(|| panic!("no line for {id}:\n{screen}"));
            line.find('[').unwrap()
        })
        .collect();
    assert!(
        columns.iter().all(|&c| c == columns[0]),
        "bars start in one column: {columns:?}\n{screen}"
    );
    let line_of = |id: &str| screen.lines().find(|l| l.starts_with(id)).unwrap();
    assert!(
        line_of("hold-a").contains("50% IN_PROGRESS")
            && line_of("hold-a").contains("(gave up waiting)"),
        "{screen}"
    );
    assert!(line_of("sim-1-a").contains("COMPLETED"), "{screen}");
    assert!(line_of("late-1000-x").contains("not found yet"), "{screen}");

    // --fail-fast on a terminal: the failure ends it, the other bar stays with why.
    let args = [
        "wait",
        "--fail-fast",
        "--interval",
        "0.2",
        "fail-1-a",
        "hold-b",
    ];
    let screen = tokio::task::block_in_place(|| exit_screen(home.path(), &args, &env, 5));
    let line_of = |id: &str| screen.lines().find(|l| l.starts_with(id)).unwrap();
    assert!(line_of("fail-1-a").contains("FAILED"), "{screen}");
    assert!(
        line_of("hold-b").contains("50% IN_PROGRESS  (stopped by --fail-fast)"),
        "{screen}"
    );
}

#[test]
fn the_cli_doc_s_exit_codes_and_help_list_every_code() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cli.md")).unwrap();
    let start = doc.find("## Exit codes").unwrap();
    let section = &doc[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    let rows: Vec<u8> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| ")?.split(' ').next()?.parse().ok())
        .collect();
    let codes: Vec<u8> = gendash::cli::exit::TABLE.iter().map(|(c, _)| *c).collect();
    assert_eq!(rows, codes, "{section}");
    let home = tempfile::tempdir().unwrap();
    let out = common::gendash(home.path()).arg("--help").output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap().replace('\n', " ");
    assert!(help.contains("7 status: a task is still running"), "{help}");
}
