//! `gendash history [--json] [--filter QUERY] [--limit N]`: the archive of finished tasks that
//! left the watch list, the most recently finished first. It reads the archive only: no
//! request is made, and a missing archive is an empty one (nothing printed, or `[]`).

use super::{CliResult, Failure, output};
use crate::cli::exit;
use crate::filter::{FuzzyFilter, Query, Scope};
use crate::store::archive::{
    Archive, ArchiveError, ArchivedTask, SEARCH_KEYS, SearchKey, SearchValue,
};
use clap::Args;
use serde_json::Value;
use std::borrow::Cow;

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// One JSON array of objects, each with every field the archive keeps.
    #[arg(long)]
    json: bool,
    /// Only the tasks that match, in the dashboard's filter language (label:cat,
    /// status:failed, kind:video, finished:>2026-11-01, !word, a | b).
    #[arg(long, value_name = "QUERY")]
    filter: Option<String>,
    /// At most N tasks (the most recently finished).
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
}

impl From<ArchiveError> for Failure {
    fn from(e: ArchiveError) -> Self {
        Failure::new(exit::OTHER, e.to_string())
    }
}

/// The filter's terms that `history` cannot use (a field the archive does not have, `is:`,
/// `type:`, `rating:>abc`…): a usage error naming the first, before the archive is read.
fn check_filter(filter: &str) -> Result<(), Failure> {
    let scope = Scope::tasks("gendash history", SEARCH_KEYS);
    match Query::parse(filter).issues(&scope, |_| None).first() {
        Some(issue) => Err(Failure::new(exit::USAGE, format!("--filter: {issue}"))),
        None => Ok(()),
    }
}

pub fn run(args: &HistoryArgs) -> CliResult {
    if let Some(filter) = args.filter.as_deref() {
        check_filter(filter)?;
    }
    let files = Archive::user_files();
    let tasks = if files.archive.exists() {
        // A look only: an unreadable file is reported and left in place.
        let archive = Archive::open_to_read(&files)?;
        // Without a filter the limit is the database's; with one, it applies to the matches.
        let limit = if args.filter.is_some() {
            None
        } else {
            args.limit
        };
        archive.list_full(limit)?
    } else {
        Vec::new()
    };
    let offset = crate::clock::local_offset().whole_seconds();
    let mut shown = match args.filter.as_deref().filter(|q| !q.trim().is_empty()) {
        Some(query) => matching(&tasks, query, offset),
        None => tasks.iter().collect(),
    };
    if let Some(n) = args.limit {
        shown.truncate(n);
    }
    if args.json {
        output::json_line(Value::Array(shown.iter().map(|t| task_json(t)).collect()));
    } else {
        print_table(&shown, offset);
    }
    Ok(exit::OK)
}

/// The tasks that match `query`, in the archive's order: by name (task ID, status, label) and
/// by the `SEARCH_KEYS` fields, as the dashboard's archive view matches them.
fn matching<'a>(tasks: &'a [ArchivedTask], query: &str, offset: i32) -> Vec<&'a ArchivedTask> {
    let names: Vec<String> = tasks.iter().map(ArchivedTask::search_name).collect();
    let fields: Vec<Vec<Cow<str>>> = tasks
        .iter()
        .map(|t| {
            SearchKey::ALL
                .iter()
                .map(|&key| match t.search_value(key) {
                    SearchValue::Text(text) => Cow::Borrowed(text),
                    SearchValue::Time(at) => Cow::Owned(crate::fmt::local_minute(at, offset)),
                })
                .collect()
        })
        .collect();
    let hits = FuzzyFilter::new().matching_texts(query, SEARCH_KEYS, &names, &fields);
    hits.into_iter().map(|i| &tasks[i]).collect()
}

/// A task as `--json` writes it: everything the watch list knew (its status history too), the
/// archive's row ID, and when it finished and was archived. Which dashboard announced it
/// means nothing outside the dashboards and is left out.
fn task_json(t: &ArchivedTask) -> Value {
    let mut v = serde_json::to_value(&t.entry).unwrap_or(Value::Null);
    if let Some(fields) = v.as_object_mut() {
        fields.remove("claimed_by");
        fields.insert("archive_id".into(), t.id.into());
        fields.insert("finished_at".into(), t.finished_at().into());
        fields.insert("archived_at".into(), t.archived_at.into());
    }
    v
}

/// Aligned columns: task ID, kind, status, when it finished (local time), label, saved file.
fn print_table(tasks: &[&ArchivedTask], offset: i32) {
    let clean = |s: &str| crate::api::sanitize::sanitize(s);
    let rows: Vec<[String; 6]> = tasks
        .iter()
        .map(|t| {
            let e = &t.entry;
            [
                clean(&e.task_id),
                e.kind.as_str().to_string(),
                clean(e.last.as_ref().map_or("", |l| l.status.as_str())),
                crate::fmt::local_minute(t.finished_at(), offset),
                clean(e.label.as_deref().unwrap_or("")),
                clean(e.saved.as_deref().unwrap_or("")),
            ]
        })
        .collect();
    let width = |c: usize| {
        rows.iter()
            .map(|r| unicode_width::UnicodeWidthStr::width(r[c].as_str()))
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..6).map(width).collect();
    for row in &rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            // An empty column (no task has a label, none was saved) takes no room.
            if widths[c] == 0 {
                continue;
            }
            let used = unicode_width::UnicodeWidthStr::width(cell.as_str());
            line.push_str(cell);
            line.push_str(&" ".repeat(widths[c].saturating_sub(used) + 2));
        }
        output::line(line.trim_end());
    }
}
