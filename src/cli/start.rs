//! Starting the dashboard: resolves the settings and the service (the configured one, or with
//! `--demo` an embedded reference service with demo tasks and a private watch list), runs
//! `app::run`, and turns how it ended into an exit code.

use super::{CliResult, Failure, Global, client_from, exit};
use crate::api::{Client, ClientOptions};
use crate::app::services::Services;
use crate::app::state::Quit;
use crate::dashboard::{self, Session};
use crate::server;
use crate::server::simulation::DEMO_TASKS;
use crate::store::config::{self, Settings};
use crate::store::watchlist::{WatchEntry, WatchStore, service_key};
use crate::workers::router::Resolve;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

pub async fn run(global: &Global, demo: bool) -> CliResult {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let outcome = if demo {
        run_demo(global, no_color).await?
    } else {
        let settings = global.settings()?;
        let (keymap, theme) =
            dashboard::looks(&settings, no_color).map_err(|e| Failure::new(exit::OTHER, e))?;
        let client = client_from(&settings)?;
        let (services, resolve) = services(global, &settings, &client)?;
        let store = WatchStore::new(WatchStore::default_path());
        let recent_categories = store.path().with_file_name("recent-categories.json");
        dashboard::run(Session {
            settings,
            client,
            store,
            recent_categories,
            no_color,
            services,
            resolve: Some(resolve),
            preview_cache: crate::store::cache::ImageCache::default_dir(),
            catalogue_cache: crate::store::catalogue_cache::CatalogueCache::default_dir(),
            keymap,
            theme,
            demo: None,
        })
        .await
        .map_err(|e| Failure::new(exit::OTHER, e))?
    };
    Ok(exit_code(outcome))
}

/// The configured services: the current one, named after its profile (or its host); the top
/// level's base URL, named after a profile that shares it, else its host; and every profile's,
/// named after the profile. Also how to make the client of each other one when one of its
/// tasks is first polled: the top level's with the top level's token (a profile that only
/// inherits the base URL does not take it over), a profile's with the profile's. A service
/// the file does not name is never polled.
fn services(
    global: &Global,
    settings: &Settings,
    client: &Client,
) -> Result<(Services, Resolve), Failure> {
    let overrides = global.overrides();
    let current = service_key(client.base_url());
    let mut services = Services::single(&current);
    // Whose settings poll each other service: `None` is the top level's.
    let mut owners: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for configured in config::configured_services(&overrides, &config::process_env)? {
        let key = service_key(&configured.base_url);
        if key == current {
            if let (None, Some(name)) = (&settings.profile, configured.profile) {
                services.names.insert(key, name);
            }
            continue;
        }
        if let Some(name) = &configured.profile {
            names.entry(key.clone()).or_insert_with(|| name.clone());
        }
        owners.entry(key).or_insert(configured.profile);
    }
    if let Some(name) = &settings.profile {
        services.names.insert(current, name.clone());
    }
    for key in owners.keys() {
        let name = names
            .remove(key)
            .unwrap_or_else(|| crate::app::services::host_label(key));
        services.names.insert(key.clone(), name);
    }
    let resolve: Resolve = Arc::new(move |key: &str| {
        let owner = owners
            .get(key)
            .ok_or_else(|| format!("neither the top level nor a profile has the base_url {key}"))?;
        let whose = owner.as_ref().map_or_else(
            || "the top level".to_string(),
            |name| format!("profile `{name}`"),
        );
        let settings = config::resolve_service(&overrides, &config::process_env, owner.as_deref())
            .map_err(|e| format!("{whose}: {e}"))?;
        client_from(&settings).map_err(|e| format!("{whose}: {}", e.message))
    });
    Ok((services, resolve))
}

/// 0 for a quit, 128 + the signal's number when a signal ended it, as shells report.
pub fn exit_code(outcome: Quit) -> u8 {
    match outcome {
        Quit::User => exit::OK,
        Quit::Signal(n) => u8::try_from(128 + n).unwrap_or(exit::OTHER),
    }
}

