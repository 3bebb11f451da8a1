//! File logging for `-v`: logs go to `gendash.log` under the state directory, never to the
//! terminal (the dashboard owns it). Logged text comes from sanitised values, the token is a
//! `Secret` whose `Debug` is `<redacted>`, and the formatter escapes what remains.

use std::fs::OpenOptions;
use std::path::PathBuf;
use tracing::Level;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Keeps the log writer alive for the program's lifetime.
pub struct LogGuard;

/// The log file: `GENDASH_LOG_FILE`, else `<state dir>/gendash.log`.
pub fn log_path() -> PathBuf {
    std::env::var_os("GENDASH_LOG_FILE").map_or_else(
        || crate::store::paths::state_dir().join("gendash.log"),
        PathBuf::from,
    )
}

/// Why logging could not start.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("cannot create {}: {source}", dir.display())]
    Dir {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot open the log file {}: {source}", path.display())]
    Open {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot start logging: {0}")]
    Start(#[from] tracing_subscriber::util::TryInitError),
}

pub fn init(verbose: u8) -> Result<Option<LogGuard>, LogError> {
    if verbose == 0 {
        return Ok(None);
    }
    let path = log_path();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| LogError::Dir {
            dir: dir.to_path_buf(),
            source,
        })?;
    }
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options.open(&path).map_err(|source| LogError::Open {
        path: path.clone(),
        source,
    })?;
    // gendash's own events at the asked level, its dependencies' one level quieter.
    let (ours, theirs) = match verbose {
        1 => (Level::INFO, Level::WARN),
        2 => (Level::DEBUG, Level::INFO),
        _ => (Level::TRACE, Level::TRACE),
    };
    let targets = tracing_subscriber::filter::Targets::new()
        .with_target("gendash", ours)
        .with_default(theirs);
    tracing_subscriber::fmt()
        .with_max_level(Level::TRACE)
        .with_writer(std::sync::Mutex::new(file))
        .with_ansi(false)
        .finish()
        .with(targets)
        .try_init()?;
    tracing::info!(version = env!("CARGO_PKG_VERSION"), "gendash started");
    Ok(Some(LogGuard))
}
