//! What changed in the catalogue: when a fresh list replaces the one shown (the cached copy, or
//! the previous load), each model is compared by name and metadata (`store::catalogue_cache::
//! diff`). New ones are marked `+`, changed ones `~` (the detail says what changed), and the
//! title counts them with the models gone: `12 new · 3 changed · 2 gone`. The marks stay until
//! the next load, or the clear-marks key. The first load, with nothing to compare, marks
//! nothing; a cached copy that arrives after the fresh list is still compared with it.

use crate::api::LoraEntry;
use crate::store::catalogue_cache::{Change, Diff, Mark, changes};

/// The marks of one load.
#[derive(Debug, Clone)]
pub struct Marks {
    pub diff: Diff,
    /// The changed models as the list before had them (by their index there, in order), for
    /// the detail of what changed: not the whole list before, which would stay held beside
    /// the fresh one as long as the marks are shown.
    pub(super) before: Box<[(u32, LoraEntry)]>,
}

impl Marks {
    /// The marks of `diff`, keeping of `before` only its changed models.
    pub(super) fn new(diff: Diff, before: &[LoraEntry]) -> Self {
        let mut changed: Vec<(u32, LoraEntry)> = diff
            .marks
            .iter()
            .filter_map(|m| match *m {
                Mark::Changed(old) => Some((old, before.get(old as usize)?.clone())),
                _ => None,
            })
            .collect();
        changed.sort_unstable_by_key(|(old, _)| *old);
        Marks {
            diff,
            before: changed.into(),
        }
    }

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
                .binary_search_by_key(&old, |(i, _)| *i)
                .map(|at| changes(&self.before[at].1, entry))
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
