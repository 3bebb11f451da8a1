//! The watch pane: one row per task (ID, status, percent, ETA, and the error, the download or
//! the file), the title's counts, sort and filter, and the selected task's details below.

use super::layout::Areas;
use crate::app::state::Theme;
use crate::app::state::{
    DownloadView, Keymap, Pane, Phase, Row as WatchRow, SortKey, State, TaskState, Watch,
    age_label, duration_label,
};
use crate::progress::format_eta;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

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
/// Width of the detail's labels.
const LABEL: usize = 9;

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

/// `abcdefghijkl` in 7 cells: `abc…jkl`, so both ends of a long task ID stay readable.
pub fn middle_ellipsis(text: &str, width: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= width {
        return text.to_string();
    }
    if width <= 1 {
        return "…".repeat(width);
    }
    let keep = width - 1;
    let head = keep.div_ceil(2);
    let tail = keep - head;
    let mut out: String = chars[..head].iter().collect();
    out.push('…');
    out.extend(&chars[chars.len() - tail..]);
    out
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

fn phase_style(theme: Theme, phase: Phase, erroring: bool) -> Style {
    use crate::app::state::TaskState;
    if erroring {
        // A task whose polls fail stands out, whatever was known of it before.
        return theme.state(TaskState::Running, true);
    }
    match phase {
        Phase::NotFound | Phase::NoService => theme.error(),
        Phase::Stalled => theme.stalled(),
        Phase::NotPolled => theme.dim(),
        Phase::Running => theme.state(TaskState::Running, false),
        Phase::Completed => theme.state(TaskState::Completed, false),
        Phase::Failed => theme.state(TaskState::Failed, false),
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

fn retry_text(r: &WatchRow, now: u64, keys: &Keymap) -> String {
    match r.next_retry_at {
        Some(at) => format!("retry in {}s", at.saturating_sub(now)),
        None => format!("{} asks again", keys.key("poll_now")),
    }
}

/// The info cell: the error, the unknown task, the download, else the file's name.
fn info_text(r: &WatchRow, now: u64, keys: &Keymap) -> (String, bool) {
    if let Some(e) = &r.error {
        return (format!("⚠ {e} · {}", retry_text(r, now, keys)), true);
    }
    if let Some(d) = &r.not_found {
        return (format!("{d} · {}", retry_text(r, now, keys)), true);
    }
    match &r.download {
        Some(DownloadView::Running {
            done,
            total: Some(t),
        }) if *t > 0 => (
            format!(
                "⤓ {}% of {}",
                done * 100 / t,
                crate::preview::human_bytes(*t)
            ),
            false,
        ),
        Some(DownloadView::Running { done, .. }) => {
            (format!("⤓ {}", crate::preview::human_bytes(*done)), false)
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
        Some(DownloadView::Failed(e)) => (format!("download failed: {e}"), true),
        None => (r.url().map_or("", file_name).to_string(), false),
    }
}

/// The pane's title, cut to `width` cells: the counts go from the least urgent (completed)
/// first, and the sort and the filter, which the user set, stay.
fn title(state: &State, width: usize) -> String {
    let w = &state.watch;
    let c = w.counts(state.now);
    // What needs attention first; only what there is.
    let counts: Vec<String> = [
        (c.failed, "failed"),
        (c.not_found, "not found"),
        (c.erroring, "erroring"),
        (c.stalled, "stalled"),
        (c.no_service, "no service"),
        (c.running, "running"),
        (c.completed, "completed"),
    ]
    .into_iter()
    .filter(|&(n, _)| n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
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
    }
    let compose = |shown: usize| {
        let mut parts = vec![" Watch list".to_string()];
        parts.extend(counts[..shown].iter().cloned());
        if shown < counts.len() {
            parts.push("…".to_string());
        }
        parts.extend(tail.iter().cloned());
        format!("{} ", parts.join(" · "))
    };
    (0..=counts.len())
        .rev()
        .map(compose)
        .find(|t| t.width() <= width)
        .unwrap_or_else(|| compose(0))
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
                    Span::styled(state.keymap.key("add").to_string(), theme.key()),
                    Span::styled(" adds task IDs (paste several at once).", theme.dim()),
                ]),
            ]
        } else {
            vec![Line::from(Span::styled(
                format!(
                    "No task matches the filter ({} clears it).",
                    state.keymap.key("clear_filter")
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
    let longest_id = w
        .rows
        .iter()
        .map(|r| r.entry.task_id.chars().count())
        .max()
        .unwrap_or(7);
    let services = services_shown(state);
    let cols = Columns::fit(area.width, longest_id, services);
    let focused = state.is_focused(Pane::Watch);
    let shown: Vec<(usize, &WatchRow)> = w
        .order
        .iter()
        .enumerate()
        .skip(w.cursor.offset)
        .take(usize::from(height))
        .map(|(at, &i)| (at, &w.rows[i]))
        .collect();
    let rows: Vec<Row> = shown
        .iter()
        .map(|&(at, r)| {
            let row = table_row(r, w, now, theme, &cols, &state.keymap);
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
    let (header, widths) = cols.header();
    let rects = Layout::horizontal(widths.clone()).spacing(1).split(area);
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
            let url = r.url()?;
            let (text, _) = info_text(r, now, &state.keymap);
            let name = file_name(url);
            (text == name && crate::api::links::validate_link(url).is_ok()).then(|| Link {
                x: info.x,
                y: area.y + 1 + line as u16,
                width: (name.chars().count() as u16).min(info.width),
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
    updated: bool,
    added: bool,
}

impl Columns {
    fn fit(width: u16, longest_id: usize, services: Option<u16>) -> Self {
        const INFO_MIN: u16 = 14;
        const INFO_ROOMY: u16 = 34;
        let fixed = STATUS_WIDTH + 4 + 3;
        let id = (longest_id.clamp(7, 28) as u16)
            .min(width.saturating_sub(fixed + INFO_MIN))
            .max(7);
        let mut budget = width.saturating_sub(id + fixed + INFO_MIN);
        let eta = take(&mut budget, 8);
        let service = services.filter(|&w| take(&mut budget, w + 1));
        // The rest only where the info column keeps room for the start of an error.
        budget = budget.saturating_sub(INFO_ROOMY - INFO_MIN);
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
    keys: &Keymap,
) -> Row<'static> {
    let phase = r.phase(now, w.stall_after);
    let style = phase_style(theme, phase, r.error.is_some());
    let percent = r.percent();
    let (mut info, troubled) = info_text(r, now, keys);
    let eta = eta_text(r, phase, now);
    if !cols.eta && !eta.is_empty() && !troubled {
        info = if info.is_empty() {
            eta.clone()
        } else {
            format!("{eta} · {info}")
        };
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
    // A marked task's ID starts with a tick, in place of its first cell.
    let id = if !w.marked.is_empty() && w.marked.contains(&r.key()) {
        format!(
            "✓{}",
            middle_ellipsis(&r.entry.task_id, usize::from(cols.id) - 1)
        )
    } else {
        middle_ellipsis(&r.entry.task_id, usize::from(cols.id))
    };
    cells.push(Cell::from(id));
    if let Some(width) = cols.service {
        let services = &w.services;
        cells.push(Cell::from(middle_ellipsis(
            &services.name(services.of(r.entry.service.as_deref())),
            usize::from(width),
        )));
    }
    let status = status_text(r, phase);
    cells.push(Cell::from(Span::styled(
        middle_ellipsis(&status, usize::from(STATUS_WIDTH)),
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
    cells.push(Cell::from(Span::styled(info, info_style)));
    Row::new(cells)
}

/// `value` after a `label`, cut into lines of the area's width (continuations indented), so
/// nothing is cut off and where each piece lands is known.
fn wrapped(
    label: &str,
    value: &str,
    width: usize,
    style: Style,
    theme: Theme,
) -> Vec<Line<'static>> {
    let room = width.saturating_sub(LABEL).max(1);
    let mut lines = Vec::new();
    let mut current = String::new();
    let mut used = 0;
    let mut chunks = Vec::new();
    for c in value.chars() {
        let cw = c.width().unwrap_or(0);
        if used + cw > room && !current.is_empty() {
            chunks.push(std::mem::take(&mut current));
            used = 0;
        }
        current.push(c);
        used += cw;
    }
    chunks.push(current);
    for (i, chunk) in chunks.into_iter().enumerate() {
        let head = if i == 0 {
            format!("{label:<LABEL$}")
        } else {
            " ".repeat(LABEL)
        };
        lines.push(Line::from(vec![
            Span::styled(head, theme.dim()),
            Span::styled(chunk, style),
        ]));
    }
    lines
}

fn ago(t: u64, now: u64) -> String {
    format!("{} ago", age_label(t, now))
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
    if let Some(view) = view.filter(|v| super::preview::needs_room(v)) {
        super::preview::render(frame, picture, view);
        inner.width = picture.x.saturating_sub(inner.x + 1);
    }
    let (mut lines, mut url_lines) = detail_lines(state, r, usize::from(inner.width), theme);
    if let Some(view) = view.filter(|v| !super::preview::needs_room(v)) {
        // Above the URL, where a short section still shows it.
        let text = super::preview::describe(view);
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
    if let (Some(url), Some(at)) = (r.url(), url_lines.clone())
        && crate::api::links::validate_link(url).is_ok()
    {
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
    frame.render_widget(Paragraph::new(lines), inner);
    found
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
        Phase::NoService => status.extend(services.why_not(service)),
        _ => {}
    }
    lines.extend(wrapped(
        "status",
        &status.join(" · "),
        width,
        phase_style(theme, phase, r.error.is_some()),
        theme,
    ));
    lines.extend(wrapped(
        "times",
        &times(r, now).join(" · "),
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
    for (label, text, style) in troubles(r, now, theme, state) {
        lines.extend(wrapped(label, &text, width, style, theme));
    }
    if let Some(last) = &r.entry.last
        && !last.history.is_empty()
    {
        let history = last
            .history
            .iter()
            .map(|t| format!("{} {}", ago(t.at, now), t.status))
            .collect::<Vec<_>>()
            .join(" → ");
        lines.extend(wrapped("history", &history, width, plain, theme));
    }
    (lines, url_lines)
}

/// When the task was added, seen running, finished, and how long it took.
fn times(r: &WatchRow, now: u64) -> Vec<String> {
    let mut times = vec![format!("added {}", ago(r.entry.added_at, now))];
    if let Some(last) = &r.entry.last {
        if let Some(t) = last.running_since {
            times.push(format!("running since {}", ago(t, now)));
        }
        if let Some(t) = last.finished_at {
            times.push(format!("finished {}", ago(t, now)));
            let from = last.running_since.unwrap_or(r.entry.added_at);
            times.push(format!("took {}", duration_label(t.saturating_sub(from))));
        }
        times.push(format!("polled {}", ago(last.updated_at, now)));
    }
    times
}

/// The error, the unknown task and the download, each with its label and style.
fn troubles(
    r: &WatchRow,
    now: u64,
    theme: Theme,
    state: &State,
) -> Vec<(&'static str, String, Style)> {
    let keys = &state.keymap;
    let auto = state.watch.auto_for(r);
    let mut out = Vec::new();
    if let Some(e) = &r.error {
        let text = format!("{e} · attempt {} · {}", r.retries, retry_text(r, now, keys));
        out.push(("error", text, theme.error()));
    }
    if let Some(d) = &r.not_found {
        let text = format!(
            "the service does not know this task: {d} · asked {} times · {}",
            r.retries,
            retry_text(r, now, keys)
        );
        out.push(("not found", text, theme.error()));
    }
    if let Some(d) = &r.download {
        let text = match d {
            DownloadView::Running { done, total } => match total {
                Some(t) => format!(
                    "downloading: {} of {} ({}%)",
                    crate::preview::human_bytes(*done),
                    crate::preview::human_bytes(*t),
                    done * 100 / (*t).max(1)
                ),
                None => format!("downloading: {}", crate::preview::human_bytes(*done)),
            },
            DownloadView::Saved(p) => format!("saved to {p}"),
            DownloadView::Failed(e) => format!("download failed: {e}"),
        };
        out.push(("file", text, Style::new()));
    } else if auto && r.state != TaskState::Failed {
        out.push((
            "file",
            format!(
                "downloaded by itself when it completes ({} turns this off)",
                keys.key("auto_download")
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
    fn long_ids_keep_both_ends() {
        assert_eq!(middle_ellipsis("abcdefghijkl", 7), "abc…jkl");
        assert_eq!(middle_ellipsis("short", 7), "short");
        assert_eq!(middle_ellipsis("abcdefgh", 1), "…");
        assert_eq!(middle_ellipsis("abcdefgh", 0), "");
        assert_eq!(middle_ellipsis("sim-45-portrait-batch", 12), "sim-45…batch");
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
        let narrow = Columns::fit(40, 30, None);
        assert!(!narrow.eta && !narrow.gauge && !narrow.kind);
        let at_80 = Columns::fit(78, 24, None);
        assert!(at_80.eta, "{at_80:?}");
        let wide = Columns::fit(200, 24, Some(10));
        assert!(wide.eta && wide.gauge && wide.kind && wide.updated && wide.added);
        assert_eq!(wide.service, Some(10));
        // Half of 150 columns: the service shows, the info column keeps its minimum.
        let half = Columns::fit(73, 14, Some(15));
        assert!(
            half.eta && half.service.is_some() && !half.gauge,
            "{half:?}"
        );
    }
}
