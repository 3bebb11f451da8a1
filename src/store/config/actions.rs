//! `[[actions]]`: the user's own commands, each run on the selection in the panes it names.
//! Checked when read (a bad scope, an unknown placeholder, an empty command: each an error
//! that names the line); a key that clashes with a bound one is refused when the keymap is
//! built (`app::keymap`), naming the line too. How a command's placeholders are filled, row by
//! row or once with all of them, is here as well, so the dashboard and `gendash run-action`
//! fill them the same way.

use super::appearance::{KeyCombo, KeyNameError};
use super::values::{HOOK_PLACEHOLDERS, ValueError};
use crate::api::prompt::{META_PREFIX, PROMPT_PLACEHOLDERS};
use crate::api::sanitize::sanitize;
use serde::{Deserialize, Deserializer};
use std::fmt;

/// `action_timeout`'s default: long enough for an upscale or an upload, short enough that a
/// hung program does not stay for the session.
pub const DEFAULT_ACTION_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);

/// Where an action runs: the pane (or view) whose selection it is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    Browser,
    Watch,
    Archive,
}

impl Scope {
    pub const NAMES: [&'static str; 3] = ["browser", "watch", "archive"];

    pub fn name(self) -> &'static str {
        match self {
            Scope::Browser => "browser",
            Scope::Watch => "watch",
            Scope::Archive => "archive",
        }
    }

    fn parse(text: &str) -> Result<Scope, ValueError> {
        Ok(match text.trim() {
            "browser" => Scope::Browser,
            "watch" => Scope::Watch,
            "archive" => Scope::Archive,
            _ => {
                return Err(ValueError::NotOneOf {
                    text: text.to_string(),
                    names: &Self::NAMES,
                });
            }
        })
    }

    /// The placeholders of one row here; a metadata field (`{meta.NAME}`) too in the browser.
    pub fn placeholders(self) -> &'static [&'static str] {
        match self {
            Scope::Browser => &PROMPT_PLACEHOLDERS,
            Scope::Watch | Scope::Archive => &HOOK_PLACEHOLDERS,
        }
    }

    /// The placeholders that stand for every row at once, each a whole argument that becomes
    /// one argument per row.
    pub fn plurals(self) -> &'static [Plural] {
        match self {
            Scope::Browser => &[Plural {
                name: "models",
                each: "model",
            }],
            Scope::Watch | Scope::Archive => &[
                Plural {
                    name: "task_ids",
                    each: "task_id",
                },
                Plural {
                    name: "files",
                    each: "file",
                },
            ],
        }
    }

    fn knows(self, name: &str) -> bool {
        self.placeholders().contains(&name)
            || (self == Scope::Browser
                && name
                    .strip_prefix(META_PREFIX)
                    .is_some_and(|f| !f.is_empty()))
    }
}

/// A placeholder for every row (`{files}`): the row's `each` (`{file}`), one argument per row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plural {
    pub name: &'static str,
    pub each: &'static str,
}

/// One `[[actions]]` entry, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnAction {
    pub name: String,
    pub key: KeyCombo,
    /// Each once, in the order written.
    pub scopes: Vec<Scope>,
    /// The program and its arguments, with placeholders; run without a shell.
    pub command: Vec<String>,
    /// Ask before running it.
    pub confirm: bool,
}

/// How an action's command is run on the rows it is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runs {
    /// Once per row (`{file}`, `{model}`…).
    EachRow,
    /// Once with every row (`{files}`, `{task_ids}`, `{models}`).
    OnceWithAll,
}

impl OwnAction {
    pub fn runs(&self) -> Runs {
        let plural = |a: &String| {
            self.scopes
                .iter()
                .flat_map(|s| s.plurals())
                .any(|p| a.strip_prefix('{').and_then(|r| r.strip_suffix('}')) == Some(p.name))
        };
        if self.command.iter().any(plural) {
            Runs::OnceWithAll
        } else {
            Runs::EachRow
        }
    }

    /// The command line as the help and the palette describe it: its words, joined by spaces.
    pub fn command_line(&self) -> String {
        self.command.join(" ")
    }

    pub fn in_scope(&self, scope: Scope) -> bool {
        self.scopes.contains(&scope)
    }
}

