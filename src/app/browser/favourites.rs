//! Favourites: models marked with the favourite key, kept across sessions, and the view that
//! lists only them.

use super::Browser;
use crate::cmd::Cmd;

impl Browser {
    /// `f`: marks or unmarks the selected model; whether it is a favourite now (`None` with
    /// no model selected).
    pub fn toggle_favourite(&mut self) -> Option<bool> {
        let name = self.selected_entry()?.model().to_string();
        let on = !self.favourites.remove(&name);
        if on {
            self.favourites.insert(name.clone());
        }
        // Under `F` or an `is:fav` term the model may no longer be listed (it is the selected
        // one, so listed before): the list only shrinks.
        let by_fav = self
            .is_terms
            .iter()
            .any(|t| t.flag == crate::filter::query::Flag::Fav);
        if (self.only_favourites && !on) || by_fav {
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
