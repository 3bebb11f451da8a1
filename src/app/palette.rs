//! The palette (`:`, Ctrl-P): every action that can run in the mode beneath it, by name, key
//! and description, narrowed by the browser's fuzzy matcher as it is typed; Enter runs the
//! picked one as its key would. Its list is the keymap's bindings, the user's `[[actions]]`
//! among them (bound in their scopes' contexts, described by their command lines).

use super::action::Action;
use super::keymap::{Keymap, Mode};
use crate::filter::FuzzyFilter;

/// The palette's own state: what is typed and which of the matching actions is picked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Palette {
    pub query: String,
    /// The pick, counted in the matching actions.
    pub selected: usize,
}

/// One action the palette offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'a> {
    /// Its name in `[keys]`.
    pub name: &'a str,
    /// Its keys as bound now (`[keys]` applied).
    pub keys: &'a str,
    pub description: &'a str,
    /// What running it does: what its key sends.
    pub action: Action,
}

/// Every action that can run in `beneath`: the keymap's bindings of its contexts, the most
/// specific first; an action bound in two of them is offered once, as its key would resolve.
pub fn entries(keymap: &Keymap, beneath: Mode) -> Vec<Entry<'_>> {
    let mut entries: Vec<Entry<'_>> = Vec::new();
    for context in beneath.contexts() {
        for b in keymap.bindings().iter().filter(|b| b.context == *context) {
            let offered = entries.iter().any(|e| e.action == b.action);
            if b.action == Action::OpenPalette || offered {
                continue;
            }
            entries.push(Entry {
                name: b.name.as_str(),
                keys: &b.label,
                description: &b.description,
                action: b.action.clone(),
            });
        }
    }
    entries
}

/// The entries matching `query` (all of them, in order, for an empty query): those whose
/// name matches first, best first, then those only their description matches, so `type`
/// finds the action `type` before the filter that mentions `type:`.
pub fn matching<'a>(entries: &[Entry<'a>], query: &str) -> Vec<Entry<'a>> {
    let names: Vec<String> = entries.iter().map(|e| e.name.replace('_', " ")).collect();
    let mut matcher = FuzzyFilter::new();
    let by_name = matcher.rank(query, names.iter().map(String::as_str));
    let by_description = matcher.rank(query, entries.iter().map(|e| e.description));
    let mut order: Vec<usize> = Vec::with_capacity(entries.len());
    for r in by_name.into_iter().chain(by_description) {
        let i = r.index as usize;
        if !order.contains(&i) {
            order.push(i);
        }
    }
    order.into_iter().map(|i| entries[i].clone()).collect()
}

/// What a key in the palette leads to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The palette stays open.
    Stay,
    /// The palette closes and nothing runs.
    Close,
    /// The palette closes and this runs in the mode beneath it.
    Run(Action),
}

/// A key in the palette: typing narrows the list (the pick back at its top), the pick moves
/// (by one, or by a `page` of rows), Enter runs it, Esc closes.
pub fn update(palette: &mut Palette, action: Action, shown: &[Entry<'_>], page: usize) -> Outcome {
    let last = shown.len().saturating_sub(1);
    match action.edit_text(&mut palette.query) {
        Ok(()) => palette.selected = 0,
        Err(Action::PickNext) => palette.selected = (palette.selected + 1).min(last),
        Err(Action::PickPrevious) => palette.selected = palette.selected.saturating_sub(1),
        Err(Action::PageDown) => palette.selected = (palette.selected + page).min(last),
        Err(Action::PageUp) => palette.selected = palette.selected.saturating_sub(page),
        Err(Action::Submit) => {
            return shown
                .get(palette.selected)
                .map_or(Outcome::Stay, |e| Outcome::Run(e.action.clone()));
        }
        Err(Action::Cancel) => return Outcome::Close,
        Err(_) => {}
    }
    Outcome::Stay
}

#[cfg(test)]
#[path = "palette_tests.rs"]
mod tests;
