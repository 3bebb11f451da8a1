//! Printing helpers: every line that carries server text is sanitised again on the way out, so
//! even a bug upstream cannot put an escape sequence on the user's terminal or in a pipe.

use crate::api::sanitize::{sanitize, sanitize_json};
use serde_json::Value;
use std::io::{IsTerminal, Write};

/// Prints one JSON value on its own line, all strings sanitised.
pub fn json_line(value: Value) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", json_text(value));
    let _ = out.flush();
}

/// The text [`json_line`] prints: the value with every string, keys included, sanitised.
pub fn json_text(mut value: Value) -> String {
    sanitize_json(&mut value);
    value.to_string()
}

/// Prints a line of plain text, sanitised.
pub fn line(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", sanitize_line(text));
}

/// Sanitises a line while keeping it whole (the sanitiser's length bound is for fields).
pub fn sanitize_line(text: &str) -> String {
    crate::api::sanitize::sanitize_with_limit(text, 64 * 1024)
}

/// An error message on stderr.
pub fn error(text: &str) {
    eprintln!("{}", error_text(text));
}

/// A note on stderr: something went wrong but the command goes on (a retried request).
pub fn note(text: &str) {
    eprintln!("gendash: {}", sanitize(text));
}

/// The line [`error`] prints.
pub fn error_text(text: &str) -> String {
    format!("gendash: error: {}", sanitize(text))
}

pub fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Raw text as a hostile service could send it, had anything upstream let it through:
    /// 7-bit and 8-bit escape sequences, C1 controls, bidi overrides, BEL, CR, line breaks.
    const HOSTILE: &[&str] = &[
        "clear\u{1b}[2Jscreen",
        "title\u{1b}]0;pwned\u{7}",
        "link\u{1b}]8;;http://evil.example/\u{1b}\\text\u{1b}]8;;\u{1b}\\",
        "clip\u{1b}]52;c;ZXZpbA==\u{7}",
        "report\u{1b}[21t",
        "csi\u{9b}2J",
        "osc\u{9d}0;t\u{9c}",
        "dcs\u{1b}Pq#0\u{1b}\\",
        "c1\u{85}\u{8d}\u{9a}",
        "cr\roverwrite",
        "bell\u{7}",
        "rtl\u{202e}gpj.exe\u{2066}\u{200f}",
        "new\nline\ttab",
    ];

    /// What each of [`HOSTILE`] must become: its words, nothing that commands a terminal.
    const SHOWN: &[&str] = &[
        "clearscreen",
        "title",
        "linktext",
        "clip",
        "report",
        "csi",
        "osc",
        "dcs",
        "c1 ",
        "cr overwrite",
        "bell",
        "rtlgpj.exe",
        "new line tab",
    ];

    fn dangerous(c: char) -> bool {
        c.is_control()
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}')
    }

    #[test]
    fn lines_keep_the_words_and_lose_everything_else() {
        for (raw, shown) in HOSTILE.iter().zip(SHOWN) {
            let line = sanitize_line(raw);
            assert_eq!(&line, shown, "{raw:?}");
            assert!(!line.chars().any(dangerous), "{line:?}");
            assert_eq!(sanitize_line(&line), line, "a second pass changes nothing");
        }
        let all = sanitize_line(&HOSTILE.concat());
        assert_eq!(all, SHOWN.concat());
        // Lines are kept whole, well past a field's bound.
        let long = format!("{}\u{1b}[2J{}", "a".repeat(10_000), "b".repeat(10_000));
        let line = sanitize_line(&long);
        assert_eq!(line.len(), 20_000);
        assert!(!line.contains('\u{1b}'));
    }

    #[test]
    fn errors_are_one_clean_line() {
        let text = error_text(&HOSTILE.join("\n"));
        assert!(text.starts_with("gendash: error: clearscreen"), "{text}");
        assert!(!text.chars().any(dangerous), "{text:?}");
    }

    #[test]
    fn json_strings_and_keys_are_sanitised() {
        let value = json!({
            "list": HOSTILE,
            "nested": {"deeper": [{"s": HOSTILE.concat()}]},
            HOSTILE[0]: HOSTILE[1],
            HOSTILE[5]: 1,
        });
        let text = json_text(value);
        assert!(!text.chars().any(dangerous), "{text:?}");
        // Nor escaped: serde_json would write an ESC as \u001b, which a later `jq -r` undoes.
        for escaped in [
            "\\u001b", "\\u0007", "\\u009b", "\\u009d", "\\u0085", "\\r", "\\n", "\\t",
        ] {
            assert!(!text.contains(escaped), "{escaped} in {text}");
        }
        let back: Value = serde_json::from_str(&text).expect("still JSON");
        assert_eq!(back["list"], json!(SHOWN));
        assert_eq!(back["nested"]["deeper"][0]["s"], SHOWN.concat());
        assert_eq!(back["clearscreen"], "title");
        assert_eq!(back["csi"], 1);
    }
}