/// Why an `[[actions]]` entry is refused; the parser names the file and the line before it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ActionError {
    #[error("an action needs a name")]
    NoName,
    #[error("action `{0}`: its command names no program: give it as [\"program\", \"arg\", …]")]
    NoProgram(String),
    #[error("action `{0}`: its scope is empty: give \"browser\", \"watch\" or \"archive\"")]
    NoScope(String),
    #[error("action `{name}`: scope {why}")]
    BadScope { name: String, why: ValueError },
    #[error("action `{name}`: `{arg}` has a `{{` without its `}}`")]
    Unclosed { name: String, arg: String },
    #[error(
        "action `{name}`: `{{{placeholder}}}` is not a placeholder of the {scope} (known: {})",
        known(*scope)
    )]
    NoSuchPlaceholder {
        name: String,
        placeholder: String,
        scope: Scope,
    },
    #[error(
        "action `{name}`: `{{{placeholder}}}` stands for every row, so it must be a whole \
         argument (`\"{{{placeholder}}}\"`)"
    )]
    PluralInside { name: String, placeholder: String },
    #[error(
        "action `{name}`: `{{{plural}}}` runs it once with every row, so `{{{single}}}` (one \
         row's) cannot be in it too"
    )]
    Mixed {
        name: String,
        plural: String,
        single: String,
    },
    #[error("action `{name}`: {why}")]
    Key { name: String, why: KeyNameError },
    #[error("two actions are named `{0}`; give each its own name")]
    Twice(String),
}

/// `{task_id}, {kind}, …, {task_ids}, {files}`, as a scope's refusal lists them.
fn known(scope: Scope) -> String {
    let mut names: Vec<String> = scope
        .placeholders()
        .iter()
        .chain(scope.plurals().iter().map(|p| &p.name))
        .map(|p| format!("{{{p}}}"))
        .collect();
    if scope == Scope::Browser {
        names.push("{meta.NAME}".into());
    }
    names.join(", ")
}

/// The scope as the file writes it: one name or a list of them.
#[derive(Deserialize)]
#[serde(untagged)]
enum ScopeText {
    One(String),
    Several(Vec<String>),
}

/// `[[actions]]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Written {
    name: String,
    key: String,
    scope: ScopeText,
    command: Vec<String>,
    #[serde(default)]
    confirm: bool,
}

impl<'de> Deserialize<'de> for OwnAction {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = Written::deserialize(d)?;
        check(w).map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} scope", self.name())
    }
}

/// The placeholders of `arg`, in order; an unclosed `{` is an error.
fn placeholders_of(arg: &str) -> Result<Vec<&str>, ()> {
    let mut out = Vec::new();
    let mut rest = arg;
    while let Some(at) = rest.find('{') {
        let after = &rest[at + 1..];
        let end = after.find('}').ok_or(())?;
        out.push(&after[..end]);
        rest = &after[end + 1..];
    }
    Ok(out)
}

