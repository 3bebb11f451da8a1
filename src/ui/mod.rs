//! The view: a pure function of `&State`. Popups are drawn last.

mod add;
mod browser;
mod help;
pub mod layout;
mod status;
mod theme;
pub mod watch;

use crate::app::state::{Popup, State};
pub use layout::centered;
use ratatui::Frame;

/// Draws the whole dashboard.
pub fn render(state: &State, frame: &mut Frame) {
    let theme = theme::Theme {
        color: !state.settings.no_color,
    };
    // The geometry the reducers use; recomputed here too so a frame is right even before the
    // first resize reached the state.
    let areas = if state.areas.full == frame.area() {
        state.areas
    } else {
        layout::Areas::compute(frame.area().width, frame.area().height)
    };
    browser::render(state, &areas, theme, frame);
    watch::render(state, &areas, theme, frame);
    status::render_status(state, areas.status, theme, frame);
    status::render_hints(state, areas.hints, theme, frame);
    match &state.popup {
        Some(Popup::Help { scroll }) => {
            help::render(&state.keymap, *scroll, areas.help, theme, frame);
        }
        Some(Popup::Add(dialog)) => add::render(dialog, theme, frame),
        None => {}
    }
}
