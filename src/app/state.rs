//! The App's state and its two reducers: `update` (an input's `Action`) and `apply` (a worker's
//! `Msg`). Both only route: each pane, popup and view has its reducer in its own module
//! (`browser`, `watch`, `archive_view`, `add`, `confirm`, `help`, `request_log`), which returns
//! `Effects`; `update` routes on `mode()`, the one answer to what has the keys, which the
//! keymap's contexts come from too. The rest of `State` lives in `state/`: `new` (made from one
//! `Init`), `screen` (the layout, the screen's own keys and clicks, the mode, the picture and
//! the rows polled first, the clock), `status_bar` (`absorb`, which carries the `Effects` out, and the
//! health), `notifications` (finishes and stalls to the notification policy) and
//! `archive_routing` (the archive view's keys). Whatever changes what is on screen sets `dirty`.

mod archive_routing;
mod gallery_routing;
mod new;
mod notifications;
mod own_routing;
mod reconfigure;
mod screen;
mod status_bar;
mod terminal_focus;
mod views_routing;

use super::archive_view as archive;
use super::effects::Effects;
use super::{add, browser, confirm, help, request_log, watch};
use crate::cmd::{Cmd, PollCmd};
use crate::msg::Msg;

// Everything the view reads is reachable from here: the view imports this module only.
pub use super::action::Action;
pub use super::archive_view::{
    ArchiveAreas, ArchiveSort, ArchiveView, areas as archive_areas, completed as archive_completed,
};
pub use super::browser::{Browser, Field, Load};
pub use super::cursor::Cursor;
pub use super::gallery::{GalleryOf, Thumb, Tile, tiles as gallery_tiles};
pub use super::help::help_scroll_max;
pub use super::init::{Demo, Init, UiSettings};
pub use super::keymap::{Binding, Context, HelpLine, Keymap, Mode, Priority, TextField};
pub use super::layout::{Areas, Pane};
pub use super::palette::{Entry as PaletteEntry, Outcome, Palette};
pub use super::popup::{AddDialog, Confirm, Popup, Search, Then};
pub use super::popup::{ViewList, ViewName};
pub use super::preview_slot::PreviewSlot;
pub use super::reconfigured::Reconfigured;
pub use super::request_log::{KEEP as REQUESTS_KEPT, RequestLog};
pub use super::status::{Health, NOTICE_SECONDS, Notice};
pub use super::theme::Theme;
pub use super::views::reducer::{pane_context as view_context, pane_words as view_words};
pub use super::views::{Listed as ListedView, Views, summary as view_summary};
pub use super::watch::{Counts, DownloadView, Phase, Row, SortKey, Watch};

/// Why the dashboard ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quit {
    /// The user asked (the quit key, or the input closed).
    User,
    /// A signal asked (its number: SIGINT, SIGTERM, SIGHUP).
    Signal(i32),
}

#[derive(Debug)]
pub struct State {
    pub browser: Browser,
    /// The archive view (`H`), over the panes while open.
    pub archive: ArchiveView,
    pub watch: Watch,
    pub focus: Pane,
    pub popup: Option<Popup>,
    pub service_url: String,
    pub health: Health,
    pub last_error: Option<String>,
    /// A short message about the last action ("copied …", "opened …"), set by `say`.
    pub notice: Option<Notice>,
    /// The selected finished task's picture in the detail section.
    pub preview: PreviewSlot,
    /// The selected catalogue entry's picture in the browser's detail.
    pub model_preview: PreviewSlot,
    /// The entry whose picture URL was last worked out, the base URL it was resolved against,
    /// and the URL: `sync_model_preview` runs after every message, and parsing the entry's
    /// metadata each time was a few µs of every poll.
    picture_of: Option<(crate::api::LoraEntry, String, Option<String>)>,
    /// The last requests made, for the request log.
    pub requests: RequestLog,
    /// The poller's requests per second and polls in flight, for the status bar.
    pub poll_load: crate::msg::PollLoad,
    pub settings: UiSettings,
    pub keymap: Keymap,
    /// The search of the help or the request log, whichever is open.
    pub search: Search,
    /// The pane that covers the screen (`z`): always the focused one.
    pub zoomed: Option<Pane>,
    pub theme: Theme,
    /// Wall-clock seconds since the epoch, advanced by ticks: the reducers' only clock.
    pub now: u64,
    pub areas: Areas,
    /// Ops sent to the store; a file snapshot is merged only once it includes all of them.
    pub persist_sent: u64,
    /// A saved list was set aside (older than ops in flight) since the last merge: the next
    /// one is merged even if the saver says it holds only the App's own ops.
    watch_file_set_aside: bool,
    age_signature: u64,
    /// The tasks the poller was told to poll first (by `start`, then whenever the rows on
    /// screen changed): the watch pane's visible rows, the selected one among them.
    preferred: Vec<crate::cmd::TaskKey>,
    /// Commands due before `start`'s own (see `Init::services`).
    first: Vec<Cmd>,
    pub dirty: bool,
    /// Set when the dashboard should end; the event loop returns it.
    pub quit: Option<Quit>,
    /// Set when the user asked to suspend (Ctrl-Z); the event loop carries it out.
    suspend: bool,
    /// The notification policy: which finishes and stalls are told, and when.
    pub notifier: watch::notify::Notifier,
    /// The saved views, and which each pane shows (boxed: the dashboard's future holds the
    /// state).
    pub views: Box<super::views::Views>,
    /// The user's `[[actions]]` running now.
    pub own_actions: super::own_actions::Running,
    /// Which panes show their gallery, and the pictures of the tiles near the screen.
    pub gallery: super::gallery::Gallery,
}

