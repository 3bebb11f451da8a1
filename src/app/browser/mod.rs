//! The LoRA browser pane: its state (`model`) and its reducer here: the pane's keys, its
//! fields (the filter and the category), and the catalogue's answers.

mod model;

pub use model::*;

use crate::api::{ApiError, Catalogue};
use crate::app::action::Action;
use crate::app::effects::Effects;
use crate::app::keymap::Keymap;
use crate::cmd::Cmd;

/// The browser pane's keys (its fields take theirs in `update_field`).
pub fn update(browser: &mut Browser, action: &Action, keymap: &Keymap) -> Effects {
    match action {
        Action::FocusFilter => browser.start_editing(Field::Filter),
        Action::EditCategory => browser.start_editing(Field::Category),
        Action::CycleType => return Effects::cmds(vec![browser.cycle_type()]),
        Action::Refresh => {
            return Effects::cmds(vec![browser.reload()]).with_notice("reloading the catalogue");
        }
        Action::ToggleFavourite => {
            let Some((name, on)) = browser.toggle_favourite() else {
                return Effects::say("no model selected");
            };
            return Effects::cmds(vec![Cmd::RememberFavourites(browser.favourites.clone())])
                .with_notice(if on {
                    format!("★ {name}")
                } else {
                    format!("{name} is no longer a favourite")
                });
        }
        Action::OnlyFavourites => {
            let fx = Effects::cmd(browser.toggle_only_favourites());
            if browser.only_favourites && browser.favourites.is_empty() {
                let mark = keymap.key("favourite");
                return fx.with_notice(format!(
                    "no favourites yet: {mark} marks the selected model"
                ));
            }
            return fx;
        }
        Action::Cancel if !browser.query.is_empty() => {
            browser.query.clear();
            return Effects::cmd(browser.refilter());
        }
        Action::Open => {
            let source = browser
                .selected_entry()
                .and_then(|e| e.source())
                .map(str::to_string);
            return Effects::open(source, "this model has no source URL");
        }
        Action::CopyUrl => {
            let source = browser
                .selected_entry()
                .and_then(|e| e.source())
                .map(str::to_string);
            return Effects::copy(source, "source URL");
        }
        Action::CopyName => {
            let name = browser.selected_entry().map(|e| e.model.clone());
            return Effects::copy(name, "model name");
        }
        Action::Paste(text) => {
            browser.start_editing(Field::Filter);
            return Effects::cmd(browser.type_text(text));
        }
        _ => {}
    }
    Effects::none()
}

/// Typing in the filter or the category field.
pub fn update_field(browser: &mut Browser, action: Action) -> Effects {
    let rank = match action {
        Action::Type(c) => browser.type_text(c.encode_utf8(&mut [0; 4])),
        Action::Paste(text) => browser.type_text(&text),
        Action::Backspace => browser.backspace(),
        Action::ClearInput => browser.clear_input(),
        Action::PickPrevious => {
            browser.pick(false);
            None
        }
        Action::PickNext => {
            browser.pick(true);
            None
        }
        Action::Submit => return Effects::cmds(browser.submit()),
        Action::Cancel => browser.cancel(),
        _ => None,
    };
    Effects::cmd(rank)
}

/// A catalogue load came back: shown, or its failure (an unreachable service leaves the list
/// shown, marked offline); `None` when it was stale.
pub fn catalogue(
    browser: &mut Browser,
    generation: u64,
    result: Result<Catalogue, ApiError>,
) -> Option<Effects> {
    let cmds = match result {
        Err(e) if e.is_unreachable() => browser.unreachable(generation, e.to_string()),
        result => browser.loaded(generation, result.map_err(|e| e.to_string())),
    }?;
    Some(Effects::cmds(cmds).redraw_if(true))
}
