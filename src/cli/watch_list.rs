//! `gendash watch add|list|rm`: the dashboard's watch list, edited from scripts. A running
//! dashboard picks the changes up within a couple of seconds. Entries remember the service
//! they were added for: the one `--profile`/`--base-url` (or the configuration) chooses.

use super::{CliResult, Failure, Global, output};
use crate::api::TaskKind;
use crate::app::services::{Services, host_label};
use crate::cli::exit;
use crate::store::config;
use crate::store::watchlist::{
    IdsError, StoreError, TroubleKind, WatchEntry, WatchStore, clean_label, service_key,
};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum WatchCommand {
    /// Add tasks to the watch list, for the service in force (--profile, --base-url); a lone
    /// - reads task IDs from standard input.
    Add {
        /// The tasks are video tasks (default: image).
        #[arg(long)]
        video: bool,
        #[arg(
            long,
            value_name = "TEXT",
            help = "One label for the tasks given (shown in the dashboard, matched by its \
                    filter, {label} in download_template and on_complete); control characters \
                    are removed"
        )]
        label: Option<String>,
        #[arg(required = true, value_name = "TASK_ID")]
        ids: Vec<String>,
    },
    /// Print the watch list.
    List {
        /// A JSON array.
        #[arg(long)]
        json: bool,
    },
    /// Remove tasks (of either kind) of the service in force from the watch list.
    Rm {
        #[arg(required = true, value_name = "TASK_ID")]
        ids: Vec<String>,
    },
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure::new(exit::OTHER, e.to_string())
    }
}

pub(super) fn tell_set_aside(loaded: &crate::store::watchlist::Loaded) {
    if let Some(p) = &loaded.set_aside {
        eprintln!(
            "gendash: the watch list could not be read and was set aside as {}",
            p.display()
        );
    }
}

/// The configured services, named as the dashboard names them; the current one is the empty
/// string when no base URL is configured (entries then remember none, and the dashboard gives
/// them its own service).
pub(super) fn services(global: &Global) -> Result<Services, Failure> {
    let settings = global.settings()?;
    let current = settings
        .base_url
        .as_ref()
        .map(service_key)
        .unwrap_or_default();
    let mut services = Services::single(&current);
    if let Some(name) = &settings.profile {
        services.names.insert(current.clone(), name.clone());
    }
    // Profiles first: the top level's base URL is named after a profile that shares it.
    let (profiles, top): (Vec<_>, Vec<_>) =
        config::configured_services(&global.overrides(), &config::process_env)?
            .into_iter()
            .partition(|c| c.profile.is_some());
    for configured in profiles.into_iter().chain(top) {
        let key = service_key(&configured.base_url);
        let name = configured.profile.unwrap_or_else(|| host_label(&key));
        services.names.entry(key).or_insert(name);
    }
    Ok(services)
}

/// The service of an entry for `watch list`: its profile's name, or its host, and its URL.
pub(super) fn service_of(services: &Services, e: &WatchEntry) -> (String, Option<String>) {
    let url = services.of(e.service.as_deref());
    if url.is_empty() {
        return ("(unknown)".to_string(), None);
    }
    let name = services
        .names
        .get(url)
        .cloned()
        .unwrap_or_else(|| host_label(url));
    (name, Some(url.to_string()))
}

/// The IDs given, where `-` stands for those read from standard input (separated by white
/// space, commas or newlines).
fn read_ids(given: &[String]) -> Result<Vec<String>, Failure> {
    let mut texts = Vec::new();
    for id in given {
        if id == "-" {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).map_err(|e| {
                Failure::new(exit::OTHER, format!("cannot read task IDs from stdin: {e}"))
            })?;
            texts.push(text);
        } else {
            texts.push(id.clone());
        }
    }
    let none = if given.iter().any(|id| id == "-") {
        "stdin was empty"
    } else {
        "only white space or commas"
    };
    checked_ids(&texts, none)
}

/// The task IDs in `texts`, as the add dialog takes them (`watchlist::task_ids`: trimmed,
/// each once, each valid); a refusal is a usage error, `none` saying why there were none.
fn checked_ids(texts: &[String], none: &str) -> Result<Vec<String>, Failure> {
    crate::store::watchlist::task_ids(texts.iter().map(String::as_str)).map_err(|e| {
        let text = match e {
            IdsError::None => format!("{e} ({none})"),
            e @ IdsError::Invalid { .. } => e.to_string(),
        };
        Failure::new(exit::USAGE, text)
    })
}

