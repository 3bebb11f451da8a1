//! The local filter and its ranking: the query is ranked on a worker (`Cmd::Rank`, answered by
//! `Msg::Ranked`); the list keeps showing the previous matches until the answer to the latest
//! query arrives, and an answer to an older query is dropped. The query's `type:`/`cate:`
//! terms set the server-side filters.

use super::Browser;
use crate::cmd::{Cmd, RankJob};
use crate::filter::{Query, Scope};
use std::sync::Arc;

impl Browser {
    /// Re-ranks after the query or the entries changed. A query that matches nothing locally
    /// (empty, or only `type:`/`cate:`) shows everything at once; any other is ranked by the
    /// worker, and the list changes when its answer arrives. A finished `type:`/`cate:` term
    /// that changes a server-side filter reloads instead (the new entries are ranked then).
    pub fn refilter(&mut self) -> Option<Cmd> {
        // A new query selects its best match, whatever a reload meant to keep.
        self.reselect = None;
        self.refilter_keeping(self.selected_entry_index())
    }

    pub(super) fn refilter_keeping(&mut self, keep: Option<u32>) -> Option<Cmd> {
        self.ranking += 1;
        let query = Query::parse(&self.query);
        self.filter_detail = query.explained.then(|| self.describe(&query));
        self.is_terms.clone_from(&query.is);
        if let Some(fetch) = self.apply_server_terms(&query, false) {
            self.filtering = false;
            return Some(fetch);
        }
        if (query.matches_all() && self.sort.term().is_none()) || self.text.is_empty() {
            self.filtering = false;
            self.show(self.all.clone(), keep);
            return None;
        }
        self.filtering = true;
        Some(Cmd::Rank(RankJob {
            generation: self.ranking,
            query: self.ranked_query(),
            text: self.text.clone(),
        }))
    }

    /// Sets the type and category the query's `type:`/`cate:` terms name, when they changed
    /// since the query last set them: a fetch, as `t` and the category field make. Unfinished
    /// terms count only with `unfinished` (the field is being left).
    pub(super) fn apply_server_terms(&mut self, query: &Query, unfinished: bool) -> Option<Cmd> {
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
    /// (by the ranking worker, for the first field term): never built here, on the UI loop. A
    /// term still being typed is told once the field is left.
    pub(super) fn describe(&self, query: &Query) -> String {
        let fields = self.text.built_fields();
        let typing = self.editing == Some(super::Field::Filter);
        query.describe(
            &Scope::BROWSER,
            |key| fields.map(|f| f.column(key).is_some()),
            typing,
        )
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
    pub(super) fn show(&mut self, matches: Arc<[u32]>, keep: Option<u32>) {
        use crate::filter::query::Flag;
        self.matches = if self.only_favourites || !self.is_terms.is_empty() {
            matches
                .iter()
                .copied()
                .filter(|&i| {
                    (!self.only_favourites || self.has_flag(i, Flag::Fav))
                        && self
                            .is_terms
                            .iter()
                            .all(|t| self.has_flag(i, t.flag) != t.negated)
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
}
