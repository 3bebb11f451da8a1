//! The user's `[[actions]]` in the keymap: each a binding in the context of each scope it
//! names, so the dispatcher, the help, `gendash keys` and the palette see it as they see a
//! built-in one. Unlike `[keys]`, an action takes no key from anyone: a key already bound
//! where it runs (after `[keys]`) is refused, naming the action's line and, for a rebound
//! key, the `[keys]` line too.

use super::binding::{Binding, Context, Name, Priority, label_of, shared_key};
use super::mode::Mode;
use crate::app::action::Action;
use crate::store::config::{KeyCombo, OwnAction, Scope};
use std::borrow::Cow;
use std::sync::Arc;

/// An action's key is bound already where it runs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "actions: `{key}` of action `{action}` is bound to `{other}` in the {}; give the action \
     another key, or `{other}` another in [keys]",
    .context.title().to_lowercase()
)]
pub struct OwnClash {
    pub action: String,
    pub key: KeyCombo,
    /// The binding that has the key, and where.
    pub other: Name,
    pub context: Context,
    /// `actions.NAME`, and the other's `[keys]` name (or `actions.NAME`): how the lines of
    /// both are found.
    line_keys: [String; 2],
}

impl OwnClash {
    pub(super) fn lines(&self) -> Vec<&str> {
        self.line_keys.iter().map(String::as_str).collect()
    }
}

/// The keymap's context of a scope.
pub fn context(scope: Scope) -> Context {
    match scope {
        Scope::Browser => Context::Browser,
        Scope::Watch => Context::Watch,
        Scope::Archive => Context::Archive,
    }
}

fn line_key(name: &Name) -> String {
    match name {
        Name::Builtin(n) => n.as_str().to_string(),
        Name::Own(n) => format!("actions.{n}"),
    }
}

/// `table` with `actions` bound, each in the context of each of its scopes; a key bound
/// already in a mode where the action runs is refused.
pub(super) fn bind(table: &[Binding], actions: &[OwnAction]) -> Result<Vec<Binding>, OwnClash> {
    let mut table: Vec<Binding> = table.to_vec();
    for action in actions {
        let shared = Arc::new(action.clone());
        for &scope in &action.scopes {
            let own = Binding {
                context: context(scope),
                name: Name::Own(Arc::from(action.name.as_str())),
                keys: vec![action.key],
                also: Vec::new(),
                label: Cow::Owned(label_of(&[action.key])),
                action: Action::RunOwn(shared.clone()),
                description: Cow::Owned(action.command_line()),
                hint: None,
                priority: Priority::Low,
            };
            if let Some(clash) = clash(&table, &own) {
                return Err(clash);
            }
            table.push(own);
        }
    }
    Ok(table)
}

/// The first binding in force beside `own` (in any mode where it is) that shares its key.
fn clash(table: &[Binding], own: &Binding) -> Option<OwnClash> {
    for mode in Mode::ALL {
        let contexts = mode.contexts();
        if !contexts.contains(&own.context) {
            continue;
        }
        let other = table
            .iter()
            .find(|b| contexts.contains(&b.context) && shared_key(b, own).is_some())?;
        return Some(OwnClash {
            action: own.name.to_string(),
            key: own.keys[0],
            other: other.name.clone(),
            context: other.context,
            line_keys: [line_key(&own.name), line_key(&other.name)],
        });
    }
    None
}
