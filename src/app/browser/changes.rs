//! The browser's side of what changed in the catalogue and of the sort: asking for the
//! comparison off the UI loop and taking its answer, the marks' flags, the clear-marks key, and
//! the sort keys (the types are in `marks` and `sort`).

use super::{Browser, Marks, Sort};
use crate::api::LoraEntry;
use crate::app::effects::Effects;
use crate::app::keymap::Keymap;
use crate::cmd::{Cmd, CompareJob};
use crate::filter::query::Flag;
use crate::store::catalogue_cache::{Change, Diff, Mark};
use crate::store::config::ActionName;
use std::sync::Arc;

impl Browser {
    /// Entry `index`'s mark (`Same` without marks).
    pub fn mark(&self, index: u32) -> Mark {
        self.marks.as_ref().map_or(Mark::Same, |m| m.mark(index))
    }

    /// What changed in the selected model since the list it replaced, one line a field:
    /// `rating 4.2 → 4.5`.
    pub fn selected_changes(&self) -> Vec<String> {
        let (Some(marks), Some(index), Some(entry)) = (
            &self.marks,
            self.selected_entry_index(),
            self.selected_entry(),
        ) else {
            return Vec::new();
        };
        marks
            .changes(index, entry)
            .iter()
            .map(Change::describe)
            .collect()
    }

    /// Whether entry `index` has a flag of an `is:` term.
    pub fn has_flag(&self, index: u32, flag: Flag) -> bool {
        match flag {
            Flag::New => self.mark(index) == Mark::New,
            Flag::Changed => matches!(self.mark(index), Mark::Changed(_)),
            Flag::Fav => self
                .entries
                .get(index as usize)
                .is_some_and(|e| self.favourites.contains(e.model())),
        }
    }

    /// The clear-marks key: the marks go (and any comparison under way), the list again under
    /// `is:new`; the status bar says whether there were any.
    pub fn clear_marks(&mut self) -> Effects {
        self.diff_pending = None;
        let comparing = self.comparing.take().is_some();
        let relist = if self.marks.take().is_some() {
            self.is_terms
                .iter()
                .any(|t| t.flag != Flag::Fav)
                .then(|| self.refilter_keeping(self.selected_entry_index()))
                .flatten()
        } else if comparing {
            None
        } else {
            return Effects::say("no marks: nothing changed since the list before");
        };
        Effects::cmd(relist)
            .redraw_if(true)
            .with_notice("marks cleared")
    }

    /// A cached copy for fetch `generation` arrived after its fresh list, which had nothing
    /// to be compared with: compared now. Whether marks were made.
    pub(super) fn late_baseline(&mut self, before: Arc<[LoraEntry]>) -> Option<Cmd> {
        if self.diff_pending.take() != Some(self.generation) {
            return None;
        }
        Some(self.compare(before))
    }

    /// Asks for the fresh entries to be compared with `before`, off the UI loop (tens of ms
    /// over 100,000 models); the marks come with the answer.
    pub(super) fn compare(&mut self, before: Arc<[LoraEntry]>) -> Cmd {
        self.comparing = Some((self.generation, before.clone()));
        Cmd::Compare(CompareJob {
            generation: self.generation,
            before,
            after: self.entries.clone(),
        })
    }

    /// The answer to `Cmd::Compare`: the marks, unless the list changed since it was asked
    /// (another fetch, or the marks were cleared meanwhile).
    pub fn compared(&mut self, generation: u64, diff: Diff) -> Effects {
        let asked = self
            .comparing
            .take_if(|(g, _)| *g == generation && diff.marks.len() == self.entries.len());
        let Some((_, before)) = asked else {
            return Effects::none();
        };
        self.marks = Some(Marks::new(diff, &before));
        let relist = (!self.is_terms.is_empty())
            .then(|| self.refilter_keeping(self.selected_entry_index()))
            .flatten();
        Effects::cmd(relist).redraw_if(true)
    }
}

impl Browser {
    /// The sort key: the next field, in its usual direction; re-ranks.
    pub fn cycle_sort(&mut self) -> Option<Cmd> {
        let field = self.sort.field.next();
        self.sort = Sort {
            field,
            descending: field.descending_first(),
        };
        self.refilter_keeping(self.selected_entry_index())
    }

    /// The shifted sort key: the other direction; relevance has one, so it says which key
    /// picks a field first.
    pub fn flip_sort(&mut self, keymap: &Keymap) -> Effects {
        if self.sort.field.key().is_none() {
            return Effects::say(format!(
                "sorted by relevance: {} picks a field first",
                keymap.key(ActionName::Sort)
            ));
        }
        self.sort.descending = !self.sort.descending;
        let cmd = self.refilter_keeping(self.selected_entry_index());
        Effects::cmd(cmd).redraw_if(true).with_notice(format!(
            "sorted by {}",
            self.sort.label().unwrap_or_default()
        ))
    }

    /// The query the ranking worker is sent: the filter, then the sort's term.
    pub(super) fn ranked_query(&self) -> String {
        let Some(term) = self.sort.term() else {
            return self.query.clone();
        };
        if self.query.trim().is_empty() {
            return term;
        }
        // A quote left open is closed first, or the term would be inside it.
        let mut quotes = 0;
        let mut escaped = false;
        for c in self.query.chars() {
            quotes += usize::from(c == '"' && !escaped);
            escaped = c == '\\' && !escaped;
        }
        let close = if quotes % 2 == 1 { "\"" } else { "" };
        format!("{}{close} {term}", self.query)
    }
}
