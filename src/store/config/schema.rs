//! Every key of the configuration file, declared once: its type in the file and resolved, its
//! default, the flag and variable that may set it, how `config show` writes it, and the line
//! the manual gives it. From this come the file's format ([`FileSettings`]: what the parser
//! takes, and so the unknown-key error and its suggestion), the resolved [`Settings`], the
//! precedence (the loop in `resolve_from`), `config show` and the key list of
//! docs/configuration.md (`UPDATE_DOCS=1 cargo test --locked --lib config::` rewrites it).
//!
//! A key with a resolved type (`name: File => Resolved`) goes through the layers: flag >
//! environment > profile > top level > `default`. The others are resolved by hand: the
//! token's three ways in `token.rs`, and `profiles`, which chooses a level.

use super::actions::{ActionList, DEFAULT_ACTION_TIMEOUT, OwnAction};
use super::appearance::{KeyCombo, KeysTable, StylesTable, ThemeName};
use super::base16::{Base16, SchemeFile};
use super::declare::{Key, Layered, Show, call, call2, declare_keys};
use super::values::{BaseUrl, CommandSpec, Hook, ImagePreview, PollSeconds, Seconds, ValueError};
use super::view_table::{ConfiguredView, ViewsTable};
use super::{
    DEFAULT_MAX_CONCURRENT_POLLS, DEFAULT_MAX_POLL_INTERVAL, DEFAULT_POLL_INTERVAL,
    DEFAULT_STALL_AFTER, Source, TokenOrigin,
};
use crate::api::Secret;
use crate::api::client::{CATALOGUE_CAP, CatalogueCap, DEFAULT_REQUEST_TIMEOUT};
use crate::api::download::Template;
use crate::api::prompt::{DEFAULT_WEIGHT, LoraWeight, PromptSettings, PromptTemplate};
use crate::api::types::default_failure_statuses;
use ratatui::style::Style;
use serde::de::{self, Deserialize, Deserializer};
use std::collections::BTreeMap;
use std::num::{NonZeroU64, NonZeroUsize};
use std::path::{Path, PathBuf};
use std::time::Duration;
use url::Url;

