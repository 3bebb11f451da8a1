//! Every key binding, once: the dispatcher, the hint line and the help overlay all read this
//! table, so a binding and its description are never written twice.

use super::action::Action;
use crate::store::config::KeyCombo;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::borrow::Cow;
use std::collections::BTreeMap;
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
}

impl Context {
    /// Every context, in the order the help and the README list them.
    pub const ALL: [Context; 10] = [
        Context::Always,
        Context::Global,
        Context::Browser,
        Context::Watch,
        Context::Archive,
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
        }
    }

    /// Whether printable characters are typed here when no binding claims them.
    fn types(self) -> bool {
        matches!(self, Context::TextInput | Context::AddDialog)
    }
}

/// The contexts that are in force together (`State::contexts`): a key may mean one thing
/// in each of these sets.
const TOGETHER: [&[Context]; 8] = [
    &[Context::Browser, Context::Global, Context::Always],
    &[Context::Watch, Context::Global, Context::Always],
    &[Context::TextInput, Context::Always],
    &[Context::AddDialog, Context::Always],
    &[Context::Confirm, Context::Always],
    &[Context::Requests, Context::Always],
    &[Context::Help, Context::Always],
    &[Context::Archive, Context::Always],
];

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

#[derive(Debug, Clone)]
pub struct Binding {
    pub context: Context,
    /// The action's name in `[keys]`; bindings of several contexts that mean the same share
    /// it.
    pub name: &'static str,
    pub keys: Vec<KeyCombo>,
    /// How the keys are written in the hint line and the help.
    pub label: Cow<'static, str>,
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
    ($ctx:ident, $name:literal, [$($key:expr),+], $label:literal, $action:expr, $desc:literal, $hint:expr) => {
        bind!($ctx, $name, [$($key),+], $label, $action, $desc, $hint, Priority::Normal)
    };
    ($ctx:ident, $name:literal, [$($key:expr),+], $label:literal, $action:expr, $desc:literal, $hint:expr, $priority:expr) => {
        Binding {
            context: Context::$ctx,
            name: $name,
            keys: vec![$(KeyCombo::new($key.0, $key.1)),+],
            label: Cow::Borrowed($label),
            action: $action,
            description: $desc,
            hint: $hint,
            priority: $priority,
        }
    };
}

