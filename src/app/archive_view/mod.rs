//! The archive view (`H` from the watch list): the finished tasks that left the watch list, as
//! the archiver lists them, with the watch list's filter language, a sort, the detail of the
//! selected task and the watch list's actions on it, plus "watch again" and delete with undo.
//! The list can hold 100,000 tasks: the filter's fields are built once per list, and a query
//! that narrows the last one is ranked over the last one's matches only.

pub mod reducer;
#[cfg(test)]
mod tests;

use super::cursor::Cursor;
use super::layout::Areas;
use super::watch::DownloadView;
use crate::cmd::{ArchiveOp, Cmd, PreviewSource, TaskKey};
use crate::filter::matching::{every_row, has_row};
use crate::filter::texts::{Rows, Table};
use crate::filter::{FuzzyFilter, Issue, Query, Scope};
use crate::store::archive::{ArchivedTask, SEARCH_KEYS, latest_first};
use ratatui::layout::{Rect, Size};
use std::collections::HashMap;
use std::sync::Arc;

/// How many rankings are kept for narrowing and erasing back (each 12.5 KB, a bit per task,
/// with 100,000 tasks).
const RANKINGS_KEPT: usize = 16;

/// A keystroke's first reading of a long list: its top rows in the list's order, this many to
/// begin with (four times as many each time that finds too few matches). The rest is read
/// once the frame that shows them is drawn (`settle`); a list of fewer than twice as many rows
/// left to read is read whole at once.
const FIRST_ROWS: usize = 2048;

/// The archive's orders, as `s` cycles them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ArchiveSort {
    /// The most recently finished first (the archiver's own order).
    #[default]
    Finished,
    /// The most recently added to the watch list first.
    Added,
    /// Task IDs in natural order (`sim-2` before `sim-10`).
    TaskId,
    /// By status name, then the most recently finished first.
    Status,
    /// By label (tasks without one last), then the most recently finished first.
    Label,
}

impl ArchiveSort {
    pub const ALL: [ArchiveSort; 5] = [
        ArchiveSort::Finished,
        ArchiveSort::Added,
        ArchiveSort::TaskId,
        ArchiveSort::Status,
        ArchiveSort::Label,
    ];

    /// How the title and the notice name it.
    pub fn label(self) -> &'static str {
        match self {
            ArchiveSort::Finished => "finished ↓",
            ArchiveSort::Added => "added ↓",
            ArchiveSort::TaskId => "task ID",
            ArchiveSort::Status => "status",
            ArchiveSort::Label => "label",
        }
    }

    fn next(self) -> Self {
        let i = Self::ALL.iter().position(|s| *s == self).unwrap_or(0);
        Self::ALL[(i + 1) % Self::ALL.len()]
    }
}

/// The filter's text for every task of the list (see `msg::search_table`).
#[derive(Debug, Default)]
struct SearchText {
    table: Arc<Table>,
    /// Every row, for a query that narrows none before it (a bit each).
    all: Vec<u64>,
}

/// The archive view's state.
#[derive(Debug, Default)]
pub struct ArchiveView {
    /// The view covers the panes.
    pub open: bool,
    /// A list came since the archive last changed (else it is asked for when the view opens).
    pub loaded: bool,
    /// Every archived task, as the archiver listed it.
    pub tasks: Arc<[ArchivedTask]>,
    /// The rows shown, as indices into `tasks`: filtered, then sorted.
    pub order: Rows,
    pub cursor: Cursor,
    pub query: String,
    /// The filter field has the keys.
    pub editing: bool,
    pub sort: ArchiveSort,
    /// The selected task's whole row, when the list's lacks its history (`ArchiveOp::Get`).
    pub full: Option<ArchivedTask>,
    /// The row asked for with `Get`, so it is asked once.
    asked: Option<i64>,
    /// What each delete took, the last last, for `u`.
    pub undo: Vec<Vec<ArchivedTask>>,
    /// Downloads started here: the row's id and how it goes.
    pub downloads: HashMap<TaskKey, (i64, DownloadView)>,
    /// The archiver's last failure, shown above the list until the next list.
    pub error: Option<String>,
    /// The local clock's offset from UTC, for the date fields (`finished:>2026-11-01`).
    pub utc_offset: i32,
    /// All rows in the current sort order (the filter keeps those it matches).
    sorted: Rows,
    search: SearchText,
    /// The last queries and their matches (a bit per task), the latest last: a query
    /// typed again (erasing back) reuses its matches, one that narrows one of them is ranked
    /// over its matches only.
    ranked: Vec<(String, Query, Vec<u64>)>,
    /// Rows gone (deleted, watched again) until the archiver's next list.
    gone: Vec<i64>,
    matcher: FuzzyFilter,
    first: FirstReading,
}

