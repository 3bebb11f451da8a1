//! A yes/no question over everything: replace a file that is already there? remove every
//! completed task?

use crate::app::state::{Action, Context};
use crate::app::state::{Keymap, Theme};
use crate::fit;
use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

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
    let width = usize::from(area.width.saturating_sub(2));
    let block = Block::bordered()
        .title(Span::styled(fit::cut(q.title, width), theme.title()))
        .border_style(theme.border(true));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    // The question wrapped at its spaces; the keys' line after a blank one, as far as it fits.
    let answers = vec![
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
    ];
    let mut lines: Vec<Line> = fit::wrap(q.text, width)
        .into_iter()
        .map(Line::from)
        .collect();
    let keys: Vec<Line> = fit::wrap_spans(&answers, width)
        .into_iter()
        .map(Line::from)
        .collect();
    let rows = usize::from(inner.height);
    if lines.len() + 1 + keys.len() > rows {
        // The keys stay; the question gives up its last rows, its last kept one ending in `…`.
        lines.truncate(rows.saturating_sub(1 + keys.len()).max(1));
        if let Some(last) = lines.last_mut() {
            let text: String = last.spans.iter().map(|s| s.content.as_ref()).collect();
            *last = Line::from(fit::ending_cut(&text, width));
        }
    }
    lines.push(Line::from(""));
    lines.extend(keys);
    frame.render_widget(Paragraph::new(lines), inner);
}
