//! `gendash doctor` as a user meets it: against the reference service, with a wrong token, a
//! wrong path prefix and an invalid config, and its `--json`.

use crate::common::pty::{Answers, Session, command};
use crate::common::{Served, TOKEN, gendash, write_config};
use std::time::Duration;

fn doctor(served: &Served, base: &str, token: &str, json: bool) -> (Option<i32>, String) {
    let mut cmd = gendash(served.path());
    cmd.arg("doctor")
        .env("GENDASH_BASE_URL", base)
        .env("GENDASH_TOKEN", token);
    if json {
        cmd.arg("--json");
    }
    let out = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        !text.contains(token),
        "the token never appears in the report:\n{text}"
    );
    (out.status.code(), text)
}

fn line<'a>(text: &'a str, start: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(start))
        .unwrap_or_else(|| panic!("no line starting {start:?} in:\n{text}"))
}

#[test]
fn against_the_reference_service_everything_needed_is_ok() {
    let served = Served::new();
    let (code, text) = doctor(&served, &served.base, TOKEN, false);
    assert_eq!(code, Some(0), "{text}");
    assert!(!text.contains("problem"), "{text}");
    let service = line(&text, "ok       service: top level:");
    assert!(
        service.contains("reachable, token accepted, path right"),
        "{service}"
    );
    line(&text, "ok       config: file:");
    assert!(!text.contains("config: theme:"), "no scheme set:\n{text}");
    line(&text, "ok       data: watch list:");
    line(&text, "ok       data: archive:");
    // Run off a terminal: it says so, and asks nothing.
    assert!(
        line(&text, "warning  terminal: asked:").contains("not a terminal"),
        "{text}"
    );
}

#[test]
fn a_wrong_token_or_path_prefix_is_a_problem_with_its_exit_code() {
    let served = Served::new();
    let (code, text) = doctor(&served, &served.base, "not-the-token-4711", false);
    assert_eq!(code, Some(3), "{text}");
    let service = line(&text, "problem  service: top level:");
    assert!(service.contains("set-token"), "{service}");

    let prefixed = format!("{}/api/v1", served.base.trim_end_matches('/'));
    let (code, text) = doctor(&served, &prefixed, TOKEN, false);
    assert_eq!(code, Some(4), "{text}");
    assert!(
        line(&text, "problem  service: top level:").contains("path prefix"),
        "{text}"
    );
}

#[test]
fn an_invalid_config_is_a_problem_naming_its_line() {
    let served = Served::new();
    write_config(served.path(), "bell = false\npoll_interval = \"soon\"\n");
    let (code, text) = doctor(&served, &served.base, TOKEN, false);
    assert_eq!(code, Some(1), "{text}");
    let config = line(&text, "problem  config: file:");
    assert!(
        config.contains("line 2") && config.contains("poll_interval"),
        "{config}"
    );
}

#[test]
fn json_is_one_object_a_finding() {
    let served = Served::new();
    let (code, text) = doctor(&served, &served.base, TOKEN, true);
    assert_eq!(code, Some(0), "{text}");
    let findings: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    assert!(findings.iter().all(|f| {
        ["ok", "warning", "problem"].contains(&f["level"].as_str().unwrap_or_default())
            && f["area"].is_string()
            && f["what"].is_string()
            && f["detail"].is_string()
    }));
    let service = findings
        .iter()
        .find(|f| f["area"] == "service")
        .expect("a service finding");
    assert_eq!(service["level"], "ok");
    for area in ["config", "terminal", "data", "programs"] {
        assert!(findings.iter().any(|f| f["area"] == area), "{area}");
    }
}

/// In a terminal, doctor asks what the dashboard asks, in the same bounded exchange, and
/// says what came back.
#[test]
fn in_a_terminal_it_reports_what_the_terminal_answered() {
    let home = tempfile::tempdir().unwrap();
    let mut s = Session::spawn_answering(
        command(home.path(), &["doctor"], &[]),
        160,
        40,
        Answers::SixelLightSync,
    );
    s.wait_exit(Duration::from_secs(30));
    let text = s.contents();
    assert!(text.contains("image previews: sixel"), "{text}");
    assert!(
        text.contains("background: #ffffff (theme = \"auto\": the light palette)"),
        "{text}"
    );
    assert!(
        text.contains("synchronized output: supported, used"),
        "{text}"
    );
    let silent = tempfile::tempdir().unwrap();
    let mut s = Session::spawn_answering(
        command(silent.path(), &["doctor"], &[]),
        160,
        40,
        Answers::Never,
    );
    s.wait_exit(Duration::from_secs(30));
    let text = s.contents();
    assert!(text.contains("did not answer within 200 ms"), "{text}");
    assert!(text.contains("synchronized output: not told"), "{text}");
}

/// The base16 scheme in use is said, by name and file; a bad one makes the config a problem,
/// naming the scheme's line.
#[test]
fn the_scheme_in_use_is_said() {
    use std::fmt::Write as _;
    let served = Served::new();
    let scheme = served.path().join("gruvbox.yaml");
    let mut text = String::from("system: \"base16\"\nname: \"Gruvbox dark, medium\"\npalette:\n");
    for (i, hex) in [
        "282828", "3c3836", "504945", "665c54", "bdae93", "d5c4a1", "ebdbb2", "fbf1c7", "fb4934",
        "fe8019", "fabd2f", "b8bb26", "8ec07c", "83a598", "d3869b", "d65d0e",
    ]
    .iter()
    .enumerate()
    {
        writeln!(text, "  base0{i:X}: \"#{hex}\"").unwrap();
    }
    std::fs::write(&scheme, &text).unwrap();
    write_config(
        served.path(),
        &format!("theme_file = {:?}\n", scheme.display().to_string()),
    );
    let (code, out) = doctor(&served, &served.base, TOKEN, false);
    assert_eq!(code, Some(0), "{out}");
    let said = line(&out, "ok       config: theme:");
    assert!(
        said.contains("base16 scheme \"Gruvbox dark, medium\" from ")
            && said.contains("gruvbox.yaml"),
        "{said}"
    );
    std::fs::write(&scheme, text.replace("\"#fb4934\"", "\"#fb49\"")).unwrap();
    let (code, out) = doctor(&served, &served.base, TOKEN, false);
    assert_eq!(code, Some(1), "{out}");
    let said = line(&out, "problem  config: file:");
    assert!(said.contains("gruvbox.yaml line 12: base08"), "{said}");
}
