//! The add dialog: task IDs (several at once) and the image/video toggle.
//!
//! Pasted lists can be long: the input shows its last rows (where the cursor is), and the error
//! has rows of its own between the input and the kind, so no amount of text pushes it away.

use crate::app::state::Theme;
use crate::app::state::{Action, Context};
use crate::app::state::{AddDialog, Keymap};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

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
        .title(Span::styled(" Add tasks to the watch list ", theme.title()))
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
        .map(|e| clip_rows(wrap_words(e, width), ERROR_ROWS))
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

    let [image, video] = dialog.kinds().map(|(name, chosen)| {
        if chosen {
            Span::styled(format!("[{name}]"), theme.key())
        } else {
            Span::styled(format!(" {name} "), theme.dim())
        }
    });
    frame.render_widget(
        Paragraph::new(Line::from(vec![
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
        ])),
        kind_area,
    );
    frame.render_widget(
        Paragraph::new(Span::styled(
            format!(
                "{} add · {} cancel · several IDs: space, comma or newline",
                keymap.key_for(Context::TextInput, &Action::Submit),
                keymap.key_for(Context::TextInput, &Action::Cancel)
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
    let mut rows = wrap_chars(&format!("{shown}{cursor}"), width);
    rows.drain(..rows.len().saturating_sub(height));
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
    let room = width.saturating_sub(head.width() + 1);
    // The tail is counted in characters: wide ones take two cells, so trim it to fit.
    let mut shown = dialog.label_tail(room);
    while shown.width() > room {
        shown.remove(0);
    }
    let mut spans = vec![
        Span::styled(head.to_string(), theme.dim()),
        Span::raw(shown),
    ];
    if dialog.on_label {
        spans.push(Span::styled(CURSOR.to_string(), theme.key()));
    } else if dialog.label.is_empty() {
        spans.push(Span::styled(hint.to_string(), theme.dim()));
    }
    Line::from(spans)
}

/// The label key's dialog: the label of the tasks `keys`, alone.
fn render_relabel(dialog: &AddDialog, keymap: &Keymap, theme: Theme, frame: &mut Frame) {
    let area = crate::app::layout::centered(frame.area(), 64, 5);
    frame.render_widget(Clear, area);
    let title = ellipsis_end(
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
            format!(
                "{} save · {} cancel · empty clears the label",
                keymap.key_for(Context::TextInput, &Action::Submit),
                keymap.key_for(Context::TextInput, &Action::Cancel)
            ),
            theme.dim(),
        )),
        help_area,
    );
}

/// `text` cut to `width` columns, ending in `…` when cut.
fn ellipsis_end(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    let mut out = String::new();
    for c in text.chars() {
        if out.width() + c.width().unwrap_or(0) + 1 > width {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out
}

/// `text` cut into rows at most `width` columns wide, anywhere: task IDs have no spaces to
/// break at, and an input shows every character it holds.
fn wrap_chars(text: &str, width: usize) -> Vec<String> {
    let mut rows = Vec::new();
    let (mut row, mut used) = (String::new(), 0);
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > width && used > 0 {
            rows.push(std::mem::take(&mut row));
            used = 0;
        }
        row.push(c);
        used += w;
    }
    rows.push(row);
    rows
}

/// `text` cut into rows at most `width` columns wide, between words where it can.
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut rows = Vec::new();
    let (mut row, mut used) = (String::new(), 0);
    for word in text.split(' ') {
        let w: usize = word.chars().map(|c| c.width().unwrap_or(0)).sum();
        if used > 0 && used + 1 + w > width {
            rows.push(std::mem::take(&mut row));
            used = 0;
        }
        if used > 0 {
            row.push(' ');
            used += 1;
        }
        if w > width {
            // A word wider than a row (a long task ID): cut it; its last piece goes on.
            let mut pieces = wrap_chars(&format!("{row}{word}"), width);
            row = pieces.pop().unwrap_or_default();
            used = row.chars().map(|c| c.width().unwrap_or(0)).sum();
            rows.extend(pieces);
        } else {
            row.push_str(word);
            used += w;
        }
    }
    rows.push(row);
    rows
}

/// At most `max` rows, the last ending in "…" when some were cut.
fn clip_rows(mut rows: Vec<String>, max: usize) -> Vec<String> {
    if rows.len() > max {
        rows.truncate(max);
        if let Some(last) = rows.last_mut() {
            last.pop();
            last.push('…');
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::{clip_rows, wrap_chars, wrap_words};

    #[test]
    fn rows_never_exceed_the_width() {
        assert_eq!(wrap_chars("abcdefg", 3), ["abc", "def", "g"]);
        assert_eq!(wrap_chars("", 3), [""]);
        assert_eq!(wrap_chars("日本語", 4), ["日本", "語"]);
        assert_eq!(
            wrap_words("`a` is not valid", 8),
            ["`a` is", "not", "valid"]
        );
        assert_eq!(
            wrap_words("`abcdefghij` is bad", 6),
            ["`abcde", "fghij`", "is bad"]
        );
        assert_eq!(
            clip_rows(vec!["ab".into(), "cd".into(), "ef".into()], 2),
            ["ab", "c…"]
        );
        for width in 1..12 {
            for text in ["a bb ccc dddd eeeee", "x", "日本語 テキスト"] {
                for row in wrap_words(text, width)
                    .iter()
                    .chain(&wrap_chars(text, width))
                {
                    let w: usize = row
                        .chars()
                        .map(|c| unicode_width::UnicodeWidthChar::width(c).unwrap_or(0))
                        .sum();
                    // A character wider than the row still gets one row to itself.
                    assert!(w <= width.max(2), "{text:?} at {width}: {row:?}");
                }
            }
        }
    }
}
