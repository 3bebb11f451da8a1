//! `[views.NAME]` keys on top of the keymap: each view with a `key` is a binding of its
//! pane's context, named `view`, that applies it, so the help, the palette and `gendash keys`
//! list it as they list the rest. A view's key that a binding in force beside it already has
//! is refused (naming both): unlike `[keys]`, a view takes no key from a built-in action.

use super::binding::{Binding, Priority, label_of, normalised};
use super::configure::KeymapError;
use super::mode::Mode;
use crate::app::action::Action;
use crate::app::views::reducer::pane_context;
use crate::app::views::{ViewError, check, summary};
use crate::store::config::{ActionName, ConfiguredView};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// `table` with a binding for each view's key; every view's filter checked.
pub(super) fn add(
    table: &mut Vec<Binding>,
    views: &BTreeMap<String, ConfiguredView>,
) -> Result<(), KeymapError> {
    for (name, view) in views {
        check(name, &view.spec).map_err(|e| KeymapError::View(Box::new(e)))?;
        if view.keys.is_empty() {
            continue;
        }
        let binding = Binding {
            context: pane_context(view.spec.pane),
            name: super::binding::Name::Builtin(ActionName::View),
            label: Cow::Owned(label_of(&view.keys)),
            keys: view.keys.clone(),
            also: Vec::new(),
            action: Action::ApplyView(name.clone()),
            description: Cow::Owned(format!("view {name}: {}", summary(&view.spec))),
            hint: None,
            priority: Priority::Normal,
        };
        if let Some((key, other)) = clash(table, &binding) {
            return Err(KeymapError::View(Box::new(ViewError::Key {
                view: name.clone(),
                key,
                other: match &other.action {
                    Action::ApplyView(v) => format!("the view {v}'s"),
                    _ => format!("`{}`'s", other.name),
                },
                context: other.context.title().to_lowercase(),
            })));
        }
        table.push(binding);
    }
    Ok(())
}

/// The first key of `new` that a binding in force beside it has, and that binding.
fn clash<'a>(
    table: &'a [Binding],
    new: &Binding,
) -> Option<(crate::store::config::KeyCombo, &'a Binding)> {
    for mode in Mode::ALL {
        let contexts = mode.contexts();
        if !contexts.contains(&new.context) {
            continue;
        }
        for b in table.iter().filter(|b| contexts.contains(&b.context)) {
            for k in new.all_keys() {
                if b.all_keys()
                    .any(|o| normalised(o.code, o.modifiers) == normalised(k.code, k.modifiers))
                {
                    return Some((*k, b));
                }
            }
        }
    }
    None
}
