//! The configuration file: its schema (unknown keys are errors) and its parser, whose errors
//! name the file, the line and the dotted key.

use super::appearance::{KeysTable, StylesTable, ThemeName};
use super::values::{BaseUrl, CommandSpec, Hook, ImagePreview, PollSeconds, Seconds};
use super::{ConfigError, EnvLookup, Overrides};
use crate::api::Secret;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One level of the file: the top level or a profile. Unknown keys are errors.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FileSettings {
    pub base_url: Option<BaseUrl>,
    pub token: Option<Secret>,
    pub token_file: Option<PathBuf>,
    pub token_command: Option<CommandSpec>,
    pub poll_interval: Option<PollSeconds>,
    pub stall_after: Option<Seconds>,
    pub request_timeout: Option<Seconds>,
    pub failure_statuses: Option<Vec<String>>,
    pub allow_insecure_http: Option<bool>,
    pub categories: Option<Vec<String>>,
    pub bell: Option<bool>,
    pub on_complete: Option<Hook>,
    pub download_dir: Option<PathBuf>,
    pub download_template: Option<crate::api::download::Template>,
    pub auto_download: Option<bool>,
    pub desktop_notifications: Option<bool>,
    #[serde(default, deserialize_with = "super::values::at_least_one")]
    pub max_concurrent_polls: Option<std::num::NonZeroUsize>,
    pub image_preview: Option<ImagePreview>,
    pub theme: Option<ThemeName>,
    pub keys: Option<KeysTable>,
    pub styles: Option<StylesTable>,
    pub profiles: Option<BTreeMap<String, FileSettings>>,
}

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
        let location = e.span().map(|span| {
            let at = span.start.min(text.len());
            let line = text[..at].matches('\n').count() + 1;
            match key_at(text, at) {
                // Unknown-key messages already name the key.
                Some(key)
                    if !message
                        .contains(&format!("`{}`", key.rsplit('.').next().unwrap_or(&key))) =>
                {
                    format!(" line {line}, key `{key}`")
                }
                _ => format!(" line {line}"),
            }
        });
        ConfigError(format!(
            "{}{}: {}",
            path.display(),
            location.unwrap_or_default(),
            with_suggestion(&message)
        ))
    })?;
    if let Some(profiles) = &parsed.profiles {
        for (name, p) in profiles {
            if p.profiles.is_some() {
                return Err(ConfigError(format!(
                    "{}: profile `{name}` has its own `profiles` table; profiles do not nest",
                    path.display()
                )));
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

/// The keys one level of the file takes, as [`FileSettings`] declares them (serde hands a
/// struct's field names to the deserializer; this one only takes them).
pub fn declared_keys() -> &'static [&'static str] {
    struct FieldNames<'a>(&'a mut &'static [&'static str]);
    impl<'de> serde::Deserializer<'de> for FieldNames<'_> {
        type Error = serde::de::value::Error;
        fn deserialize_any<V: serde::de::Visitor<'de>>(
            self,
            _: V,
        ) -> Result<V::Value, Self::Error> {
            Err(serde::de::Error::custom("only the field names are read"))
        }
        fn deserialize_struct<V: serde::de::Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(serde::de::Error::custom("only the field names are read"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
    let mut fields: &'static [&'static str] = &[];
    let _ = FileSettings::deserialize(FieldNames(&mut fields));
    fields
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
