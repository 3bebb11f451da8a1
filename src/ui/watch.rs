//! The watch pane: one row per task (ID, status, percent, ETA, and the error, the download or
//! the file), the title's counts, sort and filter, and the selected task's details below.

use crate::app::layout::Areas;
use crate::app::state::Theme;
use crate::app::state::{Action, Context};
use crate::app::state::{DownloadView, Pane, Phase, Row as WatchRow, SortKey, State, Watch};
use crate::app::watch::timing::Usual;
use crate::app::watch::unseen;
use crate::fit::cut as ellipsis;
use crate::fmt::{age_label, ago, clock_minute, countdown, duration_label, format_eta, wall_time};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table};
use unicode_width::UnicodeWidthStr;

/// A clickable link on screen: the cells from (`x`, `y`), `width` wide, open `url` (an
/// http/https URL, checked). The event loop wraps them in OSC 8 after drawing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub x: u16,
    pub y: u16,
    pub width: u16,
    pub url: String,
}

/// Width of the status column: long statuses are cut, so one row never moves the others.
const STATUS_WIDTH: u16 = 11;
/// Width of the detail's labels, the space after the longest (`not found`) included.
const LABEL: usize = 10;

/// "██████░░░░": a gauge that fits a table cell. Any percent renders within 0..=100.
pub fn gauge(percent: u8, cells: usize) -> String {
    let p = usize::from(percent.min(100));
    let filled = (p * cells + 50) / 100;
    format!(
        "{}{}",
        "█".repeat(filled),
        "░".repeat(cells - filled.min(cells))
    )
}

/// The narrowest the task ID column may be while it tells the `ids` apart: each cut to that
/// width (ending in `…`) is still unlike every other.
fn distinct_width(ids: &[&str]) -> usize {
    let longest = ids.iter().map(|id| id.width()).max().unwrap_or(0);
    (1..longest)
        .find(|&w| {
            let mut seen = std::collections::HashSet::new();
            ids.iter().all(|id| seen.insert(ellipsis(id, w)))
        })
        .unwrap_or(longest)
}

/// The last path segment of a URL: `…/files/img-done.png?sig=…` -> `img-done.png`.
pub fn file_name(url: &str) -> &str {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let path = path.split_once("://").map_or(path, |(_, rest)| {
        rest.split_once('/').map_or("", |(_, p)| p)
    });
    path.rsplit('/').find(|s| !s.is_empty()).unwrap_or(url)
}

/// The status cell's words.
fn status_text(r: &WatchRow, phase: Phase) -> String {
    match phase {
        // Asked, but no answer yet: "not polled" would contradict the error beside it.
        Phase::NotPolled if r.error().is_some() => "no answer".into(),
        Phase::NotPolled => "not polled".into(),
        Phase::NotFound => "NOT FOUND".into(),
        Phase::NoService => "no service".into(),
        _ => r
            .entry
            .last
            .as_ref()
            .map(|l| l.status.clone())
            .unwrap_or_default(),
    }
}

/// The ETA cell: `~3m`, `stalled`, or nothing.
fn eta_text(r: &WatchRow, phase: Phase, now: u64) -> String {
    match phase {
        Phase::Stalled => "stalled".into(),
        Phase::Running => r.eta(now).map(format_eta).unwrap_or_default(),
        _ => String::new(),
    }
}

/// What happens next to a task in trouble: `retry in 4s` while waiting for the retry; once it
/// is due the request is under way, so no countdown stuck at 0s.
fn retry_text(r: &WatchRow, now: u64, poll_key: &str) -> String {
    match r.next_retry_at() {
        Some(at) if at > now => format!("retry in {}", countdown(at - now)),
        Some(_) => "asking again".into(),
        None => format!("{poll_key} asks again"),
    }
}

/// The keys the watch rows name, as the keymap labels them.
#[derive(Clone, Copy)]
struct Keys<'a> {
    poll: &'a str,
    download: &'a str,
}

