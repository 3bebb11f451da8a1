//! Reading the config again while the dashboard runs: on `SIGHUP`, on the reload key
//! (`Cmd::ReloadConfig`), and when the terminal says it has the focus again and the file
//! changed since it was last read (its modification time or size). The file is read and
//! validated by the code that runs at start (`config::resolve`, then `looks`); the App takes
//! the whole value (`State::reconfigure`) or, when it does not read, keeps the config in force
//! and says why (`State::reconfigure_refused`).
//!
//! The token is not read again (no `token_command` runs on a reload): the running client
//! keeps the one it started with, as it keeps its base URL.

use super::{LooksError, RunError, looks};
use crate::app::action::Action;
use crate::app::services::Services;
use crate::app::state::{Quit, Reconfigured, State};
use crate::cmd::Cmd;
use crate::store::config::{self, ConfigError, Configured, Overrides, Settings};
use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

/// The keys the running dashboard cannot take: its client (`base_url`, its timeout, its cap,
/// plain http), its pictures, the terminal's progress and title (set up once), the saver's
/// archiving, and the statuses the rows were read with. The others are applied (a key added
/// to the declaration is applied if what it feeds is derived from the settings).
pub const RESTART: &[&str] = &[
    "base_url",
    "request_timeout",
    "max_catalogue_mib",
    "allow_insecure_http",
    "image_preview",
    "terminal_progress",
    "set_title",
    "archive_after",
    "failure_statuses",
];

/// Why the config read again cannot be used; the running one stays in force.
#[derive(Debug, thiserror::Error)]
pub enum ReloadError {
    /// The file does not parse, or a value is wrong (the file and line are named).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// `[keys]` cannot be applied (the file and lines are named).
    #[error(transparent)]
    Looks(#[from] LooksError),
}

/// The configured services worked out again from the settings read again (their names, and
/// who polls each; the session's clients' maker follows).
pub type ServicesOf = Box<dyn Fn(&Settings) -> Result<Services, ConfigError> + Send>;

/// A change the session makes to the settings it runs with.
pub type Adjust = Box<dyn Fn(&mut Settings) + Send>;

/// The file's modification time and size when it was read; `None` when there was none.
type Stamp = Option<(Option<SystemTime>, u64)>;

fn stamp_of(path: &Path) -> Stamp {
    std::fs::metadata(path)
        .ok()
        .map(|m| (m.modified().ok(), m.len()))
}

/// What a reload needs: how the config was found at start and the settings in force.
pub struct Reloader {
    overrides: Overrides,
    no_color: bool,
    /// The settings at start, and as last read.
    start: Arc<Settings>,
    current: Arc<Settings>,
    /// The services the file named at start, and when it was last read (its profiles).
    start_services: Vec<Configured>,
    services: Vec<Configured>,
    /// The file as last read.
    stamp: Stamp,
    /// What the session changes in the settings it runs with (the demo keeps the user's
    /// hooks and download directory out), done to each reading too.
    adjust: Option<Adjust>,
    /// Works out the configured services again; `None` (the demo, one service) leaves a
    /// change of the profiles to a restart.
    pub services_of: Option<ServicesOf>,
    /// Standard input was a terminal at start: a `SIGHUP` when it no longer answers is the
    /// terminal hanging up, which ends the dashboard as before.
    had_terminal: bool,
}

impl Reloader {
    /// For a dashboard started with `settings`, found through `overrides`.
    pub fn new(
        settings: &Settings,
        overrides: Overrides,
        no_color: bool,
        adjust: Option<Adjust>,
    ) -> Self {
        let stamp = stamp_of(&settings.config_file);
        let services =
            profiles(config::configured_services(&overrides, &reload_env).unwrap_or_default());
        let start = Arc::new(settings.clone());
        Reloader {
            overrides,
            no_color,
            current: Arc::clone(&start),
            start,
            start_services: services.clone(),
            services,
            stamp,
            adjust,
            services_of: None,
            had_terminal: terminal_answers(),
        }
    }

    /// The file changed since it was last read (or appeared, or went).
    pub fn changed_on_disk(&self) -> bool {
        stamp_of(&self.current.config_file) != self.stamp
    }

    /// A `SIGHUP` came: the terminal hung up (the dashboard ends as it always did), or
    /// someone asks for a reload.
    pub fn hung_up(&self) -> bool {
        self.had_terminal && !terminal_answers()
    }

    /// `SIGHUP`: the terminal hung up (the dashboard ends, as ever), or a reload is asked for.
    pub fn on_sighup(&mut self, state: &mut State) -> Vec<Cmd> {
        if self.hung_up() {
            end_hung_up(state)
        } else {
            self.reload(state)
        }
    }

    /// Each second: a terminal gone without a `SIGHUP` (the kernel signals only the session's
    /// leader and its foreground group) ends the dashboard as a hang-up too. The input's end
    /// of file tells it at once; this catches a hang-up while the graphics question is out.
    pub fn on_tick(&self, state: &mut State) -> Vec<Cmd> {
        if self.hung_up() {
            end_hung_up(state)
        } else {
            Vec::new()
        }
    }

    /// What ended the dashboard: a terminal error (a frame written to the dead terminal) once
    /// the terminal hung up is that hang-up, ended as `end_hung_up` ends it, not a failure.
    pub fn or_hung_up(&self, outcome: Result<Quit, RunError>) -> Result<Quit, RunError> {
        match outcome {
            Err(RunError::Terminal(_)) if self.hung_up() => {
                let_go_of_terminal();
                Ok(Quit::Signal(signal_hook::consts::SIGHUP))
            }
            other => other,
        }
    }

