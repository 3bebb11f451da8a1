//! Configuration: a TOML file with optional `[profiles.NAME]` tables, environment variables and
//! flags, resolved with the precedence flags > environment > profile > top level. Every
//! resolved value remembers where it came from, for `gendash config show`.
//!
//! `schema`: every key, declared once (`declare`: how that declaration becomes the types and
//! the table below); `values`: the checked value types; `file`: the parser (errors name the
//! file, line and key); `resolve`: the precedence, a loop over the keys; `token`: the token's
//! sources; `describe`: `config show` and the manual's key list.

mod appearance;
mod declare;
mod describe;
mod file;
mod resolve;
mod schema;
mod token;
mod values;

pub use appearance::{ACTION_NAMES, KeyCombo, STYLE_NAMES, ThemeName};
pub use declare::{Key, Layered, Show};
pub use describe::{KEY_TABLE_BEGIN, KEY_TABLE_END, key_table};
pub use file::{config_path, declared_keys, nearest, parse};
pub use resolve::{Configured, configured_services, resolve, resolve_from, resolve_service};
pub use schema::{FileSettings, KEYS, NAMES, Settings};
pub use token::{default_token_file, loose_permissions, write_token_file};
pub use values::{
    BaseUrl, CommandSpec, HOOK_PLACEHOLDERS, Hook, ImagePreview, POLL_FLOOR, PollSeconds, Seconds,
    check_seconds,
};

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(2);
/// A running task whose percent has not moved for this long is shown as stalled.
pub const DEFAULT_STALL_AFTER: Duration = Duration::from_secs(300);
pub const DEFAULT_MAX_CONCURRENT_POLLS: usize = 8;

/// Where a resolved value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Default,
    /// The token file `gendash config set-token` wrote.
    SetToken,
    TopLevel,
    Profile(String),
    Env(&'static str),
    Flag(&'static str),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::SetToken => f.write_str("saved by config set-token"),
            Source::TopLevel => f.write_str("config file"),
            Source::Profile(p) => write!(f, "profile {p}"),
            Source::Env(v) => write!(f, "environment {v}"),
            Source::Flag(v) => write!(f, "flag {v}"),
        }
    }
}

/// How the token was supplied, for `config show` (never the token itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenOrigin {
    Inline,
    File(PathBuf),
    Command(String),
}

/// What the command line contributes.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub config: Option<PathBuf>,
    pub profile: Option<String>,
    pub base_url: Option<String>,
}

/// A configuration problem, naming the file and, where known, the line and key.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

/// Reads the environment through a function, so tests need not touch the process's own.
pub type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests;
