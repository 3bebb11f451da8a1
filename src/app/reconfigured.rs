//! A config read again and validated as at start, as the runtime hands it to the App
//! (`State::reconfigure`).

use super::keymap::Keymap;
use super::theme::Theme;
use crate::store::config::Settings;
use std::sync::Arc;

/// What the status bar's error starts with when the file was refused; a reload that works
/// clears that error (and no other).
pub const REFUSED: &str = "config not reloaded";

/// A config read again and validated as at start.
#[derive(Debug)]
pub struct Reconfigured {
    pub settings: Arc<Settings>,
    /// `[keys]` made into the keymap, `theme` and `[styles]` into the colours (`NO_COLOR` as
    /// at start).
    pub keymap: Keymap,
    pub theme: Theme,
    /// The keys whose values changed since the config was last read, in the declaration's
    /// order (`Settings::changed`).
    pub changed: Vec<&'static str>,
    /// The keys changed since the start that the running dashboard cannot take (its client,
    /// its pictures): they take effect at the next start.
    pub restart: Vec<&'static str>,
    /// The configured services worked out again (the profiles); `None` keeps them.
    pub services: Option<crate::app::services::Services>,
}
