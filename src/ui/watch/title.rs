//! The watch pane's title: the list's counts, the whole list's ETA, the marks, the sort and the
//! filter, in the room there is.

use crate::app::state::{SortKey, State};
use crate::app::watch::{row, unseen};
use crate::fit::cut as ellipsis;
use crate::fmt::clock_minute;
use unicode_width::UnicodeWidthStr;

/// The pane's title, cut to `width` cells: the counts go from the least urgent (completed)
/// first, then the whole list's ETA; the sort and the filter, which the user set, stay.
pub(super) fn title(state: &State, width: usize) -> String {
    let w = &state.watch;
    // Every state there is a task in, what needs attention first; an empty list says so below.
    let mut counts = Vec::new();
    if !w.rows.is_empty() {
        counts.push(crate::fmt::count(w.rows.len(), "task"));
        let new = unseen::count(w);
        if new > 0 {
            counts.push(format!("{new} new"));
        }
        counts.extend(row::counts(w, state.now).parts());
    }
    // The whole list's ETA outlasts the counts: they give way first, least urgent first.
    let all_done = crate::app::watch::timing::all_done(w, state.now).map(|done| {
        format!(
            "all done ~{}{}",
            clock_minute(done.at, state.now, state.requests.utc_offset),
            if done.more { "+" } else { "" }
        )
    });
    let mut tail = Vec::new();
    // The view in use, which the user chose, stays with the sort and the filter.
    if let Some(view) = state.watch_view() {
        tail.push(format!("view {view}"));
    }
    if !w.marked.is_empty() {
        tail.push(format!("{} marked", w.marked.len()));
    }
    if w.sort != SortKey::Added {
        tail.push(format!("sort {}", w.sort.label()));
    }
    if w.editing || !w.query.is_empty() {
        let cursor = if w.editing { "▏" } else { "" };
        tail.push(format!(
            "/{}{cursor} {}/{}",
            w.query,
            w.order.len(),
            w.rows.len()
        ));
        tail.extend(
            crate::app::watch::filter_fields::issues(w)
                .iter()
                .map(crate::filter::Issue::told),
        );
    }
    let compose = |shown: usize, done: Option<&String>| {
        let mut parts = vec![" Watch list".to_string()];
        parts.extend(counts[..shown].iter().cloned());
        if shown < counts.len() {
            parts.push("…".to_string());
        }
        parts.extend(done.cloned());
        parts.extend(tail.iter().cloned());
        format!("{} ", parts.join(" · "))
    };
    (0..=counts.len())
        .rev()
        .map(|shown| compose(shown, all_done.as_ref()))
        .chain((0..=counts.len()).rev().map(|shown| compose(shown, None)))
        .find(|t| t.width() <= width)
        .unwrap_or_else(|| ellipsis(&compose(0, None), width))
}
