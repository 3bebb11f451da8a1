//! Favourites: models marked with the favourite key, kept across sessions, and the view that
//! lists only them.

use super::Browser;
use crate::cmd::Cmd;

impl Browser {
    /// `f`: marks or unmarks the selected model; whether it is a favourite now (`None` with
    /// no model selected).
    pub fn toggle_favourite(&mut self) -> Option<bool> {
        let name = self.selected_entry()?.model.clone();
        let on = !self.favourites.remove(&name);
        if on {
            self.favourites.insert(name.clone());
        }
        if self.only_favourites && !on {
            let keep = self
                .selected_entry_index()
                .filter(|_| self.query.is_empty());
            let matches = self.matches.clone();
            self.show(matches, keep);
        }
        Some(on)
    }

    /// `F`: lists only the favourites, or everything again.
    pub fn toggle_only_favourites(&mut self) -> Option<Cmd> {
        self.only_favourites = !self.only_favourites;
        self.refilter()
    }
}
