//! The status bar and the key-hint line (generated from the keymap).

use super::theme::Theme;
use crate::app::state::{Health, State};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render_status(state: &State, area: Rect, theme: Theme, frame: &mut Frame) {
    let (dot, health_style, health) = match &state.health {
        Health::Unknown => ("○", theme.dim(), "connecting".to_string()),
        Health::Connected => ("●", theme.ok(), "connected".to_string()),
        Health::Trouble(_) => ("✖", theme.error(), "trouble".to_string()),
    };
    let c = state.watch.counts();
    let mut spans = vec![
        Span::styled(format!(" {} ", state.service_url), theme.title()),
        Span::styled(format!("{dot} {health}"), health_style),
        Span::styled(" │ ", theme.dim()),
        Span::raw(format!("{} models", state.browser.entries.len())),
        Span::styled(" │ ", theme.dim()),
        Span::raw(format!(
            "{} tasks ({} running, {} done, {} failed)",
            state.watch.rows.len(),
            c.running,
            c.completed,
            c.failed
        )),
    ];
    if let Some(n) = &state.notice {
        spans.push(Span::styled(" │ ", theme.dim()));
        spans.push(Span::raw(n.text.clone()));
    }
    if let Some(e) = &state.last_error {
        spans.push(Span::styled(" │ last error: ", theme.dim()));
        spans.push(Span::styled(e.clone(), theme.error()));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

pub fn render_hints(state: &State, area: Rect, theme: Theme, frame: &mut Frame) {
    let mut spans = vec![Span::raw(" ")];
    for b in state.keymap.hints(&state.contexts()) {
        spans.push(Span::styled(b.label, theme.key()));
        spans.push(Span::styled(
            format!(" {}  ", b.hint.unwrap_or_default()),
            theme.dim(),
        ));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
