//! The precedence: flags > environment > profile > top level > default, one key at a time,
//! each recording which layer supplied it.

use super::file::{FileSettings, config_path, key_lines, parse};
use super::token::{check_one_way, loose_permissions, resolve_token};
use super::values::{BaseUrl, Seconds};
use super::{
    ConfigError, DEFAULT_MAX_CONCURRENT_POLLS, DEFAULT_POLL_INTERVAL, DEFAULT_STALL_AFTER,
    EnvLookup, Overrides, Settings, Source,
};
use crate::api::client::DEFAULT_REQUEST_TIMEOUT;
use crate::api::types::default_failure_statuses;
use std::collections::BTreeMap;
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
        Err(e) => Err(ConfigError(format!("cannot read {}: {e}", path.display()))),
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

// One resolution per key, read top to bottom; splitting it would hide the precedence.
#[allow(clippy::too_many_lines)]
pub fn resolve_from(
    mut file: FileSettings,
    found: bool,
    path: PathBuf,
    overrides: &Overrides,
    env: EnvLookup<'_>,
) -> Result<Settings, ConfigError> {
    let mut warnings = Vec::new();
    let profile_name = overrides.profile.clone().or_else(|| env("GENDASH_PROFILE"));
    let mut profiles = file.profiles.take().unwrap_or_default();
    let profile = match &profile_name {
        Some(name) => Some(profiles.remove(name).ok_or_else(|| {
            let known: Vec<_> = profiles.keys().map(String::as_str).collect();
            ConfigError(format!(
                "{}: no profile `{name}` (known: {})",
                path.display(),
                if known.is_empty() {
                    "none".into()
                } else {
                    known.join(", ")
                }
            ))
        })?),
        None => None,
    };
    let profile_source = || Source::Profile(profile_name.clone().unwrap_or_default());
    let mut sources = BTreeMap::new();

    let prof = profile.as_ref();
    let psrc = profile_source();

    let base_from_outside = match (&overrides.base_url, env("GENDASH_BASE_URL")) {
        (Some(flag), _) => Some((
            BaseUrl::parse(flag).map_err(|e| ConfigError(format!("--base-url: {e}")))?,
            Source::Flag("--base-url"),
        )),
        (None, Some(v)) => Some((
            BaseUrl::parse(&v).map_err(|e| ConfigError(format!("GENDASH_BASE_URL: {e}")))?,
            Source::Env("GENDASH_BASE_URL"),
        )),
        _ => None,
    };
    let base_url = Layer::at(&mut sources, "base_url", &psrc).opt(
        base_from_outside,
        prof.and_then(|p| p.base_url.clone()),
        file.base_url.clone(),
    );
    let timeout_env = match env("GENDASH_REQUEST_TIMEOUT") {
        Some(v) => Some((
            Seconds::parse(&v).map_err(|e| ConfigError(format!("GENDASH_REQUEST_TIMEOUT: {e}")))?,
            Source::Env("GENDASH_REQUEST_TIMEOUT"),
        )),
        None => None,
    };
    let request_timeout = Layer::at(&mut sources, "request_timeout", &psrc)
        .opt(
            timeout_env,
            prof.and_then(|p| p.request_timeout),
            file.request_timeout,
        )
        .map_or(DEFAULT_REQUEST_TIMEOUT, |s| s.0);
    let poll_interval = Layer::at(&mut sources, "poll_interval", &psrc)
        .opt(None, prof.and_then(|p| p.poll_interval), file.poll_interval)
        .map_or(DEFAULT_POLL_INTERVAL, |s| s.0);
    let stall_after = Layer::at(&mut sources, "stall_after", &psrc)
        .opt(None, prof.and_then(|p| p.stall_after), file.stall_after)
        .map_or(DEFAULT_STALL_AFTER, |s| s.0);
    let failure_statuses = Layer::at(&mut sources, "failure_statuses", &psrc)
        .opt(
            None,
            prof.and_then(|p| p.failure_statuses.clone()),
            file.failure_statuses.clone(),
        )
        .unwrap_or_else(default_failure_statuses);
    let allow_insecure_http = Layer::at(&mut sources, "allow_insecure_http", &psrc)
        .opt(
            None,
            prof.and_then(|p| p.allow_insecure_http),
            file.allow_insecure_http,
        )
        .unwrap_or(false);
    let categories = Layer::at(&mut sources, "categories", &psrc)
        .opt(
            None,
            prof.and_then(|p| p.categories.clone()),
            file.categories.clone(),
        )
        .unwrap_or_default();
    let on_complete = Layer::at(&mut sources, "on_complete", &psrc)
        .opt(
            None,
            prof.and_then(|p| p.on_complete.clone()),
            file.on_complete.clone(),
        )
        .map(|h| h.0);
    let download_dir = Layer::at(&mut sources, "download_dir", &psrc)
        .opt(
            None,
            prof.and_then(|p| p.download_dir.clone()),
            file.download_dir.clone(),
        )
        .map_or_else(default_download_dir, |d| expand_home(&d));
    let download_template = Layer::at(&mut sources, "download_template", &psrc)
        .opt(
            None,
            prof.and_then(|p| p.download_template.clone()),
            file.download_template.clone(),
        )
        .unwrap_or_default();
    let auto_download = Layer::at(&mut sources, "auto_download", &psrc)
        .opt(None, prof.and_then(|p| p.auto_download), file.auto_download)
        .unwrap_or(false);
    let bell = Layer::at(&mut sources, "bell", &psrc)
        .opt(None, prof.and_then(|p| p.bell), file.bell)
        .unwrap_or(true);
    let desktop_notifications = Layer::at(&mut sources, "desktop_notifications", &psrc)
        .opt(
            None,
            prof.and_then(|p| p.desktop_notifications),
            file.desktop_notifications,
        )
        .unwrap_or(true);
    let max_concurrent_polls = Layer::at(&mut sources, "max_concurrent_polls", &psrc)
        .opt(
            None,
            prof.and_then(|p| p.max_concurrent_polls),
            file.max_concurrent_polls,
        )
        .map_or(DEFAULT_MAX_CONCURRENT_POLLS, std::num::NonZeroUsize::get);
    let image_preview = Layer::at(&mut sources, "image_preview", &psrc)
        .opt(None, prof.and_then(|p| p.image_preview), file.image_preview)
        .unwrap_or_default();
    let theme = Layer::at(&mut sources, "theme", &psrc)
        .opt(None, prof.and_then(|p| p.theme), file.theme)
        .unwrap_or_default();
    // Entry by entry: a profile rebinds a few keys on top of the top level's.
    let mut keys = BTreeMap::new();
    let mut styles = BTreeMap::new();
    let has_keys: fn(&FileSettings) -> bool = |l| l.keys.is_some();
    let has_styles: fn(&FileSettings) -> bool = |l| l.styles.is_some();
    for (key, set) in [("keys", has_keys), ("styles", has_styles)] {
        let source = match (prof.is_some_and(set), set(&file)) {
            (true, _) => psrc.clone(),
            (false, true) => Source::TopLevel,
            (false, false) => Source::Default,
        };
        sources.insert(key, source);
    }
    for level in std::iter::once(&file).chain(prof) {
        for (name, list) in level.keys.iter().flat_map(|k| &k.0) {
            keys.insert(name.clone(), list.0.clone());
        }
        for (name, spec) in level.styles.iter().flat_map(|s| &s.0) {
            styles.insert(name.clone(), spec.0);
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
        &mut warnings,
    ) {
        Ok((t, o, s)) => (t, o, s, None),
        Err(e) => (None, None, Source::Default, Some(e.0)),
    };
    sources.insert("token", token_source);

    if found
        && (file.token.is_some() || profile.as_ref().is_some_and(|p| p.token.is_some()))
        && let Some(w) = loose_permissions(&path)
    {
        warnings.push(w);
    }

    Ok(Settings {
        config_file: path,
        config_file_found: found,
        profile: profile_name,
        base_url: base_url.map(|b| b.0),
        token,
        token_origin,
        poll_interval,
        stall_after,
        request_timeout,
        failure_statuses,
        allow_insecure_http,
        categories,
        bell,
        on_complete,
        download_dir,
        download_template,
        auto_download,
        desktop_notifications,
        max_concurrent_polls,
        token_problem,
        image_preview,
        theme,
        styles,
        keys,
        keys_lines: BTreeMap::new(),
        sources,
        warnings,
    })
}

/// The platform's download directory, else the current one.
fn default_download_dir() -> PathBuf {
    directories::UserDirs::new()
        .and_then(|u| u.download_dir().map(std::path::Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("."))
}

/// `~` and `~/…` are the home directory's.
fn expand_home(path: &std::path::Path) -> PathBuf {
    let home = || directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
    match path.strip_prefix("~") {
        Ok(rest) => home().map_or_else(|| path.to_path_buf(), |h| h.join(rest)),
        Err(_) => path.to_path_buf(),
    }
}

/// Resolves one key through the layers, recording which layer supplied it.
struct Layer<'a> {
    key: &'static str,
    sources: &'a mut BTreeMap<&'static str, Source>,
    profile: Source,
}

impl<'a> Layer<'a> {
    fn at(
        sources: &'a mut BTreeMap<&'static str, Source>,
        key: &'static str,
        profile: &Source,
    ) -> Self {
        Layer {
            key,
            sources,
            profile: profile.clone(),
        }
    }

    fn opt<T>(self, outside: Option<(T, Source)>, profile: Option<T>, top: Option<T>) -> Option<T> {
        let (value, source) = if let Some((v, s)) = outside {
            (Some(v), s)
        } else if let Some(v) = profile {
            (Some(v), self.profile)
        } else if let Some(v) = top {
            (Some(v), Source::TopLevel)
        } else {
            (None, Source::Default)
        };
        self.sources.insert(self.key, source);
        value
    }
}
