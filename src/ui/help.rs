//! The help overlay: every binding with its description, straight from the keymap. When it is
//! taller than the overlay, the bottom border says which lines are shown and which way more is.

use crate::app::state::Theme;
use crate::app::state::{HelpLine, Keymap, help_scroll_max};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

fn lines(keymap: &Keymap, theme: Theme) -> Vec<Line<'static>> {
    keymap
        .help_lines()
        .into_iter()
        .map(|line| match line {
            HelpLine::Title(ctx) => Line::from(Span::styled(ctx.title(), theme.title())),
            HelpLine::Binding(b) => Line::from(vec![
                Span::styled(format!("  {:<8}", b.label), theme.key()),
                Span::raw(b.description),
            ]),
            HelpLine::Blank => Line::from(""),
            HelpLine::Note(text) => Line::from(Span::styled(text, theme.dim())),
        })
        .collect()
}

/// Draws the overlay in `area` (the one `Areas` computed), `scroll` lines down.
pub fn render(keymap: &Keymap, scroll: u16, area: Rect, theme: Theme, frame: &mut Frame) {
    frame.render_widget(Clear, area);
    let lines = lines(keymap, theme);
    let max = help_scroll_max(lines.len(), area.height);
    // The reducer clamps too; a frame drawn before a resize reached it must not scroll past.
    let scroll = scroll.min(max);
    let mut block = Block::bordered()
        .title(Span::styled(" Keys · Esc or ? closes ", theme.title()))
        .border_style(theme.border(true));
    if max > 0 {
        let shown = usize::from(area.height.saturating_sub(2));
        let first = usize::from(scroll) + 1;
        let last = (usize::from(scroll) + shown).min(lines.len());
        let more = match (scroll > 0, scroll < max) {
            (false, _) => "↓ more",
            (true, true) => "↑↓ more",
            (true, false) => "↑ more",
        };
        block = block.title_bottom(
            Line::from(Span::styled(
                format!(" {more} · lines {first}–{last} of {} ", lines.len()),
                theme.key(),
            ))
            .right_aligned(),
        );
    }
    frame.render_widget(Paragraph::new(lines).block(block).scroll((scroll, 0)), area);
}
