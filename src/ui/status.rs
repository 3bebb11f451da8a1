//! The status bar and the key-hint line (generated from the keymap; on a narrow terminal the
//! least important hints give way, never `? help` and `q quit`).

use crate::app::state::Theme;
use crate::app::state::{Binding, Counts, Health, Priority, State};
use crate::fit;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

pub fn render_status(state: &State, area: Rect, theme: Theme, frame: &mut Frame) {
    let width = usize::from(area.width);
    if let Some(n) = state.notice.as_ref().filter(|n| n.whole) {
        // How a copy went, or a URL that could not be opened: the whole bar, read whole.
        let line = vec![Span::raw(" "), Span::raw(n.text.clone())];
        super::set_lines(frame, area, &[Line::from(fit::cut_spans(line, width))]);
        return;
    }
    let (dot, health_style, health) = match &state.health {
        Health::Unknown => ("○", theme.dim(), "connecting".to_string()),
        Health::Connected => ("●", theme.ok(), "connected".to_string()),
        Health::Reconnected { .. } => ("●", theme.ok(), "reconnected".to_string()),
        Health::Trouble(_) => ("✖", theme.error(), "trouble".to_string()),
        // What was asked and why it looks wrong, first on the line: it explains everything else.
        Health::WrongPath(why) => ("✖", theme.error(), why.clone()),
    };
    let c = crate::app::watch::row::counts(&state.watch, state.now);
    let bar = |text: &'static str| Span::styled(text, theme.dim());
    // The bar's parts in the order shown, each with its rank (docs/decisions.md, "fitting
    // text"): what just happened stays whole before the address and the health; what went
    // wrong and the counts after it, which the panes' titles also give, are cut at the end.
    let mut parts: Vec<(Rank, Vec<Span<'static>>)> = vec![
        (
            Rank::Address,
            vec![Span::styled(
                format!(" {}", state.service_url),
                theme.title(),
            )],
        ),
        (
            Rank::Health,
            vec![Span::styled(format!(" {dot} {health}"), health_style)],
        ),
    ];
    // The user's actions that run stay until they end, before the notice about them; they
    // give way after the address and the health.
    if let Some(running) = state.own_actions.text() {
        parts.push((
            Rank::Error,
            vec![bar(" │ "), Span::styled(running, theme.key())],
        ));
    }
    if let Some(n) = &state.notice {
        parts.push((Rank::Notice, vec![bar(" │ "), Span::raw(n.text.clone())]));
    }
    let said = match &state.health {
        Health::WrongPath(why) => Some(why),
        _ => None,
    };
    if let Some(e) = state.last_error.as_ref().filter(|e| Some(*e) != said) {
        parts.push((
            Rank::Error,
            vec![
                bar(" │ last error: "),
                Span::styled(e.clone(), theme.error()),
            ],
        ));
    }
    parts.push((
        Rank::Count,
        vec![
            bar(" │ "),
            Span::raw(crate::fmt::count(state.browser.entries.len(), "model")),
        ],
    ));
    parts.push((
        Rank::Count,
        vec![
            bar(" │ "),
            Span::raw(tasks_text(state.watch.rows.len(), &c)),
        ],
    ));
    if let Some(load) = crate::app::status::load_text(&state.poll_load) {
        parts.push((Rank::Count, vec![bar(" │ "), Span::raw(load)]));
    }
    let spans = fit::cut_spans(keep_ranked(parts, width), width);
    super::set_lines(frame, area, &[Line::from(spans)]);
}

/// What a part of the status bar is, from the first to give way to the notice to the last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    /// After the notice: cut with `…` at the bar's end, never dropped.
    Count,
    Address,
    Health,
    Error,
    Notice,
}

