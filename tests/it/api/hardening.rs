//! Hostile service, hostile input: nothing reaches a terminal that could command it, and the
//! token leaks nowhere. (Transport faults: see `contract.rs`; exits: `signals.rs`.)

use crate::common;

use common::{Fault, fault_server, response};
use gendash::api::types::{decode_catalogue, decode_task};
use gendash::api::{ApiError, TaskKind};
use gendash::app::action::Action;
use gendash::app::state::{State, UiSettings};
use gendash::cmd::TaskKey;
use gendash::msg::Msg;
use gendash::store::watchlist::WatchEntry;
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};
use ratatui_crossterm::CrosstermBackend;
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

const CANARY: &str = "tok-CANARY-7c1e-S3CRET";

/// Strings a hostile service might send: screen clears, title and clipboard writes, hyperlinks,
/// terminal reports, 8-bit controls, carriage returns, bells, bidi overrides, huge values.
fn hostile() -> Vec<String> {
    vec![
        "clear\x1b[2Jscreen".into(),
        "title\x1b]0;pwned\x07".into(),
        "link\x1b]8;;http://evil.example/\x1b\\text\x1b]8;;\x1b\\".into(),
        "clip\x1b]52;c;ZXZpbA==\x07".into(),
        "report\x1b[21t".into(),
        "csi\u{9b}2J".into(),
        "osc\u{9d}0;t\u{9c}".into(),
        "cr\roverwrite".into(),
        "bell\x07".into(),
        "rtl\u{202e}gpj.exe".into(),
        "W".repeat(10_000),
    ]
}

/// What each of [`hostile`] must look like once sanitised: its words kept, every escape
/// sequence removed whole, controls and bidi overrides dropped, length bounded.
fn shown() -> Vec<String> {
    let mut long = "W".repeat(gendash::api::sanitize::MAX_CHARS - 1);
    long.push('…');
    vec![
        "clearscreen".into(),
        "title".into(),
        "linktext".into(),
        "clip".into(),
        "report".into(),
        "csi".into(),
        "osc".into(),
        "cr overwrite".into(),
        "bell".into(),
        "rtlgpj.exe".into(),
        long,
    ]
}

/// The first `n` characters of `s`: what survives a column cut to at least `n`.
fn head(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

fn bad_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}')
}

/// Text that can be shown as is: no control character of any kind, no bidi control.
fn assert_inert(what: &str, text: &str) {
    if let Some(c) = text.chars().find(|&c| bad_char(c) && c != '\n') {
        panic!("{what} contains {c:?}: {:?}", &text[..text.len().min(300)]);
    }
    for escaped in ["\\u001b", "\\u0007", "\\u009b", "\\u009d", "\\u202e", "\\r"] {
        assert!(
            !text.contains(escaped),
            "{what} carries an escaped control {escaped}"
        );
    }
}

/// The bytes a renderer wrote: the only escape sequences are its own CSI cursor moves, colours
/// and modes; no OSC, DCS, C1 controls, bells or bidi.
fn assert_renderer_bytes(bytes: &[u8]) {
    let text = std::str::from_utf8(bytes).expect("UTF-8 output");
    let mut rest = text;
    while let Some(at) = rest.find('\x1b') {
        let seq = &rest[at + 1..];
        assert!(
            seq.starts_with('['),
            "non-CSI escape: {:?}",
            &seq[..seq.len().min(20)]
        );
        let body = &seq[1..];
        let end = body
            .find(|c: char| !(c.is_ascii_digit() || c == ';' || c == ':' || c == '?'))
            .expect("terminated CSI");
        let fin = body[end..].chars().next().unwrap();
        assert!(
            matches!(fin, 'm' | 'H' | 'J' | 'K' | 'h' | 'l'),
            "unexpected CSI final {fin:?}"
        );
        rest = &body[end + 1..];
    }
    let printable: String = text.split('\x1b').collect();
    assert!(
        !printable.chars().any(|c| bad_char(c) && c != '\x1b'),
        "control or bidi bytes in the output"
    );
}

fn hostile_catalogue_body() -> String {
    let data: Vec<_> = hostile()
        .into_iter()
        .map(|h| json!({"model": h, "metadata": {"source": format!("https://x.example/{h}"), "note": h, format!("key{h}"): 1}}))
        .collect();
    json!({"data": data}).to_string()
}

