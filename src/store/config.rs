//! Configuration: a TOML file with optional `[profiles.NAME]` tables, environment variables and
//! flags, resolved with the precedence flags > environment > profile > top level. Every
//! resolved value remembers where it came from, for `gendash config show`.

use crate::api::Secret;
use crate::api::client::DEFAULT_REQUEST_TIMEOUT;
use crate::api::types::default_failure_statuses;
use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;
use url::Url;

pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(2);
pub const DEFAULT_MAX_CONCURRENT_POLLS: usize = 8;

/// A positive number of seconds, at most a day; rejected at parse time so the error carries
/// the file's line and key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seconds(pub Duration);

impl Seconds {
    pub fn parse(text: &str) -> Result<Self, String> {
        let n: f64 = text
            .trim()
            .parse()
            .map_err(|_| format!("`{text}` is not a number of seconds"))?;
        Self::from_f64(n)
    }
    fn from_f64(n: f64) -> Result<Self, String> {
        if n.is_finite() && n > 0.0 && n <= 86_400.0 {
            Ok(Seconds(Duration::from_secs_f64(n)))
        } else {
            Err(format!("{n} is not between 0 and 86400 seconds"))
        }
    }
}

impl<'de> Deserialize<'de> for Seconds {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Seconds;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number of seconds")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Seconds, E> {
                Seconds::from_f64(v as f64).map_err(E::custom)
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Seconds, E> {
                Seconds::from_f64(v as f64).map_err(E::custom)
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Seconds, E> {
                Seconds::from_f64(v).map_err(E::custom)
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// A base URL, checked to be absolute when read.
#[derive(Debug, Clone, PartialEq)]
pub struct BaseUrl(pub Url);

impl BaseUrl {
    pub fn parse(text: &str) -> Result<Self, String> {
        let url =
            Url::parse(text.trim()).map_err(|e| format!("`{text}` is not an absolute URL: {e}"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!("`{text}` is not an http or https URL"));
        }
        Ok(BaseUrl(url))
    }
}

impl<'de> Deserialize<'de> for BaseUrl {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        BaseUrl::parse(&s).map_err(serde::de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for Secret {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Secret::new(String::deserialize(d)?))
    }
}

/// A program and its arguments, run without a shell: `["pass", "show", "gen"]` or a string
/// split on white space.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandSpec(pub Vec<String>);

impl<'de> Deserialize<'de> for CommandSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Vec<String>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a command: an array of strings, or a string split on white space")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Vec<String>, E> {
                Ok(v.split_whitespace().map(str::to_string).collect())
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Vec<String>, A::Error> {
                let mut argv = Vec::new();
                while let Some(arg) = seq.next_element::<String>()? {
                    argv.push(arg);
                }
                Ok(argv)
            }
        }
        let argv = d.deserialize_any(Visitor)?;
        if argv.first().is_none_or(String::is_empty) {
            return Err(serde::de::Error::custom("token_command names no program"));
        }
        Ok(CommandSpec(argv))
    }
}

/// One level of the file: the top level or a profile. Unknown keys are errors.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FileSettings {
    pub base_url: Option<BaseUrl>,
    pub token: Option<Secret>,
    pub token_file: Option<PathBuf>,
    pub token_command: Option<CommandSpec>,
    pub poll_interval: Option<Seconds>,
    pub request_timeout: Option<Seconds>,
    pub failure_statuses: Option<Vec<String>>,
    pub allow_insecure_http: Option<bool>,
    pub categories: Option<Vec<String>>,
    pub bell: Option<bool>,
    pub desktop_notifications: Option<bool>,
    pub max_concurrent_polls: Option<std::num::NonZeroUsize>,
    pub profiles: Option<BTreeMap<String, FileSettings>>,
}

/// Where a resolved value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Default,
    TopLevel,
    Profile(String),
    Env(&'static str),
    Flag(&'static str),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::TopLevel => f.write_str("config file"),
            Source::Profile(p) => write!(f, "profile {p}"),
            Source::Env(v) => write!(f, "environment {v}"),
            Source::Flag(v) => write!(f, "flag {v}"),
        }
    }
}

/// How the token was supplied, for `config show` (never the token itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenOrigin {
    Inline,
    File(PathBuf),
    Command(String),
}

/// What the command line contributes.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub config: Option<PathBuf>,
    pub profile: Option<String>,
    pub base_url: Option<String>,
}

