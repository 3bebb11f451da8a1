//! The config read again, through the state: what is taken, what the status bar and the
//! request log say, and what the workers are told.

use crate::app::keymap::Keymap;
use crate::app::reconfigured::{REFUSED, Reconfigured};
use crate::app::state::{Action, State, Theme};
use crate::app::test_support::*;
use crate::cmd::Cmd;
use crate::store::config::{FileSettings, NotifyPolicy, Overrides, Settings};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The settings a file with `text` resolves to (nothing from the environment).
fn settings_of(text: &str) -> Settings {
    let file: FileSettings =
        crate::store::config::parse(text, Path::new("/cfg/config.toml")).expect("parses");
    let none = |_: &str| None;
    crate::store::config::resolve_from(
        file,
        true,
        PathBuf::from("/cfg/config.toml"),
        &Overrides::default(),
        &none,
    )
    .expect("resolves")
}

fn reconfigured(text: &str, changed: &[&'static str], restart: &[&'static str]) -> Reconfigured {
    let settings = settings_of(text);
    Reconfigured {
        keymap: Keymap::configured(&settings.keys).expect("keys"),
        theme: Theme::new(settings.theme, &settings.styles, false),
        settings: Arc::new(settings),
        changed: changed.to_vec(),
        restart: restart.to_vec(),
        services: None,
    }
}

/// A key as the running state's keymap reads it (`press` reads the default one).
fn key_in_force(s: &mut State, k: crossterm::event::KeyEvent) -> Option<Action> {
    let action = s.keymap.resolve(&s.contexts(), &k);
    if let Some(a) = action.clone() {
        s.update(a);
    }
    action
}

#[test]
fn the_reload_key_asks_the_runtime_to_read_the_file() {
    let mut s = state();
    let (action, cmds) = press(&mut s, ctrl('r'));
    assert_eq!(action, Some(Action::ReloadConfig));
    assert_eq!(kinds(&cmds), ["ReloadConfig"]);
}

#[test]
fn what_changed_is_taken_and_said() {
    let mut s = state();
    assert_eq!(
        key_in_force(&mut s, ch('x')),
        None,
        "x is bound to nothing yet"
    );
    let cmds = s.reconfigure(reconfigured(
        "notify = \"batch\"\nbell = false\nauto_download = true\n\
         categories = [\"anime\"]\n[keys]\nquit = \"x\"\n[styles]\nerror = \"yellow\"\n",
        &[
            "categories",
            "bell",
            "auto_download",
            "keys",
            "styles",
            "notify",
        ],
        &["base_url"],
    ));
    assert_eq!(
        key_in_force(&mut s, ch('x')),
        Some(Action::Quit),
        "the new key works"
    );
    assert_eq!(s.notifier.settings.policy, NotifyPolicy::Batch);
    assert!(!s.settings.bell);
    assert!(s.watch.auto_download);
    assert_eq!(s.browser.configured_categories, ["anime"]);
    assert_eq!(
        s.theme.error().fg,
        Some(ratatui::style::Color::Yellow),
        "the new style"
    );
    assert_eq!(kinds(&cmds), ["Configure"], "the workers are told");
    assert_eq!(
        notice(&s),
        Some(
            "config reloaded: categories, bell, auto_download, keys, styles, notify; \
             a restart takes base_url"
        )
    );
}

#[test]
fn an_unchanged_file_changes_nothing_and_says_so() {
    let mut s = state();
    let before = format!("{:?}", s.keymap);
    // A keymap the file would make is not taken when nothing changed.
    let cmds = s.reconfigure(reconfigured("[keys]\nquit = \"x\"\n", &[], &[]));
    assert!(cmds.is_empty());
    assert_eq!(format!("{:?}", s.keymap), before);
    assert_eq!(notice(&s), Some("config unchanged"));
}

#[test]
fn a_refused_file_keeps_the_config_and_is_said_in_the_status_bar_and_the_log() {
    let mut s = state();
    let file = Path::new("/cfg/config.toml");
    let why = "/cfg/config.toml: line 3: unknown key `pol_interval`";
    let cmds = s.reconfigure_refused(file, why);
    assert!(cmds.is_empty());
    assert_eq!(
        s.last_error.as_deref(),
        Some(format!("{REFUSED}: {why}").as_str())
    );
    let logged = s
        .requests
        .entries
        .back()
        .expect("a line in the request log");
    assert_eq!(logged.method, "CONFIG");
    assert_eq!(logged.url, "file:///cfg/config.toml");
    assert_eq!(logged.error.as_deref(), Some(why));
    assert_eq!(
        key_in_force(&mut s, ch('q')),
        Some(Action::Quit),
        "the keys in force"
    );
    // A file that reads again clears the error it left.
    s.reconfigure(reconfigured("bell = false\n", &["bell"], &[]));
    assert_eq!(s.last_error, None);
    assert_eq!(notice(&s), Some("config reloaded: bell"));
}

#[test]
fn another_error_stays_after_a_reload() {
    let mut s = state();
    s.last_error = Some("sim-4 not found".into());
    s.reconfigure(reconfigured("bell = false\n", &["bell"], &[]));
    assert_eq!(s.last_error.as_deref(), Some("sim-4 not found"));
}