/// A keystroke's first reading of a long list (`refilter_first`).
#[derive(Debug, Default)]
struct FirstReading {
    /// `order` holds only the query's first matches, those on screen and more: the rest of
    /// the list is read by `settle`, after the frame.
    pending: bool,
    /// The rows a part reads (a bit each), kept from one keystroke to the next.
    read: Vec<u64>,
    /// Which of them match.
    kept: Vec<u64>,
}

/// Where the view draws: the panes' place, its filter line, the list, the detail and its
/// picture.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ArchiveAreas {
    pub body: Rect,
    pub filter: Rect,
    pub header: Rect,
    pub list: Rect,
    pub detail: Rect,
    pub preview: Rect,
}

/// The view's places on a screen laid out as `a`: the panes' whole place, the detail beside
/// the list when the screen is wide, else below it.
pub fn areas(a: &Areas) -> ArchiveAreas {
    let full = a.full;
    let height = a.status.y.saturating_sub(full.y).min(full.height);
    let body = Rect::new(full.x, full.y, full.width, height);
    if body.width < 20 || body.height < 5 {
        return ArchiveAreas {
            body,
            ..ArchiveAreas::default()
        };
    }
    let inner = Rect::new(body.x + 1, body.y + 1, body.width - 2, body.height - 2);
    let filter = Rect { height: 1, ..inner };
    let rest = Rect::new(inner.x, inner.y + 1, inner.width, inner.height - 1);
    let (list_part, detail) = if inner.width >= 140 {
        let w = inner.width * 9 / 20;
        (
            Rect {
                width: rest.width - w - 1,
                ..rest
            },
            Rect::new(rest.right() - w, rest.y, w, rest.height),
        )
    } else if rest.height >= 12 {
        let h = (rest.height * 3 / 5).min(11);
        (
            Rect {
                height: rest.height - h,
                ..rest
            },
            Rect::new(rest.x, rest.bottom() - h, rest.width, h),
        )
    } else {
        (rest, Rect::default())
    };
    let header = Rect {
        height: 1,
        ..list_part
    };
    let list = Rect::new(
        list_part.x,
        list_part.y + 1,
        list_part.width,
        list_part.height.saturating_sub(1),
    );
    ArchiveAreas {
        body,
        filter,
        header,
        list,
        detail,
        preview: super::layout::preview_area(detail),
    }
}

impl ArchiveView {
    pub fn new(utc_offset: i32) -> Self {
        ArchiveView {
            utc_offset,
            ..ArchiveView::default()
        }
    }

    /// Opens the view: the list is asked for (the archiver answers from what it keeps).
    pub fn open(&mut self) -> Cmd {
        self.open = true;
        self.editing = false;
        Cmd::Archive(ArchiveOp::Load)
    }

    pub fn close(&mut self) {
        self.open = false;
        self.editing = false;
    }

    /// The rows on screen follow the list's height.
    pub fn set_viewport(&mut self, a: &Areas) {
        self.cursor.viewport = usize::from(areas(a).list.height.max(1));
        self.cursor.scroll_into_view(self.order.len());
    }

    /// A new list: filtered and sorted as before, the same task selected if it is still there.
    pub fn listed(&mut self, tasks: Arc<[ArchivedTask]>, table: Arc<Table>) {
        let selected = self.selected().map(|t| t.id);
        self.tasks = tasks;
        self.loaded = true;
        self.error = None;
        self.search = SearchText {
            table,
            all: every_row(self.tasks.len()),
        };
        self.gone.clear();
        self.ranked.clear();
        self.first.pending = false;
        self.resort();
        self.refilter();
        self.reselect(selected);
    }

