//! Every key binding, once: the dispatcher, the hint line and the help overlay all read this
//! table, so a binding and its description are never written twice.

use super::action::Action;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

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
    Help,
}

impl Context {
    /// Every context, in the order the help and the README list them.
    pub const ALL: [Context; 8] = [
        Context::Always,
        Context::Global,
        Context::Browser,
        Context::Watch,
        Context::TextInput,
        Context::AddDialog,
        Context::Confirm,
        Context::Help,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Context::Always => "Always, even while typing or in a popup",
            Context::Global => "Either pane",
            Context::Browser => "LoRA browser",
            Context::Watch => "Watch list",
            Context::TextInput => "Filter and category fields",
            Context::AddDialog => "Add dialog",
            Context::Confirm => "Overwrite question",
            Context::Help => "Help",
        }
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

#[derive(Debug)]
pub struct Binding {
    pub context: Context,
    pub keys: &'static [(KeyCode, KeyModifiers)],
    /// How the keys are written in the hint line and the help.
    pub label: &'static str,
    pub action: Action,
    pub description: &'static str,
    /// Its word in the one-line hint bar, if it is shown there (the help lists everything).
    pub hint: Option<&'static str>,
    /// How long the hint stays when the hint bar is short of room.
    pub priority: Priority,
}

const NONE: KeyModifiers = KeyModifiers::NONE;
const SHIFT: KeyModifiers = KeyModifiers::SHIFT;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;

/// A binding; its hint's priority is `Normal` unless given.
macro_rules! bind {
    ($ctx:ident, [$($key:expr),+], $label:literal, $action:expr, $desc:literal, $hint:expr) => {
        bind!($ctx, [$($key),+], $label, $action, $desc, $hint, Priority::Normal)
    };
    ($ctx:ident, [$($key:expr),+], $label:literal, $action:expr, $desc:literal, $hint:expr, $priority:expr) => {
        Binding { context: Context::$ctx, keys: &[$($key),+], label: $label, action: $action, description: $desc, hint: $hint, priority: $priority }
    };
}

/// The keymap. Order matters only for display.
// A data table: splitting it would only scatter the bindings.
#[allow(clippy::too_many_lines)]
fn bindings() -> &'static [Binding] {
    use KeyCode::{
        BackTab, Backspace, Char, Delete, Down, End, Enter, Esc, Home, PageDown, PageUp, Tab, Up,
    };
    static TABLE: std::sync::OnceLock<Vec<Binding>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        vec![
            bind!(
                Browser,
                [(Char('/'), NONE)],
                "/",
                Action::FocusFilter,
                "filter models by name (fuzzy)",
                Some("filter"),
                Priority::High
            ),
            bind!(
                Browser,
                [(Char('t'), NONE)],
                "t",
                Action::CycleType,
                "type: all → sd → sdxl",
                Some("type"),
                Priority::Low
            ),
            bind!(
                Browser,
                [(Char('c'), NONE)],
                "c",
                Action::EditCategory,
                "category (↑↓ picks a known one)",
                Some("category")
            ),
            bind!(
                Browser,
                [(Enter, NONE), (Char('o'), NONE)],
                "⏎/o",
                Action::Open,
                "open the model's source in the browser",
                Some("open")
            ),
            bind!(
                Browser,
                [(Char('y'), NONE)],
                "y",
                Action::CopyUrl,
                "copy the source URL (OSC 52)",
                Some("copy URL"),
                Priority::Low
            ),
            bind!(
                Browser,
                [(Char('Y'), SHIFT), (Char('Y'), NONE)],
                "Y",
                Action::CopyName,
                "copy the model name",
                None
            ),
            bind!(
                Browser,
                [(Esc, NONE)],
                "Esc",
                Action::Cancel,
                "clear the filter",
                None
            ),
            bind!(
                Browser,
                [(Char('r'), NONE)],
                "r",
                Action::Refresh,
                "reload the catalogue",
                Some("reload"),
                Priority::Low
            ),
            bind!(
                Browser,
                [(Char('f'), NONE)],
                "f",
                Action::ToggleFavourite,
                "mark or unmark the model as a favourite (★, kept per service)",
                None
            ),
            bind!(
                Browser,
                [(Char('F'), SHIFT), (Char('F'), NONE)],
                "F",
                Action::OnlyFavourites,
                "list only the favourites, or everything again",
                None
            ),
            bind!(
                Watch,
                [(Enter, NONE), (Char('o'), NONE)],
                "⏎/o",
                Action::Open,
                "open the download URL in the browser",
                Some("open"),
                Priority::High
            ),
            bind!(
                Watch,
                [(Char('y'), NONE)],
                "y",
                Action::CopyUrl,
                "copy the download URL (OSC 52)",
                Some("copy URL"),
                Priority::Low
            ),
            bind!(
                Watch,
                [(Char('Y'), SHIFT), (Char('Y'), NONE)],
                "Y",
                Action::CopyName,
                "copy the task ID",
                None
            ),
            bind!(
                Watch,
                [(Char('D'), SHIFT), (Char('D'), NONE)],
                "D",
                Action::Download,
                "download the file to download_dir (asks before replacing one)",
                Some("download")
            ),
            bind!(
                Watch,
                [(Char('A'), SHIFT), (Char('A'), NONE)],
                "A",
                Action::ToggleAutoDownload,
                "download this task's file by itself when it completes (or stop)",
                None
            ),
            bind!(
                Confirm,
                [(Char('y'), NONE), (Char('Y'), SHIFT)],
                "y",
                Action::Submit,
                "yes: replace the file",
                Some("replace"),
                Priority::Always
            ),
            bind!(
                Confirm,
                [(Char('n'), NONE), (Esc, NONE)],
                "n/Esc",
                Action::Cancel,
                "no: keep the file",
                Some("keep"),
                Priority::Always
            ),
            bind!(
                Watch,
                [(Char('d'), NONE), (Delete, NONE)],
                "d/Del",
                Action::Remove,
                "remove the task from the list",
                Some("remove")
            ),
            bind!(
                Watch,
                [(Char('u'), NONE)],
                "u",
                Action::Undo,
                "undo the last add or remove",
                Some("undo"),
                Priority::Low
            ),
            bind!(
                Watch,
                [(Char('/'), NONE)],
                "/",
                Action::FocusFilter,
                "filter tasks by ID and status (fuzzy)",
                Some("filter")
            ),
            bind!(
                Watch,
                [(Char('s'), NONE)],
                "s",
                Action::CycleSort,
                "sort: added → status → progress → ETA → task ID",
                Some("sort")
            ),
            bind!(
                Watch,
                [(Char('i'), NONE)],
                "i",
                Action::ToggleDetail,
                "show or hide the selected task's details",
                None
            ),
            bind!(
                Watch,
                [(Char('R'), SHIFT), (Char('R'), NONE)],
                "R",
                Action::PollNow,
                "poll the selected task now",
                Some("poll now"),
                Priority::Low
            ),
            bind!(
                Global,
                [(Char('a'), NONE)],
                "a",
                Action::OpenAddDialog,
                "add tasks to the watch list",
                Some("add task"),
                Priority::High
            ),
            bind!(
                Global,
                [(Tab, NONE), (BackTab, SHIFT)],
                "Tab",
                Action::FocusNext,
                "switch pane",
                Some("switch pane"),
                Priority::High
            ),
            bind!(
                Global,
                [(Up, NONE), (Char('k'), NONE)],
                "↑/k",
                Action::Up,
                "move up",
                None
            ),
            bind!(
                Global,
                [(Down, NONE), (Char('j'), NONE)],
                "↓/j",
                Action::Down,
                "move down",
                None
            ),
            bind!(
                Global,
                [(PageUp, NONE), (Char('b'), CTRL)],
                "PgUp/^B",
                Action::PageUp,
                "page up",
                None
            ),
            bind!(
                Global,
                [(PageDown, NONE), (Char('f'), CTRL)],
                "PgDn/^F",
                Action::PageDown,
                "page down",
                None
            ),
            bind!(
                Global,
                [(Home, NONE), (Char('g'), NONE)],
                "Home/g",
                Action::Top,
                "jump to the top",
                None
            ),
            bind!(
                Global,
                [(End, NONE), (Char('G'), SHIFT), (Char('G'), NONE)],
                "End/G",
                Action::Bottom,
                "jump to the bottom",
                None
            ),
            bind!(
                Global,
                [(Char('?'), NONE), (Char('?'), SHIFT)],
                "?",
                Action::ToggleHelp,
                "show this help",
                Some("help"),
                Priority::Always
            ),
            bind!(
                Global,
                [(Char('q'), NONE)],
                "q",
                Action::Quit,
                "quit",
                Some("quit"),
                Priority::Always
            ),
            bind!(
                Always,
                [(Char('c'), CTRL)],
                "^C",
                Action::Quit,
                "quit",
                None
            ),
            bind!(
                Always,
                [(Char('z'), CTRL)],
                "^Z",
                Action::Suspend,
                "suspend to the shell (fg resumes)",
                None
            ),
            bind!(
                TextInput,
                [(Enter, NONE)],
                "⏎",
                Action::Submit,
                "apply and leave the field",
                Some("apply"),
                Priority::High
            ),
            bind!(
                TextInput,
                [(Esc, NONE)],
                "Esc",
                Action::Cancel,
                "leave the field (the filter stays)",
                Some("leave"),
                Priority::High
            ),
            bind!(
                TextInput,
                [(Up, NONE), (Char('p'), CTRL)],
                "↑/^P",
                Action::PickPrevious,
                "filter: move the selection up (as in fzf); category: previous known one",
                None
            ),
            bind!(
                TextInput,
                [(Down, NONE), (Char('n'), CTRL)],
                "↓/^N",
                Action::PickNext,
                "filter: move the selection down; category: next known one",
                None
            ),
            bind!(
                TextInput,
                [(Backspace, NONE)],
                "⌫",
                Action::Backspace,
                "delete a character",
                None
            ),
            bind!(
                TextInput,
                [(Char('u'), CTRL)],
                "^U",
                Action::ClearInput,
                "clear the field",
                Some("clear")
            ),
            bind!(
                AddDialog,
                [(Enter, NONE)],
                "⏎",
                Action::Submit,
                "add the tasks (several: separate by space, comma or newline)",
                Some("add"),
                Priority::High
            ),
            bind!(
                AddDialog,
                [(Tab, NONE), (BackTab, SHIFT)],
                "Tab",
                Action::ToggleKind,
                "switch image / video",
                Some("image/video")
            ),
            bind!(
                AddDialog,
                [(Esc, NONE)],
                "Esc",
                Action::Cancel,
                "cancel",
                Some("cancel"),
                Priority::High
            ),
            bind!(
                AddDialog,
                [(Backspace, NONE)],
                "⌫",
                Action::Backspace,
                "delete a character",
                None
            ),
            bind!(
                AddDialog,
                [(Char('u'), CTRL)],
                "^U",
                Action::ClearInput,
                "clear the field",
                None
            ),
            bind!(
                Help,
                [(Esc, NONE), (Char('?'), NONE), (Char('q'), NONE)],
                "Esc/?",
                Action::ToggleHelp,
                "close the help",
                Some("close"),
                Priority::Always
            ),
            bind!(
                Help,
                [(Up, NONE), (Char('k'), NONE)],
                "↑/k",
                Action::Up,
                "scroll up",
                None
            ),
            bind!(
                Help,
                [(Down, NONE), (Char('j'), NONE)],
                "↓/j",
                Action::Down,
                "scroll down",
                None
            ),
        ]
    })
}

