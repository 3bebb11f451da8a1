//! Every key binding, once: the dispatcher, the hint line and the help overlay all read this
//! keymap, so a binding and its description are never written twice. `binding`: what a
//! binding is and how its keys are written; `table`: the built-in bindings as data, one line
//! each; `configure`: `[keys]` applied on top (a user's key wins over a built-in one; two of
//! the user's own on one key are refused); `mode`: which screen has the keys, and so which
//! contexts are in force together.

mod binding;
mod configure;
mod mode;
mod own;
mod table;
mod view_keys;

pub use binding::{Binding, Context, HelpLine, Name, Priority};
pub use configure::{GivenUp, KeymapError};
pub use mode::{Mode, TextField};
pub use own::OwnClash;

use super::action::Action;
use crate::store::config::{ActionName, KeyCombo, OwnAction};
use binding::{NO_KEY, matches};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::collections::BTreeMap;
use std::sync::Arc;
use table::bindings;

/// The help overlay's closing remark.
const MOUSE_NOTE: &str = "Mouse: click selects a row and focuses its pane; the wheel scrolls.";

/// The effective key bindings; the dispatcher, the hint line and the help all read it.
#[derive(Debug, Clone)]
pub struct Keymap {
    bindings: Arc<[Binding]>,
    /// The built-in keys that `[keys]` took for other actions, for `gendash keys` to say.
    given_up: Arc<[GivenUp]>,
}

impl Default for Keymap {
    fn default() -> Self {
        Keymap {
            bindings: Arc::clone(bindings()),
            given_up: Arc::from([]),
        }
    }
}

impl Keymap {
    /// The built-in table with `[keys]` applied: each named action answers to the given keys
    /// instead of its own, in every context it has; see `configure`.
    pub fn configured(keys: &BTreeMap<String, Vec<KeyCombo>>) -> Result<Keymap, KeymapError> {
        let (bindings, given_up) = configure::apply(bindings(), keys)?;
        Ok(Keymap {
            bindings: Arc::from(bindings),
            given_up: Arc::from(given_up),
        })
    }

    /// This keymap with a binding for each `[views.NAME]` key (see `view_keys`); every
    /// view's filter is checked too.
    pub fn with_views(
        self,
        views: &BTreeMap<String, crate::store::config::ConfiguredView>,
    ) -> Result<Keymap, KeymapError> {
        let mut table = self.bindings.to_vec();
        view_keys::add(&mut table, views)?;
        Ok(Keymap {
            bindings: Arc::from(table),
            given_up: self.given_up,
        })
    }

    /// How the keys of the action `name` are written, for any message that tells the user
    /// which key to press: "removed x — u undoes" follows `[keys]`. The first binding with
    /// that name gives the label.
    pub fn key(&self, name: ActionName) -> &str {
        self.bindings
            .iter()
            .find(|b| b.name == name)
            .map_or(NO_KEY, |b| &b.label)
    }

    /// How the keys of `action` in `context` are written: the view's way to name a key
    /// (an action means one binding in a context; a test says so).
    pub fn key_for(&self, context: Context, action: &Action) -> &str {
        self.bindings
            .iter()
            .find(|b| b.context == context && b.action == *action)
            .map_or(NO_KEY, |b| &b.label)
    }

    /// The keymap with the user's `[[actions]]` bound (see `own`): each in its scopes'
    /// contexts, on a key nothing else has there.
    pub fn with_actions(self, actions: &[OwnAction]) -> Result<Keymap, OwnClash> {
        if actions.is_empty() {
            return Ok(self);
        }
        Ok(Keymap {
            bindings: Arc::from(own::bind(&self.bindings, actions)?),
            given_up: self.given_up,
        })
    }

    pub fn bindings(&self) -> &[Binding] {
        &self.bindings
    }

    /// The built-in keys `[keys]` gave to other actions.
    pub fn given_up(&self) -> &[GivenUp] {
        &self.given_up
    }

