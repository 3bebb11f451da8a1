//! Building the dashboard's session: for the configured service (the other configured
//! services, named, with how to make their clients; the user's watch list and caches; the
//! key bindings and colours), or for `--demo` (a private, seeded watch list, caches and
//! archive, a temporary download directory, and none of the user's hooks). The caller resolves the
//! settings and makes the current service's client; how the session ended is its to report.

use super::{Outcome, RunError, Session, looks};
use crate::api::Client;
use crate::api::Secret;
use crate::api::types::TaskKind;
use crate::app::services::{Services, host_label};
use crate::app::state::{Demo, Keymap, Theme};
use crate::store::config::{self, ConfigError, Overrides, Settings};
use crate::store::paths::DataFiles;
use crate::store::watchlist::{WatchEntry, WatchStore, service_key};
use crate::workers::router::{Resolve, Unreachable};
use std::collections::BTreeMap;
use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why the session for the configured service could not be built, in the order checked.
#[derive(Debug)]
pub enum Refused<E> {
    /// `[keys]` is wrong.
    Looks(super::LooksError),
    /// The current service's client could not be made: the caller's own error.
    Client(E),
    /// The configured services could not be read.
    Config(ConfigError),
}

/// The session for the configured service: its key bindings and colours, its client (made
/// by `client_for`, which also makes the other services' clients when one of their tasks is
/// first polled, its error then shown as text), the other configured services, and the
/// user's watch list and caches.
pub fn for_settings<E: Display + 'static>(
    settings: Settings,
    overrides: Overrides,
    no_color: bool,
    client_for: fn(&Settings) -> Result<Client, E>,
) -> Result<Session, Refused<E>> {
    let (keymap, theme) = looks(&settings, no_color).map_err(Refused::Looks)?;
    let client = client_for(&settings).map_err(Refused::Client)?;
    let (services, resolve, services_of) =
        services(overrides.clone(), &settings, &client, client_for).map_err(Refused::Config)?;
    let mut reload = Box::new(super::reload::Reloader::new(
        &settings, overrides, no_color, None,
    ));
    reload.services_of = Some(services_of);
    Ok(Session {
        reload,
        settings,
        client,
        files: DataFiles::user(),
        no_color,
        services,
        resolve: Some(resolve),
        keymap,
        theme,
        demo: None,
        plain: None,
    })
}

/// Whose settings poll each other service (`None` is the top level's), as the file in force
/// says; shared by the clients' maker and the reload that changes it.
type Owners = Arc<std::sync::Mutex<BTreeMap<String, Option<String>>>>;

/// The configured services: the current one, named after its profile (or its host); the top
/// level's base URL, named after a profile that shares it, else its host; and every profile's,
/// named after the profile. Also how to make the client of each other one when one of its
/// tasks is first polled: the top level's with the top level's token (a profile that only
/// inherits the base URL does not take it over), a profile's with the profile's. A service
/// the file does not name is never polled. And how a reload works them out again from the
/// file read again (the clients' maker follows).
fn services<E: Display + 'static>(
    overrides: Overrides,
    settings: &Settings,
    client: &Client,
    client_for: fn(&Settings) -> Result<Client, E>,
) -> Result<(Services, Resolve, super::reload::ServicesOf), ConfigError> {
    let current = service_key(client.base_url());
    let (services, owners) = named(&overrides, settings.profile.as_deref(), &current)?;
    let owners: Owners = Arc::new(std::sync::Mutex::new(owners));
    let shared = Arc::clone(&owners);
    let again = overrides.clone();
    let reload: super::reload::ServicesOf = Box::new(move |settings: &Settings| {
        let (services, owners) = named(&again, settings.profile.as_deref(), &current)?;
        *shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = owners;
        Ok(services)
    });
    let resolve: Resolve = Arc::new(move |key: &str| {
        let owner = owners
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(key)
            .cloned()
            .ok_or_else(|| Unreachable::NoOwner(key.to_string()))?;
        let whose = owner.as_ref().map_or_else(
            || "the top level".to_string(),
            |name| format!("profile `{name}`"),
        );
        let failed = |reason: &dyn Display| Unreachable::Owner {
            whose: whose.clone(),
            reason: reason.to_string(),
        };
        let settings = config::resolve_service(&overrides, &config::process_env, owner.as_deref())
            .map_err(|e| failed(&e))?;
        client_for(&settings).map_err(|e| failed(&e))
    });
    Ok((services, resolve, reload))
}

/// The services the file names, with their names, and whose settings poll each other one.
fn named(
    overrides: &Overrides,
    profile: Option<&str>,
    current: &str,
) -> Result<(Services, BTreeMap<String, Option<String>>), ConfigError> {
    let mut services = Services::single(current);
    let mut owners: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for configured in config::configured_services(overrides, &config::process_env)? {
        let key = service_key(&configured.base_url);
        if key == current {
            if let (None, Some(name)) = (profile, configured.profile) {
                services.names.insert(key, name);
            }
            continue;
        }
        if let Some(name) = &configured.profile {
            names.entry(key.clone()).or_insert_with(|| name.clone());
        }
        owners.entry(key).or_insert(configured.profile);
    }
    if let Some(name) = profile {
        services.names.insert(current.to_string(), name.to_string());
    }
    for key in owners.keys() {
        let name = names.remove(key).unwrap_or_else(|| host_label(key));
        services.names.insert(key.clone(), name);
    }
    Ok((services, owners))
}

