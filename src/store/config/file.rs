//! The configuration file: its schema (unknown keys are errors) and its parser, whose errors
//! name the file, the line and the dotted key.

use super::looks::{KeysTable, StylesTable, ThemeName};
use super::values::{BaseUrl, CommandSpec, Hook, ImagePreview, Seconds};
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
    pub poll_interval: Option<Seconds>,
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
            "{}{}: {message}",
            path.display(),
            location.unwrap_or_default()
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