impl State {
    /// The first commands: those the services and the saved list called for (see `Init`),
    /// then load the catalogue, start polling, the rows on screen first.
    pub fn start(&mut self) -> Vec<Cmd> {
        // Keys `[keys]` took from built-in actions are said once, at start.
        let given_up = self
            .keymap
            .given_up_notice()
            .map(|text| Effects::say(text).whole());
        let mut cmds = self.absorb(given_up.unwrap_or_else(Effects::none));
        cmds.extend(self.take_first());
        cmds.extend([
            self.browser.fetch(),
            Cmd::Poll(PollCmd::Prefer(self.preferred.clone())),
        ]);
        cmds.extend(watch::poll::start_polling(&self.watch));
        cmds
    }

    /// The reducer for inputs: the screen's own keys here, the rest to the open popup, the
    /// field being typed in, or the focused pane.
    // One arm a mode: it grows with the modes, and reads as the list of them.
    #[allow(clippy::too_many_lines)]
    pub fn update(&mut self, action: Action) -> Vec<Cmd> {
        self.dirty = true;
        // Typed and pasted text can carry controls and escape sequences too.
        // The add dialog checks its pastes itself: an ID is refused, not cleaned into another.
        let mode = self.mode();
        let action = match action {
            Action::Paste(text) if !matches!(mode, Mode::AddDialog | Mode::LabelEditor) => {
                Action::Paste(add::clean_paste(&text))
            }
            other => other,
        };
        let looks = !matches!(
            action,
            Action::Resize { .. } | Action::Terminate(_) | Action::Suspend | Action::Quit
        );
        let (now, keys, help) = (self.now, &self.keymap, self.areas.help);
        let fx = match action {
            Action::Type(c) if c.is_control() => Effects::none(),
            Action::Quit => {
                self.quit = Some(Quit::User);
                Effects::none()
            }
            Action::Resize { width, height } => {
                self.resize(width, height);
                Effects::none()
            }
            Action::Click { column, row } if matches!(mode, Mode::Gallery(_)) => {
                self.gallery_click(mode, column, row)
            }
            Action::Wheel { down, .. } if matches!(mode, Mode::Gallery(_)) => {
                self.gallery_wheel(mode, down)
            }
            Action::ToggleGallery => self.toggle_gallery(mode),
            Action::Click { column, row } => {
                self.click(column, row);
                Effects::none()
            }
            w @ Action::Wheel { .. }
                if matches!(mode, Mode::Archive | Mode::Typing(TextField::ArchiveFilter)) =>
            {
                self.update_archive(w)
            }
            Action::Wheel { column, row, down } => {
                self.wheel(column, row, down);
                Effects::none()
            }
            Action::Terminate(signal) => {
                self.quit = Some(Quit::Signal(signal));
                Effects::none()
            }
            Action::Suspend => {
                self.suspend = true;
                Effects::none()
            }
            _ => match mode {
                Mode::Typing(TextField::HelpSearch) => {
                    help::search(&mut self.popup, &mut self.search, action, keys, help)
                }
                Mode::Typing(TextField::LogSearch) => {
                    request_log::search(&mut self.search, &mut self.requests, action)
                }
                Mode::RemoveCompleted => {
                    confirm::remove_completed(&mut self.popup, &mut self.watch, &action, keys, now)
                }
                Mode::Palette => {
                    if let Some(run) = self.update_palette(action) {
                        // Run as its key would be, in the mode beneath the palette.
                        return self.update(run);
                    }
                    Effects::none()
                }
                Mode::Help => help::update(&mut self.popup, &mut self.search, &action, keys, help),
                Mode::AddDialog | Mode::LabelEditor => add::update(
                    &mut self.popup,
                    &mut self.focus,
                    &mut self.watch,
                    action,
                    now,
                ),
                Mode::Confirm => self.update_confirm(&action),
                Mode::Requests => request_log::update(
                    &mut self.popup,
                    &mut self.search,
                    &mut self.requests,
                    &action,
                ),
                Mode::Views | Mode::DeleteView | Mode::ViewName => self.update_views(action),
                Mode::Archive | Mode::Typing(TextField::ArchiveFilter) => {
                    self.update_archive(action)
                }
                Mode::Typing(TextField::Browser) => {
                    browser::update_field(&mut self.browser, action)
                }
                Mode::Typing(TextField::WatchFilter) => {
                    watch::reducer::update_filter(&mut self.watch, action, now)
                }
                Mode::Pane(_) => self.update_normal(action),
                Mode::Gallery(of) => self.update_gallery(of, action),
            },
        };
        // The selected task is looked at: the watch pane has the keys, or its detail shows.
        let looking = looks
            && !self.archive.open
            && ((self.popup.is_none() && self.focus == Pane::Watch)
                || self.areas.watch_detail.height > 0);
        let fx = fx.and(watch::unseen::look(&mut self.watch, looking));
        let cmds = self.absorb(fx);
        self.track(cmds)
    }

