//! A yes/no question over everything: replace a file that is already there? remove every
//! completed task?

use crate::app::state::{Action, Context};
use crate::app::state::{Keymap, Theme};
use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

/// A question's words: its title, the question, what yes and no do.
pub struct Question<'a> {
    pub title: &'a str,
    pub text: &'a str,
    pub yes: &'a str,
    pub no: &'a str,
}

pub fn render(q: &Question, keymap: &Keymap, theme: Theme, frame: &mut Frame) {
    let area = crate::app::layout::centered(frame.area(), 72, 6);
    frame.render_widget(Clear, area);
    let block = Block::bordered()
        .title(Span::styled(q.title.to_string(), theme.title()))
        .border_style(theme.border(true));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let lines = vec![
        Line::from(q.text.to_string()),
        Line::from(""),
        Line::from(vec![
            Span::styled(
                keymap
                    .key_for(Context::Confirm, &Action::Submit)
                    .to_string(),
                theme.key(),
            ),
            Span::styled(format!(" {}   ", q.yes), theme.dim()),
            Span::styled(
                keymap
                    .key_for(Context::Confirm, &Action::Cancel)
                    .to_string(),
                theme.key(),
            ),
            Span::styled(format!(" {}", q.no), theme.dim()),
        ]),
    ];
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}