    /// Tasks gone from the list at once (deleted, watched again), before the archiver's next
    /// list says so.
    pub fn drop_ids(&mut self, ids: &[i64]) {
        self.settle();
        let selected = self.cursor.selected;
        self.gone.extend_from_slice(ids);
        let tasks = &self.tasks;
        self.sorted.retain(|i| !ids.contains(&tasks[i as usize].id));
        self.order.retain(|i| !ids.contains(&tasks[i as usize].id));
        self.cursor.select(self.order.len(), selected);
    }

    fn reselect(&mut self, id: Option<i64>) {
        if let Some(id) = id
            && let Some(at) = self
                .order
                .iter()
                .position(|&i| self.tasks[i as usize].id == id)
        {
            self.cursor.selected = at;
        }
        self.cursor.scroll_into_view(self.order.len());
    }

    /// How many tasks the archive holds (those gone since the last list not counted).
    pub fn count(&self) -> usize {
        self.tasks.len().saturating_sub(self.gone.len())
    }

    /// The selected task as listed.
    pub fn selected(&self) -> Option<&ArchivedTask> {
        self.order
            .get(self.cursor.selected)
            .and_then(|&i| self.tasks.get(i as usize))
    }

    /// The selected task with all that is kept for it (its whole row once `Got`).
    pub fn detail(&self) -> Option<&ArchivedTask> {
        let t = self.selected()?;
        Some(self.full.as_ref().filter(|f| f.id == t.id).unwrap_or(t))
    }

    /// `Get` for the selected task when the list's row lacks its history, once per task.
    pub fn want_detail(&mut self) -> Option<Cmd> {
        let t = self.selected()?;
        let (id, has_history) = (
            t.id,
            t.entry.last.as_ref().is_some_and(|l| !l.history.is_empty()),
        );
        if has_history || self.asked == Some(id) || self.full.as_ref().is_some_and(|f| f.id == id) {
            return None;
        }
        self.asked = Some(id);
        Some(Cmd::Archive(ArchiveOp::Get(id)))
    }

    /// The whole row the archiver sent for the detail.
    pub fn got(&mut self, id: i64, task: Option<ArchivedTask>) -> bool {
        if self.selected().is_none_or(|t| t.id != id) {
            return false;
        }
        self.full = task;
        true
    }

    pub fn move_by(&mut self, delta: isize) {
        self.settle();
        self.cursor.move_by(self.order.len(), delta);
    }

    pub fn select(&mut self, index: usize) {
        self.settle();
        self.cursor.select(self.order.len(), index);
    }

    /// `s`: the next order.
    pub fn cycle_sort(&mut self) -> ArchiveSort {
        let selected = self.selected().map(|t| t.id);
        self.first.pending = false;
        self.sort = self.sort.next();
        self.resort();
        self.refilter();
        self.reselect(selected);
        self.sort
    }

    /// A view's order (`app::views`): as `s` sets one, without cycling.
    pub fn set_sort(&mut self, sort: ArchiveSort) {
        if self.sort == sort {
            return;
        }
        let selected = self.selected().map(|t| t.id);
        self.first.pending = false;
        self.sort = sort;
        self.resort();
        self.refilter();
        self.reselect(selected);
    }

    pub fn set_query(&mut self, query: String) {
        // The list is the same one: its index finds the selected task again, in a scan of
        // the order alone (by ID, each step would read a task elsewhere in memory).
        let selected = self.order.get(self.cursor.selected).copied();
        self.query = query;
        self.first.pending = self.refilter_first();
        if !self.first.pending {
            self.refilter();
        }
        self.cursor.selected = selected
            .and_then(|s| self.order.iter().position(|&i| i == s))
            .unwrap_or(0);
        self.cursor.scroll_into_view(self.order.len());
    }

    /// Whether the list shows only the query's first matches (the count is not known yet).
    pub fn first_only(&self) -> bool {
        self.first.pending
    }

    /// Reads the rest of the list after a keystroke's first reading; whether there was any.
    /// The first matches lead the whole list too, so the selection and the scroll stay.
    pub fn settle(&mut self) -> bool {
        if !std::mem::take(&mut self.first.pending) {
            return false;
        }
        self.refilter();
        self.cursor.scroll_into_view(self.order.len());
        true
    }