/// One line of the help overlay, in order. The reducer counts them to know where the help
/// ends; the view styles them.
#[derive(Debug, Clone, Copy)]
pub enum HelpLine {
    /// A context's heading.
    Title(Context),
    Binding(&'static Binding),
    Blank,
    /// A closing remark.
    Note(&'static str),
}

fn matches(binding: &Binding, key: &KeyEvent) -> bool {
    binding.keys.iter().any(|(code, mods)| {
        // Shift is implied by an upper-case character; terminals disagree on reporting it.
        let relevant =
            key.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        *code == key.code
            && (relevant == *mods
                || (matches!(code, KeyCode::Char(_))
                    && (relevant - KeyModifiers::SHIFT) == (*mods - KeyModifiers::SHIFT)))
    })
}

/// The effective key bindings; the dispatcher, the hint line and the help all read it.
#[derive(Debug, Clone, Copy)]
pub struct Keymap {
    bindings: &'static [Binding],
}

impl Default for Keymap {
    fn default() -> Self {
        Keymap {
            bindings: bindings(),
        }
    }
}

impl Keymap {
    pub fn bindings(&self) -> &'static [Binding] {
        self.bindings
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
        let texty = contexts
            .iter()
            .any(|c| matches!(c, Context::TextInput | Context::AddDialog));
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

    /// The hint line's bindings for these contexts.
    pub fn hints(&self, contexts: &[Context]) -> impl Iterator<Item = &'static Binding> {
        let contexts = contexts.to_vec();
        self.bindings
            .iter()
            .filter(move |b| b.hint.is_some() && contexts.contains(&b.context))
    }

    /// The help overlay's lines: each context's bindings under its title, then the mouse.
    pub fn help_lines(&self) -> Vec<HelpLine> {
        let mut lines = Vec::new();
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
        lines.push(HelpLine::Note(
            "Mouse: click selects a row and focuses its pane; the wheel scrolls.",
        ));
        lines
    }

    /// The keymap as Markdown tables, one per context, for the README (a test keeps them
    /// equal).
    pub fn markdown(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        for ctx in Context::ALL {
            let _ = write!(out, "**{}**\n\n| key | action |\n|---|---|\n", ctx.title());
            for b in self.bindings.iter().filter(|b| b.context == ctx) {
                let _ = writeln!(
                    out,
                    "| `{}` | {} |",
                    b.label.replace('|', "\\|"),
                    b.description
                );
            }
            out.push('\n');
        }
        out.trim_end().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(contexts: &[Context], key: &KeyEvent) -> Option<Action> {
        Keymap::default().resolve(contexts, key)
    }

    fn markdown() -> String {
        Keymap::default().markdown()
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn pane_bindings_win_over_global_and_text_types() {
        let browser = [Context::Browser, Context::Global];
        let watch = [Context::Watch, Context::Global];
        assert_eq!(
            resolve(&browser, &key(KeyCode::Char('y'))),
            Some(Action::CopyUrl)
        );
        assert_eq!(
            resolve(&watch, &key(KeyCode::Char('d'))),
            Some(Action::Remove)
        );
        assert_eq!(resolve(&browser, &key(KeyCode::Char('d'))), None);
        assert_eq!(
            resolve(&browser, &key(KeyCode::Char('j'))),
            Some(Action::Down)
        );
        assert_eq!(
            resolve(&[Context::TextInput], &key(KeyCode::Char('q'))),
            Some(Action::Type('q'))
        );
        assert_eq!(
            resolve(&[Context::AddDialog], &key(KeyCode::Tab)),
            Some(Action::ToggleKind)
        );
        let shifted = KeyEvent::new(KeyCode::Char('R'), KeyModifiers::SHIFT);
        assert_eq!(resolve(&watch, &shifted), Some(Action::PollNow));
        // ^C and ^Z work in every mode, even while typing.
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        let ctrl_z = KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL);
        for contexts in [
            &[Context::Browser, Context::Global, Context::Always][..],
            &[Context::TextInput, Context::Always],
            &[Context::AddDialog, Context::Always],
            &[Context::Help, Context::Always],
        ] {
            assert_eq!(
                resolve(contexts, &ctrl_c),
                Some(Action::Quit),
                "{contexts:?}"
            );
            assert_eq!(
                resolve(contexts, &ctrl_z),
                Some(Action::Suspend),
                "{contexts:?}"
            );
        }
    }

    #[test]
    fn the_readme_lists_every_key_as_the_keymap_does() {
        let readme = include_str!("../../README.md");
        assert!(
            readme.contains(&markdown()),
            "README's Keys section is out of date; paste keymap::markdown() into it"
        );
    }

    #[test]
    fn every_binding_is_described_and_keys_are_unique_per_context() {
        for b in bindings() {
            assert!(!b.description.is_empty() && !b.label.is_empty());
        }
        for (i, a) in bindings().iter().enumerate() {
            for b in &bindings()[i + 1..] {
                if a.context == b.context {
                    assert!(
                        a.keys.iter().all(|k| !b.keys.contains(k)),
                        "{} and {} share a key",
                        a.label,
                        b.label
                    );
                }
            }
        }
    }
}