#[test]
fn only_what_waits_for_a_restart_changed() {
    let mut s = state();
    s.reconfigure(reconfigured(
        "request_timeout = 9\n",
        &["request_timeout"],
        &["request_timeout"],
    ));
    assert_eq!(
        notice(&s),
        Some("config unchanged; a restart takes request_timeout")
    );
}

#[test]
fn the_workers_get_the_whole_new_value() {
    let mut s = state();
    let new = reconfigured("poll_interval = 7\n", &["poll_interval"], &[]);
    let settings = Arc::clone(&new.settings);
    let cmds = s.reconfigure(new);
    let [Cmd::Configure(sent)] = cmds.as_slice() else {
        panic!("{cmds:?}")
    };
    assert!(Arc::ptr_eq(&sent.0, &settings));
    assert_eq!(sent.0.poll_interval, std::time::Duration::from_secs(7));
}

#[test]
fn the_reload_key_works_in_the_archive_too() {
    let mut s = state();
    s.update(Action::FocusNext);
    s.update(Action::ToggleArchive);
    assert_eq!(key_in_force(&mut s, ctrl('r')), Some(Action::ReloadConfig));
    assert_eq!(
        kinds(&s.update(Action::ReloadConfig)),
        ["ReloadConfig"],
        "{:?}",
        s.mode()
    );
}

/// Rows of the current service (`here`) and of `http://b:2`, which the start's file did not
/// name.
fn state_with_two_services() -> State {
    let current = "http://127.0.0.1:8787";
    let mut other = entry("there", Some(("IN_PROGRESS", 10)));
    other.service = Some("http://b:2".into());
    let mut here = entry("here", Some(("IN_PROGRESS", 10)));
    here.service = Some(current.into());
    let mut s = crate::app::state::State::new(crate::app::state::Init {
        service_url: current.into(),
        watch: vec![here, other],
        services: Some(crate::app::services::Services::single(current)),
        now: NOW,
        ..crate::app::state::Init::default()
    });
    s.start();
    s
}

fn with_services(names: &[(&str, &str)]) -> Reconfigured {
    let mut services = crate::app::services::Services::single("http://127.0.0.1:8787");
    for (key, name) in names {
        services.names.insert((*key).into(), (*name).into());
    }
    Reconfigured {
        services: Some(services),
        ..reconfigured("[profiles.b]\n", &["profiles"], &[])
    }
}

#[test]
fn a_profile_added_polls_its_tasks_where_they_are_and_one_removed_stops_them() {
    let mut s = state_with_two_services();
    let rows = |s: &State| row_ids(s).join(" ");
    let before = rows(&s);
    assert!(s.watch.rows[1].no_service, "b is not configured at start");
    let cmds = s.reconfigure(with_services(&[("http://b:2", "b")]));
    assert_eq!(kinds(&cmds), ["Configure", "Services", "Watch"]);
    assert!(cmds.contains(&Cmd::Poll(crate::cmd::PollCmd::Watch(
        image("there"),
        Some("http://b:2".into())
    ))));
    assert!(!s.watch.rows[1].no_service);
    assert_eq!(rows(&s), before, "the rows keep their place");
    assert_eq!(notice(&s), Some("config reloaded: profiles"));
    // The profile gone again: its task stops being polled, still in its place.
    let cmds = s.reconfigure(with_services(&[]));
    assert_eq!(kinds(&cmds), ["Configure", "Services", "Unwatch"]);
    assert!(s.watch.rows[1].no_service);
    assert_eq!(rows(&s), before);
}

/// A light terminal said so before the reload: an `auto` theme read again takes the light
/// palette again, keeping the styles the file sets.
#[test]
fn a_reload_keeps_the_light_background_the_terminal_told() {
    let light = Theme::new(
        crate::store::config::ThemeName::Light,
        &std::collections::BTreeMap::new(),
        false,
    );
    let mut s = state();
    s.theme = Theme::new(
        crate::store::config::ThemeName::Auto,
        &std::collections::BTreeMap::new(),
        false,
    );
    s.apply(crate::msg::Msg::Background { light: true });
    assert_eq!(
        s.theme.selected(),
        light.selected(),
        "auto followed the terminal"
    );
    s.reconfigure(reconfigured(
        "[styles]\nerror = \"yellow\"\n",
        &["styles"],
        &[],
    ));
    assert_eq!(
        s.theme.selected(),
        light.selected(),
        "still light after the reload"
    );
    assert_eq!(
        s.theme.error().fg,
        Some(ratatui::style::Color::Yellow),
        "the file's style kept"
    );
}

/// A view added to the file is offered after the reload; the saved ones stay.
#[test]
fn a_view_added_to_the_file_is_listed_after_the_reload() {
    let mut s = state();
    assert!(s.views.get("broken").is_none());
    s.reconfigure(reconfigured(
        "[views.broken]\npane = \"watch\"\nfilter = \"failed\"\n",
        &["views"],
        &[],
    ));
    assert!(s.views.get("broken").is_some(), "the file's new view");
}