    /// The file a download here saved, else the one the archive knows.
    pub fn saved_file(&self, t: &ArchivedTask) -> Option<String> {
        match self.downloads.get(&TaskKey::of(&t.entry)) {
            Some((_, DownloadView::Saved(path))) => Some(path.clone()),
            _ => t.entry.saved.clone(),
        }
    }

    /// How a download started here goes, if one was.
    pub fn download_of(&self, t: &ArchivedTask) -> Option<&DownloadView> {
        self.downloads.get(&TaskKey::of(&t.entry)).map(|(_, d)| d)
    }

    /// The picture the detail shows: the selected task's saved file, else its URL, when the
    /// detail has room for one.
    pub fn preview(&self, a: &Areas) -> Option<(TaskKey, PreviewSource, Size)> {
        let area = areas(a).preview;
        if area.is_empty() {
            return None;
        }
        let t = self.selected()?;
        let source = match self.saved_file(t) {
            Some(path) => PreviewSource::File(path.into()),
            None => PreviewSource::Url(t.entry.last.as_ref()?.url_download.clone()?),
        };
        Some((TaskKey::of(&t.entry), source, area.as_size()))
    }

    fn resort(&mut self) {
        let tasks = &self.tasks;
        let made = &self.search.table.order;
        // The archiver sorted the list by when each task finished as it made the filter's
        // text: reading 100,000 tasks here again cost 50–130 ms of the first opening.
        if self.sort == ArchiveSort::Finished && self.gone.is_empty() && made.len() == tasks.len() {
            self.sorted.fill(made.iter().copied(), made.len());
            return;
        }
        let mut sorted: Vec<u32> = (0..u32::try_from(tasks.len()).unwrap_or(u32::MAX)).collect();
        if !self.gone.is_empty() {
            sorted.retain(|&i| !self.gone.contains(&tasks[i as usize].id));
        }
        let task = |i: &u32| &tasks[*i as usize];
        let finished = |i: &u32| std::cmp::Reverse(task(i).finished_at());
        match self.sort {
            ArchiveSort::Finished => latest_first(&mut sorted, |i| tasks[i].finished_at()),
            ArchiveSort::Added => latest_first(&mut sorted, |i| tasks[i].entry.added_at),
            ArchiveSort::TaskId => sorted.sort_by(|a, b| {
                super::watch::natural_cmp(&task(a).entry.task_id, &task(b).entry.task_id)
            }),
            ArchiveSort::Status => sorted.sort_by(|a, b| {
                task(a)
                    .status()
                    .cmp(task(b).status())
                    .then(finished(a).cmp(&finished(b)))
            }),
            ArchiveSort::Label => sorted.sort_by(|a, b| {
                let (la, lb) = (&task(a).entry.label, &task(b).entry.label);
                match (la, lb) {
                    (Some(x), Some(y)) => x.to_lowercase().cmp(&y.to_lowercase()),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (None, None) => std::cmp::Ordering::Equal,
                }
                .then(finished(a).cmp(&finished(b)))
            }),
        }
        let most = sorted.len();
        self.sorted.fill(sorted, most);
    }

    /// The rows shown: every row matching the query, in the sort order.
    fn refilter(&mut self) {
        let most = self.sorted.len();
        if self.query.trim().is_empty() {
            self.ranked.clear();
            self.order.fill(self.sorted.iter().copied(), most);
            return;
        }
        let at = self.rank();
        let matched = &self.ranked[at].2;
        self.order.fill(
            self.sorted.iter().copied().filter(|&i| has_row(matched, i)),
            most,
        );
    }

