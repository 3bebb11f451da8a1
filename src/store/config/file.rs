//! The configuration file's parser (its format is declared in `schema.rs`; unknown keys are
//! errors), whose errors name the file, the line and the dotted key.

use super::schema::FileSettings;
use super::{ConfigError, EnvLookup, Overrides, Place};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file in force: `--config`, else `GENDASH_CONFIG`, else the platform default.
pub fn config_path(overrides: &Overrides, env: EnvLookup<'_>) -> (PathBuf, bool) {
    if let Some(p) = &overrides.config {
        return (p.clone(), true);
    }
    if let Some(p) = env("GENDASH_CONFIG") {
        return (PathBuf::from(p), true);
    }
    (crate::store::paths::default_config_file(), false)
}

/// Parses configuration text; errors name `path`, the line and the key.
pub fn parse(text: &str, path: &Path) -> Result<FileSettings, ConfigError> {
    let parsed: FileSettings = toml::from_str(text).map_err(|e| {
        let message = e.message().trim().to_string();
        let at = e.span().map(|span| {
            let at = span.start.min(text.len());
            Place {
                line: text[..at].matches('\n').count() + 1,
                // Unknown-key messages already name the key.
                key: key_at(text, at).filter(|key| {
                    !message.contains(&format!("`{}`", key.rsplit('.').next().unwrap_or(key)))
                }),
            }
        });
        ConfigError::Invalid {
            path: path.to_path_buf(),
            at,
            message: with_suggestion(&message),
        }
    })?;
    if let Some(profiles) = &parsed.profiles {
        for (name, p) in profiles {
            if p.profiles.is_some() {
                return Err(ConfigError::NestedProfiles {
                    path: path.to_path_buf(),
                    name: name.clone(),
                });
            }
        }
    }
    Ok(parsed)
}

/// The dotted key whose value is at byte `at`: the `key =` on that line, under the nearest
/// `[table]` header above it.
fn key_at(text: &str, at: usize) -> Option<String> {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("");
    let key = line.split_once('=')?.0.trim().trim_matches('"');
    if key.is_empty() || key.starts_with('[') {
        return None;
    }
    let table = text[..line_start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('[') && l.ends_with(']'))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_string());
    Some(match table {
        Some(t) if !t.is_empty() => format!("{t}.{key}"),
        _ => key.to_string(),
    })
}

/// serde's ``unknown field `x`, expected one of `a`, `b`…`` with the nearest known name
/// put first: ``unknown field `pol_interval` (did you mean `poll_interval`?), expected …``.
fn with_suggestion(message: &str) -> String {
    let Some(rest) = message
        .strip_prefix("unknown field `")
        .or_else(|| message.strip_prefix("unknown variant `"))
    else {
        return message.to_string();
    };
    let Some((unknown, known)) = rest.split_once('`') else {
        return message.to_string();
    };
    let names = known.split('`').skip(1).step_by(2);
    match nearest(unknown, names) {
        Some(name) => message.replacen(
            &format!("`{unknown}`"),
            &format!("`{unknown}` (did you mean `{name}`?)"),
            1,
        ),
        None => message.to_string(),
    }
}

/// The name closest to `typed` by edit distance, if close enough to be a slip.
pub fn nearest<'a>(typed: &str, names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let typed_lower = typed.to_lowercase();
    names
        .map(|n| (edit_distance(&typed_lower, &n.to_lowercase()), n))
        .filter(|(d, n)| *d <= (n.chars().count() / 3).max(2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

/// Levenshtein distance in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// The keys one level of the file takes, as `schema.rs` declares them.
pub fn declared_keys() -> &'static [&'static str] {
    super::schema::NAMES
}

/// The line of every `key = value` in `text`, by dotted key (`keys.open`,
/// `profiles.w.keys.open`), so a problem found after parsing can still name its line.
pub fn key_lines(text: &str) -> BTreeMap<String, usize> {
    let mut lines = BTreeMap::new();
    let mut table = String::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with('[') && line.ends_with(']') {
            table = line
                .trim_matches(|c| c == '[' || c == ']')
                .trim()
                .to_string();
        } else if let Some((key, _)) = line.split_once('=')
            && !line.starts_with('#')
        {
            let key = key.trim().trim_matches('"');
            let dotted = if table.is_empty() {
                key.to_string()
            } else {
                format!("{table}.{key}")
            };
            lines.entry(dotted).or_insert(n + 1);
        }
    }
    lines
}
