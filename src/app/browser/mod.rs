//! The LoRA browser pane: its state and its reducer (the pane's keys, its two fields, the
//! catalogue's answers). By concern: `catalogue` (fetching, the cached copy, loading),
//! `ranking` (the local filter and its ranking), `category` (the category field),
//! `favourites`, `marks` and `sort` (what changed since the list before, the order) with
//! `changes` (their reducer side).
//!
//! The filter's `type:` and `cate:` terms are the type key's and the category field's: once a
//! term is finished (a space follows it, or Enter or Esc leaves the field) and differs from
//! what the query set last, it sets that filter and reloads, exactly as the type key and the
//! category field do. Erasing the term leaves the filter as it is (the title shows it);
//! `type:all` clears it.

mod category;
mod changes;
mod detail_fields;
pub mod entry_picture;
mod favourites;
mod loading;
mod marks;
#[cfg(test)]
mod marks_tests;
#[cfg(test)]
mod prompt_tests;
mod ranking;
#[cfg(test)]
mod reducer_tests;
mod sort;
#[cfg(test)]
mod tests;

use crate::api::{ApiError, LoraEntry, LoraType, SearchText};
use crate::app::action::Action;
use crate::app::cursor::Cursor;
use crate::app::effects::Effects;
use crate::app::keymap::Keymap;
use crate::cmd::Cmd;
use crate::filter::Query;
use crate::filter::query::IsTerm;
use crate::store::config::ActionName;
pub use detail_fields::{Fields as DetailFields, detail_fields};
pub use marks::Marks;
pub use sort::{Sort, SortField};
use std::sync::Arc;

/// What the worker found in the catalogue cache for the latest fetch's filters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CacheLookup {
    /// Not asked (a reload), or not answered yet.
    #[default]
    Pending,
    /// The copy kept for these filters.
    Own,
    /// A copy kept for broader filters (type all, any category), narrowed to these here.
    Narrowed,
    /// Nothing for these filters, nor for broader ones.
    Nothing,
}

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
    /// Shared with the ranker's `SearchText`, never copied.
    pub entries: Arc<[LoraEntry]>,
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
    /// Categories of every catalogue loaded this session, first seen first: still offered
    /// when the category in force lists nothing.
    seen_categories: Vec<String>,
    /// Indices into `entries`, best match first.
    pub matches: Arc<[u32]>,
    pub cursor: Cursor,
    /// Model names marked with `f` (this service's), kept across sessions.
    pub favourites: std::collections::BTreeSet<String>,
    /// `F`: only favourites are listed.
    pub only_favourites: bool,
    /// A category applied but not yet remembered: it is, once its catalogue lists something.
    remember: Option<String>,
    /// The entries' names and metadata for the ranker, built once per load and shared, never
    /// copied.
    text: Arc<SearchText>,
    /// What the filter's terms do, for the line under it: `None` for plain fuzzy words (which
    /// need no explanation) and an empty query.
    pub filter_detail: Option<String>,
    /// The type and category the query's `type:`/`cate:` terms set last; a term sets its
    /// filter again only when it changes. `Some(None)` is `type:all`, unlike no term at all.
    #[allow(clippy::option_option)]
    query_type: Option<Option<LoraType>>,
    query_cate: Option<String>,
    /// Every entry in input order: what an empty query shows, built once per load.
    all: Arc<[u32]>,
    /// Bumped on each re-rank; only the answer to the latest is shown.
    ranking: u64,
    /// The latest ranking asked for has not come back: `matches` are an earlier query's.
    filtering: bool,
    /// The entries shown are a cached copy saved then (seconds since the epoch), not yet
    /// replaced by a fresh load.
    pub cached_at: Option<u64>,
    /// The latest fetch could not reach the service (a transport error).
    pub offline: bool,
    /// What the cache held for these filters: the copy shown may be narrowed here.
    pub cache: CacheLookup,
    /// The model selected before the filters changed emptied the list: selected again if the
    /// next list has it.
    keep_name: Option<String>,
    /// After a reload under a query: the entry to select when its ranking arrives (the one
    /// selected before, by name), instead of the best match.
    reselect: Option<u32>,
    /// What changed since the list the latest load replaced (`+`, `~`, the title's counts).
    pub marks: Option<Marks>,
    /// The load of this fetch generation had nothing to be compared with: a cached copy
    /// arriving late for it still is.
    diff_pending: Option<u64>,
    /// The comparison asked (`Cmd::Compare`) for this fetch generation, and the list before.
    comparing: Option<(u64, Arc<[LoraEntry]>)>,
    /// The query's `is:` terms, applied to the ranking's matches here.
    is_terms: Vec<IsTerm>,
    /// The list's order: relevance, or a field.
    pub sort: Sort,
    /// Models marked for the copy-prompt key, by name, in the order they were marked: kept
    /// when the filter hides them or a reload brings a new list.
    pub marked: Vec<String>,
    /// What builds the prompts (the config's `prompt_template` and `lora_weight`).
    pub prompt: crate::api::prompt::PromptSettings,
}