fn check(w: Written) -> Result<OwnAction, ActionError> {
    let name = w.name.trim().to_string();
    if name.is_empty() {
        return Err(ActionError::NoName);
    }
    let texts = match w.scope {
        ScopeText::One(s) => vec![s],
        ScopeText::Several(list) => list,
    };
    let mut scopes = Vec::new();
    for text in &texts {
        let scope = Scope::parse(text).map_err(|why| ActionError::BadScope {
            name: name.clone(),
            why,
        })?;
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    if scopes.is_empty() {
        return Err(ActionError::NoScope(name));
    }
    if w.command.first().is_none_or(|p| p.trim().is_empty()) {
        return Err(ActionError::NoProgram(name));
    }
    let (mut plural, mut single): (Option<&str>, Option<&str>) = (None, None);
    for arg in &w.command {
        let found = placeholders_of(arg).map_err(|()| ActionError::Unclosed {
            name: name.clone(),
            arg: arg.clone(),
        })?;
        for p in found {
            let is_plural = scopes
                .iter()
                .any(|s| s.plurals().iter().any(|q| q.name == p));
            if is_plural {
                if arg != &format!("{{{p}}}") {
                    return Err(ActionError::PluralInside {
                        name,
                        placeholder: p.to_string(),
                    });
                }
                plural.get_or_insert(p);
            } else {
                single.get_or_insert(p);
            }
            // Known in every scope it runs in: a placeholder one of them lacks would be empty
            // there on every row.
            for &scope in &scopes {
                let known = scope.knows(p) || scope.plurals().iter().any(|q| q.name == p);
                if !known {
                    return Err(ActionError::NoSuchPlaceholder {
                        name,
                        placeholder: p.to_string(),
                        scope,
                    });
                }
            }
        }
    }
    if let (Some(plural), Some(single)) = (plural, single) {
        return Err(ActionError::Mixed {
            name,
            plural: plural.to_string(),
            single: single.to_string(),
        });
    }
    let key = w.key.parse().map_err(|why| ActionError::Key {
        name: name.clone(),
        why,
    })?;
    Ok(OwnAction {
        name,
        key,
        scopes,
        command: w.command,
        confirm: w.confirm,
    })
}

/// `[[actions]]` of a profile on top of the top level's: one of the same name replaces it,
/// the others are added.
pub fn merge(into: &mut Vec<OwnAction>, level: &[OwnAction]) {
    for action in level {
        match into.iter_mut().find(|a| a.name == action.name) {
            Some(same) => *same = action.clone(),
            None => into.push(action.clone()),
        }
    }
}

/// The first name two entries of one level share.
pub fn twice(level: &[OwnAction]) -> Option<ActionError> {
    level
        .iter()
        .enumerate()
        .find(|(i, a)| level[..*i].iter().any(|b| b.name == a.name))
        .map(|(_, a)| ActionError::Twice(a.name.clone()))
}

/// The line of each `[[actions]]` entry's `key =` (else of its header), by the entry's name,
/// in `text`'s top level or in profile `profile`'s (which wins): so a clash found when the
/// keymap is built can name the line.
pub fn key_lines(text: &str, profile: Option<&str>) -> Vec<(String, usize)> {
    let header = |table: &str| format!("[[{table}]]");
    let top = header("actions");
    let mine = profile.map(|p| header(&format!("profiles.{p}.actions")));
    let mut out: Vec<(String, usize, bool)> = Vec::new();
    // The entry being read: whether it is the profile's, its header's and key's lines, its name.
    let mut entry: Option<(bool, usize, Option<usize>, Option<String>)> = None;
    let mut end = |entry: &mut Option<(bool, usize, Option<usize>, Option<String>)>| {
        if let Some((theirs, header, key, Some(name))) = entry.take() {
            out.retain(|(n, _, t)| !(n == &name && (theirs || !*t)));
            out.push((name, key.unwrap_or(header), theirs));
        }
    };
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with('[') {
            end(&mut entry);
            let squeezed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
            if squeezed == top {
                entry = Some((false, n + 1, None, None));
            } else if mine.as_ref() == Some(&squeezed) {
                entry = Some((true, n + 1, None, None));
            }
        } else if let (Some(e), Some((k, v))) = (entry.as_mut(), line.split_once('=')) {
            match k.trim() {
                "key" => e.2 = Some(n + 1),
                "name" => {
                    e.3 = Some(
                        v.trim()
                            .trim_matches(|c| c == '"' || c == '\'')
                            .trim()
                            .to_string(),
                    );
                }
                _ => {}
            }
        }
    }
    end(&mut entry);
    out.into_iter().map(|(n, l, _)| (n, l)).collect()
}

/// One level's `[[actions]]`, each name once.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ActionList(pub Vec<OwnAction>);

impl<'de> Deserialize<'de> for ActionList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let list = Vec::<OwnAction>::deserialize(d)?;
        match twice(&list) {
            Some(e) => Err(serde::de::Error::custom(e)),
            None => Ok(ActionList(list)),
        }
    }
}

/// One row an action is run on: what the status bar calls it (a task ID, a model's name) and
/// its placeholders' values (`None`: not a placeholder of the row; empty: it has no value).
pub trait Fill {
    fn called(&self) -> String;
    fn value(&self, placeholder: &str) -> Option<String>;
}

/// A row left out, and why: the placeholder it has no value for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub row: String,
    pub placeholder: String,
}

/// The commands to run for `rows`: one per row (`Runs::EachRow`), or one with every row
/// (`Runs::OnceWithAll`); a row with an empty placeholder is skipped and said.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Expansion {
    /// Each: the rows it is for (as `Fill::called`) and its arguments.
    pub runs: Vec<(Vec<String>, Vec<String>)>,
    pub skipped: Vec<Skipped>,
}

