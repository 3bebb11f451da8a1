//! What the dashboard would find and use, for `gendash doctor`: the terminal asked the
//! dashboard's own questions in the same bounded exchange (read directly: doctor reads no keys),
//! and the programs the workers would run. Plain values, so the command line needs neither
//! `picture` nor `workers`.

use crate::picture::answers::{SyncMode, Wants};
use crate::store::config::ImagePreview;
use std::time::Duration;

/// What the terminal answered.
#[derive(Debug, Clone)]
pub struct TerminalFound {
    /// Both standard input and output are a terminal (otherwise nothing was asked).
    pub is_terminal: bool,
    /// The graphics detection's line: the protocol and why.
    pub graphics_note: String,
    /// Previews would be drawn.
    pub graphics: bool,
    /// The background as `#rrggbb` and whether it is light, if told.
    pub background: Option<(String, bool)>,
    /// Whether synchronized output is supported, if told.
    pub sync: Option<bool>,
}

/// Asks the terminal what the dashboard asks, with synchronized output and the background
/// wanted whatever the settings say (doctor reports both).
pub fn ask_terminal(setting: ImagePreview, no_color: bool) -> TerminalFound {
    let wants = Wants {
        sync: true,
        background: true,
    };
    let mut ask = |q: &[u8], complete: fn(&[u8]) -> bool, bound: Duration| {
        super::terminal::ask_directly(q, complete, bound)
    };
    let detection = super::detect_graphics(setting, no_color, wants, &mut ask);
    TerminalFound {
        is_terminal: super::terminal::is_terminal(),
        graphics_note: detection.note,
        graphics: detection.graphics.is_some(),
        background: detection.background.map(|bg| (bg.hex(), bg.is_light())),
        sync: detection.sync.map(|s| s == SyncMode::Supported),
    }
}

/// The clipboard program the clipboard worker would run, with its arguments.
pub fn clipboard_program(env: &dyn Fn(&str) -> Option<String>) -> Option<Vec<String>> {
    crate::workers::clipboard::native_program(env, cfg!(target_os = "macos"), &on_path)
}

/// The program that would open a saved file; `None` where nothing could show it.
pub fn file_opener(env: &dyn Fn(&str) -> Option<String>) -> Option<Vec<String>> {
    crate::workers::opener::opener_command(
        crate::workers::opener::Opening::File,
        env,
        cfg!(target_os = "macos"),
    )
}

/// Whether `program` is on `PATH`, as the workers look for it.
pub fn on_path(program: &str) -> bool {
    crate::workers::clipboard::on_path(program, std::env::var_os("PATH").as_deref())
}