    /// Fills `order` with the query's first matches only, when the rows left to read are
    /// many: down to the list's first row on screen, and two screenfuls more. The selected
    /// task, on screen, is at most that far down if it matches (a filter only removes rows
    /// above it), so it stays selected. Whether it did (else nothing changed).
    fn refilter_first(&mut self) -> bool {
        if self.query.trim().is_empty() || self.ranked.iter().any(|(q, _, _)| *q == self.query) {
            return false;
        }
        let parsed = Query::parse(&self.query);
        let over = self
            .ranked
            .iter()
            .rposition(|(_, last, _)| parsed.narrows(last));
        let over: &[u64] = over.map_or(&self.search.all, |at| &self.ranked[at].2);
        let left: usize = over.iter().map(|w| w.count_ones() as usize).sum();
        if left < 2 * FIRST_ROWS {
            return false;
        }
        let enough = self.cursor.offset + 2 * self.cursor.viewport.max(1);
        let mut read = std::mem::take(&mut self.first.read);
        let mut kept = std::mem::take(&mut self.first.kept);
        read.clear();
        read.resize(over.len(), 0);
        let mark = |set: &mut [u64], i: u32| set[i as usize / 64] |= 1 << (i % 64);
        let mut shown = Vec::new();
        // Every part's matches, the query's ranking once the parts reach the end.
        let mut matched = vec![0; over.len()];
        let (mut at, mut chunk) = (0, FIRST_ROWS);
        loop {
            let start = at;
            let mut taken = 0;
            while at < self.sorted.len() && taken < chunk {
                let row = self.sorted[at];
                if has_row(over, row) {
                    mark(&mut read, row);
                    taken += 1;
                }
                at += 1;
            }
            self.matcher.matching_among(
                &self.query,
                SEARCH_KEYS,
                &read,
                &self.search.table,
                &mut kept,
            );
            shown.extend(
                self.sorted[start..at]
                    .iter()
                    .copied()
                    .filter(|&row| has_row(&kept, row)),
            );
            read.fill(0);
            matched.iter_mut().zip(&kept).for_each(|(m, k)| *m |= k);
            if at >= self.sorted.len() {
                // Read to the end in parts (the matches are few): the whole list is known.
                (self.first.read, self.first.kept) = (read, kept);
                self.remember(parsed, matched);
                return false;
            }
            if shown.len() >= enough {
                break;
            }
            chunk *= 4;
        }
        (self.first.read, self.first.kept) = (read, kept);
        let most = shown.len();
        self.order.fill(shown, most);
        true
    }

    /// Where in `ranked` the indices of the tasks the query matches are, ascending; a query
    /// that narrows an earlier one is ranked over that one's matches only.
    fn rank(&mut self) -> usize {
        if let Some(at) = self.ranked.iter().position(|(q, _, _)| *q == self.query) {
            return at;
        }
        let parsed = Query::parse(&self.query);
        let mut over = self
            .ranked
            .iter()
            .rposition(|(_, last, _)| parsed.narrows(last));
        // The oldest ranking's memory takes the new one's matches (never the one narrowed).
        let mut kept = Vec::new();
        if self.ranked.len() >= RANKINGS_KEPT {
            let oldest = usize::from(over == Some(0));
            kept = self.ranked.remove(oldest).2;
            over = over.map(|at| if at > oldest { at - 1 } else { at });
        }
        let text = &self.search;
        let over: &[u64] = over.map_or(&text.all, |at| &self.ranked[at].2);
        // The list keeps its own order: which rows match is all that is asked, never a score.
        self.matcher
            .matching_among(&self.query, SEARCH_KEYS, over, &text.table, &mut kept);
        self.ranked.push((self.query.clone(), parsed, kept));
        self.ranked.len() - 1
    }

    /// Keeps the query's matches, read in parts, as `rank` keeps those it reads.
    fn remember(&mut self, parsed: Query, matched: Vec<u64>) {
        if self.ranked.len() >= RANKINGS_KEPT {
            self.ranked.remove(0);
        }
        self.ranked.push((self.query.clone(), parsed, matched));
    }
}

/// The archive's fields and terms, as the filter's problems name them.
pub const FILTER_SCOPE: Scope = Scope::tasks("the archive", SEARCH_KEYS);

impl ArchiveView {
    /// What the filter ignores or cannot match here (`is:new`, `nosuchfield:x`,
    /// `finished:>abc`), for the filter line; the term being typed is told once the field is
    /// left.
    pub fn filter_issues(&self) -> Vec<Issue> {
        let query = Query::parse(&self.query);
        if self.editing {
            query.told(&FILTER_SCOPE, |_| None)
        } else {
            query.issues(&FILTER_SCOPE, |_| None)
        }
    }
}

/// Whether the task completed (else it failed).
pub fn completed(t: &ArchivedTask) -> bool {
    t.status().trim().eq_ignore_ascii_case("COMPLETED")
}
