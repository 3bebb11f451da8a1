//! A pane's border drawn a side at a time. A `Block` first styles every cell of its area (with
//! no style of its own nothing changes, but it visits them all: a sixth of a keystroke's frame
//! for the browser pane alone); its sides cost only their cells.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Span;
use ratatui::widgets::{Block, Borders};

/// Draws what `Block::new().borders(borders).title(title).border_style(style)` draws over
/// `area`, cell for cell. `inner` of that block is the area left inside.
pub(super) fn sides(
    frame: &mut Frame,
    area: Rect,
    borders: Borders,
    title: Span<'_>,
    style: Style,
) {
    let area = area.intersection(frame.area());
    let block = |b| Block::new().borders(b).border_style(style);
    let top = borders.contains(Borders::TOP);
    let bottom = borders.contains(Borders::BOTTOM);
    let rows = u16::from(top) + u16::from(bottom);
    // The title goes on the top border: without a top border, or with no row between the top
    // and the bottom ones, the block as it is.
    if !top || area.height <= rows || area.width < 2 {
        frame.render_widget(block(borders).title(title), area);
        return;
    }
    let across = borders & (Borders::LEFT | Borders::RIGHT);
    let row = |y| Rect::new(area.x, y, area.width, 1);
    let first = area.y + 1;
    let middle = area.height - rows;
    frame.render_widget(block(Borders::TOP | across).title(title), row(area.y));
    if borders.contains(Borders::LEFT) {
        frame.render_widget(block(Borders::LEFT), Rect::new(area.x, first, 1, middle));
    }
    if borders.contains(Borders::RIGHT) {
        let x = area.right() - 1;
        frame.render_widget(block(Borders::RIGHT), Rect::new(x, first, 1, middle));
    }
    if bottom {
        frame.render_widget(block(Borders::BOTTOM | across), row(area.bottom() - 1));
    }
}

#[cfg(test)]
mod tests {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::layout::Rect;
    use ratatui::style::{Color, Style};
    use ratatui::text::Span;
    use ratatui::widgets::{Block, Borders};

    /// The border drawn a side at a time is the block's, cell for cell and style for style, for
    /// every border the panes use, at every size (a title longer than the top row included).
    #[test]
    fn the_border_drawn_by_sides_is_the_blocks() {
        let border = Style::new().fg(Color::Cyan);
        let title = || Span::styled(" LoRA models · 12/40 ", Style::new().fg(Color::Yellow));
        for borders in [Borders::ALL, Borders::TOP, Borders::TOP | Borders::LEFT] {
            for (width, height) in [(1, 1), (2, 2), (5, 2), (2, 3), (8, 3), (30, 4), (60, 20)] {
                let area = Rect::new(1, 1, width, height);
                let draw = |by_sides: bool| {
                    let mut t = Terminal::new(TestBackend::new(64, 24)).expect("terminal");
                    t.draw(|f| {
                        if by_sides {
                            super::sides(f, area, borders, title(), border);
                        } else {
                            let block = Block::new()
                                .borders(borders)
                                .title(title())
                                .border_style(border);
                            f.render_widget(block, area);
                        }
                    })
                    .expect("drawn");
                    t.backend().buffer().clone()
                };
                assert_eq!(draw(true), draw(false), "{borders:?} {width}x{height}");
            }
        }
    }
}