/// The keymap. Order matters only for display.
// A data table: splitting it would only scatter the bindings.
#[allow(clippy::too_many_lines)]
fn bindings() -> &'static Arc<[Binding]> {
    use KeyCode::{BackTab, Backspace, Char, Delete, Down, Enter, Esc, Tab, Up};
    static TABLE: std::sync::OnceLock<Arc<[Binding]>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        vec![
            bind!(
                Browser,
                "filter",
                [(Char('/'), NONE)],
                "/",
                Action::FocusFilter,
                "filter: fuzzy names, fzf operators, key:value fields, type:/cate:",
                Some("filter"),
                Priority::High
            ),
            bind!(
                Browser,
                "type",
                [(Char('t'), NONE)],
                "t",
                Action::CycleType,
                "type: all → sd → sdxl",
                Some("type"),
                Priority::Low
            ),
            bind!(
                Browser,
                "category",
                [(Char('c'), NONE)],
                "c",
                Action::EditCategory,
                "category (the field offers the known ones)",
                Some("category")
            ),
            bind!(
                Browser,
                "open",
                [(Enter, NONE), (Char('o'), NONE)],
                "⏎/o",
                Action::Open,
                "open the model's source in the browser",
                Some("open")
            ),
            bind!(
                Browser,
                "copy_url",
                [(Char('y'), NONE)],
                "y",
                Action::CopyUrl,
                "copy the source URL (clipboard program, else OSC 52)",
                Some("copy URL"),
                Priority::Low
            ),
            bind!(
                Browser,
                "copy_name",
                [(Char('Y'), SHIFT)],
                "Y",
                Action::CopyName,
                "copy the model name",
                None
            ),
            bind!(
                Browser,
                "clear_filter",
                [(Esc, NONE)],
                "Esc",
                Action::Cancel,
                "in the pane: clear the filter (in the field it leaves the field instead)",
                None
            ),
            bind!(
                Browser,
                "reload",
                [(Char('r'), NONE)],
                "r",
                Action::Refresh,
                "reload the catalogue",
                Some("reload"),
                Priority::Low
            ),
            bind!(
                Browser,
                "favourite",
                [(Char('f'), NONE)],
                "f",
                Action::ToggleFavourite,
                "mark or unmark the model as a favourite (★, kept per service)",
                None
            ),
            bind!(
                Browser,
                "favourites_only",
                [(Char('F'), SHIFT)],
                "F",
                Action::OnlyFavourites,
                "list only the favourites, or everything again",
                None
            ),
            bind!(
                Browser,
                "clear_marks",
                [(Char('X'), SHIFT)],
                "X",
                Action::ClearMarks,
                "clear the marks of what changed since the cached copy (+ new, ~ changed)",
                None
            ),
            bind!(
                Browser,
                "sort",
                [(Char('s'), NONE)],
                "s",
                Action::CycleSort,
                "sort: relevance → name → downloads → rating → updated",
                None
            ),
            bind!(
                Browser,
                "sort_direction",
                [(Char('S'), SHIFT)],
                "S",
                Action::FlipSort,
                "flip the sort: ascending ↔ descending",
                None
            ),
            bind!(
                Watch,
                "open",
                [(Enter, NONE), (Char('o'), NONE)],
                "⏎/o",
                Action::Open,
                "open the download URL in the browser",
                Some("open"),
                Priority::High
            ),
            bind!(
                Watch,
                "open_file",
                [(Char('O'), SHIFT)],
                "O",
                Action::OpenFile,
                "open the saved file (GENDASH_OPENER, else the system's viewer)",
                None
            ),
            bind!(
                Watch,
                "copy_url",
                [(Char('y'), NONE)],
                "y",
                Action::CopyUrl,
                "copy the download URL (clipboard program, else OSC 52)",
                Some("copy URL"),
                Priority::Low
            ),
            bind!(
                Watch,
                "copy_name",
                [(Char('Y'), SHIFT)],
                "Y",
                Action::CopyName,
                "copy the task ID",
                None
            ),
            bind!(
                Watch,
                "download",
                [(Char('D'), SHIFT)],
                "D",
                Action::Download,
                "download the file (of every marked task) to download_dir; asks before replacing one",
                Some("download")
            ),
            bind!(
                Watch,
                "auto_download",
                [(Char('A'), SHIFT)],
                "A",
                Action::ToggleAutoDownload,
                "download the file by itself when the task completes, or stop (every marked task)",
                None
            ),
            bind!(
                Confirm,
                "yes",
                [(Char('y'), NONE), (Char('Y'), SHIFT)],
                "y",
                Action::Submit,
                "yes: replace the file, or remove the tasks",
                Some("yes"),
                Priority::Always
            ),
            bind!(
                Confirm,
                "no",
                [(Char('n'), NONE), (Esc, NONE)],
                "n/Esc",
                Action::Cancel,
                "no: keep it",
                Some("no"),
                Priority::Always
            ),
            bind!(
                Watch,
                "remove",
                [(Char('d'), NONE), (Delete, NONE)],
                "d/Del",
                Action::Remove,
                "remove the task, or every marked one, from the list",
                Some("remove")
            ),
            bind!(
                Watch,
                "mark",
                [(Char(' '), NONE)],
                "Space",
                Action::ToggleMark,
                "mark or unmark the task and move down; remove, download and auto-download act \
                 on every marked one",
                None
            ),
            bind!(
                Watch,
                "remove_completed",
                [(Char('C'), SHIFT)],
                "C",
                Action::RemoveCompleted,
                "remove every completed task (asks first; one undo brings them all back)",
                None
            ),
            bind!(
                Watch,
                "clear_filter",
                [(Esc, NONE)],
                "Esc",
                Action::Cancel,
                "in the pane: clear the filter, else unmark every task",
                None
            ),
            bind!(
                Watch,
                "undo",
                [(Char('u'), NONE)],
                "u",
                Action::Undo,
                "undo the last add or remove; again undoes the one before (up to 50)",
                Some("undo"),
                Priority::Low
            ),
            bind!(
                Watch,
                "filter",
                [(Char('/'), NONE)],
                "/",
                Action::FocusFilter,
                "filter tasks by ID, status and label (fuzzy; label:… for the label alone)",
                Some("filter")
            ),
            bind!(
                Watch,
                "sort",
                [(Char('s'), NONE)],
                "s",
                Action::CycleSort,
                "sort: added → status → progress → ETA → task ID",
                Some("sort")
            ),
            bind!(
                Watch,
                "details",
                [(Char('i'), NONE)],
                "i",
                Action::ToggleDetail,
                "show or hide the selected task's details",
                None
            ),
            bind!(
                Watch,
                "poll_now",
                [(Char('R'), SHIFT)],
                "R",
                Action::PollNow,
                "poll the selected task now",
                Some("poll now"),
                Priority::Low
            ),
            bind!(
                Watch,
                "next_unseen",
                [(Char('n'), NONE)],
                "n",
                Action::NextUnseen,
                "the next task that finished since you last looked at it (●); looking marks it seen",
                None
            ),
            bind!(
                Watch,
                "label",
                [(Char('e'), NONE)],
                "e",
                Action::EditLabel,
                "edit the task's label (of every marked one); empty clears it",
                None
            ),
            bind!(
                Global,
                "add",
                [(Char('a'), NONE)],
                "a",
                Action::OpenAddDialog,
                "add tasks to the watch list",
                Some("add task"),
                Priority::High
            ),
            bind!(
                Global,
                "switch_pane",
                [(Tab, NONE), (BackTab, SHIFT)],
                "Tab",
                Action::FocusNext,
                "switch pane",
                Some("switch pane"),
                Priority::High
            ),
        ]
        .into_iter()
        .chain(moves(
            Context::Global,
            [
                "move up",
                "move down",
                "page up",
                "page down",
                "jump to the top",
                "jump to the bottom",
            ],
        ))
        .chain([
            bind!(
                Global,
                "help",
                [(Char('?'), NONE)],
                "?",
                Action::ToggleHelp,
                "show this help",
                Some("help"),
                Priority::Always
            ),
            bind!(
                Global,
                "request_log",
                [(Char('L'), SHIFT)],
                "L",
                Action::ToggleRequests,
                "the request log: the last 500 requests and their answers",
                Some("requests"),
                Priority::Low
            ),
            bind!(
                Global,
                "zoom",
                [(Char('z'), NONE)],
                "z",
                Action::Zoom,
                "zoom the focused pane to the whole screen, or back",
                Some("zoom"),
                Priority::Low
            ),
            bind!(
                Global,
                "quit",
                [(Char('q'), NONE)],
                "q",
                Action::Quit,
                "quit",
                Some("quit"),
                Priority::Always
            ),
            bind!(
                Always,
                "interrupt",
                [(Char('c'), CTRL)],
                "^C",
                Action::Quit,
                "quit",
                None
            ),
            bind!(
                Always,
                "suspend",
                [(Char('z'), CTRL)],
                "^Z",
                Action::Suspend,
                "suspend to the shell (fg resumes)",
                None
            ),
            bind!(
                TextInput,
                "submit",
                [(Enter, NONE)],
                "⏎",
                Action::Submit,
                "apply and leave the field",
                Some("apply"),
                Priority::High
            ),
            bind!(
                TextInput,
                "cancel",
                [(Esc, NONE)],
                "Esc",
                Action::Cancel,
                "leave the field; the filter or the search stays",
                Some("leave"),
                Priority::High
            ),
            bind!(
                TextInput,
                "pick_previous",
                [(Up, NONE), (Char('p'), CTRL)],
                "↑/^P",
                Action::PickPrevious,
                "filter: move the selection up (as in fzf); category: previous known one; \
                 search: previous match",
                None
            ),
            bind!(
                TextInput,
                "pick_next",
                [(Down, NONE), (Char('n'), CTRL)],
                "↓/^N",
                Action::PickNext,
                "filter: move the selection down; category: next known one; search: next match",
                None
            ),
            bind!(
                TextInput,
                "backspace",
                [(Backspace, NONE)],
                "⌫",
                Action::Backspace,
                "delete a character",
                None
            ),
            bind!(
                TextInput,
                "clear_input",
                [(Char('u'), CTRL)],
                "^U",
                Action::ClearInput,
                "clear the field",
                Some("clear")
            ),
            bind!(
                AddDialog,
                "submit",
                [(Enter, NONE)],
                "⏎",
                Action::Submit,
                "add the tasks (several: separate by space, comma or newline)",
                Some("add"),
                Priority::High
            ),
            bind!(
                AddDialog,
                "image_video",
                [(Tab, NONE), (BackTab, SHIFT)],
                "Tab",
                Action::ToggleKind,
                "switch image / video",
                Some("image/video")
            ),
            bind!(
                AddDialog,
                "cancel",
                [(Esc, NONE)],
                "Esc",
                Action::Cancel,
                "cancel",
                Some("cancel"),
                Priority::High
            ),
            bind!(
                AddDialog,
                "backspace",
                [(Backspace, NONE)],
                "⌫",
                Action::Backspace,
                "delete a character",
                None
            ),
            bind!(
                AddDialog,
                "clear_input",
                [(Char('u'), CTRL)],
                "^U",
                Action::ClearInput,
                "clear the field",
                None
            ),
            bind!(
                AddDialog,
                "label_field",
                [(Down, NONE), (Up, NONE)],
                "↓/↑",
                Action::PickNext,
                "move between the task IDs and the label field",
                None
            ),
            bind!(
                Requests,
                "copy_curl",
                [(Char('y'), NONE)],
                "y",
                Action::CopyCurl,
                "copy it as a curl command (token from $GENDASH_TOKEN)",
                Some("copy as curl"),
                Priority::High
            ),
            bind!(
                Requests,
                "close_log",
                [(Esc, NONE), (Char('L'), SHIFT), (Char('q'), NONE)],
                "Esc/L",
                Action::ToggleRequests,
                "close the request log",
                Some("close"),
                Priority::Always
            ),
        ])
        .chain(searches(Context::Requests, "search the log: method, status, URL, error"))
        .chain(moves(
            Context::Requests,
            [
                "older request",
                "newer request",
                "page up",
                "page down",
                "the oldest request",
                "the newest request (new ones are then followed)",
            ],
        ))
        .chain([
            bind!(
                Help,
                "close_help",
                [(Esc, NONE), (Char('?'), NONE), (Char('q'), NONE)],
                "Esc/?",
                Action::ToggleHelp,
                "close the help",
                Some("close"),
                Priority::Always
            ),
        ])
        .chain(moves(
            Context::Help,
            [
                "scroll up",
                "scroll down",
                "page up",
                "page down",
                "the top",
                "the end",
            ],
        ))
        .chain(searches(Context::Help, "search the help"))
        .chain(archive())
        .chain(moves(
            Context::Archive,
            [
                "move up",
                "move down",
                "page up",
                "page down",
                "the first row",
                "the last row",
            ],
        ))
        .collect::<Vec<_>>()
        .into()
    })
}