/// What `watch add` did, for the lines that say so.
#[derive(Debug, Default)]
struct AddReport {
    added: Vec<String>,
    /// Those on the list already, with the kind they are watched as.
    already: Vec<(String, TaskKind)>,
}

impl AddReport {
    /// `added image task sim-1, sim-2` and `already watched: sim-3 (as video)`.
    fn lines(&self, kind: TaskKind) -> Vec<String> {
        let mut lines = Vec::new();
        if !self.added.is_empty() {
            let noun = format!("{} task", kind.as_str());
            let noun = if self.added.len() == 1 {
                noun
            } else {
                crate::fmt::plural(&noun)
            };
            lines.push(format!("added {noun}: {}", self.added.join(", ")));
        }
        if !self.already.is_empty() {
            let ids: Vec<String> = self
                .already
                .iter()
                .map(|(id, as_kind)| format!("{id} (as {})", as_kind.as_str()))
                .collect();
            lines.push(format!("already watched: {}", ids.join(", ")));
        }
        lines
    }
}

/// The status and percent columns: the last answer, else what the last poll found.
fn status_of(e: &WatchEntry) -> (String, String) {
    let not_found = e
        .trouble
        .as_ref()
        .is_some_and(|t| t.kind == TroubleKind::NotFound);
    match (&e.last, &e.trouble) {
        _ if not_found => ("NOT FOUND".into(), "-".into()),
        (Some(l), _) => (l.status.clone(), format!("{}%", l.percent)),
        (None, Some(_)) => ("(no answer yet)".into(), "-".into()),
        (None, None) => ("(not polled yet)".into(), "0%".into()),
    }
}

/// The last column: what went wrong the last time the task was asked about, and since when.
fn trouble_of(e: &WatchEntry) -> String {
    let Some(t) = &e.trouble else {
        return String::new();
    };
    let since = crate::fmt::age_label(t.since, crate::store::watchlist::unix_now());
    match t.kind {
        TroubleKind::NotFound => format!("{} (for {since})", t.text),
        TroubleKind::Error => format!("error: {} (for {since})", t.text),
    }
}

/// The widest each column of `watch list` may be, in columns: kind, task ID (longer ones are
/// whole in `--json`), label, status, percent, service; the last column, what went wrong, is
/// last on its line and never widens another.
const COLUMN_CAPS: [usize; 6] = [5, 64, 24, 20, 4, 24];

/// `watch list`: aligned columns, or a JSON array with each entry's service.
fn print_list(services: &Services, entries: &[WatchEntry], json: bool) -> Result<(), Failure> {
    if json {
        let mut v =
            serde_json::to_value(entries).map_err(|e| Failure::new(exit::OTHER, e.to_string()))?;
        if let Some(items) = v.as_array_mut() {
            for (item, e) in items.iter_mut().zip(entries) {
                let (name, url) = service_of(services, e);
                item["service"] = url.into();
                item["service_name"] = name.into();
                // Which running dashboard announced it: meaningless outside the dashboards.
                if let Some(fields) = item.as_object_mut() {
                    fields.remove("claimed_by");
                }
            }
        }
        output::json_line(v);
    } else {
        // The label column only when some task has a label; a task the user has not looked
        // at since it finished (in the dashboard) is marked `●`.
        let labelled = entries.iter().any(|e| e.label.is_some());
        let rows: Vec<[String; 7]> = entries
            .iter()
            .map(|e| {
                let (status, percent) = status_of(e);
                let new = if e.unseen() { "●" } else { "" };
                [
                    e.kind.as_str().to_string(),
                    format!("{new}{}", e.task_id),
                    e.label.clone().unwrap_or_default(),
                    status,
                    percent,
                    service_of(services, e).0,
                    trouble_of(e),
                ]
            })
            .collect();
        // Columns as wide as their widest cell (in display width), so they line up, but no
        // wider than their cap: a service's 2,048-character status is cut with `…` on its own
        // line rather than pushing every other line's later columns off the screen.
        let width = |c: usize| {
            rows.iter()
                .map(|r| crate::fit::width(&r[c]))
                .max()
                .unwrap_or(0)
                .min(COLUMN_CAPS[c])
        };
        let pad = crate::fit::pad;
        let (w0, w1, w2, w3, w4, w5) = (width(0), width(1), width(2), width(3), width(4), width(5));
        for [kind, id, label, status, percent, service, trouble] in &rows {
            let label = if labelled {
                format!("{}  ", pad(label, w2))
            } else {
                String::new()
            };
            let line = format!(
                "{}  {}  {label}{}  {percent:>w4$}  {}  {trouble}",
                pad(kind, w0),
                pad(id, w1),
                pad(status, w3),
                pad(service, w5)
            );
            output::line(line.trim_end());
        }
    }
    Ok(())
}