/// Settings for the demo: the user's if they load, defaults otherwise (the demo needs none).
/// The user's token is never looked up (no `token_command` runs): the demo has its own.
pub fn demo_settings(overrides: &Overrides) -> Settings {
    let env = |name: &str| {
        // Any value stops the lookup at the environment; the demo's client never uses it.
        (name == "GENDASH_TOKEN")
            .then(|| "unused-by-the-demo".to_string())
            .or_else(|| config::process_env(name))
    };
    config::resolve(overrides, &env).unwrap_or_else(|e| {
        eprintln!("gendash: ignoring the configuration for the demo: {e}");
        let none = |_: &str| None;
        config::resolve_from(
            config::FileSettings::default(),
            false,
            PathBuf::new(),
            &Overrides::default(),
            &none,
        )
        .unwrap_or_else(|_| unreachable!("defaults always resolve"))
    })
}

/// The embedded service the demo runs against, started (and kept alive) by the caller.
pub struct DemoService<'a> {
    /// Its client.
    pub client: Client,
    /// Its throwaway token, which the request log's curl lines may show.
    pub token: Secret,
    /// The tasks the demo's watch list starts with.
    pub tasks: &'a [(&'a str, TaskKind)],
}

/// Runs the demo until it ends: a private watch list seeded with the service's tasks, private
/// caches and archive in a scratch directory, and downloads in a new temporary directory. It
/// touches nothing of the user's: no hook runs, `download_dir` and the data directory are left
/// alone. The scratch directory goes afterwards; the downloads stay only if there are any.
/// `[keys]` and `[styles]` are ignored, with a warning, when wrong.
pub async fn demo(
    mut settings: Settings,
    overrides: Overrides,
    service: DemoService<'_>,
    no_color: bool,
    plain: Option<super::plain::Options>,
) -> Result<Outcome, RunError> {
    let scratch = private_temp_dir("gendash-demo").map_err(RunError::DemoDir)?;
    let downloads = match private_temp_dir("gendash-demo-dl") {
        Ok(dir) => dir,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&scratch);
            return Err(RunError::DemoDir(e));
        }
    };
    keep_to_itself(&mut settings, &downloads);
    let kept = downloads.clone();
    let reload = Box::new(super::reload::Reloader::new(
        &settings,
        overrides,
        no_color,
        Some(Box::new(move |s: &mut Settings| keep_to_itself(s, &kept))),
    ));
    let demo = Demo {
        token: service.token,
        downloads: downloads.clone(),
    };
    let result = match demo_session(
        settings,
        reload,
        service.client,
        service.tasks,
        &scratch,
        no_color,
        demo,
    ) {
        Ok(session) => super::run(super::Session { plain, ..session }).await,
        Err(e) => Err(e),
    };
    let _ = std::fs::remove_dir_all(&scratch);
    keep_demo_downloads(&downloads);
    result
}

/// The demo's settings keep it to itself: the user's hooks (`on_complete`, `on_all_done`)
/// never run for demo tasks, and files go to `downloads`, never to the user's `download_dir`.
fn keep_to_itself(settings: &mut Settings, downloads: &Path) {
    settings.on_complete = None;
    settings.on_all_done = None;
    settings.download_dir = downloads.to_path_buf();
}

/// A new private directory (mode 0700) in the temporary directory, named `prefix-<random>`.
/// Made here, so a name someone else took first is never used.
fn private_temp_dir(prefix: &str) -> std::io::Result<PathBuf> {
    use rand::{Rng, SeedableRng};
    use std::os::unix::fs::DirBuilderExt;
    let mut rng = rand::rngs::StdRng::from_os_rng();
    let mut last = None;
    for _ in 0..16 {
        let dir = std::env::temp_dir().join(format!("{prefix}-{:08x}", rng.random::<u32>()));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no name left")))
}

/// Files the user downloaded in the demo outlive it (they asked for them); an empty
/// directory does not.
fn keep_demo_downloads(dir: &Path) {
    if std::fs::remove_dir(dir).is_err() && dir.exists() {
        eprintln!("gendash: the demo's downloads are in {}", dir.display());
    }
}

/// The demo's session, its watch list seeded with `tasks`.
fn demo_session(
    settings: Settings,
    reload: Box<super::reload::Reloader>,
    client: Client,
    tasks: &[(&str, TaskKind)],
    scratch: &Path,
    no_color: bool,
    demo: Demo,
) -> Result<Session, RunError> {
    // The demo leaves the user's files and caches alone.
    let files = DataFiles::new(scratch, &scratch.join("cache"));
    WatchStore::new(files.watchlist.clone()).update(|list| {
        list.clear();
        list.extend(tasks.iter().map(|(id, kind)| WatchEntry::new(*id, *kind)));
    })?;
    let services = Services::single(&service_key(client.base_url()));
    let (keymap, theme) = looks(&settings, no_color).unwrap_or_else(|e| {
        eprintln!("gendash: ignoring [keys] and [styles] for the demo: {e}");
        let defaults = Theme::new(config::ThemeName::default(), &BTreeMap::new(), no_color);
        (Keymap::default(), defaults)
    });
    Ok(Session {
        reload,
        settings,
        client,
        files,
        no_color,
        services,
        resolve: None,
        keymap,
        theme,
        demo: Some(demo),
        plain: None,
    })
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
