//! The watch table: one row per task on screen, and the links its file names make.

use super::cells::{Keys, Link, eta_text, file_name, gauge, info_text, status_text};
use super::columns::{
    Columns, STATUS_WIDTH, distinct_width, label_prefix, labels_shown, services_shown,
};
use crate::app::state::Theme;
use crate::app::state::{Action, Context, Pane, Phase, Row as WatchRow, State, Watch};
use crate::app::watch::timing::Usual;
use crate::fit::cut as ellipsis;
use crate::fmt::age_label;
use ratatui::Frame;
use ratatui::layout::{Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Span;
use ratatui::widgets::{Cell, Row, Table};
use unicode_width::UnicodeWidthStr;

pub(super) fn render(
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