    /// No popup open, no field typed in: the screen's keys, then the focused pane's.
    fn update_normal(&mut self, action: Action) -> Effects {
        match action {
            Action::ToggleHelp => {
                self.popup = Some(Popup::Help { scroll: 0 });
                self.search = Search::default();
            }
            Action::ToggleRequests => {
                self.popup = Some(Popup::Requests);
                self.search = Search::default();
            }
            Action::OpenPalette => self.popup = Some(Popup::Palette(Palette::default())),
            // The runtime reads the file and answers with `reconfigure`.
            Action::ReloadConfig => return Effects::cmds(vec![Cmd::ReloadConfig]),
            Action::Zoom => self.zoom(),
            Action::OpenAddDialog => self.popup = Some(Popup::Add(AddDialog::with(String::new()))),
            Action::ToggleArchive => return self.open_archive(),
            Action::FocusNext => self.focus_next(),
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom => self.move_focused(&action),
            Action::Paste(text) if self.focus == Pane::Watch => {
                self.popup = Some(Popup::Add(AddDialog::with(text)));
            }
            // The detail section's room is the layout's.
            Action::ToggleDetail if self.focus == Pane::Watch => self.toggle_detail(),
            Action::SaveView | Action::OpenViews | Action::ApplyView(_) => {
                return self.view_key(action);
            }
            Action::RunOwn(own) => return self.run_own(&own),
            _ => {
                return match self.focus {
                    Pane::Browser => browser::update(&mut self.browser, &action, &self.keymap),
                    Pane::Watch => watch::reducer::update(
                        &mut self.watch,
                        &mut self.popup,
                        &action,
                        &self.keymap,
                        self.now,
                    ),
                };
            }
        }
        Effects::none()
    }

    /// A key in the palette; the action it runs, if any, the palette closed first.
    fn update_palette(&mut self, action: Action) -> Option<Action> {
        let beneath = self.mode_beneath();
        // A page is the rows the palette shows (its frame, field and rule take three).
        let page = usize::from(self.areas.help.height.saturating_sub(3)).max(1);
        let Some(Popup::Palette(palette)) = &mut self.popup else {
            return None;
        };
        let shown = super::palette::matching(
            &super::palette::entries(&self.keymap, beneath),
            &palette.query,
        );
        match super::palette::update(palette, action, &shown, page) {
            Outcome::Stay => None,
            Outcome::Close => {
                self.popup = None;
                None
            }
            Outcome::Run(run) => {
                self.popup = None;
                Some(run)
            }
        }
    }

