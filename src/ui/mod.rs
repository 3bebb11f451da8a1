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
        buf.set_line(area.x, y, line, area.width);
    }
}
