//! The help overlay: every binding with its description, straight from the keymap.

use super::theme::Theme;
use crate::app::state::{Context, Keymap};
use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

pub fn lines(keymap: &Keymap, theme: Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for ctx in Context::ALL {
        lines.push(Line::from(Span::styled(ctx.title(), theme.title())));
        for b in keymap.bindings().iter().filter(|b| b.context == ctx) {
            lines.push(Line::from(vec![
                Span::styled(format!("  {:<8}", b.label), theme.key()),
                Span::raw(b.description),
            ]));
        }
        lines.push(Line::from(""));
    }
    lines.push(Line::from(Span::styled(
        "Mouse: click selects a row and focuses its pane; the wheel scrolls.",
        theme.dim(),
    )));
    lines
}

pub fn render(keymap: &Keymap, scroll: u16, theme: Theme, frame: &mut Frame) {
    let area = super::centered(frame.area(), 76, 40);
    frame.render_widget(Clear, area);
    let block = Block::bordered()
        .title(Span::styled(" Keys · Esc or ? closes ", theme.title()))
        .border_style(theme.border(true));
    frame.render_widget(
        Paragraph::new(lines(keymap, theme))
            .block(block)
            .scroll((scroll, 0)),
        area,
    );
}