    /// What the status bar says at start when `[keys]` took built-in keys, each key and the
    /// action that lost it as the keymap names them: `[keys]: ctrl-z is undo's now; suspend
    /// has no key left`, or for several `[keys] took 2 built-in keys: ctrl-z from suspend, a
    /// from add · gendash keys lists them`.
    pub fn given_up_notice(&self) -> Option<String> {
        // An action gives a key up once in each context it has: said once.
        let mut given: Vec<&GivenUp> = Vec::new();
        for g in self.given_up.iter() {
            if !given.iter().any(|s| s.key == g.key && s.from == g.from) {
                given.push(g);
            }
        }
        match given.as_slice() {
            [] => None,
            [one] => {
                let left = match &one.left {
                    Some(keys) => format!("keeps {keys}"),
                    None => "has no key left".into(),
                };
                Some(format!(
                    "[keys]: {} is {}'s now; {} {left}",
                    one.key, one.to, one.from
                ))
            }
            many => {
                let taken: Vec<String> = many
                    .iter()
                    .map(|g| format!("{} from {}", g.key, g.from))
                    .collect();
                Some(format!(
                    "[keys] took {}: {} · gendash keys lists them",
                    crate::fmt::count(many.len(), "built-in key"),
                    taken.join(", ")
                ))
            }
        }
    }

    /// What `key` means in `contexts` (most specific first). Printable characters in text
    /// contexts are typed when no binding claims them.
    pub fn resolve(&self, contexts: &[Context], key: &KeyEvent) -> Option<Action> {
        for ctx in contexts {
            if let Some(b) = self
                .bindings
                .iter()
                .find(|b| b.context == *ctx && matches(b, key))
            {
                return Some(b.action.clone());
            }
        }
        let texty = contexts.iter().any(|c| c.types());
        match key.code {
            KeyCode::Char(c)
                if texty
                    && !key
                        .modifiers
                        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
            {
                Some(Action::Type(c))
            }
            _ => None,
        }
    }

    /// The hint line's bindings for these contexts (those that still have a key).
    pub fn hints<'a>(&'a self, contexts: &[Context]) -> impl Iterator<Item = &'a Binding> + 'a {
        let contexts = contexts.to_vec();
        self.bindings.iter().filter(move |b| {
            b.hint.is_some() && !b.keys.is_empty() && contexts.contains(&b.context)
        })
    }

    /// The help overlay's lines: each context's bindings under its title, then the mouse.
    pub fn help_lines(&self) -> Vec<HelpLine<'_>> {
        let mut lines = self.help_body();
        lines.push(HelpLine::Note(MOUSE_NOTE.into()));
        lines
    }

    /// The help overlay's lines as shown `width` columns wide: a note wrapped at spaces
    /// (nothing of it cut), one line per row, so the reducer's scroll and search count the
    /// rows the view draws.
    pub fn help_lines_at(&self, width: usize) -> Vec<HelpLine<'_>> {
        let mut lines = self.help_body();
        lines.extend(
            crate::fit::wrap(MOUSE_NOTE, width)
                .into_iter()
                .map(HelpLine::Note),
        );
        lines
    }

    /// Each context's title, its bindings in the table's order and a blank line, in
    /// `Context::ALL`'s order. Built for every frame the help is open and every key it takes:
    /// a pass over the bindings per context (12 × ~120 comparisons) costs less than ranking and
    /// sorting them (the sort was a third of a help frame in a debug build).
    fn help_body(&self) -> Vec<HelpLine<'_>> {
        let mut lines = Vec::with_capacity(self.bindings.len() + 2 * Context::ALL.len() + 4);
        for ctx in Context::ALL {
            lines.push(HelpLine::Title(ctx));
            lines.extend(
                self.bindings
                    .iter()
                    .filter(|b| b.context == ctx)
                    .map(HelpLine::Binding),
            );
            lines.push(HelpLine::Blank);
        }
        lines
    }

    /// The keymap as Markdown tables, one per context, for the README (a test keeps them
    /// equal).
    pub fn markdown(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        for ctx in Context::ALL {
            let _ = write!(
                out,
                "**{}**\n\n| key | action | `[keys]` name |\n|---|---|---|\n",
                ctx.title()
            );
            for b in self.bindings.iter().filter(|b| b.context == ctx) {
                let _ = writeln!(
                    out,
                    "| `{}` | {} | `{}` |",
                    b.label.replace('|', "\\|"),
                    b.description,
                    b.name
                );
            }
            out.push('\n');
        }
        out.trim_end().to_string()
    }
}

#[cfg(test)]
mod tests;
