//! The views' routing (`app::views`): the save-view, list and per-view keys of the pane or the
//! archive that has the keys, the views' popups, the view each pane's title names, and each
//! pane's state remembered for the next session.

use super::{Pane, Popup, State};
use crate::app::action::Action;
use crate::app::effects::Effects;
use crate::app::views::apply::{self, Panes};
use crate::app::views::reducer;
use crate::cmd::Cmd;
use crate::store::config::{ViewPane, ViewSpec};
use crate::store::views_file::ViewsOp;
use std::collections::BTreeMap;

impl State {
    /// The pane whose views the keys are about: the archive while it is open, else the
    /// focused pane.
    pub fn view_pane(&self) -> ViewPane {
        if self.archive.open {
            ViewPane::Archive
        } else {
            match self.focus {
                Pane::Browser => ViewPane::Browser,
                Pane::Watch => ViewPane::Watch,
            }
        }
    }

    /// What `pane` shows now, as a view's shape.
    pub fn view_shown(&self, pane: ViewPane) -> crate::app::views::Shape {
        apply::shown(pane, &self.browser, &self.watch, &self.archive)
    }

    /// The view `pane`'s title names: the one applied there last, while the pane shows it.
    pub fn view_in_use(&self, pane: ViewPane) -> Option<&str> {
        self.views.in_use(pane, &self.view_shown(pane))
    }

    /// The view the browser's title names.
    pub fn browser_view(&self) -> Option<&str> {
        self.view_in_use(ViewPane::Browser)
    }

    /// The view the watch list's title names.
    pub fn watch_view(&self) -> Option<&str> {
        self.view_in_use(ViewPane::Watch)
    }

    /// The view the archive's title names.
    pub fn archive_view_in_use(&self) -> Option<&str> {
        self.view_in_use(ViewPane::Archive)
    }

    fn panes(&mut self) -> Panes<'_> {
        Panes {
            browser: &mut self.browser,
            watch: &mut self.watch,
            archive: &mut self.archive,
        }
    }

    /// The save-view key, the list key, or a view's own key, in the pane that has the keys.
    pub(super) fn view_key(&mut self, action: Action) -> Effects {
        let pane = self.view_pane();
        match action {
            Action::SaveView => {
                let in_use = self.view_in_use(pane).map(str::to_string);
                self.popup = Some(reducer::open_prompt(pane, in_use.as_deref()));
                Effects::none()
            }
            // The file is read again as the list opens: views another dashboard saved since
            // join the list when they come back (`Msg::ViewsSaved`).
            Action::OpenViews => {
                let reread = Effects::cmds(vec![Cmd::Views(ViewsOp::Reread)]);
                match reducer::open_list(pane, &self.views, &self.keymap) {
                    Ok(popup) => {
                        self.popup = Some(popup);
                        reread
                    }
                    Err(said) => said.and(reread),
                }
            }
            Action::ApplyView(name) => {
                let now = self.now;
                let mut views = std::mem::take(&mut self.views);
                let fx = reducer::apply_named(&mut views, pane, &name, self.panes(), now);
                self.views = views;
                fx
            }
            _ => Effects::none(),
        }
    }

    /// The saved views as the file holds them now; an open list keeps its selection on one
    /// (another dashboard may have deleted views under it).
    pub(super) fn views_saved(&mut self, saved: &BTreeMap<String, ViewSpec>) -> Effects {
        self.views.set_saved(saved);
        let Some(Popup::Views(l)) = &mut self.popup else {
            return Effects::none();
        };
        let left = self.views.of(l.pane).len();
        l.selected = l.selected.min(left.saturating_sub(1));
        Effects::none().redraw_if(true)
    }

    /// A key in the name prompt or the list.
    pub(super) fn update_views(&mut self, action: Action) -> Effects {
        let now = self.now;
        let mut views = std::mem::take(&mut self.views);
        let fx = if let Some(Popup::ViewName(p)) = &self.popup {
            let shape = self.view_shown(p.pane);
            reducer::prompt(&mut self.popup, &mut views, action, &shape)
        } else {
            let mut popup = self.popup.take();
            let fx = reducer::list(&mut popup, &mut views, &action, self.panes(), now);
            self.popup = popup;
            fx
        };
        self.views = views;
        fx
    }

    /// Each pane's state as it is shown, written for the next session when it changed since
    /// the session began (at the quit: one write, not one per keystroke).
    pub(super) fn remember_views(&mut self) -> Vec<Cmd> {
        let mut cmds = Vec::new();
        for pane in ViewPane::ALL {
            let view = self.view_in_use(pane).map(str::to_string);
            let last = self.view_shown(pane).last(pane, view);
            if self.views.changed(pane, &last) {
                cmds.push(Cmd::Views(ViewsOp::Last(pane, last)));
            }
        }
        cmds
    }

    /// What the last session left in each pane, before the first fetch (`State::new`).
    pub(super) fn restore_views(&mut self) {
        let now = self.now;
        for pane in ViewPane::ALL {
            let Some(last) = self.views.remembered(pane).cloned() else {
                continue;
            };
            apply::restore(pane, &last, self.panes(), now);
            self.views.applied(pane, last.view.clone());
        }
    }
}
