//! Where gendash keeps its files, by platform convention (XDG on Linux).

use directories::ProjectDirs;
use std::path::{Path, PathBuf};

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

/// The archive's file name in the data directory.
pub const ARCHIVE_FILE: &str = "archive.sqlite3";

/// Every file the dashboard keeps, made once from its data and cache directories: the workers
/// and the runtime take their paths from here, never from another file's path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataFiles {
    pub watchlist: PathBuf,
    /// The archive of finished tasks (SQLite).
    pub archive: PathBuf,
    /// Where each running dashboard registers (their claims stand while they run).
    pub dashboards: PathBuf,
    pub recent_categories: PathBuf,
    /// The watch list's sort order.
    pub sort: PathBuf,
    pub favourites: PathBuf,
    /// The views saved from the dashboard and each pane's last state.
    pub views: PathBuf,
    /// The catalogue last loaded for each filter.
    pub catalogue_cache: PathBuf,
    /// Previews' downloads.
    pub previews: PathBuf,
}

impl DataFiles {
    /// The files in `data` (kept) and `cache` (can be fetched again).
    pub fn new(data: &Path, cache: &Path) -> Self {
        DataFiles {
            watchlist: data.join("watchlist.json"),
            archive: data.join(ARCHIVE_FILE),
            dashboards: data.join("dashboards"),
            recent_categories: data.join("recent-categories.json"),
            sort: data.join("watch-sort"),
            favourites: data.join("favourites.json"),
            views: data.join("views.json"),
            catalogue_cache: cache.join("catalogues"),
            previews: cache.join("previews"),
        }
    }

    /// The user's files: in `GENDASH_DATA_DIR` or the platform data dir, caches in the
    /// platform cache dir.
    pub fn user() -> Self {
        DataFiles::new(&user_data_dir(), &cache_dir())
    }
}

/// `GENDASH_DATA_DIR`, else the platform data dir.
pub fn user_data_dir() -> PathBuf {
    std::env::var_os("GENDASH_DATA_DIR").map_or_else(data_dir, PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each file's path is named here once: the store, the workers, the runtime and the
    /// commands take it from `DataFiles`, never make it from another file's path.
    #[test]
    fn no_data_path_is_derived_from_another() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        // A download's sidecar is named after the download by design (it is no data file);
        // this file names the call it looks for.
        let allowed = [src.join("store/sidecar.rs"), src.join("store/paths.rs")];
        let mut derived = Vec::new();
        let mut dirs = vec![
            src.join("store"),
            src.join("workers"),
            src.join("dashboard"),
            src.join("cli"),
        ];
        // Bounded: the source tree is a few hundred files.
        for _ in 0..10_000 {
            let Some(dir) = dirs.pop() else { break };
            for entry in std::fs::read_dir(&dir).expect("source dir").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") && !allowed.contains(&path) {
                    let text = std::fs::read_to_string(&path).expect("source");
                    if text.contains(".with_file_name(") {
                        derived.push(path.display().to_string());
                    }
                }
            }
        }
        assert_eq!(derived, Vec::<String>::new());
        let files = DataFiles::new(Path::new("/d"), Path::new("/c"));
        assert_eq!(files.archive, Path::new("/d/archive.sqlite3"));
        assert_eq!(files.dashboards, Path::new("/d/dashboards"));
        assert_eq!(files.previews, Path::new("/c/previews"));
    }
}
