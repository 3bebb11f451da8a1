//! The views' popups: the save-view key's name prompt, and the list of a pane's views (each
//! with its key, if it has one, and what it sets), the question of a delete at its foot.

use crate::app::state::{
    Action, Context, State, Theme, ViewList, ViewName, view_context, view_summary, view_words,
};
use crate::fit;
use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

/// The key column's widest.
const KEYS_MAX: usize = 10;
/// The name column's widest (a name is at most 32 characters).
const NAME_MAX: usize = 20;

/// The name prompt, over the middle of the screen.
pub fn render_prompt(state: &State, prompt: &ViewName, theme: Theme, frame: &mut Frame) {
    let area = crate::app::layout::centered(frame.area(), 64, 5);
    frame.render_widget(Clear, area);
    let inner = usize::from(area.width.saturating_sub(2));
    let keys = &state.keymap;
    let title = format!(" Save the view of {} ", view_words(prompt.pane));
    let shape = state.view_shown(prompt.pane);
    let saves = view_summary(&shape.spec(prompt.pane));
    let second = match &prompt.error {
        Some(e) => Line::from(Span::styled(fit::cut(e, inner), theme.error())),
        None => Line::from(Span::styled(fit::cut(&saves, inner), theme.dim())),
    };
    let lines = vec![
        Line::from(vec![
            Span::styled("name ", theme.key()),
            Span::raw(fit::cut_start(
                &format!("{}▏", prompt.name),
                inner.saturating_sub(5),
            )),
        ]),
        second,
        Line::from(Span::styled(
            fit::cut(
                &format!(
                    "{} saves · {} cancels",
                    keys.key_for(Context::TextInput, &Action::Submit),
                    keys.key_for(Context::TextInput, &Action::Cancel)
                ),
                inner,
            ),
            theme.dim(),
        )),
    ];
    let block = Block::bordered()
        .title(Span::styled(fit::cut(&title, inner), theme.title()))
        .border_style(theme.border(true));
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// The list of a pane's views, the picked one highlighted.
pub fn render_list(state: &State, list: &ViewList, theme: Theme, frame: &mut Frame) {
    let views = state.views.of(list.pane);
    let rows = u16::try_from(views.len()).unwrap_or(u16::MAX).min(12);
    let area = crate::app::layout::centered(frame.area(), 90, rows.saturating_add(3));
    frame.render_widget(Clear, area);
    let inner = usize::from(area.width.saturating_sub(2));
    let keys = &state.keymap;
    let context = view_context(list.pane);
    // A view with a key of its own is a binding of the keymap (`[views.NAME] key`).
    let key_of = |name: &str| {
        keys.bindings()
            .iter()
            .find(|b| b.context == context && b.action == Action::ApplyView(name.to_string()))
            .map(|b| b.label.to_string())
            .unwrap_or_default()
    };
    let keys_width = views
        .iter()
        .map(|(n, _)| fit::width(&key_of(n)))
        .max()
        .unwrap_or(0)
        .min(KEYS_MAX);
    let name_width = views
        .iter()
        .map(|(n, _)| fit::width(n))
        .max()
        .unwrap_or(0)
        .min(NAME_MAX);
    let shown = usize::from(rows).max(1);
    let first = list.selected.saturating_sub(shown - 1);
    let mut lines = Vec::new();
    for (i, (name, view)) in views.iter().enumerate().skip(first).take(shown) {
        let mut spans = Vec::new();
        if keys_width > 0 {
            spans.push(Span::styled(
                format!(
                    "{} ",
                    fit::pad(&fit::cut(&key_of(name), keys_width), keys_width)
                ),
                theme.key(),
            ));
        }
        spans.push(Span::styled(
            format!("{} ", fit::pad(&fit::cut(name, name_width), name_width)),
            theme.title(),
        ));
        spans.push(Span::raw(view.summary()));
        if view.configured {
            spans.push(Span::styled(" (config)", theme.dim()));
        }
        let line = Line::from(fit::cut_spans(spans, inner));
        lines.push(if i == list.selected {
            line.style(theme.selected())
        } else {
            line
        });
    }
    let foot = match &list.deleting {
        Some(name) => Line::from(Span::styled(
            fit::cut(
                &format!(
                    "delete the view {name}? {} deletes · {} keeps it",
                    keys.key_for(Context::Confirm, &Action::Submit),
                    keys.key_for(Context::Confirm, &Action::Cancel)
                ),
                inner,
            ),
            theme.error(),
        )),
        None => Line::from(Span::styled(
            fit::cut(
                &format!(
                    "{} applies · {} deletes · {} closes",
                    keys.key_for(Context::Views, &Action::Submit),
                    keys.key_for(Context::Views, &Action::Remove),
                    keys.key_for(Context::Views, &Action::Cancel)
                ),
                inner,
            ),
            theme.dim(),
        )),
    };
    lines.push(foot);
    let title = format!(" Views of {} ", view_words(list.pane));
    let block = Block::bordered()
        .title(Span::styled(fit::cut(&title, inner), theme.title()))
        .border_style(theme.border(true));
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