/// The info cell: the error, the unknown task, the download, else the file's name.
fn info_text(r: &WatchRow, now: u64, keys: Keys) -> (String, bool) {
    let poll_key = keys.poll;
    if let Some(e) = r.error() {
        return (format!("⚠ {e} · {}", retry_text(r, now, poll_key)), true);
    }
    if let Some(d) = r.not_found() {
        return (format!("{d} · {}", retry_text(r, now, poll_key)), true);
    }
    match &r.download {
        Some(DownloadView::Waiting) => ("⤓ waits for the preview's copy".into(), false),
        Some(DownloadView::Running {
            done,
            total: Some(t),
        }) if *t > 0 => (
            format!("⤓ {}% of {}", done * 100 / t, crate::fmt::human_bytes(*t)),
            false,
        ),
        Some(DownloadView::Running { done, .. }) => {
            (format!("⤓ {}", crate::fmt::human_bytes(*done)), false)
        }
        // The name; the status bar and the detail give the whole path.
        Some(DownloadView::Saved(p)) => (
            format!(
                "saved {}",
                std::path::Path::new(p)
                    .file_name()
                    .map_or_else(|| p.clone(), |n| n.to_string_lossy().into_owned())
            ),
            false,
        ),
        // Nothing went wrong: the reason first, so it survives a narrow column.
        Some(DownloadView::Kept(_)) => (format!("kept · {} replaces", keys.download), false),
        Some(DownloadView::Failed(e)) => (format!("download failed: {e}"), true),
        None => (r.url().map_or("", file_name).to_string(), false),
    }
}

