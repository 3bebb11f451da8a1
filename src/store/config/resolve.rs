//! The precedence: flags > environment > profile > top level > default, one key at a time,
//! each recording which layer supplied it.

use super::declare::{Key, Layered};
use super::file::{config_path, key_lines, parse};
use super::schema::{FileSettings, KEYS, Settings};
use super::token::{check_one_way, foreign_base_url, loose_permissions, resolve_token};
use super::{ConfigError, EnvLookup, Outside, Overrides, Source};
use std::path::PathBuf;

/// Loads and resolves everything.
pub fn resolve(overrides: &Overrides, env: EnvLookup<'_>) -> Result<Settings, ConfigError> {
    let (file, found, path, text) = load_with_text(overrides, env)?;
    let mut settings = resolve_from(file, found, path, overrides, env)?;
    let lines = key_lines(&text);
    let profile_keys = settings
        .profile
        .as_ref()
        .map(|p| format!("profiles.{p}.keys."));
    for action in settings.keys.keys() {
        let line = profile_keys
            .as_ref()
            .and_then(|p| lines.get(&format!("{p}{action}")))
            .or_else(|| lines.get(&format!("keys.{action}")));
        if let Some(&line) = line {
            settings.keys_lines.insert(action.clone(), line);
        }
    }
    // `[views.NAME]`'s fields, the profile's first: `NAME.key`, `NAME.filter`, and `NAME` for
    // the table's own line (its first field's).
    let profile_views = settings
        .profile
        .as_ref()
        .map(|p| format!("profiles.{p}.views."));
    for (dotted, &line) in &lines {
        let own = profile_views
            .as_ref()
            .and_then(|p| dotted.strip_prefix(p.as_str()));
        let Some(field) = own.or_else(|| dotted.strip_prefix("views.")) else {
            continue;
        };
        let name = field.rsplit_once('.').map_or(field, |(n, _)| n);
        let name = name.trim_matches('"').to_string();
        let first = settings.views_lines.entry(name.clone()).or_insert(line);
        *first = (*first).min(line);
        settings
            .views_lines
            .entry(field.replace('"', ""))
            .or_insert(line);
    }
    // An action's key is checked against the keymap's: its line is named as a `[keys]` one is.
    for (name, line) in super::actions::key_lines(&text, settings.profile.as_deref()) {
        settings.keys_lines.insert(format!("actions.{name}"), line);
    }
    Ok(settings)
}

/// The file in force, parsed (empty when the default file does not exist), whether it was
/// found, and its path.
fn load(
    overrides: &Overrides,
    env: EnvLookup<'_>,
) -> Result<(FileSettings, bool, PathBuf), ConfigError> {
    load_with_text(overrides, env).map(|(file, found, path, _)| (file, found, path))
}

/// [`load`], and the file's text, for what must name a line after parsing.
fn load_with_text(
    overrides: &Overrides,
    env: EnvLookup<'_>,
) -> Result<(FileSettings, bool, PathBuf, String), ConfigError> {
    let (path, explicit) = config_path(overrides, env);
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok((parse(&text, &path)?, true, path, text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !explicit => {
            Ok((FileSettings::default(), false, path, String::new()))
        }
        Err(e) => Err(ConfigError::Unreadable {
            path,
            source: std::sync::Arc::new(e),
        }),
    }
}

/// A service the file in force names: its top level's base URL, or a profile's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Configured {
    /// The profile whose settings reach it; `None` for the top level.
    pub profile: Option<String>,
    pub base_url: url::Url,
}

/// Every service the file in force names, the top level's first (its base URL is polled with
/// its own token, whichever profile is in force), then each profile's (its own base URL, else
/// the top level's); a level without a base URL names none.
pub fn configured_services(
    overrides: &Overrides,
    env: EnvLookup<'_>,
) -> Result<Vec<Configured>, ConfigError> {
    let (file, _, _) = load(overrides, env)?;
    let top = file.base_url.as_ref().map(|b| b.0.clone());
    let top_level = top.clone().map(|base_url| Configured {
        profile: None,
        base_url,
    });
    let profiles = file
        .profiles
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(name, p)| {
            Some(Configured {
                profile: Some(name),
                base_url: p.base_url.map(|b| b.0).or_else(|| top.clone())?,
            })
        });
    Ok(top_level.into_iter().chain(profiles).collect())
}

/// The names of the profiles in the file in force (`[profiles.NAME]`), in order.
pub fn profile_names(
    overrides: &Overrides,
    env: EnvLookup<'_>,
) -> Result<Vec<String>, ConfigError> {
    let (file, _, _) = load(overrides, env)?;
    Ok(file.profiles.unwrap_or_default().into_keys().collect())
}

/// The settings of the top level (`profile` `None`) or of a profile on its own, for polling
/// its tasks beside the current service's: the flags and variables that choose the current
/// service (its base URL, token and profile) do not apply to it.
pub fn resolve_service(
    overrides: &Overrides,
    env: EnvLookup<'_>,
    profile: Option<&str>,
) -> Result<Settings, ConfigError> {
    let own = Overrides {
        config: overrides.config.clone(),
        profile: profile.map(str::to_string),
        base_url: None,
    };
    let env_without_current = |key: &str| match key {
        "GENDASH_BASE_URL" | "GENDASH_TOKEN" | "GENDASH_PROFILE" => None,
        _ => env(key),
    };
    resolve(&own, &env_without_current)
}