    /// Reads and validates the file as at start, and tells the App: the config taken, or why
    /// not (also in the log).
    pub fn reload(&mut self, state: &mut State) -> Vec<Cmd> {
        match self.read() {
            Ok(new) => {
                tracing::info!(
                    "config reloaded from {}: changed {:?}, a restart takes {:?}",
                    self.current.config_file.display(),
                    new.changed,
                    new.restart
                );
                state.reconfigure(new)
            }
            Err(e) => {
                tracing::warn!("config not reloaded: {e}");
                let file = &self.current.config_file;
                state.reconfigure_refused(file, &from_home(e.to_string(), file))
            }
        }
    }

    /// The reload key's command, taken out of `cmds` and carried out here (it reads a file
    /// and validates `[keys]`, which no worker may do); the App's answer is added.
    pub fn take_requests(&mut self, cmds: &mut Vec<Cmd>, state: &mut State) {
        let before = cmds.len();
        cmds.retain(|c| !matches!(c, Cmd::ReloadConfig));
        if cmds.len() != before {
            let answer = self.reload(state);
            cmds.extend(answer);
        }
    }

    /// When the terminal has the focus again: reads the file only if it changed.
    pub fn on_focus(&mut self, state: &mut State) -> Vec<Cmd> {
        if self.changed_on_disk() {
            self.reload(state)
        } else {
            Vec::new()
        }
    }

    /// The file read again, validated, and compared with the settings last read (what
    /// changed) and with those of the start (what a restart would take).
    fn read(&mut self) -> Result<Reconfigured, ReloadError> {
        let stamp = stamp_of(&self.current.config_file);
        let result = self.validated();
        // Read, good or bad: the focus reads it again only once it changes again.
        self.stamp = stamp;
        let (mut settings, keymap, theme, services, configured) = result?;
        if let Some(adjust) = &self.adjust {
            adjust(&mut settings);
        }
        let mut changed = self.current.changed(&settings);
        if services != self.services {
            changed.push("profiles");
        }
        let mut restart: Vec<&'static str> = self
            .start
            .changed(&settings)
            .into_iter()
            .filter(|k| RESTART.contains(k))
            .collect();
        // Without a way to make the other services' clients again, they are the start's.
        if self.services_of.is_none() && services != self.start_services {
            restart.push("profiles");
        }
        let settings = Arc::new(settings);
        self.current = Arc::clone(&settings);
        self.services = services;
        Ok(Reconfigured {
            settings,
            keymap,
            theme,
            changed,
            restart,
            services: configured,
        })
    }

    /// Parsed and checked as at start; the configured services worked out again last (the
    /// clients' maker follows only a file that reads).
    fn validated(&self) -> Result<Validated, ReloadError> {
        let mut settings = config::resolve(&self.overrides, &reload_env)?;
        // The placeholder that kept the token's sources unread is no token.
        settings.token.clone_from(&self.current.token);
        settings.token_origin.clone_from(&self.current.token_origin);
        let (keymap, theme) = looks(&settings, self.no_color)?;
        let profiles = profiles(config::configured_services(&self.overrides, &reload_env)?);
        let services = match &self.services_of {
            Some(services_of) => Some(services_of(&settings)?),
            None => None,
        };
        Ok((settings, keymap, theme, profiles, services))
    }
}

/// What `validated` reads: the settings, their keymap and colours, the profiles' services,
/// and the configured services as the App names them.
type Validated = (
    Settings,
    crate::app::state::Keymap,
    crate::app::state::Theme,
    Vec<Configured>,
    Option<Services>,
);

/// `why` with the config file's path written from the home directory (`~/.config/…`), so the
/// line and the key it names fit on the status bar.
fn from_home(why: String, file: &Path) -> String {
    let home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
    match home.as_deref().and_then(|h| file.strip_prefix(h).ok()) {
        Some(rest) => why.replace(
            &file.display().to_string(),
            &format!("~/{}", rest.display()),
        ),
        None => why,
    }
}

/// The services of the profiles (the top level's is `base_url`'s, said by that key).
fn profiles(mut services: Vec<Configured>) -> Vec<Configured> {
    services.retain(|s| s.profile.is_some());
    services
}

/// The process' environment, except that the token counts as given: a reload never runs a
/// `token_command` nor reads a token file (the running client keeps its token).
fn reload_env(name: &str) -> Option<String> {
    if name == "GENDASH_TOKEN" {
        return Some("not-read-on-a-reload".to_string());
    }
    config::process_env(name)
}

/// Ends the dashboard as the hang-up's signal does (exit 129). What is still written to the
/// terminal (the restore, ratatui's "Failed to show the cursor", a last message) goes to
/// `/dev/null` from now on: a write to the dead terminal fails, and `eprintln!` turns that
/// failure into a panic (exit 101).
fn end_hung_up(state: &mut State) -> Vec<Cmd> {
    let_go_of_terminal();
    state.update(Action::Terminate(signal_hook::consts::SIGHUP))
}

fn let_go_of_terminal() {
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        // Nothing else can be done about the output if even this fails.
        let _ = rustix::stdio::dup2_stdout(&null);
        let _ = rustix::stdio::dup2_stderr(&null);
    }
}

/// Standard input is a terminal that answers (a hung-up one answers nothing).
fn terminal_answers() -> bool {
    rustix::termios::tcgetattr(std::io::stdin()).is_ok()
}

#[cfg(test)]
#[path = "reload_tests.rs"]
mod tests;
