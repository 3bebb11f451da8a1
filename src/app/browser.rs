//! The LoRA browser's state and reducer: server-side filters (type, category), the local fuzzy
//! filter, selection and scrolling.

use super::cursor::Cursor;
use crate::api::{Catalogue, LoraEntry, LoraType};
use crate::app::filter::FuzzyFilter;
use crate::msg::Cmd;

/// How many recent categories are remembered.
const RECENT_CATEGORIES: usize = 8;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Load {
    Loading,
    Loaded,
    Failed(String),
}

/// Which text field of the browser has the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Filter,
    Category,
}

#[derive(Debug)]
pub struct Browser {
    pub entries: Vec<LoraEntry>,
    pub skipped: usize,
    pub load: Load,
    /// Bumped on each fetch; answers to older fetches are dropped.
    pub generation: u64,
    pub query: String,
    pub editing: Option<Field>,
    pub lora_type: Option<LoraType>,
    /// The category in force (sent to the service), and the one being typed.
    pub category: String,
    pub category_draft: String,
    /// Categories from the config, offered first.
    pub configured_categories: Vec<String>,
    /// Recently used categories, oldest first, remembered across sessions.
    pub recent_categories: Vec<String>,
    pick: Option<usize>,
    /// Indices into `entries`, best match first.
    pub matches: Vec<u32>,
    pub cursor: Cursor,
    matcher: FuzzyFilter,
}

impl Browser {
    pub fn new(configured_categories: Vec<String>, recent_categories: Vec<String>) -> Self {
        Browser {
            entries: Vec::new(),
            skipped: 0,
            load: Load::Loading,
            generation: 0,
            query: String::new(),
            editing: None,
            lora_type: None,
            category: String::new(),
            category_draft: String::new(),
            configured_categories,
            recent_categories,
            pick: None,
            matches: Vec::new(),
            cursor: Cursor::default(),
            matcher: FuzzyFilter::new(),
        }
    }

    /// Starts a fetch with the current server-side filters.
    pub fn fetch(&mut self) -> Cmd {
        self.generation += 1;
        self.load = Load::Loading;
        Cmd::FetchCatalogue {
            generation: self.generation,
            lora_type: self.lora_type,
            cate: Some(self.category.clone()).filter(|c| !c.is_empty()),
        }
    }

    /// A fetch came back. Stale answers (an older generation) are ignored.
    pub fn loaded(&mut self, generation: u64, result: Result<Catalogue, String>) -> bool {
        if generation != self.generation {
            return false;
        }
        match result {
            Ok(c) => {
                self.entries = c.entries;
                self.skipped = c.skipped;
                self.load = Load::Loaded;
                self.refilter();
            }
            // Keep what was shown: an error must not empty a list the user is reading.
            Err(e) => self.load = Load::Failed(e),
        }
        true
    }

    /// Re-ranks after the query or the entries changed, keeping the selected entry if it
    /// still matches.
    pub fn refilter(&mut self) {
        let keep = self.selected_entry_index();
        self.matches = self
            .matcher
            .rank(&self.query, self.entries.iter().map(|e| e.model.as_str()))
            .into_iter()
            .map(|r| r.index)
            .collect();
        self.cursor.selected = if self.query.is_empty() {
            keep.and_then(|k| self.matches.iter().position(|&m| m == k))
                .unwrap_or(0)
        } else {
            0
        };
        self.cursor.offset = 0;
        self.scroll_into_view();
    }

    pub fn selected_entry_index(&self) -> Option<u32> {
        self.matches.get(self.cursor.selected).copied()
    }

    pub fn selected_entry(&self) -> Option<&LoraEntry> {
        self.selected_entry_index()
            .and_then(|i| self.entries.get(i as usize))
    }

    pub fn move_by(&mut self, delta: isize) {
        self.cursor.move_by(self.matches.len(), delta);
    }

    pub fn select(&mut self, index: usize) {
        self.cursor.select(self.matches.len(), index);
    }

    pub fn scroll_into_view(&mut self) {
        self.cursor.scroll_into_view(self.matches.len());
    }

    pub fn cycle_type(&mut self) -> Cmd {
        self.lora_type = match self.lora_type {
            None => Some(LoraType::Sd),
            Some(LoraType::Sd) => Some(LoraType::Sdxl),
            Some(LoraType::Sdxl) => None,
        };
        self.fetch()
    }

    pub fn start_editing(&mut self, field: Field) {
        self.editing = Some(field);
        if field == Field::Category {
            self.category_draft.clone_from(&self.category);
            self.pick = None;
        }
    }

    /// Typing into the active field; the filter re-ranks on every keystroke.
    pub fn type_text(&mut self, text: &str) {
        let clean: String = crate::api::sanitize::sanitize(text);
        match self.editing {
            Some(Field::Filter) => {
                self.query.push_str(&clean);
                self.refilter();
            }
            Some(Field::Category) => self.category_draft.push_str(&clean),
            None => {}
        }
    }