declare_keys! {
    /// The resolved settings: every key below that goes through the layers, and these.
    // Each bool is an independent user-facing switch, not a state machine in disguise.
    #[allow(clippy::struct_excessive_bools)]
    pub struct Settings {
        pub config_file: PathBuf,
        pub config_file_found: bool,
        pub profile: Option<String>,
        pub token: Option<Secret>,
        pub token_origin: Option<TokenOrigin>,
        /// Why no token could be read (a `token_file` that is missing, a failing
        /// `token_command`): said by whatever needs the token, and by `config show`.
        pub token_problem: Option<super::ConfigError>,
        /// `[keys]` action name → the line of the config file that binds it, so an error found
        /// when the keymap is built names the line.
        pub keys_lines: BTreeMap<String, usize>,
        /// `[views.NAME]` → the line of its table (or of its `key`, `filter`), by
        /// `NAME.field`, for errors found when the views are checked (`app::views`).
        pub views_lines: BTreeMap<String, usize>,
        /// Key → where its value came from.
        pub sources: BTreeMap<&'static str, Source>,
        /// Things the user should know (loose file permissions), printed to stderr.
        pub warnings: Vec<String>,
    }

    /// One level of the file: the top level or a profile. Unknown keys are errors.
    pub struct FileSettings;

    keys {
        /// The service's address, http or https; it may carry a path prefix (`/api/v1`).
        base_url: BaseUrl => Option<Url> {
            default: None,
            read: |b| Some(b.0),
            flag: "--base-url" = |o| o.base_url.clone(),
            env: "GENDASH_BASE_URL",
            parse: BaseUrl::parse,
            show: |v| v.as_ref().map_or_else(|| "(not set)".into(), ToString::to_string),
            kind: "URL",
        }
        /// The access token (`config show` writes `<redacted>`); one of `token`, `token_file`, `token_command` per level.
        token: Secret {
            env: "GENDASH_TOKEN",
            show: Show::Line(token_line),
            kind: "string",
            default_doc: "the file `config set-token` wrote, if any",
        }
        /// A file whose first line is the token (`~` is the home directory).
        token_file: PathBuf {
            show: Show::On("token"),
            kind: "path",
            default_doc: "(not set)",
        }
        /// A program that prints the token on its first line, run without a shell.
        token_command: CommandSpec {
            show: Show::On("token"),
            kind: "array of strings, or a string split on white space",
            default_doc: "(not set)",
        }
        /// Seconds between polls of a running task.
        poll_interval: PollSeconds => Duration {
            default: DEFAULT_POLL_INTERVAL,
            read: |s| s.0,
            show: seconds,
            kind: "number of seconds (at least 0.2)",
        }
        /// A running task whose percent has not moved this long is shown as stalled.
        stall_after: Seconds => Duration {
            default: DEFAULT_STALL_AFTER,
            read: |s| s.0,
            show: seconds,
            kind: "number of seconds (at least 1)",
        }
        /// Seconds for a whole request (connecting is capped at 5 s).
        request_timeout: Seconds => Duration {
            default: DEFAULT_REQUEST_TIMEOUT,
            read: |s| s.0,
            env: "GENDASH_REQUEST_TIMEOUT",
            parse: Seconds::parse,
            show: seconds,
            kind: "number of seconds (at least 1)",
        }
        /// The largest catalogue answer read, in MiB (streamed, never held whole; 1,000,000 entries are about 360 MiB).
        #[serde(default, deserialize_with = "at_least_one_mib")]
        max_catalogue_mib: NonZeroU64 => u64 {
            default: CATALOGUE_CAP / MIB,
            read: NonZeroU64::get,
            show: ToString::to_string,
            kind: "integer (at least 1)",
        }
        /// The task statuses that mean it failed.
        failure_statuses: Vec<String> => Vec<String> {
            default: default_failure_statuses(),
            show: |v| v.join(", "),
            kind: "array of strings",
        }
        /// Accept plain http for addresses other than loopback ones.
        allow_insecure_http: bool => bool {
            default: false,
            show: ToString::to_string,
            kind: "boolean",
        }
        /// Offered for quick picking in the browser's category field.
        categories: Vec<String> => Vec<String> {
            default: Vec::new(),
            show: |v| v.join(", "),
            kind: "array of strings",
            default_doc: "(none)",
        }
        /// The browser's copy-prompt key and `models --prompt` write each model as this: `{model}`, `{weight}`, `{trigger_words}`, any metadata field (`{base_model}`, `{meta.NAME}`).
        prompt_template: PromptTemplate => PromptTemplate {
            default: PromptTemplate::default(),
            show: |v| v.as_str().to_string(),
            kind: "template",
        }
        /// `{weight}` for a model whose entry has no `recommended_weight`.
        lora_weight: LoraWeight => f64 {
            default: DEFAULT_WEIGHT,
            read: |w| w.0,
            show: ToString::to_string,
            kind: "number",
        }
        /// Ring the terminal bell when a watched task finishes.
        bell: bool => bool {
            default: true,
            show: ToString::to_string,
            kind: "boolean",
        }
        /// A program and its arguments, run without a shell when a watched task finishes.
        on_complete: Hook => Option<Vec<String>> {
            default: None,
            read: |h| Some(h.0),
            show: |v| v.as_ref().map_or_else(|| "(none)".to_string(), |argv| format!("{argv:?}")),
            kind: "array of strings, with placeholders",
        }
        /// Where downloads go (`~` is the home directory; created on first use).
        download_dir: PathBuf => PathBuf {
            default: default_download_dir(),
            read: |d| expand_home(&d),
            show: |v| v.display().to_string(),
            kind: "path",
            default_doc: "the platform's download directory, else the current one",
        }
        /// The saved file's path inside `download_dir`.
        download_template: Template => Template {
            default: Template::default(),
            show: |v| v.as_str().to_string(),
            kind: "template",
        }
        /// Fetch each watched task's file once when it completes.
        auto_download: bool => bool {
            default: false,
            show: ToString::to_string,
            kind: "boolean",
        }
        /// Send an OSC 9 / OSC 777 desktop notification when a watched task finishes.
        desktop_notifications: bool => bool {
            default: true,
            show: ToString::to_string,
            kind: "boolean",
        }
        /// The ceiling of the task requests in flight at once: the limit adapts between 1 and this to the service's answers (latency, 429, 5xx).
        #[serde(default, deserialize_with = "super::values::at_least_one")]
        max_concurrent_polls: NonZeroUsize => usize {
            default: DEFAULT_MAX_CONCURRENT_POLLS,
            read: NonZeroUsize::get,
            show: ToString::to_string,
            kind: "integer (at least 1)",
        }
        /// Poll each running task as often as it needs (on screen, ETA near: every `poll_interval`; ETA far, queued, stalled: less often); `false` polls every `poll_interval`.
        adaptive_polling: bool => bool {
            default: true,
            show: ToString::to_string,
            kind: "boolean",
        }
        /// The longest wait between two polls of a running task with `adaptive_polling`.
        max_poll_interval: PollSeconds => Duration {
            default: DEFAULT_MAX_POLL_INTERVAL,
            read: |s| s.0,
            show: seconds,
            kind: "number of seconds (at least 0.2)",
        }
        /// How the details show a finished image task's picture.
        image_preview: ImagePreview => ImagePreview {
            default: ImagePreview::Auto,
            show: |v| v.name().to_string(),
            kind: "string",
            values: &ImagePreview::NAMES,
        }
        /// The palette; `auto` asks the terminal its background after the first frame (dark until it answers).
        theme: ThemeName => ThemeName {
            default: ThemeName::Auto,
            show: |v| v.name().to_string(),
            kind: "string",
            values: &ThemeName::NAMES,
        }
        /// A base16 (tinted-theming) scheme file whose colours are the palette in place of `theme`'s (`~` is the home directory).
        theme_file: SchemeFile => Option<Base16> {
            default: None,
            read: |f| Some(f.0),
            show: |v| v.as_ref().map_or_else(|| "(not set)".into(), |s| s.path.display().to_string()),
            kind: "path",
            default_doc: "(not set)",
        }
        /// `[keys]`: action name = its keys; a profile's rebind on top of the top level's.
        keys: KeysTable => BTreeMap<String, Vec<KeyCombo>> {
            default: BTreeMap::new(),
            merge: |keys, table| {
                for (action, list) in &table.0 {
                    keys.insert(action.clone(), list.0.clone());
                }
            },
            show: keys_line,
            kind: "table",
        }
        /// `[styles]`: style name = style; a profile's add to the top level's.
        styles: StylesTable => BTreeMap<String, Style> {
            default: BTreeMap::new(),
            merge: |styles, table| {
                for (name, spec) in &table.0 {
                    styles.insert(name.clone(), spec.0);
                }
            },
            show: |v| {
                if v.is_empty() {
                    "(the theme's)".to_string()
                } else {
                    v.keys().cloned().collect::<Vec<_>>().join(", ")
                }
            },
            kind: "table",
        }
        /// Show the watch list's progress in the terminal's tab or taskbar (OSC 9;4).
        terminal_progress: bool => bool {
            default: true,
            show: ToString::to_string,
            kind: "boolean",
        }
        /// Set the window title to the watch list's progress (`gendash · 5/8 · 62%`).
        set_title: bool => bool {
            default: true,
            show: ToString::to_string,
            kind: "boolean",
        }
        /// Wrap each frame in synchronized output (DEC mode 2026) where the terminal says it supports it.
        synchronized_output: bool => bool {
            default: true,
            show: ToString::to_string,
            kind: "boolean",
        }
        /// Which finishes are told (notification and bell), and how.
        notify: NotifyPolicy => NotifyPolicy {
            default: NotifyPolicy::Each,
            show: |v| v.name().to_string(),
            kind: "string",
            values: &NotifyPolicy::NAMES,
        }
        /// Tell once when a running task stalls.
        notify_on_stall: bool => bool {
            default: true,
            show: ToString::to_string,
            kind: "boolean",
        }
        /// A program and its arguments, run without a shell when the last running task finishes.
        on_all_done: AllDoneHook => Option<Vec<String>> {
            default: None,
            read: |h| Some(h.0),
            show: |v| v.as_ref().map_or_else(|| "(none)".to_string(), |argv| format!("{argv:?}")),
            kind: "array of strings, with placeholders",
        }
        /// `[[actions]]`: your own commands on keys: `name`, `key`, `scope` (`browser`, `watch`, `archive`, or a list), `command` (run without a shell; `{files}`, `{task_ids}`, `{models}` run it once with every row), `confirm`; a profile's replace those of the same name.
        actions: ActionList => Vec<OwnAction> {
            default: Vec::new(),
            merge: |list, level| super::actions::merge(list, &level.0),
            show: |v| {
                if v.is_empty() {
                    "(none)".to_string()
                } else {
                    v.iter().map(|a| a.name.as_str()).collect::<Vec<_>>().join(", ")
                }
            },
            kind: "array of tables",
        }
        /// An action still running after this long is stopped.
        action_timeout: Seconds => Duration {
            default: DEFAULT_ACTION_TIMEOUT,
            read: |s| s.0,
            show: seconds,
            kind: "number of seconds (at least 1)",
        }
        /// Move finished tasks from the watch list to the archive this many days after they finished (0: never).
        archive_after: ArchiveAfter => Option<Duration> {
            default: None,
            read: |d| d.0,
            show: |v| v.map_or_else(|| "off".to_string(), |d| format!("{} days", d.as_secs_f64() / 86_400.0)),
            kind: "number of days (0 is off)",
        }
        /// `[profiles.NAME]`: levels of their own, chosen with `--profile` or `GENDASH_PROFILE`.
        profiles: BTreeMap<String, FileSettings> {
            show: Show::On("profile"),
            kind: "tables",
            default_doc: "(none)",
        }
        /// `[views.NAME]`: a pane's filter (`sort:` terms included), type and category under a name, and maybe a `key`; a profile's add to the top level's.
        views: ViewsTable => BTreeMap<String, ConfiguredView> {
            default: BTreeMap::new(),
            merge: |views, table| {
                for (name, view) in &table.0 {
                    views.insert(name.clone(), view.clone());
                }
            },
            show: |v| {
                if v.is_empty() {
                    "(none)".to_string()
                } else {
                    v.keys().cloned().collect::<Vec<_>>().join(", ")
                }
            },
            kind: "tables",
        }
        /// Write `<file>.json` beside each saved file: the task, its service (never the token), its times, the file's SHA-256.
        sidecar: bool => bool {
            default: false,
            show: ToString::to_string,
            kind: "boolean",
        }
    }
}

