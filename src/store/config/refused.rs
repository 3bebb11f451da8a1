//! Why the configuration cannot be used: each case with what it is about (the file, the
//! profile, the flag or variable, the token's source), worded as users have always read it.

use super::values::ValueError;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use url::Url;

/// A configuration problem, naming the file and, where known, the line and key.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {}: {source}", path.display())]
    Unreadable {
        path: PathBuf,
        source: Arc<std::io::Error>,
    },
    /// Not TOML, or a key or value the schema refuses.
    #[error("{}{}: {message}", path.display(), at.as_ref().map(ToString::to_string).unwrap_or_default())]
    Invalid {
        path: PathBuf,
        at: Option<Place>,
        /// The TOML parser's words (with a suggestion for a misspelt key): they stay text,
        /// as the parser gives no more than that.
        message: String,
    },
    #[error("{}: profile `{name}` has its own `profiles` table; profiles do not nest", path.display())]
    NestedProfiles { path: PathBuf, name: String },
    #[error("{}: no profile `{name}` (known: {})", path.display(), known_text(known))]
    NoProfile {
        path: PathBuf,
        name: String,
        known: Vec<String>,
    },
    /// A flag's or an environment variable's value is refused.
    #[error("{given_by}: {problem}")]
    Outside {
        given_by: Outside,
        #[source]
        problem: ValueError,
    },
    #[error("{} ({level}): set only one of token, token_file, token_command", path.display())]
    TokenTwice { path: PathBuf, level: String },
    #[error("cannot read token_file {}: {source}", path.display())]
    TokenFileUnreadable {
        path: PathBuf,
        source: Arc<std::io::Error>,
    },
    #[error("token_file {} is empty", path.display())]
    TokenFileEmpty { path: PathBuf },
    #[error("token_command `{program}` could not run: {source}")]
    TokenCommandDidNotRun {
        program: String,
        source: Arc<std::io::Error>,
    },
    #[error("token_command `{program}` failed ({status})")]
    TokenCommandFailed {
        program: String,
        status: std::process::ExitStatus,
    },
    #[error("token_command `{program}` printed no token")]
    TokenCommandSilent { program: String },
    /// The token was configured for one service and the base URL given for another: the
    /// token is withheld.
    #[error("{0}")]
    ForeignBaseUrl(Box<Mismatch>),
}

/// A token and a base URL from two sources, for two services: both sources named.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the token comes from {token_from} (for {configured}) but the base URL from {base_url_from} \
     ({given}); a token goes only to the service it was configured for: unset \
     {base_url_from}, or give that service's token in GENDASH_TOKEN"
)]
pub struct Mismatch {
    pub token_from: TokenLevel,
    pub configured: Url,
    pub base_url_from: Outside,
    pub given: Url,
}

impl ConfigError {
    /// A flag's value is a usage error (as clap's own are); a file's or a variable's is not.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            ConfigError::Outside {
                given_by: Outside::Flag(_),
                ..
            }
        )
    }
}

/// Where in the file: the line, and the dotted key when the message does not name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub line: usize,
    pub key: Option<String>,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.key {
            Some(key) => write!(f, " line {}, key `{key}`", self.line),
            None => write!(f, " line {}", self.line),
        }
    }
}

/// A value given outside the file: a flag or an environment variable, by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outside {
    Flag(&'static str),
    Env(&'static str),
}

impl fmt::Display for Outside {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outside::Flag(name) | Outside::Env(name) => f.write_str(name),
        }
    }
}

/// The level of the file a token came from, with the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenLevel {
    Profile {
        name: String,
        file: PathBuf,
    },
    TopLevel {
        file: PathBuf,
    },
    /// The file `gendash config set-token` wrote beside the config file.
    SetToken {
        config_file: PathBuf,
    },
}

impl fmt::Display for TokenLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenLevel::Profile { name, file } => {
                write!(f, "profile `{name}` in {}", file.display())
            }
            TokenLevel::TopLevel { file } => write!(f, "the top level of {}", file.display()),
            TokenLevel::SetToken { config_file } => write!(
                f,
                "the file `config set-token` wrote beside {}",
                config_file.display()
            ),
        }
    }
}

fn known_text(known: &[String]) -> String {
    if known.is_empty() {
        "none".into()
    } else {
        known.join(", ")
    }
}
