//! The screen's side of the state: its layout on resize, the screen's own keys (moves, zoom,
//! focus, the detail section), mouse clicks and the wheel, the mode (what has the keys), the
//! picture and the rows the poller serves first (kept in step after every input and report),
//! and what the clock changes on screen.

use super::State;
use crate::api::TaskState;
use crate::app::action::Action;
use crate::app::gallery::GalleryOf;
use crate::app::keymap::{Context, Mode, TextField};
use crate::app::layout::{Areas, ContainsPoint, Pane};
use crate::app::popup::Popup;
use crate::app::watch::{DownloadView, Row, order};
use crate::cmd::{Cmd, PollCmd, PreviewSource, TaskKey};

impl State {
    /// The runtime drew the screen: nothing waits to be drawn until the next change.
    pub fn drawn(&mut self) {
        self.dirty = false;
    }

    /// The work a keystroke left until its frame was drawn (the rest of the archive's list
    /// read for a query): done now, and drawn in the next frame.
    pub fn settle(&mut self) {
        if self.archive.settle() {
            self.dirty = true;
        }
    }

    /// The terminal could not be handed back to the shell (Ctrl+Z): the status bar says so.
    pub fn suspend_failed(&mut self) {
        self.last_error = Some("could not suspend".into());
        self.dirty = true;
    }

    /// What has the keys now, named once: the reducer routes on it and the keymap's contexts
    /// come from it. A popup first, then the archive view, then a field being typed in, then
    /// the focused pane.
    pub fn mode(&self) -> Mode {
        match &self.popup {
            Some(Popup::Help { .. }) if self.search.editing => Mode::Typing(TextField::HelpSearch),
            Some(Popup::Requests) if self.search.editing => Mode::Typing(TextField::LogSearch),
            Some(Popup::Help { .. }) => Mode::Help,
            Some(Popup::Requests) => Mode::Requests,
            Some(Popup::Add(d)) if d.relabel.is_some() => Mode::LabelEditor,
            Some(Popup::Add(_)) => Mode::AddDialog,
            Some(Popup::Confirm(_)) => Mode::Confirm,
            Some(Popup::RemoveCompleted { .. }) => Mode::RemoveCompleted,
            Some(Popup::Palette(_)) => Mode::Palette,
            Some(Popup::ViewName(_)) => Mode::ViewName,
            Some(Popup::Views(l)) if l.deleting.is_some() => Mode::DeleteView,
            Some(Popup::Views(_)) => Mode::Views,
            None => self.mode_beneath(),
        }
    }

    /// What has the keys once the popup is closed: the mode the palette's actions run in.
    pub fn mode_beneath(&self) -> Mode {
        if self.archive.open && self.archive.editing {
            Mode::Typing(TextField::ArchiveFilter)
        } else if self.archive.open && self.gallery.archive {
            Mode::Gallery(GalleryOf::Archive)
        } else if self.archive.open {
            Mode::Archive
        } else if self.focus == Pane::Browser && self.browser.editing.is_some() {
            Mode::Typing(TextField::Browser)
        } else if self.focus == Pane::Watch && self.watch.editing {
            Mode::Typing(TextField::WatchFilter)
        } else if self.focus == Pane::Watch && self.gallery.watch {
            Mode::Gallery(GalleryOf::Watch)
        } else {
            Mode::Pane(self.focus)
        }
    }

    /// Which keymap contexts apply now, most specific first: the mode's.
    pub fn contexts(&self) -> Vec<Context> {
        self.mode().contexts().to_vec()
    }

    /// Whether a suspend was asked for since the last call; asking again clears it.
    pub fn take_suspend(&mut self) -> bool {
        std::mem::take(&mut self.suspend)
    }

    /// The focused pane, for the view (derived from popups and focus).
    pub fn is_focused(&self, pane: Pane) -> bool {
        self.popup.is_none() && self.focus == pane
    }

