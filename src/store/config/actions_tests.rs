use super::*;
use crate::store::config::{Overrides, Settings, parse, resolve_from};
use std::path::PathBuf;

fn resolved(text: &str) -> Settings {
    let path = PathBuf::from("/etc/g.toml");
    let none = |_: &str| None;
    resolve_from(
        parse(text, &path).expect("parses"),
        true,
        path,
        &Overrides::default(),
        &none,
    )
    .expect("resolves")
}

fn refusal(text: &str) -> String {
    parse(text, &PathBuf::from("/etc/g.toml"))
        .expect_err("refused")
        .to_string()
}

const TWO: &str = r#"action_timeout = 90

[[actions]]
name = "upscale"
key = "ctrl-u"
scope = ["watch", "archive"]
command = ["upscale", "--in", "{file}"]

[[actions]]
name = "zip"
key = "Z"
scope = "archive"
command = ["zip", "out.zip", "{files}"]
confirm = true
"#;

#[test]
fn actions_and_their_timeout_resolve() {
    let s = resolved(TWO);
    assert_eq!(s.action_timeout, std::time::Duration::from_secs(90));
    let [up, zip] = s.actions.as_slice() else {
        panic!("{:?}", s.actions)
    };
    assert_eq!(up.scopes, [Scope::Watch, Scope::Archive]);
    assert_eq!(up.runs(), Runs::EachRow);
    assert!(!up.confirm);
    assert_eq!(zip.runs(), Runs::OnceWithAll);
    assert!(zip.confirm);
    assert_eq!(zip.key.to_string(), "Z");
    let shown = s.describe().join("\n");
    assert!(
        shown.contains("actions                = upscale, zip"),
        "{shown}"
    );
    assert_eq!(resolved("").action_timeout, DEFAULT_ACTION_TIMEOUT);
}

#[test]
fn a_profile_replaces_an_action_of_the_same_name() {
    let text = format!(
        "{TWO}\n[[profiles.p.actions]]\nname = \"zip\"\nkey = \"z\"\nscope = \"watch\"\ncommand = [\"tar\", \"{{task_ids}}\"]\n"
    );
    let path = PathBuf::from("/etc/g.toml");
    let none = |_: &str| None;
    let s = resolve_from(
        parse(&text, &path).expect("parses"),
        true,
        path,
        &Overrides {
            profile: Some("p".into()),
            ..Overrides::default()
        },
        &none,
    )
    .expect("resolves");
    let names: Vec<(&str, &str)> = s
        .actions
        .iter()
        .map(|a| (a.name.as_str(), a.command[0].as_str()))
        .collect();
    assert_eq!(names, [("upscale", "upscale"), ("zip", "tar")]);
    // Its key's line is the profile's.
    let lines = key_lines(&text, Some("p"));
    assert!(lines.contains(&("zip".to_string(), 18)), "{lines:?}");
    assert!(lines.contains(&("upscale".to_string(), 5)), "{lines:?}");
}

