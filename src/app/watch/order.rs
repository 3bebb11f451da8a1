//! The order rows are shown in: the sort (`s`) and the watch list's filter, in one place.

use super::{Row, SortKey, Watch, natural_cmp};
use crate::cmd::TaskKey;

impl SortKey {
    pub const ALL: [SortKey; 5] = [
        SortKey::Added,
        SortKey::Status,
        SortKey::Progress,
        SortKey::Eta,
        SortKey::TaskId,
    ];

    pub fn label(self) -> &'static str {
        match self {
            SortKey::Added => "added",
            SortKey::Status => "status",
            SortKey::Progress => "progress",
            SortKey::Eta => "eta",
            SortKey::TaskId => "task id",
        }
    }

    /// The sort a saved label names (an unknown one is the default).
    pub fn from_label(label: &str) -> Self {
        Self::ALL
            .into_iter()
            .find(|k| k.label() == label)
            .unwrap_or_default()
    }

    fn next(self) -> Self {
        let i = Self::ALL.iter().position(|k| *k == self).unwrap_or(0);
        Self::ALL[(i + 1) % Self::ALL.len()]
    }
}

impl Watch {
    /// Recomputes the rows shown (filter, then sort), keeping the selected task selected.
    pub fn reorder(&mut self, now: u64) {
        let selected = self.selected_row().map(Row::key);
        self.reorder_keeping(selected, now);
    }

    /// Recomputes the rows shown, with `selected` (taken before the rows changed) selected.
    pub(super) fn reorder_keeping(&mut self, selected: Option<TaskKey>, now: u64) {
        let mut order: Vec<usize> = if self.query.trim().is_empty() {
            (0..self.rows.len()).collect()
        } else {
            self.matcher.matching(&self.query, &self.rows)
        };
        let stall_after = self.stall_after;
        let rows = &self.rows;
        match self.sort {
            SortKey::Added => {}
            SortKey::Status => order.sort_by_key(|&i| rows[i].phase(now, stall_after).urgency()),
            SortKey::Progress => order.sort_by_key(|&i| std::cmp::Reverse(rows[i].percent())),
            SortKey::Eta => order.sort_by_key(|&i| rows[i].eta(now).unwrap_or(u64::MAX)),
            SortKey::TaskId => {
                order.sort_by(|&a, &b| natural_cmp(&rows[a].entry.task_id, &rows[b].entry.task_id));
            }
        }
        self.order = order;
        if let Some(key) = selected
            && let Some(at) = self.order.iter().position(|&i| self.rows[i].key() == key)
        {
            self.cursor.selected = at;
        }
        self.scroll_into_view();
    }

    /// Selects the first (or, with `last`, the last) shown row among `keys`, if any is shown.
    pub(super) fn select_one_of(&mut self, keys: &[TaskKey], last: bool) {
        let is_one = |&i: &usize| keys.contains(&self.rows[i].key());
        let at = if last {
            self.order.iter().rposition(is_one)
        } else {
            self.order.iter().position(is_one)
        };
        if let Some(at) = at {
            self.cursor.selected = at;
        }
        self.scroll_into_view();
    }

    /// Whether the order depends on what polls and the clock change.
    pub(super) fn order_moves(&self) -> bool {
        !matches!(self.sort, SortKey::Added | SortKey::TaskId) || !self.query.trim().is_empty()
    }

    /// `s`: the next sort order.
    pub fn cycle_sort(&mut self, now: u64) -> SortKey {
        self.sort = self.sort.next();
        self.reorder(now);
        self.sort
    }

    pub fn set_query(&mut self, query: String, now: u64) {
        self.query = query;
        self.reorder(now);
    }

    /// The clock moved: stalls and ETAs may reorder the rows.
    pub fn tick(&mut self, now: u64) {
        if matches!(self.sort, SortKey::Status | SortKey::Eta) {
            self.reorder(now);
        }
    }
}
