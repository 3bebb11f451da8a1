//! `gendash config path|show`.

use super::{CliResult, Global, output};
use crate::store::config;
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the configuration file's path.
    Path,
    /// Print the resolved settings and where each came from (the token as <redacted>).
    Show,
}

pub fn run(global: &Global, cmd: &ConfigCommand) -> CliResult {
    match cmd {
        ConfigCommand::Path => {
            let (path, _) = config::config_path(&global.overrides(), &config::process_env);
            output::line(&path.display().to_string());
        }
        ConfigCommand::Show => {
            let settings = global.settings()?;
            for l in settings.describe() {
                output::line(&l);
            }
        }
    }
    Ok(crate::exit::OK)
}