/// The key that sets the catalogue's cap, as its refusal names it.
pub const CATALOGUE_CAP_KEY: &str = "max_catalogue_mib";

const MIB: u64 = 1024 * 1024;

impl Settings {
    /// What builds the prompts: `prompt_template` and `lora_weight`.
    pub fn prompt(&self) -> PromptSettings {
        PromptSettings {
            template: self.prompt_template.clone(),
            weight: self.lora_weight,
        }
    }

    /// The client's catalogue cap: `max_catalogue_mib`, named in the error of an answer over it.
    pub fn catalogue_cap(&self) -> CatalogueCap {
        CatalogueCap {
            bytes: self.max_catalogue_mib.saturating_mul(MIB),
            setting: Some(CATALOGUE_CAP_KEY),
        }
    }
}

/// `max_catalogue_mib`: at least 1, said plainly (serde's words for a zero `NonZeroU64` name a
/// Rust type).
fn at_least_one_mib<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<NonZeroU64>, D::Error> {
    let n = <i64 as serde::Deserialize>::deserialize(d)?;
    u64::try_from(n)
        .ok()
        .and_then(NonZeroU64::new)
        .map(Some)
        .ok_or_else(|| {
            serde::de::Error::custom(format!("{n} is too small: it must be at least 1 (MiB)"))
        })
}