async fn run_demo(global: &Global, no_color: bool) -> Result<Quit, Failure> {
    let mut settings = demo_settings(global);
    let cannot = |e: &dyn std::fmt::Display| {
        Failure::new(exit::OTHER, format!("cannot start the demo service: {e}"))
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| cannot(&e))?;
    // Kept alive until the dashboard ends.
    let service = server::start(listener, server::Options::new(server::generate_token()))
        .map_err(|e| cannot(&e))?;
    let client = Client::new(&ClientOptions {
        base_url: service.base_url(),
        token: service.token.clone(),
        request_timeout: settings.request_timeout,
        allow_insecure_http: false,
    })?;
    let scratch = std::env::temp_dir().join(format!("gendash-demo-{}", std::process::id()));
    let temporary = settings.sources.get("download_dir") == Some(&config::Source::Default);
    if temporary {
        settings.download_dir = demo_download_dir().map_err(|e| cannot(&e))?;
    }
    let demo = crate::app::state::Demo {
        token: service.token.clone(),
        downloads: settings.download_dir.clone(),
        temporary,
    };
    let result = demo_session(settings, client, &scratch, no_color, demo.clone()).await;
    let _ = std::fs::remove_dir_all(&scratch);
    if temporary {
        keep_demo_downloads(&demo.downloads);
    }
    drop(service);
    result
}

/// A new private directory for the demo's downloads: the user's download directory is left
/// alone unless `download_dir` names one. Made here, so a name someone else took first is
/// never used.
fn demo_download_dir() -> std::io::Result<PathBuf> {
    use rand::{Rng, SeedableRng};
    use std::os::unix::fs::DirBuilderExt;
    let mut rng = rand::rngs::StdRng::from_os_rng();
    let mut last = None;
    for _ in 0..16 {
        let dir = std::env::temp_dir().join(format!("gendash-demo-dl-{:08x}", rng.random::<u32>()));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no name left")))
}

/// Files the user downloaded in the demo outlive it (they asked for them); an empty
/// directory does not.
fn keep_demo_downloads(dir: &std::path::Path) {
    if std::fs::remove_dir(dir).is_err() && dir.exists() {
        eprintln!("gendash: the demo's downloads are in {}", dir.display());
    }
}

async fn demo_session(
    settings: Settings,
    client: Client,
    scratch: &std::path::Path,
    no_color: bool,
    demo: crate::app::state::Demo,
) -> Result<Quit, Failure> {
    let store = WatchStore::new(scratch.join("watchlist.json"));
    store
        .update(|list| {
            list.clear();
            list.extend(
                DEMO_TASKS
                    .iter()
                    .map(|(id, kind)| WatchEntry::new(*id, *kind)),
            );
        })
        .map_err(|e| Failure::new(exit::OTHER, e.to_string()))?;
    let services = Services::single(&service_key(client.base_url()));
    let (keymap, theme) = dashboard::looks(&settings, no_color).unwrap_or_else(|e| {
        eprintln!("gendash: ignoring [keys] and [styles] for the demo: {e}");
        let defaults =
            crate::app::state::Theme::new(config::ThemeName::default(), &BTreeMap::new(), no_color);
        (crate::app::state::Keymap::default(), defaults)
    });
    dashboard::run(Session {
        settings,
        client,
        store,
        recent_categories: scratch.join("recent-categories.json"),
        no_color,
        services,
        resolve: None,
        // The demo leaves the user's cache alone.
        preview_cache: scratch.join("previews"),
        catalogue_cache: scratch.join("catalogues"),
        keymap,
        theme,
        demo: Some(demo),
    })
    .await
    .map_err(|e| Failure::new(exit::OTHER, e))
}

/// Settings for the demo: the user's if they load, defaults otherwise (the demo needs none).
fn demo_settings(global: &Global) -> Settings {
    config::resolve(&global.overrides(), &config::process_env).unwrap_or_else(|e| {
        eprintln!("gendash: ignoring the configuration for the demo: {e}");
        let none = |_: &str| None;
        config::resolve_from(
            config::FileSettings::default(),
            false,
            PathBuf::new(),
            &config::Overrides::default(),
            &none,
        )
        .unwrap_or_else(|_| unreachable!("defaults always resolve"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_exit_as_shells_report_them() {
        assert_eq!(exit_code(Quit::User), 0);
        assert_eq!(exit_code(Quit::Signal(2)), 130);
        assert_eq!(exit_code(Quit::Signal(15)), 143);
        assert_eq!(exit_code(Quit::Signal(1)), 129);
    }
}
