//! The watch pane: one row per task (ID, status, percent, ETA, and the error, the download or
//! the file), the title's counts, sort and filter, and the selected task's details below.
//!
//! `render` draws the pane from its parts: the title (`title`), the rows (`table`, whose
//! widths `columns` chooses and whose words `cells` says) and the selected task's detail
//! (`detail`).

mod cells;
mod columns;
mod detail;
mod table;
mod title;

pub use cells::{Link, file_name, gauge};

use crate::app::layout::Areas;
use crate::app::state::Theme;
use crate::app::state::{Action, Context, GalleryOf, Pane, State};
use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::Borders;

/// Draws the pane; returns the links it drew (file names and the detail's URL).
pub fn render(state: &State, areas: &Areas, theme: Theme, frame: &mut Frame) -> Vec<Link> {
    let w = &state.watch;
    super::border::sides(
        frame,
        areas.watch,
        Borders::ALL,
        Span::styled(
            title::title(state, usize::from(areas.watch.width.saturating_sub(2))),
            theme.title(),
        ),
        theme.border(state.is_focused(Pane::Watch)),
    );
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
        crate::ui::set_lines(frame, area, &text);
        return Vec::new();
    }
    let mut links = if state.gallery_shown() == Some(GalleryOf::Watch) {
        super::gallery::render_pane(
            state,
            GalleryOf::Watch,
            areas.watch_header,
            areas.watch_rows,
            theme,
            frame,
        );
        Vec::new()
    } else {
        table::render(state, area, areas.watch_rows.height, theme, frame)
    };
    links.extend(detail::render(state, areas.watch_detail, theme, frame));
    links
}
