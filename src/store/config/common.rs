//! What every part of the configuration shares: where a value came from, what the command
//! line overrides and the environment's lookup.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(2);
/// A running task whose percent has not moved for this long is shown as stalled.
pub const DEFAULT_STALL_AFTER: Duration = Duration::from_secs(300);
pub const DEFAULT_MAX_CONCURRENT_POLLS: usize = 64;
/// `max_poll_interval`: the longest wait between two polls of a running task.
pub const DEFAULT_MAX_POLL_INTERVAL: Duration = Duration::from_secs(30);

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

/// Reads the environment through a function, so tests need not touch the process's own.
pub type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}
