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

/// Recomputes the rows shown (filter, then sort), keeping the selected task selected.
pub fn reorder(watch: &mut Watch, now: u64) {
    let selected = watch.selected_row().map(Row::key);
    reorder_keeping(watch, selected, now);
}

/// Recomputes the rows shown, with `selected` (taken before the rows changed) selected.
pub(super) fn reorder_keeping(watch: &mut Watch, selected: Option<TaskKey>, now: u64) {
    let mut order: Vec<usize> = if watch.query.trim().is_empty() {
        (0..watch.rows.len()).collect()
    } else {
        watch.matcher.matching(&watch.query, &watch.rows)
    };
    let stall_after = watch.stall_after;
    let rows = &watch.rows;
    match watch.sort {
        SortKey::Added => {}
        SortKey::Status => order.sort_by_key(|&i| rows[i].phase(now, stall_after).urgency()),
        SortKey::Progress => order.sort_by_key(|&i| std::cmp::Reverse(rows[i].percent())),
        SortKey::Eta => order.sort_by_key(|&i| rows[i].eta(now).unwrap_or(u64::MAX)),
        SortKey::TaskId => {
            order.sort_by(|&a, &b| natural_cmp(&rows[a].entry.task_id, &rows[b].entry.task_id));
        }
    }
    watch.order = order;
    if let Some(key) = selected
        && let Some(at) = watch.order.iter().position(|&i| watch.rows[i].key() == key)
    {
        watch.cursor.selected = at;
    }
    watch.scroll_into_view();
}

/// Selects the first (or, with `last`, the last) shown row among `keys`, if any is shown.
pub(super) fn select_one_of(watch: &mut Watch, keys: &[TaskKey], last: bool) {
    let is_one = |&i: &usize| keys.contains(&watch.rows[i].key());
    let at = if last {
        watch.order.iter().rposition(is_one)
    } else {
        watch.order.iter().position(is_one)
    };
    if let Some(at) = at {
        watch.cursor.selected = at;
    }
    watch.scroll_into_view();
}

/// Whether the order depends on what polls and the clock change.
pub(super) fn moves(watch: &Watch) -> bool {
    !matches!(watch.sort, SortKey::Added | SortKey::TaskId) || !watch.query.trim().is_empty()
}

/// `s`: the next sort order.
pub fn cycle_sort(watch: &mut Watch, now: u64) -> SortKey {
    watch.sort = watch.sort.next();
    reorder(watch, now);
    watch.sort
}

/// The filter's query changed: the rows shown follow.
pub fn set_query(watch: &mut Watch, query: String, now: u64) {
    watch.query = query;
    reorder(watch, now);
}

/// The clock moved: stalls and ETAs may reorder the rows.
pub fn tick(watch: &mut Watch, now: u64) {
    if matches!(watch.sort, SortKey::Status | SortKey::Eta) {
        reorder(watch, now);
    }
}
