//! `gendash models --diff [--json]` against the reference service: what changed since the copy
//! the last load cached, and the cached copy updated as a normal load updates it.

use super::commands::{run_in, split};
use crate::common::{TOKEN, service};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The one cached catalogue file under `home` (the catalogue of every type and category).
fn cached_file(home: &Path) -> PathBuf {
    let dir = home.join(".cache/gendash/catalogues");
    let files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|f| f.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

/// Edits the cached copy as if the catalogue had been different when it was cached: the first
/// model was not listed yet, the second was rated 1.0 and had no license, and a model since
/// withdrawn was listed. Returns the first two names.
fn age_the_cache(home: &Path) -> (String, String) {
    let file = cached_file(home);
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let data = doc["data"].as_array_mut().expect("entries");
    let first = data.remove(0)["model"].as_str().unwrap().to_string();
    let second = &mut data[0];
    let name = second["model"].as_str().unwrap().to_string();
    let meta = second["metadata"].as_object_mut().unwrap();
    meta.insert("rating".into(), json!(1.0));
    meta.remove("license");
    data.push(json!({"model": "withdrawn_lora", "metadata": {"rating": 2.5}}));
    std::fs::write(&file, serde_json::to_vec(&doc).unwrap()).unwrap();
    (first, name)
}

#[tokio::test]
async fn models_diff_json_says_what_changed_since_the_cached_copy_and_caches_the_new() {
    let home = tempfile::tempdir().unwrap();
    let svc = service().await;
    let base = svc.base_url();
    let run = |args: &'static [&'static str]| run_in(home.path(), &base, TOKEN, args);

    // No cached copy yet: nothing to compare with, said on stderr; the copy is cached.
    let (code, out, err) = split(&run(&["models", "--diff", "--json"]).await);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        serde_json::from_str::<Value>(&out).unwrap(),
        json!({"new": [], "changed": [], "gone": [], "cached_at": null})
    );
    assert!(err.contains("nothing to compare with"), "{err}");

    let (first, second) = age_the_cache(home.path());
    let (code, out, err) = split(&run(&["models", "--diff", "--json"]).await);
    assert_eq!(code, 0, "{err}");
    let got: Value = serde_json::from_str(&out).unwrap();
    let served: Value = {
        let (_, all, _) = split(&run(&["models", "--json", "--offline"]).await);
        serde_json::from_str(&all).unwrap()
    };
    let meta = &served[1]["metadata"];
    assert_eq!(
        got,
        json!({
            "new": [first],
            "changed": [{"name": second, "changes": [
                {"field": "rating", "before": 1.0, "after": meta["rating"]},
                {"field": "license", "before": null, "after": meta["license"]},
            ]}],
            "gone": ["withdrawn_lora"],
            "cached_at": got["cached_at"],
        })
    );
    assert!(got["cached_at"].as_u64().is_some(), "{got}");
    assert!(
        err.starts_with("1 new · 1 changed · 1 gone since the copy cached"),
        "{err}"
    );

    // The fresh catalogue was cached as a load caches it: nothing changed since.
    let (code, out, err) = split(&run(&["models", "--diff"]).await);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "", "no change: nothing printed");
    assert!(err.starts_with("no change since the copy cached"), "{err}");

    // The text form, and --filter on it.
    age_the_cache(home.path());
    let (code, out, err) = split(&run(&["models", "--diff"]).await);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(lines[0], format!("+ {first}"));
    assert!(
        lines[1].starts_with(&format!("~ {second}  rating 1.0 → ")),
        "{out}"
    );
    assert!(lines[1].contains(" · license added: "), "{out}");
    assert_eq!(lines[2], "- withdrawn_lora");
    age_the_cache(home.path());
    let (code, out, _) = split(&run(&["models", "--diff", "--filter", "withdrawn"]).await);
    assert_eq!((code, out.as_str()), (0, "- withdrawn_lora\n"));
    // --offline reads without loading: there is nothing to compare.
    let (code, _, err) = split(&run(&["models", "--diff", "--offline"]).await);
    assert_eq!(code, 2, "{err}");
}
