//! `gendash stats [--json]`: how long tasks take, from the watch list (each task's status
//! history and times as the dashboard saw them): per service and kind, then in all, the
//! tasks on the list, completed, failed, the failure rate, the median and 90th percentile of
//! the completed tasks' durations, and completions per hour. It reads the file only: no
//! request is made.

use super::watch_list::{service_of, services};
use super::{CliResult, Global, output};
use crate::cli::exit;
use crate::store::watchlist::figures::Figures;
use crate::store::watchlist::{WatchEntry, WatchStore};
use clap::Args;
use serde_json::{Value, json};

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// One JSON object: "groups" (per service and kind) and "all".
    #[arg(long)]
    json: bool,
}

/// One line of the table: who it is about, and its figures.
struct Group {
    service_name: String,
    service: Option<String>,
    kind: String,
    figures: Figures,
}

fn figures_json(f: &Figures) -> Value {
    json!({
        "seen": f.seen,
        "completed": f.completed,
        "failed": f.failed,
        "failure_rate": f.failure_rate(),
        "durations_known": f.durations.len(),
        "median_seconds": f.median(),
        "p90_seconds": f.p90(),
        "completions_per_hour": f.per_hour().map(|r| (r * 10.0).round() / 10.0),
    })
}

fn cells(name: &str, kind: &str, f: &Figures) -> [String; 9] {
    let duration = |d: Option<u64>| d.map_or_else(|| "-".to_string(), crate::fmt::duration_label);
    [
        name.to_string(),
        kind.to_string(),
        f.seen.to_string(),
        f.completed.to_string(),
        f.failed.to_string(),
        f.failure_rate()
            .map_or_else(|| "-".to_string(), |r| format!("{:.0}%", r * 100.0)),
        duration(f.median()),
        duration(f.p90()),
        f.per_hour()
            .map_or_else(|| "-".to_string(), |r| format!("{r:.1}")),
    ]
}

pub fn run(global: &Global, args: &StatsArgs) -> CliResult {
    let settings = global.settings()?;
    let services = services(global)?;
    // A look only: an unreadable file is reported and left in place.
    let entries = &WatchStore::new(WatchStore::default_path()).read()?;
    // Per service (in the order first seen), then kind.
    let mut keys: Vec<(String, Option<String>, &'static str)> = Vec::new();
    for e in entries {
        let (name, url) = service_of(&services, e);
        let key = (name, url, e.kind.as_str());
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys.sort_by(|a, b| (&a.0, a.2).cmp(&(&b.0, b.2)));
    let groups: Vec<Group> = keys
        .into_iter()
        .map(|(service_name, service, kind)| {
            let of_group =
                |e: &&WatchEntry| e.kind.as_str() == kind && service_of(&services, e).1 == service;
            let figures = Figures::of(entries.iter().filter(of_group), &settings.failure_statuses);
            Group {
                service_name,
                service,
                kind: kind.to_string(),
                figures,
            }
        })
        .collect();
    let all = Figures::of(entries, &settings.failure_statuses);
    if args.json {
        let groups: Vec<Value> = groups
            .iter()
            .map(|g| {
                let mut v = figures_json(&g.figures);
                v["service"] = g.service.clone().into();
                v["service_name"] = g.service_name.clone().into();
                v["kind"] = g.kind.clone().into();
                v
            })
            .collect();
        output::json_line(json!({ "groups": groups, "all": figures_json(&all) }));
        return Ok(exit::OK);
    }
    if entries.is_empty() {
        eprintln!("gendash: the watch list is empty: no figures yet");
        return Ok(exit::OK);
    }
    let mut rows = vec![
        [
            "SERVICE",
            "KIND",
            "TASKS",
            "COMPLETED",
            "FAILED",
            "FAILED%",
            "MEDIAN",
            "P90",
            "PER HOUR",
        ]
        .map(str::to_string),
    ];
    rows.extend(
        groups
            .iter()
            .map(|g| cells(&g.service_name, &g.kind, &g.figures)),
    );
    rows.push(cells("all", "", &all));
    let width = |c: usize| {
        rows.iter()
            .map(|r| unicode_width::UnicodeWidthStr::width(r[c].as_str()))
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..9).map(width).collect();
    for row in &rows {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, text)| {
                let pad = " ".repeat(
                    widths[c].saturating_sub(unicode_width::UnicodeWidthStr::width(text.as_str())),
                );
                // Names to the left, figures to the right.
                if c < 2 {
                    format!("{text}{pad}")
                } else {
                    format!("{pad}{text}")
                }
            })
            .collect();
        output::line(line.join("  ").trim_end());
    }
    Ok(exit::OK)
}