fn hostile_task_body(h: &str) -> String {
    json!({"data": {"is_success": true, "data": {"task_id": h, "percent": 100, "status": h, "url_download": format!("https://x.example/{h}")}},
        "errors": [], "error_description": ""}).to_string()
}

/// A 160x40 dashboard watching image tasks `t0`..`t{n-1}`, started.
fn started_state(n: usize) -> State {
    let watch = (0..n)
        .map(|i| WatchEntry::new(format!("t{i}"), TaskKind::Image))
        .collect();
    let settings = UiSettings {
        bell: true,
        desktop_notifications: true,
        no_color: false,
        poll_interval: 2,
    };
    let mut s = State::new(gendash::app::state::Init {
        service_url: "http://127.0.0.1:8787/".into(),
        categories: Vec::new(),
        watch,
        failure_statuses: gendash::api::types::default_failure_statuses(),
        settings,
        now: 1_800_000_000,
        ..gendash::app::state::Init::default()
    });
    s.update(Action::Resize {
        width: 160,
        height: 40,
    });
    s.start();
    s
}

fn hostile_state() -> State {
    let mut s = started_state(hostile().len());
    let cat = decode_catalogue(hostile_catalogue_body().as_bytes()).unwrap();
    s.apply(Msg::Catalogue {
        generation: s.browser.generation,
        result: Ok(cat.into()),
    });
    for (i, h) in hostile().into_iter().enumerate() {
        let id = format!("t{i}");
        let t = decode_task(hostile_task_body(&h).as_bytes(), TaskKind::Image, &id).unwrap();
        s.apply(Msg::Polled {
            key: TaskKey::new(TaskKind::Image, id),
            result: Ok(t),
            retry_in: None,
            next: None,
        });
    }
    // An error text from a failed lookup, and one from an HTML error page.
    let failed =
        json!({"data": {"is_success": false}, "errors": [1], "error_description": hostile()[1]})
            .to_string();
    let e = decode_task(failed.as_bytes(), TaskKind::Image, "t0").unwrap_err();
    s.apply(Msg::Polled {
        key: TaskKey::new(TaskKind::Image, "t1"),
        result: Err(e),
        retry_in: None,
        next: None,
    });
    let page = format!("<html><title>{}</title></html>", hostile()[0]);
    let e = ApiError::Http {
        status: 502,
        excerpt: gendash::api::http::excerpt(page.as_bytes()),
        retry_after: None,
    };
    s.apply(Msg::Polled {
        key: TaskKey::new(TaskKind::Image, "t2"),
        result: Err(e),
        retry_in: None,
        next: None,
    });
    s
}

#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn hostile_strings_render_inert_in_cells_and_bytes() {
    let mut s = hostile_state();
    let mut frames = Vec::new();
    let mut snap = |s: &State| {
        let cells = common::rendered_text(s, 160, 40);
        assert_inert("the screen", &cells);
        let out = Shared::default();
        let mut t = Terminal::with_options(
            CrosstermBackend::new(out.clone()),
            TerminalOptions {
                viewport: Viewport::Fixed(Rect::new(0, 0, 160, 40)),
            },
        )
        .unwrap();
        t.draw(|f| {
            gendash::ui::render(s, f);
        })
        .unwrap();
        drop(t);
        frames.push(out.0.lock().unwrap().clone());
    };
    snap(&s);
    s.update(Action::FocusNext);
    for _ in 0..hostile().len() {
        snap(&s);
        s.update(Action::Down);
    }
    s.update(Action::FocusNext);
    for _ in 0..hostile().len() {
        snap(&s);
        s.update(Action::Down);
    }
    s.update(Action::OpenAddDialog);
    s.update(Action::Paste(hostile().join("\n")));
    snap(&s);
    for f in &frames {
        assert_renderer_bytes(f);
    }
    assert!(
        s.last_error
            .as_deref()
            .is_some_and(|e| !e.chars().any(bad_char))
    );
}

/// Runs the binary with `-vvv`, logging to `home/log`; returns (code, stdout, stderr).
fn run(home: &Path, base: &url::Url, token: &str, args: &[&str]) -> (i32, String, String) {
    let out = common::gendash(home)
        .env("GENDASH_LOG_FILE", home.join("log/gendash.log"))
        .env("GENDASH_BASE_URL", base.as_str())
        .env("GENDASH_TOKEN", token)
        .arg("-vvv")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn log_of(home: &Path) -> String {
    std::fs::read_to_string(home.join("log/gendash.log")).unwrap_or_default()
}

/// CLI runs against hostile services: each exit code checked, every output kept.
struct Runs<'a> {
    home: &'a Path,
    outputs: Vec<(String, String)>,
}

