//! Which columns of the watch table fit a width, and how wide each is.

use crate::app::state::{Row as WatchRow, State};
use crate::fit::cut as ellipsis;
use ratatui::layout::Constraint;
use unicode_width::UnicodeWidthStr;

/// Width of the status column: long statuses are cut, so one row never moves the others.
pub(super) const STATUS_WIDTH: u16 = 11;

/// The narrowest the task ID column may be while it tells the `ids` apart: each cut to that
/// width (ending in `…`) is still unlike every other.
pub(super) fn distinct_width(ids: &[&str]) -> usize {
    let longest = ids.iter().map(|id| id.width()).max().unwrap_or(0);
    (1..longest)
        .find(|&w| {
            let mut seen = std::collections::HashSet::new();
            ids.iter().all(|id| seen.insert(ellipsis(id, w)))
        })
        .unwrap_or(longest)
}

/// Spends `cost` of `budget` if there is that much left.
fn take(budget: &mut u16, cost: u16) -> bool {
    let fits = *budget >= cost;
    if fits {
        *budget -= cost;
    }
    fits
}

/// When the list spans more than one service, so rows say which: the longest name's width.
pub(super) fn services_shown(state: &State) -> Option<u16> {
    let services = &state.watch.services;
    let mut all = state
        .watch
        .rows
        .iter()
        .map(|r| services.of(r.entry.service.as_deref()));
    let first = all.next()?;
    let mut names = state.watch.rows.iter().map(|r| {
        services
            .name(services.of(r.entry.service.as_deref()))
            .width()
    });
    all.any(|s| s != first).then(|| {
        let longest = names.by_ref().max().unwrap_or(7);
        longest.clamp(7, SERVICE_WIDTH) as u16
    })
}

/// The widest a service's name is shown.
const SERVICE_WIDTH: usize = 16;

/// The widest a label column is.
const LABEL_WIDTH: usize = 16;

/// When some task has a label: the longest label's width (up to `LABEL_WIDTH`).
pub(super) fn labels_shown(state: &State) -> Option<u16> {
    state
        .watch
        .rows
        .iter()
        .filter_map(|r| r.entry.label.as_deref())
        .map(UnicodeWidthStr::width)
        .max()
        .map(|w| w.clamp(5, LABEL_WIDTH) as u16)
}

/// A row's label in its info column, when there is no label column: `sunset v2 · `.
pub(super) fn label_prefix(r: &WatchRow, cols: &Columns) -> String {
    match &r.entry.label {
        Some(label) if cols.label.is_none() => format!("{label} · "),
        _ => String::new(),
    }
}

/// Which optional columns fit. Always: task ID, status, percent, and the info column (the
/// error, or the file); then, as room allows, the ETA (else the info column shows it), a
/// gauge, the kind, the last update's age, the time since added. The service (when tasks of
/// several are listed) comes right after the ETA: which service a row is for matters more
/// than a roomy info column.
#[derive(Debug, Clone)]
#[allow(clippy::struct_excessive_bools)]
pub(super) struct Columns {
    pub(super) id: u16,
    pub(super) eta: bool,
    pub(super) gauge: bool,
    pub(super) kind: bool,
    /// The service column's width, when shown.
    pub(super) service: Option<u16>,
    /// The label column's width, when shown.
    pub(super) label: Option<u16>,
    pub(super) updated: bool,
    pub(super) added: bool,
}

impl Columns {
    /// `distinct`: the width below which the IDs on screen could no longer be told apart;
    /// the ID column gives way below it only to keep the info column's minimum.
    pub(super) fn fit(
        width: u16,
        longest_id: usize,
        distinct: usize,
        services: Option<u16>,
        labels: Option<u16>,
    ) -> Self {
        const INFO_MIN: u16 = 14;
        const INFO_ROOMY: u16 = 34;
        let fixed = STATUS_WIDTH + 4 + 3;
        let wanted = longest_id.min(28).max(distinct).max(7);
        let id = (wanted.min(usize::from(u16::MAX)) as u16)
            .min(width.saturating_sub(fixed + INFO_MIN))
            .max(7);
        let mut budget = width.saturating_sub(id + fixed + INFO_MIN);
        let eta = take(&mut budget, 8);
        let service = services.filter(|&w| take(&mut budget, w + 1));
        // The rest only where the info column keeps room for the start of an error.
        budget = budget.saturating_sub(INFO_ROOMY - INFO_MIN);
        let label = labels.filter(|&w| take(&mut budget, w + 1));
        let gauge = take(&mut budget, 11);
        let kind = take(&mut budget, 6);
        let updated = take(&mut budget, 8);
        let added = take(&mut budget, 6);
        Columns {
            id,
            eta,
            gauge,
            kind,
            service,
            label,
            updated,
            added,
        }
    }

    pub(super) fn header(&self) -> (Vec<&'static str>, Vec<Constraint>) {
        [
            (self.kind, "KIND", Constraint::Length(5)),
            (true, "TASK ID", Constraint::Length(self.id)),
            (
                self.service.is_some(),
                "SERVICE",
                Constraint::Length(self.service.unwrap_or(0)),
            ),
            (
                self.label.is_some(),
                "LABEL",
                Constraint::Length(self.label.unwrap_or(0)),
            ),
            (true, "STATUS", Constraint::Length(STATUS_WIDTH)),
            (true, "   %", Constraint::Length(4)),
            (self.gauge, "PROGRESS", Constraint::Length(10)),
            (self.eta, "ETA", Constraint::Length(7)),
            (self.added, "ADDED", Constraint::Length(5)),
            (self.updated, "UPDATED", Constraint::Length(7)),
            (true, "INFO", Constraint::Fill(1)),
        ]
        .into_iter()
        .filter(|(shown, _, _)| *shown)
        .map(|(_, h, c)| (h, c))
        .unzip()
    }
}

#[cfg(test)]
#[path = "columns_tests.rs"]
mod tests;
