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

/// The watch list's sort order saved by an earlier session (its label), if any.
pub fn load_sort(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let label = text.trim();
    (label.len() <= 32 && label.chars().all(|c| c.is_ascii_alphanumeric() || c == ' '))
        .then(|| label.to_string())
}

/// Saves the sort order's label atomically.
pub fn save_sort(path: &Path, label: &str) -> std::io::Result<()> {
    write_atomic(path, format!("{label}\n").as_bytes(), None)
}

/// Saves the list atomically.
pub fn save(path: &Path, categories: &[String]) -> std::io::Result<()> {
    let body = serde_json::to_vec(categories).map_err(std::io::Error::other)?;
    write_atomic(path, &body, None)
}
