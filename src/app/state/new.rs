//! `State::new`: the state an `Init` describes.

use super::{Areas, Browser, Health, RequestLog, Row, Search, State, Watch};
use crate::app::init::Init;
use crate::app::preview_slot::PreviewSlot;
use crate::app::services::Services;
use crate::app::theme::Theme;
use crate::app::watch;
use crate::cmd::Cmd;

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
            notify,
            prompt,
            views,
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
        watch.matcher.utc_offset = utc_offset.whole_seconds();
        let mut browser = Browser::new(categories, recent_categories);
        browser.favourites = favourites;
        browser.prompt = prompt;
        let requests = RequestLog {
            utc_offset,
            ..RequestLog::default()
        };
        let mut state = State {
            archive: crate::app::archive_view::ArchiveView::new(utc_offset.whole_seconds()),
            browser,
            watch,
            gallery: crate::app::gallery::Gallery::default(),
            model_preview: preview.clone().unwrap_or_else(PreviewSlot::new),
            picture_of: None,
            preview: preview.unwrap_or_else(PreviewSlot::new),
            requests,
            focus: super::Pane::Browser,
            popup: None,
            service_url: crate::api::sanitize::sanitize(&service_url),
            health: Health::Unknown,
            last_error: error,
            notice: None,
            poll_load: crate::msg::PollLoad::default(),
            theme,
            settings,
            keymap,
            search: Search::default(),
            zoomed: None,
            now,
            areas: Areas::default(),
            persist_sent: 0,
            watch_file_set_aside: false,
            age_signature: 0,
            preferred: Vec::new(),
            first: Vec::new(),
            dirty: true,
            quit: None,
            suspend: false,
            notifier: crate::app::watch::notify::Notifier::new(notify),
            views,
            own_actions: crate::app::own_actions::Running::default(),
        };
        // Until told of the others, the one service known is the one the state was made for.
        let current = service_url.trim_end_matches('/');
        let _ = watch::service::set(&mut state.watch, Services::single(current));
        if let Some(services) = services {
            let mut first = watch::service::set(&mut state.watch, services).cmds;
            first.extend(watch::service::adopt(&mut state.watch).cmds);
            // Tasks that completed while gendash was closed, when their files are wanted.
            first.extend(watch::end::start_downloads(&mut state.watch).cmds);
            state.first = first;
        }
        if let Some(sort) = sort {
            state.watch.sort = sort;
            watch::order::reorder(&mut state.watch, now);
        }
        state.restore_views();
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