/// The way into the archive view (from the watch list) and its own keys: those it shares
/// with the watch list keep their names, so `[keys]` rebinds both at once.
// A data table, as `bindings`.
#[allow(clippy::too_many_lines)]
fn archive() -> [Binding; 13] {
    use KeyCode::{Char, Delete, Enter, Esc};
    [
        bind!(
            Watch,
            "archive",
            [(Char('H'), SHIFT)],
            "H",
            Action::ToggleArchive,
            "the archive: finished tasks that left the watch list",
            Some("archive"),
            Priority::Low
        ),
        bind!(
            Archive,
            "close_archive",
            [(Esc, NONE), (Char('H'), SHIFT), (Char('q'), NONE)],
            "Esc/H/q",
            Action::ToggleArchive,
            "back to the watch list",
            Some("back"),
            Priority::Always
        ),
        bind!(
            Archive,
            "open",
            [(Enter, NONE), (Char('o'), NONE)],
            "⏎/o",
            Action::Open,
            "open the download URL in the browser",
            Some("open"),
            Priority::High
        ),
        bind!(
            Archive,
            "open_file",
            [(Char('O'), SHIFT)],
            "O",
            Action::OpenFile,
            "open the saved file (GENDASH_OPENER, else the system's viewer)",
            None
        ),
        bind!(
            Archive,
            "copy_url",
            [(Char('y'), NONE)],
            "y",
            Action::CopyUrl,
            "copy the download URL (clipboard program, else OSC 52)",
            Some("copy URL"),
            Priority::Low
        ),
        bind!(
            Archive,
            "copy_name",
            [(Char('Y'), SHIFT)],
            "Y",
            Action::CopyName,
            "copy the task ID",
            None
        ),
        bind!(
            Archive,
            "download",
            [(Char('D'), SHIFT)],
            "D",
            Action::Download,
            "download the file again to download_dir",
            Some("download")
        ),
        bind!(
            Archive,
            "watch_again",
            [(Char('w'), NONE)],
            "w",
            Action::WatchAgain,
            "watch again: back to the watch list, out of the archive",
            Some("watch again")
        ),
        bind!(
            Archive,
            "remove",
            [(Char('d'), NONE), (Delete, NONE)],
            "d/Del",
            Action::Remove,
            "delete the task from the archive",
            Some("delete")
        ),
        bind!(
            Archive,
            "undo",
            [(Char('u'), NONE)],
            "u",
            Action::Undo,
            "undo the last delete; again undoes the one before",
            Some("undo"),
            Priority::Low
        ),
        bind!(
            Archive,
            "filter",
            [(Char('/'), NONE)],
            "/",
            Action::FocusFilter,
            "filter by ID, label, status, kind, service, dates (finished:>2026-11-01)",
            Some("filter"),
            Priority::High
        ),
        bind!(
            Archive,
            "sort",
            [(Char('s'), NONE)],
            "s",
            Action::CycleSort,
            "sort: finished ↓ → added ↓ → task ID → status → label",
            Some("sort")
        ),
        bind!(
            Archive,
            "help",
            [(Char('?'), NONE)],
            "?",
            Action::ToggleHelp,
            "show this help",
            Some("help"),
            Priority::Always
        ),
    ]
}

