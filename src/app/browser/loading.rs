//! The catalogue: fetching it with the server-side filters (type, category), the cached copy
//! shown meanwhile or when the service cannot be reached, and installing what came back.

use super::{Browser, CacheLookup, Load};
use crate::api::{Listing, LoraEntry, LoraType};
use crate::app::effects::Effects;
use crate::cmd::{CatalogueRequest, Cmd};
use crate::store::catalogue_cache::Cached;
use std::sync::Arc;

/// How many categories of earlier catalogues are offered at most.
const SEEN_CATEGORIES: usize = crate::api::listing::MAX_CATEGORIES;

impl Browser {
    /// Starts a fetch with the current server-side filters, the cached copy for them shown
    /// meanwhile (at start and when the filters change). The list shown goes at once: it was
    /// listed under the filters before, and would stand under a label it does not satisfy.
    pub fn fetch(&mut self) -> Cmd {
        // Gone from the screen, still shared: what the filters keep of it is decoded again
        // into the same entries.
        let earlier = self.entries.clone();
        self.clear_entries();
        self.fetch_with(true, earlier)
    }

    /// Empties the list (and any ranking still out for it), remembering the selected model.
    pub(super) fn clear_entries(&mut self) {
        if let Some(e) = self.selected_entry() {
            self.keep_name = Some(e.model().to_string());
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
        self.marks = None;
        self.diff_pending = None;
        self.comparing = None;
    }

    /// Reloads the list shown: the fresh list only, no cached copy over it meanwhile.
    pub fn reload(&mut self) -> Cmd {
        self.fetch_with(false, self.entries.clone())
    }

    /// A fetch with the current filters; the fresh list shares the entries of `earlier` it
    /// lists unchanged.
    pub(super) fn fetch_with(&mut self, cached: bool, earlier: Arc<[LoraEntry]>) -> Cmd {
        self.generation += 1;
        self.load = Load::Loading;
        self.offline = false;
        Cmd::FetchCatalogue(CatalogueRequest {
            generation: self.generation,
            lora_type: self.lora_type,
            cate: Some(self.category.clone()).filter(|c| !c.is_empty()),
            cached,
            earlier,
        })
    }

    /// The cache's answer for fetch `generation`: a copy is shown, marked with its age (and
    /// `filtered here` when narrowed from broader filters'), unless the fresh list already
    /// arrived or the fetch is stale; none is remembered, for the failure to say.
    pub fn cached(&mut self, generation: u64, cached: Option<Cached<Listing>>) -> Effects {
        if generation != self.generation {
            return Effects::none();
        }
        if self.load == Load::Loaded {
            // Too late to be shown, in time to say what the fresh list changed.
            let Some(c) = cached else {
                self.diff_pending = None;
                return Effects::none();
            };
            return Effects::cmd(self.late_baseline(c.catalogue.entries));
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
    pub fn unreachable(
        &mut self,
        generation: u64,
        error: crate::api::ApiError,
    ) -> Option<Vec<Cmd>> {
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

    /// Swaps in a listing made ready off the UI loop, keeping the selection on the model of
    /// the same name; what to do next (rank the new entries against the query).
    pub(super) fn install(&mut self, c: Listing) -> Option<Cmd> {
        let kept = self.keep_name.take();
        let name = self
            .selected_entry()
            .map(|e| e.model().to_string())
            .or(kept);
        self.all = c.all;
        self.entries = c.entries;
        self.text = c.text;
        for cate in c.categories {
            if self.seen_categories.len() < SEEN_CATEGORIES && !self.seen_categories.contains(&cate)
            {
                self.seen_categories.push(cate);
            }
        }
        self.skipped = c.skipped;
        let keep = name.and_then(|n| {
            self.entries
                .iter()
                .position(|e| e.model() == n)
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
        result: Result<Listing, crate::api::ApiError>,
    ) -> Option<Vec<Cmd>> {
        if generation != self.generation {
            return None;
        }
        match result {
            Ok(c) => {
                let remember = self.remember_category(!c.entries.is_empty());
                // What the fresh list replaces: the cached copy, or the previous load.
                let before = self.entries.clone();
                self.load = Load::Loaded;
                self.cached_at = None;
                self.offline = false;
                self.cache = CacheLookup::Pending;
                self.diff_pending = before.is_empty().then_some(generation);
                self.marks = None;
                self.comparing = None;
                let rank = self.install(c);
                let compare = (!before.is_empty()).then(|| self.compare(before));
                Some(rank.into_iter().chain(compare).chain(remember).collect())
            }
            // Keep what was shown: an error must not empty a list the user is reading.
            Err(e) => {
                self.load = Load::Failed(e.to_string());
                Some(Vec::new())
            }
        }
    }

    pub fn cycle_type(&mut self) -> Cmd {
        self.lora_type = match self.lora_type {
            None => Some(LoraType::Sd),
            Some(LoraType::Sd) => Some(LoraType::Sdxl),
            Some(LoraType::Sdxl) => None,
        };
        self.fetch()
    }
}