/// The settings in force: each key of the declaration (`schema.rs`) through its layers, the
/// highest that sets it winning: flag > environment > profile > top level > default; then the
/// token (`token.rs`).
pub fn resolve_from(
    mut file: FileSettings,
    found: bool,
    path: PathBuf,
    overrides: &Overrides,
    env: EnvLookup<'_>,
) -> Result<Settings, ConfigError> {
    let profile_name = overrides.profile.clone().or_else(|| env("GENDASH_PROFILE"));
    let mut profiles = file.profiles.take().unwrap_or_default();
    let profile = match &profile_name {
        Some(name) => Some(
            profiles
                .remove(name)
                .ok_or_else(|| ConfigError::NoProfile {
                    path: path.clone(),
                    name: name.clone(),
                    known: profiles.keys().cloned().collect(),
                })?,
        ),
        None => None,
    };
    let profile_source = Source::Profile(profile_name.clone().unwrap_or_default());

    let mut settings = Settings::defaults();
    let levels = Levels {
        top: &file,
        profile: profile.as_ref().map(|p| (p, profile_source)),
    };
    for key in KEYS {
        if let Some(layers) = &key.layered {
            let source = through_layers(key, layers, &mut settings, &levels, overrides, env)?;
            settings.sources.insert(key.name, source);
        }
    }

    // Two ways to give the token at one level is a mistake in the file: an error as ever.
    check_one_way(&file, &path, "top level")?;
    if let (Some(p), Some(name)) = (profile.as_ref(), profile_name.as_deref()) {
        check_one_way(p, &path, &format!("profile {name}"))?;
    }
    // A token that cannot be read is said by whatever needs it; the other settings stand.
    let (token, token_origin, token_source, token_problem) = match resolve_token(
        env,
        profile.as_ref(),
        profile_name.as_deref(),
        &file,
        &path,
        &mut settings.warnings,
    ) {
        Ok((t, o, s)) => (t, o, s, None),
        Err(e) => (None, None, Source::Default, Some(e)),
    };
    // The level the token came from names the base URL it is for: the profile's own, else
    // the top level's (a profile inherits it).
    let configured = profile
        .as_ref()
        .and_then(|p| p.base_url.as_ref())
        .or(file.base_url.as_ref())
        .map(|b| &b.0);
    let foreign = settings.sources.get("base_url").and_then(|from| {
        foreign_base_url(
            &token_source,
            from,
            settings.base_url.as_ref(),
            configured,
            &path,
        )
    });
    // Withheld rather than refused: what needs no token (`config show`, `watch add`) still
    // works, and whatever needs it says why.
    let (token, token_origin, token_problem) = match foreign {
        Some(why) => (None, None, Some(why)),
        None => (token, token_origin, token_problem),
    };
    settings.sources.insert("token", token_source);

    if found
        && (file.token.is_some() || profile.as_ref().is_some_and(|p| p.token.is_some()))
        && let Some(w) = loose_permissions(&path)
    {
        settings.warnings.push(w);
    }

    settings.config_file = path;
    settings.config_file_found = found;
    settings.profile = profile_name;
    settings.token = token;
    settings.token_origin = token_origin;
    settings.token_problem = token_problem;
    Ok(settings)
}

/// The file's levels in force: the top level, and the chosen profile with its source.
struct Levels<'a> {
    top: &'a FileSettings,
    profile: Option<(&'a FileSettings, Source)>,
}

/// One key through its layers, the highest that sets it winning; which one did.
fn through_layers(
    key: &Key<Settings, FileSettings>,
    layers: &Layered<Settings, FileSettings>,
    settings: &mut Settings,
    levels: &Levels<'_>,
    overrides: &Overrides,
    env: EnvLookup<'_>,
) -> Result<Source, ConfigError> {
    // Outside the file: the flag, else the variable; only the one in force is read.
    let outside = key
        .flag
        .and_then(|f| {
            (layers.flag_value)(overrides).map(|v| (v, Outside::Flag(f), Source::Flag(f)))
        })
        .or_else(|| {
            key.env
                .and_then(|e| env(e).map(|v| (v, Outside::Env(e), Source::Env(e))))
        });
    if let (Some((text, given_by, source)), Some(take)) = (outside, layers.outside) {
        take(settings, &text).map_err(|problem| ConfigError::Outside { given_by, problem })?;
        return Ok(source);
    }
    // The file's levels from the bottom up: the profile's value replaces the top level's, or
    // adds its entries to them (`[keys]`, `[styles]`).
    let mut source = Source::Default;
    if (layers.level)(settings, levels.top) {
        source = Source::TopLevel;
    }
    if let Some((profile, profile_source)) = &levels.profile
        && (layers.level)(settings, profile)
    {
        source = profile_source.clone();
    }
    Ok(source)
}