    pub fn backspace(&mut self) {
        match self.editing {
            Some(Field::Filter) if self.query.pop().is_some() => self.refilter(),
            Some(Field::Category) => {
                self.category_draft.pop();
            }
            _ => {}
        }
    }

    pub fn clear_input(&mut self) {
        match self.editing {
            Some(Field::Filter) => {
                self.query.clear();
                self.refilter();
            }
            Some(Field::Category) => self.category_draft.clear(),
            None => {}
        }
    }

    /// Configured categories first, then recently used ones not configured.
    pub fn known_categories(&self) -> Vec<String> {
        let mut known = self.configured_categories.clone();
        for c in self.recent_categories.iter().rev() {
            if !known.contains(c) {
                known.push(c.clone());
            }
        }
        known
    }

    /// Up/Down in the category field walk the known categories.
    pub fn pick(&mut self, forward: bool) {
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

    /// Enter: the filter simply stays; a changed category is applied (fetch) and remembered.
    pub fn submit(&mut self) -> Vec<Cmd> {
        let Some(field) = self.editing.take() else {
            return Vec::new();
        };
        if field != Field::Category {
            return Vec::new();
        }
        let cate = self.category_draft.trim().to_string();
        if cate == self.category {
            return Vec::new();
        }
        self.category.clone_from(&cate);
        let mut cmds = vec![self.fetch()];
        if !cate.is_empty() {
            self.recent_categories.retain(|c| c != &cate);
            self.recent_categories.push(cate);
            let excess = self
                .recent_categories
                .len()
                .saturating_sub(RECENT_CATEGORIES);
            self.recent_categories.drain(..excess);
            cmds.push(Cmd::RememberCategories(self.recent_categories.clone()));
        }
        cmds
    }

    /// Esc: leaves the field; the filter stays, a half-typed category is dropped.
    pub fn cancel(&mut self) {
        self.editing = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;

    fn entry(name: &str) -> LoraEntry {
        LoraEntry::new(name, &Map::new())
    }

    fn loaded(names: &[&str]) -> Browser {
        let mut b = Browser::new(vec!["style".into(), "character".into()], vec!["old".into()]);
        let Cmd::FetchCatalogue { generation, .. } = b.fetch() else {
            panic!("fetch")
        };
        let cat = Catalogue {
            entries: names.iter().map(|n| entry(n)).collect(),
            skipped: 0,
        };
        assert!(b.loaded(generation, Ok(cat)));
        b
    }

    #[test]
    fn filter_reranks_on_each_keystroke() {
        let mut b = loaded(&["pixel_art", "watercolor", "water_tower", "ink"]);
        assert_eq!(b.matches.len(), 4);
        b.start_editing(Field::Filter);
        for c in ["w", "a", "t"] {
            b.type_text(c);
        }
        assert_eq!(b.matches.len(), 2);
        b.type_text("e");
        b.type_text("rc");
        assert_eq!(
            b.selected_entry().map(|e| e.model.as_str()),
            Some("watercolor")
        );
        b.type_text("zzz");
        assert!(b.matches.is_empty() && b.selected_entry().is_none());
        b.clear_input();
        assert_eq!(b.matches.len(), 4);
        b.cancel();
        assert_eq!(b.editing, None);
    }

    #[test]
    fn stale_fetches_are_ignored_and_errors_keep_the_list() {
        let mut b = loaded(&["a", "b"]);
        let old = b.generation;
        let Cmd::FetchCatalogue { lora_type, .. } = b.cycle_type() else {
            panic!()
        };
        assert_eq!(lora_type, Some(LoraType::Sd));
        assert!(!b.loaded(old, Ok(Catalogue::default())));
        assert!(b.loaded(b.generation, Err("down".into())));
        assert_eq!(b.entries.len(), 2);
        assert_eq!(b.load, Load::Failed("down".into()));
    }

    #[test]
    fn category_is_sent_and_remembered() {
        let mut b = loaded(&["a"]);
        b.start_editing(Field::Category);
        b.pick(true);
        assert_eq!(b.category_draft, "style");
        b.pick(true);
        assert_eq!(b.category_draft, "character");
        b.pick(true);
        assert_eq!(
            b.category_draft, "old",
            "recent categories follow the configured ones"
        );
        b.clear_input();
        b.type_text("fan art");
        let cmds = b.submit();
        let Some(Cmd::FetchCatalogue { cate, .. }) = cmds.first() else {
            panic!("fetch")
        };
        assert_eq!(cate.as_deref(), Some("fan art"));
        assert_eq!(
            cmds[1],
            Cmd::RememberCategories(vec!["old".into(), "fan art".into()])
        );
        assert_eq!(
            b.known_categories(),
            ["style", "character", "fan art", "old"]
        );
        b.start_editing(Field::Category);
        assert!(b.submit().is_empty(), "unchanged category does not refetch");
    }
}
