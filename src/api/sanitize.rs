//! The one sanitiser every server-supplied string passes through right after decoding.
//!
//! A terminal obeys escape sequences, so anything from the network must be inert before it
//! can reach a screen, a log file or a pipe: escape sequences are removed whole (not just their
//! introducer, which would leave `[2J` litter), remaining control characters and bidi overrides are
//! dropped, line breaks and tabs become spaces, and the length is bounded.

use serde_json::Value;

/// Longest string, in characters, that survives sanitising; longer ones end in `…`.
pub const MAX_CHARS: usize = 2048;

/// Where we are inside an escape sequence being skipped.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Skip {
    None,
    /// Just saw ESC; the next character decides the sequence type.
    Escape,
    /// Inside a CSI sequence: parameters until a final byte `@`..`~`.
    Csi,
    /// Inside a string sequence (OSC, DCS, SOS, PM, APC): until BEL or ST.
    Str,
    /// Inside a string sequence and just saw ESC: `\` ends it (ST).
    StrEscape,
    /// ESC followed by intermediate bytes (`nF` sequences): until a final byte.
    Intermediate,
}

/// Unicode characters that reorder or hide text: bidi embeddings, overrides, isolates and marks,
/// plus the byte-order mark and the invisible separators that can forge a layout.
fn is_bidi_or_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{061C}'
            | '\u{200B}'
            | '\u{200E}'
            | '\u{200F}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{206A}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
    )
}

/// Returns `s` with no control characters, no escape sequences, no bidi overrides and at most
/// [`MAX_CHARS`] characters. Idempotent; printable ASCII passes unchanged.
pub fn sanitize(s: &str) -> String {
    sanitize_with_limit(s, MAX_CHARS)
}

/// As [`sanitize`] with an explicit length bound (at least 1).
// One arm per state transition reads as the state table it is, even where bodies repeat.
#[allow(clippy::match_same_arms)]
pub fn sanitize_with_limit(s: &str, limit: usize) -> String {
    let limit = limit.max(1);
    // The usual case, printable ASCII within the bound, passes unchanged: one copy, no state.
    if s.len() <= limit && s.bytes().all(|b| matches!(b, b' '..=b'~')) {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len().min(limit * 4));
    let mut count = 0usize;
    let mut truncated = false;
    let mut skip = Skip::None;
    for c in s.chars() {
        skip = match (skip, c) {
            (Skip::None, '\u{1B}') => Skip::Escape,
            (Skip::None, '\u{9B}') => Skip::Csi,
            (Skip::None, '\u{90}' | '\u{98}' | '\u{9D}' | '\u{9E}' | '\u{9F}') => Skip::Str,
            (Skip::None, _) => {
                let mapped = match c {
                    '\t' | '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{85}' => Some(' '),
                    c if c.is_control() || is_bidi_or_invisible(c) => None,
                    c => Some(c),
                };
                if let Some(m) = mapped {
                    if count < limit {
                        out.push(m);
                        count += 1;
                    } else {
                        truncated = true;
                    }
                }
                Skip::None
            }
            (Skip::Escape, '[') => Skip::Csi,
            (Skip::Escape, ']' | 'P' | 'X' | '^' | '_') => Skip::Str,
            (Skip::Escape, '\u{20}'..='\u{2F}') => Skip::Intermediate,
            // A second ESC restarts; anything else is a two-character sequence, now consumed.
            (Skip::Escape, '\u{1B}') => Skip::Escape,
            (Skip::Escape, _) => Skip::None,
            (Skip::Csi, '\u{40}'..='\u{7E}') => Skip::None,
            (Skip::Csi, '\u{1B}') => Skip::Escape,
            // Parameters, intermediates, and anything odd inside CSI are swallowed.
            (Skip::Csi, _) => Skip::Csi,
            (Skip::Str, '\u{07}' | '\u{9C}') => Skip::None,
            (Skip::Str, '\u{1B}') => Skip::StrEscape,
            (Skip::Str, _) => Skip::Str,
            (Skip::StrEscape, '\\') => Skip::None,
            (Skip::StrEscape, '\u{1B}') => Skip::StrEscape,
            (Skip::StrEscape, _) => Skip::Str,
            (Skip::Intermediate, '\u{30}'..='\u{7E}') => Skip::None,
            (Skip::Intermediate, '\u{1B}') => Skip::Escape,
            (Skip::Intermediate, _) => Skip::Intermediate,
        };
    }
    if truncated {
        // Keep the bound exact so a second pass changes nothing.
        out.pop();
        out.push('…');
    }
    out
}

