//! The archive view's routing: its keys while it is open (`H` opens it from the watch list).

use super::{Popup, Search, State};
use crate::app::action::Action;
use crate::app::archive_view as archive;
use crate::app::effects::Effects;

impl State {
    /// The archive view has the keys: the help opens over it, the rest is its own.
    pub(super) fn update_archive(&mut self, action: Action) -> Effects {
        self.archive.set_viewport(&self.areas);
        match action {
            Action::Wheel { down, .. } => {
                self.archive.move_by(if down { 3 } else { -3 });
                Effects::cmd(self.archive.want_detail())
            }
            Action::ToggleHelp => {
                self.popup = Some(Popup::Help { scroll: 0 });
                self.search = Search::default();
                Effects::none()
            }
            Action::OpenPalette => {
                self.popup = Some(Popup::Palette(super::Palette::default()));
                Effects::none()
            }
            Action::ReloadConfig => Effects::cmds(vec![crate::cmd::Cmd::ReloadConfig]),
            Action::RunOwn(own) => self.run_own(&own),
            _ if self.archive.editing => archive::reducer::update_filter(&mut self.archive, action),
            Action::SaveView | Action::OpenViews | Action::ApplyView(_) => self.view_key(action),
            _ => {
                let (keys, now) = (&self.keymap, self.now);
                archive::reducer::update(&mut self.archive, &mut self.watch, &action, keys, now)
            }
        }
    }

    /// `H` in the watch list: the view opens and asks for the list.
    pub(super) fn open_archive(&mut self) -> Effects {
        self.archive.set_viewport(&self.areas);
        Effects::cmds(vec![self.archive.open()]).and(Effects::cmd(self.archive.want_detail()))
    }
}
