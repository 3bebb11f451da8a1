//! `[keys]` on top of the built-in table. A user's key wins over a built-in one: the built-in
//! action in force beside it gives that key up (and `gendash keys` says so). Two of the user's
//! own actions on one key, in force together, are refused, naming both; so is a plain
//! character for an action of a text field, where it could no longer be typed.

use super::binding::{Binding, Context, Name, same_key, shared_key};
use super::mode::Mode;
use crate::store::config::{ActionName, KeyCombo, UnknownAction};
use crossterm::event::{KeyCode, KeyModifiers};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// Why `[keys]` cannot be applied. Each names the `[keys]` actions it is about
/// ([`KeymapError::actions`]), so the caller can name their lines.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeymapError {
    #[error(transparent)]
    Unknown(#[from] UnknownAction),
    #[error(
        "keys.{name}: `{key}` would no longer be typed in the {}; bind a key with ctrl- or \
         alt-, or a named key such as enter or f2",
        .context.title().to_lowercase()
    )]
    Typed {
        name: ActionName,
        key: KeyCombo,
        context: Context,
    },
    #[error(
        "keys: `{key}` is bound to both `{first}` ({}) and `{second}` ({}); give one of them \
         another key in [keys]",
        .first_context.title().to_lowercase(),
        .second_context.title().to_lowercase()
    )]
    Conflict {
        key: KeyCombo,
        first: Name,
        first_context: Context,
        second: Name,
        second_context: Context,
    },
    /// `[keys] view`: the name of the views' own keys, which `[views.NAME]` gives.
    #[error("keys.view: a view's key is the `key` of its [views.NAME], not [keys]")]
    ViewInKeys,
    /// A `[views.NAME]` cannot be used: its filter, or its key (boxed: the error stays small).
    #[error(transparent)]
    View(Box<crate::app::views::ViewError>),
    #[error(transparent)]
    Own(Box<super::own::OwnClash>),
}

impl KeymapError {
    /// The `[keys]` names the error is about.
    pub fn actions(&self) -> Vec<&str> {
        match self {
            KeymapError::Unknown(UnknownAction(name)) => vec![name.as_str()],
            KeymapError::Typed { name, .. } => vec![name.as_str()],
            KeymapError::Conflict { first, second, .. } => vec![first.as_str(), second.as_str()],
            KeymapError::ViewInKeys => vec![ActionName::View.as_str()],
            KeymapError::View(_) => Vec::new(),
            KeymapError::Own(clash) => clash.lines(),
        }
    }

    /// The `[views.NAME]` entry the error is about, by `NAME.field`.
    pub fn view_field(&self) -> Option<String> {
        match self {
            KeymapError::View(e) => Some(e.field()),
            _ => None,
        }
    }
}

/// A built-in key that `[keys]` gave to another action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GivenUp {
    pub key: KeyCombo,
    /// The built-in action that had it, and where.
    pub from: Name,
    pub context: Context,
    /// The user's action that has it now.
    pub to: Name,
    /// The keys `from` keeps, as the help writes them; `None` when it has none left.
    pub left: Option<String>,
}

impl fmt::Display for GivenUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is `{}`'s ([keys]); `{}` ({}) gave it up",
            self.key,
            self.to,
            self.from,
            self.context.title().to_lowercase()
        )?;
        match &self.left {
            Some(left) => write!(f, " and keeps {left}"),
            None => f.write_str(" and has no key left"),
        }
    }
}