    /// The mouse wheel over a pane scrolls it, three rows a notch.
    pub(super) fn wheel(&mut self, column: u16, row: u16, down: bool) {
        let delta = if down { 3 } else { -3 };
        match self.areas.pane_at(column, row) {
            Some(Pane::Browser) => self.browser.move_by(delta),
            Some(Pane::Watch) => self.watch.move_by(delta),
            None => {}
        }
    }

    /// The focused pane over the whole screen (`z`), or back.
    pub(super) fn zoom(&mut self) {
        self.zoomed = match self.zoomed {
            None => Some(self.focus),
            Some(_) => None,
        };
        self.relayout();
    }

    /// The keys to the other pane (Tab); a zoomed screen shows the pane that has them.
    pub(super) fn focus_next(&mut self) {
        self.focus = match self.focus {
            Pane::Browser => Pane::Watch,
            Pane::Watch => Pane::Browser,
        };
        if self.zoomed.is_some() {
            self.zoomed = Some(self.focus);
            self.relayout();
        }
    }

    /// The watch list's detail section shown or hidden: its room is the layout's.
    pub(super) fn toggle_detail(&mut self) {
        let shown = self.areas.watch_detail.height > 0;
        self.watch.detail = Some(!shown);
        self.relayout();
    }

    /// A move key in the focused pane: a row, a page, or to either end.
    pub(super) fn move_focused(&mut self, action: &Action) {
        let page = |v: usize| isize::try_from(v.max(1)).unwrap_or(isize::MAX);
        let (len, viewport) = match self.focus {
            Pane::Browser => (self.browser.matches.len(), self.browser.cursor.viewport),
            Pane::Watch => (self.watch.rows.len(), self.watch.cursor.viewport),
        };
        let delta = match action {
            Action::Up => -1,
            Action::Down => 1,
            Action::PageUp => -page(viewport),
            Action::PageDown => page(viewport),
            Action::Top => -page(len),
            _ => page(len),
        };
        match self.focus {
            Pane::Browser => self.browser.move_by(delta),
            Pane::Watch => self.watch.move_by(delta),
        }
    }

    /// The terminal answered the graphics question without a protocol gendash can draw: the
    /// picture slot says why previews are off.
    pub fn previews_off(&mut self, slot: crate::app::preview_slot::PreviewSlot) {
        self.model_preview = slot.clone();
        self.preview = slot;
        self.dirty = true;
    }

    /// Selects the watch list's `at`th shown row, as a click on it would (plain mode's line
    /// commands name a task, then act on it).
    pub fn select_watched(&mut self, at: usize) {
        self.watch.select(at);
        self.dirty = true;
    }

    /// Counts persistence commands so file snapshots that predate them are not merged, and
    /// tells the poller when the rows on screen changed.
    pub(super) fn track(&mut self, mut cmds: Vec<Cmd>) -> Vec<Cmd> {
        // The filter's detail line came or went: the list gives or takes its row.
        if self.browser.filter_detail.is_some() != self.areas.filter_detail {
            self.relayout();
        }
        self.persist_sent += cmds.iter().filter(|c| matches!(c, Cmd::Persist(_))).count() as u64;
        if let Some(prefer) = self.prefer_visible() {
            cmds.push(prefer);
        }
        cmds.extend(self.sync_preview());
        cmds.extend(self.sync_model_preview());
        cmds.extend(self.sync_gallery());
        if self.quit.is_some() {
            // What each pane shows is left for the next session (the quit waits for it).
            cmds.extend(self.remember_views());
        }
        cmds
    }

