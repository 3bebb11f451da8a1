//! The categories used recently in the browser, kept across sessions (a small JSON list).

use super::atomic::write_atomic;
use std::path::Path;

/// Reads the recently used categories saved by an earlier session (none if unreadable: a
/// convenience list is never worth an error).
pub fn load(path: &Path) -> Vec<String> {
    std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice::<Vec<String>>(&b).ok())
        .unwrap_or_default()
        .into_iter()
        .map(|c| crate::api::sanitize::sanitize_with_limit(&c, 100))
        .filter(|c| !c.trim().is_empty())
        .collect()
}

/// Saves the list atomically.
pub fn save(path: &Path, categories: &[String]) -> std::io::Result<()> {
    let body = serde_json::to_vec(categories).map_err(std::io::Error::other)?;
    write_atomic(path, &body, None)
}
