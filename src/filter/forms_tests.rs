//! Every date form the docs list, quoted or escaped, in each kind of list the filter serves:
//! the catalogue as the browser's worker ranks it (`Ranker`) and as `gendash models` does
//! (`rank_text`), and lists of tasks as `gendash history` ranks them (`rank_fields`) and as the
//! archive view and the watch list match them (`matching_fields`, `matching_among`). The watch
//! list's own rows run the same table in `app::watch::filter_fields`.

use super::{FuzzyFilter, Ranker};
use crate::api::{LoraEntry, SearchText};
use serde_json::json;
use std::sync::Arc;

/// Five rows' moments, as the lists show them (local minutes; the last never finished).
pub(crate) const MOMENTS: [&str; 5] = [
    "2026-11-27 09:00",
    "2026-11-28 12:31",
    "2026-11-28 12:32",
    "2026-11-28 12:33",
    "",
];

/// The rows' names, in order.
pub(crate) const NAMES: [&str; 5] = ["a", "b", "c", "d", "e"];

/// Each query on the `finished` field and the rows it keeps, in order.
pub(crate) const FORMS: &[(&str, &[&str])] = &[
    (r#"finished:>"2026-11-28 12:32""#, &["d"]),
    (r"finished:>2026-11-28\ 12:32", &["d"]),
    ("finished:>2026-11-28T12:32", &["d"]),
    ("finished:>2026-11-28T12:32:00", &["d"]),
    (r#"finished:>="2026-11-28 12:32""#, &["c", "d"]),
    (r"finished:>=2026-11-28\ 12:32", &["c", "d"]),
    (r#"finished:<"2026-11-28 12:32""#, &["a", "b"]),
    (r#"finished:<="2026-11-28 12:32""#, &["a", "b", "c"]),
    (r#"finished:="2026-11-28 12:32""#, &["c"]),
    (r#"finished:>"2026-11-27""#, &["b", "c", "d"]),
    ("finished:>2026-11-27", &["b", "c", "d"]),
    ("finished:>=2026-11-28", &["b", "c", "d"]),
    ("finished:<2026-11-28", &["a"]),
    ("finished:=2026-11", &["a", "b", "c", "d"]),
    ("finished:<2026", &[]),
    ("finished:>2025", &["a", "b", "c", "d"]),
    (r#"!finished:>"2026-11-28 12:32""#, &["a", "b", "c", "e"]),
    (
        r#"finished:>"2026-11-28 12:32" | finished:<2026-11-28"#,
        &["a", "d"],
    ),
    (r#"finished:"2026-11-28 12:3""#, &["b", "c", "d"]),
    (r#"finished:">2026""#, &[]),
];

/// The `FORMS` query on the catalogue's `updated` field instead.
fn on_updated(query: &str) -> String {
    query.replace("finished:", "updated:")
}

fn catalogue() -> Arc<SearchText> {
    let entries = NAMES.iter().zip(MOMENTS).map(|(name, at)| {
        let meta = json!({ "updated": at });
        LoraEntry::new(*name, meta.as_object().expect("object"))
    });
    Arc::new(SearchText::new(entries.collect::<Vec<_>>().into()))
}

fn names(mut indices: Vec<usize>) -> Vec<&'static str> {
    indices.sort_unstable();
    indices.into_iter().map(|i| NAMES[i]).collect()
}

#[test]
fn every_date_form_in_the_catalogue() {
    let text = catalogue();
    let mut worker = Ranker::new();
    for &(query, kept) in FORMS {
        let query = on_updated(query);
        let answer = worker.rank(&query, &text);
        let worker_kept = names(answer.iter().map(|&i| i as usize).collect());
        assert_eq!(worker_kept, kept, "the browser's worker: {query}");
        let cli = FuzzyFilter::new().rank_text(&query, &text);
        let cli = names(cli.iter().map(|r| r.index as usize).collect());
        assert_eq!(cli, kept, "gendash models: {query}");
    }
    let example = worker.rank(r#"updated:>"2026-06-01""#, &text);
    assert_eq!(example.len(), 4, "the issue's own example");
}

#[test]
fn every_date_form_in_a_list_of_tasks() {
    let keys = ["label", "finished"];
    let values: Vec<[&str; 2]> = MOMENTS.iter().map(|at| ["", *at]).collect();
    let rows = || NAMES.iter().copied().zip(values.iter().map(|v| &v[..]));
    for &(query, kept) in FORMS {
        let history = FuzzyFilter::new().rank_fields(query, &keys, rows());
        let history = names(history.iter().map(|r| r.index as usize).collect());
        assert_eq!(history, kept, "gendash history: {query}");
        let archive = FuzzyFilter::new().matching_fields(query, &keys, rows());
        let archive = names(archive.iter().map(|&i| i as usize).collect());
        assert_eq!(
            archive, kept,
            "the archive view and the watch list: {query}"
        );
    }
}
