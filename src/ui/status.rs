//! The status bar and the key-hint line (generated from the keymap; on a narrow terminal the
//! least important hints give way, never `? help` and `q quit`).

use super::theme::Theme;
use crate::app::state::{Binding, Health, Priority, State};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

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
    let hints: Vec<&Binding> = state.keymap.hints(&state.contexts()).collect();
    let mut spans = vec![Span::raw(" ")];
    for b in fitting(hints, usize::from(area.width)) {
        spans.push(Span::styled(b.label, theme.key()));
        spans.push(Span::styled(
            format!(" {}  ", b.hint.unwrap_or_default()),
            theme.dim(),
        ));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// Columns a hint takes: its key, a space, its word.
fn hint_width(b: &Binding) -> usize {
    b.label.width() + 1 + b.hint.unwrap_or_default().width()
}

/// The hints that fit in `width` columns (a space before the first, two between), in keymap
/// order. The least important go first, the later of equals before the earlier; those with
/// `Priority::Always` stay even when nothing else is left.
fn fitting(mut hints: Vec<&Binding>, width: usize) -> Vec<&Binding> {
    let needed = |hints: &[&Binding]| {
        1 + hints.iter().map(|b| hint_width(b)).sum::<usize>() + 2 * hints.len().saturating_sub(1)
    };
    while needed(&hints) > width {
        let Some(drop) = hints
            .iter()
            .enumerate()
            .filter(|(_, b)| b.priority != Priority::Always)
            .min_by_key(|(i, b)| (b.priority, std::cmp::Reverse(*i)))
            .map(|(i, _)| i)
        else {
            break;
        };
        hints.remove(drop);
    }
    hints
}

#[cfg(test)]
mod tests {
    use super::fitting;
    use crate::app::state::{Context, Keymap};

    fn words(contexts: &[Context], width: usize) -> Vec<&'static str> {
        let hints = Keymap::default().hints(contexts).collect();
        fitting(hints, width)
            .into_iter()
            .map(|b| b.hint.unwrap_or_default())
            .collect()
    }

    #[test]
    fn the_least_important_hints_go_first_help_and_quit_never() {
        use Context::{Always, Browser, Global, Watch};
        let browser = [Browser, Global, Always];
        let watch = [Watch, Global, Always];
        assert_eq!(words(&browser, 200).len(), 10, "all fit");
        assert_eq!(
            words(&browser, 80),
            [
                "filter",
                "category",
                "open",
                "add task",
                "switch pane",
                "help",
                "quit"
            ]
        );
        // Switching panes outranks the browser's own actions: it is the way to the watch list.
        assert_eq!(
            words(&browser, 60),
            ["filter", "add task", "switch pane", "help", "quit"]
        );
        assert_eq!(
            words(&watch, 80),
            [
                "open",
                "download",
                "remove",
                "add task",
                "switch pane",
                "help",
                "quit"
            ]
        );
        assert_eq!(
            words(&watch, 60),
            ["open", "add task", "switch pane", "help", "quit"]
        );
        assert_eq!(words(&watch, 20), ["help", "quit"]);
        assert_eq!(
            words(&watch, 5),
            ["help", "quit"],
            "cut by the screen, never dropped"
        );
        for width in 0..=200 {
            for contexts in [&browser[..], &watch] {
                let shown = words(contexts, width);
                assert!(
                    shown.contains(&"help") && shown.contains(&"quit"),
                    "{width}: {shown:?}"
                );
            }
        }
    }
}