/// The resolved settings.
// Each bool is an independent user-facing switch, not a state machine in disguise.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone)]
pub struct Settings {
    pub config_file: PathBuf,
    pub config_file_found: bool,
    pub profile: Option<String>,
    pub base_url: Option<Url>,
    pub token: Option<Secret>,
    pub token_origin: Option<TokenOrigin>,
    pub poll_interval: Duration,
    pub request_timeout: Duration,
    pub failure_statuses: Vec<String>,
    pub allow_insecure_http: bool,
    pub categories: Vec<String>,
    pub bell: bool,
    pub desktop_notifications: bool,
    pub max_concurrent_polls: usize,
    /// Key → where its value came from.
    pub sources: BTreeMap<&'static str, Source>,
    /// Things the user should know (loose file permissions), printed to stderr.
    pub warnings: Vec<String>,
}

/// A configuration problem, naming the file and, where known, the line and key.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

/// Reads the environment through a function, so tests need not touch the process's own.
pub type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The file in force: `--config`, else `GENDASH_CONFIG`, else the platform default.
pub fn config_path(overrides: &Overrides, env: EnvLookup<'_>) -> (PathBuf, bool) {
    if let Some(p) = &overrides.config {
        return (p.clone(), true);
    }
    if let Some(p) = env("GENDASH_CONFIG") {
        return (PathBuf::from(p), true);
    }
    (super::paths::default_config_file(), false)
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

/// Loads and resolves everything.
pub fn resolve(overrides: &Overrides, env: EnvLookup<'_>) -> Result<Settings, ConfigError> {
    let (path, explicit) = config_path(overrides, env);
    let (file, found) = match std::fs::read_to_string(&path) {
        Ok(text) => (parse(&text, &path)?, true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !explicit => {
            (FileSettings::default(), false)
        }
        Err(e) => return Err(ConfigError(format!("cannot read {}: {e}", path.display()))),
    };
    resolve_from(file, found, path, overrides, env)
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

    let (token, token_origin, token_source) = resolve_token(
        env,
        profile.as_ref(),
        profile_name.as_deref(),
        &file,
        &path,
        &mut warnings,
    )?;
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
        request_timeout,
        failure_statuses,
        allow_insecure_http,
        categories,
        bell,
        desktop_notifications,
        max_concurrent_polls,
        sources,
        warnings,
    })
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

/// The token: environment, then the profile's, then the top level's.
fn resolve_token(
    env: EnvLookup<'_>,
    profile: Option<&FileSettings>,
    profile_name: Option<&str>,
    file: &FileSettings,
    path: &Path,
    warnings: &mut Vec<String>,
) -> Result<(Option<Secret>, Option<TokenOrigin>, Source), ConfigError> {
    if let Some(t) = env("GENDASH_TOKEN") {
        return Ok((
            Some(Secret::new(t.trim())),
            Some(TokenOrigin::Inline),
            Source::Env("GENDASH_TOKEN"),
        ));
    }
    if let Some(p) = profile {
        let name = profile_name.unwrap_or_default();
        if let Some((t, origin)) = token_at_level(p, path, &format!("profile {name}"), warnings)? {
            return Ok((Some(t), Some(origin), Source::Profile(name.to_string())));
        }
    }
    if let Some((t, origin)) = token_at_level(file, path, "top level", warnings)? {
        return Ok((Some(t), Some(origin), Source::TopLevel));
    }
    // Last: the file `gendash config set-token` writes beside the config file.
    let default_file = default_token_file(path, profile_name);
    if let Ok(text) = std::fs::read_to_string(&default_file) {
        let token = text.lines().next().unwrap_or("").trim().to_string();
        if !token.is_empty() {
            if let Some(w) = loose_permissions(&default_file) {
                warnings.push(w);
            }
            return Ok((
                Some(Secret::new(token)),
                Some(TokenOrigin::File(default_file)),
                Source::Default,
            ));
        }
    }
    Ok((None, None, Source::Default))
}

/// Where `gendash config set-token` keeps the token: beside the config file, `token` or
/// `token-<profile>`.
pub fn default_token_file(config_file: &Path, profile: Option<&str>) -> PathBuf {
    let dir = config_file.parent().unwrap_or(Path::new("."));
    match profile {
        Some(p) => dir.join(format!("token-{p}")),
        None => dir.join("token"),
    }
}

/// Writes a token file readable by its owner only (0600), atomically: a temporary file created
/// with that mode from the start, synced, then renamed into place.
pub fn write_token_file(path: &Path, token: &Secret) -> std::io::Result<()> {
    super::atomic::write_atomic(
        path,
        format!("{}\n", token.expose()).as_bytes(),
        Some(0o600),
    )
}

/// The token a level supplies, if any; more than one way at one level is an error.
fn token_at_level(
    level: &FileSettings,
    path: &Path,
    what: &str,
    warnings: &mut Vec<String>,
) -> Result<Option<(Secret, TokenOrigin)>, ConfigError> {
    let ways = usize::from(level.token.is_some())
        + usize::from(level.token_file.is_some())
        + usize::from(level.token_command.is_some());
    if ways > 1 {
        return Err(ConfigError(format!(
            "{} ({what}): set only one of token, token_file, token_command",
            path.display()
        )));
    }
    if let Some(t) = &level.token {
        return Ok(Some((t.clone(), TokenOrigin::Inline)));
    }
    if let Some(file) = &level.token_file {
        let file = expand_home(file);
        let text = std::fs::read_to_string(&file)
            .map_err(|e| ConfigError(format!("cannot read token_file {}: {e}", file.display())))?;
        if let Some(w) = loose_permissions(&file) {
            warnings.push(w);
        }
        let token = text.lines().next().unwrap_or("").trim().to_string();
        if token.is_empty() {
            return Err(ConfigError(format!(
                "token_file {} is empty",
                file.display()
            )));
        }
        return Ok(Some((Secret::new(token), TokenOrigin::File(file))));
    }
    if let Some(cmd) = &level.token_command {
        return Ok(Some((
            run_token_command(cmd)?,
            TokenOrigin::Command(cmd.0.join(" ")),
        )));
    }
    Ok(None)
}

fn expand_home(p: &Path) -> PathBuf {
    match (p.strip_prefix("~"), directories::BaseDirs::new()) {
        (Ok(rest), Some(b)) => b.home_dir().join(rest),
        _ => p.to_path_buf(),
    }
}

/// Runs the token command directly (no shell) and takes the first line of its output.
fn run_token_command(cmd: &CommandSpec) -> Result<Secret, ConfigError> {
    let program = &cmd.0[0];
    let output = std::process::Command::new(program)
        .args(&cmd.0[1..])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| ConfigError(format!("token_command `{program}` could not run: {e}")))?;
    if !output.status.success() {
        return Err(ConfigError(format!(
            "token_command `{program}` failed ({})",
            output.status
        )));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let token = text.lines().next().unwrap_or("").trim().to_string();
    if token.is_empty() {
        return Err(ConfigError(format!(
            "token_command `{program}` printed no token"
        )));
    }
    Ok(Secret::new(token))
}

/// A warning when a file holding a token can be read by group or others.
#[cfg(unix)]
pub fn loose_permissions(path: &Path) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path).ok()?.permissions().mode();
    (mode & 0o077 != 0).then(|| {
        format!(
            "warning: {} holds a token but is readable by others (mode {:o}); run chmod 600 on it",
            path.display(),
            mode & 0o777
        )
    })
}

