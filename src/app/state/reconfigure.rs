//! The config read again (`SIGHUP`, the reload key, the terminal's focus coming back to a
//! changed file): the runtime reads and validates it with the code that runs at start and hands
//! the whole value here; everything the App takes from the config is derived from it again,
//! and the workers get the same value (`Cmd::Configure`). A config that does not read leaves
//! the running one in force and is said, with its file and line.

use super::{Effects, State};
use crate::app::reconfigured::{REFUSED, Reconfigured};
use crate::app::services::Services;
use crate::app::watch;
use crate::cmd::{Cmd, NewSettings, PollCmd, TaskKey};
use std::collections::BTreeSet;

impl State {
    /// Takes on the config read again: the keys, the colours, the notification policy, the
    /// bell, the prompt, the categories offered, auto-download and the stall time; the workers
    /// are told (`Cmd::Configure`). The status bar says what changed.
    pub fn reconfigure(&mut self, new: Reconfigured) -> Vec<Cmd> {
        let Reconfigured {
            settings,
            keymap,
            theme,
            changed,
            restart,
            services,
        } = new;
        if self
            .last_error
            .as_deref()
            .is_some_and(|e| e.starts_with(REFUSED))
        {
            self.last_error = None;
        }
        if changed.is_empty() {
            return self.absorb(Effects::say(said(&changed, &restart)).redraw_if(true));
        }
        self.keymap = keymap;
        // The terminal answers its background once: an `auto` theme read again follows it.
        let light = self.theme.told_light();
        self.theme = theme;
        self.theme.follow_background(light);
        self.settings.bell = settings.bell;
        self.settings.desktop_notifications = settings.desktop_notifications;
        self.settings.poll_interval = settings.poll_interval.as_secs();
        self.notifier.settings = crate::app::watch::notify::Settings::of(&settings);
        self.watch.stall_after = settings.stall_after.as_secs();
        self.watch.auto_download = settings.auto_download;
        self.browser.prompt = settings.prompt();
        self.browser
            .configured_categories
            .clone_from(&settings.categories);
        self.views.set_configured(&settings.views);
        let fx = Effects::cmds(vec![Cmd::Configure(NewSettings(settings))])
            .and(services.map_or_else(Effects::none, |s| self.take_services(s)))
            .with_notice(said(&changed, &restart))
            .whole()
            .redraw_if(true);
        self.absorb(fx)
    }

    /// The configured services as the file read again names them: rows keep their place; a
    /// row of a service no longer configured stops being polled, one of a service configured
    /// again is polled again, and the workers are told which services count.
    fn take_services(&mut self, mut services: Services) -> Effects {
        // What was found of the services (a client that could not be made) stays for those
        // still configured.
        services.unusable = self
            .watch
            .services
            .unusable
            .iter()
            .filter(|(key, _)| services.names.contains_key(*key))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if services == self.watch.services {
            return Effects::none();
        }
        let stopped: BTreeSet<TaskKey> = self
            .watch
            .rows
            .iter()
            .filter(|r| r.no_service)
            .map(crate::app::watch::Row::key)
            .collect();
        let keys = services.names.keys().cloned().collect();
        let set = watch::service::set(&mut self.watch, services);
        let resumed = watch::poll::start_polling(&self.watch)
            .into_iter()
            .filter(|c| matches!(c, Cmd::Poll(PollCmd::Watch(k, _)) if stopped.contains(k)))
            .collect();
        Effects::cmds(vec![Cmd::Services(keys)])
            .and(set)
            .and(Effects::cmds(resumed))
            .redraw_if(true)
    }

    /// The config file could not be used (`why` names the file and the line): the running
    /// config stays in force. Said on the status bar and, as a line of its own, in the
    /// request log (method `CONFIG`, the file's URL), where it stays after the status bar
    /// moves on.
    pub fn reconfigure_refused(&mut self, file: &std::path::Path, why: &str) -> Vec<Cmd> {
        let url = url::Url::from_file_path(file)
            .map_or_else(|()| file.display().to_string(), String::from);
        self.requests.push(crate::api::recording::RequestRecord {
            at: std::time::UNIX_EPOCH + std::time::Duration::from_secs(self.now),
            method: "CONFIG",
            url: crate::api::sanitize::sanitize(&url),
            authorized: false,
            status: None,
            error: Some(crate::api::sanitize::sanitize(why)),
            duration: std::time::Duration::ZERO,
            bytes: 0,
            output: None,
        });
        let text = format!("{REFUSED}: {why}");
        // Alone on the status bar first, so it is read whole; the error stays after it.
        self.absorb(Effects::say(text.clone()).whole().and(Effects::fail(text)))
    }
}

/// `config reloaded: keys, theme, poll_interval`, and what waits for a restart.
fn said(changed: &[&str], restart: &[&str]) -> String {
    let applied: Vec<&str> = changed
        .iter()
        .copied()
        .filter(|k| !restart.contains(k))
        .collect();
    let mut text = if applied.is_empty() {
        "config unchanged".to_string()
    } else {
        format!("config reloaded: {}", applied.join(", "))
    };
    if !restart.is_empty() {
        text.push_str("; a restart takes ");
        text.push_str(&restart.join(", "));
    }
    text
}

#[cfg(test)]
#[path = "reconfigure_tests.rs"]
mod tests;