impl Browser {
    pub fn new(configured_categories: Vec<String>, recent_categories: Vec<String>) -> Self {
        Browser {
            entries: Arc::new([]),
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
            seen_categories: Vec::new(),
            matches: Arc::new([]),
            cursor: Cursor::default(),
            favourites: std::collections::BTreeSet::new(),
            only_favourites: false,
            remember: None,
            text: Arc::default(),
            filter_detail: None,
            query_type: None,
            query_cate: None,
            all: Arc::new([]),
            ranking: 0,
            filtering: false,
            cached_at: None,
            offline: false,
            cache: CacheLookup::Pending,
            keep_name: None,
            reselect: None,
            marks: None,
            diff_pending: None,
            comparing: None,
            is_terms: Vec::new(),
            sort: Sort::default(),
            marked: Vec::new(),
            prompt: crate::api::prompt::PromptSettings::default(),
        }
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

    pub fn start_editing(&mut self, field: Field) {
        self.editing = Some(field);
        if field == Field::Category {
            self.category_draft.clone_from(&self.category);
            self.pick = None;
        }
    }

    /// Typing into the active field; the filter re-ranks on every keystroke.
    pub fn type_text(&mut self, text: &str) -> Option<Cmd> {
        let clean: String = crate::api::sanitize::sanitize(text);
        match self.editing {
            Some(Field::Filter) => {
                self.query.push_str(&clean);
                return self.refilter();
            }
            Some(Field::Category) => self.category_draft.push_str(&clean),
            None => {}
        }
        None
    }

    pub fn backspace(&mut self) -> Option<Cmd> {
        match self.editing {
            Some(Field::Filter) if self.query.pop().is_some() => return self.refilter(),
            Some(Field::Category) => {
                self.category_draft.pop();
            }
            _ => {}
        }
        None
    }

    pub fn clear_input(&mut self) -> Option<Cmd> {
        match self.editing {
            Some(Field::Filter) => {
                self.query.clear();
                return self.refilter();
            }
            Some(Field::Category) => self.category_draft.clear(),
            None => {}
        }
        None
    }

    /// Enter: the filter stays (its unfinished `type:`/`cate:` terms are applied); a changed
    /// category is applied (fetch) and remembered.
    pub fn submit(&mut self) -> Vec<Cmd> {
        let Some(field) = self.editing.take() else {
            return Vec::new();
        };
        if field == Field::Filter {
            return self.leave_filter().into_iter().collect();
        }
        let cate = self.category_draft.trim().to_string();
        if cate == self.category {
            return Vec::new();
        }
        self.category.clone_from(&cate);
        // Remembered once the service lists something for it: a typo is not worth keeping.
        self.remember = (!cate.is_empty()).then_some(cate);
        vec![self.fetch()]
    }

    /// Esc: leaves the field; the filter stays (its unfinished `type:`/`cate:` terms are
    /// applied), a half-typed category is dropped.
    pub fn cancel(&mut self) -> Option<Cmd> {
        match self.editing.take() {
            Some(Field::Filter) => self.leave_filter(),
            _ => None,
        }
    }

    /// `space`: marks the selected model, or unmarks it, and moves down; `None` when no model is
    /// selected, else whether it is marked now.
    pub fn toggle_mark(&mut self) -> Option<bool> {
        let name = self.selected_entry()?.model().to_owned();
        let at = self.marked.iter().position(|m| *m == name);
        match at {
            Some(i) => {
                self.marked.remove(i);
            }
            None => self.marked.push(name),
        }
        self.move_by(1);
        Some(at.is_none())
    }

    /// The copy-prompt key: the marked models (in the order marked; those the list no longer
    /// has left out), else the selected one, as one prompt.
    fn copy_prompt(&self) -> Effects {
        let entries = match self.chosen() {
            Ok(entries) => entries,
            Err(none) => return Effects::say(none),
        };
        let what = match entries.as_slice() {
            [one] => format!("prompt of {}", one.model()),
            many => format!("prompt of {}", crate::fmt::count(many.len(), "model")),
        };
        let text = self.prompt.prompt(entries.iter().copied());
        if text.is_empty() {
            return Effects::say(format!("prompt_template gives no text for the {what}"));
        }
        Effects::copy(Some(text), &what)
    }

    /// What an action on "the model" applies to: the marked models in this list (in the
    /// order marked), else the selected one; else why there is none.
    pub fn chosen(&self) -> Result<Vec<&LoraEntry>, &'static str> {
        let entries: Vec<&LoraEntry> = if self.marked.is_empty() {
            self.selected_entry().into_iter().collect()
        } else {
            let mut found: Vec<Option<&LoraEntry>> = vec![None; self.marked.len()];
            let wanted: std::collections::HashMap<&str, usize> = self
                .marked
                .iter()
                .enumerate()
                .map(|(i, m)| (m.as_str(), i))
                .collect();
            for e in self.entries.iter() {
                if let Some(&i) = wanted.get(e.model()) {
                    found[i].get_or_insert(e);
                }
            }
            found.into_iter().flatten().collect()
        };
        match entries.as_slice() {
            [] if self.marked.is_empty() => Err("no model selected"),
            [] => Err("no marked model is in this list"),
            _ => Ok(entries),
        }
    }