#[cfg(not(unix))]
pub fn loose_permissions(_path: &Path) -> Option<String> {
    None
}

impl Settings {
    /// The lines of `gendash config show`; the token appears only as `<redacted>`.
    pub fn describe(&self) -> Vec<String> {
        let src = |k: &str| {
            self.sources
                .get(k)
                .map_or_else(String::new, ToString::to_string)
        };
        let mut lines = vec![
            format!(
                "config file: {}{}",
                self.config_file.display(),
                if self.config_file_found {
                    ""
                } else {
                    " (not found)"
                }
            ),
            format!("profile: {}", self.profile.as_deref().unwrap_or("(none)")),
        ];
        let base = self
            .base_url
            .as_ref()
            .map_or_else(|| "(not set)".into(), ToString::to_string);
        let token = match (&self.token, &self.token_origin) {
            (None, _) => "(not set)".to_string(),
            (Some(_), Some(TokenOrigin::File(p))) => {
                format!("<redacted> (read from {})", p.display())
            }
            (Some(_), Some(TokenOrigin::Command(c))) => format!("<redacted> (printed by `{c}`)"),
            (Some(_), _) => "<redacted>".to_string(),
        };
        let rows: Vec<(&str, String)> = vec![
            ("base_url", base),
            ("token", token),
            (
                "poll_interval",
                format!("{}s", self.poll_interval.as_secs_f64()),
            ),
            (
                "request_timeout",
                format!("{}s", self.request_timeout.as_secs_f64()),
            ),
            ("failure_statuses", self.failure_statuses.join(", ")),
            ("allow_insecure_http", self.allow_insecure_http.to_string()),
            ("categories", self.categories.join(", ")),
            ("bell", self.bell.to_string()),
            (
                "desktop_notifications",
                self.desktop_notifications.to_string(),
            ),
            (
                "max_concurrent_polls",
                self.max_concurrent_polls.to_string(),
            ),
        ];
        for (k, v) in rows {
            lines.push(format!("{k:<22} = {v:<40}  # {}", src(k)));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| (*v).to_string())
        }
    }

    fn resolve_text(
        text: &str,
        o: &Overrides,
        env: EnvLookup<'_>,
    ) -> Result<Settings, ConfigError> {
        let path = PathBuf::from("/tmp/x/config.toml");
        resolve_from(parse(text, &path)?, true, path, o, env)
    }

    const FILE: &str = r#"
