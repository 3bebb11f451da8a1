//! The views' keys: the save-view key's name prompt, the list of a pane's views (Enter applies
//! one, the remove key deletes a saved one after a question), and a view's own key.

use super::apply::{self, Panes};
use super::{ViewPane, Views};
use crate::app::action::Action;
use crate::app::effects::Effects;
use crate::app::keymap::Keymap;
use crate::app::popup::{Popup, ViewList, ViewName};
use crate::cmd::Cmd;
use crate::store::config::{ActionName, check_view_name};
use crate::store::views_file::ViewsOp;

/// The keymap context a view of `pane` works in (its own key, the list's key column).
pub fn pane_context(pane: ViewPane) -> crate::app::keymap::Context {
    use crate::app::keymap::Context;
    match pane {
        ViewPane::Browser => Context::Browser,
        ViewPane::Watch => Context::Watch,
        ViewPane::Archive => Context::Archive,
    }
}

/// How a pane is named in what the status bar says.
pub fn pane_words(pane: ViewPane) -> &'static str {
    match pane {
        ViewPane::Browser => "the model browser",
        ViewPane::Watch => "the watch list",
        ViewPane::Archive => "the archive",
    }
}

/// The save-view key: the prompt, holding the name of the view in use (saving again
/// replaces it).
pub fn open_prompt(pane: ViewPane, in_use: Option<&str>) -> Popup {
    Popup::ViewName(ViewName {
        pane,
        name: in_use.unwrap_or_default().to_string(),
        error: None,
    })
}

/// The list key: `pane`'s views, or why there are none.
pub fn open_list(pane: ViewPane, views: &Views, keymap: &Keymap) -> Result<Popup, Effects> {
    if views.of(pane).is_empty() {
        return Err(Effects::say(format!(
            "no views for {} yet: {} saves what it shows",
            pane_words(pane),
            keymap.key(ActionName::SaveView)
        )));
    }
    Ok(Popup::Views(ViewList {
        pane,
        selected: 0,
        deleting: None,
    }))
}

/// Applies the view `name` to `pane`; said when there is no such view for it.
pub fn apply_named(
    views: &mut Views,
    pane: ViewPane,
    name: &str,
    panes: Panes<'_>,
    now: u64,
) -> Effects {
    let Some(view) = views.get(name).filter(|v| v.spec.pane == pane) else {
        return Effects::say(format!("no view {name} for {}", pane_words(pane)));
    };
    let shape = view.shape.clone();
    views.applied(pane, Some(name.to_string()));
    apply::apply(pane, &shape, panes, now).with_notice(format!("view {name}"))
}

/// A key in the name prompt: typing, Enter saves what the pane shows under the name, Esc
/// closes.
pub fn prompt(
    popup: &mut Option<Popup>,
    views: &mut Views,
    action: Action,
    shape: &super::Shape,
) -> Effects {
    let Some(Popup::ViewName(p)) = popup else {
        return Effects::none();
    };
    match action.edit_text(&mut p.name) {
        Ok(()) => {
            p.error = None;
            return Effects::none();
        }
        Err(Action::Cancel) => {
            *popup = None;
            return Effects::none();
        }
        Err(Action::Submit) => {}
        Err(_) => return Effects::none(),
    }
    let name = match check_view_name(&p.name) {
        Ok(name) => name,
        Err(why) => {
            p.error = Some(why.to_string());
            return Effects::none();
        }
    };
    if views.get(&name).is_some_and(|v| v.configured) {
        p.error = Some(format!(
            "{name} is a view of the config file; choose another name"
        ));
        return Effects::none();
    }
    let pane = p.pane;
    *popup = None;
    let spec = shape.spec(pane);
    views.saved_here(&name, spec.clone());
    views.applied(pane, Some(name.clone()));
    Effects::cmds(vec![Cmd::Views(ViewsOp::Save(name.clone(), spec))])
        .with_notice(format!("saved the view {name}"))
        .redraw_if(true)
}

/// A key in the list: moving, Enter applies the picked view, the remove key asks to delete a
/// saved one (and the question's yes deletes it), Esc closes.
pub fn list(
    popup: &mut Option<Popup>,
    views: &mut Views,
    action: &Action,
    panes: Panes<'_>,
    now: u64,
) -> Effects {
    let Some(Popup::Views(l)) = popup else {
        return Effects::none();
    };
    let shown: Vec<(String, bool)> = views
        .of(l.pane)
        .into_iter()
        .map(|(n, v)| (n.to_string(), v.configured))
        .collect();
    if let Some(name) = l.deleting.clone() {
        match action {
            Action::Submit => {
                views.deleted_here(&name);
                l.deleting = None;
                let left = views.of(l.pane).len();
                l.selected = l.selected.min(left.saturating_sub(1));
                if left == 0 {
                    *popup = None;
                }
                return Effects::cmds(vec![Cmd::Views(ViewsOp::Delete(name.clone()))])
                    .with_notice(format!("deleted the view {name}"))
                    .redraw_if(true);
            }
            Action::Cancel => l.deleting = None,
            _ => {}
        }
        return Effects::none();
    }
    let last = shown.len().saturating_sub(1);
    match action {
        Action::Up => l.selected = l.selected.saturating_sub(1),
        Action::Down => l.selected = (l.selected + 1).min(last),
        Action::Top | Action::PageUp => l.selected = 0,
        Action::Bottom | Action::PageDown => l.selected = last,
        Action::Cancel => *popup = None,
        Action::Submit => {
            let pane = l.pane;
            let Some((name, _)) = shown.get(l.selected) else {
                return Effects::none();
            };
            *popup = None;
            return apply_named(views, pane, name, panes, now);
        }
        Action::Remove => match shown.get(l.selected) {
            Some((name, true)) => {
                return Effects::say(format!(
                    "{name} is a view of the config file: remove it there"
                ));
            }
            Some((name, false)) => l.deleting = Some(name.clone()),
            None => {}
        },
        _ => {}
    }
    Effects::none()
}
