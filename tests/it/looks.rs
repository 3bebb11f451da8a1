//! What a newcomer sees first holds: the README's filter examples find something in the demo's
//! catalogue, run by the real binary against the reference service.

use crate::common;

/// The README, as shipped.
fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
}

/// The text of the README's section whose heading line is `heading`, up to the next heading
/// of the same or a higher level.
fn section(readme: &str, heading: &str) -> String {
    let level = heading.chars().take_while(|c| *c == '#').count();
    let mut lines = readme.lines().skip_while(|l| *l != heading);
    let first = lines
        .next()
        .unwrap_or_else(|| panic!("no `{heading}` in README.md"));
    let body = lines.take_while(|l| {
        let hashes = l.chars().take_while(|c| *c == '#').count();
        hashes == 0 || hashes > level || !l[hashes..].starts_with(' ')
    });
    std::iter::once(first)
        .chain(body)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The cells of a Markdown table row, `\|` read as a `|` inside a cell.
fn cells(row: &str) -> Vec<String> {
    let inner = row.trim().trim_start_matches('|').trim_end_matches('|');
    let mut out = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                out.last_mut().unwrap().push('|');
                chars.next();
            }
            '|' => out.push(String::new()),
            c => out.last_mut().unwrap().push(c),
        }
    }
    out.into_iter().map(|c| c.trim().to_string()).collect()
}

/// Every `code` span in `text`.
fn code_spans(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The examples of the filter language's table: the code spans of its `Example` column.
fn filter_examples(readme: &str) -> Vec<String> {
    let text = section(readme, "### The filter language");
    let mut rows = text.lines().filter(|l| l.starts_with('|'));
    let header = cells(rows.next().expect("the filter language has a table"));
    let column = header
        .iter()
        .position(|h| h == "Example")
        .expect("an Example column");
    rows.skip(1) // the |---| line
        .flat_map(|row| code_spans(&cells(row)[column]))
        .collect()
}

#[test]
fn the_examples_are_read_from_the_table_with_escaped_bars() {
    let table = "### The filter language\ntext\n\n| Syntax | Matches | Example |\n|---|---|---|\n\
                 | `a \\| b` | either | `^pixel \\| ^ukiyo` |\n| `w` | x | `pxart`, `'ink` |\n\n## Next\n| a | b | `no` |";
    assert_eq!(filter_examples(table), ["^pixel | ^ukiyo", "pxart", "'ink"]);
}

/// Each example of the filter language's table, run as `gendash models --filter EXAMPLE`
/// against the reference service's embedded catalogue (the one `--demo` serves), lists at
/// least one model: its `type:` and `cate:` terms go to the service, the rest matches locally.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_filter_example_in_the_readme_matches_the_demo_catalogue() {
    let examples = filter_examples(&readme());
    assert!(
        examples.len() >= 15,
        "the table's examples were not found: {examples:?}"
    );
    let svc = common::service().await;
    let home = tempfile::tempdir().unwrap();
    let mut empty = Vec::new();
    for example in &examples {
        let mut cmd = common::gendash_async(home.path());
        cmd.env("GENDASH_BASE_URL", svc.base_url().as_str())
            .env("GENDASH_TOKEN", common::TOKEN)
            .args(["models", "--json", "--filter", example]);
        let out = tokio::time::timeout(std::time::Duration::from_secs(60), cmd.output())
            .await
            .expect("gendash models finished")
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "`{example}`: {stderr}");
        let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        if listed.as_array().is_none_or(Vec::is_empty) {
            empty.push(example.clone());
        }
    }
    assert!(
        empty.is_empty(),
        "README filter examples that match nothing in the demo catalogue: {empty:?}"
    );
}
