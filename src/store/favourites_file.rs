//! Favourite models, per service, kept across sessions: one small JSON map from a service's
//! base URL to the model names marked with `f`. An unreadable file counts as none (a
//! convenience list is never worth an error) and is replaced by the next save.

use super::atomic::write_atomic;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type All = BTreeMap<String, BTreeSet<String>>;

fn read_all(path: &Path) -> All {
    std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice::<All>(&b).ok())
        .unwrap_or_default()
}

/// The favourites of `service`.
pub fn load(path: &Path, service: &str) -> BTreeSet<String> {
    read_all(path)
        .remove(service)
        .unwrap_or_default()
        .into_iter()
        .map(|n| crate::api::sanitize::sanitize_with_limit(&n, 200))
        .filter(|n| !n.trim().is_empty())
        .collect()
}

/// Saves `service`'s favourites atomically, keeping the other services'.
pub fn save(path: &Path, service: &str, names: &BTreeSet<String>) -> std::io::Result<()> {
    let mut all = read_all(path);
    if names.is_empty() {
        all.remove(service);
    } else {
        all.insert(service.to_string(), names.clone());
    }
    let body = serde_json::to_vec_pretty(&all).map_err(std::io::Error::other)?;
    write_atomic(path, &body, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_service_keeps_its_own_and_garbage_counts_as_none() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("favourites.json");
        let set = |names: &[&str]| names.iter().map(|n| (*n).to_string()).collect();
        save(&path, "http://a", &set(&["x", "y"])).expect("save");
        save(&path, "http://b", &set(&["z"])).expect("save");
        assert_eq!(load(&path, "http://a"), set(&["x", "y"]));
        assert_eq!(load(&path, "http://b"), set(&["z"]));
        save(&path, "http://a", &set(&[])).expect("save");
        assert!(load(&path, "http://a").is_empty());
        assert_eq!(load(&path, "http://b"), set(&["z"]));
        std::fs::write(&path, "not json").expect("write");
        assert!(load(&path, "http://b").is_empty());
        save(&path, "http://b", &set(&["w"])).expect("replaced");
        assert_eq!(load(&path, "http://b"), set(&["w"]));
    }
}
