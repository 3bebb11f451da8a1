//! `theme_file`: a base16 (tinted-theming) scheme, read when the config is. Both forms of the
//! file are taken: the classic one (`scheme: "…"`, `author: "…"`, then `base00: "181818"` …
//! `base0F` at the top level) and tinted-theming's (`system: "base16"`, `name: "…"`,
//! `variant: …`, and the colours under `palette:` as `"#181818"`). base24 files are base16
//! plus eight colours: their first sixteen are taken.
//!
//! These files are flat `key: "value"` lines, so a small reader of that subset is used, not a
//! YAML library: the maintained YAML crates are far larger than this (and `serde_yaml` is no
//! longer maintained), and the test build is kept lean. Anything beyond `key: value` lines
//! (one optional `palette:` block, comments, blank lines) is refused with its line.

use std::path::{Path, PathBuf};

/// The sixteen colours of a scheme, `base00` to `base0F`, as red, green, blue.
pub type Base16Colours = [(u8, u8, u8); 16];

/// A scheme read from its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base16 {
    /// The file, as the config named it (`~` expanded).
    pub path: PathBuf,
    /// Its `name` (or `scheme`), else the file's stem.
    pub name: String,
    pub colours: Base16Colours,
}

/// What is wrong in a scheme file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemeError {
    #[error("cannot read {}: {reason}", path.display())]
    Unreadable { path: PathBuf, reason: String },
    #[error("{} line {line}: {what}", path.display())]
    Line {
        path: PathBuf,
        line: usize,
        what: String,
    },
    #[error("{}: no {key} (a base16 scheme has base00 to base0F)", path.display())]
    Missing { path: PathBuf, key: String },
}

/// Reads the scheme at `path`.
pub fn read(path: &Path) -> Result<Base16, SchemeError> {
    let text = std::fs::read_to_string(path).map_err(|e| SchemeError::Unreadable {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    parse(path, &text)
}

/// The scheme `text` (the file `path`'s) says.
pub fn parse(path: &Path, text: &str) -> Result<Base16, SchemeError> {
    let at = |line: usize, what: String| SchemeError::Line {
        path: path.to_path_buf(),
        line,
        what,
    };
    let mut colours: [Option<(u8, u8, u8)>; 16] = [None; 16];
    let mut name = None;
    let mut in_palette = false;
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed == "---" {
            continue;
        }
        let indented = raw.starts_with([' ', '\t']);
        let Some((key, value)) = trimmed.split_once(':') else {
            return Err(at(line, format!("`{trimmed}` is not a `key: value` line")));
        };
        let key = key.trim().trim_matches(['"', '\'']);
        let value = unquote(value).map_err(|what| at(line, what))?;
        if !indented {
            in_palette = key == "palette" && value.is_empty();
        } else if !in_palette {
            return Err(at(line, format!("`{key}` is indented outside `palette:`")));
        }
        if let Some(i) = base_index(key) {
            if colours[i].is_some() {
                return Err(at(line, format!("{} is given twice", base_name(i))));
            }
            let rgb = hex(value).ok_or_else(|| {
                at(
                    line,
                    format!("{key}: `{value}` is not a colour (six hex digits, as \"#7cafc2\")"),
                )
            })?;
            colours[i] = Some(rgb);
            continue;
        }
        match key {
            "system" if !matches!(value, "base16" | "base24") => {
                return Err(at(
                    line,
                    format!("system `{value}` is not base16 (or base24)"),
                ));
            }
            "scheme" | "name" if !indented && !value.is_empty() => {
                name = Some(value.to_string());
            }
            _ => {}
        }
    }
    let mut out = [(0, 0, 0); 16];
    for (i, c) in colours.iter().enumerate() {
        out[i] = c.ok_or_else(|| SchemeError::Missing {
            path: path.to_path_buf(),
            key: base_name(i),
        })?;
    }
    let name = name.unwrap_or_else(|| {
        path.file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
    });
    Ok(Base16 {
        path: path.to_path_buf(),
        name,
        colours: out,
    })
}

/// `base0D` (any case) → 13; `base10` and on (base24's) are not base16's.
fn base_index(key: &str) -> Option<usize> {
    let digit = key.strip_prefix("base")?.strip_prefix('0')?;
    (digit.len() == 1)
        .then(|| usize::from_str_radix(digit, 16).ok())
        .flatten()
}

fn base_name(i: usize) -> String {
    format!("base0{i:X}")
}

/// A value without its quotes and its trailing comment; an unquoted `#7cafc2` is a colour,
/// not a comment (what the file's author meant).
fn unquote(value: &str) -> Result<&str, String> {
    let value = value.trim();
    for q in ['"', '\''] {
        if let Some(rest) = value.strip_prefix(q) {
            let Some(end) = rest.find(q) else {
                return Err(format!("`{value}`: the quote is not closed"));
            };
            let after = rest[end + 1..].trim();
            if !after.is_empty() && !after.starts_with('#') {
                return Err(format!("`{value}`: text after the closing quote"));
            }
            return Ok(&rest[..end]);
        }
    }
    Ok(match value.find(" #") {
        Some(i) => value[..i].trim_end(),
        None => value,
    })
}

/// `"7cafc2"` or `"#7cafc2"` → its colour.
fn hex(value: &str) -> Option<(u8, u8, u8)> {
    let digits = value.strip_prefix('#').unwrap_or(value);
    if digits.len() != 6 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let byte = |i: usize| u8::from_str_radix(&digits[i..i + 2], 16).ok();
    Some((byte(0)?, byte(2)?, byte(4)?))
}

/// `theme_file` as the file writes it: a path (`~` is the home directory), read and checked
/// while the config is parsed (its `Deserialize` is beside the schema's `expand_home`), so a
/// bad scheme is refused with the config's line as well as its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemeFile(pub Base16);

#[cfg(test)]
#[path = "base16_tests.rs"]
mod tests;
