//! Every filter example in the docs finds something: the ones on the catalogue's fields in the
//! demo's catalogue (`gendash models --filter`, against the reference service), the ones on a
//! task's fields in an archive of the demo's kind of tasks (`gendash history --filter`). An
//! example is a code span whose every `key:value` term is on one list's fields with a value
//! (not the syntax's `key:>n` or `cate:name`), or a `--filter '…'` in a shell example.

use crate::common;
use gendash::api::TaskKind;
use gendash::store::archive::{Archive, SEARCH_KEYS};
use gendash::store::watchlist::{LastKnown, WatchEntry};
use std::collections::BTreeSet;

/// Every page of the docs, with its name.
fn pages() -> Vec<(String, String)> {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut names = vec![format!("{root}/README.md")];
    let mut docs: Vec<String> = std::fs::read_dir(format!("{root}/docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    docs.sort();
    names.extend(docs);
    names
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect()
}

/// A page's code spans outside fenced blocks (`\|` read as `|`), and the `--filter '…'`
/// arguments of its fenced shell lines, each with the command it was given to (`models`,
/// `history`, or `None` for a span).
fn candidates(page: &str) -> Vec<(Option<&'static str>, String)> {
    let mut prose = String::new();
    let mut out = Vec::new();
    let mut fenced = false;
    for line in page.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            prose.push_str(line);
            prose.push('\n');
            continue;
        }
        for command in ["models", "history"] {
            let Some(rest) = line.split(&format!("gendash {command} ")).nth(1) else {
                continue;
            };
            if let Some(arg) = rest
                .split("--filter '")
                .nth(1)
                .and_then(|a| a.split('\'').next())
            {
                out.push((Some(command), arg.to_string()));
            }
        }
    }
    let prose = prose.replace("\\|", "|");
    out.extend(
        prose
            .split('`')
            .skip(1)
            .step_by(2)
            .map(|s| (None, s.replace('\n', " "))),
    );
    out
}

/// A query's words as the filter splits them: at spaces outside double quotes and not after a
/// backslash.
fn words(query: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let (mut quoted, mut escaped) = (false, false);
    for c in query.chars() {
        if c == ' ' && !quoted && !escaped {
            out.push(String::new());
        } else {
            quoted ^= c == '"' && !escaped;
            out.last_mut().unwrap().push(c);
        }
        escaped = c == '\\' && !escaped;
    }
    out.retain(|w| !w.is_empty());
    out
}

/// The syntax's own words, not examples.
const PLACEHOLDERS: &[&str] = &["n", "date", "value", "key", "-key", "V"];

/// Which list an example is for: `Some(true)` the catalogue, `Some(false)` tasks, `None` not an
/// example (no field term, a placeholder, `is:` terms, which need a load's marks, or keys of
/// neither list).
fn list_of(span: &str, catalogue: &BTreeSet<String>) -> Option<bool> {
    let mut lists = BTreeSet::new();
    for word in words(span).iter().filter(|w| w.contains(':')) {
        let (key, value) = word.trim_start_matches('!').split_once(':')?;
        let operand = value.trim_start_matches(['<', '>', '=']);
        if key == "is" || operand.is_empty() || PLACEHOLDERS.contains(&operand) {
            return None;
        }
        if !key.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
            return None;
        }
        if SEARCH_KEYS.contains(&key) {
            lists.insert(false);
        } else if catalogue.contains(key) {
            lists.insert(true);
        } else {
            return None;
        }
    }
    (lists.len() == 1).then(|| lists.pop_first()).flatten()
}

/// The keys of the demo catalogue's metadata, the filter's names for them and its own terms.
fn catalogue_keys() -> BTreeSet<String> {
    let mut keys: BTreeSet<String> = gendash::server::served_catalogue::embedded()
        .iter()
        .flat_map(|e| e.metadata.keys().cloned().collect::<Vec<_>>())
        .collect();
    for key in [
        "name", "model", "base", "trigger", "weight", "type", "cate", "sort",
    ] {
        keys.insert(key.to_string());
    }
    keys
}

/// The docs' examples of terms a filter ignores or refuses (and says so), and of syntax.
const SHOWN_WRONG: &[&str] = &["type:xl", "cate:name", "rating:>abc", "finished:>abc"];

