//! The dashboard's pure half: its state, one reducer per pane and popup, the keymap, the theme
//! and the layout the reducers need for mouse hits. Nothing here touches the terminal, the
//! disk, the clock or a worker; the runtime (the `dashboard` module) does, and tests drive this
//! with plain values.

pub mod action;
pub mod add;
pub mod archive_view;
pub mod browser;
pub mod confirm;
mod cursor;
pub mod effects;
pub mod gallery;
pub mod help;
pub mod init;
pub mod keymap;
pub mod layout;
pub mod own_actions;
pub mod palette;
pub mod popup;
pub mod preview_slot;
pub mod reconfigured;
pub mod request_log;
pub mod services;
pub mod state;
pub mod status;
#[cfg(test)]
mod test_support;
pub mod theme;
pub mod views;
pub mod watch;
