//! Everything a new `State` starts from, in one value: what the session loaded (the watch
//! list, the recent categories, the favourites, the sort) and what it configured (keys,
//! colours, services, the demo). Nothing is assigned to the state after it is made.

use super::{Areas, Browser, Health, RequestLog, Row, Search, State, Watch};
use crate::app::keymap::Keymap;
use crate::app::preview_slot::PreviewSlot;
use crate::app::services::Services;
use crate::app::theme::Theme;
use crate::app::watch::SortKey;
use crate::cmd::Cmd;
use crate::store::watchlist::WatchEntry;
use std::collections::BTreeSet;

/// The dashboard runs on the embedded demo service (`--demo`).
#[derive(Debug, Clone)]
pub struct Demo {
    /// The service's throwaway token, which the request log's curl lines may show.
    pub token: crate::api::Secret,
    /// Where downloads go.
    pub downloads: std::path::PathBuf,
    /// `downloads` is the demo's own temporary directory, not a configured `download_dir`.
    pub temporary: bool,
}

/// Settings the reducers need.
#[derive(Debug, Clone)]
pub struct UiSettings {
    pub bell: bool,
    pub desktop_notifications: bool,
    pub no_color: bool,
}

#[derive(Debug)]
pub struct Init {
    /// The service the dashboard was started for: new tasks go to it.
    pub service_url: String,
    /// The configured categories, and those used lately (newest first).
    pub categories: Vec<String>,
    pub recent_categories: Vec<String>,
    /// The models marked as favourites at this service.
    pub favourites: BTreeSet<String>,
    /// The saved watch list, and the statuses that mean a task failed.
    pub watch: Vec<WatchEntry>,
    pub failure_statuses: Vec<String>,
    pub settings: UiSettings,
    pub keymap: Keymap,
    /// The colours; `None` is the dark theme (monochrome with `no_color`).
    pub theme: Option<Theme>,
    /// A running task whose percent has not moved for this many seconds is stalled.
    pub stall_after: u64,
    /// `auto_download` of the config.
    pub auto_download: bool,
    /// Every configured service; `None` knows only `service_url`'s.
    pub services: Option<Services>,
    /// The order the watch list was last sorted in.
    pub sort: Option<SortKey>,
    /// The local time zone's offset, for the request log's times.
    pub utc_offset: time::UtcOffset,
    /// Set for `--demo` only.
    pub demo: Option<Demo>,
    /// The picture slot, when previews are off from the start (why, for the detail section).
    pub preview: Option<PreviewSlot>,
    /// An error to show from the start (the watch list could not be read, say).
    pub error: Option<String>,
    /// The reducers' clock at the start.
    pub now: u64,
}

impl Default for Init {
    fn default() -> Self {
        Init {
            service_url: String::new(),
            categories: Vec::new(),
            recent_categories: Vec::new(),
            favourites: BTreeSet::new(),
            watch: Vec::new(),
            failure_statuses: crate::api::types::default_failure_statuses(),
            settings: UiSettings {
                bell: false,
                desktop_notifications: false,
                no_color: false,
            },
            keymap: Keymap::default(),
            theme: None,
            stall_after: crate::store::config::DEFAULT_STALL_AFTER.as_secs(),
            auto_download: false,
            services: None,
            sort: None,
            utc_offset: time::UtcOffset::UTC,
            demo: None,
            preview: None,
            error: None,
            now: 0,
        }
    }
}

impl State {
    /// The state `init` describes; the commands its services and the saved list call for
    /// (tasks to poll, downloads due) come first from `start`.
    pub fn new(init: Init) -> Self {
        let Init {
            service_url,
            categories,
            recent_categories,
            favourites,
            watch,
            failure_statuses,
            settings,
            keymap,
            theme,
            stall_after,
            auto_download,
            services,
            sort,
            utc_offset,
            demo,
            preview,
            error,
            now,
        } = init;
        let theme = theme.unwrap_or_else(|| {
            Theme::new(
                crate::store::config::ThemeName::Dark,
                &std::collections::BTreeMap::new(),
                settings.no_color,
            )
        });
        let mut watch = Watch::new(watch, failure_statuses);
        watch.stall_after = stall_after;
        watch.auto_download = auto_download;
        let mut browser = Browser::new(categories, recent_categories);
        browser.favourites = favourites;
        let requests = RequestLog {
            utc_offset,
            ..RequestLog::default()
        };
        let mut state = State {
            browser,
            watch,
            preview: preview.unwrap_or_else(PreviewSlot::new),
            requests,
            focus: super::Pane::Browser,
            popup: None,
            service_url: crate::api::sanitize::sanitize(&service_url),
            health: Health::Unknown,
            last_error: error,
            notice: None,
            theme,
            settings,
            keymap,
            search: Search::default(),
            zoomed: None,
            now,
            areas: Areas::default(),
            persist_sent: 0,
            age_signature: 0,
            preferred: Vec::new(),
            first: Vec::new(),
            dirty: true,
            quit: None,
            suspend: false,
        };
        // Until told of the others, the one service known is the one the state was made for.
        let current = service_url.trim_end_matches('/');
        state.watch.set_services(Services::single(current));
        if let Some(services) = services {
            let mut first = state.watch.set_services(services);
            first.extend(state.watch.adopt());
            // Tasks that completed while gendash was closed, when their files are wanted.
            first.extend(state.watch.start_downloads());
            state.first = first;
        }
        if let Some(sort) = sort {
            state.watch.sort = sort;
            state.watch.reorder(now);
        }
        if let Some(demo) = demo {
            state.begin_demo(demo);
        }
        state.preferred = state.watch.visible().map(Row::key).collect();
        state
    }

    /// The commands the state was made with, then those of `start`.
    pub(super) fn take_first(&mut self) -> Vec<Cmd> {
        std::mem::take(&mut self.first)
    }
}
