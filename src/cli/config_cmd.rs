//! `gendash config path|show|set-token|schema`.

use super::{CliResult, Failure, Global, output};
use crate::api::Secret;
use crate::store::config;
use clap::Subcommand;
use std::io::IsTerminal;

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the configuration file's path.
    Path,
    /// Print the resolved settings and where each came from (the token as <redacted>).
    Show,
    /// Store the access token (read from standard input, not echoed on a terminal) in a file
    /// beside the config file, readable by you only (mode 0600).
    SetToken,
    /// Print a JSON Schema (draft-07) of config.toml, for editors: save it beside the config
    /// file and add "#:schema ./gendash.schema.json" at its top (Taplo, Even Better TOML).
    Schema,
}

pub fn run(global: &Global, cmd: &ConfigCommand) -> CliResult {
    match cmd {
        ConfigCommand::Path => {
            let (path, _) = config::config_path(&global.overrides(), &config::process_env);
            output::line(&path.display().to_string());
        }
        ConfigCommand::Show => {
            let settings = global.settings()?;
            // `[keys]` is refused here as the dashboard and `gendash keys` refuse it.
            crate::dashboard::looks(&settings, true)
                .map_err(|e| Failure::new(crate::cli::exit::OTHER, e.to_string()))?;
            for l in settings.describe() {
                output::line(&l);
            }
        }
        ConfigCommand::SetToken => {
            let (path, _) = config::config_path(&global.overrides(), &config::process_env);
            let profile = global.profile.clone();
            let target = config::default_token_file(&path, profile.as_deref());
            let token = read_token()?;
            config::write_token_file(&target, &token).map_err(|e| {
                Failure::new(
                    crate::cli::exit::OTHER,
                    format!("cannot write {}: {e}", target.display()),
                )
            })?;
            eprintln!("saved the token to {} (mode 600)", target.display());
        }
        ConfigCommand::Schema => {
            let schema = serde_json::to_string_pretty(&config::json_schema()).map_err(|e| {
                Failure::new(
                    crate::cli::exit::OTHER,
                    format!("cannot write the schema: {e}"),
                )
            })?;
            for l in schema.lines() {
                output::line(l);
            }
        }
    }
    Ok(crate::cli::exit::OK)
}

/// One line from standard input; on a terminal it is prompted for and not echoed.
fn read_token() -> Result<Secret, Failure> {
    let line = if std::io::stdin().is_terminal() {
        rpassword::prompt_password("access token (not shown): ").map_err(|e| {
            Failure::new(
                crate::cli::exit::OTHER,
                format!("cannot read the token: {e}"),
            )
        })?
    } else {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).map_err(|e| {
            Failure::new(
                crate::cli::exit::OTHER,
                format!("cannot read the token: {e}"),
            )
        })?;
        line
    };
    let token = line.trim();
    if token.is_empty() {
        return Err(Failure::new(
            crate::cli::exit::USAGE,
            "no token given on standard input",
        ));
    }
    Ok(Secret::new(token))
}
