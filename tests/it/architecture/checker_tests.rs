//! The checker itself, on small made-up trees: every form of import seen, every rule able to fail.

use super::*;

/// A `src/` tree in a temporary directory, and what the checker says of it.
fn check(files: &[(&str, &str)]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let p = dir.path().join("src").join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    violations(&dir.path().join("src"))
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn has(found: &[String], needle: &str) -> bool {
    found.iter().any(|v| v.contains(needle))
}

#[test]
fn the_checker_sees_every_form_of_import() {
    // `api` may import nothing of the crate: every path below that reaches another module is
    // reported, and nothing in a comment, a doc comment or a string is; `fmt` here is std's.
    let client = r#"
//! Not code: crate::logging::init
use std::fmt;
use fmt::Write as _;
use crate::store::config::Settings;
use crate::{cli::exit, msg::{self, Msg}};
use super::super::cmd::Cmd;
use crate::eta as estimate;
use crate::filter::*;
/// Not code: crate::dashboard::run
impl fmt::Display for Settings {}
fn f(x: crate::clock::Offset) -> Vec<crate::picture::Picture> {
    let _ = crate::server::start(x);
    match x {
        crate::workers::Kind::A => {}
        _ => {}
    }
    println!("{}", crate::testing::NAME);
    let _ = "crate::ui::render";
    // crate::ui::render
    /* crate::app::State */
    Vec::new()
}
"#;
    let found = check(&[("api/client.rs", client)]);
    let imported: BTreeSet<&str> = found
        .iter()
        .filter_map(|v| v.split("must not import `crate::").nth(1))
        .filter_map(|rest| rest.split([':', '`']).next())
        .collect();
    assert_eq!(
        imported.into_iter().collect::<Vec<_>>(),
        [
            "cli", "clock", "cmd", "eta", "filter", "msg", "picture", "server", "store", "testing",
            "workers"
        ],
        "{found:#?}"
    );
    for path in [
        "crate::msg`",
        "crate::msg::Msg`",
        "crate::cmd::Cmd`",
        "crate::cli::exit`",
        "crate::workers::Kind::A`",
    ] {
        assert!(has(&found, path), "{path} not seen in {found:#?}");
    }
    assert!(allowed("ui", "app"));
    assert!(!allowed("ui", "workers"));
    assert!(!allowed("app", "ui"));
    assert!(!allowed("api", "store"));
    assert!(!allowed("workers", "app"));
    assert!(!allowed("app", "cli"));
    assert!(!allowed("app", "workers"));
    assert!(allowed("dashboard", "workers"));
    assert!(!allowed("nowhere", "api"));
}

#[test]
fn a_backward_import_fails_the_check() {
    let fine = [("api/client.rs", "use crate::api::types::X;\n")];
    assert_eq!(check(&fine), Vec::<String>::new());
    let found = check(&[
        fine[0],
        (
            "workers/mod.rs",
            "use crate::{msg::Msg,\n    app::action::Action};\n",
        ),
    ]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with(
            "src/workers/mod.rs:2: `workers` must not import `crate::app::action::Action`"
        ),
        "{found:?}"
    );
}

#[test]
fn super_is_resolved_per_file() {
    let found = check(&[
        // In app/browser/ranking.rs `super` is app::browser; three of them are the crate.
        (
            "app/browser/ranking.rs",
            "use super::Browser;\nuse super::super::super::workers::Ranker;\n",
        ),
        // A mod.rs file is its directory's module: `super` is one level less.
        ("app/mod.rs", "use super::workers::Handle;\n"),
        // In app/state.rs `super::workers` is app's own (app::workers).
        ("app/state.rs", "use super::workers::Own;\n"),
    ]);
    assert!(
        has(
            &found,
            "src/app/browser/ranking.rs:2: `app` must not import `crate::workers::Ranker`"
        ),
        "{found:#?}"
    );
    assert!(
        has(
            &found,
            "src/app/mod.rs:1: `app` must not import `crate::workers::Handle`"
        ),
        "{found:#?}"
    );
    assert_eq!(found.len(), 2, "{found:#?}");
}

#[test]
fn a_path_module_is_read_under_its_declared_name() {
    // state_tests.rs is app::state::tests (declared with #[path] in state.rs), so its
    // `super::super::super` is the crate, not one step past it.
    let found = check(&[
        ("lib.rs", "pub mod app;\n"),
        ("app/mod.rs", "pub mod state;\n"),
        (
            "app/state.rs",
            "#[cfg(test)]\n#[path = \"state_tests.rs\"]\nmod tests;\n",
        ),
        (
            "app/state_tests.rs",
            "use super::super::super::ui::Frame;\n",
        ),
    ]);
    assert_eq!(
        found,
        ["src/app/state_tests.rs:1: `app` must not import `crate::ui::Frame`"]
    );
}

#[test]
fn aliases_and_globs_of_the_crate_are_refused() {
    let found = check(&[
        ("lib.rs", "extern crate self as gendash;\npub mod app;\n"),
        (
            "app/mod.rs",
            "use crate as root;\nuse crate::{self as top};\nuse crate::*;\nuse root::workers::X;\n",
        ),
    ]);
    for needle in [
        "src/lib.rs:1: `extern crate self`",
        "src/app/mod.rs:1: `as root` renames the crate root",
        "src/app/mod.rs:2: `as top` renames the crate root",
        "src/app/mod.rs:3: a glob of the crate root",
    ] {
        assert!(has(&found, needle), "{needle} not in {found:#?}");
    }
}

#[test]
fn lib_and_main_are_checked() {
    let found = check(&[
        (
            "lib.rs",
            "pub mod cli;\npub mod workers;\nuse workers::Handle;\npub use crate::cli::run;\n",
        ),
        (
            "main.rs",
            "mod extra;\nfn main() {\n    gendash::workers::spawn();\n    gendash::cli::main();\n}\n",
        ),
        ("cli/mod.rs", "pub fn main() {}\n"),
        ("workers/mod.rs", "pub fn spawn() {}\n"),
    ]);
    for needle in [
        "src/lib.rs:3: `lib` must not import `crate::workers::Handle`",
        "src/lib.rs:4: `lib` must not import `crate::cli::run`",
        "src/lib.rs:4: `lib` re-exports `crate::cli::run`",
        "src/main.rs:1: main.rs declares `mod extra`",
        "src/main.rs:3: `main` must not import `crate::workers::spawn`",
    ] {
        assert!(has(&found, needle), "{needle} not in {found:#?}");
    }
    assert!(!has(&found, "crate::cli::main"), "{found:#?}");
}

#[test]
fn a_re_export_of_another_module_is_refused() {
    let fine = (
        "app/state.rs",
        "use crate::api::TaskState;\npub use super::watch::Row;\n",
    );
    assert_eq!(check(&[fine]), Vec::<String>::new());
    let found = check(&[
        fine,
        (
            "app/watch.rs",
            "pub use crate::api::TaskKind;\npub(crate) use crate::filter::Query;\n",
        ),
    ]);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(
        has(
            &found,
            "src/app/watch.rs:1: `app` re-exports `crate::api::TaskKind`"
        ),
        "{found:#?}"
    );
    assert!(
        has(
            &found,
            "src/app/watch.rs:2: `app` re-exports `crate::filter::Query`"
        ),
        "{found:#?}"
    );
}

#[test]
fn ui_reads_app_types_and_the_leaves_only() {
    let fine = (
        "ui/watch.rs",
        "use crate::app::state::State;\nuse crate::eta::Eta;\n\
         fn f(s: &State) -> String { crate::fmt::age(s.age) }\n",
    );
    assert_eq!(check(&[fine]), Vec::<String>::new());
    let found = check(&[
        fine,
        (
            "ui/add.rs",
            "use crate::api::TaskState;\nfn f(u: &str) -> bool { crate::api::links::validate_link(u).is_ok() }\n",
        ),
    ]);
    assert_eq!(
        found,
        [
            "src/ui/add.rs:1: `ui` must not import `crate::api::TaskState`",
            "src/ui/add.rs:2: `ui` must not import `crate::api::links::validate_link`",
        ]
    );
}

#[test]
fn a_cycle_between_top_level_modules_fails() {
    let found = check(&[
        ("msg.rs", "use crate::cmd::Cmd;\n"),
        ("cmd.rs", "use crate::msg::Msg;\n"),
    ]);
    assert!(
        has(
            &found,
            "src: import cycle between top-level modules: cmd -> msg -> cmd"
        ),
        "{found:#?}"
    );
    assert!(
        has(&found, "msg -> cmd: src/msg.rs:1 `crate::cmd::Cmd`"),
        "{found:#?}"
    );
    let mut graph = Graph::new();
    for (a, b) in [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a"), ("c", "b")] {
        add_edge(&mut graph, a, b, String::new);
    }
    assert_eq!(cycles(&graph), [["a", "b", "c", "a"]]);
}

#[test]
fn a_cycle_between_files_of_one_module_fails() {
    let found = check(&[
        ("app/a.rs", "use super::b::X;\n"),
        ("app/b.rs", "use crate::app::a::Y;\n"),
    ]);
    assert!(
        has(
            &found,
            "src: import cycle between files: app::a -> app::b -> app::a"
        ),
        "{found:#?}"
    );
    // A test module is a node of its own (tests add no cycle); a re-export is followed to the
    // file that defines the item (e -> f -> app's re-export of e::E is a cycle).
    let found = check(&[
        (
            "app/c.rs",
            "#[cfg(test)]\nmod tests {\n    use crate::app::d::X;\n}\n",
        ),
        ("app/d.rs", "use super::c::Y;\n"),
        (
            "app/mod.rs",
            "mod c;\nmod d;\nmod e;\nmod f;\npub use e::E;\n",
        ),
        ("app/e.rs", "use super::f::F;\n"),
        ("app/f.rs", "use crate::app::E;\n"),
    ]);
    assert_eq!(
        found,
        [
            "src: import cycle between files: app::e -> app::f -> app::e\n    \
          app::e -> app::f: src/app/e.rs:1 `crate::app::f::F`\n    \
          app::f -> app::e: src/app/f.rs:1 `crate::app::E`"
        ]
    );
}
