//! The watch list pane: one row per task with status, progress gauge, ages and URL.

use super::layout::Areas;
use super::theme::Theme;
use crate::app::state::{DownloadView, Pane, Row as WatchRow, State, age_label};
use ratatui::Frame;
use ratatui::layout::Constraint;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Paragraph, Row, Table};

/// "██████░░░░  60%": a gauge that fits a table cell. Any percent renders within 0..=100.
pub fn gauge(percent: u8, cells: usize) -> String {
    let p = usize::from(percent.min(100));
    let filled = (p * cells + 50) / 100;
    format!(
        "{}{} {:>3}%",
        "█".repeat(filled),
        "░".repeat(cells - filled.min(cells)),
        p
    )
}

fn last_column(row: &WatchRow) -> String {
    match (&row.download, &row.error) {
        (
            Some(DownloadView::Running {
                done,
                total: Some(t),
            }),
            _,
        ) if *t > 0 => format!("⤓ {}%", done * 100 / t),
        (Some(DownloadView::Running { done, .. }), _) => format!("⤓ {done} bytes"),
        (Some(DownloadView::Saved(p)), _) => format!("saved {p}"),
        (Some(DownloadView::Failed(e)), _) => format!("download failed: {e}"),
        (None, Some(e)) => match row.retry_in {
            Some(d) => format!("⚠ {e} (retry in {}s)", d.as_secs()),
            None => format!("⚠ {e} (R asks again)"),
        },
        (None, None) => row.url().unwrap_or("").to_string(),
    }
}

pub fn render(state: &State, areas: &Areas, theme: Theme, frame: &mut Frame) {
    let w = &state.watch;
    let c = w.counts();
    let title = format!(
        " Watch list · {} running · {} completed · {} failed ",
        c.running, c.completed, c.failed
    );
    let block = Block::bordered()
        .title(Span::styled(title, theme.title()))
        .border_style(theme.border(state.is_focused(Pane::Watch)));
    frame.render_widget(block, areas.watch);
    if areas.watch_rows.height == 0 && areas.watch_header.height == 0 {
        return;
    }
    if w.rows.is_empty() {
        let text = vec![
            Line::from(Span::styled("No tasks watched yet.", theme.dim())),
            Line::from(vec![
                Span::styled("a", theme.key()),
                Span::styled(" adds task IDs (paste several at once).", theme.dim()),
            ]),
        ];
        frame.render_widget(
            Paragraph::new(text),
            areas.watch_header.union(areas.watch_rows),
        );
        return;
    }
    let area = areas.watch_header.union(areas.watch_rows);
    // Columns in order of importance; narrow panes drop the least important ones.
    let id_width = w
        .rows
        .iter()
        .map(|r| r.entry.task_id.chars().count())
        .max()
        .unwrap_or(7)
        .clamp(7, 36) as u16;
    let status_width = w
        .rows
        .iter()
        .map(|r| {
            r.entry
                .last
                .as_ref()
                .map_or(16, |l| l.status.chars().count())
        })
        .max()
        .unwrap_or(8)
        .clamp(6, 20) as u16;
    let cols = Columns::fit(area.width, id_width, status_width);
    let focused = state.is_focused(Pane::Watch);
    let rows: Vec<Row> = w
        .rows
        .iter()
        .enumerate()
        .skip(w.cursor.offset)
        .take(usize::from(areas.watch_rows.height))
        .map(|(i, r)| {
            let row = table_row(r, state.now, theme, cols);
            if i == w.cursor.selected {
                row.style(if focused {
                    theme.selected()
                } else {
                    theme.dim().add_modifier(ratatui::style::Modifier::REVERSED)
                })
            } else {
                row
            }
        })
        .collect();
    let (header, widths): (Vec<&str>, Vec<Constraint>) = [
        (cols.kind, "KIND", Constraint::Length(5)),
        (true, "TASK ID", Constraint::Length(id_width)),
        (true, "STATUS", Constraint::Length(status_width)),
        (
            true,
            "PROGRESS",
            Constraint::Length(cols.gauge_cells as u16 + 5),
        ),
        (cols.added, "ADDED", Constraint::Length(5)),
        (cols.updated, "UPDATED", Constraint::Length(7)),
        (cols.info, "URL / INFO", Constraint::Fill(1)),
    ]
    .into_iter()
    .filter(|(shown, _, _)| *shown)
    .map(|(_, h, c)| (h, c))
    .unzip();
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(theme.dim()))
        .column_spacing(1);
    frame.render_widget(table, area);
}

/// Which optional columns fit, chosen greedily in order of importance: the URL or error,
/// the kind, the age of the last update, a wider gauge, the time since added.
#[derive(Debug, Clone, Copy)]
#[allow(clippy::struct_excessive_bools)]
struct Columns {
    info: bool,
    kind: bool,
    updated: bool,
    added: bool,
    gauge_cells: usize,
}

impl Columns {
    fn fit(width: u16, id_width: u16, status_width: u16) -> Self {
        let mut budget = width.saturating_sub(id_width + status_width + 10 + 2);
        let mut take = |cost: u16| {
            let fits = budget >= cost;
            if fits {
                budget -= cost;
            }
            fits
        };
        let info = take(13);
        let kind = take(6);
        let updated = take(8);
        let wide_gauge = take(5);
        let added = take(6);
        Columns {
            info,
            kind,
            updated,
            added,
            gauge_cells: if wide_gauge { 10 } else { 5 },
        }
    }
}

/// One task's cells, for the columns that fit.
fn table_row(r: &WatchRow, now: u64, theme: Theme, cols: Columns) -> Row<'static> {
    let (status, percent, updated) = r
        .entry
        .last
        .as_ref()
        .map_or(("(not polled yet)".to_string(), 0, "-".to_string()), |l| {
            (l.status.clone(), l.percent, age_label(l.updated_at, now))
        });
    let style = theme.state(r.state, r.error.is_some());
    let info_style = if r.error.is_some() || matches!(r.download, Some(DownloadView::Failed(_))) {
        theme.error()
    } else {
        ratatui::style::Style::new()
    };
    let mut cells = Vec::with_capacity(7);
    if cols.kind {
        cells.push(Cell::from(r.entry.kind.as_str()));
    }
    cells.push(Cell::from(r.entry.task_id.clone()));
    cells.push(Cell::from(Span::styled(status, style)));
    cells.push(Cell::from(Span::styled(
        gauge(percent, cols.gauge_cells),
        style,
    )));
    if cols.added {
        cells.push(Cell::from(age_label(r.entry.added_at, now)));
    }
    if cols.updated {
        cells.push(Cell::from(updated));
    }
    if cols.info {
        cells.push(Cell::from(Span::styled(last_column(r), info_style)));
    }
    Row::new(cells)
}

#[cfg(test)]
mod tests {
    use super::gauge;

    #[test]
    fn gauge_bounds() {
        assert_eq!(gauge(0, 10), "░░░░░░░░░░   0%");
        assert_eq!(gauge(55, 10), "██████░░░░  55%");
        assert_eq!(gauge(100, 10), "██████████ 100%");
        assert_eq!(gauge(255, 10), "██████████ 100%");
    }
}
