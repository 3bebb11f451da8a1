//! The properties the fuzz targets check, in the library so that `cargo test` replays the
//! committed corpora through exactly the same code (see `fuzz/` and `tests/fuzz_corpora.rs`).
//! Each function panics when a property is broken.

use crate::api::links::validate_link;
use crate::api::sanitize::{MAX_CHARS, sanitize};
use crate::api::types::{TaskKind, decode_catalogue, decode_task};
use serde_json::Value;
use std::ops::RangeInclusive;

/// The characters no string from the service may keep, listed here, apart from the
/// sanitiser's own predicates, so that one it forgets is caught: the C0 controls (ESC, BEL,
/// CR, TAB and the rest), DEL and the C1 controls (CSI, OSC, ST among them); the bidi marks,
/// embeddings, overrides and isolates; and the invisible characters that can forge a layout.
pub const BAD_CHARS: [RangeInclusive<char>; 12] = [
    '\u{0}'..='\u{1F}',
    '\u{7F}'..='\u{9F}',
    // ARABIC LETTER MARK
    '\u{61C}'..='\u{61C}',
    // ZERO WIDTH SPACE
    '\u{200B}'..='\u{200B}',
    // LEFT-TO-RIGHT MARK, RIGHT-TO-LEFT MARK
    '\u{200E}'..='\u{200F}',
    // LINE and PARAGRAPH SEPARATOR
    '\u{2028}'..='\u{2029}',
    // LRE, RLE, PDF, LRO, RLO
    '\u{202A}'..='\u{202E}',
    // WORD JOINER and the invisible operators
    '\u{2060}'..='\u{2064}',
    // LRI, RLI, FSI, PDI
    '\u{2066}'..='\u{2069}',
    // the deprecated format characters
    '\u{206A}'..='\u{206F}',
    // BYTE ORDER MARK
    '\u{FEFF}'..='\u{FEFF}',
    // the interlinear annotation characters
    '\u{FFF9}'..='\u{FFFB}',
];

/// The first character of [`BAD_CHARS`] in `s`, if any.
pub fn bad_char(s: &str) -> Option<char> {
    s.chars().find(|c| BAD_CHARS.iter().any(|r| r.contains(c)))
}

/// Panics when `s` holds a character of [`BAD_CHARS`], naming it.
fn assert_clean(what: &str, s: &str) {
    if let Some(c) = bad_char(s) {
        panic!("{what} holds U+{:04X}: {s:?}", u32::from(c));
    }
}

fn assert_clean_json(v: &Value) {
    match v {
        Value::String(s) => assert_clean("a string after decoding", s),
        Value::Array(a) => a.iter().for_each(assert_clean_json),
        Value::Object(o) => o.iter().for_each(|(k, v)| {
            assert_clean("a key after decoding", k);
            assert_clean_json(v);
        }),
        _ => {}
    }
}

/// Catalogue decoding never panics; whatever it returns is clean.
pub fn catalogue(data: &[u8]) {
    if let Ok(c) = decode_catalogue(data) {
        for e in &c.entries {
            assert!(!e.model().trim().is_empty());
            assert_clean("a model's name", e.model());
            e.metadata().iter().for_each(|(k, v)| {
                assert_clean("a metadata key", k);
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
            assert_clean("a status", &t.status);
            assert_clean("a task ID", &t.task_id);
            assert_clean("a download URL", t.url_download.as_deref().unwrap_or(""));
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
    assert_clean("the sanitiser's output", &once);
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
        assert_clean("an accepted link", &input);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each listed character, alone between two letters, is gone after sanitising (ESC and the
    /// C1 introducers take the rest of the text with them, as the start of a sequence).
    #[test]
    fn every_listed_bad_character_is_stripped() {
        for c in BAD_CHARS.iter().flat_map(Clone::clone) {
            let out = sanitize(&format!("a{c}b"));
            assert_eq!(bad_char(&out), None, "U+{:04X} kept: {out:?}", u32::from(c));
            assert!(
                ["ab", "a b", "a"].contains(&out.as_str()),
                "U+{:04X}: {out:?}",
                u32::from(c)
            );
        }
        assert_eq!(sanitize("left\u{200E}to\u{200F}right"), "lefttoright");
    }

    /// The seed that holds every listed character passes the sanitiser's property.
    #[test]
    fn the_seed_of_every_bad_character_passes_the_property() {
        assert_eq!(bad_char("a\u{200E}b"), Some('\u{200E}'));
        assert_eq!(bad_char("ünïcødé 🎨 画像 \u{200D}"), None);
        let seed = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fuzz/seeds/sanitizer/every_bad_character"
        ))
        .expect("the seed");
        sanitizer(&seed);
    }
}
