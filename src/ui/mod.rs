//! The view: a pure function of `&State`. Popups are drawn last.

mod add;
mod archive_view;
mod border;
mod browser;
mod confirm;
mod facts;
mod gallery;
mod help;
mod palette;
pub mod preview_slot;
mod request_log;
mod status;
mod views;
pub mod watch;

use crate::app::state::{Action, Context};
use crate::app::state::{Popup, State, Then};
use ratatui::Frame;

/// Draws the whole dashboard; returns the links drawn, for the event loop to make clickable.
pub fn render(state: &State, frame: &mut Frame) -> Vec<watch::Link> {
    let theme = state.theme;
    // The geometry the reducers use; recomputed here too so a frame is right even before the
    // first resize reached the state.
    let areas = if state.areas.full == frame.area() {
        state.areas
    } else {
        crate::app::layout::Areas::compute_zoomed(
            frame.area().width,
            frame.area().height,
            state.watch.detail,
            state.browser.filter_detail.is_some(),
            state.zoomed,
        )
    };
    let links = if state.archive.open {
        archive_view::render(state, &areas, theme, frame);
        Vec::new()
    } else {
        browser::render(state, &areas, theme, frame);
        watch::render(state, &areas, theme, frame)
    };
    status::render_status(state, areas.status, theme, frame);
    status::render_hints(state, areas.hints, theme, frame);
    match &state.popup {
        Some(Popup::Help { scroll }) => {
            help::render(state, *scroll, areas.help, theme, frame);
        }
        Some(Popup::Palette(p)) => palette::render(state, p, areas.help, theme, frame),
        Some(Popup::Add(dialog)) => add::render(dialog, &state.keymap, theme, frame),
        Some(Popup::Confirm(c)) => confirm::render(
            &match &c.then {
                Then::Replace(_) => confirm::Question {
                    title: " Replace the file? ",
                    text: &c.question,
                    yes: "replace",
                    no: "keep it",
                },
                Then::Run(_) => confirm::Question {
                    title: " Run the action? ",
                    text: &c.question,
                    yes: "run",
                    no: "don't",
                },
            },
            &state.keymap,
            theme,
            frame,
        ),
        Some(Popup::RemoveCompleted { count }) => {
            let undo = state.keymap.key_for(Context::Watch, &Action::Undo);
            let question = format!(
                "remove {} from the watch list? ({undo} undoes)",
                crate::fmt::count(*count, "completed task")
            );
            confirm::render(
                &confirm::Question {
                    title: " Remove the completed tasks? ",
                    text: &question,
                    yes: "remove",
                    no: "keep",
                },
                &state.keymap,
                theme,
                frame,
            );
        }
        Some(Popup::Requests) => request_log::render(state, &areas, theme, frame),
        Some(Popup::ViewName(p)) => views::render_prompt(state, p, theme, frame),
        Some(Popup::Views(l)) => views::render_list(state, l, theme, frame),
        None => return links,
    }
    // A popup covers whatever links were below it.
    Vec::new()
}

/// `lines` drawn from `area`'s top, one a row, each cut at its right edge: the cells a
/// `Paragraph` of them draws (it does no more on a fresh frame's cells), without its
/// per-cell pass over the whole area and its line composer.
fn set_lines(frame: &mut Frame, area: ratatui::layout::Rect, lines: &[ratatui::text::Line]) {
    let buf = frame.buffer_mut();
    let area = area.intersection(buf.area);
    for (y, line) in (area.top()..area.bottom()).zip(lines) {
        set_line(buf, area.x, y, line, area.width);
    }
}

/// The cells `Buffer::set_line` sets, with a span of characters that are each a grapheme one
/// column wide (most of a frame: names, numbers, keys, ` · `, `…`, box drawing) written a
/// character a cell: the grapheme segmentation and width lookups `set_line` makes for every
/// character were a seventh of a keystroke's frame. Other spans go through
/// `Buffer::set_stringn`, as in `set_line`.
fn set_line(
    buf: &mut ratatui::buffer::Buffer,
    x: u16,
    y: u16,
    line: &ratatui::text::Line,
    max_width: u16,
) {
    let mut remaining = max_width;
    let mut x = x;
    for span in line {
        if remaining == 0 {
            break;
        }
        let style = line.style.patch(span.style);
        let text = span.content.as_ref();
        let end = if text.chars().all(one_column_alone) {
            let room = buf.area.right().saturating_sub(x).min(remaining);
            let mut n = 0;
            if room > 0 {
                let start = buf.index_of(x, y);
                let cells = &mut buf.content[start..start + usize::from(room)];
                for (cell, c) in cells.iter_mut().zip(text.chars()) {
                    cell.set_char(c).set_style(style);
                    n += 1;
                }
            }
            x + n
        } else {
            buf.set_stringn(x, y, text, usize::from(remaining), style).0
        };
        remaining = remaining.saturating_sub(end.saturating_sub(x));
        x = end;
    }
}

/// Whether `c`, among characters of its kind, is a grapheme of its own one column wide:
/// printable ASCII, or a character one column wide from Latin-1 and the Latin extensions,
/// punctuation, arrows, mathematical and technical signs, box drawing, blocks, shapes and
/// symbols. No character of those blocks joins a neighbour into one grapheme (they hold no
/// combining mark, joiner, variation selector, prepended or spacing mark, control, regional
/// indicator or Hangul jamo), so a run of them is one grapheme a character, as the segmentation
/// finds (a test checks every one of them between two letters against `set_line`).
fn one_column_alone(c: char) -> bool {
    match c {
        ' '..='~' => true,
        '\u{a0}'..='\u{ac}'
        | '\u{ae}'..='\u{24f}'
        | '\u{2010}'..='\u{2027}'
        | '\u{2030}'..='\u{205e}'
        | '\u{2190}'..='\u{23ff}'
        | '\u{2500}'..='\u{27bf}'
        | '\u{2b00}'..='\u{2bff}' => unicode_width::UnicodeWidthChar::width(c) == Some(1),
        _ => false,
    }
}

#[cfg(test)]
mod tests;