    /// The picture the selected catalogue entry's metadata names, when the browser's detail
    /// has room for it: its key the model's name, its source the URL (see
    /// `browser::entry_picture`).
    pub fn model_preview_source(&self) -> Option<(TaskKey, PreviewSource)> {
        if self.areas.browser_preview.is_empty() || self.archive.open {
            return None;
        }
        let entry = self.browser.selected_entry()?;
        let url = match &self.picture_of {
            Some((of, base, url)) if of == entry && *base == self.service_url => url.clone(),
            _ => crate::app::browser::entry_picture::url_of(entry, &self.service_url),
        }?;
        Some((
            TaskKey::new(crate::api::TaskKind::Image, entry.model()),
            PreviewSource::Url(url),
        ))
    }

    /// Asks for the selected catalogue entry's picture, if the worker has work to do: only
    /// the selected entry's, only once it is selected, never waited for.
    fn sync_model_preview(&mut self) -> Option<Cmd> {
        self.remember_picture();
        let Some((key, source)) = self.model_preview_source() else {
            self.model_preview.clear();
            return None;
        };
        let area = self.areas.browser_preview.as_size();
        self.model_preview
            .show(&key, &source, area)
            .map(Cmd::ModelPreview)
    }

    /// Works out the selected entry's picture URL once per entry selected (an entry a reload
    /// kept is the same `Arc`, compared by address first).
    fn remember_picture(&mut self) {
        let Some(entry) = self.browser.selected_entry() else {
            return;
        };
        let known = self
            .picture_of
            .as_ref()
            .is_some_and(|(of, base, _)| of == entry && *base == self.service_url);
        if !known {
            let url = crate::app::browser::entry_picture::url_of(entry, &self.service_url);
            self.picture_of = Some((entry.clone(), self.service_url.clone(), url));
        }
    }

    /// The selected task's picture, when the detail section shows a finished task and has room
    /// for it: from the saved file if it was downloaded, else from its URL.
    pub fn preview_source(&self) -> Option<(TaskKey, PreviewSource)> {
        if self.areas.watch_preview.is_empty() {
            return None;
        }
        let r = self.watch.selected_row()?;
        if r.state != TaskState::Completed {
            return None;
        }
        let source = match &r.download {
            Some(DownloadView::Saved(path)) => PreviewSource::File(path.into()),
            _ => PreviewSource::Url(r.url()?.to_string()),
        };
        Some((r.key(), source))
    }

    /// Asks for the picture the detail section now shows, if the worker has work to do.
    fn sync_preview(&mut self) -> Option<Cmd> {
        let wanted = if self.archive.open {
            self.archive.preview(&self.areas)
        } else {
            let area = self.areas.watch_preview.as_size();
            self.preview_source()
                .map(|(key, source)| (key, source, area))
        };
        let Some((key, source, area)) = wanted else {
            self.preview.clear();
            return None;
        };
        self.preview.show(&key, &source, area).map(Cmd::Preview)
    }

    /// A `Prefer` for the rows on screen if they are not those the poller was last told of
    /// (scrolled, resized, rows added or removed); compared in place, as this runs after every
    /// input and report. Rows keep their order, so the same rows in the same order are the
    /// same set.
    fn prefer_visible(&mut self) -> Option<Cmd> {
        let mut shown = 0;
        let mut same = true;
        for (i, r) in self.watch.visible().enumerate() {
            shown += 1;
            same &= self
                .preferred
                .get(i)
                .is_some_and(|k| r.entry.kind == k.kind && r.entry.task_id == k.id);
        }
        if same && shown == self.preferred.len() {
            return None;
        }
        self.preferred = self.watch.visible().map(Row::key).collect();
        Some(Cmd::Poll(PollCmd::Prefer(self.preferred.clone())))
    }

    pub(super) fn resize(&mut self, width: u16, height: u16) {
        self.areas = Areas::compute_zoomed(
            width,
            height,
            self.watch.detail,
            self.browser.filter_detail.is_some(),
            self.zoomed,
        );
        self.browser.cursor.viewport = usize::from(self.areas.browser_list.height.max(1));
        self.watch.cursor.viewport = usize::from(self.areas.watch_rows.height.max(1));
        self.browser.scroll_into_view();
        self.watch.scroll_into_view();
        self.archive.set_viewport(&self.areas);
        // Only an open help has a scroll to keep within its lines.
        if let Some(Popup::Help { scroll }) = &mut self.popup {
            let max = crate::app::help::help_scroll_max(
                self.keymap
                    .help_lines_at(crate::app::help::inner_width(self.areas.help))
                    .len(),
                self.areas.help.height,
            );
            *scroll = (*scroll).min(max);
        }
        self.requests
            .set_viewport(usize::from(self.areas.requests_rows.height));
    }

