//! Fitting text to a width, the one way every pane, the status bar, the help, the CLI's tables
//! and `wait`'s bars do it: by display width (a wide character takes two columns), a cut always
//! ending in `…`, rows broken at spaces, and a word longer than a row (a URL, a task ID) broken
//! after its `/` or `-` where it can be. Depends on nothing of the crate, so every layer can
//! use it.

use ratatui::text::Span;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The mark a cut leaves: one column.
pub const MORE: char = '…';

/// Columns `text` takes on a terminal.
pub fn width(text: &str) -> usize {
    text.width()
}

fn char_width(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// `text` in at most `width` columns: whole when it fits, else its start and `…`. Nothing fits
/// in no column at all, so width 0 gives an empty string.
pub fn cut(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = char_width(c);
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push(MORE);
    out
}

/// `text` in at most `width` columns, keeping its end: `…` and the end that fits (a field being
/// typed, whose end is where the cursor is).
pub fn cut_start(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut kept = Vec::new();
    let mut used = 0;
    for c in text.chars().rev() {
        let w = char_width(c);
        if used + w + 1 > width {
            break;
        }
        used += w;
        kept.push(c);
    }
    std::iter::once(MORE)
        .chain(kept.into_iter().rev())
        .collect()
}

/// `text` cut to `width` columns as [`cut`] does, then padded with spaces to exactly `width`: a
/// column of a plain-text table.
pub fn pad(text: &str, width: usize) -> String {
    let mut out = cut(text, width);
    let used = out.width();
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(used)));
    out
}

/// `text` in rows of at most `width` columns, broken at spaces (the space where a row breaks is
/// dropped). A word wider than a row is broken after its last `/`, `-`, `_`, `.`, `?`, `&` or
/// `=` that fits (a URL breaks between its parts), else where the row is full. Nothing is cut
/// off: every character is on some row. A row holds at least one character, so a character
/// wider than `width` still gets a row of its own. Empty text is one empty row.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut row = String::new();
    for word in text.split(' ') {
        // A row of zero-width characters is still a row begun.
        let begun = !row.is_empty();
        if row.width() + usize::from(begun) + word.width() <= width {
            if begun {
                row.push(' ');
            }
            row.push_str(word);
            continue;
        }
        if begun {
            rows.push(std::mem::take(&mut row));
        }
        let mut rest = word;
        while rest.width() > width {
            let (head, tail) = split_long_word(rest, width);
            if tail.is_empty() {
                // One character wider than the row: it is the row.
                break;
            }
            rows.push(head.to_string());
            rest = tail;
        }
        row.push_str(rest);
    }
    rows.push(row);
    rows
}

/// The most of a word wider than `width` that fits on a row: up to its last URL mark that
/// fits, else as much as fits, at least one character.
fn split_long_word(word: &str, width: usize) -> (&str, &str) {
    let mut used = 0;
    let mut fits = 0;
    let mut after_mark = None;
    for (at, c) in word.char_indices() {
        used += char_width(c);
        if used > width {
            break;
        }
        fits = at + c.len_utf8();
        if matches!(c, '/' | '-' | '_' | '.' | '?' | '&' | '=') {
            after_mark = Some(fits);
        }
    }
    let cut = after_mark
        .unwrap_or(fits)
        .max(word.chars().next().map_or(0, char::len_utf8));
    word.split_at(cut)
}

/// `text` in rows of at most `width` columns, broken anywhere: a field being typed shows every
/// character it holds where it is (task IDs have no spaces to break at). A character wider than
/// `width` still gets a row of its own.
pub fn wrap_chars(text: &str, width: usize) -> Vec<String> {
    let mut rows = Vec::new();
    let (mut row, mut used) = (String::new(), 0);
    for c in text.chars() {
        let w = char_width(c);
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

/// `text` wrapped to `width` as [`wrap`] does, in at most `max` rows: when more were needed the
/// last one kept ends in `…`.
pub fn wrap_rows(text: &str, width: usize, max: usize) -> Vec<String> {
    let mut rows = wrap(text, width);
    if rows.len() > max {
        rows.truncate(max);
        if let Some(last) = rows.last_mut() {
            *last = ending_cut(last, width);
        }
    }
    rows
}

/// `row` marked as cut within `width` columns: `row …` where there is room, else its start
/// and `…`.
pub fn ending_cut(row: &str, width: usize) -> String {
    let trimmed = row.trim_end();
    if trimmed.width() + 2 <= width {
        format!("{trimmed} {MORE}")
    } else {
        cut(&format!("{trimmed}{MORE}{MORE}"), width)
    }
}

/// `spans` (one line of styled text) in at most `width` columns: whole when they fit, else the
/// spans that fit and the start of the next, the last one kept ending in `…` in its own style.
pub fn cut_spans(spans: Vec<Span<'_>>, width: usize) -> Vec<Span<'_>> {
    let total: usize = spans.iter().map(Span::width).sum();
    if total <= width {
        return spans;
    }
    let mut out = Vec::new();
    let mut used = 0;
    for span in spans {
        let w = span.width();
        if used + w < width {
            used += w;
            out.push(span);
            continue;
        }
        // This span (or the mark after it) is where the line ends.
        let room = width - used;
        let content = cut(&format!("{}{MORE}{MORE}", span.content), room);
        if room > 0 {
            out.push(Span::styled(content, span.style));
        }
        break;
    }
    out
}

/// `spans` (one line of styled text) marked as cut within `width` columns, as [`ending_cut`]
/// marks a row: ` …` after them where there is room, else their start and `…`.
pub fn ending_cut_spans(mut spans: Vec<Span<'_>>, width: usize) -> Vec<Span<'_>> {
    let used: usize = spans.iter().map(Span::width).sum();
    if used + 2 <= width {
        spans.push(Span::raw(format!(" {MORE}")));
        spans
    } else {
        spans.push(Span::raw(format!("{MORE}{MORE}")));
        cut_spans(spans, width)
    }
}

/// `spans` (one line of styled text) wrapped as [`wrap`] wraps its text, each piece in the style
/// of the span it came from.
pub fn wrap_spans(spans: &[Span<'static>], width: usize) -> Vec<Vec<Span<'static>>> {
    let text: String = spans.iter().map(|s| s.content.as_ref()).collect();
    let mut source = spans
        .iter()
        .flat_map(|s| s.content.chars().map(move |c| (c, s.style)));
    wrap(&text, width)
        .into_iter()
        .map(|row| {
            let mut out: Vec<Span<'static>> = Vec::new();
            for c in row.chars() {
                // The spaces a row broke at are in the source, not in a row: skip them.
                let Some(style) = source.find(|&(s, _)| s == c).map(|(_, style)| style) else {
                    break;
                };
                match out.last_mut() {
                    Some(last) if last.style == style => last.content.to_mut().push(c),
                    _ => out.push(Span::styled(c.to_string(), style)),
                }
            }
            out
        })
        .collect()
}

#[cfg(test)]
mod tests;