/// Searching a popup's lines (the help, the request log) in `context`, described as `what`.
fn searches(context: Context, what: &'static str) -> [Binding; 3] {
    use KeyCode::Char;
    [
        bind!(
            Help,
            "search",
            [(Char('/'), NONE)],
            "/",
            Action::Search,
            "search",
            Some("search")
        ),
        bind!(
            Help,
            "next_match",
            [(Char('n'), NONE)],
            "n",
            Action::NextMatch(true),
            "the next match",
            None
        ),
        bind!(
            Help,
            "previous_match",
            [(Char('N'), SHIFT)],
            "N",
            Action::NextMatch(false),
            "the previous match",
            None
        ),
    ]
    .map(|b| Binding {
        context,
        description: if b.name == "search" {
            what
        } else {
            b.description
        },
        ..b
    })
}

/// The moves of a list (up, down, a page, the ends) in `context`, described as `what`.
fn moves(context: Context, what: [&'static str; 6]) -> [Binding; 6] {
    use KeyCode::{Char, Down, End, Home, PageDown, PageUp, Up};
    let keys = [
        ("up", Action::Up, "↑/k", [(Up, NONE), (Char('k'), NONE)]),
        (
            "down",
            Action::Down,
            "↓/j",
            [(Down, NONE), (Char('j'), NONE)],
        ),
        (
            "page_up",
            Action::PageUp,
            "PgUp/^B",
            [(PageUp, NONE), (Char('b'), CTRL)],
        ),
        (
            "page_down",
            Action::PageDown,
            "PgDn/^F",
            [(PageDown, NONE), (Char('f'), CTRL)],
        ),
        (
            "top",
            Action::Top,
            "Home/g",
            [(Home, NONE), (Char('g'), NONE)],
        ),
        (
            "bottom",
            Action::Bottom,
            "End/G",
            [(End, NONE), (Char('G'), SHIFT)],
        ),
    ];
    let mut what = what.into_iter();
    keys.map(|(name, action, label, keys)| Binding {
        context,
        name,
        keys: keys.iter().map(|(c, m)| KeyCombo::new(*c, *m)).collect(),
        label: Cow::Borrowed(label),
        action,
        description: what.next().unwrap_or_default(),
        hint: None,
        priority: Priority::Normal,
    })
}

/// One line of the help overlay, in order. The reducer counts them to know where the help
/// ends; the view styles them.
#[derive(Debug, Clone, Copy)]
pub enum HelpLine<'a> {
    /// A context's heading.
    Title(Context),
    Binding(&'a Binding),
    Blank,
    /// A closing remark.
    Note(&'static str),
}

impl HelpLine<'_> {
    /// The line's words, as a search reads them.
    pub fn text(&self) -> String {
        match self {
            HelpLine::Title(ctx) => ctx.title().to_string(),
            HelpLine::Binding(b) => format!("{} {}", b.label, b.description),
            HelpLine::Blank => String::new(),
            HelpLine::Note(text) => (*text).to_string(),
        }
    }
}

/// A key as the dispatcher compares it: shift is implied by an upper-case character
/// (terminals disagree on reporting it) and only ctrl, alt and shift count.
fn normalised(code: KeyCode, modifiers: KeyModifiers) -> (KeyCode, KeyModifiers) {
    let mut mods = modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
    if matches!(code, KeyCode::Char(_)) {
        mods -= KeyModifiers::SHIFT;
    }
    (code, mods)
}

fn matches(binding: &Binding, key: &KeyEvent) -> bool {
    let pressed = normalised(key.code, key.modifiers);
    binding
        .keys
        .iter()
        .any(|k| normalised(k.code, k.modifiers) == pressed)
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

/// The effective key bindings; the dispatcher, the hint line and the help all read it.
#[derive(Debug, Clone)]
pub struct Keymap {
    bindings: Arc<[Binding]>,
}

impl Default for Keymap {
    fn default() -> Self {
        Keymap {
            bindings: Arc::clone(bindings()),
        }
    }
}

impl Keymap {
    /// The built-in table with `[keys]` applied: each named action answers to the given keys
    /// instead of its own, in every context it has. The error names the action and the key:
    /// a key that would mean two things at once, or a plain character in a text field, where
    /// it would no longer be typed.
    pub fn configured(keys: &BTreeMap<String, Vec<KeyCombo>>) -> Result<Keymap, String> {
        let mut table = bindings().to_vec();
        for (name, combos) in keys {
            let mut found = false;
            for b in table.iter_mut().filter(|b| b.name == name) {
                found = true;
                b.keys.clone_from(combos);
                let mut labels: Vec<String> = Vec::new();
                for label in combos.iter().map(|k| key_label(*k)) {
                    if !labels.contains(&label) {
                        labels.push(label);
                    }
                }
                b.label = Cow::Owned(labels.join("/"));
                if b.context.types()
                    && let Some(k) = combos.iter().find(|k| {
                        matches!(k.code, KeyCode::Char(_))
                            && !k
                                .modifiers
                                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
                    })
                {
                    return Err(format!(
                        "keys.{name}: `{k}` would no longer be typed in the {}; bind a key \
                         with ctrl- or alt-, or a named key such as enter or f2",
                        b.context.title().to_lowercase()
                    ));
                }
            }
            if !found {
                return Err(format!("keys.{name}: no such action"));
            }
        }
        // The key that opens a view closes it too (`?` the help, `H` the archive): rebound,
        // it takes the place of the old key among the closer's, unless the closer is
        // rebound itself.
        for (opener, closer) in [("help", "close_help"), ("archive", "close_archive")] {
            let (Some(new), false) = (keys.get(opener), keys.contains_key(closer)) else {
                continue;
            };
            let Some(old) = bindings().iter().find(|b| b.name == opener) else {
                continue;
            };
            let new_label = table
                .iter()
                .find(|b| b.name == opener)
                .map_or_else(String::new, |b| b.label.to_string());
            for b in table.iter_mut().filter(|b| b.name == closer) {
                b.keys.retain(|k| !old.keys.contains(k));
                for k in new {
                    if !b.keys.contains(k) {
                        b.keys.push(*k);
                    }
                }
                let parts: Vec<&str> = b
                    .label
                    .split('/')
                    .map(|part| {
                        if part == old.label {
                            new_label.as_str()
                        } else {
                            part
                        }
                    })
                    .collect();
                b.label = Cow::Owned(parts.join("/"));
            }
        }
        conflict(&table).map_or(Ok(()), Err)?;
        Ok(Keymap {
            bindings: Arc::from(table),
        })
    }

    /// How the keys of the action named `name` (its `[keys]` name) are written, for any
    /// message that tells the user which key to press: "removed x — u undoes" follows
    /// `[keys]`. The first binding with that name gives the label; an unknown name panics in
    /// tests and says `?` otherwise, since every name is one of the table's own.
    pub fn key(&self, name: &str) -> &str {
        if let Some(b) = self.bindings.iter().find(|b| b.name == name) {
            &b.label
        } else {
            debug_assert!(false, "no action named {name}");
            "?"
        }
    }

    pub fn bindings(&self) -> &[Binding] {
        &self.bindings
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

    /// The hint line's bindings for these contexts.
    pub fn hints<'a>(&'a self, contexts: &[Context]) -> impl Iterator<Item = &'a Binding> + 'a {
        let contexts = contexts.to_vec();
        self.bindings
            .iter()
            .filter(move |b| b.hint.is_some() && contexts.contains(&b.context))
    }

    /// The help overlay's lines: each context's bindings under its title, then the mouse.
    pub fn help_lines(&self) -> Vec<HelpLine<'_>> {
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

/// The first key that means two actions in contexts that are in force together, said as an
/// error naming both.
fn conflict(table: &[Binding]) -> Option<String> {
    for together in TOGETHER {
        let mut seen: BTreeMap<String, &Binding> = BTreeMap::new();
        for b in table.iter().filter(|b| together.contains(&b.context)) {
            for k in &b.keys {
                let (code, mods) = normalised(k.code, k.modifiers);
                let id = KeyCombo::new(code, mods).to_string();
                match seen.get(&id) {
                    Some(other) if other.name != b.name => {
                        let (a, b) = if other.name < b.name {
                            (*other, b)
                        } else {
                            (b, *other)
                        };
                        return Some(format!(
                            "keys: `{k}` is bound to both `{}` ({}) and `{}` ({}); give one \
                             of them another key in [keys]",
                            a.name,
                            a.context.title().to_lowercase(),
                            b.name,
                            b.context.title().to_lowercase()
                        ));
                    }
                    _ => {
                        seen.insert(id, b);
                    }
                }
            }
        }
    }
    None
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

    /// Rebinding the key that opens the help or the archive rebinds the key that closes it,
    /// in the keys and in the label every message shows; a closer of its own stays its own.
    #[test]
    fn a_rebound_opener_closes_its_view() {
        let alt_h = KeyEvent::new(KeyCode::Char('h'), KeyModifiers::ALT);
        let shift_h = KeyEvent::new(KeyCode::Char('H'), KeyModifiers::SHIFT);
        let f1 = key(KeyCode::F(1));
        let map = configured(&[("archive", &["alt-h"]), ("help", &["f1"])]).expect("accepted");
        let archive = [Context::Archive, Context::Always];
        assert_eq!(map.resolve(&archive, &alt_h), Some(Action::ToggleArchive));
        assert_eq!(
            map.resolve(&archive, &shift_h),
            None,
            "H is no longer the archive's"
        );
        assert_eq!(
            map.resolve(&archive, &key(KeyCode::Esc)),
            Some(Action::ToggleArchive)
        );
        assert_eq!(map.key("close_archive"), "Esc/Alt-h/q");
        let help = [Context::Help, Context::Always];
        assert_eq!(map.resolve(&help, &f1), Some(Action::ToggleHelp));
        assert_eq!(map.resolve(&help, &key(KeyCode::Char('?'))), None);
        assert_eq!(map.key("close_help"), "Esc/F1");
        let own =
            configured(&[("archive", &["alt-h"]), ("close_archive", &["x"])]).expect("accepted");
        assert_eq!(own.resolve(&archive, &alt_h), None);
        assert_eq!(own.key("close_archive"), "x");
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

    /// `docs/keys.md` holds, between its markers, exactly the tables the keymap makes
    /// (`cargo run --locked --example keys_markdown -- --write` puts them there).
    #[test]
    fn docs_keys_lists_every_key_as_the_keymap_does() {
        let doc = include_str!("../../docs/keys.md");
        let begin = doc
            .find("<!-- keys:begin")
            .expect("docs/keys.md's begin marker");
        let end = doc
            .find("<!-- keys:end -->")
            .expect("docs/keys.md's end marker");
        let open = begin
            + doc[begin..end]
                .find("-->")
                .expect("the begin marker closed")
            + 3;
        assert_eq!(
            doc[open..end].trim(),
            markdown(),
            "docs/keys.md is out of date; run `cargo run --locked --example keys_markdown -- --write`"
        );
    }

    #[test]
    fn every_binding_is_described_and_no_key_means_two_things_at_once() {
        for b in bindings().iter() {
            assert!(!b.description.is_empty() && !b.label.is_empty());
        }
        assert_eq!(conflict(bindings()), None);
    }

    #[test]
    fn every_action_name_of_the_config_names_a_binding() {
        use crate::store::config::ACTION_NAMES;
        for b in bindings().iter() {
            assert!(
                ACTION_NAMES.contains(&b.name),
                "{} is not in ACTION_NAMES",
                b.name
            );
        }
        for name in ACTION_NAMES {
            assert!(
                bindings().iter().any(|b| b.name == *name),
                "ACTION_NAMES has `{name}`, which no binding answers to"
            );
        }
    }

    fn configured(pairs: &[(&str, &[&str])]) -> Result<Keymap, String> {
        let keys = pairs
            .iter()
            .map(|(name, keys)| {
                let keys = keys.iter().map(|k| k.parse().expect("a key")).collect();
                ((*name).to_string(), keys)
            })
            .collect();
        Keymap::configured(&keys)
    }

    #[test]
    fn key_names_an_actions_keys_as_configured() {
        assert_eq!(Keymap::default().key("undo"), "u");
        let map = configured(&[("undo", &["ctrl-u", "f9"])]).expect("accepted");
        assert_eq!(map.key("undo"), "^U/F9");
    }

    #[test]
    fn rebinding_replaces_an_actions_keys_in_every_context_and_labels_follow() {
        let map = configured(&[
            ("quit", &["x"]),
            ("open", &["enter", "o"]),
            ("download", &["ctrl-d"]),
            ("remove", &["delete", "shift-x"]),
        ])
        .expect("accepted");
        let watch = [Context::Watch, Context::Global, Context::Always];
        let browser = [Context::Browser, Context::Global, Context::Always];
        let ctrl_d = KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL);
        assert_eq!(map.resolve(&watch, &ctrl_d), Some(Action::Download));
        assert_eq!(
            map.resolve(&watch, &key(KeyCode::Char('D'))),
            None,
            "the old key is gone"
        );
        assert_eq!(
            map.resolve(&browser, &key(KeyCode::Char('x'))),
            Some(Action::Quit)
        );
        assert_eq!(map.resolve(&browser, &key(KeyCode::Char('q'))), None);
        // ^C still quits: `interrupt` was not rebound.
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(map.resolve(&browser, &ctrl_c), Some(Action::Quit));
        for ctx in [&watch, &browser] {
            assert_eq!(map.resolve(ctx, &key(KeyCode::Enter)), Some(Action::Open));
        }
        let label = |name: &str, ctx: Context| {
            map.bindings()
                .iter()
                .find(|b| b.name == name && b.context == ctx)
                .map(|b| b.label.to_string())
        };
        assert_eq!(label("download", Context::Watch).as_deref(), Some("^D"));
        assert_eq!(label("quit", Context::Global).as_deref(), Some("x"));
        assert_eq!(label("open", Context::Browser).as_deref(), Some("⏎/o"));
        assert_eq!(label("remove", Context::Watch).as_deref(), Some("Del/X"));
        // The hint line and the help read the same table.
        let hints: Vec<String> = map.hints(&watch).map(|b| b.label.to_string()).collect();
        assert!(hints.contains(&"^D".to_string()), "{hints:?}");
        assert!(
            map.help_lines()
                .iter()
                .any(|l| matches!(l, HelpLine::Binding(b) if b.label == "^D"))
        );
    }

    #[test]
    fn a_key_meaning_two_things_at_once_is_an_error_naming_it() {
        // `a` adds a task in either pane; in the watch list it cannot also download.
        let e = configured(&[("download", &["a"])]).expect_err("an error");
        assert!(
            e.contains("`a`") && e.contains("`add`") && e.contains("`download`"),
            "{e}"
        );
        // Two pane actions on one key.
        let e = configured(&[("undo", &["s"])]).expect_err("an error");
        assert!(
            e.contains("`s`") && e.contains("`sort`") && e.contains("`undo`"),
            "{e}"
        );
        // A key freed by rebinding its action may be taken.
        configured(&[("add", &["+"]), ("download", &["a"])]).expect("accepted");
        // Keys of contexts never in force together do not clash: `y` answers yes in the
        // question and copies in the panes.
        configured(&[("yes", &["enter"])]).expect("accepted");
        // Upper case is one key with or without a reported shift.
        let e = configured(&[("undo", &["shift-r"])]).expect_err("an error");
        assert!(e.contains("`poll_now`"), "{e}");
    }

    #[test]
    fn a_plain_character_cannot_be_bound_where_it_is_typed() {
        let e = configured(&[("submit", &["x"])]).expect_err("an error");
        assert!(
            e.starts_with("keys.submit: `x` would no longer be typed"),
            "{e}"
        );
        configured(&[("submit", &["ctrl-j"]), ("clear_input", &["alt-u"])]).expect("accepted");
        let e = configured(&[("nonsense", &["x"])]).expect_err("an error");
        assert_eq!(e, "keys.nonsense: no such action");
    }
}
