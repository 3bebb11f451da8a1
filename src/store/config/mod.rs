//! Configuration: a TOML file with optional `[profiles.NAME]` tables, environment variables and
//! flags, resolved with the precedence flags > environment > profile > top level. Every
//! resolved value remembers where it came from, for `gendash config show`.
//!
//! `values`: the checked value types; `file`: the file's schema and parser (errors name the
//! file, line and key); `resolve`: the precedence; `token`: the token's sources; `describe`:
//! `config show`.

mod appearance;
mod describe;
mod file;
mod resolve;
mod token;
mod values;

pub use appearance::{ACTION_NAMES, KeyCombo, STYLE_NAMES, ThemeName};
pub use file::{FileSettings, config_path, declared_keys, nearest, parse};
pub use resolve::{Configured, configured_services, resolve, resolve_from, resolve_service};
pub use token::{default_token_file, loose_permissions, write_token_file};
pub use values::{
    BaseUrl, CommandSpec, HOOK_PLACEHOLDERS, Hook, ImagePreview, POLL_FLOOR, PollSeconds, Seconds,
    check_seconds,
};

use crate::api::Secret;
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;
use url::Url;

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

/// The resolved settings.
// Each bool is an independent user-facing switch, not a state machine in disguise.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone)]
pub struct Settings {
    pub config_file: PathBuf,
    pub config_file_found: bool,
    pub profile: Option<String>,
    pub base_url: Option<Url>,
    pub token: Option<Secret>,
    pub token_origin: Option<TokenOrigin>,
    pub poll_interval: Duration,
    pub stall_after: Duration,
    pub request_timeout: Duration,
    pub failure_statuses: Vec<String>,
    pub allow_insecure_http: bool,
    pub categories: Vec<String>,
    pub bell: bool,
    /// A program and its arguments run when a watched task finishes (`on_complete`).
    pub on_complete: Option<Vec<String>>,
    /// Where downloads go (`download_dir`, `~` expanded; created on first use).
    pub download_dir: PathBuf,
    /// The saved file's path inside `download_dir`.
    pub download_template: crate::api::download::Template,
    /// Fetch each watched task's file once when it completes.
    pub auto_download: bool,
    pub desktop_notifications: bool,
    pub max_concurrent_polls: usize,
    /// Why no token could be read (a `token_file` that is missing, a failing
    /// `token_command`): said by whatever needs the token, and by `config show`.
    pub token_problem: Option<String>,
    /// How the detail section shows a finished image (`image_preview`).
    pub image_preview: ImagePreview,
    /// The palette (`theme`).
    pub theme: ThemeName,
    /// `[styles]`, the top level's and then the profile's: style name → style.
    pub styles: BTreeMap<String, ratatui::style::Style>,
    /// `[keys]`, the top level's and then the profile's: action name → its keys.
    pub keys: BTreeMap<String, Vec<KeyCombo>>,
    /// `[keys]` action name → the line of the config file that binds it, so an error found
    /// when the keymap is built names the line.
    pub keys_lines: BTreeMap<String, usize>,
    /// Key → where its value came from.
    pub sources: BTreeMap<&'static str, Source>,
    /// Things the user should know (loose file permissions), printed to stderr.
    pub warnings: Vec<String>,
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
