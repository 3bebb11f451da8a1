//! The layer rule of the README's "Architecture" section, checked on the source: every
//! `crate::` path in `src/` (in `use` lines, groups and inline paths alike) must point down
//! the layers. A module that imports against them fails this test with the file and the path.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Who may depend on whom. A module may always use itself. `app::state` is the one part of
/// `app` that `ui` may read: `State` and, re-exported there, its sub-types. `preview` (the
/// picture's types, decoding and the terminal's graphics) sits beside `msg`: the reports carry
/// its pictures and `ui` draws them.
const RULES: &[(&str, &[&str])] = &[
    ("api", &[]),
    ("eta", &[]),
    ("fmt", &[]),
    ("clock", &[]),
    ("filter", &["api"]),
    ("store", &["api"]),
    ("picture", &["store", "testing", "fmt"]),
    ("cmd", &["api", "store"]),
    ("msg", &["api", "store", "picture", "cmd"]),
    (
        "workers",
        &["msg", "cmd", "store", "api", "picture", "filter", "clock"],
    ),
    (
        "app",
        &[
            "msg", "cmd", "store", "api", "testing", "eta", "picture", "filter", "fmt",
        ],
    ),
    ("ui", &["app", "api", "eta", "picture", "fmt"]),
    (
        "dashboard",
        &[
            "app", "ui", "workers", "msg", "cmd", "store", "api", "testing", "picture", "filter",
            "clock",
        ],
    ),
    ("server", &["api"]),
    ("logging", &["store"]),
    ("testing", &["store", "api"]),
    (
        "cli",
        &[
            "dashboard",
            "fmt",
            "clock",
            "app",
            "workers",
            "server",
            "store",
            "api",
            "testing",
            "logging",
            "eta",
            "filter",
        ],
    ),
];

/// The top-level module a source file belongs to (`src/api/http.rs` -> `api`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// Every `crate::a::b` path in `text`, as `a::b` (two segments at most), including the items
/// of `use crate::{a::x, b}` groups. Comments are skipped.
fn crate_paths(text: &str) -> BTreeSet<String> {
    let code: String = text
        .lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut found = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `gendash_crate::` and the like
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let end = group
                .char_indices()
                .find(|&(_, c)| {
                    match c {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        _ => {}
                    }
                    depth == 0
                })
                .map_or(group.len(), |(i, _)| i);
            let mut item = String::new();
            let mut depth = 0;
            for c in group[..end].chars().chain([',']) {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        found.insert(two_segments(item.trim()));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
        } else {
            found.insert(two_segments(rest));
        }
    }
    found.retain(|p| !p.is_empty());
    found
}

fn two_segments(path: &str) -> String {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let first = ident(path);
    let after = &path[first.len()..];
    match after.strip_prefix("::") {
        Some(r) if !r.starts_with('{') && !ident(r).is_empty() => format!("{first}::{}", ident(r)),
        _ => first,
    }
}

fn allowed(module: &str, path: &str) -> bool {
    let top = path.split("::").next().unwrap_or_default();
    if top == module || top == "self" {
        return true;
    }
    let Some((_, deps)) = RULES.iter().find(|(m, _)| *m == module) else {
        return false;
    };
    deps.iter().any(|d| {
        *d == top || (d.contains("::") && (path == *d || path.starts_with(&format!("{d}::"))))
    })
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn violations(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    sources(src, &mut files);
    files.sort();
    let mut bad = Vec::new();
    for file in files {
        let module = module_of(src, &file);
        if module == "lib" || module == "main" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            !text.contains("super::super"),
            "{}: `super::super` hides which module is imported; name it with `crate::`",
            file.display()
        );
        assert!(
            RULES.iter().any(|(m, _)| *m == module),
            "{}: module `{module}` has no rule in tests/it/architecture.rs; add it and to the README",
            file.display()
        );
        for path in crate_paths(&text) {
            if !allowed(&module, &path) {
                bad.push(format!(
                    "{}: `{module}` must not import `crate::{path}`",
                    file.display()
                ));
            }
        }
    }
    bad
}

#[test]
fn layers_point_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let bad = violations(&src);
    assert!(
        bad.is_empty(),
        "imports against the layers (README, Architecture):\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_checker_sees_every_form_of_import() {
    let text = "use crate::app::state::State;\nuse crate::{cli::exit, store::config::{self, Settings}};\n\
                let x = crate::workers::poller::run();\n// use crate::server;\nfoo(crate::ui::render);";
    let paths = crate_paths(text);
    assert_eq!(
        paths.into_iter().collect::<Vec<_>>(),
        [
            "app::state",
            "cli::exit",
            "store::config",
            "ui::render",
            "workers::poller"
        ]
    );
    assert!(allowed("ui", "app::state"));
    assert!(!allowed("ui", "workers::poller"));
    assert!(!allowed("app", "ui"));
    assert!(!allowed("api", "store::config"));
    assert!(!allowed("workers", "app::action"));
    assert!(!allowed("app", "cli::exit"));
    assert!(!allowed("app", "workers::poller"));
    assert!(allowed("dashboard", "workers::poller"));
    assert!(!allowed("nowhere", "api"));
}

#[test]
fn a_backward_import_fails_the_check() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("api")).unwrap();
    std::fs::create_dir_all(src.join("workers")).unwrap();
    std::fs::write(src.join("api/client.rs"), "use crate::api::types::X;\n").unwrap();
    assert!(violations(&src).is_empty());
    std::fs::write(
        src.join("workers/mod.rs"),
        "use crate::{msg::Msg,\n    app::action::Action};\n",
    )
    .unwrap();
    let bad = violations(&src);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].contains("`workers` must not import `crate::app::action`"));
}