/// Sanitises every string inside a JSON value, keys included, in place.
pub fn sanitize_json(value: &mut Value) {
    match value {
        Value::String(s) => {
            if needs_work(s) {
                *s = sanitize(s);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(sanitize_json),
        Value::Object(map) => {
            let dirty_keys = map.keys().any(|k| needs_work(k));
            if dirty_keys {
                let old = std::mem::take(map);
                for (k, mut v) in old {
                    sanitize_json(&mut v);
                    map.insert(sanitize(&k), v);
                }
            } else {
                map.values_mut().for_each(sanitize_json);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Cheap pre-check so clean strings (nearly all of them) are not copied.
fn needs_work(s: &str) -> bool {
    s.chars().count() > MAX_CHARS
        || s.chars()
            .any(|c| c.is_control() || is_bidi_or_invisible(c) || c == '\u{1B}')
}

/// True when `s` is already what [`sanitize`] would make of it.
pub fn is_clean(s: &str) -> bool {
    !needs_work(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_ascii_is_unchanged() {
        let s: String = (0x20u8..0x7F).map(char::from).collect();
        assert_eq!(sanitize(&s), s);
    }

    #[test]
    fn escape_sequences_are_removed_whole() {
        let cases = [
            ("a\u{1B}[2Jb", "ab"),
            ("a\u{1B}[31;1mred\u{1B}[0m", "ared"),
            ("x\u{1B}]0;evil title\u{07}y", "xy"),
            (
                "x\u{1B}]8;;http://evil\u{1B}\\link\u{1B}]8;;\u{1B}\\y",
                "xlinky",
            ),
            ("x\u{1B}]52;c;ZXZpbA==\u{07}y", "xy"),
            ("x\u{1B}[21ty", "xy"),
            ("x\u{9B}2Jy", "xy"),
            ("x\u{9D}0;t\u{9C}y", "xy"),
            ("x\u{1B}P1$qm\u{1B}\\y", "xy"),
            ("x\u{1B}(By", "xy"),
            ("x\u{1B}7y", "xy"),
        ];
        for (input, want) in cases {
            assert_eq!(sanitize(input), want, "input {input:?}");
        }
    }

    #[test]
    fn controls_and_bidi_are_dropped_and_breaks_become_spaces() {
        assert_eq!(sanitize("a\rb\nc\td"), "a b c d");
        assert_eq!(sanitize("bell\u{07}!"), "bell!");
        assert_eq!(sanitize("abc\u{202E}fed"), "abcfed");
        assert_eq!(sanitize("\u{2066}x\u{2069}"), "x");
        assert_eq!(sanitize("nul\0byte\u{7F}"), "nulbyte");
        assert_eq!(sanitize("ünïcødé 🎨 画像"), "ünïcødé 🎨 画像");
    }

    #[test]
    fn the_ascii_fast_path_lets_no_control_through_and_keeps_the_bound() {
        for b in (0u8..0x20).chain([0x7f]) {
            let s = format!("ab{}cd", char::from(b));
            let want = match b {
                b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => "ab cd",
                // ESC c is a sequence (a reset), removed whole.
                0x1b => "abd",
                _ => "abcd",
            };
            assert_eq!(sanitize(&s), want, "byte {b:#x}");
        }
        assert_eq!(sanitize_with_limit("abcd", 4), "abcd");
        assert_eq!(sanitize_with_limit("abcde", 4), "abc…");
    }

    #[test]
    fn length_is_bounded_and_idempotent() {
        let long = "x".repeat(10_000);
        let once = sanitize(&long);
        assert_eq!(once.chars().count(), MAX_CHARS);
        assert!(once.ends_with('…'));
        assert_eq!(sanitize(&once), once);
    }

    #[test]
    fn unterminated_sequences_swallow_the_rest() {
        assert_eq!(sanitize("ok\u{1B}]0;never ends"), "ok");
        assert_eq!(sanitize("ok\u{1B}"), "ok");
    }

    #[test]
    fn json_strings_and_keys_are_sanitised() {
        let mut v = serde_json::json!({"k\u{1B}[1m": ["a\u{1B}]0;x\u{07}b", 1], "n": null});
        sanitize_json(&mut v);
        assert_eq!(v, serde_json::json!({"k": ["ab", 1], "n": null}));
    }
}
