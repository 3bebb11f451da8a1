//! The category field: the categories offered (configured, recent, those of the catalogues
//! loaded), walking them, and remembering the ones that listed something.

use super::{Browser, Field};
use crate::api::LoraEntry;
use crate::cmd::Cmd;

/// How many recent categories are remembered.
const RECENT_CATEGORIES: usize = 8;

impl Browser {
    /// Configured categories first, then recently used ones not configured.
    pub fn known_categories(&self) -> Vec<String> {
        let mut known = self.configured_categories.clone();
        for c in self.recent_categories.iter().rev() {
            if !known.contains(c) {
                known.push(c.clone());
            }
        }
        // Then those of the loaded catalogue, most common first (alphabetical among equals).
        let mut seen: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
        for c in self.entries.iter().filter_map(LoraEntry::category) {
            *seen.entry(c).or_default() += 1;
        }
        let mut seen: Vec<(&str, usize)> = seen.into_iter().collect();
        seen.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        for (c, _) in seen {
            if !known.iter().any(|k| k == c) {
                known.push(c.to_string());
            }
        }
        // Then those of earlier catalogues: a category that matched nothing leaves the list
        // empty, and the way out is another category.
        for c in &self.seen_categories {
            if !known.contains(c) {
                known.push(c.clone());
            }
        }
        known
    }

    /// Up/Down in the category field walk the known categories; in the filter they move the
    /// selection, as in fzf (Enter then leaves the field with it).
    pub fn pick(&mut self, forward: bool) {
        if self.editing == Some(Field::Filter) {
            self.move_by(if forward { 1 } else { -1 });
            return;
        }
        let known = self.known_categories();
        if self.editing != Some(Field::Category) || known.is_empty() {
            return;
        }
        let n = known.len();
        let next = match (self.pick, forward) {
            (None, true) => 0,
            (None, false) => n - 1,
            (Some(i), true) => (i + 1) % n,
            (Some(i), false) => (i + n - 1) % n,
        };
        self.pick = Some(next);
        self.category_draft.clone_from(&known[next]);
    }

    /// The category just applied, now that the catalogue for it came back with entries.
    pub(super) fn remember_category(&mut self, listed: bool) -> Option<Cmd> {
        let cate = self.remember.take().filter(|_| listed)?;
        self.recent_categories.retain(|c| c != &cate);
        self.recent_categories.push(cate);
        let excess = self
            .recent_categories
            .len()
            .saturating_sub(RECENT_CATEGORIES);
        self.recent_categories.drain(..excess);
        Some(Cmd::RememberCategories(self.recent_categories.clone()))
    }
}