    /// The same size laid out again (the detail section was shown or hidden).
    pub(super) fn relayout(&mut self) {
        self.resize(self.areas.full.width, self.areas.full.height);
    }

    /// A click focuses the pane it fell in, and selects the row or field under it.
    pub(super) fn click(&mut self, column: u16, row: u16) {
        if self.popup.is_some() {
            return;
        }
        if self.archive.open {
            let list = crate::app::archive_view::areas(&self.areas).list;
            if list.contains_point(column, row) {
                let at = self.archive.cursor.offset + usize::from(row - list.y);
                self.archive.select(at);
            }
            return;
        }
        let a = self.areas;
        if a.browser_list.contains_point(column, row) {
            self.focus = Pane::Browser;
            self.browser.editing = None;
            self.browser
                .select(self.browser.cursor.offset + usize::from(row - a.browser_list.y));
        } else if a.browser_filter.contains_point(column, row) {
            self.focus = Pane::Browser;
            self.browser
                .start_editing(crate::app::browser::Field::Filter);
        } else if a.watch_rows.contains_point(column, row) {
            self.focus = Pane::Watch;
            self.browser.editing = None;
            self.watch
                .select(self.watch.cursor.offset + usize::from(row - a.watch_rows.y));
        } else if let Some(p) = a.pane_at(column, row) {
            if p == Pane::Watch {
                self.browser.editing = None;
            }
            self.focus = p;
        }
    }

    /// The clock moved on: stalls and retries, the health's `reconnected`, the notice's time
    /// up; redrawn only when something shown changes, so an idle dashboard stays idle.
    pub(super) fn tick(&mut self, now: u64) {
        self.now = now;
        order::tick(&mut self.watch, now);
        self.settle_health();
        if self.notice.as_ref().is_some_and(|n| now >= n.until) {
            self.notice = None;
            self.dirty = true;
        }
        // Redraw only when a shown age would change.
        let sig = self.age_signature();
        if sig != self.age_signature {
            self.age_signature = sig;
            self.dirty = true;
        }
    }

    /// A digest of what the clock changes on screen: the counts in the title (stalls), and
    /// the ages, ETAs, phases and retry countdowns of the rows shown and the selected one.
    fn age_signature(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        let now = self.now;
        crate::app::watch::row::counts(&self.watch, now).hash(&mut h);
        for r in self.watch.visible().chain(self.watch.selected_row()) {
            crate::fmt::age_label(r.entry.added_at, now).hash(&mut h);
            r.entry
                .last
                .as_ref()
                .map(|l| crate::fmt::age_label(l.updated_at, now))
                .hash(&mut h);
            r.eta(now).map(crate::fmt::format_eta).hash(&mut h);
            r.phase(now, self.watch.stall_after).hash(&mut h);
            r.next_retry_at()
                .map(|t| t.saturating_sub(now))
                .hash(&mut h);
            // The detail's "polled 5s ago", which an error answers too.
            r.polled_at
                .map(|t| crate::fmt::age_label(t, now))
                .hash(&mut h);
        }
        // The detail's "next poll in 12s", of the selected row only.
        let next = self.watch.selected_row().and_then(|r| r.next_poll);
        next.map(|p| p.left(now)).hash(&mut h);
        self.browser.cached_mark(now).hash(&mut h);
        h.finish()
    }
}

#[cfg(test)]
#[path = "screen_tests.rs"]
mod tests;
