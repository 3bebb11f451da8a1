//! The add dialog: task IDs (several at once) and the image/video toggle.
//!
//! Pasted lists can be long: the input shows its last rows (where the cursor is), and the error
//! has rows of its own between the input and the kind, so no amount of text pushes it away.

use crate::app::state::Theme;
use crate::app::state::{Action, Context};
use crate::app::state::{AddDialog, Keymap};
use crate::fit;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

/// The most rows an error takes; a longer one ends in "…".
const ERROR_ROWS: usize = 3;

/// Marks where typed text goes: always at the end.
const CURSOR: char = '▏';

pub fn render(dialog: &AddDialog, keymap: &Keymap, theme: Theme, frame: &mut Frame) {
    if dialog.relabel.is_some() {
        render_relabel(dialog, keymap, theme, frame);
        return;
    }
    let area = crate::app::layout::centered(frame.area(), 64, 11);
    frame.render_widget(Clear, area);
    let block = Block::bordered()
        .title(Span::styled(
            fit::cut(
                " Add tasks to the watch list ",
                usize::from(area.width.saturating_sub(2)),
            ),
            theme.title(),
        ))
        .border_style(theme.border(true));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let width = usize::from(inner.width);
    let error = dialog
        .error
        .as_deref()
        .map(|e| fit::wrap_rows(e, width, ERROR_ROWS))
        .unwrap_or_default();
    let [
        label_area,
        input_area,
        error_area,
        name_area,
        kind_area,
        help_area,
    ] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(error.len() as u16),
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(inner);

    frame.render_widget(
        Paragraph::new(Span::styled("Task IDs:", theme.dim())),
        label_area,
    );

    let input = input_lines(dialog, width, usize::from(input_area.height), theme);
    frame.render_widget(Paragraph::new(input), input_area);

    let error: Vec<Line> = error
        .into_iter()
        .map(|row| Line::from(Span::styled(row, theme.error())))
        .collect();
    frame.render_widget(Paragraph::new(error), error_area);

    frame.render_widget(
        Paragraph::new(label_line(
            "Label: ",
            dialog,
            width,
            theme,
            &format!(
                "   ({} moves here)",
                keymap.key_for(Context::AddDialog, &Action::PickNext)
            ),
        )),
        name_area,
    );

    let kind = kind_line(dialog, keymap, theme);
    frame.render_widget(
        Paragraph::new(Line::from(fit::cut_spans(kind, width))),
        kind_area,
    );
    frame.render_widget(
        Paragraph::new(Span::styled(
            fit::cut(
                &format!(
                    "{} add · {} cancel · several IDs: space, comma or newline",
                    keymap.key_for(Context::TextInput, &Action::Submit),
                    keymap.key_for(Context::TextInput, &Action::Cancel)
                ),
                width,
            ),
            theme.dim(),
        )),
        help_area,
    );
}

/// The task IDs field's rows, `height` of them at most, `width` wide: its end.
fn input_lines(
    dialog: &AddDialog,
    width: usize,
    height: usize,
    theme: Theme,
) -> Vec<Line<'static>> {
    // Only the end fits, and only the end is cleaned (a long paste is up to 64 KiB): the
    // field never holds an escape sequence, so a cut one cannot start the tail.
    let budget = height * width;
    let shown = dialog.tail(budget);
    let cursor = if dialog.on_label { "" } else { "▏" };
    let mut rows = fit::wrap_chars(&format!("{shown}{cursor}"), width);
    let hidden = rows.len().saturating_sub(height);
    rows.drain(..hidden);
    if (hidden > 0 || dialog.text.chars().nth(budget).is_some())
        && let Some(first) = rows.first_mut()
    {
        // The first row shown starts with `…`: there is more above.
        *first = fit::cut_start(&format!("{}{first}", fit::MORE), fit::width(first));
    }
    let last = rows.len().saturating_sub(1);
    rows.into_iter()
        .enumerate()
        .map(|(i, mut row)| {
            if i == last && !dialog.on_label {
                row.pop();
                Line::from(vec![
                    Span::raw(row),
                    Span::styled(CURSOR.to_string(), theme.key()),
                ])
            } else {
                Line::raw(row)
            }
        })
        .collect()
}

/// The label field on one line after `head`: its end that fits, the cursor when it has the
/// keyboard, else `hint` when it is empty.
fn label_line(
    head: &str,
    dialog: &AddDialog,
    width: usize,
    theme: Theme,
    hint: &str,
) -> Line<'static> {
    let room = width.saturating_sub(fit::width(head) + 1);
    // The tail is counted in characters, one more than fits: a longer label starts with `…`.
    let shown = fit::cut_start(&dialog.label_tail(room + 1), room);
    let mut spans = vec![
        Span::styled(head.to_string(), theme.dim()),
        Span::raw(shown),
    ];
    if dialog.on_label {
        spans.push(Span::styled(CURSOR.to_string(), theme.key()));
    } else if dialog.label.is_empty() {
        spans.push(Span::styled(hint.to_string(), theme.dim()));
    }
    Line::from(fit::cut_spans(spans, width))
}

/// The label key's dialog: the label of the tasks `keys`, alone.
fn render_relabel(dialog: &AddDialog, keymap: &Keymap, theme: Theme, frame: &mut Frame) {
    let area = crate::app::layout::centered(frame.area(), 64, 5);
    frame.render_widget(Clear, area);
    let title = fit::cut(
        &dialog.relabel_title(),
        usize::from(area.width.saturating_sub(4)),
    );
    let block = Block::bordered()
        .title(Span::styled(title, theme.title()))
        .border_style(theme.border(true));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let [field_area, _, help_area] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(inner);
    frame.render_widget(
        Paragraph::new(label_line(
            "Label: ",
            dialog,
            usize::from(inner.width),
            theme,
            "",
        )),
        field_area,
    );
    frame.render_widget(
        Paragraph::new(Span::styled(
            fit::cut(
                &format!(
                    "{} save · {} cancel · empty clears the label",
                    keymap.key_for(Context::TextInput, &Action::Submit),
                    keymap.key_for(Context::TextInput, &Action::Cancel)
                ),
                usize::from(inner.width),
            ),
            theme.dim(),
        )),
        help_area,
    );
}

/// The kind chooser: both kinds, the chosen one marked, and the key that switches.
fn kind_line(dialog: &AddDialog, keymap: &Keymap, theme: Theme) -> Vec<Span<'static>> {
    let [image, video] = dialog.kinds().map(|(name, chosen)| {
        if chosen {
            Span::styled(format!("[{name}]"), theme.key())
        } else {
            Span::styled(format!(" {name} "), theme.dim())
        }
    });
    vec![
        Span::styled("Kind: ", theme.dim()),
        image,
        Span::raw(" "),
        video,
        Span::styled(
            format!(
                "   ({} switches)",
                keymap.key_for(Context::AddDialog, &Action::ToggleKind)
            ),
            theme.dim(),
        ),
    ]
}