    /// Leaving the filter field finishes its `type:`/`cate:` terms.
    fn leave_filter(&mut self) -> Option<Cmd> {
        let query = Query::parse(&self.query);
        // The last term is finished now: what is wrong with it is told.
        self.filter_detail = query.explained.then(|| self.describe(&query));
        self.apply_server_terms(&query, true)
    }
}

/// The browser pane's keys (its fields take theirs in `update_field`).
pub fn update(browser: &mut Browser, action: &Action, keymap: &Keymap) -> Effects {
    match action {
        Action::FocusFilter => browser.start_editing(Field::Filter),
        Action::EditCategory => browser.start_editing(Field::Category),
        Action::CycleType => return Effects::cmds(vec![browser.cycle_type()]),
        Action::Refresh => {
            return Effects::cmds(vec![browser.reload()]).with_notice("reloading the catalogue");
        }
        Action::ToggleFavourite => {
            let name = browser.selected_entry().map(|e| e.model().to_string());
            let (Some(name), Some(on)) = (name, browser.toggle_favourite()) else {
                return Effects::say("no model selected");
            };
            return Effects::cmds(vec![Cmd::RememberFavourites(browser.favourites.clone())])
                .with_notice(if on {
                    format!("★ {name}")
                } else {
                    format!("{name} is no longer a favourite")
                });
        }
        Action::OnlyFavourites => {
            let fx = Effects::cmd(browser.toggle_only_favourites());
            if browser.only_favourites && browser.favourites.is_empty() {
                let mark = keymap.key(ActionName::Favourite);
                return fx.with_notice(format!(
                    "no favourites yet: {mark} marks the selected model"
                ));
            }
            return fx;
        }
        Action::ClearMarks => return browser.clear_marks(),
        Action::CycleSort => {
            let cmd = browser.cycle_sort();
            let label = browser.sort.label();
            return Effects::cmd(cmd).redraw_if(true).with_notice(match label {
                Some(l) => format!("sorted by {l}"),
                None => "sorted by relevance".to_string(),
            });
        }
        Action::FlipSort => return browser.flip_sort(keymap),
        Action::Cancel if !browser.query.is_empty() => {
            browser.query.clear();
            return Effects::cmd(browser.refilter());
        }
        Action::Cancel if !browser.marked.is_empty() => {
            browser.marked.clear();
            return Effects::say("no model marked").redraw_if(true);
        }
        Action::ToggleMark => {
            if browser.toggle_mark().is_none() {
                return Effects::say("no model selected");
            }
            // Marks are new to the browser: each says what they are for, with the key in force.
            let notice = match browser.marked.len() {
                0 => "no model marked".to_string(),
                n => format!(
                    "{} marked · {} copies the prompt",
                    crate::fmt::count(n, "model"),
                    keymap.key(ActionName::CopyPrompt)
                ),
            };
            return Effects::say(notice).redraw_if(true);
        }
        Action::CopyPrompt => return browser.copy_prompt(),
        Action::Open => {
            let source = browser
                .selected_entry()
                .and_then(|e| e.source())
                .map(str::to_string);
            return Effects::open(source, "this model has no source URL");
        }
        Action::CopyUrl => {
            let source = browser
                .selected_entry()
                .and_then(|e| e.source())
                .map(str::to_string);
            return Effects::copy(source, "source URL");
        }
        Action::CopyName => {
            let name = browser.selected_entry().map(|e| e.model().to_string());
            return Effects::copy(name, "model name");
        }
        Action::Paste(text) => {
            browser.start_editing(Field::Filter);
            return Effects::cmd(browser.type_text(text));
        }
        _ => {}
    }
    Effects::none()
}

/// Typing in the filter or the category field.
pub fn update_field(browser: &mut Browser, action: Action) -> Effects {
    let rank = match action {
        Action::Type(c) => browser.type_text(c.encode_utf8(&mut [0; 4])),
        Action::Paste(text) => browser.type_text(&text),
        Action::Backspace => browser.backspace(),
        Action::ClearInput => browser.clear_input(),
        Action::PickPrevious => {
            browser.pick(false);
            None
        }
        Action::PickNext => {
            browser.pick(true);
            None
        }
        Action::Submit => return Effects::cmds(browser.submit()),
        Action::Cancel => browser.cancel(),
        _ => None,
    };
    Effects::cmd(rank)
}

/// A catalogue load came back: shown, or its failure (an unreachable service leaves the list
/// shown, marked offline); `None` when it was stale.
pub fn catalogue(
    browser: &mut Browser,
    generation: u64,
    result: Result<crate::api::Listing, ApiError>,
) -> Option<Effects> {
    let cmds = match result {
        Err(e) if e.is_unreachable() => browser.unreachable(generation, e),
        result => browser.loaded(generation, result),
    }?;
    Some(Effects::cmds(cmds).redraw_if(true))
}
