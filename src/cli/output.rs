//! Printing helpers: every line that carries server text is sanitised again on the way out, so
//! even a bug upstream cannot put an escape sequence on the user's terminal or in a pipe.

use crate::api::sanitize::{sanitize, sanitize_json};
use serde_json::Value;
use std::io::{IsTerminal, Write};

/// Prints one JSON value on its own line, all strings sanitised.
pub fn json_line(mut value: Value) {
    sanitize_json(&mut value);
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{value}");
    let _ = out.flush();
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
    eprintln!("gendash: error: {}", sanitize(text));
}

pub fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
}

/// Pads or cuts `s` to `width` display columns.
pub fn fit(s: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > width {
            if let Some(last) = out.pop() {
                used -= last.width().unwrap_or(0);
            }
            out.push('…');
            used += 1;
            break;
        }
        out.push(c);
        used += w;
    }
    out.push_str(&" ".repeat(width.saturating_sub(used)));
    out
}
