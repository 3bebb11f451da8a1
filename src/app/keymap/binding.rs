//! What a binding is, and how its keys are compared and written.

use crate::app::action::Action;
use crate::store::config::{ActionName, KeyCombo};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::borrow::Cow;
use std::sync::Arc;

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// In every mode, even while typing or with a popup open.
    Always,
    /// Either pane, outside text input.
    Global,
    Browser,
    Watch,
    /// The filter and category fields.
    TextInput,
    AddDialog,
    /// A yes/no question (overwrite a file?).
    Confirm,
    /// The request log (`L`).
    Requests,
    Help,
    /// The archive view (`H` from the watch list).
    Archive,
    /// The list of a pane's saved views.
    Views,
    /// The gallery of the watch list or of the archive (its moves; the pane's keys stay).
    Gallery,
}

impl Context {
    /// Every context, in the order the help and the README list them.
    pub const ALL: [Context; 12] = [
        Context::Always,
        Context::Global,
        Context::Browser,
        Context::Watch,
        Context::Archive,
        Context::Gallery,
        Context::Views,
        Context::TextInput,
        Context::AddDialog,
        Context::Confirm,
        Context::Requests,
        Context::Help,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Context::Always => "Always, even while typing or in a popup",
            Context::Global => "Either pane",
            Context::Browser => "LoRA browser",
            Context::Watch => "Watch list",
            Context::TextInput => "Filter, category and search fields",
            Context::AddDialog => "Add dialog",
            Context::Confirm => "A yes/no question (replace a file, remove completed tasks)",
            Context::Requests => "Request log",
            Context::Help => "Help",
            Context::Archive => "Archive (finished tasks that left the watch list)",
            Context::Views => "The list of saved views",
            Context::Gallery => {
                "Gallery (the pane's results as a grid; the pane's keys act on the selected tile)"
            }
        }
    }

    /// Its name in `gendash keys --json`.
    pub fn name(self) -> &'static str {
        match self {
            Context::Always => "always",
            Context::Global => "global",
            Context::Browser => "browser",
            Context::Watch => "watch",
            Context::TextInput => "input",
            Context::AddDialog => "add-dialog",
            Context::Confirm => "confirm",
            Context::Requests => "requests",
            Context::Help => "help",
            Context::Archive => "archive",
            Context::Views => "views",
            Context::Gallery => "gallery",
        }
    }

    /// Whether printable characters are typed here when no binding claims them.
    pub(crate) fn types(self) -> bool {
        matches!(self, Context::TextInput | Context::AddDialog)
    }
}

/// How long a binding's hint stays on a hint line too narrow for all of them: the lowest go
/// first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Priority {
    Low,
    Normal,
    High,
    /// Never dropped: the way to everything else (`?`) and the way out (`q`).
    Always,
}

/// A binding's name: a built-in action's in `[keys]`, or the name of one of the user's
/// `[[actions]]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Name {
    Builtin(ActionName),
    Own(Arc<str>),
}

impl Name {
    pub fn as_str(&self) -> &str {
        match self {
            Name::Builtin(n) => n.as_str(),
            Name::Own(n) => n,
        }
    }

    /// The built-in action's name, for a built-in binding.
    pub fn builtin(&self) -> Option<ActionName> {
        match self {
            Name::Builtin(n) => Some(*n),
            Name::Own(_) => None,
        }
    }
}

impl PartialEq<ActionName> for Name {
    fn eq(&self, other: &ActionName) -> bool {
        self.builtin() == Some(*other)
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone)]
pub struct Binding {
    pub context: Context,
    /// The action's name in `[keys]`; bindings of several contexts that mean the same share
    /// it.
    pub name: Name,
    /// The keys the label names.
    pub keys: Vec<KeyCombo>,
    /// More keys that work but are left out of the label (`Y` beside `y`).
    pub also: Vec<KeyCombo>,
    /// How `keys` are written in the hint line and the help, derived from them.
    pub label: Cow<'static, str>,
    pub action: Action,
    /// Built in, or made from the config (a view's key names its view, an action's its
    /// command line).
    pub description: Cow<'static, str>,
    /// Its word in the one-line hint bar, if it is shown there (the help lists everything).
    pub hint: Option<&'static str>,
    /// How long the hint stays when the hint bar is short of room.
    pub priority: Priority,
}