base_url = "https://top.example"
token = "top-token"
poll_interval = 3

[profiles.work]
base_url = "https://work.example/api/v1/"
request_timeout = 12.5
"#;

    #[test]
    fn precedence_flags_env_profile_top() {
        let none = env_of(&[]);
        let s = resolve_text(FILE, &Overrides::default(), &none).expect("ok");
        assert_eq!(s.base_url.expect("set").as_str(), "https://top.example/");
        assert_eq!(s.sources["base_url"], Source::TopLevel);
        assert_eq!(s.poll_interval, Duration::from_secs(3));

        let o = Overrides {
            profile: Some("work".into()),
            ..Overrides::default()
        };
        let s = resolve_text(FILE, &o, &none).expect("ok");
        assert_eq!(
            s.base_url.expect("set").as_str(),
            "https://work.example/api/v1/"
        );
        assert_eq!(s.request_timeout, Duration::from_secs_f64(12.5));
        assert_eq!(s.sources["token"], Source::TopLevel);

        let env = env_of(&[
            ("GENDASH_BASE_URL", "https://env.example"),
            ("GENDASH_TOKEN", "env-token"),
            ("GENDASH_PROFILE", "work"),
        ]);
        let s = resolve_text(FILE, &Overrides::default(), &env).expect("ok");
        assert_eq!(s.base_url.expect("set").as_str(), "https://env.example/");
        assert_eq!(s.token.expect("set").expose(), "env-token");
        assert_eq!(s.profile.as_deref(), Some("work"));

        let o = Overrides {
            base_url: Some("http://127.0.0.1:9/".into()),
            ..Overrides::default()
        };
        let s = resolve_text(FILE, &o, &env).expect("ok");
        assert_eq!(s.base_url.expect("set").as_str(), "http://127.0.0.1:9/");
        assert_eq!(s.sources["base_url"], Source::Flag("--base-url"));
    }

    #[test]
    fn unknown_keys_and_bad_values_name_line_and_key() {
        let path = PathBuf::from("/etc/g.toml");
        let e = parse(
            "base_url = \"https://x.example\"\npoll_intervall = 3\n",
            &path,
        )
        .expect_err("bad");
        assert!(e.0.contains("/etc/g.toml line 2"), "{e}");
        assert!(e.0.contains("poll_intervall"), "{e}");
        let e = parse("\n\npoll_interval = -1\n", &path).expect_err("bad");
        assert!(e.0.contains("line 3, key `poll_interval`"), "{e}");
        let e = parse(
            "bell = true\n[profiles.work]\nmax_concurrent_polls = \"many\"\n",
            &path,
        )
        .expect_err("bad");
        assert!(
            e.0.contains("line 3, key `profiles.work.max_concurrent_polls`"),
            "{e}"
        );
        let e = parse("[profiles.a]\nbase_url = \"ftp://x\"\n", &path).expect_err("bad");
        assert!(e.0.contains("line 2") && e.0.contains("http"), "{e}");
        let e = parse("[profiles.a]\nfoo = 1\n", &path).expect_err("bad");
        assert!(e.0.contains("foo"), "{e}");
    }

    #[test]
    fn unknown_profile_lists_known_ones() {
        let o = Overrides {
            profile: Some("nope".into()),
            ..Overrides::default()
        };
        let e = resolve_text(FILE, &o, &env_of(&[])).expect_err("bad");
        assert!(e.0.contains("known: work"), "{e}");
    }

    #[test]
    fn one_token_way_per_level_and_command_runs_without_shell() {
        let e = resolve_text(
            "token = \"a\"\ntoken_command = \"echo b\"\n",
            &Overrides::default(),
            &env_of(&[]),
        )
        .expect_err("bad");
        assert!(e.0.contains("only one of"), "{e}");
        let s = resolve_text(
            "token_command = [\"echo\", \"tok from cmd\", \"$HOME\"]\n",
            &Overrides::default(),
            &env_of(&[]),
        )
        .expect("ok");
        assert_eq!(s.token.expect("set").expose(), "tok from cmd $HOME");
    }

    #[test]
    fn show_never_prints_the_token() {
        let s = resolve_text(FILE, &Overrides::default(), &env_of(&[])).expect("ok");
        let text = s.describe().join("\n");
        assert!(!text.contains("top-token"));
        assert!(text.contains("<redacted>"));
        assert!(!format!("{s:?}").contains("top-token"));
    }

    #[test]
    fn deep_nesting_in_toml_is_an_error() {
        let text = format!("x = {}", "[".repeat(100_000));
        assert!(parse(&text, Path::new("/x")).is_err());
    }
}