/// The pane's title, cut to `width` cells: the counts go from the least urgent (completed)
/// first, then the whole list's ETA; the sort and the filter, which the user set, stay.
fn title(state: &State, width: usize) -> String {
    let w = &state.watch;
    // Every state there is a task in, what needs attention first; an empty list says so below.
    let mut counts = Vec::new();
    if !w.rows.is_empty() {
        counts.push(crate::fmt::count(w.rows.len(), "task"));
        let new = unseen::count(w);
        if new > 0 {
            counts.push(format!("{new} new"));
        }
        counts.extend(w.counts(state.now).parts());
    }
    // The whole list's ETA outlasts the counts: they give way first, least urgent first.
    let all_done = w.all_done(state.now).map(|done| {
        format!(
            "all done ~{}{}",
            clock_minute(done.at, state.now, state.requests.utc_offset),
            if done.more { "+" } else { "" }
        )
    });
    let mut tail = Vec::new();
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
        tail.extend(w.filter_issues().iter().map(crate::filter::Issue::told));
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

/// Draws the pane; returns the links it drew (file names and the detail's URL).
pub fn render(state: &State, areas: &Areas, theme: Theme, frame: &mut Frame) -> Vec<Link> {
    let w = &state.watch;
    let block = Block::bordered()
        .title(Span::styled(
            title(state, usize::from(areas.watch.width.saturating_sub(2))),
            theme.title(),
        ))
        .border_style(theme.border(state.is_focused(Pane::Watch)));
    frame.render_widget(block, areas.watch);
    if areas.watch_rows.height == 0 && areas.watch_header.height == 0 {
        return Vec::new();
    }
    let area = areas.watch_header.union(areas.watch_rows);
    if w.order.is_empty() {
        let text = if w.rows.is_empty() {
            vec![
                Line::from(Span::styled("No tasks watched yet.", theme.dim())),
                Line::from(vec![
                    Span::styled(
                        state
                            .keymap
                            .key_for(Context::Global, &Action::OpenAddDialog)
                            .to_string(),
                        theme.key(),
                    ),
                    Span::styled(" adds task IDs (paste several at once).", theme.dim()),
                ]),
            ]
        } else {
            vec![Line::from(Span::styled(
                format!(
                    "No task matches the filter ({} clears it).",
                    state.keymap.key_for(Context::Browser, &Action::Cancel)
                ),
                theme.dim(),
            ))]
        };
        frame.render_widget(Paragraph::new(text), area);
        return Vec::new();
    }
    let mut links = render_table(state, area, areas.watch_rows.height, theme, frame);
    links.extend(render_detail(state, areas.watch_detail, theme, frame));
    links
}

fn render_table(
    state: &State,
    area: Rect,
    height: u16,
    theme: Theme,
    frame: &mut Frame,
) -> Vec<Link> {
    let w = &state.watch;
    let now = state.now;
    // A new task's `●` takes a cell of the column too.
    let longest_id = w
        .rows
        .iter()
        .map(|r| r.entry.task_id.width() + usize::from(r.entry.unseen()))
        .max()
        .unwrap_or(7);
    let services = services_shown(state);
    let focused = state.is_focused(Pane::Watch);
    let keys = Keys {
        poll: state.keymap.key_for(Context::Watch, &Action::PollNow),
        download: state.keymap.key_for(Context::Watch, &Action::Download),
    };
    let shown: Vec<(usize, &WatchRow)> = w
        .order
        .iter()
        .enumerate()
        .skip(w.cursor.offset)
        .take(usize::from(height))
        .map(|(at, &i)| (at, &w.rows[i]))
        .collect();
    let visible_ids: Vec<&str> = shown
        .iter()
        .map(|(_, r)| r.entry.task_id.as_str())
        .collect();
    let cols = Columns::fit(
        area.width,
        longest_id,
        distinct_width(&visible_ids),
        services,
        labels_shown(state),
    );
    // The usual durations, only when a running task is on screen to compare.
    let running = shown
        .iter()
        .any(|(_, r)| matches!(r.phase(now, w.stall_after), Phase::Running | Phase::Stalled));
    let usual = if running {
        Usual::of(w)
    } else {
        Usual::default()
    };
    let (header, widths) = cols.header();
    // Only the widths are read: split a row at the origin, so that the layout's cache (keyed
    // by the area) answers for every place and height of the pane at this width.
    let rects = Layout::horizontal(widths.clone())
        .spacing(1)
        .split(Rect::new(0, 0, area.width, 1));
    let info_width = usize::from(rects[rects.len() - 1].width);
    // In a pane narrower than the columns, the ID and the headers are cut to what they got.
    let cols = Columns {
        id: cols.id.min(rects[usize::from(cols.kind)].width),
        ..cols
    };
    let header: Vec<String> = header
        .iter()
        .zip(rects.iter())
        .map(|(h, r)| ellipsis(h, usize::from(r.width)))
        .collect();
    let rows: Vec<Row> = shown
        .iter()
        .map(|&(at, r)| {
            let row = table_row(r, w, now, theme, &cols, (keys, usual), info_width);
            if at == w.cursor.selected {
                row.style(if focused {
                    theme.selected()
                } else {
                    theme.dim().add_modifier(Modifier::REVERSED)
                })
            } else {
                row
            }
        })
        .collect();
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(theme.dim()))
        .column_spacing(1);
    frame.render_widget(table, area);
    // The file names in the info column, as links.
    let info = rects[rects.len() - 1];
    shown
        .iter()
        .enumerate()
        .filter_map(|(line, &(_, r))| {
            let url = r.openable_url()?;
            let (text, _) = info_text(r, now, keys);
            let name = file_name(url);
            // After the label, when it has no column of its own.
            let skip = label_prefix(r, &cols).width() as u16;
            (text == name && skip < info.width).then(|| Link {
                x: area.x + info.x + skip,
                y: area.y + 1 + line as u16,
                width: (name.chars().count() as u16).min(info.width - skip),
                url: url.to_string(),
            })
        })
        .filter(|l| l.width > 0 && l.y < area.bottom())
        .collect()
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
fn services_shown(state: &State) -> Option<u16> {
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
fn labels_shown(state: &State) -> Option<u16> {
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
fn label_prefix(r: &WatchRow, cols: &Columns) -> String {
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
struct Columns {
    id: u16,
    eta: bool,
    gauge: bool,
    kind: bool,
    /// The service column's width, when shown.
    service: Option<u16>,
    /// The label column's width, when shown.
    label: Option<u16>,
    updated: bool,
    added: bool,
}

impl Columns {
    /// `distinct`: the width below which the IDs on screen could no longer be told apart;
    /// the ID column gives way below it only to keep the info column's minimum.
    fn fit(
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

    fn header(&self) -> (Vec<&'static str>, Vec<Constraint>) {
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

/// One task's cells, for the columns that fit.
fn table_row(
    r: &WatchRow,
    w: &Watch,
    now: u64,
    theme: Theme,
    cols: &Columns,
    (keys, usual): (Keys, Usual),
    info_width: usize,
) -> Row<'static> {
    let phase = r.phase(now, w.stall_after);
    let style = theme.phase(phase, r.error().is_some());
    let percent = r.percent();
    let (mut info, troubled) = info_text(r, now, keys);
    if !troubled && usual.slower(&r.entry, phase, now).is_some() {
        info = if info.is_empty() {
            "slower than usual".to_string()
        } else {
            format!("slower than usual · {info}")
        };
    }
    let eta = eta_text(r, phase, now);
    if !cols.eta && !eta.is_empty() && !troubled {
        info = if info.is_empty() {
            eta.clone()
        } else {
            format!("{eta} · {info}")
        };
    }
    if info.is_empty() {
        info = label_prefix(r, cols).trim_end_matches(" · ").to_string();
    } else {
        info.insert_str(0, &label_prefix(r, cols));
    }
    let info_style = if troubled {
        theme.error()
    } else if r.url().is_some_and(|u| info == file_name(u)) {
        theme.link()
    } else {
        Style::new()
    };
    let mut cells = Vec::with_capacity(10);
    if cols.kind {
        cells.push(Cell::from(r.entry.kind.as_str()));
    }
    // A marked task's ID starts with a tick, a new one's (finished since last looked at) with
    // `●`, in place of its first cells.
    let mut marks = String::new();
    if !w.marked.is_empty() && w.marked.contains(&r.key()) {
        marks.push('✓');
    }
    if r.entry.unseen() {
        marks.push('●');
    }
    let room = usize::from(cols.id).saturating_sub(marks.width());
    let id = format!("{marks}{}", ellipsis(&r.entry.task_id, room));
    cells.push(Cell::from(id));
    if let Some(width) = cols.service {
        let services = &w.services;
        cells.push(Cell::from(ellipsis(
            &services.name(services.of(r.entry.service.as_deref())),
            usize::from(width),
        )));
    }
    let status = status_text(r, phase);
    if let Some(width) = cols.label {
        cells.push(Cell::from(ellipsis(
            r.entry.label.as_deref().unwrap_or(""),
            usize::from(width),
        )));
    }
    cells.push(Cell::from(Span::styled(
        ellipsis(&status, usize::from(STATUS_WIDTH)),
        style,
    )));
    let percent_text = if r.entry.last.is_some() {
        format!("{percent:>3}%")
    } else {
        "   -".to_string()
    };
    cells.push(Cell::from(Span::styled(percent_text, style)));
    if cols.gauge {
        cells.push(Cell::from(Span::styled(gauge(percent, 10), style)));
    }
    if cols.eta {
        let eta_style = if phase == Phase::Stalled {
            theme.stalled()
        } else {
            Style::new()
        };
        cells.push(Cell::from(Span::styled(eta, eta_style)));
    }
    if cols.added {
        cells.push(Cell::from(age_label(r.entry.added_at, now)));
    }
    if cols.updated {
        let updated = r
            .entry
            .last
            .as_ref()
            .map_or("-".to_string(), |l| age_label(l.updated_at, now));
        cells.push(Cell::from(updated));
    }
    cells.push(Cell::from(Span::styled(
        ellipsis(&info, info_width),
        info_style,
    )));
    Row::new(cells)
}

/// `value` after a `label` (at least one space between), wrapped at spaces into lines of the
/// area's width, continuations indented; only a word longer than a whole line (a URL) is
/// broken, so nothing is cut off and where each piece lands is known.
fn wrapped(
    label: &str,
    value: &str,
    width: usize,
    style: Style,
    theme: Theme,
) -> Vec<Line<'static>> {
    let room = width.saturating_sub(LABEL).max(1);
    crate::fit::wrap(value, room)
        .into_iter()
        .enumerate()
        .map(|(i, chunk)| {
            let head = if i == 0 {
                format!("{label:<w$} ", w = LABEL - 1)
            } else {
                " ".repeat(LABEL)
            };
            Line::from(vec![
                Span::styled(head, theme.dim()),
                Span::styled(chunk, style),
            ])
        })
        .collect()
}

/// The selected task, every fact about it; the URL is returned as links, one per line it takes.
fn render_detail(state: &State, area: Rect, theme: Theme, frame: &mut Frame) -> Vec<Link> {
    if area.height < 2 || area.width < 12 {
        return Vec::new();
    }
    let Some(r) = state.watch.selected_row() else {
        return Vec::new();
    };
    let block = Block::new()
        .borders(Borders::TOP)
        .border_style(theme.dim())
        .title(Span::styled(" task ", theme.dim()));
    let mut inner = block.inner(area);
    frame.render_widget(block, area);
    // A finished task's picture on the right; the text keeps the rest.
    let picture = state.areas.watch_preview;
    let view = state
        .preview_source()
        .and(state.preview.view())
        .filter(|_| !picture.is_empty());
    if let Some(view) = view.filter(|v| super::preview_slot::needs_room(v)) {
        super::preview_slot::render(frame, picture, view);
        inner.width = picture.x.saturating_sub(inner.x + 1);
    }
    let (mut lines, mut url_lines) = detail_lines(state, r, usize::from(inner.width), theme);
    if let Some(view) = view.filter(|v| !super::preview_slot::needs_room(v)) {
        // Above the URL, where a short section still shows it.
        let text = super::preview_slot::describe(view);
        let said = wrapped(
            "preview",
            &text,
            usize::from(inner.width),
            theme.dim(),
            theme,
        );
        let at = url_lines.as_ref().map_or(lines.len(), |u| u.start);
        let n = said.len();
        lines.splice(at..at, said);
        url_lines = url_lines.map(|u| u.start + n..u.end + n);
    }
    let mut found = Vec::new();
    if let (Some(url), Some(at)) = (r.openable_url(), url_lines.clone()) {
        for i in at {
            let y = inner.y + i as u16;
            let text_width = lines[i].spans.get(1).map_or(0, Span::width) as u16;
            if y < inner.bottom() && text_width > 0 {
                found.push(Link {
                    x: inner.x + LABEL as u16,
                    y,
                    width: text_width.min(inner.width.saturating_sub(LABEL as u16)),
                    url: url.to_string(),
                });
            }
        }
    }
    mark_cut(
        &mut lines,
        usize::from(inner.height),
        usize::from(inner.width),
    );
    frame.render_widget(Paragraph::new(lines), inner);
    found
}

/// When there are more `lines` than rows, the last row shown ends with `…`, so a detail cut
/// short says so.
fn mark_cut(lines: &mut Vec<Line<'static>>, rows: usize, width: usize) {
    if lines.len() <= rows || rows == 0 {
        return;
    }
    lines.truncate(rows);
    let Some(last) = lines.last_mut() else {
        return;
    };
    let Some(text) = last.spans.pop() else {
        return;
    };
    let room = width.saturating_sub(last.spans.iter().map(Span::width).sum());
    let cut = crate::fit::ending_cut(&text.content, room);
    last.spans.push(Span::styled(cut, text.style));
}

/// The detail's lines, cut to `width`, and which of them hold the URL.
fn detail_lines(
    state: &State,
    r: &WatchRow,
    width: usize,
    theme: Theme,
) -> (Vec<Line<'static>>, Option<std::ops::Range<usize>>) {
    let now = state.now;
    let phase = r.phase(now, state.watch.stall_after);
    let plain = Style::new();
    let mut lines = wrapped("task", &r.entry.task_id, width, theme.title(), theme);
    if let Some(label) = &r.entry.label {
        lines.extend(wrapped("label", label, width, theme.title(), theme));
    }
    let services = &state.watch.services;
    let service = services.of(r.entry.service.as_deref());
    let name = services.name(service);
    let service_text = if name == service || service.is_empty() {
        name
    } else {
        format!("{name} ({service})")
    };
    lines.extend(wrapped(
        "kind",
        &format!("{} · service {service_text}", r.entry.kind.as_str()),
        width,
        plain,
        theme,
    ));
    let mut status = vec![status_text(r, phase)];
    if r.entry.last.is_some() {
        status.push(format!("{}%", r.percent()));
    }
    match phase {
        Phase::Stalled => status.push(format!(
            "stalled: no progress for {}",
            duration_label(r.still_for(now).unwrap_or(0))
        )),
        Phase::Running => status.extend(r.eta(now).map(|e| format!("ETA {}", format_eta(e)))),
        _ => {}
    }
    if let Some((taken, p90)) = Usual::of(&state.watch).slower(&r.entry, phase, now) {
        status.push(format!(
            "slower than usual: running for {}, 90% of {} tasks took at most {}",
            duration_label(taken),
            r.entry.kind.as_str(),
            duration_label(p90)
        ));
    }
    if r.entry.unseen() {
        status.push("new".into());
    }
    lines.extend(wrapped(
        "status",
        &status.join(" · "),
        width,
        theme.phase(phase, r.error().is_some()),
        theme,
    ));
    let offset = state.requests.utc_offset;
    lines.extend(wrapped(
        "times",
        &times(r, now, offset).join(" · "),
        width,
        plain,
        theme,
    ));
    lines.extend(wrapped(
        "polled",
        &polled(state, r, phase),
        width,
        plain,
        theme,
    ));
    let mut url_lines = None;
    if let Some(url) = r.url() {
        let first = lines.len();
        lines.extend(wrapped("url", url, width, theme.link(), theme));
        url_lines = Some(first..lines.len());
    }
    for (label, text, style) in troubles(state, r, theme) {
        lines.extend(wrapped(label, &text, width, style, theme));
    }
    if let Some(last) = &r.entry.last
        && !last.history.is_empty()
    {
        let history = last
            .history
            .iter()
            .map(|t| format!("{} {}", wall_time(t.at, now, offset), t.status))
            .collect::<Vec<_>>()
            .join(" → ");
        lines.extend(wrapped("history", &history, width, plain, theme));
    }
    (lines, url_lines)
}

/// When the task was added, seen running, finished, and how long it took: only when both its
/// start (first seen at 0%) and its finish were seen, else the span would be a guess.
fn times(r: &WatchRow, now: u64, offset: time::UtcOffset) -> Vec<String> {
    let mut times = vec![format!(
        "added {}",
        wall_time(r.entry.added_at, now, offset)
    )];
    let Some(last) = &r.entry.last else {
        return times;
    };
    if let Some(t) = last.running_since {
        let verb = if last.start_seen {
            "started"
        } else {
            "seen running"
        };
        times.push(format!("{verb} {}", wall_time(t, now, offset)));
    }
    if let Some(t) = last.finished_at {
        let verb = if last.running_since.is_some() {
            "finished"
        } else {
            "found finished"
        };
        times.push(format!("{verb} {}", wall_time(t, now, offset)));
        if let Some(from) = last.running_since.filter(|_| last.start_seen) {
            times.push(format!("took {}", duration_label(t.saturating_sub(from))));
        }
    }
    times
}

/// When the task was last asked about, and why it is not being asked now (or when it will
/// be), in words that agree with the status above.
fn polled(state: &State, r: &WatchRow, phase: Phase) -> String {
    let now = state.now;
    let before = r
        .entry
        .last
        .as_ref()
        .map(|l| l.updated_at)
        .into_iter()
        .chain(r.entry.trouble.as_ref().map(|t| t.since))
        .max();
    let when = match (r.polled_at, before) {
        (Some(t), _) => ago(t, now),
        (None, Some(t)) => format!("{}, before this start", ago(t, now)),
        (None, None) => "never".into(),
    };
    let services = &state.watch.services;
    let service = services.of(r.entry.service.as_deref());
    let next = match phase {
        Phase::NoService => format!(
            "not polled: {}",
            services
                .why_not(service)
                .unwrap_or_else(|| "its service is not configured".into())
        ),
        Phase::Completed | Phase::Failed => "finished, so not polled again".into(),
        _ => match r.next_retry_at() {
            Some(at) if at > now => format!("retry in {}", countdown(at - now)),
            Some(_) => "asking again now".into(),
            None if r.polled_at.is_none() => "first poll of this start under way".into(),
            None => r
                .next_poll
                .map_or_else(|| "polled again while it runs".into(), |p| p.words(now)),
        },
    };
    format!("{when} · {next}")
}

/// The error, the unknown task and the download, each with its label and style.
fn troubles(state: &State, r: &WatchRow, theme: Theme) -> Vec<(&'static str, String, Style)> {
    let since = r.entry.trouble.as_ref().map(|t| {
        format!(
            "since {}",
            wall_time(t.since, state.now, state.requests.utc_offset)
        )
    });
    let mut out = Vec::new();
    if let Some(e) = r.error() {
        let mut text = vec![e.to_string()];
        if r.retries() > 0 {
            text.push(format!("attempt {}", r.retries()));
        }
        text.extend(since.clone());
        out.push(("error", text.join(" · "), theme.error()));
    }
    if let Some(d) = r.not_found() {
        let mut text = vec![format!("the service does not know this task: {d}")];
        if r.retries() > 0 {
            text.push(format!(
                "asked {} {}",
                r.retries(),
                if r.retries() == 1 { "time" } else { "times" }
            ));
        }
        text.extend(since);
        out.push(("not found", text.join(" · "), theme.error()));
    }
    if let Some(d) = &r.download {
        let text = match d {
            DownloadView::Waiting => {
                "waiting for the preview's fetch of the same file, to copy it".to_string()
            }
            DownloadView::Running { done, total } => match total {
                Some(t) => format!(
                    "downloading: {} of {} ({}%)",
                    crate::fmt::human_bytes(*done),
                    crate::fmt::human_bytes(*t),
                    done * 100 / (*t).max(1)
                ),
                None => format!("downloading: {}", crate::fmt::human_bytes(*done)),
            },
            DownloadView::Saved(p) => format!("saved to {p}"),
            // The reason first: a long path is what a narrow pane cuts.
            DownloadView::Kept(p) => format!(
                "kept, {} replaces it: {p} was there already",
                state.keymap.key_for(Context::Watch, &Action::Download)
            ),
            DownloadView::Failed(e) => format!("download failed: {e}"),
        };
        out.push(("file", text, Style::new()));
    } else if state.watch.auto_for(r) && !r.failed() {
        out.push((
            "file",
            format!(
                "downloaded by itself when it completes ({} turns this off)",
                state
                    .keymap
                    .key_for(Context::Watch, &Action::ToggleAutoDownload)
            ),
            theme.dim(),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gauge_bounds() {
        assert_eq!(gauge(0, 10), "░░░░░░░░░░");
        assert_eq!(gauge(55, 10), "██████░░░░");
        assert_eq!(gauge(100, 10), "██████████");
        assert_eq!(gauge(255, 10), "██████████");
    }

    #[test]
    fn ids_keep_the_width_that_tells_them_apart() {
        assert_eq!(distinct_width(&["sim-1", "hold-2"]), 2, "s… and h…");
        assert_eq!(
            distinct_width(&[
                "batch-2026-11-25-render-0001",
                "batch-2026-11-25-render-0002"
            ]),
            28,
            "they differ only in the last character"
        );
        assert_eq!(distinct_width(&["abc"]), 1);
        assert_eq!(distinct_width(&[]), 0);
        // The ID column takes that width while the info column keeps its minimum.
        let at_80 = Columns::fit(78, 40, 36, None, None);
        assert_eq!(at_80.id, 36, "{at_80:?}");
        let squeezed = Columns::fit(50, 40, 36, None, None);
        assert_eq!(
            squeezed.id,
            50 - (STATUS_WIDTH + 4 + 3) - 14,
            "{squeezed:?}"
        );
    }

    #[test]
    fn file_names_are_the_last_path_segment() {
        assert_eq!(
            file_name("http://127.0.0.1:8787/files/img-done.png"),
            "img-done.png"
        );
        assert_eq!(
            file_name("https://cdn.example/a/b/v.mp4?sig=x/y#frag"),
            "v.mp4"
        );
        assert_eq!(file_name("https://cdn.example/dir/"), "dir");
        assert_eq!(file_name("https://cdn.example"), "https://cdn.example");
    }

    #[test]
    fn columns_keep_the_info_column_longest() {
        let narrow = Columns::fit(40, 30, 7, None, None);
        assert!(!narrow.eta && !narrow.gauge && !narrow.kind);
        let at_80 = Columns::fit(78, 24, 7, None, None);
        assert!(at_80.eta, "{at_80:?}");
        let wide = Columns::fit(200, 24, 7, Some(10), Some(9));
        assert!(wide.eta && wide.gauge && wide.kind && wide.updated && wide.added);
        assert_eq!((wide.service, wide.label), (Some(10), Some(9)));
        // Half of 150 columns: the service shows, the info column keeps its minimum.
        let half = Columns::fit(73, 14, 7, Some(15), None);
        assert!(
            half.eta && half.service.is_some() && !half.gauge,
            "{half:?}"
        );
    }
}