/// One line of the help overlay, in order. The reducer counts them to know where the help
/// ends; the view styles them.
#[derive(Debug, Clone)]
pub enum HelpLine<'a> {
    /// A context's heading.
    Title(Context),
    Binding(&'a Binding),
    Blank,
    /// A closing remark, or one row of it as wrapped to the overlay's width.
    Note(String),
}

impl HelpLine<'_> {
    /// The line's words, as a search reads them.
    pub fn text(&self) -> String {
        match self {
            HelpLine::Title(ctx) => ctx.title().to_string(),
            HelpLine::Binding(b) => format!("{} {}", b.label, b.description),
            HelpLine::Blank => String::new(),
            HelpLine::Note(text) => text.clone(),
        }
    }
}

/// A key as the dispatcher compares it: shift is implied by an upper-case character
/// (terminals disagree on reporting it) and only ctrl, alt and shift count.
pub(super) fn normalised(code: KeyCode, modifiers: KeyModifiers) -> (KeyCode, KeyModifiers) {
    let mut mods = modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
    if matches!(code, KeyCode::Char(_)) {
        mods -= KeyModifiers::SHIFT;
    }
    (code, mods)
}

pub(super) fn matches(binding: &Binding, key: &KeyEvent) -> bool {
    let pressed = normalised(key.code, key.modifiers);
    binding
        .all_keys()
        .any(|k| normalised(k.code, k.modifiers) == pressed)
}

pub(super) fn same_key(a: KeyCombo, b: KeyCombo) -> bool {
    normalised(a.code, a.modifiers) == normalised(b.code, b.modifiers)
}

/// The first key of `b` that `a` has too.
pub(super) fn shared_key(a: &Binding, b: &Binding) -> Option<KeyCombo> {
    a.all_keys()
        .copied()
        .find(|k| b.all_keys().any(|o| same_key(*k, *o)))
}

impl Binding {
    /// Every key it answers to: the labelled ones, then the others.
    pub fn all_keys(&self) -> impl Iterator<Item = &KeyCombo> {
        self.keys.iter().chain(&self.also)
    }

    /// The label again, from `keys`: after they changed.
    pub(super) fn relabel(&mut self) {
        self.label = Cow::Owned(label_of(&self.keys));
    }
}

/// The label of an action left with no key (its keys went to the user's `[keys]`).
pub(super) const NO_KEY: &str = "(no key)";

/// How `keys` are written together: `⏎/o`; a binding left with no key says so.
pub(super) fn label_of(keys: &[KeyCombo]) -> String {
    let mut labels: Vec<String> = Vec::new();
    for label in keys.iter().map(|k| key_label(*k)) {
        if !labels.contains(&label) {
            labels.push(label);
        }
    }
    if labels.is_empty() {
        return NO_KEY.to_string();
    }
    labels.join("/")
}

/// How a key is written in the hint line and the help: `⏎`, `^D`, `PgUp`, `x`.
fn key_label(key: KeyCombo) -> String {
    use std::fmt::Write as _;
    let m = key.modifiers;
    let mut out = String::new();
    if m.contains(KeyModifiers::ALT) {
        out.push_str("Alt-");
    }
    let shifted =
        m.contains(KeyModifiers::SHIFT) && !matches!(key.code, KeyCode::Char(_) | KeyCode::BackTab);
    if shifted {
        out.push_str("S-");
    }
    let ctrl = m.contains(KeyModifiers::CONTROL);
    match key.code {
        KeyCode::Char(' ') => out.push_str(if ctrl { "^Space" } else { "Space" }),
        KeyCode::Char(c) if ctrl => {
            out.push('^');
            out.extend(c.to_uppercase());
        }
        KeyCode::Char(c) => out.push(c),
        KeyCode::F(n) => {
            if ctrl {
                out.push('^');
            }
            let _ = write!(out, "F{n}");
        }
        code => {
            if ctrl {
                out.push('^');
            }
            out.push_str(match code {
                KeyCode::Enter => "⏎",
                KeyCode::Esc => "Esc",
                KeyCode::Tab => "Tab",
                KeyCode::BackTab => "S-Tab",
                KeyCode::Backspace => "⌫",
                KeyCode::Delete => "Del",
                KeyCode::Insert => "Ins",
                KeyCode::Up => "↑",
                KeyCode::Down => "↓",
                KeyCode::Left => "←",
                KeyCode::Right => "→",
                KeyCode::Home => "Home",
                KeyCode::End => "End",
                KeyCode::PageUp => "PgUp",
                KeyCode::PageDown => "PgDn",
                _ => "?",
            });
        }
    }
    out
}