/// `builtin` with `keys` applied, and the built-in keys given up to them.
pub(super) fn apply(
    builtin: &[Binding],
    keys: &BTreeMap<String, Vec<KeyCombo>>,
) -> Result<(Vec<Binding>, Vec<GivenUp>), KeymapError> {
    let mut table = builtin.to_vec();
    let mut mine = BTreeSet::new();
    for (name, combos) in keys {
        let name: ActionName = name.parse()?;
        if name == ActionName::View {
            return Err(KeymapError::ViewInKeys);
        }
        mine.insert(name);
        for b in table.iter_mut().filter(|b| b.name == name) {
            b.keys.clone_from(combos);
            b.also.clear();
            b.relabel();
            if b.context.types()
                && let Some(k) = combos.iter().find(|k| typed(**k))
            {
                return Err(KeymapError::Typed {
                    name,
                    key: *k,
                    context: b.context,
                });
            }
        }
    }
    // The key that opens a view closes it too (`?` the help, `H` the archive): rebound,
    // it takes the place of the old key among the closer's, unless the closer is
    // rebound itself.
    for (opener, closer) in [
        (ActionName::Help, ActionName::CloseHelp),
        (ActionName::Archive, ActionName::CloseArchive),
    ] {
        let (Some(new), false) = (keys.get(opener.as_str()), mine.contains(&closer)) else {
            continue;
        };
        let old: Vec<KeyCombo> = builtin
            .iter()
            .filter(|b| b.name == opener)
            .flat_map(|b| b.all_keys().copied())
            .collect();
        for b in table.iter_mut().filter(|b| b.name == closer) {
            let mut keys: Vec<KeyCombo> = Vec::new();
            for k in &b.keys {
                let replaced = if old.contains(k) { &new[..] } else { &[*k][..] };
                for k in replaced {
                    if !keys.contains(k) {
                        keys.push(*k);
                    }
                }
            }
            b.also.retain(|k| !old.contains(k) && !keys.contains(k));
            b.keys = keys;
            b.relabel();
        }
        mine.insert(closer);
    }
    let given_up = settle(&mut table, &mine)?;
    Ok((table, given_up))
}

/// A key that would be typed in a text field: a character without ctrl or alt.
fn typed(key: KeyCombo) -> bool {
    matches!(key.code, KeyCode::Char(_))
        && !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
}

/// In every mode, the contexts in force together: a built-in binding gives up a key one of
/// `mine` (the actions `[keys]` bound) has; two of `mine`, or two built-in ones, on one key
/// are an error.
fn settle(table: &mut [Binding], mine: &BTreeSet<ActionName>) -> Result<Vec<GivenUp>, KeymapError> {
    let mut given_up: Vec<GivenUp> = Vec::new();
    for mode in Mode::ALL {
        let contexts = mode.contexts();
        let in_force: Vec<usize> = (0..table.len())
            .filter(|&i| contexts.contains(&table[i].context))
            .collect();
        for (n, &i) in in_force.iter().enumerate() {
            for &j in &in_force[n + 1..] {
                let (a, b) = (&table[i], &table[j]);
                if a.name == b.name {
                    continue;
                }
                let Some(key) = shared_key(a, b) else {
                    continue;
                };
                let is_mine = |b: &Binding| b.name.builtin().is_some_and(|n| mine.contains(&n));
                match (is_mine(a), is_mine(b)) {
                    (true, false) => give_up(table, j, i, key, &mut given_up),
                    (false, true) => give_up(table, i, j, key, &mut given_up),
                    _ => return Err(conflict(key, a, b)),
                }
            }
        }
    }
    for g in &mut given_up {
        g.left = table
            .iter()
            .find(|b| b.name == g.from && b.context == g.context && !b.keys.is_empty())
            .map(|b| b.label.to_string());
    }
    Ok(given_up)
}

/// `table[from]` gives up every key it shares with `table[to]`.
fn give_up(table: &mut [Binding], from: usize, to: usize, first: KeyCombo, out: &mut Vec<GivenUp>) {
    let theirs: Vec<KeyCombo> = table[to].all_keys().copied().collect();
    let loser = &mut table[from];
    let taken = |k: &KeyCombo| theirs.iter().any(|t| same_key(*k, *t));
    loser.keys.retain(|k| !taken(k));
    loser.also.retain(|k| !taken(k));
    loser.relabel();
    out.push(GivenUp {
        key: first,
        from: loser.name.clone(),
        context: loser.context,
        to: table[to].name.clone(),
        left: None,
    });
}

/// Both bindings on `key`, named in the order of their names.
fn conflict(key: KeyCombo, a: &Binding, b: &Binding) -> KeymapError {
    let (first, second) = if a.name.as_str() < b.name.as_str() {
        (a, b)
    } else {
        (b, a)
    };
    KeymapError::Conflict {
        key,
        first: first.name.clone(),
        first_context: first.context,
        second: second.name.clone(),
        second_context: second.context,
    }
}
