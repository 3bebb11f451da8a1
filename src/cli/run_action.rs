//! `gendash run-action NAME ID…`: one of the config's `[[actions]]`, run headless on the rows
//! the IDs name: models of the service's catalogue (browser scope), tasks of the watch list
//! (watch scope) or of the archive (archive scope). Filled and run as the dashboard runs it
//! (no shell, no token, `action_timeout`); it does not ask first (`confirm` is the dashboard's
//! question; naming the action here is the answer). The program's output passes through.

use super::{CliResult, Failure, Global, client_from, exit, output};
use crate::store::config::{Expansion, ModelRow, OwnAction, Scope, TaskRow, expand};
use crate::store::program::{self, ProgramError};
use crate::store::watchlist::{WatchEntry, WatchStore};
use clap::Args;
use std::io::Write as _;

#[derive(Debug, Args)]
pub struct RunActionArgs {
    /// The action's name in the config's [[actions]].
    pub name: String,
    /// What it runs on: task IDs (watch and archive scopes) or model names (browser scope).
    #[arg(required = true)]
    pub ids: Vec<String>,
    /// Where the IDs are looked up, for an action of several scopes (default: its first).
    #[arg(long, value_parser = Scope::NAMES)]
    pub scope: Option<String>,
}

pub async fn run(global: &Global, args: &RunActionArgs) -> CliResult {
    let settings = global.settings()?;
    let action = find(&settings.actions, &args.name)?;
    let scope = match args.scope.as_deref() {
        None => action.scopes[0],
        Some(name) => *action
            .scopes
            .iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| {
                Failure::new(
                    exit::USAGE,
                    format!("action `{}` does not run in the {name} scope", action.name),
                )
            })?,
    };
    let filled = match scope {
        Scope::Browser => {
            let client = client_from(&settings)?;
            let catalogue = client.list_loras(None, None).await?;
            let mut rows = Vec::new();
            let mut missing = Vec::new();
            for id in &args.ids {
                match catalogue.entries.iter().find(|e| e.model() == id) {
                    Some(entry) => rows.push(ModelRow {
                        entry,
                        weight: settings.lora_weight,
                    }),
                    None => missing.push(id.as_str()),
                }
            }
            refuse_missing(&missing, "in the service's catalogue")?;
            expand(action, scope, &rows)
        }
        Scope::Watch => {
            let files = crate::store::paths::DataFiles::user();
            let list = WatchStore::new(files.watchlist.clone())
                .read()
                .map_err(|e| Failure::new(exit::OTHER, e.to_string()))?;
            tasks(action, scope, &args.ids, &list, "on the watch list")?
        }
        Scope::Archive => {
            let files = crate::store::archive::Archive::user_files();
            let archived = if files.archive.exists() {
                crate::store::archive::Archive::open_to_read(&files)
                    .and_then(|a| a.list_full(None))
                    .map_err(|e| Failure::new(exit::OTHER, e.to_string()))?
            } else {
                Vec::new()
            };
            let list: Vec<WatchEntry> = archived.into_iter().map(|t| t.entry).collect();
            tasks(action, scope, &args.ids, &list, "in the archive")?
        }
    };
    run_filled(action, filled, settings.action_timeout).await
}

/// The action named `name`, else a usage error naming the known ones.
fn find<'a>(actions: &'a [OwnAction], name: &str) -> Result<&'a OwnAction, Failure> {
    actions.iter().find(|a| a.name == name).ok_or_else(|| {
        let known: Vec<&str> = actions.iter().map(|a| a.name.as_str()).collect();
        let known = if known.is_empty() {
            "the config has no [[actions]]".to_string()
        } else {
            format!("known: {}", known.join(", "))
        };
        Failure::new(
            exit::USAGE,
            format!(
                "no action named `{}` ({known})",
                output::sanitize_line(name)
            ),
        )
    })
}

fn refuse_missing(missing: &[&str], place: &str) -> Result<(), Failure> {
    if missing.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = missing.iter().map(|m| output::sanitize_line(m)).collect();
    Err(Failure::new(
        exit::NOT_FOUND,
        format!("not {place}: {}", names.join(", ")),
    ))
}

/// The tasks `ids` of `list`, filled for `action`; an ID not there is refused.
fn tasks(
    action: &OwnAction,
    scope: Scope,
    ids: &[String],
    list: &[WatchEntry],
    place: &str,
) -> Result<Expansion, Failure> {
    let mut rows = Vec::new();
    let mut missing = Vec::new();
    for id in ids {
        match list.iter().find(|e| e.task_id == *id) {
            Some(e) => rows.push(TaskRow(e)),
            None => missing.push(id.as_str()),
        }
    }
    refuse_missing(&missing, place)?;
    Ok(expand(action, scope, &rows))
}

/// Runs the filled commands in turn, their output passed through; each end said on stderr.
async fn run_filled(
    action: &OwnAction,
    filled: Expansion,
    timeout: std::time::Duration,
) -> CliResult {
    if let Some(skipped) = filled.skipped_text() {
        output::note(&skipped);
    }
    if filled.runs.is_empty() {
        return Err(Failure::new(
            exit::NOT_FOUND,
            format!("{}: nothing to run", action.name),
        ));
    }
    let mut code = exit::OK;
    for (rows, args) in &filled.runs {
        let on = format!("{} on {}", action.name, rows.join(", "));
        match program::run(args, timeout).await {
            Ok(ran) => {
                let _ = std::io::stdout().write_all(&ran.stdout);
                let _ = std::io::stderr().write_all(&ran.stderr);
                match ran.status.code() {
                    Some(0) => output::note(&format!("{on}: exit 0")),
                    other => {
                        let said = other.map_or_else(
                            || "killed by a signal".to_string(),
                            |c| format!("exit {c}"),
                        );
                        output::error(&format!("{on}: {said}"));
                        code = code.max(exit::OTHER);
                    }
                }
            }
            Err(why) => {
                output::error(&format!("{on}: {why}"));
                code = code.max(match why {
                    ProgramError::TooSlow { .. } => exit::TIMED_OUT,
                    _ => exit::OTHER,
                });
            }
        }
    }
    Ok(code)
}