impl Expansion {
    /// "skipped t-2 ({file} is empty)" or for several "skipped 2 rows: t-2, t-3 ({file} is
    /// empty)"; `None` when none was.
    pub fn skipped_text(&self) -> Option<String> {
        let first = self.skipped.first()?;
        let rows: Vec<&str> = self.skipped.iter().map(|s| s.row.as_str()).collect();
        Some(match rows.as_slice() {
            [one] => format!("skipped {one} ({{{}}} is empty)", first.placeholder),
            many => format!(
                "skipped {} rows: {} ({{{}}} is empty)",
                many.len(),
                many.join(", "),
                first.placeholder
            ),
        })
    }
}

/// Fills `action`'s command for `rows` (see [`Expansion`]).
pub fn expand<R: Fill>(action: &OwnAction, scope: Scope, rows: &[R]) -> Expansion {
    let mut out = Expansion::default();
    match action.runs() {
        Runs::EachRow => {
            for row in rows {
                match fill_row(&action.command, row) {
                    Ok(args) => out.runs.push((vec![row.called()], args)),
                    Err(placeholder) => out.skipped.push(Skipped {
                        row: row.called(),
                        placeholder,
                    }),
                }
            }
        }
        Runs::OnceWithAll => {
            let plurals = scope.plurals();
            let mut args = Vec::new();
            let mut kept: Vec<String> = Vec::new();
            // A row is in the run when every plural has a value for it.
            let usable: Vec<&R> = rows
                .iter()
                .filter(|row| {
                    let empty = action.command.iter().find_map(|a| {
                        let p = plurals.iter().find(|p| a == &format!("{{{}}}", p.name))?;
                        row.value(p.each)
                            .unwrap_or_default()
                            .is_empty()
                            .then_some(p.each)
                    });
                    match empty {
                        Some(each) => {
                            out.skipped.push(Skipped {
                                row: row.called(),
                                placeholder: each.to_string(),
                            });
                            false
                        }
                        None => true,
                    }
                })
                .collect();
            if usable.is_empty() {
                return out;
            }
            for arg in &action.command {
                match plurals.iter().find(|p| arg == &format!("{{{}}}", p.name)) {
                    Some(p) => {
                        args.extend(usable.iter().filter_map(|r| r.value(p.each)));
                    }
                    None => args.push(arg.clone()),
                }
            }
            kept.extend(usable.iter().map(|r| r.called()));
            out.runs.push((kept, args));
        }
    }
    out
}

/// `command` filled with `row`'s values, or the first placeholder it has no value for.
fn fill_row<R: Fill>(command: &[String], row: &R) -> Result<Vec<String>, String> {
    let mut empty: Option<String> = None;
    let args = super::values::fill(command, |name| {
        let v = row.value(name)?;
        if v.is_empty() && empty.is_none() {
            empty = Some(name.to_string());
        }
        Some(v)
    });
    match empty {
        Some(p) => Err(p),
        None => Ok(args),
    }
}

/// A watched or archived task as a row of an action.
pub struct TaskRow<'a>(pub &'a crate::store::watchlist::WatchEntry);

impl Fill for TaskRow<'_> {
    fn called(&self) -> String {
        sanitize(&self.0.task_id)
    }
    fn value(&self, placeholder: &str) -> Option<String> {
        let e = self.0;
        let last = e.last.as_ref();
        Some(match placeholder {
            "task_id" => sanitize(&e.task_id),
            "kind" => e.kind.as_str().to_string(),
            "status" => last.map(|l| sanitize(&l.status)).unwrap_or_default(),
            "percent" => last.map(|l| l.percent.to_string()).unwrap_or_default(),
            "url" => last
                .and_then(|l| l.url_download.as_deref())
                .map(sanitize)
                .unwrap_or_default(),
            "file" => e.saved.as_deref().map(sanitize).unwrap_or_default(),
            "label" => e.label.as_deref().map(sanitize).unwrap_or_default(),
            _ => return None,
        })
    }
}

/// A catalogue entry as a row of an action; `weight` is `{weight}` where it recommends none.
pub struct ModelRow<'a> {
    pub entry: &'a crate::api::LoraEntry,
    pub weight: f64,
}

impl Fill for ModelRow<'_> {
    fn called(&self) -> String {
        sanitize(self.entry.model())
    }
    fn value(&self, placeholder: &str) -> Option<String> {
        let field = match placeholder.strip_prefix(META_PREFIX) {
            Some(field) => field,
            None if PROMPT_PLACEHOLDERS.contains(&placeholder) => placeholder,
            None => return None,
        };
        Some(crate::api::prompt::field(self.entry, field, self.weight))
    }
}

#[cfg(test)]
#[path = "actions_tests.rs"]
mod tests;
