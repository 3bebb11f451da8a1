//! The LoRA browser's state and reducer: server-side filters (type, category), the local
//! filter, selection and scrolling.
//!
//! The filter's ranking runs on a worker (`Cmd::Rank`, answered by `Msg::Ranked`): the list
//! keeps showing the previous matches until the answer to the latest query arrives, and an
//! answer to an older query is dropped.
//!
//! The filter's `type:` and `cate:` terms are the type key's and the category field's: once a
//! term is finished (a space follows it, or Enter or Esc leaves the field) and differs from
//! what the query set last, it sets that filter and reloads, exactly as `t` and the category
//! field do. Erasing the term leaves the filter as it is (the title shows it); `type:all`
//! clears it.

use crate::api::{Catalogue, LoraEntry, LoraType, SearchText};
use crate::app::cursor::Cursor;
use crate::app::effects::Effects;
use crate::cmd::Cmd;
use crate::filter::Query;
use crate::store::catalogue::Cached;
use std::sync::Arc;

/// How many recent categories are remembered.
const RECENT_CATEGORIES: usize = 8;
/// How many categories of earlier catalogues are offered at most.
const SEEN_CATEGORIES: usize = 256;

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
        }
    }

    /// Starts a fetch with the current server-side filters, the cached copy for them shown
    /// meanwhile (at start and when the filters change). The list shown goes at once: it was
    /// listed under the filters before, and would stand under a label it does not satisfy.
    pub fn fetch(&mut self) -> Cmd {
        self.clear_entries();
        self.fetch_with(true)
    }

    /// Empties the list (and any ranking still out for it), remembering the selected model.
    fn clear_entries(&mut self) {
        if let Some(e) = self.selected_entry() {
            self.keep_name = Some(e.model.clone());
        }
        self.entries = Arc::new([]);
        self.all = Arc::new([]);
        self.matches = Arc::new([]);
        self.text = Arc::default();
        self.skipped = 0;
        self.ranking += 1;
        self.filtering = false;
        self.reselect = None;
        self.cursor.selected = 0;
        self.cursor.offset = 0;
        self.cached_at = None;
        self.cache = CacheLookup::Pending;
    }

    /// Reloads the list shown: the fresh list only, no cached copy over it meanwhile.
    pub fn reload(&mut self) -> Cmd {
        self.fetch_with(false)
    }

    fn fetch_with(&mut self, cached: bool) -> Cmd {
        self.generation += 1;
        self.load = Load::Loading;
        self.offline = false;
        Cmd::FetchCatalogue {
            generation: self.generation,
            lora_type: self.lora_type,
            cate: Some(self.category.clone()).filter(|c| !c.is_empty()),
            cached,
        }
    }

    /// The cache's answer for fetch `generation`: a copy is shown, marked with its age (and
    /// `filtered here` when narrowed from broader filters'), unless the fresh list already
    /// arrived or the fetch is stale; none is remembered, for the failure to say.
    pub fn cached(&mut self, generation: u64, cached: Option<Cached>) -> Effects {
        if generation != self.generation || self.load == Load::Loaded {
            return Effects::none();
        }
        let Some(c) = cached else {
            let changed = self.cache != CacheLookup::Nothing;
            self.cache = CacheLookup::Nothing;
            return Effects::none().redraw_if(changed);
        };
        self.cached_at = Some(c.saved_at);
        self.cache = if c.filtered {
            CacheLookup::Narrowed
        } else {
            CacheLookup::Own
        };
        Effects::cmd(self.install(c.catalogue)).redraw_if(true)
    }

    /// Why the list is empty when the service cannot be reached and nothing cached can stand
    /// in: `no cached copy for type sd · offline`.
    pub fn nothing_cached(&self) -> Option<String> {
        if !(self.offline && self.cache == CacheLookup::Nothing && self.entries.is_empty()) {
            return None;
        }
        let lora_type = self.lora_type.map(|t| format!("type {}", t.as_str()));
        let cate = Some(self.category.trim())
            .filter(|c| !c.is_empty())
            .map(|c| format!("category {c}"));
        let filters: Vec<String> = lora_type.into_iter().chain(cate).collect();
        Some(if filters.is_empty() {
            "no cached copy of the catalogue · offline".to_string()
        } else {
            format!("no cached copy for {} · offline", filters.join(", "))
        })
    }

    /// Fetch `generation` failed because the service could not be reached: the list shown
    /// (a cached copy, say) stays, marked offline.
    pub fn unreachable(&mut self, generation: u64, error: String) -> Option<Vec<Cmd>> {
        let cmds = self.loaded(generation, Err(error))?;
        self.offline = true;
        Some(cmds)
    }

    /// The mark of a cached copy in the title, its age from `now` (seconds since the epoch):
    /// `cached 3h ago`, `cached 3h ago · offline`, `cached 3h ago · offline · filtered here`.
    pub fn cached_mark(&self, now: u64) -> Option<String> {
        let saved = self.cached_at?;
        let offline = if self.offline { " · offline" } else { "" };
        let filtered = if self.cache == CacheLookup::Narrowed {
            " · filtered here"
        } else {
            ""
        };
        Some(format!(
            "cached {}{offline}{filtered}",
            crate::fmt::age(now.saturating_sub(saved))
        ))
    }

    /// Replaces the entries, keeping the selection on the model of the same name; what to do
    /// next (rank the new entries against the query).
    fn install(&mut self, c: Catalogue) -> Option<Cmd> {
        let kept = self.keep_name.take();
        let name = self.selected_entry().map(|e| e.model.clone()).or(kept);
        self.all = (0..c.entries.len() as u32).collect();
        self.entries = c.entries.into();
        for cate in self.entries.iter().filter_map(LoraEntry::category) {
            if self.seen_categories.len() < SEEN_CATEGORIES
                && !self.seen_categories.iter().any(|c| c == cate)
            {
                self.seen_categories.push(cate.to_string());
            }
        }
        self.text = Arc::new(SearchText::new(self.entries.clone()));
        self.skipped = c.skipped;
        let keep = name.and_then(|n| {
            self.entries
                .iter()
                .position(|e| e.model == n)
                .and_then(|i| u32::try_from(i).ok())
        });
        // The old matches index the old entries: none of them may be shown over the new.
        self.matches = Arc::new([]);
        let cmd = self.refilter_keeping(keep);
        self.reselect = if cmd.is_some() { keep } else { None };
        cmd
    }

    /// A fetch came back: `None` when it was stale (an older generation) and ignored, else what
    /// to do next (rank the new entries against the query).
    pub fn loaded(
        &mut self,
        generation: u64,
        result: Result<Catalogue, String>,
    ) -> Option<Vec<Cmd>> {
        if generation != self.generation {
            return None;
        }
        match result {
            Ok(c) => {
                let remember = self.remember_category(!c.entries.is_empty());
                self.load = Load::Loaded;
                self.cached_at = None;
                self.offline = false;
                self.cache = CacheLookup::Pending;
                Some(self.install(c).into_iter().chain(remember).collect())
            }
            // Keep what was shown: an error must not empty a list the user is reading.
            Err(e) => {
                self.load = Load::Failed(e);
                Some(Vec::new())
            }
        }
    }

    /// Re-ranks after the query or the entries changed. A query that matches nothing locally
    /// (empty, or only `type:`/`cate:`) shows everything at once; any other is ranked by the
    /// worker, and the list changes when its answer arrives. A finished `type:`/`cate:` term
    /// that changes a server-side filter reloads instead (the new entries are ranked then).
    pub fn refilter(&mut self) -> Option<Cmd> {
        // A new query selects its best match, whatever a reload meant to keep.
        self.reselect = None;
        self.refilter_keeping(self.selected_entry_index())
    }

    fn refilter_keeping(&mut self, keep: Option<u32>) -> Option<Cmd> {
        self.ranking += 1;
        let query = Query::parse(&self.query);
        self.filter_detail = query.explained.then(|| self.describe(&query));
        if let Some(fetch) = self.apply_server_terms(&query, false) {
            self.filtering = false;
            return Some(fetch);
        }
        if query.matches_all() || self.text.is_empty() {
            self.filtering = false;
            self.show(self.all.clone(), keep);
            return None;
        }
        self.filtering = true;
        Some(Cmd::Rank {
            generation: self.ranking,
            query: self.query.clone(),
            text: self.text.clone(),
        })
    }

    /// Sets the type and category the query's `type:`/`cate:` terms name, when they changed
    /// since the query last set them: a fetch, as `t` and the category field make. Unfinished
    /// terms count only with `unfinished` (the field is being left).
    fn apply_server_terms(&mut self, query: &Query, unfinished: bool) -> Option<Cmd> {
        let mut changed = false;
        match &query.lora_type {
            None => self.query_type = None,
            Some(t) if t.complete || unfinished => {
                if let Ok(ty) = t.value
                    && self.query_type != Some(ty)
                {
                    self.query_type = Some(ty);
                    changed |= self.lora_type != ty;
                    self.lora_type = ty;
                }
            }
            Some(_) => {}
        }
        match &query.cate {
            None => self.query_cate = None,
            Some(c) if c.complete || unfinished => {
                let cate = c.value.trim();
                if self.query_cate.as_deref() != Some(cate) {
                    self.query_cate = Some(cate.to_string());
                    if self.category != cate {
                        self.category = cate.to_string();
                        self.remember = (!cate.is_empty()).then(|| cate.to_string());
                        changed = true;
                    }
                }
            }
            Some(_) => {}
        }
        changed.then(|| self.fetch())
    }

    /// The detail line's text. A key is marked unknown once the metadata columns were built
    /// (by the ranking worker, for the first field term): never built here, on the UI loop.
    fn describe(&self, query: &Query) -> String {
        let fields = self.text.built_fields();
        query.describe(|key| fields.is_none_or(|f| f.column(key).is_some()))
    }

    /// The worker's answer to a `Cmd::Rank`; whether it was the latest and is now shown.
    pub fn ranked(&mut self, generation: u64, matches: Arc<[u32]>) -> bool {
        if !self.filtering || generation != self.ranking {
            return false;
        }
        self.filtering = false;
        if self.filter_detail.is_some() {
            // The ranking may have built the columns: unknown keys can be told now.
            self.filter_detail = Some(self.describe(&Query::parse(&self.query)));
        }
        let keep = self.reselect.take();
        self.show(matches, keep);
        true
    }

    /// Whether the list shows an earlier query's matches while the latest is being ranked.
    pub fn filtering(&self) -> bool {
        self.filtering
    }

    /// Shows new matches, the selection on entry `keep` if it is among them, else on the first
    /// (a query's best match).
    fn show(&mut self, matches: Arc<[u32]>, keep: Option<u32>) {
        self.matches = if self.only_favourites {
            matches
                .iter()
                .copied()
                .filter(|&i| {
                    self.entries
                        .get(i as usize)
                        .is_some_and(|e| self.favourites.contains(e.model.as_str()))
                })
                .collect()
        } else {
            matches
        };
        self.cursor.selected = keep
            .and_then(|k| self.matches.iter().position(|&m| m == k))
            .unwrap_or(0);
        self.cursor.offset = 0;
        self.scroll_into_view();
    }

    /// `f`: marks or unmarks the selected model; its name and whether it is a favourite now.
    pub fn toggle_favourite(&mut self) -> Option<(String, bool)> {
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
        Some((name, on))
    }

    /// `F`: lists only the favourites, or everything again.
    pub fn toggle_only_favourites(&mut self) -> Option<Cmd> {
        self.only_favourites = !self.only_favourites;
        self.refilter()
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

    /// The category just applied, now that the catalogue for it came back with entries.
    fn remember_category(&mut self, listed: bool) -> Option<Cmd> {
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

    /// Esc: leaves the field; the filter stays (its unfinished `type:`/`cate:` terms are
    /// applied), a half-typed category is dropped.
    pub fn cancel(&mut self) -> Option<Cmd> {
        match self.editing.take() {
            Some(Field::Filter) => self.leave_filter(),
            _ => None,
        }
    }

    /// Leaving the filter field finishes its `type:`/`cate:` terms.
    fn leave_filter(&mut self) -> Option<Cmd> {
        let query = Query::parse(&self.query);
        self.apply_server_terms(&query, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::Ranker;
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
        assert_eq!(b.loaded(generation, Ok(cat)), Some(Vec::new()));
        b
    }

    /// The ranking a `Cmd::Rank` asks for, as the worker answers it (generation, matches).
    fn answer(cmd: Option<Cmd>) -> (u64, Arc<[u32]>) {
        let Some(Cmd::Rank {
            generation,
            query,
            text,
        }) = cmd
        else {
            panic!("expected a ranking, got {cmd:?}")
        };
        (generation, Ranker::new().rank(&query, &text))
    }

    /// Types `text` key by key, each keystroke's ranking answered before the next key.
    fn typed(b: &mut Browser, text: &str) {
        for c in text.chars() {
            let (generation, matches) = answer(b.type_text(c.encode_utf8(&mut [0; 4])));
            assert!(b.ranked(generation, matches));
        }
    }

    fn shown(b: &Browser) -> Vec<&str> {
        b.matches
            .iter()
            .map(|&i| b.entries[i as usize].model.as_str())
            .collect()
    }

    fn selected(b: &Browser) -> Option<&str> {
        b.selected_entry().map(|e| e.model.as_str())
    }

    #[test]
    fn filter_reranks_on_each_keystroke() {
        let mut b = loaded(&["pixel_art", "watercolor", "water_tower", "ink"]);
        assert_eq!(b.matches.len(), 4);
        b.start_editing(Field::Filter);
        typed(&mut b, "wat");
        assert_eq!(b.matches.len(), 2);
        typed(&mut b, "erc");
        assert_eq!(selected(&b), Some("watercolor"));
        typed(&mut b, "zzz");
        assert!(b.matches.is_empty() && b.selected_entry().is_none());
        assert_eq!(b.clear_input(), None, "an empty query needs no ranking");
        assert_eq!(b.matches.len(), 4);
        b.cancel();
        assert_eq!(b.editing, None);
    }

    /// Until the latest query's ranking arrives the list shows the previous matches; a ranking
    /// for an older query is never shown, whether it arrives before or after the latest.
    #[test]
    fn a_ranking_for_an_older_query_is_ignored() {
        let mut b = loaded(&["pixel_art", "watercolor", "water_tower", "ink"]);
        b.start_editing(Field::Filter);
        let (first, first_matches) = answer(b.type_text("i"));
        assert!(b.filtering());
        assert_eq!(shown(&b).len(), 4, "the previous matches stay meanwhile");
        let (latest, latest_matches) = answer(b.type_text("n"));
        assert!(
            !b.ranked(first, first_matches.clone()),
            "superseded by `in`"
        );
        assert!(b.filtering() && shown(&b).len() == 4);
        assert!(b.ranked(latest, latest_matches));
        assert_eq!(shown(&b), ["ink"]);
        assert!(!b.filtering());
        assert!(
            !b.ranked(first, first_matches),
            "late, and older than what is shown"
        );
        assert_eq!(shown(&b), ["ink"]);

        // Erasing to nothing shows everything at once; the ranking still out is dropped.
        let (erased, erased_matches) = answer(b.backspace());
        assert!(b.filtering());
        assert_eq!(b.backspace(), None);
        assert!(!b.filtering());
        assert_eq!(shown(&b).len(), 4);
        assert!(!b.ranked(erased, erased_matches));
        assert_eq!(shown(&b).len(), 4);
    }

    /// Typing a query and erasing it key by key comes back to every entry in input order, the
    /// selection on the entry it was on before the filter; a query selects its best match.
    #[test]
    fn typing_then_erasing_returns_the_full_list_and_the_selection() {
        let names = ["pixel_art", "watercolor", "ink", "water_tower", "wash"];
        let mut b = loaded(&names);
        b.move_by(3);
        assert_eq!(selected(&b), Some("water_tower"));
        b.start_editing(Field::Filter);
        let (generation, matches) = answer(b.type_text("w"));
        assert_eq!(
            selected(&b),
            Some("water_tower"),
            "unmoved while the ranking runs"
        );
        assert!(b.ranked(generation, matches));
        assert_eq!(selected(&b), shown(&b).first().copied(), "the best match");
        typed(&mut b, "atr");
        let mut watr = shown(&b);
        watr.sort_unstable();
        assert_eq!(watr, ["water_tower", "watercolor"]);
        for _ in 0..3 {
            let (generation, matches) = answer(b.backspace());
            assert!(b.ranked(generation, matches));
        }
        assert_eq!((b.query.as_str(), shown(&b).len()), ("w", 3));
        let at = shown(&b).iter().position(|&n| n == "watercolor");
        b.select(at.expect("watercolor matches `w`"));
        assert_eq!(b.backspace(), None);
        assert_eq!(shown(&b), names);
        assert_eq!(
            selected(&b),
            Some("watercolor"),
            "the entry selected when the filter was emptied"
        );
    }

    /// A reload under a query never shows the old entries' matches over the new entries.
    #[test]
    fn a_reload_under_a_query_ranks_the_new_entries() {
        let mut b = loaded(&["pixel_art", "watercolor"]);
        b.start_editing(Field::Filter);
        typed(&mut b, "pix");
        let Cmd::FetchCatalogue { generation, .. } = b.fetch() else {
            panic!("fetch")
        };
        let cat = Catalogue {
            entries: vec![entry("ink"), entry("pixie"), entry("pixel_art")],
            skipped: 0,
        };
        let cmds = b.loaded(generation, Ok(cat)).expect("current");
        assert!(b.filtering() && b.matches.is_empty());
        let (generation, matches) = answer(cmds.into_iter().next());
        assert!(b.ranked(generation, matches));
        assert_eq!(shown(&b), ["pixie", "pixel_art"]);
    }

    /// A reload keeps the selection on the model of the same name, wherever it now is, even
    /// under a query (once the new entries are ranked); a new query then selects its best.
    #[test]
    fn a_reload_keeps_the_selection_by_name() {
        let mut b = loaded(&["ink", "pixel_art", "pixie"]);
        b.start_editing(Field::Filter);
        typed(&mut b, "pi");
        b.select(shown(&b).iter().position(|&n| n == "pixie").expect("shown"));
        let Cmd::FetchCatalogue { generation, .. } = b.reload() else {
            panic!("fetch")
        };
        let cat = Catalogue {
            entries: vec![entry("pixie"), entry("pixel"), entry("pixel_art")],
            skipped: 0,
        };
        let cmds = b.loaded(generation, Ok(cat)).expect("current");
        let (generation, matches) = answer(cmds.into_iter().next());
        assert!(b.ranked(generation, matches));
        assert_eq!(selected(&b), Some("pixie"));
        typed(&mut b, "x");
        assert_eq!(selected(&b), shown(&b).first().copied(), "the best match");
    }

    #[test]
    fn stale_fetches_are_ignored_and_errors_keep_the_list() {
        let mut b = loaded(&["a", "b"]);
        let old = b.generation;
        b.reload();
        assert_eq!(b.loaded(old, Ok(Catalogue::default())), None);
        assert_eq!(b.loaded(b.generation, Err("down".into())), Some(Vec::new()));
        assert_eq!(b.entries.len(), 2, "a failed reload keeps the list");
        assert_eq!(b.load, Load::Failed("down".into()));
    }

    /// A new type or category empties the list at once: it was listed under the old ones.
    /// The model selected is selected again if the next list has it.
    #[test]
    fn new_filters_take_the_old_list_away() {
        let mut b = loaded(&["a", "b"]);
        b.move_by(1);
        let Cmd::FetchCatalogue { lora_type, .. } = b.cycle_type() else {
            panic!("fetch")
        };
        assert_eq!(lora_type, Some(LoraType::Sd));
        assert!(b.entries.is_empty() && b.matches.is_empty() && b.selected_entry().is_none());
        assert_eq!(b.load, Load::Loading);
        let cat = Catalogue {
            entries: vec![entry("x"), entry("b")],
            skipped: 0,
        };
        b.loaded(b.generation, Ok(cat));
        assert_eq!(b.selected_entry().map(|e| e.model.as_str()), Some("b"));
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
        let Some(Cmd::FetchCatalogue {
            cate, generation, ..
        }) = cmds.first()
        else {
            panic!("fetch")
        };
        assert_eq!(cate.as_deref(), Some("fan art"));
        assert_eq!(cmds.len(), 1, "remembered only once it lists something");
        let listed = Catalogue {
            entries: vec![entry("x")],
            skipped: 0,
        };
        let cmds = b.loaded(*generation, Ok(listed)).expect("current");
        assert_eq!(
            cmds,
            [Cmd::RememberCategories(vec![
                "old".into(),
                "fan art".into()
            ])]
        );
        assert_eq!(
            b.known_categories(),
            ["style", "character", "fan art", "old"]
        );
        b.start_editing(Field::Category);
        assert!(b.submit().is_empty(), "unchanged category does not refetch");
        // A category the service lists nothing for is not remembered.
        b.start_editing(Field::Category);
        b.clear_input();
        b.type_text("nope");
        let Some(Cmd::FetchCatalogue { generation, .. }) = b.submit().first().cloned() else {
            panic!("fetch")
        };
        let empty = Catalogue {
            entries: Vec::new(),
            skipped: 0,
        };
        let cmds = b.loaded(generation, Ok(empty)).expect("current");
        assert!(
            !cmds.iter().any(|c| matches!(c, Cmd::RememberCategories(_))),
            "{cmds:?}"
        );
        assert!(!b.known_categories().contains(&"nope".to_string()));
    }

    /// In the filter, ↑/↓ move the selection (as in fzf); the field keeps the keyboard.
    #[test]
    fn arrows_in_the_filter_move_the_selection() {
        let mut b = loaded(&["a", "b", "c"]);
        b.start_editing(Field::Filter);
        b.pick(true);
        b.pick(true);
        assert_eq!(b.selected_entry().map(|e| e.model.as_str()), Some("c"));
        b.pick(false);
        assert_eq!(b.selected_entry().map(|e| e.model.as_str()), Some("b"));
        assert_eq!(b.editing, Some(Field::Filter));
    }

    /// The category picker offers the catalogue's own categories after the configured and
    /// recent ones, most common first.
    #[test]
    fn the_catalogues_categories_are_offered_most_common_first() {
        let with = |name: &str, cate: &str| {
            let mut m = Map::new();
            m.insert("category".into(), serde_json::Value::String(cate.into()));
            LoraEntry::new(name, &m)
        };
        let mut b = loaded(&[]);
        let g = b.generation;
        let cat = Catalogue {
            entries: vec![
                with("a", "poses"),
                with("b", "vehicle"),
                with("c", "vehicle"),
                with("d", "style"),
            ],
            skipped: 0,
        };
        b.loaded(g, Ok(cat));
        assert_eq!(
            b.known_categories(),
            ["style", "character", "old", "vehicle", "poses"]
        );
    }
}