impl Runs<'_> {
    /// Runs `args` against `base`, asserts the exit code, returns (stdout, stderr).
    fn expect(&mut self, base: &url::Url, args: &[&str], want: i32) -> (String, String) {
        let (code, out, err) = tokio::task::block_in_place(|| run(self.home, base, "t0k3n", args));
        assert_eq!(code, want, "{args:?}: {err}");
        self.outputs.push((out.clone(), err.clone()));
        (out, err)
    }
}

/// `models` in each form: every model by its clean name, in the table and in the JSON.
fn check_models(runs: &mut Runs, base: &url::Url) {
    let n = hostile().len();
    let (out, err) = runs.expect(base, &["models"], 0);
    assert_eq!(err.trim_end(), format!("{n} of {n} models"));
    let rows: Vec<&str> = out.lines().collect();
    assert_eq!(rows.len(), n + 1, "a header and one row per model: {out}");
    assert!(rows[0].starts_with("MODEL "), "{out}");
    for (row, name) in rows[1..].iter().zip(shown()) {
        assert!(row.starts_with(&head(&name, 12)), "{row:?} is not {name:?}");
        assert!(
            row.contains(&format!("https://x.example/{}", head(&name, 12))),
            "{row:?}"
        );
    }
    let (out, _) = runs.expect(base, &["models", "--json"], 0);
    let items = json_lines(&out).remove(0);
    let items = items.as_array().unwrap();
    let names: Vec<&str> = items.iter().map(|i| i["model"].as_str().unwrap()).collect();
    assert_eq!(names, shown());
    for (item, name) in items.iter().zip(shown()) {
        assert_eq!(item["metadata"]["note"], name.as_str());
        let keys: Vec<&String> = item["metadata"].as_object().unwrap().keys().collect();
        assert!(
            keys.iter()
                .any(|k| k.starts_with(&format!("key{}", head(&name, 8)))),
            "{keys:?}"
        );
    }
    let (out, err) = runs.expect(base, &["models", "--filter", "W"], 0);
    let first = out.lines().nth(1).unwrap_or_default();
    assert!(first.starts_with("WWWWWWWW"), "best match first: {first:?}");
    assert!(err.trim_end().ends_with(&format!("of {n} models")), "{err}");
}