fn seconds(d: &Duration) -> String {
    format!("{}s", d.as_secs_f64())
}

/// `[keys]` on one line: `open = enter o, quit = x`.
fn keys_line(keys: &BTreeMap<String, Vec<KeyCombo>>) -> String {
    if keys.is_empty() {
        return "(built in; gendash keys lists them)".to_string();
    }
    keys.iter()
        .map(|(action, keys)| {
            let keys: Vec<String> = keys.iter().map(ToString::to_string).collect();
            format!("{action} = {}", keys.join(" "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The token's line: never the token itself; where it was read from, or why it could not be.
fn token_line(s: &Settings) -> String {
    match (&s.token, &s.token_origin) {
        (None, _) if s.token_problem.is_some() => {
            format!(
                "(unreadable: {})",
                s.token_problem
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default()
            )
        }
        (None, _) => "(not set)".to_string(),
        (Some(_), Some(TokenOrigin::File(p))) => {
            format!("<redacted> (read from {})", p.display())
        }
        (Some(_), Some(TokenOrigin::Command(c))) => format!("<redacted> (printed by `{c}`)"),
        (Some(_), _) => "<redacted>".to_string(),
    }
}

/// The platform's download directory, else the current one.
fn default_download_dir() -> PathBuf {
    directories::UserDirs::new()
        .and_then(|u| u.download_dir().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("."))
}

impl<'de> Deserialize<'de> for SchemeFile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let path = expand_home(&PathBuf::deserialize(d)?);
        super::base16::read(&path)
            .map(SchemeFile)
            .map_err(de::Error::custom)
    }
}

/// `~` and `~/…` are the home directory's.
pub(super) fn expand_home(path: &Path) -> PathBuf {
    let home = || directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
    match path.strip_prefix("~") {
        Ok(rest) => home().map_or_else(|| path.to_path_buf(), |h| h.join(rest)),
        Err(_) => path.to_path_buf(),
    }
}

/// `notify`: which finishes are told, by a notification and the bell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NotifyPolicy {
    /// Each finish, those within a short window together.
    #[default]
    Each,
    /// Once, when the last running task finishes.
    Batch,
    /// Failed tasks only, those within a short window together.
    Failures,
    /// Never.
    Off,
}

impl NotifyPolicy {
    pub const NAMES: [&'static str; 4] = ["each", "batch", "failures", "off"];

    pub fn parse(text: &str) -> Result<Self, ValueError> {
        Ok(match text.trim().to_ascii_lowercase().as_str() {
            "each" => NotifyPolicy::Each,
            "batch" => NotifyPolicy::Batch,
            "failures" => NotifyPolicy::Failures,
            "off" => NotifyPolicy::Off,
            _ => {
                return Err(ValueError::NotOneOf {
                    text: text.to_string(),
                    names: &Self::NAMES,
                });
            }
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            NotifyPolicy::Each => "each",
            NotifyPolicy::Batch => "batch",
            NotifyPolicy::Failures => "failures",
            NotifyPolicy::Off => "off",
        }
    }
}

impl<'de> serde::Deserialize<'de> for NotifyPolicy {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = <String as serde::Deserialize>::deserialize(d)?;
        NotifyPolicy::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// `on_all_done`'s placeholders.
pub const ALL_DONE_PLACEHOLDERS: [&str; 3] = ["completed", "failed", "count"];

/// `on_all_done`: a program and its arguments, run without a shell when the last running task
/// finishes; its placeholders are checked here, so a typo is an error that names the line.
#[derive(Debug, Clone, PartialEq)]
pub struct AllDoneHook(pub Vec<String>);

impl<'de> serde::Deserialize<'de> for AllDoneHook {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let argv = <Vec<String> as serde::Deserialize>::deserialize(d)?;
        super::values::check_hook("on_all_done", &argv, &ALL_DONE_PLACEHOLDERS)
            .map_err(serde::de::Error::custom)?;
        Ok(AllDoneHook(argv))
    }
}

/// `archive_after`: a number of days, at most ten years; 0 is off.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArchiveAfter(pub Option<Duration>);

impl ArchiveAfter {
    /// The longest wait, in days.
    pub const MAX_DAYS: f64 = 3650.0;

    fn from_days(days: f64) -> Result<Self, ValueError> {
        if days.is_nan() || days < 0.0 {
            return Err(ValueError::NotDays(days));
        }
        if days > Self::MAX_DAYS {
            return Err(ValueError::TooManyDays {
                days,
                max: Self::MAX_DAYS,
            });
        }
        Ok(ArchiveAfter(
            (days > 0.0).then(|| Duration::from_secs_f64(days * 86_400.0)),
        ))
    }
}

impl<'de> serde::Deserialize<'de> for ArchiveAfter {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = ArchiveAfter;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number of days")
            }
            #[allow(clippy::cast_precision_loss)]
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<ArchiveAfter, E> {
                ArchiveAfter::from_days(v as f64).map_err(E::custom)
            }
            #[allow(clippy::cast_precision_loss)]
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<ArchiveAfter, E> {
                ArchiveAfter::from_days(v as f64).map_err(E::custom)
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<ArchiveAfter, E> {
                ArchiveAfter::from_days(v).map_err(E::custom)
            }
        }
        d.deserialize_any(Visitor)
    }
}