/// Each refusal names the file's line and says what is wrong.
#[test]
fn bad_entries_are_refused_with_their_line() {
    let entry = |scope: &str, command: &str| {
        format!(
            "bell = true\n[[actions]]\nname = \"x\"\nkey = \"u\"\nscope = {scope}\ncommand = {command}\n"
        )
    };
    let e = refusal(&entry("\"wach\"", "[\"a\"]"));
    assert!(
        e.contains("/etc/g.toml line 2")
            && e.contains(
                "action `x`: scope `wach` is not one of \"browser\", \"watch\", \"archive\""
            ),
        "{e}"
    );
    let e = refusal(&entry("\"watch\"", "[\"up\", \"{model}\"]"));
    assert!(
        e.contains("line 2")
            && e.contains("`{model}` is not a placeholder of the watch scope (known: {task_id}"),
        "{e}"
    );
    let e = refusal(&entry("[\"browser\", \"watch\"]", "[\"up\", \"{file}\"]"));
    assert!(
        e.contains("`{file}` is not a placeholder of the browser scope"),
        "{e}"
    );
    let e = refusal(&entry("\"watch\"", "[]"));
    assert!(e.contains("its command names no program"), "{e}");
    let e = refusal(&entry("[]", "[\"a\"]"));
    assert!(e.contains("its scope is empty"), "{e}");
    let e = refusal(&entry("\"watch\"", "[\"a\", \"--in={files}\"]"));
    assert!(e.contains("must be a whole argument"), "{e}");
    let e = refusal(&entry("\"watch\"", "[\"a\", \"{files}\", \"{label}\"]"));
    assert!(
        e.contains("`{files}` runs it once with every row, so `{label}`"),
        "{e}"
    );
    let e = refusal(&entry("\"browser\"", "[\"a\", \"{meta.sampler\"]"));
    assert!(e.contains("has a `{` without its `}`"), "{e}");
    let e = refusal(&format!(
        "{}{}",
        entry("\"watch\"", "[\"a\"]"),
        "[[actions]]\nname = \"x\"\nkey = \"v\"\nscope = \"watch\"\ncommand = [\"b\"]\n"
    ));
    assert!(e.contains("two actions are named `x`"), "{e}");
    let e = refusal(
        "[[actions]]\nname = \"x\"\nkey = \"u\"\nscope = \"watch\"\ncommand = [\"a\"]\nrun = 1\n",
    );
    assert!(e.contains("unknown field `run`"), "{e}");
    // A browser action may name any metadata field.
    let s = resolved(&entry(
        "\"browser\"",
        "[\"a\", \"{meta.sampler}\", \"{source}\"]",
    ));
    assert_eq!(s.actions[0].scopes, [Scope::Browser]);
}

/// A row of a test: its name and its values.
struct R(&'static str, &'static [(&'static str, &'static str)]);

impl Fill for R {
    fn called(&self) -> String {
        self.0.to_string()
    }
    fn value(&self, placeholder: &str) -> Option<String> {
        self.1
            .iter()
            .find(|(n, _)| *n == placeholder)
            .map(|(_, v)| (*v).to_string())
    }
}

fn action(command: &[&str]) -> OwnAction {
    OwnAction {
        name: "a".into(),
        key: "u".parse().expect("key"),
        scopes: vec![Scope::Watch],
        command: command.iter().map(ToString::to_string).collect(),
        confirm: false,
    }
}

#[test]
fn rows_fill_the_command_each_or_all_at_once_and_empty_ones_are_skipped() {
    let rows = [
        R("t-1", &[("task_id", "t-1"), ("file", "/d/one.png")]),
        R("t-2", &[("task_id", "t-2"), ("file", "")]),
        R("t-3", &[("task_id", "t-3"), ("file", "/d/a b.png")]),
    ];
    let each = expand(
        &action(&["up", "--in={file}", "{task_id}"]),
        Scope::Watch,
        &rows,
    );
    assert_eq!(
        each.runs,
        [
            (
                vec!["t-1".to_string()],
                vec!["up".to_string(), "--in=/d/one.png".into(), "t-1".into()]
            ),
            (
                vec!["t-3".to_string()],
                vec!["up".to_string(), "--in=/d/a b.png".into(), "t-3".into()]
            ),
        ]
    );
    assert_eq!(
        each.skipped_text().as_deref(),
        Some("skipped t-2 ({file} is empty)")
    );
    let all = expand(&action(&["zip", "{files}", "--"]), Scope::Watch, &rows);
    assert_eq!(
        all.runs,
        [(
            vec!["t-1".to_string(), "t-3".into()],
            vec![
                "zip".to_string(),
                "/d/one.png".into(),
                "/d/a b.png".into(),
                "--".into()
            ]
        )]
    );
    assert_eq!(all.skipped.len(), 1);
    let none = expand(&action(&["zip", "{files}"]), Scope::Watch, &rows[1..2]);
    assert!(none.runs.is_empty());
    assert_eq!(
        none.skipped_text().as_deref(),
        Some("skipped t-2 ({file} is empty)")
    );
}
