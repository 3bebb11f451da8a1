//! Everything a new `State` starts from, in one value: what the session loaded (the watch
//! list, the recent categories, the favourites, the sort) and what it configured (keys,
//! colours, services, the demo). Nothing is assigned to the state after it is made.

use crate::app::keymap::Keymap;
use crate::app::preview_slot::PreviewSlot;
use crate::app::services::Services;
use crate::app::theme::Theme;
use crate::app::watch::SortKey;
use crate::store::watchlist::WatchEntry;
use std::collections::BTreeSet;

/// The dashboard runs on the embedded demo service (`--demo`).
#[derive(Debug, Clone)]
pub struct Demo {
    /// The service's throwaway token, which the request log's curl lines may show.
    pub token: crate::api::Secret,
    /// Where downloads go: the demo's own temporary directory.
    pub downloads: std::path::PathBuf,
}

/// Settings the reducers need.
#[derive(Debug, Clone)]
pub struct UiSettings {
    pub bell: bool,
    pub desktop_notifications: bool,
    pub no_color: bool,
    /// `poll_interval` of the config, in seconds: how fresh an answer is fresh enough on a
    /// focus-in (`watch::focus`).
    pub poll_interval: u64,
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
    /// `notify` and `notify_on_stall` of the config.
    pub notify: crate::app::watch::notify::Settings,
    /// `prompt_template` and `lora_weight` of the config.
    pub prompt: crate::api::prompt::PromptSettings,
    /// The config's views and the data directory's, with each pane's last state.
    pub views: Box<crate::app::views::Views>,
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
                poll_interval: crate::store::config::DEFAULT_POLL_INTERVAL.as_secs(),
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
            notify: crate::app::watch::notify::Settings::of(
                &crate::store::config::Settings::defaults(),
            ),
            prompt: crate::api::prompt::PromptSettings::default(),
            views: Box::default(),
        }
    }
}
