//! Where gendash keeps its files, by platform convention (XDG on Linux).

use directories::ProjectDirs;
use std::path::PathBuf;

fn dirs() -> Option<ProjectDirs> {
    ProjectDirs::from("", "", "gendash")
}

/// Default configuration file: `~/.config/gendash/config.toml` on Linux.
pub fn default_config_file() -> PathBuf {
    dirs().map_or_else(
        || PathBuf::from("gendash.toml"),
        |d| d.config_dir().join("config.toml"),
    )
}

/// Directory of the watch list and other data: `~/.local/share/gendash` on Linux.
pub fn data_dir() -> PathBuf {
    dirs().map_or_else(|| PathBuf::from(".gendash"), |d| d.data_dir().to_path_buf())
}

/// Directory of log files: `~/.local/state/gendash` on Linux, the data dir elsewhere.
pub fn state_dir() -> PathBuf {
    dirs().map_or_else(
        || PathBuf::from(".gendash"),
        |d| d.state_dir().unwrap_or(d.data_dir()).to_path_buf(),
    )
}

/// Directory of things that can be fetched again: `~/.cache/gendash` on Linux.
pub fn cache_dir() -> PathBuf {
    dirs().map_or_else(
        || std::env::temp_dir().join("gendash-cache"),
        |d| d.cache_dir().to_path_buf(),
    )
}