/// Every documented example for one list: (page, example), each once.
fn examples(catalogue: bool) -> Vec<(String, String)> {
    let keys = catalogue_keys();
    let command = if catalogue { "models" } else { "history" };
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (page, text) in pages() {
        for (given_to, example) in candidates(&text) {
            let ours = match given_to {
                Some(c) => c == command,
                None => list_of(&example, &keys) == Some(catalogue),
            };
            let shown_wrong = SHOWN_WRONG.contains(&example.as_str());
            if ours && !shown_wrong && seen.insert(example.clone()) {
                let name = page.rsplit('/').next().unwrap_or(&page).to_string();
                out.push((name, example));
            }
        }
    }
    out
}

/// `gendash ARGS` in `home`: whether it succeeded, and its JSON array's length.
async fn listed(home: &std::path::Path, envs: &[(&str, &str)], args: &[&str]) -> (bool, usize) {
    let mut cmd = common::gendash_async(home);
    cmd.envs(envs.iter().copied()).args(args);
    let out = tokio::time::timeout(std::time::Duration::from_secs(60), cmd.output())
        .await
        .expect("gendash finished")
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    (out.status.success(), json.as_array().map_or(0, Vec::len))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_catalogue_example_in_the_docs_matches_the_demo_catalogue() {
    let examples = examples(true);
    let spans: Vec<&str> = examples.iter().map(|(_, e)| e.as_str()).collect();
    for documented in [
        "updated:>2026-11-01",
        "updated:<2026-01",
        "type:sdxl ^water",
    ] {
        assert!(
            spans.contains(&documented),
            "{documented} not read: {spans:?}"
        );
    }
    let svc = common::service().await;
    let home = tempfile::tempdir().unwrap();
    let base = svc.base_url();
    let envs = [
        ("GENDASH_BASE_URL", base.as_str()),
        ("GENDASH_TOKEN", common::TOKEN),
    ];
    let mut empty = Vec::new();
    for (page, example) in &examples {
        let (ok, n) = listed(
            home.path(),
            &envs,
            &["models", "--json", "--filter", example],
        )
        .await;
        if !ok || n == 0 {
            empty.push(format!("{page}: `{example}`"));
        }
    }
    assert!(
        empty.is_empty(),
        "filter examples the demo catalogue refuses or has nothing for: {empty:?}"
    );
}

/// The demo's kind of tasks, archived: a finished image labelled `sunset v2` and a failed
/// video labelled `draft 1`, added in October and November 2026 and finished in November.
fn demo_archive(data: &std::path::Path) {
    // 2026-10-10, 2026-11-02, 2026-11-03 and 2026-11-20 at noon UTC.
    let (oct_10, nov_2, nov_3, nov_20) =
        (1_791_633_600, 1_794_052_800, 1_794_139_200, 1_795_608_000);
    let task = |id: &str, kind, status: &str, label: &str, added, finished| WatchEntry {
        added_at: added,
        last: Some(LastKnown {
            status: status.into(),
            percent: 100,
            finished_at: Some(finished),
            ..LastKnown::default()
        }),
        label: Some(label.into()),
        service: Some("http://127.0.0.1:8787".into()),
        ..WatchEntry::new(id, kind)
    };
    let tasks = [
        task(
            "demo-image-done",
            TaskKind::Image,
            "COMPLETED",
            "sunset v2",
            oct_10,
            nov_20,
        ),
        task(
            "demo-video-fail",
            TaskKind::Video,
            "FAILED",
            "draft 1",
            nov_2,
            nov_3,
        ),
    ];
    Archive::open(&gendash::store::archive::Files::in_dir(data))
        .unwrap()
        .insert(&tasks, nov_20 + 60)
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_task_example_in_the_docs_matches_the_demo_archive() {
    let examples = examples(false);
    let spans: Vec<&str> = examples.iter().map(|(_, e)| e.as_str()).collect();
    for documented in [
        "finished:>2026-11-01",
        "added:<=2026-10",
        "status:failed kind:video",
        r#"finished:>"2026-11-02 12:30""#,
        r"finished:>2026-11-02\ 12:30",
    ] {
        assert!(
            spans.contains(&documented),
            "{documented} not read: {spans:?}"
        );
    }
    let home = tempfile::tempdir().unwrap();
    demo_archive(home.path());
    let data = home.path().to_str().unwrap();
    let envs = [("GENDASH_DATA_DIR", data), ("TZ", "UTC")];
    let mut empty = Vec::new();
    for (page, example) in &examples {
        let (ok, n) = listed(
            home.path(),
            &envs,
            &["history", "--json", "--filter", example],
        )
        .await;
        if !ok || n == 0 {
            empty.push(format!("{page}: `{example}`"));
        }
    }
    assert!(
        empty.is_empty(),
        "filter examples the demo archive refuses or has nothing for: {empty:?}"
    );
}