/// The spans of `parts` for a bar `width` columns wide: while the notice would be cut, the
/// lowest ranked part before it goes (the address, then the health word, back when the notice
/// is gone, five seconds later). What still does not fit (the notice itself on a narrow
/// terminal, then what follows it) is the caller's to cut with `…`, so the notice keeps its
/// first words, its subject.
fn keep_ranked(mut parts: Vec<(Rank, Vec<Span<'static>>)>, width: usize) -> Vec<Span<'static>> {
    let wide = |parts: &[(Rank, Vec<Span>)]| -> usize {
        parts
            .iter()
            .flat_map(|(_, spans)| spans)
            .map(Span::width)
            .sum()
    };
    while let Some(news) = parts.iter().position(|(rank, _)| *rank == Rank::Notice) {
        // When parts follow the news, its last column is not the bar's: the mark takes one.
        let mark = usize::from(news + 1 < parts.len());
        if wide(&parts[..=news]) + mark <= width {
            break;
        }
        let Some(lowest) = parts[..news]
            .iter()
            .enumerate()
            .min_by_key(|(i, (rank, _))| (*rank, std::cmp::Reverse(*i)))
            .map(|(i, _)| i)
        else {
            break;
        };
        parts.remove(lowest);
    }
    let mut spans: Vec<Span<'static>> = parts.into_iter().flat_map(|(_, s)| s).collect();
    // A bar that lost its first parts starts with a space, not the separator's line.
    if let Some(first) = spans.first_mut()
        && let Some(rest) = first.content.strip_prefix(" │ ")
    {
        first.content = format!(" {rest}").into();
    }
    spans
}

/// `1 task (1 running)`, `4 tasks (1 failed, 1 not found, 2 done)`: every state there is a
/// task in, as the watch pane's title counts them.
fn tasks_text(total: usize, counts: &Counts) -> String {
    let parts = counts.parts();
    let total = crate::fmt::count(total, "task");
    if parts.is_empty() {
        total
    } else {
        format!("{total} ({})", parts.join(", "))
    }
}

pub fn render_hints(state: &State, area: Rect, theme: Theme, frame: &mut Frame) {
    let hints: Vec<&Binding> = state.keymap.hints(&state.contexts()).collect();
    let shown = fitting(hints, usize::from(area.width));
    let mut spans = Vec::with_capacity(1 + 2 * shown.len());
    spans.push(Span::raw(" "));
    for b in shown {
        spans.push(Span::styled(b.label.as_ref(), theme.key()));
        spans.push(Span::styled(
            format!(" {}  ", b.hint.unwrap_or_default()),
            theme.dim(),
        ));
    }
    // The last hint's gap after it is no part of it; the hints that must stay are cut with `…`
    // when even they do not fit.
    if let Some(last) = spans.last_mut() {
        last.content = last.content.trim_end().to_string().into();
    }
    let spans = fit::cut_spans(spans, usize::from(area.width));
    super::set_lines(frame, area, &[Line::from(spans)]);
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
    use crate::app::state::{Binding, Context, Keymap, Priority};

    /// A binding that is only a hint: `word`, under the key `k` (each hint is 3 + its word's
    /// length wide, 2 more between two).
    fn hint(word: &'static str, priority: Priority) -> Binding {
        Binding {
            context: Context::Global,
            name: Keymap::default().bindings()[0].name.clone(),
            keys: Vec::new(),
            also: Vec::new(),
            label: "k".into(),
            // Any action: the fitting reads only the label, the word and the priority.
            action: Keymap::default().bindings()[0].action.clone(),
            description: "".into(),
            hint: Some(word),
            priority,
        }
    }

    #[test]
    fn the_lowest_priority_goes_first_the_later_of_equals_first() {
        use Priority::{Always, High, Low, Normal};
        // Each "k wN" is 4 wide: all six take 1 + 6 * 4 + 5 * 2 = 35 columns.
        let all = [
            hint("w1", Normal),
            hint("w2", Low),
            hint("w3", High),
            hint("w4", Low),
            hint("w5", Always),
            hint("w6", Normal),
        ];
        let cases: [(usize, &[&str]); 7] = [
            (35, &["w1", "w2", "w3", "w4", "w5", "w6"]),
            (34, &["w1", "w2", "w3", "w5", "w6"]),
            (29, &["w1", "w2", "w3", "w5", "w6"]),
            (28, &["w1", "w3", "w5", "w6"]),
            (22, &["w1", "w3", "w5"]),
            (11, &["w3", "w5"]),
            (0, &["w5"]),
        ];
        for (width, expected) in cases {
            let words: Vec<&str> = fitting(all.iter().collect(), width)
                .into_iter()
                .map(|b| b.hint.unwrap_or_default())
                .collect();
            assert_eq!(words, expected, "{width} columns");
        }
    }

    #[test]
    fn help_and_quit_stay_at_every_width() {
        let keymap = Keymap::default();
        for contexts in [
            [Context::Browser, Context::Global, Context::Always],
            [Context::Watch, Context::Global, Context::Always],
        ] {
            let hints: Vec<&Binding> = keymap.hints(&contexts).collect();
            assert!(
                hints.iter().any(|b| b.priority < Priority::High),
                "{contexts:?}: some hints can go"
            );
            for width in 0..=200 {
                let shown: Vec<&str> = fitting(hints.clone(), width)
                    .into_iter()
                    .map(|b| b.hint.unwrap_or_default())
                    .collect();
                assert!(
                    shown.contains(&"help") && shown.contains(&"quit"),
                    "{contexts:?} at {width}: {shown:?}"
                );
            }
        }
    }
}
