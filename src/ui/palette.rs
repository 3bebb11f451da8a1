//! The palette: its field, then the actions that match it, each with its keys as bound now and
//! its description, the picked one highlighted; drawn where the help is.

use crate::app::palette::{entries, matching};
use crate::app::state::{Context, Palette, State, Theme};
use crate::fit;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

/// The key column's widest: a longer label is cut with `…`.
const KEYS_MAX: usize = 14;
/// The name column's widest.
const NAME_MAX: usize = 18;

/// Draws the palette in `area` (the help's).
pub fn render(state: &State, palette: &Palette, area: Rect, theme: Theme, frame: &mut Frame) {
    frame.render_widget(Clear, area);
    let inner = usize::from(area.width.saturating_sub(2));
    let all = entries(&state.keymap, state.mode_beneath());
    let shown = matching(&all, &palette.query);
    let keys_width = shown
        .iter()
        .map(|e| fit::width(e.keys))
        .max()
        .unwrap_or(0)
        .min(KEYS_MAX);
    let name_width = shown
        .iter()
        .map(|e| fit::width(e.name))
        .max()
        .unwrap_or(0)
        .min(NAME_MAX);
    // The field's row, then as many actions as fit, the pick among them.
    let rows = usize::from(area.height.saturating_sub(3)).max(1);
    let first = palette.selected.saturating_sub(rows - 1);
    let mut lines = vec![Line::from(vec![
        Span::styled("> ", theme.key()),
        Span::raw(format!("{}▏", palette.query)),
    ])];
    if shown.is_empty() {
        lines.push(Line::from(Span::styled("no action matches", theme.dim())));
    }
    for (i, e) in shown.iter().enumerate().skip(first).take(rows) {
        let spans = vec![
            Span::styled(
                format!("{} ", fit::pad(&fit::cut(e.keys, keys_width), keys_width)),
                theme.key(),
            ),
            Span::styled(
                format!("{} ", fit::pad(&fit::cut(e.name, name_width), name_width)),
                theme.title(),
            ),
            Span::raw(e.description),
        ];
        let line = Line::from(fit::cut_spans(spans, inner));
        lines.push(if i == palette.selected {
            line.style(theme.selected())
        } else {
            line
        });
    }
    let keys = &state.keymap;
    let title = format!(
        " Actions · {} runs · {} closes ",
        keys.key_for(Context::TextInput, &crate::app::state::Action::Submit),
        keys.key_for(Context::TextInput, &crate::app::state::Action::Cancel)
    );
    let count = format!(" {} of {} ", shown.len(), all.len());
    let block = Block::bordered()
        .title(Span::styled(fit::cut(&title, inner), theme.title()))
        .title_bottom(
            Line::from(Span::styled(fit::cut(&count, inner), theme.key())).right_aligned(),
        )
        .border_style(theme.border(true));
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
