//! What changed in the catalogue: when a fresh list replaces the one shown (the cached copy, or
//! the previous load), each model is compared by name and metadata (`store::catalogue_cache::
//! diff`). New ones are marked `+`, changed ones `~` (the detail says what changed), and the
//! title counts them with the models gone: `12 new · 3 changed · 2 gone`. The marks stay until
//! the next load, or the clear-marks key. The first load, with nothing to compare, marks
//! nothing; a cached copy that arrives after the fresh list is still compared with it.

use super::Browser;
use crate::api::LoraEntry;
use crate::app::effects::Effects;
use crate::cmd::Cmd;
use crate::cmd::CompareJob;
use crate::filter::query::Flag;
use crate::store::catalogue_cache::{Change, Diff, Mark, changes};
use std::sync::Arc;

/// The marks of one load.
#[derive(Debug, Clone)]
pub struct Marks {
    pub diff: Diff,
    /// The list the fresh one replaced, for the detail of what changed.
    before: Arc<[LoraEntry]>,
}

impl Marks {
    /// Entry `index`'s mark.
    pub fn mark(&self, index: u32) -> Mark {
        self.diff
            .marks
            .get(index as usize)
            .copied()
            .unwrap_or(Mark::Same)
    }

    /// What changed in entry `index` (of the fresh list, `entry`), field by field.
    pub fn changes(&self, index: u32, entry: &LoraEntry) -> Vec<Change> {
        match self.mark(index) {
            Mark::Changed(old) => self
                .before
                .get(old as usize)
                .map(|o| changes(o, entry))
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// `12 new · 3 changed · 2 gone` (the counts that are not 0); `None` when nothing changed.
    pub fn summary(&self) -> Option<String> {
        let d = &self.diff;
        let parts: Vec<String> = [
            (d.new, "new"),
            (d.changed, "changed"),
            (d.gone.len(), "gone"),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
        (!parts.is_empty()).then(|| parts.join(" · "))
    }

    /// The summary in few columns: `+12 ~3 −2`.
    pub fn short_summary(&self) -> Option<String> {
        let d = &self.diff;
        let parts: Vec<String> = [(d.new, "+"), (d.changed, "~"), (d.gone.len(), "−")]
            .into_iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, sign)| format!("{sign}{n}"))
            .collect();
        (!parts.is_empty()).then(|| parts.join(" "))
    }
}

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
                .is_some_and(|e| self.favourites.contains(e.model.as_str())),
        }
    }

    /// The clear-marks key: the marks go (what to do next: list again under `is:new`).
    /// Whether there were any.
    pub fn clear_marks(&mut self) -> (bool, Option<Cmd>) {
        self.diff_pending = None;
        let comparing = self.comparing.take().is_some();
        if self.marks.take().is_none() {
            return (comparing, None);
        }
        let relist = self
            .is_terms
            .iter()
            .any(|t| t.flag != Flag::Fav)
            .then(|| self.refilter_keeping(self.selected_entry_index()))
            .flatten();
        (true, relist)
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
        self.marks = Some(Marks { diff, before });
        let relist = (!self.is_terms.is_empty())
            .then(|| self.refilter_keeping(self.selected_entry_index()))
            .flatten();
        Effects::cmd(relist).redraw_if(true)
    }
}