/// `status`, `wait` and `download` of a task whose ID, status and URL are `h`, then a 502
/// page and a failed lookup carrying it: each with its exit code, each showing `clean`.
async fn check_task_commands(runs: &mut Runs<'_>, h: &str, clean: &str) {
    let task = fault_server(Fault::Raw(response(
        "200 OK",
        "application/json",
        "",
        &hostile_task_body(h),
    )))
    .await;
    // A status that is none of the final ones: the task is still running (exit 7).
    let (out, _) = runs.expect(&task.url(), &["status", "t"], 7);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(
        out.starts_with("image  ") && out.contains(&head(clean, 10)) && out.contains("100%"),
        "{out:?} does not show {clean:?}"
    );
    let (out, _) = runs.expect(&task.url(), &["status", "--json", "t"], 7);
    let line = json_lines(&out).remove(0);
    assert_eq!(line["status"], clean);
    assert_eq!(line["task_id"], clean);
    assert_eq!(line["percent"], 100);
    let url = line["url_download"].as_str().unwrap();
    assert!(
        url.starts_with(&format!("https://x.example/{}", head(clean, 10))),
        "{url}"
    );
    // The first answer must come before the timeout. On a loaded machine it may not within
    // 0.4 s, so a run that saw only the timeout is tried once more with a longer one.
    let mut out = String::new();
    for timeout in ["0.4", "3"] {
        let waited = [
            "wait",
            "--json",
            "--interval",
            "0.2",
            "--timeout",
            timeout,
            "t",
        ];
        out = runs.expect(&task.url(), &waited, 6).0;
        if json_lines(&out).len() > 1 {
            break;
        }
    }
    let events = json_lines(&out);
    assert_eq!(events[0]["status"], clean, "{out}");
    assert_eq!(events.last().unwrap()["event"], "timeout", "{out}");
    let (_, err) = runs.expect(&task.url(), &["download", "t"], 1);
    assert!(
        err.contains("not completed") && err.contains(&head(clean, 10)),
        "{err}"
    );

    let page = response(
        "502 Bad Gateway",
        "text/html",
        "",
        &format!("<html><h1>{h}</h1></html>"),
    );
    let failing = fault_server(Fault::Raw(page)).await;
    let (_, err) = runs.expect(&failing.url(), &["status", "t"], 1);
    assert!(
        err.starts_with("gendash: error: ")
            && err.contains(&format!("HTTP 502: {}", head(clean, 10))),
        "{err}"
    );
    let lookup =
        json!({"data": {"is_success": false}, "errors": [h], "error_description": h}).to_string();
    let failing = fault_server(Fault::Raw(response(
        "200 OK",
        "application/json",
        "",
        &lookup,
    )))
    .await;
    let (out, _) = runs.expect(&failing.url(), &["status", "--json", "t"], 4);
    let line = json_lines(&out).remove(0);
    let error = line["error"].as_str().unwrap();
    assert!(
        error.starts_with(&format!("lookup failed: {}", head(clean, 10))),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_strings_never_reach_cli_output_stderr_or_the_log() {
    let home = tempfile::tempdir().unwrap();
    let catalogue = fault_server(Fault::Raw(response(
        "200 OK",
        "application/json",
        "",
        &hostile_catalogue_body(),
    )))
    .await;
    let mut runs = Runs {
        home: home.path(),
        outputs: Vec::new(),
    };
    check_models(&mut runs, &catalogue.url());
    for (h, clean) in hostile().iter().zip(shown()) {
        check_task_commands(&mut runs, h, &clean).await;
    }
    for (out, err) in &runs.outputs {
        assert_inert("stdout", out);
        assert_inert("stderr", err);
    }
    let log = log_of(home.path());
    assert!(
        log.contains("POST") && log.contains("response"),
        "the log has the requests"
    );
    assert_inert("the log", &log);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_leaks_nowhere() {
    let home = tempfile::tempdir().unwrap();
    let svc = common::service().await; // expects a different token: 401
    let echo =
        format!("<html><body>internal error, your header was: Bearer {CANARY}</body></html>");
    let five_hundred = fault_server(Fault::Raw(response(
        "500 Internal Server Error",
        "text/html",
        "",
        &echo,
    )))
    .await;
    let garbage = fault_server(Fault::Raw(response(
        "200 OK",
        "application/json",
        "",
        &format!("{{not json {CANARY}"),
    )))
    .await;
    let echo_status = fault_server(Fault::Raw(response(
        "200 OK",
        "application/json",
        "",
        &hostile_task_body(CANARY),
    )))
    .await;
    let other = common::empty_catalogue_server().await;
    let redirect = fault_server(Fault::Raw(format!(
        "HTTP/1.1 302 Found\r\nLocation: {}lora/\r\nContent-Length: 0\r\n\r\n",
        other.url()
    )))
    .await;
    let mut seen = Vec::new();
    let runs: Vec<(url::Url, Vec<&str>, i32)> = vec![
        (svc.base_url(), vec!["status", "demo-image-done"], 3),
        (svc.base_url(), vec!["models", "--json"], 3),
        (five_hundred.url(), vec!["status", "--json", "t"], 1),
        (five_hundred.url(), vec!["wait", "--timeout", "1.5", "t"], 6),
        (garbage.url(), vec!["status", "t"], 1),
        (echo_status.url(), vec!["status", "--json", "t"], 7),
        (redirect.url(), vec!["models"], 1),
    ];
    for (base, args, want) in runs {
        let (code, out, err) =
            tokio::task::block_in_place(|| run(home.path(), &base, CANARY, &args));
        assert_eq!(code, want, "{args:?}: {err}");
        seen.push(out);
        seen.push(err);
    }
    seen.push(log_of(home.path()));
    for text in &seen {
        assert!(!text.contains(CANARY), "the token leaked: {text}");
    }
    assert!(
        seen.iter().any(|t| t.contains("<redacted>")),
        "echoed tokens are shown redacted"
    );
    assert!(
        other.requests.lock().unwrap().is_empty(),
        "the other origin was never contacted"
    );
    // Nothing the program wrote holds the token.
    for entry in common::files_under(home.path()) {
        let bytes = std::fs::read(&entry).unwrap_or_default();
        assert!(
            memchr::memmem::find(&bytes, CANARY.as_bytes()).is_none(),
            "{} holds the token",
            entry.display()
        );
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(home.path().join("log/gendash.log"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "the log file is private");
    }
}

/// A profile's token is never sent to a base URL from the environment or a flag: the run
/// stops, naming both sources, and the other service sees no request at all. The same URL
/// from outside, or the other service's own token beside it, is no mix.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profile_token_never_goes_to_a_base_url_from_outside() {
    let home = tempfile::tempdir().unwrap();
    let own = common::empty_catalogue_server().await;
    let other = common::empty_catalogue_server().await;
    let config = common::write_config(
        home.path(),
        &format!(
            "[profiles.local]\nbase_url = \"{}\"\ntoken = \"{CANARY}\"\n",
            own.url()
        ),
    );
    let models = |envs: &[(&str, &str)], args: &[&str]| {
        let out = common::gendash(home.path())
            .env("GENDASH_PROFILE", "local")
            .envs(envs.iter().copied())
            .args(args)
            .arg("models")
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let other_url = other.url().to_string();
    for (envs, args, outside) in [
        (
            vec![("GENDASH_BASE_URL", other_url.as_str())],
            vec![],
            "GENDASH_BASE_URL",
        ),
        (vec![], vec!["--base-url", other_url.as_str()], "--base-url"),
    ] {
        let (code, err) = tokio::task::block_in_place(|| models(&envs, &args));
        assert_eq!(code, 1, "{err}");
        for names in [
            "the token comes from profile `local` in",
            &config.display().to_string(),
            &format!("but the base URL from {outside}"),
        ] {
            assert!(err.contains(names), "{names:?} in: {err}");
        }
        assert!(!err.contains(CANARY), "{err}");
    }
    assert!(
        other.requests.lock().unwrap().is_empty(),
        "the other service was never asked, so never given the token"
    );
    // The profile's own URL from outside is no mix; nor the other service's own token.
    let own_url = own.url().to_string();
    let (code, err) =
        tokio::task::block_in_place(|| models(&[("GENDASH_BASE_URL", own_url.as_str())], &[]));
    assert_eq!(code, 0, "{err}");
    let (code, err) = tokio::task::block_in_place(|| {
        models(
            &[
                ("GENDASH_BASE_URL", other_url.as_str()),
                ("GENDASH_TOKEN", "token-of-the-other"),
            ],
            &[],
        )
    });
    assert_eq!(code, 0, "{err}");
    let to_other = other.requests.lock().unwrap().clone();
    assert!(!to_other.is_empty());
    for r in &to_other {
        assert!(!r.contains(CANARY), "{r}");
        assert_eq!(
            common::header(r, "authorization"),
            Some("Bearer token-of-the-other")
        );
    }
    let to_own = own.requests.lock().unwrap().clone();
    assert!(!to_own.is_empty());
    for r in &to_own {
        assert_eq!(
            common::header(r, "authorization"),
            Some(format!("Bearer {CANARY}").as_str())
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_token_writes_a_private_file_that_is_then_used() {
    let home = tempfile::tempdir().unwrap();
    let svc = common::service().await;
    let mut child = common::gendash(home.path())
        .args(["config", "set-token"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{}\n", common::TOKEN).as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = home.path().join("config/gendash/token");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    assert_eq!(
        std::fs::read_to_string(&file).unwrap().trim(),
        common::TOKEN
    );
    let out = common::gendash(home.path())
        .args(["status", "demo-image-done"])
        .env("GENDASH_BASE_URL", svc.base_url().as_str())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = common::gendash(home.path())
        .args(["config", "show"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("<redacted> (read from") && !text.contains(common::TOKEN),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_errors_other_than_429_are_asked_once() {
    for (status, want) in [
        ("404 Not Found", 4),
        ("400 Bad Request", 1),
        ("403 Forbidden", 3),
    ] {
        let fs = fault_server(Fault::Raw(response(status, "text/plain", "", "no"))).await;
        let home = tempfile::tempdir().unwrap();
        let (code, _, err) = tokio::task::block_in_place(|| {
            run(
                home.path(),
                &fs.url(),
                "t0k3n",
                &["wait", "--interval", "0.2", "--timeout", "3", "t"],
            )
        });
        assert_eq!(code, want, "{status}: {err}");
        assert_eq!(fs.requests.lock().unwrap().len(), 1, "{status} was retried");
    }
}

#[test]
fn refused_links_are_never_opened_and_the_reason_is_shown() {
    let hostile_links = gendash::api::links::hostile_links();
    let mut s = started_state(hostile_links.len());
    // The catalogue's sources and the tasks' download URLs, exactly as a service sent them
    // (built directly: decoding would already have sanitised away the escape sequence).
    let entries = hostile_links
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let meta = json!({"source": l});
            gendash::api::LoraEntry::new(format!("m{i}"), meta.as_object().unwrap())
        })
        .collect();
    s.apply(Msg::Catalogue {
        generation: s.browser.generation,
        result: Ok(gendash::api::Catalogue {
            entries,
            skipped: 0,
        }
        .into()),
    });
    for (i, l) in hostile_links.iter().enumerate() {
        let t = gendash::api::TaskResult {
            task_id: format!("t{i}"),
            kind: TaskKind::Image,
            status: "COMPLETED".into(),
            percent: 100,
            total_tasks: None,
            url_download: Some(l.clone()),
            envelope: gendash::api::types::Envelope::default(),
            extra: None,
        };
        s.apply(Msg::Polled {
            key: TaskKey::new(TaskKind::Image, format!("t{i}")),
            result: Ok(t),
            retry_in: None,
            next: None,
        });
    }
    for pane in 0..2 {
        for _ in 0..hostile_links.len() {
            for action in [Action::Open, Action::Download] {
                s.notice = None;
                let cmds = s.update(action.clone());
                assert!(
                    cmds.iter().all(|c| !matches!(
                        c,
                        gendash::cmd::Cmd::Open(_) | gendash::cmd::Cmd::Download(_)
                    )),
                    "{cmds:?}"
                );
                if pane == 0 && action == Action::Download {
                    continue; // the browser has no downloads
                }
                let notice = s.notice.clone().map(|n| n.text).unwrap_or_default();
                assert!(
                    notice.starts_with("refused to open link: ") && notice.len() > 30,
                    "{notice}"
                );
            }
            s.update(Action::Down);
        }
        s.update(Action::FocusNext);
    }
}

/// The text gendash drew, not only its characters: every hostile string is in the cells as its
/// sanitised text (`clearscreen`, `linktext`), and no sequence's printable remainder (`[2J`,
/// `]0;`, …) is there, as it would be had the sequences only lost their ESC on the way (a
/// renderer dropping control characters).
#[test]
fn hostile_strings_are_drawn_as_their_sanitised_text() {
    let mut s = hostile_state();
    let mut cells = Vec::new();
    cells.push(common::rendered_text(&s, 160, 40));
    // The watch list's and the browser's details, each hostile row selected in turn.
    for _ in 0..2 {
        s.update(Action::FocusNext);
        for _ in 0..hostile().len() {
            cells.push(common::rendered_text(&s, 160, 40));
            s.update(Action::Down);
        }
    }
    let all = cells.join("\n");
    for clean in [
        "clearscreen",
        "linktext",
        "clip",
        "report",
        "cr overwrite",
        "rtlgpj.exe",
    ] {
        assert!(all.contains(clean), "{clean} is drawn: {}", cells[0]);
    }
    for remainder in ["[2J", "]0;", "]8;;", "]52;", "[21t", "pwned", "ZXZpbA=="] {
        assert!(
            !cells.iter().any(|c| c.contains(remainder)),
            "{remainder:?} reached the cells"
        );
    }
}

/// An OSC 8 link's URL keeps only printable ASCII without spaces: an ESC, a BEL, an ST (7-bit
/// and 8-bit) or a space inside it can neither end the sequence early nor start another.
#[test]
fn a_hyperlink_cannot_end_early_or_start_another_sequence() {
    use gendash::dashboard::terminal::{HYPERLINK_CLOSE, hyperlink_open};
    let url = "http://a.example/x\x1b]0;pwned\x07y\x1b\\z\u{9c}w q\x1b[2J";
    let open = hyperlink_open(url);
    assert_eq!(open, "\x1b]8;;http://a.example/x]0;pwnedy\\zwq[2J\x1b\\");
    let inside = open
        .strip_prefix("\x1b]8;;")
        .and_then(|r| r.strip_suffix("\x1b\\"))
        .unwrap();
    assert!(
        inside.chars().all(|c| c.is_ascii_graphic()),
        "only printable ASCII, no space: {inside:?}"
    );
    // One sequence in all: the opener's ESC and its ST's.
    assert_eq!(open.matches('\x1b').count(), 2, "{open:?}");
    assert_eq!(HYPERLINK_CLOSE, "\x1b]8;;\x1b\\");
}
