//! The help overlay: every binding with its description, straight from the keymap. When it is
//! taller than the overlay, the bottom border says which lines are shown and which way more is;
//! a search (`/`) marks the line it is at and says how many match.

use crate::app::state::{Action, Context};
use crate::app::state::{HelpLine, State, Theme, help_scroll_max};
use crate::fit;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

/// One help line as drawn `width` columns wide: a binding's description is cut with `…` where
/// it must be; a note is one row of the wrapped remark (as the reducer counts it).
fn line(line: HelpLine, theme: Theme, width: usize) -> Line<'static> {
    let line = match line {
        HelpLine::Title(ctx) => Line::from(Span::styled(ctx.title(), theme.title())),
        HelpLine::Binding(b) => Line::from(vec![
            Span::styled(format!("  {:<8}", b.label), theme.key()),
            Span::raw(b.description.clone()),
        ]),
        HelpLine::Blank => Line::from(""),
        HelpLine::Note(text) => Line::from(Span::styled(text, theme.dim())),
    };
    Line::from(fit::cut_spans(line.spans, width)).style(line.style)
}

/// The search as the border shows it: `/text▏ · 3 matches`, or nothing without one.
pub fn search_label(state: &State) -> Option<String> {
    let s = &state.search;
    if !s.editing && s.query.is_empty() {
        return None;
    }
    let cursor = if s.editing { "▏" } else { "" };
    let found = match s.matches {
        _ if s.query.is_empty() => String::new(),
        0 => " · no match".to_string(),
        n => format!(" · {}", crate::fmt::count(n, "match")),
    };
    Some(format!("/{}{cursor}{found}", s.query))
}

/// Draws the overlay in `area` (the one `Areas` computed), `scroll` lines down.
pub fn render(state: &State, scroll: u16, area: Rect, theme: Theme, frame: &mut Frame) {
    let keymap = &state.keymap;
    frame.render_widget(Clear, area);
    let inner = crate::app::help::inner_width(area);
    let all = keymap.help_lines_at(inner);
    let total = all.len();
    let max = help_scroll_max(total, area.height);
    // The reducer clamps too; a frame drawn before a resize reached it must not scroll past.
    let scroll = scroll.min(max);
    let shown = usize::from(area.height.saturating_sub(2));
    // Only the rows on screen are styled and fitted: the help is drawn in every frame it is
    // open, and its ~150 lines made it the dearest part of a frame.
    let lines: Vec<Line<'static>> = all
        .into_iter()
        .enumerate()
        .skip(usize::from(scroll))
        .take(shown)
        .map(|(at, help_line)| {
            let drawn = line(help_line, theme, inner);
            if state.search.at == Some(at) {
                drawn.style(theme.selected())
            } else {
                drawn
            }
        })
        .collect();
    let title = format!(
        " Keys · {} closes · {} searches ",
        keymap.key_for(Context::Help, &Action::ToggleHelp),
        keymap.key_for(Context::Requests, &Action::Search)
    );
    let mut block = Block::bordered()
        .title(Span::styled(fit::cut(&title, inner), theme.title()))
        .border_style(theme.border(true));
    let mut bottom = Vec::new();
    if let Some(search) = search_label(state) {
        bottom.push(search);
    }
    if max > 0 {
        let first = usize::from(scroll) + 1;
        let last = (usize::from(scroll) + shown).min(total);
        let more = match (scroll > 0, scroll < max) {
            (false, _) => "↓ more",
            (true, true) => "↑↓ more",
            (true, false) => "↑ more",
        };
        bottom.push(format!("{more} · lines {first}–{last} of {total}"));
    }
    if !bottom.is_empty() {
        block = block.title_bottom(
            Line::from(Span::styled(
                fit::cut(&format!(" {} ", bottom.join(" · ")), inner),
                theme.key(),
            ))
            .right_aligned(),
        );
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