    /// The reducer for worker reports: each to the pane it is about.
    pub fn apply(&mut self, msg: Msg) -> Vec<Cmd> {
        let fx = match msg {
            Msg::Catalogue { generation, result } => {
                let ok = result.is_ok();
                if let Err(e) = &result {
                    self.note_error(e);
                }
                let Some(fx) = browser::catalogue(&mut self.browser, generation, result) else {
                    return Vec::new();
                };
                if ok {
                    self.connected();
                }
                fx
            }
            Msg::CachedCatalogue { generation, cached } => self.browser.cached(generation, cached),
            Msg::Ranked {
                generation,
                matches,
            } => Effects::none().redraw_if(self.browser.ranked(generation, matches)),
            Msg::Compared { generation, diff } => self.browser.compared(generation, diff),
            Msg::Polled {
                key,
                result,
                retry_in,
                next,
            } => {
                match watch::poll::service_says(&self.watch, &key, &result) {
                    watch::ServiceSays::Nothing => {}
                    watch::ServiceSays::Answers => self.connected(),
                    watch::ServiceSays::Reports(e) => self.note_error(e),
                }
                let fx = watch::poll::polled(&mut self.watch, &key, result, retry_in, self.now);
                let shown = watch::next_poll::keep(&mut self.watch, &key, next, self.now);
                self.as_configured(fx.redraw_if(shown))
            }
            Msg::Claimed { key, won } => {
                let finish = watch::end::awaiting_announce(&self.watch, &key);
                let fx = watch::end::claimed(&mut self.watch, &key, won);
                if let Some(f) = finish {
                    self.told_finish(&f, won);
                }
                self.as_configured(fx)
            }
            Msg::RunEnded { here } => self.run_ended(here),
            Msg::Download { key, event } => watch::reducer::download(
                &mut self.watch,
                &mut self.archive,
                &mut self.popup,
                &self.keymap,
                watch::reducer::Download::Event { key, event },
            ),
            Msg::WatchFile { entries, applied } => {
                let Some(fx) = self.watch_file(&entries, applied) else {
                    return Vec::new();
                };
                fx
            }
            Msg::WatchSaved { entries, applied } => {
                let Some(fx) = self.watch_saved(&entries, applied) else {
                    return Vec::new();
                };
                fx
            }
            Msg::HookFailed(why) => watch::reducer::hook_failed(&mut self.watch, &why),
            Msg::ActionEnded(ended) => super::own_actions::ended(&mut self.own_actions, ended),
            Msg::Request(record) => {
                self.requests.push(record);
                // Only an open log shows it.
                Effects::none().redraw_if(matches!(self.popup, Some(Popup::Requests)))
            }
            Msg::Preview(report) => Effects::none().redraw_if(self.preview.apply(report)),
            Msg::Thumbnail(msg) => Effects::none().redraw_if(self.gallery_msg(msg)),
            Msg::ModelPreview(report) => {
                Effects::none().redraw_if(self.model_preview.apply(report))
            }
            Msg::StoreProblem(text) => Effects::fail(text),
            Msg::ViewsSaved(saved) => self.views_saved(&saved),
            Msg::ServiceUnusable { service, error } => {
                watch::reducer::service_unusable(&mut self.watch, service, error)
            }
            Msg::Copied { clip, via } => super::status::copied(&clip, via),
            Msg::Opened(opened) => super::status::opened(opened, &self.keymap).redraw_if(true),
            Msg::PollLoad(load) => super::status::poll_load(&mut self.poll_load, load),
            Msg::Archive(report) => {
                archive::reducer::report(&mut self.archive, report, &self.keymap)
            }
            Msg::Tick(now) => {
                self.tick(now);
                self.told_stalls(now)
            }
            Msg::Background { light } => {
                Effects::none().redraw_if(self.theme.follow_background(light))
            }
        };
        let fx = self.settle_all_done(fx);
        let cmds = self.absorb(fx);
        self.track(cmds)
    }

    /// The watch list as another process left it (`Msg::WatchFile`): merged, unless older
    /// than ops in flight (`None`).
    fn watch_file(
        &mut self,
        entries: &[crate::store::watchlist::WatchEntry],
        applied: u64,
    ) -> Option<Effects> {
        if applied < self.persist_sent {
            // Older than ops in flight, it would undo them; the news it may hold comes with
            // the next list (see `Msg::WatchSaved`).
            self.watch_file_set_aside = true;
            return None;
        }
        self.watch_file_set_aside = false;
        Some(watch::merge::external(&mut self.watch, entries, self.now))
    }

    /// The list the saver wrote (`Msg::WatchSaved`): merged only if a list was set aside
    /// since the last merge (`None` otherwise).
    fn watch_saved(
        &mut self,
        entries: &[crate::store::watchlist::WatchEntry],
        applied: u64,
    ) -> Option<Effects> {
        // Older than ops in flight: the next list has all it has.
        if applied < self.persist_sent {
            return None;
        }
        if !std::mem::take(&mut self.watch_file_set_aside) {
            // Only the App's own ops since the last list it merged: nothing to merge.
            return None;
        }
        Some(watch::merge::external(&mut self.watch, entries, self.now))
    }
}

#[cfg(test)]
mod tests;
