//! A detail's facts, as the watch list's and the archive's details show them: a label, then its
//! value wrapped with `fit::wrap` into the rest of the width (a URL breaks after `/` or `-`),
//! continuations under the value; and a detail taller than its area ending in `…`.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// The looks of a fact: its label's column (`width` cells, the space after the longest label
/// included) and style.
#[derive(Clone, Copy)]
pub struct Labels {
    pub width: usize,
    pub style: Style,
}

/// `value` after a `label` (at least one space between), wrapped at spaces into lines of
/// `width`, continuations indented; only a word longer than a whole line (a URL) is broken, so
/// nothing is cut off and where each piece lands is known.
pub fn labelled(
    label: &str,
    value: &str,
    width: usize,
    style: Style,
    labels: Labels,
) -> Vec<Line<'static>> {
    let room = width.saturating_sub(labels.width).max(1);
    crate::fit::wrap(value, room)
        .into_iter()
        .enumerate()
        .map(|(i, chunk)| {
            let head = if i == 0 {
                format!("{label:<w$} ", w = labels.width.saturating_sub(1))
            } else {
                " ".repeat(labels.width)
            };
            Line::from(vec![
                Span::styled(head, labels.style),
                Span::styled(chunk, style),
            ])
        })
        .collect()
}

/// When there are more `lines` than rows, the last row shown ends with `…`, so a detail cut
/// short says so.
pub fn mark_cut(lines: &mut Vec<Line<'static>>, rows: usize, width: usize) {
    if lines.len() <= rows || rows == 0 {
        return;
    }
    lines.truncate(rows);
    let Some(last) = lines.last_mut() else {
        return;
    };
    let Some(text) = last.spans.pop() else {
        return;
    };
    let room = width.saturating_sub(last.spans.iter().map(Span::width).sum());
    let cut = crate::fit::ending_cut(&text.content, room);
    last.spans.push(Span::styled(cut, text.style));
}

/// The fields the service sent beyond the spec's (`ExtraFields`), one line each under its own
/// name in the labels' column (a longer name pushes its value right), the value on one line
/// fitted to `width`: a detail shows them all at a glance, however long a log is.
/// (`fields` as `ExtraFields::shown` gives them, `omitted` how many the bounds left out.)
pub fn extra_lines<'a>(
    fields: impl Iterator<Item = (&'a str, std::borrow::Cow<'a, str>)>,
    omitted: u32,
    width: usize,
    style: Style,
    labels: Labels,
) -> Vec<Line<'static>> {
    let mut lines: Vec<Line<'static>> = fields
        .map(|(name, value)| {
            let head = format!("{name:<w$} ", w = labels.width.saturating_sub(1));
            let spans = vec![
                Span::styled(head, labels.style),
                Span::styled(value.into_owned(), style),
            ];
            Line::from(crate::fit::cut_spans(spans, width))
        })
        .collect();
    if omitted > 0 {
        let more = format!("{omitted} more not kept");
        lines.extend(labelled("…", &more, width, labels.style, labels));
    }
    lines
}
