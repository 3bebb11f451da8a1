//! Colours and emphasis, in one place; with `NO_COLOR` set only bold, dim and reverse remain.

use crate::app::state::TaskState;
use ratatui::style::{Color, Modifier, Style};

#[derive(Debug, Clone, Copy)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    fn fg(self, c: Color) -> Style {
        if self.color {
            Style::new().fg(c)
        } else {
            Style::new()
        }
    }
    pub fn border(self, focused: bool) -> Style {
        if focused {
            self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
        } else {
            self.fg(Color::DarkGray)
        }
    }
    // Every style is asked of the theme, so that a theme can change any of them.
    #[allow(clippy::unused_self)]
    pub fn title(self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }
    pub fn dim(self) -> Style {
        self.fg(Color::DarkGray).add_modifier(if self.color {
            Modifier::empty()
        } else {
            Modifier::DIM
        })
    }
    pub fn selected(self) -> Style {
        if self.color {
            Style::new()
                .bg(Color::Rgb(40, 60, 90))
                .add_modifier(Modifier::BOLD)
        } else {
            Style::new().add_modifier(Modifier::REVERSED)
        }
    }
    pub fn matched(self) -> Style {
        self.fg(Color::Yellow)
            .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }
    pub fn error(self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }
    /// A running task whose percent has not moved for a while.
    pub fn stalled(self) -> Style {
        self.fg(Color::LightRed).add_modifier(Modifier::ITALIC)
    }
    /// A link (OSC 8 where the terminal supports it): underlined.
    pub fn link(self) -> Style {
        self.fg(Color::Blue).add_modifier(Modifier::UNDERLINED)
    }
    pub fn ok(self) -> Style {
        self.fg(Color::Green)
    }
    pub fn key(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }
    pub fn state(self, s: TaskState, erroring: bool) -> Style {
        if erroring {
            return self.fg(Color::Magenta).add_modifier(Modifier::BOLD);
        }
        match s {
            TaskState::Running => self.fg(Color::Yellow),
            TaskState::Completed => self.fg(Color::Green).add_modifier(Modifier::BOLD),
            TaskState::Failed => self.fg(Color::Red).add_modifier(Modifier::BOLD),
        }
    }
}
