//! docs/architecture.md draws what `RULES` says: its table and its picture.

use super::*;

fn architecture_doc() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md"))
        .unwrap()
}

fn rules_map() -> BTreeMap<String, BTreeSet<String>> {
    RULES
        .iter()
        .map(|(m, deps)| {
            (
                (*m).to_string(),
                deps.iter().map(|d| (*d).to_string()).collect(),
            )
        })
        .collect()
}

/// The names in backticks in a table cell (`—` is none).
fn ticked(cell: &str) -> BTreeSet<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The doc's table: each row's module and the modules it may import.
fn doc_table(doc: &str) -> BTreeMap<String, BTreeSet<String>> {
    doc.lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split(" | ").collect();
            let module = ticked(cells[0]).into_iter().next().unwrap_or_default();
            (module, ticked(cells[1]))
        })
        .collect()
}

/// The doc's picture (the first `text` block under "## The layers"): the module names on each
/// row, the top row first.
fn doc_picture(doc: &str) -> Vec<Vec<String>> {
    let after = &doc[doc
        .find("## The layers")
        .expect("a section `## The layers`")..];
    let block = after
        .split("```text\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a text block in `## The layers`");
    block
        .lines()
        .map(|l| {
            l.split(|c: char| !(c.is_ascii_lowercase() || c == '_'))
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .filter(|row| !row.is_empty())
        .collect()
}

#[test]
fn the_doc_table_says_what_rules_say() {
    let rules = rules_map();
    let table = doc_table(&architecture_doc());
    let expected: Vec<String> = RULES
        .iter()
        .map(|(m, deps)| {
            let deps: Vec<String> = deps.iter().map(|d| format!("`{d}`")).collect();
            let deps = if deps.is_empty() {
                "—".to_string()
            } else {
                deps.join(", ")
            };
            format!("| `{m}` | {deps} | … |")
        })
        .collect();
    assert_eq!(
        table,
        rules,
        "docs/architecture.md's table must list exactly the modules of RULES \
         (tests/it/architecture.rs) and what each may import:\n{}",
        expected.join("\n")
    );
}

#[test]
fn the_doc_picture_draws_every_module_once_with_imports_pointing_down() {
    let rows = doc_picture(&architecture_doc());
    let drawn: Vec<&String> = rows.iter().flatten().collect();
    let unique: BTreeSet<&String> = drawn.iter().copied().collect();
    assert_eq!(drawn.len(), unique.len(), "a module drawn twice: {rows:?}");
    let rules = rules_map();
    assert_eq!(
        unique,
        rules.keys().collect::<BTreeSet<_>>(),
        "docs/architecture.md's picture must draw exactly the modules of RULES"
    );
    let row_of = |m: &str| rows.iter().position(|r| r.iter().any(|x| x == m)).unwrap();
    let upward: Vec<String> = RULES
        .iter()
        .flat_map(|(m, deps)| deps.iter().map(move |d| (*m, *d)))
        .filter(|(m, d)| row_of(d) <= row_of(m))
        .map(|(m, d)| format!("`{m}` imports `{d}`, drawn on its row or above"))
        .collect();
    assert!(
        upward.is_empty(),
        "docs/architecture.md's picture:\n{}",
        upward.join("\n")
    );
}
