//! `gendash keys`: the key bindings in force (the built-in table with the config's `[keys]`),
//! as the help overlay groups them, or as JSON.

use super::{CliResult, Failure, Global, exit, output};
use crate::app::state::{Context, Keymap};
use clap::Args;

#[derive(Debug, Args)]
pub struct KeysArgs {
    /// Print JSON: one object per binding with its context, action, keys and description.
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &Global, args: &KeysArgs) -> CliResult {
    let settings = global.settings()?;
    let (keymap, _) = crate::dashboard::looks(&settings, true)
        .map_err(|e| Failure::new(exit::OTHER, e.to_string()))?;
    if args.json {
        let rows: Vec<serde_json::Value> = keymap
            .bindings()
            .iter()
            .map(|b| {
                serde_json::json!({
                    "context": b.context.name(),
                    "action": b.name.as_str(),
                    "keys": b.all_keys().map(ToString::to_string).collect::<Vec<_>>(),
                    "label": b.label,
                    "description": b.description,
                })
            })
            .collect();
        output::json_line(serde_json::Value::Array(rows));
        // JSON readers read standard output only; the person running it reads this.
        for given in keymap.given_up() {
            eprintln!("{given}");
        }
    } else {
        for line in table(&keymap).lines() {
            output::line(line);
        }
        if !keymap.given_up().is_empty() {
            output::line("Built-in keys your [keys] took");
            for given in keymap.given_up() {
                output::line(&format!("  {given}"));
            }
        }
    }
    Ok(exit::OK)
}

/// Each context's bindings under its title: the action's `[keys]` name, its keys as the file
/// writes them, what it does.
pub(super) fn table(keymap: &Keymap) -> String {
    use std::fmt::Write as _;
    let rows: Vec<(Context, &str, String, &str)> = keymap
        .bindings()
        .iter()
        .map(|b| {
            let keys: Vec<String> = b.all_keys().map(ToString::to_string).collect();
            (
                b.context,
                b.name.as_str(),
                keys.join(" "),
                b.description.as_ref(),
            )
        })
        .collect();
    let name_w = rows.iter().map(|r| r.1.len()).max().unwrap_or(0);
    let keys_w = rows.iter().map(|r| r.2.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for ctx in Context::ALL {
        let _ = writeln!(out, "{}", ctx.title());
        for (_, name, keys, description) in rows.iter().filter(|r| r.0 == ctx) {
            let _ = writeln!(out, "  {name:<name_w$}  {keys:<keys_w$}  {description}");
        }
        out.push('\n');
    }
    out
}
