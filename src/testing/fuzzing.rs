//! The properties the fuzz targets check, in the library so that `cargo test` replays the
//! committed corpora through exactly the same code (see `fuzz/` and `tests/fuzz_corpora.rs`).
//! Each function panics when a property is broken.

use crate::api::links::validate_link;
use crate::api::sanitize::{MAX_CHARS, is_clean, sanitize};
use crate::api::types::{TaskKind, decode_catalogue, decode_task};
use serde_json::Value;

fn assert_clean_json(v: &Value) {
    match v {
        Value::String(s) => assert!(is_clean(s), "unclean string survived decoding: {s:?}"),
        Value::Array(a) => a.iter().for_each(assert_clean_json),
        Value::Object(o) => o.iter().for_each(|(k, v)| {
            assert!(is_clean(k), "unclean key survived decoding: {k:?}");
            assert_clean_json(v);
        }),
        _ => {}
    }
}

/// Catalogue decoding never panics; whatever it returns is clean.
pub fn catalogue(data: &[u8]) {
    if let Ok(c) = decode_catalogue(data) {
        for e in &c.entries {
            assert!(!e.model.trim().is_empty() && is_clean(&e.model));
            e.metadata().iter().for_each(|(k, v)| {
                assert!(is_clean(k));
                assert_clean_json(v);
            });
        }
    }
}

/// Task decoding never panics; a result has clean strings and a percent within 0..=100; the
/// fast reading, when it reads the answer at all, reads it as the tree does (or the tree
/// cannot parse it: a lone surrogate escaped in a field nobody reads).
pub fn task(data: &[u8]) {
    for kind in [TaskKind::Image, TaskKind::Video] {
        if let Some(fast) = crate::api::types::decode_task_fast(data, kind, "fuzz-id") {
            match crate::api::types::decode_task_tree(data, kind, "fuzz-id") {
                Ok(tree) => assert_eq!(fast, tree),
                Err(_) => assert!(serde_json::from_slice::<serde_json::Value>(data).is_err()),
            }
        }
        if let Ok(t) = decode_task(data, kind, "fuzz-id") {
            assert!(t.percent <= 100);
            assert!(is_clean(&t.status) && is_clean(&t.task_id));
            assert!(t.url_download.as_deref().is_none_or(is_clean));
        }
    }
}

/// The config parser never panics, on any text.
pub fn config(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = crate::store::config::parse(text, std::path::Path::new("fuzz.toml"));
    }
}

/// The sanitiser is idempotent, leaves no control or bidi character, keeps its bound, and
/// leaves short printable ASCII unchanged.
pub fn sanitizer(data: &[u8]) {
    let input = String::from_utf8_lossy(data);
    let once = sanitize(&input);
    assert_eq!(sanitize(&once), once, "not idempotent");
    assert!(is_clean(&once), "output not clean: {once:?}");
    assert!(once.chars().count() <= MAX_CHARS);
    if input.chars().count() <= MAX_CHARS && input.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        assert_eq!(once, input, "printable ASCII changed");
    }
}

/// The link validator accepts only http/https URLs with a host and no credentials.
pub fn url(data: &[u8]) {
    let input = String::from_utf8_lossy(data);
    if let Ok(u) = validate_link(&input) {
        assert!(
            matches!(u.scheme(), "http" | "https"),
            "accepted scheme {}",
            u.scheme()
        );
        assert!(u.host_str().is_some_and(|h| !h.is_empty()));
        assert!(u.username().is_empty() && u.password().is_none());
        assert!(is_clean(&input));
    }
}
