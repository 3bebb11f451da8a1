//! A yes/no question over everything: replace a file that is already there?

use crate::app::state::Confirm;
use crate::app::state::Theme;
use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

pub fn render(confirm: &Confirm, theme: Theme, frame: &mut Frame) {
    let area = super::centered(frame.area(), 72, 6);
    frame.render_widget(Clear, area);
    let block = Block::bordered()
        .title(Span::styled(" Replace the file? ", theme.title()))
        .border_style(theme.border(true));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let lines = vec![
        Line::from(confirm.question.clone()),
        Line::from(""),
        Line::from(vec![
            Span::styled("y", theme.key()),
            Span::styled(" replace   ", theme.dim()),
            Span::styled("n/Esc", theme.key()),
            Span::styled(" keep it", theme.dim()),
        ]),
    ];
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}