/// What `watch rm` moved to the archive (`archived: sim-1, sim-2`), or why it could not.
fn tell_archived(
    archived: Result<crate::store::archive::Dropped, crate::store::archive::ArchiveError>,
) -> Result<(), Failure> {
    let archived = archived.map_err(|e| {
        Failure::new(
            exit::OTHER,
            format!("{e}; the finished tasks stay on the watch list"),
        )
    })?;
    if let Some(aside) = &archived.set_aside {
        output::note(&aside.to_string());
    }
    if !archived.archived.is_empty() {
        let ids: Vec<&str> = archived
            .archived
            .iter()
            .map(|e| e.task_id.as_str())
            .collect();
        output::line(&format!("archived: {}", ids.join(", ")));
    }
    Ok(())
}

pub fn run(global: &Global, cmd: &WatchCommand) -> CliResult {
    let files = crate::store::paths::DataFiles::user();
    let store = WatchStore::new(files.watchlist.clone());
    match cmd {
        WatchCommand::Add { video, label, ids } => {
            let kind = TaskKind::from_video_flag(*video);
            let label = label.as_deref().and_then(clean_label);
            let ids = read_ids(ids)?;
            let services = services(global)?;
            let service = (!services.current.is_empty()).then(|| services.current.clone());
            let mut report = AddReport::default();
            let loaded = store.update(|list| {
                report = AddReport::default();
                for id in &ids {
                    let mut entry = WatchEntry::new(id.clone(), kind);
                    entry.service.clone_from(&service);
                    entry.label.clone_from(&label);
                    // An ID is one task whichever kind it was added as: never both.
                    if let Some(e) = list.iter().find(|e| e.task_id == *id) {
                        report.already.push((id.clone(), e.kind));
                    } else {
                        list.push(entry);
                        report.added.push(id.clone());
                    }
                }
            })?;
            tell_set_aside(&loaded);
            for line in report.lines(kind) {
                output::line(&line);
            }
        }
        WatchCommand::List { json } => {
            let services = services(global)?;
            // A look only: an unreadable file is reported and left in place.
            print_list(&services, &store.read()?, *json)?;
        }
        WatchCommand::Rm { ids } => {
            let ids = &checked_ids(ids, "only white space or commas")?;
            let services = services(global)?;
            // With no service configured, an ID is removed whichever service it is for.
            let ours = |e: &WatchEntry| {
                services.current.is_empty() || services.of(e.service.as_deref()) == services.current
            };
            let mut missing = Vec::new();
            let mut elsewhere = Vec::new();
            let mut removed = Vec::new();
            // Finished tasks move to the archive before the list drops them.
            let archive = crate::store::archive::Files::from(&files);
            let mut archived = Ok(crate::store::archive::Dropped::default());
            let loaded = store.update(|list| {
                missing.clear();
                elsewhere.clear();
                removed.clear();
                let before = list.clone();
                for id in ids {
                    let before = list.len();
                    list.retain(|e| !(&e.task_id == id && ours(e)));
                    if list.len() < before {
                        removed.push(id.as_str());
                        continue;
                    }
                    match list.iter().find(|e| &e.task_id == id) {
                        Some(e) => elsewhere
                            .push(format!("{id} (watched for {})", service_of(&services, e).0)),
                        None => missing.push(id.clone()),
                    }
                }
                archived = crate::store::archive::archive_dropped(
                    &archive,
                    &before,
                    list,
                    crate::store::watchlist::unix_now(),
                );
            })?;
            tell_set_aside(&loaded);
            if !removed.is_empty() {
                output::line(&format!("removed: {}", removed.join(", ")));
            }
            tell_archived(archived)?;
            let mut problems = Vec::new();
            if !missing.is_empty() {
                problems.push(format!("not in the watch list: {}", missing.join(", ")));
            }
            if !elsewhere.is_empty() {
                problems.push(format!(
                    "watched for another service, not removed: {} (choose it with --profile or --base-url)",
                    elsewhere.join(", ")
                ));
            }
            if !problems.is_empty() {
                return Err(Failure::new(exit::NOT_FOUND, problems.join("; ")));
            }
        }
    }
    Ok(exit::OK)
}
