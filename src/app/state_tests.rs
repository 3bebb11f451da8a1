//! Table-driven tests of the two reducers: keys through the real keymap in every mode, the
//! watch-file gate, connection health, bells and notifications, the reducers' clock and the
//! dirty flag. No terminal, no runtime, no network: a `State`, inputs, and what comes out.

use super::*;
use crate::api::types::default_failure_statuses;
use crate::api::{ApiError, Catalogue, LoraEntry, TaskResult};
use crate::app::watch::new_entry;
use crate::cmd::PersistOp;
use crate::cmd::TaskKey;
use crate::msg::{CopiedVia, DownloadEvent};
use crate::store::watchlist::LastKnown;
use crate::store::watchlist::WatchEntry;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::sync::Arc;
use std::time::Duration;

const NOW: u64 = 1_700_000_000;

// ---- fixtures -------------------------------------------------------------------------------

fn ui(bell: bool, desktop_notifications: bool) -> UiSettings {
    UiSettings {
        bell,
        desktop_notifications,
        no_color: false,
    }
}

/// A state at `NOW` with these entries and settings, the initial redraw already done.
fn state_with(entries: Vec<WatchEntry>, settings: UiSettings) -> State {
    let mut s = State::new(Init {
        service_url: "http://127.0.0.1:8787".into(),
        categories: vec!["style".into()],
        watch: entries,
        failure_statuses: default_failure_statuses(),
        settings,
        now: NOW,
        ..Init::default()
    });
    s.dirty = false;
    s
}

/// One running task (`w-1`, last seen at 40%), bell and notifications on.
fn state() -> State {
    state_with(
        vec![entry("w-1", Some(("IN_PROGRESS", 40)))],
        ui(true, true),
    )
}

/// An image task added 30 s ago, with this last known status (as a poll would have saved it).
fn entry(id: &str, last: Option<(&str, u8)>) -> WatchEntry {
    WatchEntry {
        task_id: id.into(),
        kind: TaskKind::Image,
        added_at: NOW - 30,
        service: None,
        saved: None,
        auto_download: None,
        trouble: None,
        claimed_by: None,
        last: last.map(|(status, percent)| LastKnown {
            status: status.into(),
            percent,
            url_download: download_url(id, status),
            updated_at: NOW - 10,
            ..LastKnown::default()
        }),
    }
}

fn image(id: &str) -> TaskKey {
    TaskKey::new(TaskKind::Image, id)
}

use crate::testing::{download_url, task_result as result};

fn polled(id: &str, result: Result<TaskResult, ApiError>) -> Msg {
    Msg::Polled {
        key: image(id),
        result,
        retry_in: None,
    }
}

fn ok_poll(id: &str, status: &str, percent: u8) -> Msg {
    polled(id, Ok(result(id, status, percent)))
}

fn catalogue(generation: u64, result: Result<Catalogue, ApiError>) -> Msg {
    Msg::Catalogue { generation, result }
}

fn http(status: u16) -> ApiError {
    ApiError::Http {
        status,
        excerpt: "body".into(),
        retry_after: None,
    }
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn ch(c: char) -> KeyEvent {
    key(KeyCode::Char(c))
}

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

/// A key as the event loop handles it: resolved in the current contexts, then reduced.
fn press(s: &mut State, k: KeyEvent) -> (Option<Action>, Vec<Cmd>) {
    let action = Keymap::default().resolve(&s.contexts(), &k);
    let cmds = action.clone().map(|a| s.update(a)).unwrap_or_default();
    (action, cmds)
}

/// The commands by name, for compact tables.
fn kinds(cmds: &[Cmd]) -> Vec<&'static str> {
    cmds.iter()
        .map(|c| match c {
            Cmd::FetchCatalogue { .. } => "FetchCatalogue",
            Cmd::Watch(..) => "Watch",
            Cmd::Unwatch(_) => "Unwatch",
            Cmd::PollNow(_) => "PollNow",
            Cmd::Prefer(_) => "Prefer",
            Cmd::Persist(PersistOp::Add(_)) => "Persist(Add)",
            Cmd::Persist(PersistOp::Remove(_)) => "Persist(Remove)",
            Cmd::Persist(PersistOp::Status(..)) => "Persist(Status)",
            Cmd::Persist(PersistOp::Adopt(_)) => "Persist(Adopt)",
            Cmd::Persist(PersistOp::Saved(..)) => "Persist(Saved)",
            Cmd::Persist(PersistOp::AutoDownload(..)) => "Persist(AutoDownload)",
            Cmd::Persist(PersistOp::Trouble(..)) => "Persist(Trouble)",
            Cmd::Persist(PersistOp::Claim(_)) => "Persist(Claim)",
            Cmd::Open(_) => "Open",
            Cmd::OpenFile(_) => "OpenFile",
            Cmd::Copy(_) => "Copy",
            Cmd::CopyToTerminal { .. } => "CopyToTerminal",
            Cmd::Download(_) => "Download",
            Cmd::Notify { .. } => "Notify",
            Cmd::RememberCategories(_) => "RememberCategories",
            Cmd::RememberSort(_) => "RememberSort",
            Cmd::RememberFavourites(_) => "RememberFavourites",
            Cmd::Preview(_) => "Preview",
            Cmd::Finished(_) => "Finished",
            Cmd::Rank { .. } => "Rank",
            Cmd::Bell => "Bell",
        })
        .collect()
}

/// The status bar's notice, if one is shown.
fn notice(s: &State) -> Option<&str> {
    s.notice.as_ref().map(|n| n.text.as_str())
}

fn row_ids(s: &State) -> Vec<&str> {
    s.watch
        .rows
        .iter()
        .map(|r| r.entry.task_id.as_str())
        .collect()
}

// ---- modes ----------------------------------------------------------------------------------

/// Where the keyboard is, each reached through the reducer itself.
#[derive(Debug, Clone, Copy)]
enum Mode {
    /// No popup, the browser focused.
    Browser,
    /// No popup, the browser focused, a filter `w` applied and the field left.
    Filtered,
    /// No popup, the watch list focused.
    Watch,
    /// Typing in the filter field (`Field::Filter`), `w` typed so far.
    Filter,
    /// Typing in the category field, this draft typed so far.
    Category(&'static str),
    Help,
    /// The add dialog, this text typed so far.
    Add(&'static str),
}

const MODES: [Mode; 9] = [
    Mode::Browser,
    Mode::Filtered,
    Mode::Watch,
    Mode::Filter,
    Mode::Category(""),
    Mode::Category("sty"),
    Mode::Help,
    Mode::Add(""),
    Mode::Add("x-1"),
];

fn enter(mode: Mode) -> State {
    let mut s = state();
    let steps = match mode {
        Mode::Browser => vec![],
        Mode::Filtered => vec![Action::FocusFilter, Action::Type('w'), Action::Cancel],
        Mode::Watch => vec![Action::FocusNext],
        Mode::Filter => vec![Action::FocusFilter, Action::Type('w')],
        Mode::Category(draft) => vec![Action::EditCategory, Action::Paste(draft.into())],
        Mode::Help => vec![Action::ToggleHelp],
        Mode::Add(text) => vec![Action::OpenAddDialog, Action::Paste(text.into())],
    };
    for a in steps {
        assert!(s.update(a).is_empty(), "entering {mode:?} sends nothing");
    }
    s.dirty = false;
    s
}

/// What a key may change, compared whole so that a case also shows what did not change.
#[derive(Debug, Clone, PartialEq)]
struct Snap {
    focus: Pane,
    popup: Option<Popup>,
    editing: Option<Field>,
    query: String,
    category: String,
    category_draft: String,
    rows: Vec<String>,
    quit: Option<Quit>,
    notice: Option<String>,
    persist_sent: u64,
}

impl Snap {
    fn of(s: &State) -> Self {
        Snap {
            focus: s.focus,
            popup: s.popup.clone(),
            editing: s.browser.editing,
            query: s.browser.query.clone(),
            category: s.browser.category.clone(),
            category_draft: s.browser.category_draft.clone(),
            rows: row_ids(s).into_iter().map(String::from).collect(),
            quit: s.quit,
            notice: notice(s).map(String::from),
            persist_sent: s.persist_sent,
        }
    }

    fn dialog(&mut self) -> &mut AddDialog {
        match &mut self.popup {
            Some(Popup::Add(d)) => d,
            other => panic!("expected the add dialog, got {other:?}"),
        }
    }
}

// ---- 1. routing of keys by mode -------------------------------------------------------------

#[test]
fn contexts_by_mode() {
    use Context as C;
    let cases: [(Mode, &[Context]); 9] = [
        (Mode::Browser, &[C::Browser, C::Global, C::Always]),
        (Mode::Filtered, &[C::Browser, C::Global, C::Always]),
        (Mode::Watch, &[C::Watch, C::Global, C::Always]),
        (Mode::Filter, &[C::TextInput, C::Always]),
        (Mode::Category(""), &[C::TextInput, C::Always]),
        (Mode::Category("sty"), &[C::TextInput, C::Always]),
        (Mode::Help, &[C::Help, C::Always]),
        (Mode::Add(""), &[C::AddDialog, C::Always]),
        (Mode::Add("x-1"), &[C::AddDialog, C::Always]),
    ];
    for (mode, expected) in cases {
        assert_eq!(enter(mode).contexts(), expected, "{mode:?}");
    }
    // A popup wins over a field being edited behind it.
    let mut s = enter(Mode::Filter);
    s.popup = Some(Popup::Help { scroll: 0 });
    assert_eq!(s.contexts(), [C::Help, C::Always]);
}

struct KeyCase {
    name: &'static str,
    mode: Mode,
    key: KeyEvent,
    action: Option<Action>,
    /// The expected change, applied to the state as it was before the key.
    change: fn(&mut Snap),
    cmds: &'static [&'static str],
}

fn unchanged(_: &mut Snap) {}

fn empty_dialog() -> Popup {
    Popup::Add(AddDialog {
        text: String::new(),
        kind: TaskKind::Image,
        error: None,
    })
}

// A data table: splitting it would only scatter the cases.
#[allow(clippy::too_many_lines)]
fn key_cases() -> Vec<KeyCase> {
    use Action as A;
    use KeyCode as K;
    fn case(
        name: &'static str,
        mode: Mode,
        key: KeyEvent,
        action: Option<Action>,
        change: fn(&mut Snap),
        cmds: &'static [&'static str],
    ) -> KeyCase {
        KeyCase {
            name,
            mode,
            key,
            action,
            change,
            cmds,
        }
    }
    vec![
        // q: quits outside text, is text inside it, closes the help.
        case(
            "q quits (browser)",
            Mode::Browser,
            ch('q'),
            Some(A::Quit),
            |s| s.quit = Some(Quit::User),
            &[],
        ),
        case(
            "q quits (watch)",
            Mode::Watch,
            ch('q'),
            Some(A::Quit),
            |s| s.quit = Some(Quit::User),
            &[],
        ),
        case(
            "Ctrl-C quits",
            Mode::Browser,
            ctrl('c'),
            Some(A::Quit),
            |s| s.quit = Some(Quit::User),
            &[],
        ),
        case(
            "q types into the filter",
            Mode::Filter,
            ch('q'),
            Some(A::Type('q')),
            |s| s.query = "wq".into(),
            &[],
        ),
        case(
            "q types into the category",
            Mode::Category("sty"),
            ch('q'),
            Some(A::Type('q')),
            |s| s.category_draft = "styq".into(),
            &[],
        ),
        case(
            "q types into the add dialog",
            Mode::Add("x-1"),
            ch('q'),
            Some(A::Type('q')),
            |s| s.dialog().text = "x-1q".into(),
            &[],
        ),
        case(
            "q closes the help",
            Mode::Help,
            ch('q'),
            Some(A::ToggleHelp),
            |s| s.popup = None,
            &[],
        ),
        // Esc.
        case(
            "Esc closes the help",
            Mode::Help,
            key(K::Esc),
            Some(A::ToggleHelp),
            |s| s.popup = None,
            &[],
        ),
        case(
            "Esc cancels the add dialog",
            Mode::Add("x-1"),
            key(K::Esc),
            Some(A::Cancel),
            |s| s.popup = None,
            &[],
        ),
        case(
            "Esc clears the query",
            Mode::Filtered,
            key(K::Esc),
            Some(A::Cancel),
            |s| s.query.clear(),
            &[],
        ),
        case(
            "Esc with no query does nothing",
            Mode::Browser,
            key(K::Esc),
            Some(A::Cancel),
            unchanged,
            &[],
        ),
        case(
            "Esc leaves the filter, which stays",
            Mode::Filter,
            key(K::Esc),
            Some(A::Cancel),
            |s| s.editing = None,
            &[],
        ),
        case(
            "Esc drops a half-typed category",
            Mode::Category("sty"),
            key(K::Esc),
            Some(A::Cancel),
            |s| s.editing = None,
            &[],
        ),
        case(
            "Esc with no filter and nothing marked changes nothing in the watch list",
            Mode::Watch,
            key(K::Esc),
            Some(A::Cancel),
            unchanged,
            &[],
        ),
        // Tab.
        case(
            "Tab: browser to watch",
            Mode::Browser,
            key(K::Tab),
            Some(A::FocusNext),
            |s| s.focus = Pane::Watch,
            &[],
        ),
        case(
            "Tab: watch to browser",
            Mode::Watch,
            key(K::Tab),
            Some(A::FocusNext),
            |s| s.focus = Pane::Browser,
            &[],
        ),
        case(
            "Shift-Tab switches too",
            Mode::Browser,
            KeyEvent::new(K::BackTab, KeyModifiers::SHIFT),
            Some(A::FocusNext),
            |s| s.focus = Pane::Watch,
            &[],
        ),
        case(
            "Tab toggles the dialog's kind",
            Mode::Add(""),
            key(K::Tab),
            Some(A::ToggleKind),
            |s| s.dialog().kind = TaskKind::Video,
            &[],
        ),
        case(
            "Tab is inert in the filter",
            Mode::Filter,
            key(K::Tab),
            None,
            unchanged,
            &[],
        ),
        // ? and a.
        case(
            "? opens the help (browser)",
            Mode::Browser,
            ch('?'),
            Some(A::ToggleHelp),
            |s| s.popup = Some(Popup::Help { scroll: 0 }),
            &[],
        ),
        case(
            "? opens the help (watch)",
            Mode::Watch,
            ch('?'),
            Some(A::ToggleHelp),
            |s| s.popup = Some(Popup::Help { scroll: 0 }),
            &[],
        ),
        case(
            "? types into the filter",
            Mode::Filter,
            ch('?'),
            Some(A::Type('?')),
            |s| s.query = "w?".into(),
            &[],
        ),
        case(
            "? closes the help",
            Mode::Help,
            ch('?'),
            Some(A::ToggleHelp),
            |s| s.popup = None,
            &[],
        ),
        case(
            "j scrolls the help",
            Mode::Help,
            ch('j'),
            Some(A::Down),
            |s| s.popup = Some(Popup::Help { scroll: 1 }),
            &[],
        ),
        case(
            "a opens the add dialog (browser)",
            Mode::Browser,
            ch('a'),
            Some(A::OpenAddDialog),
            |s| s.popup = Some(empty_dialog()),
            &[],
        ),
        case(
            "a opens the add dialog (watch)",
            Mode::Watch,
            ch('a'),
            Some(A::OpenAddDialog),
            |s| s.popup = Some(empty_dialog()),
            &[],
        ),
        case(
            "a types into the add dialog",
            Mode::Add("x-1"),
            ch('a'),
            Some(A::Type('a')),
            |s| s.dialog().text = "x-1a".into(),
            &[],
        ),
        case(
            "j types into the filter",
            Mode::Filter,
            ch('j'),
            Some(A::Type('j')),
            |s| s.query = "wj".into(),
            &[],
        ),
        // Enter.
        case(
            "Enter adds the dialog's IDs",
            Mode::Add("n-1, n-2"),
            key(K::Enter),
            Some(A::Submit),
            |s| {
                s.popup = None;
                s.focus = Pane::Watch;
                s.rows.extend(["n-1".into(), "n-2".into()]);
                s.notice = Some("added 2 tasks".into());
                s.persist_sent = 1;
            },
            &["Persist(Add)", "Watch", "Watch", "Prefer"],
        ),
        case(
            "Enter with no IDs keeps the dialog and says why",
            Mode::Add(""),
            key(K::Enter),
            Some(A::Submit),
            |s| s.dialog().error = Some("type or paste at least one task ID".into()),
            &[],
        ),
        case(
            "Enter leaves the filter",
            Mode::Filter,
            key(K::Enter),
            Some(A::Submit),
            |s| s.editing = None,
            &[],
        ),
        case(
            "Enter applies a category",
            Mode::Category("style"),
            key(K::Enter),
            Some(A::Submit),
            |s| {
                s.editing = None;
                s.category = "style".into();
            },
            // Remembered once the service lists something for it.
            &["FetchCatalogue"],
        ),
        case(
            "Down picks a known category",
            Mode::Category(""),
            key(K::Down),
            Some(A::PickNext),
            |s| s.category_draft = "style".into(),
            &[],
        ),
        case(
            "Enter opens nothing without a selection",
            Mode::Browser,
            key(K::Enter),
            Some(A::Open),
            |s| s.notice = Some("this model has no source URL".into()),
            &[],
        ),
        // Other keys of each mode.
        case(
            "/ starts the filter",
            Mode::Browser,
            ch('/'),
            Some(A::FocusFilter),
            |s| s.editing = Some(Field::Filter),
            &[],
        ),
        case(
            "c starts the category",
            Mode::Browser,
            ch('c'),
            Some(A::EditCategory),
            |s| s.editing = Some(Field::Category),
            &[],
        ),
        case(
            "Backspace in the filter",
            Mode::Filter,
            key(K::Backspace),
            Some(A::Backspace),
            |s| s.query.clear(),
            &[],
        ),
        case(
            "Ctrl-U clears the dialog",
            Mode::Add("x-1"),
            ctrl('u'),
            Some(A::ClearInput),
            |s| s.dialog().text.clear(),
            &[],
        ),
        case(
            "d removes in the watch list",
            Mode::Watch,
            ch('d'),
            Some(A::Remove),
            |s| {
                s.rows.clear();
                s.notice = Some("removed w-1 — u undoes".into());
                s.persist_sent = 1;
            },
            &["Unwatch", "Persist(Remove)", "Prefer"],
        ),
        case(
            "d is unbound in the browser",
            Mode::Browser,
            ch('d'),
            None,
            unchanged,
            &[],
        ),
        case(
            "R polls the selected task now",
            Mode::Watch,
            ch('R'),
            Some(A::PollNow),
            |s| s.notice = Some("asking the service for w-1 now".into()),
            &["PollNow"],
        ),
        case(
            "r reloads the catalogue",
            Mode::Browser,
            ch('r'),
            Some(A::Refresh),
            |s| s.notice = Some("reloading the catalogue".into()),
            &["FetchCatalogue"],
        ),
        case(
            "Ctrl-Z asks to suspend",
            Mode::Watch,
            ctrl('z'),
            Some(A::Suspend),
            unchanged,
            &[],
        ),
    ]
}

#[test]
fn keys_route_by_mode() {
    let cases = key_cases();
    for c in &cases {
        let mut s = enter(c.mode);
        let mut expected = Snap::of(&s);
        (c.change)(&mut expected);
        let (action, cmds) = press(&mut s, c.key);
        assert_eq!(action, c.action, "{}: action", c.name);
        assert_eq!(kinds(&cmds), c.cmds, "{}: commands", c.name);
        assert_eq!(Snap::of(&s), expected, "{}: state", c.name);
    }
    assert_eq!(cases.len(), 43);
}

#[test]
fn ctrl_z_asks_to_suspend_once() {
    let mut s = enter(Mode::Browser);
    assert!(!s.take_suspend());
    let (action, cmds) = press(&mut s, ctrl('z'));
    assert_eq!((action, cmds), (Some(Action::Suspend), Vec::new()));
    assert!(s.take_suspend(), "asked");
    assert!(!s.take_suspend(), "taken once");
    assert_eq!(s.quit, None);
}

#[test]
fn ctrl_c_and_ctrl_z_work_in_every_mode_even_while_typing() {
    for mode in MODES {
        let mut s = enter(mode);
        assert_eq!(press(&mut s, ctrl('c')).0, Some(Action::Quit), "{mode:?}");
        assert_eq!(s.quit, Some(Quit::User), "{mode:?}");
        let mut s = enter(mode);
        assert_eq!(
            press(&mut s, ctrl('z')).0,
            Some(Action::Suspend),
            "{mode:?}"
        );
        assert!(s.take_suspend(), "{mode:?}");
        assert_eq!(s.quit, None, "{mode:?}");
    }
}

#[test]
fn pasted_and_typed_text_is_cleaned_before_a_field_keeps_it() {
    let hostile = "ab\u{1b}[2J\u{1b}]0;t\u{7}c\u{202e}d\u{9b}31m";
    // In the filter: escape sequences, controls and bidi overrides are gone.
    let mut s = enter(Mode::Filter);
    let before = s.browser.query.clone();
    s.update(Action::Paste(hostile.into()));
    s.update(Action::Type('\u{1b}'));
    s.update(Action::Type('\u{7}'));
    assert_eq!(s.browser.query, format!("{before}abcd"));
    // In the add dialog, line breaks and tabs still separate task IDs.
    let mut s = enter(Mode::Add(""));
    s.update(Action::Paste("id-1\r\nid-2\tid-3\n".into()));
    let Some(Popup::Add(dialog)) = &s.popup else {
        panic!("the add dialog stays open");
    };
    let text = dialog.text.clone();
    assert_eq!(
        text.split_whitespace().collect::<Vec<_>>(),
        ["id-1", "id-2", "id-3"]
    );
    assert!(text.chars().all(|c| !c.is_control()), "{text:?}");
}

/// A paste into the add dialog with an ID holding control or invisible characters is refused
/// whole, the error naming the ID escaped; nothing of it reaches the field or the list.
#[test]
fn pasted_ids_with_control_characters_are_refused_naming_them() {
    let cases = [
        ("id-1\nid-2\tid-3\u{1b}[31m\n", r#""id-3\u{1b}[31m""#),
        ("id-\u{1b}]0;pwned\u{7}x", r#""id-\u{1b}]0;pwned\u{7}x""#),
        ("\u{1b}[31m", r#""\u{1b}[31m""#),
        ("ok rtl\u{202e}gpj.exe", r#""rtl\u{202e}gpj.exe""#),
    ];
    for (paste, shown) in cases {
        let mut s = enter(Mode::Add("w-9 "));
        s.update(Action::Paste(paste.into()));
        let Some(Popup::Add(dialog)) = &s.popup else {
            panic!("the add dialog stays open");
        };
        assert_eq!(dialog.text, "w-9 ", "{paste:?}: the field is as it was");
        assert_eq!(
            dialog.error.as_deref(),
            Some(
                format!("not added: task ID {shown} holds control or invisible characters")
                    .as_str()
            ),
            "{paste:?}"
        );
        let cmds = s.update(Action::Submit);
        assert!(
            cmds.iter().all(|c| !format!("{c:?}").contains("\\u{")),
            "{paste:?}: {cmds:?}"
        );
        assert!(
            row_ids(&s).iter().all(|id| !id.contains('\u{1b}')),
            "{paste:?}"
        );
    }
}

#[test]
fn clicking_the_watch_pane_anywhere_leaves_the_filter() {
    let mut s = enter(Mode::Filter);
    s.update(Action::Resize {
        width: 120,
        height: 40,
    });
    let header = s.areas.watch_header;
    s.update(Action::Click {
        column: header.x,
        row: header.y,
    });
    assert_eq!((s.focus, s.browser.editing), (Pane::Watch, None));
    assert_eq!(
        s.contexts(),
        [Context::Watch, Context::Global, Context::Always]
    );
}

#[test]
fn a_signal_ends_and_suspend_works_in_every_mode() {
    for mode in MODES {
        let mut s = enter(mode);
        let before = Snap::of(&s);
        assert!(s.update(Action::Terminate(15)).is_empty());
        assert_eq!(s.quit, Some(Quit::Signal(15)), "{mode:?}");
        assert_eq!(
            Snap {
                quit: None,
                ..Snap::of(&s)
            },
            before,
            "{mode:?}: nothing else changes"
        );

        let mut s = enter(mode);
        assert!(s.update(Action::Suspend).is_empty());
        assert!(s.take_suspend() && !s.take_suspend(), "{mode:?}");
        assert_eq!(s.quit, None, "{mode:?}");
    }
}

struct AddCase {
    text: &'static str,
    video: bool,
    cmds: Vec<Cmd>,
    error: Option<&'static str>,
    notice: Option<&'static str>,
}

// A data table: splitting it would only scatter the cases.
#[allow(clippy::too_many_lines)]
fn add_cases() -> Vec<AddCase> {
    let added = |kind: TaskKind, ids: &[&str]| {
        let entries = ids
            .iter()
            .map(|id| WatchEntry {
                // Added tasks remember the service they were added for.
                service: Some("http://127.0.0.1:8787".into()),
                saved: None,
                auto_download: None,
                claimed_by: None,
                ..new_entry(id, kind, NOW)
            })
            .collect::<Vec<_>>();
        let mut cmds = vec![Cmd::Persist(PersistOp::Add(entries))];
        cmds.extend(
            ids.iter()
                .map(|id| Cmd::Watch(TaskKey::new(kind, *id), None)),
        );
        // All rows fit on screen: the new ones join `w-1` among those polled first.
        let shown =
            std::iter::once(image("w-1")).chain(ids.iter().map(|id| TaskKey::new(kind, *id)));
        cmds.push(Cmd::Prefer(shown.collect()));
        cmds
    };
    vec![
        AddCase {
            text: "n-1",
            video: false,
            cmds: added(TaskKind::Image, &["n-1"]),
            error: None,
            notice: Some("added n-1"),
        },
        AddCase {
            text: "n-1 n-2,n-3\nn-1",
            video: false,
            cmds: added(TaskKind::Image, &["n-1", "n-2", "n-3"]),
            error: None,
            notice: Some("added 3 tasks"),
        },
        AddCase {
            text: "v-1",
            video: true,
            cmds: added(TaskKind::Video, &["v-1"]),
            error: None,
            notice: Some("added v-1"),
        },
        AddCase {
            text: "w-1",
            video: false,
            cmds: Vec::new(),
            error: None,
            notice: Some("already watching w-1 (as image)"),
        },
        // Those already on the list are counted, not added again.
        AddCase {
            text: "n-1 w-1 n-2",
            video: false,
            cmds: added(TaskKind::Image, &["n-1", "n-2"]),
            error: None,
            notice: Some("added 2 tasks; already watching w-1 (as image)"),
        },
        AddCase {
            text: "w-1 n-1 w-1",
            video: false,
            cmds: added(TaskKind::Image, &["n-1"]),
            error: None,
            notice: Some("added n-1; already watching w-1 (as image)"),
        },
        // The same ID as a video is the same task: not added again, and the dialog says as
        // what it is watched.
        AddCase {
            text: "w-1 v-2",
            video: true,
            cmds: added(TaskKind::Video, &["v-2"]),
            error: None,
            notice: Some("added v-2; already watching w-1 (as image)"),
        },
        AddCase {
            text: "",
            video: false,
            cmds: Vec::new(),
            error: Some("type or paste at least one task ID"),
            notice: None,
        },
        AddCase {
            text: " ,\n\t,",
            video: false,
            cmds: Vec::new(),
            error: Some("type or paste at least one task ID"),
            notice: None,
        },
        AddCase {
            text: "..",
            video: false,
            cmds: Vec::new(),
            error: Some("`..` is not a valid task ID"),
            notice: None,
        },
        AddCase {
            text: "ok-1 ..",
            video: false,
            cmds: Vec::new(),
            error: Some("ID 2 of 2: `..` is not a valid task ID"),
            notice: None,
        },
    ]
}

/// The add dialog's Enter, in detail: which entries, which commands, which message.
#[test]
fn the_add_dialog_submits_valid_ids_only() {
    let cases = add_cases();
    for c in &cases {
        let mut s = enter(Mode::Add(c.text));
        if c.video {
            s.update(Action::ToggleKind);
        }
        let before = row_ids(&s).len();
        let cmds = s.update(Action::Submit);
        assert_eq!(cmds, c.cmds, "{:?}", c.text);
        assert_eq!(notice(&s), c.notice, "{:?}", c.text);
        if let Some(e) = c.error {
            let Some(Popup::Add(d)) = &s.popup else {
                panic!("{:?}: the dialog stays open", c.text)
            };
            assert_eq!(d.error.as_deref(), Some(e), "{:?}", c.text);
            assert_eq!(row_ids(&s).len(), before, "{:?}", c.text);
        } else {
            assert_eq!(s.popup, None, "{:?}", c.text);
            assert_eq!(s.focus, Pane::Watch, "{:?}", c.text);
            assert!(row_ids(&s).iter().all(|id| !id.is_empty()), "{:?}", c.text);
        }
    }
}

/// Every edit of the add dialog's text or kind clears an error found in what was there before;
/// other keys leave it.
#[test]
fn an_add_dialog_error_goes_with_the_next_edit() {
    let cases: [(Action, bool); 8] = [
        (Action::Type('x'), true),
        (Action::Paste("y-1".into()), true),
        (Action::Backspace, true),
        (Action::ClearInput, true),
        (Action::ToggleKind, true),
        (Action::Up, false),
        (Action::Refresh, false),
        (Action::Undo, false),
    ];
    for (action, clears) in cases {
        let mut s = enter(Mode::Add("ok-1 .."));
        s.update(Action::Submit);
        let error = |s: &State| match &s.popup {
            Some(Popup::Add(d)) => d.error.clone(),
            other => panic!("the dialog stays open: {other:?}"),
        };
        assert_eq!(
            error(&s).as_deref(),
            Some("ID 2 of 2: `..` is not a valid task ID")
        );
        s.dirty = false;
        s.update(action.clone());
        assert_eq!(error(&s).is_none(), clears, "{action:?}");
        assert!(s.dirty, "{action:?}");
    }
}

/// (what, how the state got there, the key's action, the notice after it, the commands)
type NoticeCase = (
    &'static str,
    Setup,
    Action,
    Option<&'static str>,
    &'static [&'static str],
);

/// The watch list focused on four tasks: `run-1` (running, no URL yet), `done-1` (completed,
/// with its URL), `bad-1` (failed) and `new-1` (never polled); `run-1` selected.
fn four_tasks() -> State {
    let mut s = state_with(
        vec![
            entry("run-1", Some(("IN_PROGRESS", 40))),
            entry("done-1", Some(("COMPLETED", 100))),
            entry("bad-1", Some(("FAILED", 30))),
            entry("new-1", None),
        ],
        ui(false, false),
    );
    s.update(Action::FocusNext);
    s.notice = None;
    s
}

// A data table: splitting it would only scatter the cases.
#[allow(clippy::too_many_lines)]
fn notice_cases() -> Vec<NoticeCase> {
    fn select(s: &mut State, id: &str) {
        let i = row_ids(s).iter().position(|r| *r == id).expect("listed");
        s.watch.select(i);
    }
    vec![
        (
            "o on a running task",
            |_| {},
            Action::Open,
            Some("run-1 has no download URL yet"),
            &[],
        ),
        (
            "o on a failed task",
            |s| select(s, "bad-1"),
            Action::Open,
            Some("bad-1 failed: no file to open"),
            &[],
        ),
        (
            "D on a failed task",
            |s| select(s, "bad-1"),
            Action::Download,
            Some("bad-1 failed: no file to download"),
            &[],
        ),
        (
            "D on a task never polled",
            |s| select(s, "new-1"),
            Action::Download,
            Some("new-1 has no download URL yet"),
            &[],
        ),
        (
            "o on a completed task opens, the opener's answer says so",
            |s| select(s, "done-1"),
            Action::Open,
            None,
            &["Open"],
        ),
        (
            "D on a completed task downloads, the row shows it",
            |s| select(s, "done-1"),
            Action::Download,
            None,
            &["Download"],
        ),
        (
            "R on the selected task",
            |s| select(s, "bad-1"),
            Action::PollNow,
            Some("asking the service for bad-1 now"),
            &["PollNow"],
        ),
        (
            "d names the task removed",
            |s| select(s, "done-1"),
            Action::Remove,
            Some("removed done-1 — u undoes"),
            &["Unwatch", "Persist(Remove)", "Prefer"],
        ),
        (
            "u after d names the task restored, and replaces the removal's notice",
            |s| {
                select(s, "run-1");
                s.update(Action::Remove);
            },
            Action::Undo,
            Some("restored run-1"),
            &["Persist(Add)", "Watch", "Prefer"],
        ),
        (
            "u after adding one task",
            |s| {
                s.update(Action::OpenAddDialog);
                s.update(Action::Paste("n-1".into()));
                s.update(Action::Submit);
            },
            Action::Undo,
            Some("took back n-1"),
            &["Unwatch", "Persist(Remove)", "Prefer"],
        ),
        (
            "u after adding three tasks",
            |s| {
                s.update(Action::OpenAddDialog);
                s.update(Action::Paste("n-1 n-2 n-3".into()));
                s.update(Action::Submit);
            },
            Action::Undo,
            Some("took back 3 tasks"),
            &["Unwatch", "Unwatch", "Unwatch", "Persist(Remove)", "Prefer"],
        ),
        (
            "u after a removal another process undid already",
            |s| {
                select(s, "bad-1");
                s.update(Action::Remove);
                let mut entries: Vec<WatchEntry> =
                    s.watch.rows.iter().map(|r| r.entry.clone()).collect();
                entries.push(entry("bad-1", Some(("FAILED", 30))));
                s.apply(Msg::WatchFile {
                    entries,
                    applied: u64::MAX,
                });
            },
            Action::Undo,
            Some("nothing to restore: those tasks are on the list again"),
            &["Persist(Add)"],
        ),
        (
            "D on an empty list",
            |s| {
                for _ in 0..4 {
                    s.update(Action::Remove);
                }
            },
            Action::Download,
            Some("no task selected: the watch list is empty (a adds tasks)"),
            &[],
        ),
        (
            "u with nothing to undo",
            |_| {},
            Action::Undo,
            Some("nothing to undo"),
            &[],
        ),
        (
            "r in the browser",
            |s| {
                s.update(Action::FocusNext);
            },
            Action::Refresh,
            Some("reloading the catalogue"),
            &["FetchCatalogue"],
        ),
    ]
}

#[test]
fn messages_name_the_task_they_are_about() {
    let cases = notice_cases();
    assert_eq!(cases.len(), 15);
    for (name, setup, action, expected, cmds) in cases {
        let mut s = four_tasks();
        setup(&mut s);
        let before = s.notice.clone();
        let got = s.update(action);
        assert_eq!(kinds(&got), cmds, "{name}: commands");
        match expected {
            Some(text) => {
                assert_eq!(notice(&s), Some(text), "{name}");
                assert_eq!(
                    s.notice.as_ref().map(|n| n.until),
                    Some(s.now + NOTICE_SECONDS),
                    "{name}"
                );
            }
            None => assert_eq!(s.notice, before, "{name}: no new notice"),
        }
    }
}

/// A notice shown at `NOW` goes with the first tick at or past `NOW + NOTICE_SECONDS`; that
/// tick redraws, the ticks before it do not (no task on the list: no age label to change).
#[test]
fn notices_expire_on_the_reducers_clock_and_redraw_only_when_they_go() {
    // (the ticks after the notice, seconds after NOW: shown after each, redrawn by each)
    let cases: [&[(u64, bool, bool)]; 5] = [
        &[
            (1, true, false),
            (4, true, false),
            (5, false, true),
            (6, false, false),
        ],
        &[(5, false, true)],
        &[(0, true, false), (3, true, false), (900, false, true)],
        // A clock that stepped back keeps the notice until the time comes again.
        &[(2, true, false), (1, true, false), (5, false, true)],
        &[(100, false, true), (101, false, false)],
    ];
    for ticks in cases {
        let mut s = state_with(Vec::new(), ui(false, false));
        // The first tick draws the ages it found; those after it redraw only for a change.
        s.apply(Msg::Tick(NOW));
        s.update(Action::Refresh);
        assert_eq!(notice(&s), Some("reloading the catalogue"));
        for &(at, shown, redraw) in ticks {
            s.dirty = false;
            assert!(s.apply(Msg::Tick(NOW + at)).is_empty());
            assert_eq!(s.notice.is_some(), shown, "{ticks:?}: at +{at}");
            assert_eq!(s.dirty, redraw, "{ticks:?}: at +{at}");
        }
    }
    // A newer notice replaces the older one, and lives its own five seconds.
    let mut s = state_with(Vec::new(), ui(false, false));
    s.update(Action::Refresh);
    s.apply(Msg::Tick(NOW + 3));
    s.update(Action::CopyName);
    s.apply(Msg::Tick(NOW + 5));
    assert_eq!(notice(&s), Some("no model name to copy"));
    s.apply(Msg::Tick(NOW + 8));
    assert_eq!(s.notice, None);
}

// ---- 2. watch-file gating -------------------------------------------------------------------

#[test]
fn watch_file_snapshots_are_merged_only_once_they_include_every_op_sent() {
    // Two tasks on the list, then one added through the dialog: one op sent.
    let setup = || {
        let mut s = state_with(
            vec![entry("a", None), entry("b", Some(("IN_PROGRESS", 5)))],
            ui(true, true),
        );
        s.update(Action::OpenAddDialog);
        s.update(Action::Paste("c".into()));
        s.update(Action::Submit);
        assert_eq!(s.persist_sent, 1);
        s.dirty = false;
        s
    };
    // Another process removed `a` and added `ext` (running) and `fin` (already completed).
    let disk = vec![
        entry("b", Some(("IN_PROGRESS", 5))),
        entry("c", None),
        entry("ext", None),
        entry("fin", Some(("COMPLETED", 100))),
    ];
    let merged = vec![
        Cmd::Unwatch(image("a")),
        Cmd::Watch(image("ext"), None),
        Cmd::Prefer(["b", "c", "ext", "fin"].map(image).to_vec()),
    ];
    let cases: [(u64, &[&str], Vec<Cmd>, bool); 4] = [
        (0, &["a", "b", "c"], Vec::new(), false),
        (1, &["b", "c", "ext", "fin"], merged.clone(), true),
        (2, &["b", "c", "ext", "fin"], merged.clone(), true),
        (u64::MAX, &["b", "c", "ext", "fin"], merged, true),
    ];
    for (applied, rows, cmds, dirty) in cases {
        let mut s = setup();
        let got = s.apply(Msg::WatchFile {
            entries: disk.clone(),
            applied,
        });
        assert_eq!(got, cmds, "applied {applied}");
        assert_eq!(row_ids(&s), rows, "applied {applied}");
        assert_eq!(s.dirty, dirty, "applied {applied}");
        assert_eq!(s.persist_sent, 1, "merging sends no ops");
    }
}

#[test]
fn persist_sent_counts_the_persist_commands_of_both_reducers() {
    // A test's table: the size of its steps does not matter.
    #[allow(clippy::large_enum_variant)]
    enum Step {
        Update(Action),
        Apply(Msg),
    }
    use Step::{Apply, Update};
    let steps: Vec<(Step, u64)> = vec![
        (Update(Action::Down), 0),
        (Update(Action::OpenAddDialog), 0),
        (Update(Action::Paste("p-1 p-2".into())), 0),
        (Update(Action::Submit), 1),
        (Update(Action::Remove), 1),
        (Update(Action::Undo), 1),
        (Update(Action::Undo), 1),
        (Update(Action::Undo), 0),
        (Apply(ok_poll("w-1", "IN_PROGRESS", 40)), 0),
        (Apply(ok_poll("w-1", "IN_PROGRESS", 45)), 1),
        (Apply(ok_poll("w-1", "IN_PROGRESS", 45)), 0),
        // Its status, and the claim of its end.
        (Apply(ok_poll("w-1", "COMPLETED", 100)), 2),
        (Apply(polled("w-1", Err(http(502)))), 1),
        (Apply(ok_poll("gone", "COMPLETED", 100)), 0),
        (Apply(Msg::Tick(NOW + 5)), 0),
        (
            Apply(Msg::WatchFile {
                entries: Vec::new(),
                applied: 0,
            }),
            0,
        ),
    ];
    let mut s = state();
    let mut total = 0;
    for (i, (step, delta)) in steps.into_iter().enumerate() {
        let cmds = match step {
            Update(a) => s.update(a),
            Apply(m) => s.apply(m),
        };
        let persists = cmds.iter().filter(|c| matches!(c, Cmd::Persist(_))).count() as u64;
        assert_eq!(persists, delta, "step {i}: {:?}", kinds(&cmds));
        total += delta;
        assert_eq!(s.persist_sent, total, "step {i}");
    }
    assert_eq!(total, 8);
}

// ---- 3. connection health -------------------------------------------------------------------

/// What an error says about the service.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Says {
    /// Out of reach or unusable.
    Trouble,
    /// It answered (an unknown task, a 404): reachable.
    Answered,
    /// It answered 404 where the spec's routes are: the base URL's path looks wrong.
    WrongPath,
    /// Nothing: the request never reached it.
    Nothing,
}

/// The errors that mean the service is out of reach or unusable, and those that do not.
fn errors() -> Vec<(ApiError, Says)> {
    let origin = "http://127.0.0.1:8787".to_string();
    vec![
        (
            ApiError::Connect {
                origin: origin.clone(),
                detail: "refused".into(),
            },
            Says::Trouble,
        ),
        (
            ApiError::Timeout {
                origin: origin.clone(),
                after: Duration::from_secs(10),
            },
            Says::Trouble,
        ),
        (
            ApiError::Transport {
                origin,
                detail: "reset".into(),
            },
            Says::Trouble,
        ),
        (
            ApiError::Auth {
                status: 401,
                excerpt: "no".into(),
            },
            Says::Trouble,
        ),
        (
            ApiError::Decode {
                expected: "JSON",
                detail: String::new(),
            },
            Says::Trouble,
        ),
        (ApiError::TooLarge { limit: 1 << 20 }, Says::Trouble),
        (http(500), Says::Trouble),
        (http(502), Says::Trouble),
        (http(503), Says::Trouble),
        (http(429), Says::Trouble),
        (http(404), Says::Answered),
        (http(400), Says::Answered),
        (
            ApiError::Lookup {
                description: "no such task".into(),
            },
            Says::Answered,
        ),
        (
            ApiError::CrossOriginRedirect {
                to: "http://elsewhere".into(),
            },
            Says::Nothing,
        ),
        (ApiError::Invalid("bad ID".into()), Says::Nothing),
        (
            ApiError::WrongPath {
                method: "POST",
                url: "http://127.0.0.1:8787/lora/".into(),
                status: 404,
            },
            Says::WrongPath,
        ),
    ]
}

#[test]
fn errors_set_last_error_and_health_follows_what_they_say() {
    for (e, says) in errors() {
        let text = e.to_string();
        let msgs = [polled("w-1", Err(e.clone())), catalogue(1, Err(e.clone()))];
        for msg in msgs {
            let mut s = state();
            s.start();
            s.apply(msg);
            let expected = match says {
                Says::Trouble => Health::Trouble(text.clone()),
                Says::Answered => Health::Connected,
                Says::WrongPath => Health::WrongPath(text.clone()),
                Says::Nothing => Health::Unknown,
            };
            assert_eq!(s.health, expected, "{e:?}");
            assert_eq!(s.last_error.as_deref(), Some(text.as_str()), "{e:?}");
            assert!(s.dirty, "{e:?}");
        }
    }
}

#[test]
fn successes_connect_and_recover_from_trouble() {
    /// (earlier reports, the success, `last_error` after, `reconnected` said after)
    type Case = (Vec<Msg>, Msg, Option<String>, bool);
    let connect = ApiError::Connect {
        origin: "http://127.0.0.1:8787".into(),
        detail: "refused".into(),
    };
    let ok_catalogue = || catalogue(1, Ok(Catalogue::default()));
    let ok = || ok_poll("w-1", "IN_PROGRESS", 50);
    let cases: Vec<Case> = vec![
        (vec![], ok(), None, false),
        (vec![], ok_catalogue(), None, false),
        (vec![polled("w-1", Err(connect.clone()))], ok(), None, true),
        (
            vec![polled("w-1", Err(connect.clone()))],
            ok_catalogue(),
            None,
            true,
        ),
        (vec![catalogue(1, Err(http(503)))], ok(), None, true),
        // A missing task is no connection trouble: its error stays, nothing is announced.
        (
            vec![polled("w-1", Err(http(404)))],
            ok(),
            Some(http(404).to_string()),
            false,
        ),
    ];
    for (i, (before, success, last_error, reconnected)) in cases.into_iter().enumerate() {
        let mut s = state();
        s.start();
        for m in before {
            s.apply(m);
        }
        s.apply(success);
        let health = if reconnected {
            Health::Reconnected {
                until: NOW + NOTICE_SECONDS,
            }
        } else {
            Health::Connected
        };
        assert_eq!(s.health, health, "case {i}");
        assert_eq!(s.last_error, last_error, "case {i}");
        assert_eq!(
            super::tests::notice(&s),
            None,
            "case {i}: the health says it"
        );
    }
    // A stale catalogue (an older generation) proves nothing and changes nothing.
    let mut s = state();
    s.start();
    s.apply(catalogue(0, Ok(Catalogue::default())));
    assert_eq!(s.health, Health::Unknown);
}

// ---- 4. bell and notifications --------------------------------------------------------------

struct BellCase {
    bell: bool,
    desktop: bool,
    /// The last known status saved on disk, if any.
    disk: Option<(&'static str, u8)>,
    /// Polls before the one checked, then the one checked.
    polls: &'static [(&'static str, u8)],
    cmds: &'static [&'static str],
}

fn bell_cases() -> Vec<BellCase> {
    let mut cases = Vec::new();
    let running = Some(("IN_PROGRESS", 40));
    // The finish is claimed in the watch list file first; the claim won, it is announced.
    for (bell, desktop, cmds) in [
        // `Finished` (for on_complete) whatever the bell and notifications say.
        (
            true,
            true,
            &[
                "Persist(Status)",
                "Persist(Claim)",
                "Notify",
                "Finished",
                "Bell",
            ][..],
        ),
        (
            true,
            false,
            &["Persist(Status)", "Persist(Claim)", "Finished", "Bell"][..],
        ),
        (
            false,
            true,
            &["Persist(Status)", "Persist(Claim)", "Notify", "Finished"][..],
        ),
        (
            false,
            false,
            &["Persist(Status)", "Persist(Claim)", "Finished"][..],
        ),
    ] {
        let case =
            |disk: Option<(&'static str, u8)>, polls: &'static [(&'static str, u8)]| BellCase {
                bell,
                desktop,
                disk,
                polls,
                cmds,
            };
        // Seen running (on disk, or by an earlier poll), then finished.
        cases.push(case(running, &[("COMPLETED", 100)]));
        cases.push(case(running, &[("FAILED", 40)]));
        cases.push(case(None, &[("IN_PROGRESS", 10), ("COMPLETED", 100)]));
        let quiet = |disk: Option<(&'static str, u8)>,
                     polls: &'static [(&'static str, u8)],
                     cmds: &'static [&'static str]| BellCase {
            bell,
            desktop,
            disk,
            polls,
            cmds,
        };
        // Progress is not a finish.
        cases.push(quiet(running, &[("IN_PROGRESS", 60)], &["Persist(Status)"]));
        // Already final when first seen: never polled before, or final on disk.
        cases.push(quiet(None, &[("COMPLETED", 100)], &["Persist(Status)"]));
        cases.push(quiet(None, &[("FAILED", 0)], &["Persist(Status)"]));
        cases.push(quiet(Some(("COMPLETED", 100)), &[("COMPLETED", 100)], &[]));
        // Finished once: a repeated final status is not announced again.
        cases.push(quiet(
            running,
            &[("COMPLETED", 100), ("COMPLETED", 100)],
            &[],
        ));
    }
    cases
}

#[test]
fn finishing_rings_and_notifies_as_configured() {
    let cases = bell_cases();
    for c in &cases {
        let mut s = state_with(vec![entry("t-1", c.disk)], ui(c.bell, c.desktop));
        let (last, earlier) = c.polls.split_last().expect("a poll");
        for (i, (status, percent)) in earlier.iter().enumerate() {
            s.now = NOW + i as u64;
            s.apply(ok_poll("t-1", status, *percent));
        }
        s.now = NOW + 100;
        let cmds = finish(&mut s, "t-1", last.0, last.1, true);
        assert_eq!(
            kinds(&cmds),
            c.cmds,
            "bell {} desktop {} disk {:?} polls {:?}",
            c.bell,
            c.desktop,
            c.disk,
            c.polls
        );
    }
    assert_eq!(cases.len(), 32);

    // What the notification says.
    let mut s = state();
    let cmds = finish(&mut s, "w-1", "COMPLETED", 100, true);
    assert_eq!(
        cmds[2],
        Cmd::Notify {
            title: "gendash: task completed".into(),
            body: "image w-1 — COMPLETED".into(),
        }
    );
    let mut s = state();
    let cmds = finish(&mut s, "w-1", "EXPIRED", 40, true);
    assert!(matches!(&cmds[2], Cmd::Notify { title, .. } if title == "gendash: task failed"));
}

/// A poll of `id`, then the answer to the claim it made (if it made one): `won` as the watch
/// list file gave it. Every command of both, in order.
fn finish(s: &mut State, id: &str, status: &str, percent: u8, won: bool) -> Vec<Cmd> {
    let mut cmds = s.apply(ok_poll(id, status, percent));
    let claimed: Vec<TaskKey> = cmds
        .iter()
        .filter_map(|c| match c {
            Cmd::Persist(PersistOp::Claim(key)) => Some(key.clone()),
            _ => None,
        })
        .collect();
    for key in claimed {
        cmds.extend(s.apply(Msg::Claimed { key, won }));
    }
    cmds
}

// ---- 5. the reducers' clock -----------------------------------------------------------------

#[test]
fn added_at_and_updated_at_come_from_state_now() {
    for now in [1_700_000_000, 5, NOW + 86_400] {
        let mut s = state();
        s.now = now;
        s.update(Action::OpenAddDialog);
        s.update(Action::Paste("p-1".into()));
        let cmds = s.update(Action::Submit);
        let Some(Cmd::Persist(PersistOp::Add(saved))) = cmds.first() else {
            panic!("an add op: {cmds:?}")
        };
        assert_eq!(saved[0].added_at, now, "saved");
        let row = s.watch.selected_row().expect("the new row is selected");
        assert_eq!(
            (row.entry.task_id.as_str(), row.entry.added_at),
            ("p-1", now)
        );
        assert_eq!(crate::fmt::age_label(row.entry.added_at, s.now), "0s");

        s.apply(ok_poll("p-1", "IN_PROGRESS", 1));
        let last = s.watch.rows[1].entry.last.as_ref().expect("polled");
        assert_eq!(last.updated_at, now, "a poll's time is the reducer's clock");
    }
}

#[test]
fn ticks_advance_the_clock_and_redraw_only_when_an_age_label_changes() {
    // (watched, from, to, redraw): the task was added at NOW, never polled.
    let cases = [
        (true, 0, 0, false),
        (true, 5, 5, false),
        (true, 5, 6, true),
        (true, 58, 59, true),
        (true, 59, 60, true),
        (true, 60, 119, false),
        (true, 119, 120, true),
        (true, 3_600, 7_199, false),
        (true, 7_199, 7_200, true),
        (true, 86_400, 90_000, false),
        (true, 86_400 * 2 - 1, 86_400 * 2, true),
        (false, 0, 100_000, false),
    ];
    for (watched, from, to, redraw) in cases {
        let entries = if watched {
            vec![new_entry("t-1", TaskKind::Image, NOW)]
        } else {
            Vec::new()
        };
        let mut s = state_with(entries, ui(true, true));
        assert!(s.apply(Msg::Tick(NOW + from)).is_empty());
        s.dirty = false;
        assert!(s.apply(Msg::Tick(NOW + to)).is_empty());
        assert_eq!(s.now, NOW + to, "{from}→{to}");
        assert_eq!(s.dirty, redraw, "{from}→{to}");
    }
    // The age of the last update counts too: a poll at NOW, ticks past a minute.
    let mut s = state_with(
        vec![new_entry("t-1", TaskKind::Image, NOW - 7_200)],
        ui(true, true),
    );
    s.apply(ok_poll("t-1", "IN_PROGRESS", 1));
    s.apply(Msg::Tick(NOW + 30));
    s.dirty = false;
    s.apply(Msg::Tick(NOW + 31));
    assert!(
        s.dirty,
        "30s → 31s since the last update, the 2h age unchanged"
    );
    // An unchanged poll draws nothing by itself; the next tick shows the refreshed age.
    let mut s = state_with(vec![entry("t-1", Some(("IN_PROGRESS", 1)))], ui(true, true));
    s.apply(ok_poll("t-1", "IN_PROGRESS", 1));
    s.apply(Msg::Tick(NOW + 10));
    s.dirty = false;
    s.apply(ok_poll("t-1", "IN_PROGRESS", 1));
    assert!(!s.dirty, "the poll itself");
    s.apply(Msg::Tick(NOW + 10));
    assert!(s.dirty, "10s → 0s since the last update");
}

// ---- 6. the dirty flag ----------------------------------------------------------------------

#[test]
fn every_input_redraws_in_every_mode() {
    let actions = [
        Action::Up,
        Action::Down,
        Action::Type('x'),
        Action::Refresh,
        Action::Cancel,
        Action::Undo,
        Action::PollNow,
        Action::Resize {
            width: 80,
            height: 24,
        },
        Action::Click { column: 0, row: 0 },
        Action::Wheel {
            column: 0,
            row: 0,
            down: true,
        },
        Action::Suspend,
        Action::Terminate(1),
    ];
    for mode in MODES {
        for a in &actions {
            let mut s = enter(mode);
            s.update(a.clone());
            assert!(s.dirty, "{mode:?} {a:?}");
        }
    }
}

type Setup = fn(&mut State);

/// (what, how the state got there, the report, whether it redraws)
type ReportCase = (&'static str, Setup, Msg, bool);

// A data table: splitting it would only scatter the cases.
#[allow(clippy::too_many_lines)]
fn report_cases() -> Vec<ReportCase> {
    let poll_once: Setup = |s| {
        s.apply(ok_poll("w-1", "IN_PROGRESS", 40));
    };
    // Loaded (ranking 1), then `i` (ranking 2) and `n` (ranking 3) typed into the filter.
    let two_keys: Setup = |s| {
        let entries = ["ink", "pixel_art"]
            .map(|model| LoraEntry::new(model, &serde_json::Map::new()))
            .to_vec();
        s.apply(catalogue(
            0,
            Ok(Catalogue {
                entries,
                skipped: 0,
            }),
        ));
        s.update(Action::FocusFilter);
        s.update(Action::Type('i'));
        s.update(Action::Type('n'));
    };
    vec![
        (
            "the same poll result again",
            poll_once,
            ok_poll("w-1", "IN_PROGRESS", 40),
            false,
        ),
        (
            "a new percent",
            poll_once,
            ok_poll("w-1", "IN_PROGRESS", 41),
            true,
        ),
        (
            "the same result a second later (the next tick redraws the age)",
            |s| {
                s.apply(ok_poll("w-1", "IN_PROGRESS", 40));
                s.now += 1;
            },
            ok_poll("w-1", "IN_PROGRESS", 40),
            false,
        ),
        (
            "the same error again",
            |s| {
                s.apply(polled("w-1", Err(http(502))));
            },
            polled("w-1", Err(http(502))),
            false,
        ),
        (
            "a poll for a task no longer listed",
            poll_once,
            ok_poll("gone", "COMPLETED", 100),
            false,
        ),
        (
            "a stale catalogue",
            |s| {
                s.start();
            },
            catalogue(0, Ok(Catalogue::default())),
            false,
        ),
        (
            "a watch file older than the ops sent",
            |s| {
                s.update(Action::FocusNext);
                s.update(Action::Remove);
            },
            Msg::WatchFile {
                entries: vec![entry("w-1", None), entry("new", None)],
                applied: 0,
            },
            false,
        ),
        (
            "a watch file equal to the list",
            |_| {},
            Msg::WatchFile {
                entries: vec![entry("w-1", Some(("IN_PROGRESS", 40)))],
                applied: 0,
            },
            false,
        ),
        (
            "a download event for a task not listed",
            |_| {},
            Msg::Download {
                key: image("gone"),
                event: DownloadEvent::Progress {
                    done: 1,
                    total: None,
                },
            },
            false,
        ),
        (
            "a tick that changes no label",
            |s| {
                s.apply(Msg::Tick(NOW + 90));
            },
            Msg::Tick(NOW + 100),
            false,
        ),
        (
            "a tick while a notice is still shown",
            |s| {
                s.apply(Msg::Tick(NOW + 90));
                s.update(Action::Refresh);
            },
            Msg::Tick(NOW + 90 + NOTICE_SECONDS - 1),
            false,
        ),
        (
            "a tick that ends a notice",
            |s| {
                s.apply(Msg::Tick(NOW + 90));
                s.update(Action::Refresh);
            },
            Msg::Tick(NOW + 90 + NOTICE_SECONDS),
            true,
        ),
        (
            "the ranking of a query typed over since",
            two_keys,
            Msg::Ranked {
                generation: 2,
                matches: Arc::from([0, 1]),
            },
            false,
        ),
        (
            "the ranking of the query typed last",
            two_keys,
            Msg::Ranked {
                generation: 3,
                matches: Arc::from([0]),
            },
            true,
        ),
        (
            "a finished poll",
            poll_once,
            ok_poll("w-1", "COMPLETED", 100),
            true,
        ),
        (
            "a store problem",
            |_| {},
            Msg::StoreProblem("disk full".into()),
            true,
        ),
        (
            "an opened link",
            |_| {},
            Msg::Opened(crate::msg::Opened::Launched("http://x".into())),
            true,
        ),
        (
            "a download event",
            |_| {},
            Msg::Download {
                key: image("w-1"),
                event: DownloadEvent::Progress {
                    done: 1,
                    total: None,
                },
            },
            true,
        ),
    ]
}

#[test]
fn reports_redraw_only_when_something_shown_changed() {
    let cases = report_cases();
    assert_eq!(cases.len(), 18);
    for (name, setup, msg, redraw) in cases {
        let mut s = state();
        setup(&mut s);
        s.dirty = false;
        s.apply(msg);
        assert_eq!(s.dirty, redraw, "{name}");
    }
}

// ---- 7. the rows polled first ---------------------------------------------------------------

/// Twenty running tasks `r-0`..`r-19`, the watch list focused, on a 150x10 terminal: five
/// rows on screen (`r-0`..`r-4`), which the poller was told of.
fn screen() -> State {
    let entries = (0..20)
        .map(|n| entry(&format!("r-{n}"), Some(("IN_PROGRESS", 1))))
        .collect();
    let mut s = state_with(entries, ui(false, false));
    let cmds = s.update(Action::Resize {
        width: 150,
        height: 10,
    });
    assert_eq!(kinds(&cmds), ["Prefer"], "ten rows fit before, five now");
    s.update(Action::FocusNext);
    assert_eq!(s.watch.cursor.viewport, 5);
    s
}

/// The `Prefer` commands among `cmds`, as task IDs.
fn preferred_ids(cmds: &[Cmd]) -> Vec<Vec<String>> {
    cmds.iter()
        .filter_map(|c| match c {
            Cmd::Prefer(keys) => Some(keys.iter().map(|k| k.id.clone()).collect()),
            _ => None,
        })
        .collect()
}

fn wheel(s: &mut State) -> Vec<Cmd> {
    let rows = s.areas.watch_rows;
    s.update(Action::Wheel {
        column: rows.x,
        row: rows.y,
        down: true,
    })
}

fn downs(s: &mut State, n: usize) {
    for _ in 0..n {
        s.update(Action::Down);
    }
}

/// (what, how the state got there, the input or report, the rows the poller is told to
/// prefer, if anything is said)
type PreferCase = (
    &'static str,
    Setup,
    fn(&mut State) -> Vec<Cmd>,
    Option<&'static [&'static str]>,
);

// A data table: splitting it would only scatter the cases.
#[allow(clippy::too_many_lines)]
fn prefer_cases() -> Vec<PreferCase> {
    const TOP: &[&str] = &["r-0", "r-1", "r-2", "r-3", "r-4"];
    vec![
        (
            "a move within the screen",
            |_| {},
            |s| s.update(Action::Down),
            None,
        ),
        (
            "a move past the last row shown scrolls one row",
            |s| downs(s, 4),
            |s| s.update(Action::Down),
            Some(&["r-1", "r-2", "r-3", "r-4", "r-5"]),
        ),
        (
            "a move back within the scrolled screen",
            |s| downs(s, 5),
            |s| s.update(Action::Up),
            None,
        ),
        (
            "a page down",
            |_| {},
            |s| s.update(Action::PageDown),
            Some(&["r-1", "r-2", "r-3", "r-4", "r-5"]),
        ),
        (
            "to the bottom",
            |_| {},
            |s| s.update(Action::Bottom),
            Some(&["r-15", "r-16", "r-17", "r-18", "r-19"]),
        ),
        (
            "back to the top",
            |s| downs(s, 19),
            |s| s.update(Action::Top),
            Some(TOP),
        ),
        (
            "the wheel, the selection staying on screen",
            |_| {},
            wheel,
            None,
        ),
        (
            "the wheel scrolling the list",
            |s| {
                wheel(s);
            },
            wheel,
            Some(&["r-2", "r-3", "r-4", "r-5", "r-6"]),
        ),
        (
            "a click on a row shown",
            |_| {},
            |s| {
                let rows = s.areas.watch_rows;
                s.update(Action::Click {
                    column: rows.x,
                    row: rows.y + 3,
                })
            },
            None,
        ),
        (
            "a taller terminal",
            |_| {},
            |s| {
                s.update(Action::Resize {
                    width: 150,
                    height: 12,
                })
            },
            Some(&["r-0", "r-1", "r-2", "r-3", "r-4", "r-5", "r-6"]),
        ),
        (
            "a resize to the same size",
            |_| {},
            |s| {
                s.update(Action::Resize {
                    width: 150,
                    height: 10,
                })
            },
            None,
        ),
        (
            "removing a row shown",
            |_| {},
            |s| s.update(Action::Remove),
            Some(&["r-1", "r-2", "r-3", "r-4", "r-5"]),
        ),
        (
            "undoing the removal",
            |s| {
                s.update(Action::Remove);
            },
            |s| s.update(Action::Undo),
            Some(TOP),
        ),
        (
            "adding a task (selected, at the end)",
            |s| {
                s.update(Action::OpenAddDialog);
                s.update(Action::Paste("n-1".into()));
            },
            |s| s.update(Action::Submit),
            Some(&["r-16", "r-17", "r-18", "r-19", "n-1"]),
        ),
        (
            "the add dialog opening over the list",
            |_| {},
            |s| s.update(Action::OpenAddDialog),
            None,
        ),
        (
            "a watch file adding a row below the screen",
            |_| {},
            |s| {
                let mut entries: Vec<WatchEntry> =
                    s.watch.rows.iter().map(|r| r.entry.clone()).collect();
                entries.push(entry("x", None));
                s.apply(Msg::WatchFile {
                    entries,
                    applied: 0,
                })
            },
            None,
        ),
        (
            "a watch file removing a row shown",
            |_| {},
            |s| {
                let entries = s
                    .watch
                    .rows
                    .iter()
                    .filter(|r| r.entry.task_id != "r-2")
                    .map(|r| r.entry.clone())
                    .collect();
                s.apply(Msg::WatchFile {
                    entries,
                    applied: 0,
                })
            },
            Some(&["r-0", "r-1", "r-3", "r-4", "r-5"]),
        ),
        (
            "a poll result",
            |_| {},
            |s| s.apply(ok_poll("r-0", "IN_PROGRESS", 50)),
            None,
        ),
        ("a tick", |_| {}, |s| s.apply(Msg::Tick(NOW + 1)), None),
        (
            "polling the selected task now",
            |_| {},
            |s| s.update(Action::PollNow),
            None,
        ),
        (
            "moving in the browser",
            |s| {
                s.update(Action::FocusNext);
            },
            |s| s.update(Action::Down),
            None,
        ),
    ]
}

#[test]
fn the_poller_hears_of_the_rows_on_screen_only_when_they_change() {
    let cases = prefer_cases();
    assert_eq!(cases.len(), 21);
    for (name, setup, step, expected) in cases {
        let mut s = screen();
        setup(&mut s);
        let told = preferred_ids(&step(&mut s));
        let expected: Vec<Vec<String>> = expected
            .map(|ids| ids.iter().map(|id| (*id).to_string()).collect())
            .into_iter()
            .collect();
        assert_eq!(told, expected, "{name}");
        let shown: Vec<String> = s.watch.visible().map(|r| r.entry.task_id.clone()).collect();
        assert!(
            shown.contains(&s.watch.selected_row().expect("a row").entry.task_id.clone()),
            "{name}: the selected row is among those shown"
        );
    }
}

#[test]
fn start_tells_the_rows_on_screen_and_scrolling_tells_each_new_screen_once() {
    let mut s = screen();
    let cmds = s.start();
    assert_eq!(kinds(&cmds[..2]), ["FetchCatalogue", "Prefer"]);
    assert_eq!(preferred_ids(&cmds), [["r-0", "r-1", "r-2", "r-3", "r-4"]]);
    // Down through all twenty rows: the first four moves stay on screen, each later one
    // scrolls one row; then back up, the same.
    let mut tops = Vec::new();
    for action in [Action::Down, Action::Up] {
        for _ in 0..19 {
            for ids in preferred_ids(&s.update(action.clone())) {
                assert_eq!(ids.len(), 5);
                tops.push(ids[0].clone());
            }
        }
    }
    let down = (1..=15).map(|n| format!("r-{n}"));
    let up = (0..15).rev().map(|n| format!("r-{n}"));
    assert_eq!(tops, down.chain(up).collect::<Vec<_>>());
}

// ---- 8. resizing ----------------------------------------------------------------------------

/// `n` running tasks `t-0`.. on a 140x45 terminal.
fn tasks_on_screen(n: usize) -> State {
    let entries = (0..n)
        .map(|i| entry(&format!("t-{i}"), Some(("IN_PROGRESS", 1))))
        .collect();
    let mut s = state_with(entries, ui(false, false));
    s.update(Action::Resize {
        width: 140,
        height: 45,
    });
    s
}

/// (tasks, keys before, the sizes in turn, the first task shown and the selected one after)
type ResizeCase = (
    usize,
    &'static [Action],
    &'static [(u16, u16)],
    usize,
    usize,
);

#[test]
fn a_resize_keeps_the_selection_visible_and_the_watch_list_full() {
    let cases: [ResizeCase; 6] = [
        // The report: Tab, G, 60x14 (three rows), back to 140x45 (all eight fit).
        (
            8,
            &[Action::FocusNext, Action::Bottom],
            &[(60, 14), (140, 45)],
            0,
            7,
        ),
        // More tasks than fit even at 140x45 (26 rows above the detail section): the last 26,
        // the selection at the end.
        (
            50,
            &[Action::FocusNext, Action::Bottom],
            &[(60, 14), (140, 45)],
            24,
            49,
        ),
        // Shrinking keeps the selected row on the last line.
        (
            50,
            &[Action::FocusNext, Action::Bottom],
            &[(60, 14)],
            47,
            49,
        ),
        // At the top nothing scrolls either way.
        (50, &[Action::FocusNext], &[(60, 14), (140, 45)], 0, 0),
        // A selection in the middle (a page down at 140x45: row 26) stays on screen as the
        // screen fills.
        (
            50,
            &[Action::FocusNext, Action::PageDown],
            &[(60, 14), (140, 45)],
            24,
            26,
        ),
        // Keys for the browser leave the watch list where it was.
        (8, &[Action::Bottom], &[(60, 14), (140, 45)], 0, 0),
    ];
    for (n, keys, sizes, offset, selected) in cases {
        let mut s = tasks_on_screen(n);
        for a in keys {
            s.update(a.clone());
        }
        for &(width, height) in sizes {
            s.update(Action::Resize { width, height });
        }
        let c = s.watch.cursor;
        let what = format!("{n} tasks, {keys:?}, {sizes:?}");
        assert_eq!((c.offset, c.selected), (offset, selected), "{what}");
        assert_eq!(
            s.watch.visible().count(),
            c.viewport.min(n),
            "{what}: no empty rows below while rows are hidden above"
        );
        assert_eq!(c.viewport, usize::from(s.areas.watch_rows.height), "{what}");
    }
}

// ---- 9. the help overlay --------------------------------------------------------------------

fn help_scroll(s: &State) -> u16 {
    match s.popup {
        Some(Popup::Help { scroll }) => scroll,
        ref other => panic!("expected the help, got {other:?}"),
    }
}

#[test]
fn the_help_scrolls_to_its_last_line_and_no_further() {
    let lines = Keymap::default().help_lines().len();
    // Rows inside the overlay's borders: it is 40 high at most.
    let end = |rows: usize| u16::try_from(lines.saturating_sub(rows)).expect("small");
    // (size, downs then ups, the scroll after)
    let cases: [((u16, u16), usize, usize, u16); 8] = [
        ((60, 20), 5, 0, 5),
        ((60, 20), 1000, 0, end(18)),
        ((60, 20), 1000, 3, end(18) - 3),
        ((100, 40), 1000, 0, end(38)),
        ((160, 60), 1000, 0, end(38)),
        ((60, 3), 1000, 0, end(1)),
        ((60, 2), 1000, 0, end(0)),
        ((60, 20), 2, 1000, 0),
    ];
    for ((width, height), downs, ups, scroll) in cases {
        let mut s = state();
        s.update(Action::Resize { width, height });
        s.update(Action::ToggleHelp);
        for _ in 0..downs {
            s.update(Action::Down);
        }
        for _ in 0..ups {
            s.update(Action::Up);
        }
        assert_eq!(
            help_scroll(&s),
            scroll,
            "{width}x{height}, {downs} down, {ups} up"
        );
    }
    // A taller terminal shows more of the end: the scroll comes back to keep it full.
    let mut s = state();
    s.update(Action::Resize {
        width: 60,
        height: 20,
    });
    s.update(Action::ToggleHelp);
    for _ in 0..lines {
        s.update(Action::Down);
    }
    assert_eq!(help_scroll(&s), end(18));
    s.update(Action::Resize {
        width: 100,
        height: 40,
    });
    assert_eq!(help_scroll(&s), end(38));
    s.update(Action::Resize {
        width: 60,
        height: 20,
    });
    assert_eq!(help_scroll(&s), end(38), "a smaller one keeps the place");
    s.update(Action::Down);
    assert_eq!(help_scroll(&s), end(38) + 1);
}

/// `on_complete` failing is said once in the status bar; later failures go to the log only.
#[test]
fn a_failing_hook_is_said_once() {
    let mut s = state();
    s.dirty = false;
    s.apply(Msg::HookFailed(
        "on_complete: x failed (exit status: 1)".into(),
    ));
    assert!(s.dirty);
    assert_eq!(
        s.last_error.as_deref(),
        Some("on_complete: x failed (exit status: 1) (later failures go to the log only)")
    );
    s.last_error = Some("HTTP 502".into());
    s.dirty = false;
    s.apply(Msg::HookFailed("on_complete: x failed again".into()));
    assert!(!s.dirty);
    assert_eq!(s.last_error.as_deref(), Some("HTTP 502"));
}

// ---- downloads: D, the overwrite question, auto_download, A ---------------------------------

fn download_of(cmds: &[Cmd]) -> Option<(String, bool)> {
    cmds.iter().find_map(|c| match c {
        Cmd::Download(crate::cmd::DownloadJob {
            key, status, force, ..
        }) => Some((format!("{} {status}", key.id), *force)),
        _ => None,
    })
}

/// `D` fetches the selected task's file; a file already there is replaced only after `y`.
#[test]
fn d_asks_before_replacing_a_file() {
    let mut s = state_with(
        vec![entry("done-1", Some(("COMPLETED", 100)))],
        ui(false, false),
    );
    s.update(Action::FocusNext);
    let cmds = s.update(Action::Download);
    assert_eq!(
        download_of(&cmds),
        Some(("done-1 COMPLETED".to_string(), false))
    );
    let key = TaskKey::new(TaskKind::Image, "done-1");
    s.apply(Msg::Download {
        key: key.clone(),
        event: DownloadEvent::Exists("/dl/done-1.png".into()),
    });
    let Some(Popup::Confirm(c)) = &s.popup else {
        panic!("asked: {:?}", s.popup)
    };
    assert_eq!(c.question, "overwrite /dl/done-1.png?");
    assert_eq!(s.contexts(), [Context::Confirm, Context::Always]);
    // n keeps the file, and the row as it was: nothing failed.
    assert!(s.update(Action::Cancel).is_empty());
    assert!(s.popup.is_none());
    assert_eq!(notice(&s), Some("kept the file; done-1 not downloaded"));
    assert_eq!(s.watch.rows[0].download, None);
    // y replaces it.
    s.update(Action::Download);
    s.apply(Msg::Download {
        key: key.clone(),
        event: DownloadEvent::Exists("/dl/done-1.png".into()),
    });
    let cmds = s.update(Action::Submit);
    assert_eq!(
        download_of(&cmds),
        Some(("done-1 COMPLETED".to_string(), true))
    );
    let cmds = s.apply(Msg::Download {
        key: key.clone(),
        event: DownloadEvent::Saved("/dl/done-1.png".into()),
    });
    assert_eq!(
        cmds,
        [Cmd::Persist(PersistOp::Saved(key, "/dl/done-1.png".into()))]
    );
    assert_eq!(notice(&s), Some("saved /dl/done-1.png"));
    assert_eq!(
        s.watch.rows[0].entry.saved.as_deref(),
        Some("/dl/done-1.png")
    );
    // A hook that waited for this download runs when it does not start, with the file there.
    s.watch.rows[0].hook_after_download = Some(crate::cmd::Finished {
        task_id: "done-1".into(),
        kind: TaskKind::Image,
        status: "COMPLETED".into(),
        status_failed: false,
        percent: 100,
        url: None,
        file: None,
        no_file: None,
    });
    // Saved, then D and n: still `saved …`, never `download failed`.
    s.update(Action::Download);
    let cmds = s.apply(Msg::Download {
        key: TaskKey::new(TaskKind::Image, "done-1"),
        event: DownloadEvent::Exists("/dl/done-1.png".into()),
    });
    assert!(matches!(
        cmds.as_slice(),
        [Cmd::Finished(f)] if f.file.as_deref() == Some(std::path::Path::new("/dl/done-1.png"))
    ));
    assert!(matches!(s.popup, Some(Popup::Confirm(_))));
    s.update(Action::Cancel);
    assert_eq!(
        s.watch.rows[0].download,
        Some(DownloadView::Saved("/dl/done-1.png".into()))
    );
}

/// With `auto_download`, a task's file is fetched once when it completes; never again once
/// saved, also after a restart; a task that completed while gendash was closed is fetched at
/// start; a file already there is not replaced without asking (the row says so).
#[test]
fn auto_download_fetches_each_file_once() {
    let mut s = state();
    s.watch.auto_download = true;
    assert!(
        s.watch.start_downloads().is_empty(),
        "nothing completed yet"
    );
    let cmds = finish(&mut s, "w-1", "COMPLETED", 100, true);
    assert_eq!(
        download_of(&cmds),
        Some(("w-1 COMPLETED".to_string(), false))
    );
    assert!(
        download_of(&finish(&mut s, "w-1", "COMPLETED", 100, true)).is_none(),
        "once"
    );
    let key = TaskKey::new(TaskKind::Image, "w-1");
    s.apply(Msg::Download {
        key: key.clone(),
        event: DownloadEvent::Saved("/dl/w-1.png".into()),
    });

    // The next start: saved files are not fetched again; one that completed meanwhile is.
    let mut saved = s.watch.rows[0].entry.clone();
    saved.saved = Some("/dl/w-1.png".into());
    let mut next = state_with(
        vec![saved, entry("done-2", Some(("COMPLETED", 100)))],
        ui(false, false),
    );
    next.watch.auto_download = true;
    let cmds = next.watch.start_downloads();
    let done_2 = TaskKey::new(TaskKind::Image, "done-2");
    assert_eq!(cmds, [Cmd::Persist(PersistOp::Claim(done_2.clone()))]);
    let cmds = next.apply(Msg::Claimed {
        key: done_2,
        won: true,
    });
    assert_eq!(
        download_of(&cmds),
        Some(("done-2 COMPLETED".to_string(), false))
    );
    // A file already there: no question for a download nobody asked for; the row says it.
    next.apply(Msg::Download {
        key: TaskKey::new(TaskKind::Image, "done-2"),
        event: DownloadEvent::Exists("/dl/done-2.png".into()),
    });
    assert!(next.popup.is_none());
    assert!(matches!(
        &next.watch.rows[1].download,
        Some(DownloadView::Failed(e)) if e.contains("/dl/done-2.png exists; D replaces it")
    ));
}

/// `A` turns fetching by itself on or off for one task, saved with the list; turned on for a
/// completed task, it fetches at once.
#[test]
fn a_toggles_auto_download_for_the_selected_task() {
    let mut s = state_with(
        vec![entry("done-1", Some(("COMPLETED", 100)))],
        ui(false, false),
    );
    s.update(Action::FocusNext);
    let key = TaskKey::new(TaskKind::Image, "done-1");
    let cmds = s.update(Action::ToggleAutoDownload);
    assert_eq!(
        cmds[0],
        Cmd::Persist(PersistOp::AutoDownload(key.clone(), Some(true)))
    );
    assert_eq!(
        download_of(&cmds),
        Some(("done-1 COMPLETED".to_string(), false))
    );
    assert_eq!(
        notice(&s),
        Some("done-1: its file is downloaded when it completes")
    );
    let cmds = s.update(Action::ToggleAutoDownload);
    assert_eq!(
        cmds,
        [Cmd::Persist(PersistOp::AutoDownload(key, Some(false)))]
    );
    assert_eq!(notice(&s), Some("done-1: no automatic download"));
}

/// `f` marks the selected model (★, saved for the service), `F` lists favourites only.
#[test]
fn favourites_are_marked_saved_and_listed_alone() {
    let mut s = state();
    let entries = ["ink", "pixel_art", "water"]
        .map(|model| LoraEntry::new(model, &serde_json::Map::new()))
        .to_vec();
    s.apply(catalogue(
        0,
        Ok(Catalogue {
            entries,
            skipped: 0,
        }),
    ));
    s.update(Action::Down);
    let cmds = s.update(Action::ToggleFavourite);
    let expected: std::collections::BTreeSet<String> = ["pixel_art".to_string()].into();
    assert_eq!(cmds, [Cmd::RememberFavourites(expected.clone())]);
    assert_eq!(notice(&s), Some("★ pixel_art"));
    s.update(Action::OnlyFavourites);
    assert!(s.browser.only_favourites);
    assert_eq!(s.browser.matches.len(), 1);
    assert_eq!(
        s.browser.selected_entry().map(|e| e.model.as_str()),
        Some("pixel_art")
    );
    // Unmarked while only favourites show: it leaves the list.
    let cmds = s.update(Action::ToggleFavourite);
    assert_eq!(
        cmds,
        [Cmd::RememberFavourites(std::collections::BTreeSet::new())]
    );
    assert!(s.browser.matches.is_empty());
    s.update(Action::OnlyFavourites);
    assert_eq!(s.browser.matches.len(), 3, "everything again");
    // A reload keeps the marks (they are names, not positions).
    s.browser.favourites = expected;
    s.update(Action::OnlyFavourites);
    let again = ["water", "pixel_art"]
        .map(|model| LoraEntry::new(model, &serde_json::Map::new()))
        .to_vec();
    let g = s.browser.generation;
    s.apply(catalogue(
        g,
        Ok(Catalogue {
            entries: again,
            skipped: 0,
        }),
    ));
    assert_eq!(
        s.browser
            .matches
            .iter()
            .map(|&i| s.browser.entries[i as usize].model.as_str())
            .collect::<Vec<_>>(),
        ["pixel_art"]
    );
}

/// A catalogue of three styled models, loaded into `s`.
fn load_three(s: &mut State) {
    let entries = ["water", "pixel_art", "ink"]
        .map(|model| LoraEntry::new(model, &serde_json::Map::new()))
        .to_vec();
    let g = s.browser.generation;
    s.apply(catalogue(
        g,
        Ok(Catalogue {
            entries,
            skipped: 0,
        }),
    ));
}

/// The fetch among `cmds`, without its generation: what it asks the service for.
fn fetched(cmds: &[Cmd]) -> Vec<(Option<crate::api::LoraType>, Option<String>)> {
    cmds.iter()
        .filter_map(|c| match c {
            Cmd::FetchCatalogue {
                lora_type, cate, ..
            } => Some((*lora_type, cate.clone())),
            _ => None,
        })
        .collect()
}

/// `type:sdxl` typed in the filter reloads exactly as pressing `t` until sdxl does: the same
/// request, the same title, the list loading; the term matches nothing locally.
#[test]
fn type_in_the_filter_reloads_as_the_type_key_does() {
    use crate::api::LoraType;
    let mut by_key = state();
    by_key.start();
    load_three(&mut by_key);
    press(&mut by_key, ch('t'));
    let (_, key_cmds) = press(&mut by_key, ch('t'));
    assert_eq!(fetched(&key_cmds), [(Some(LoraType::Sdxl), None)]);

    let mut by_filter = state();
    by_filter.start();
    load_three(&mut by_filter);
    press(&mut by_filter, ch('/'));
    let mut cmds = Vec::new();
    for c in "type:sdxl".chars() {
        cmds = press(&mut by_filter, ch(c)).1;
        assert!(fetched(&cmds).is_empty(), "not while the term is typed");
    }
    assert_eq!(by_filter.browser.lora_type, None);
    assert!(cmds.is_empty(), "type: alone ranks nothing: {cmds:?}");
    let (_, cmds) = press(&mut by_filter, ch(' '));
    assert_eq!(
        fetched(&cmds),
        fetched(&key_cmds),
        "the space finishes the term"
    );
    assert_eq!(by_filter.browser.lora_type, by_key.browser.lora_type);
    assert_eq!(by_filter.browser.load, by_key.browser.load);
    assert_eq!(
        by_filter.browser.filter_detail.as_deref(),
        Some("type sdxl")
    );
    // Typing on does not fetch again; Enter neither, the term being unchanged.
    assert!(fetched(&press(&mut by_filter, ch('i')).1).is_empty());
    assert!(fetched(&press(&mut by_filter, key(KeyCode::Enter)).1).is_empty());

    // An unfinished term is applied when Enter leaves the field; an invalid one never.
    let mut s = state();
    s.start();
    load_three(&mut s);
    press(&mut s, ch('/'));
    for c in "cate:anime".chars() {
        press(&mut s, ch(c));
    }
    let (_, cmds) = press(&mut s, key(KeyCode::Enter));
    assert_eq!(fetched(&cmds), [(None, Some("anime".into()))]);
    assert_eq!(s.browser.category, "anime");
    press(&mut s, ch('/'));
    for c in " type:xl".chars() {
        press(&mut s, ch(c));
    }
    let (_, cmds) = press(&mut s, key(KeyCode::Esc));
    assert!(fetched(&cmds).is_empty());
    assert_eq!(s.browser.lora_type, None);
    assert_eq!(
        s.browser.filter_detail.as_deref(),
        Some("type:xl is not a type (sd, sdxl or all); ignored · cate anime")
    );
}

/// The detail line comes with operators and goes with them; the list gives it a row.
#[test]
fn the_filter_detail_line_takes_a_row_only_when_shown() {
    let mut s = state();
    s.update(Action::Resize {
        width: 100,
        height: 30,
    });
    s.start();
    load_three(&mut s);
    let rows = s.areas.browser_list.height;
    press(&mut s, ch('/'));
    press(&mut s, ch('p'));
    assert_eq!(s.browser.filter_detail, None, "plain words need no detail");
    assert_eq!(s.areas.browser_list.height, rows);
    press(&mut s, ch('$'));
    assert_eq!(s.browser.filter_detail.as_deref(), Some("name p$"));
    assert_eq!(s.areas.browser_filter_detail.height, 1);
    assert_eq!(s.areas.browser_list.height, rows - 1);
    assert_eq!(s.browser.cursor.viewport, usize::from(rows - 1));
    press(&mut s, key(KeyCode::Backspace));
    assert_eq!(s.areas.browser_list.height, rows);
}

// ---- the cached catalogue -------------------------------------------------------------------

fn models(names: &[&str]) -> Catalogue {
    Catalogue {
        entries: names
            .iter()
            .map(|n| LoraEntry::new(*n, &serde_json::Map::new()))
            .collect(),
        skipped: 0,
    }
}

fn cached(generation: u64, names: &[&str], saved_at: u64) -> Msg {
    Msg::CachedCatalogue {
        generation,
        cached: Some(crate::store::catalogue::Cached {
            catalogue: models(names),
            saved_at,
            filtered: false,
        }),
    }
}

/// The start's fetch, which asks for the cached copy meanwhile; its generation.
fn started(s: &mut State) -> u64 {
    let cmds = s.start();
    let Some(Cmd::FetchCatalogue {
        generation, cached, ..
    }) = cmds.first()
    else {
        panic!("the start fetches the catalogue: {cmds:?}")
    };
    assert!(cached, "the start shows the cached copy meanwhile");
    *generation
}

fn selected_model(s: &State) -> Option<&str> {
    s.browser.selected_entry().map(|e| e.model.as_str())
}

#[test]
fn the_cached_copy_is_shown_with_its_age_until_the_fresh_list_replaces_it() {
    let mut s = state();
    let g = started(&mut s);
    assert!(
        s.apply(cached(g, &["a", "b", "c"], NOW - 3 * 3600))
            .is_empty()
    );
    assert!(s.dirty);
    assert_eq!(s.browser.entries.len(), 3);
    assert_eq!(s.browser.load, Load::Loading, "the fresh load still runs");
    assert_eq!(
        s.browser.cached_mark(s.now).as_deref(),
        Some("cached 3h ago")
    );
    s.browser.move_by(2);
    assert_eq!(selected_model(&s), Some("c"));

    // The fresh list has another order and one more model: the selection follows the name.
    s.apply(catalogue(g, Ok(models(&["z", "c", "a", "b"]))));
    assert_eq!(s.browser.entries.len(), 4);
    assert_eq!(s.browser.load, Load::Loaded);
    assert_eq!(s.browser.cached_mark(s.now), None, "the mark goes");
    assert_eq!(selected_model(&s), Some("c"));
}

#[test]
fn a_late_cached_copy_never_replaces_the_fresh_list() {
    let mut s = state();
    let g = started(&mut s);
    s.apply(catalogue(g, Ok(models(&["fresh"]))));
    s.dirty = false;
    assert!(s.apply(cached(g, &["old", "older"], NOW - 60)).is_empty());
    assert!(!s.dirty);
    assert_eq!(s.browser.entries.len(), 1);
    assert_eq!(s.browser.cached_mark(s.now), None);
    // A cached copy for an earlier fetch (before the type changed) is ignored too.
    let (_, cmds) = press(&mut s, ch('t'));
    assert!(
        matches!(cmds.first(), Some(Cmd::FetchCatalogue { cached: true, .. })),
        "a new type shows its cached copy meanwhile: {cmds:?}"
    );
    assert!(s.browser.entries.is_empty(), "the list of every type went");
    s.apply(cached(g, &["old"], NOW - 60));
    assert!(s.browser.entries.is_empty());
    // A reload asks for the fresh list only.
    let (_, cmds) = press(&mut s, ch('r'));
    assert!(
        matches!(
            cmds.first(),
            Some(Cmd::FetchCatalogue { cached: false, .. })
        ),
        "{cmds:?}"
    );
}

#[test]
fn an_unreachable_service_keeps_the_cached_copy_marked_offline() {
    let mut s = state();
    let g = started(&mut s);
    s.apply(cached(g, &["a", "b"], NOW - 2 * 86_400 - 5));
    let down = ApiError::Connect {
        origin: "http://127.0.0.1:8787".into(),
        detail: "connection refused".into(),
    };
    s.apply(catalogue(g, Err(down)));
    assert_eq!(s.browser.entries.len(), 2, "the copy stays");
    assert_eq!(
        s.browser.cached_mark(s.now).as_deref(),
        Some("cached 2 days ago · offline")
    );
    // The service comes back (the worker retries): the fresh list replaces the copy.
    s.apply(catalogue(g, Ok(models(&["a", "b", "c"]))));
    assert_eq!(s.browser.cached_mark(s.now), None);
    assert!(!s.browser.offline);
}

#[test]
fn another_failure_keeps_the_cached_copy_without_the_offline_mark() {
    let mut s = state();
    let g = started(&mut s);
    s.apply(cached(g, &["a"], NOW - 300));
    s.apply(catalogue(g, Err(http(500))));
    assert_eq!(s.browser.entries.len(), 1);
    assert!(matches!(s.browser.load, Load::Failed(ref e) if e.contains("500")));
    assert_eq!(
        s.browser.cached_mark(s.now).as_deref(),
        Some("cached 5 min ago")
    );
    // The failure may even come before the copy is read: the copy is still shown.
    let mut s = state();
    let g = started(&mut s);
    s.apply(catalogue(
        g,
        Err(ApiError::Timeout {
            origin: "o".into(),
            after: Duration::from_secs(5),
        }),
    ));
    s.apply(cached(g, &["a"], NOW));
    assert_eq!(
        s.browser.cached_mark(s.now).as_deref(),
        Some("cached just now · offline")
    );
}

// ---- O, the opener's answers, and how a copy went ------------------------------------------

/// `O` opens the selected task's saved file; without one it says which key downloads it, as
/// the keymap has it (rebound here); a file gone since says so too.
#[test]
fn o_opens_the_saved_file_or_names_the_key_that_saves_one() {
    let mut saved = entry("done-1", Some(("COMPLETED", 100)));
    saved.saved = Some("/dl/done-1.png".into());
    let mut s = state_with(
        vec![saved, entry("done-2", Some(("COMPLETED", 100)))],
        ui(false, false),
    );
    let keys = [(
        "download".to_string(),
        vec!["ctrl-d".parse().expect("a key")],
    )]
    .into();
    s.keymap = Keymap::configured(&keys).expect("keymap");
    s.update(Action::FocusNext);
    s.watch.select(0);
    assert_eq!(
        s.update(Action::OpenFile),
        [Cmd::OpenFile("/dl/done-1.png".into())]
    );
    s.apply(Msg::Opened(crate::msg::Opened::Missing(
        "/dl/done-1.png".into(),
    )));
    assert_eq!(
        notice(&s),
        Some("/dl/done-1.png is not there any more: ^D downloads it again")
    );
    s.watch.select(1);
    assert!(s.update(Action::OpenFile).is_empty());
    assert_eq!(
        notice(&s),
        Some("no file saved for done-2: ^D downloads it")
    );
}

/// The status bar says how a copy went once it went: a program that exited 0 copied it; OSC
/// 52 was only sent (through tmux, when inside it), after the program's failure if one failed.
#[test]
fn a_copy_is_said_the_way_it_was_made() {
    let mut s = state_with(
        vec![entry("done-1", Some(("COMPLETED", 100)))],
        ui(false, false),
    );
    s.update(Action::FocusNext);
    let cmds = s.update(Action::CopyName);
    let clip = crate::cmd::Clip::new("done-1", "task ID");
    assert_eq!(cmds, [Cmd::Copy(clip.clone())]);
    assert_eq!(notice(&s), None, "nothing claimed before it happened");
    let via = CopiedVia::Program("xclip".into());
    assert!(
        s.apply(Msg::Copied {
            clip: clip.clone(),
            via
        })
        .is_empty()
    );
    assert_eq!(notice(&s), Some("copied the task ID with xclip"));
    for (tmux, failed, said) in [
        (
            false,
            None,
            "sent the task ID to the terminal's clipboard (OSC 52)",
        ),
        (
            true,
            Some("xclip failed (exit status: 1)".to_string()),
            "xclip failed (exit status: 1); sent the task ID to the terminal's clipboard through tmux (OSC 52)",
        ),
    ] {
        let via = CopiedVia::Terminal { tmux, failed };
        let cmds = s.apply(Msg::Copied {
            clip: clip.clone(),
            via,
        });
        assert_eq!(
            cmds,
            [Cmd::CopyToTerminal {
                text: "done-1".into(),
                tmux
            }]
        );
        assert_eq!(notice(&s), Some(said));
    }
}

/// Nothing can open a link here (no display): it is copied instead, and the status bar shows
/// it whole, alone, then how it was copied.
#[test]
fn a_link_that_cannot_be_opened_is_shown_whole_and_copied() {
    let mut s = state();
    let url = format!("https://cdn.example/files/{}.png", "x".repeat(120));
    let cmds = s.apply(Msg::Opened(crate::msg::Opened::NoDisplay(url.clone())));
    let [Cmd::Copy(clip)] = cmds.as_slice() else {
        panic!("{cmds:?}")
    };
    assert_eq!(clip.text, url);
    let via = CopiedVia::Terminal {
        tmux: false,
        failed: None,
    };
    s.apply(Msg::Copied {
        clip: clip.clone(),
        via,
    });
    let n = s.notice.as_ref().expect("a notice");
    assert!(n.whole);
    assert_eq!(
        n.text,
        format!("{url} · no display to open it on · sent it to the terminal's clipboard (OSC 52)")
    );
}

/// Two dashboards on one data directory: only the one whose claim the watch list file took
/// announces a finished task and fetches its file; the other's row shows the file the first
/// saved once it reads the file again.
#[test]
fn only_the_dashboard_that_claims_a_finish_announces_and_fetches_it() {
    let mut first = state();
    let mut second = state();
    first.watch.auto_download = true;
    second.watch.auto_download = true;
    let won = finish(&mut first, "w-1", "COMPLETED", 100, true);
    let lost = finish(&mut second, "w-1", "COMPLETED", 100, false);
    assert_eq!(
        kinds(&won),
        [
            "Persist(Status)",
            "Persist(Claim)",
            "Notify",
            "Download",
            "Bell"
        ]
    );
    assert_eq!(kinds(&lost), ["Persist(Status)", "Persist(Claim)"]);
    // Not claimed again by a later poll, nor by the next start's downloads.
    assert!(finish(&mut second, "w-1", "COMPLETED", 100, true).is_empty());
    assert!(second.watch.start_downloads().is_empty());

    let key = TaskKey::new(TaskKind::Image, "w-1");
    first.apply(Msg::Download {
        key: key.clone(),
        event: DownloadEvent::Saved("/dl/w-1.png".into()),
    });
    let mut on_disk = first.watch.rows[0].entry.clone();
    on_disk.claimed_by = Some("the first".into());
    second.apply(Msg::WatchFile {
        entries: vec![on_disk],
        applied: second.persist_sent,
    });
    assert_eq!(
        second.watch.rows[0].download,
        Some(DownloadView::Saved("/dl/w-1.png".into()))
    );
    assert_eq!(
        second.watch.rows[0].entry.saved.as_deref(),
        Some("/dl/w-1.png")
    );
}

/// With `auto_download`, `on_complete` waits for the download: it runs once it ended, with the
/// saved file, or with none and why when it failed; without, at once, with why.
#[test]
fn on_complete_runs_after_the_automatic_download_with_the_saved_file() {
    let finished_of = |cmds: &[Cmd]| {
        cmds.iter().find_map(|c| match c {
            Cmd::Finished(f) => Some((f.file.clone(), f.no_file.clone())),
            _ => None,
        })
    };
    let key = TaskKey::new(TaskKind::Image, "w-1");
    for (event, file, why) in [
        (
            DownloadEvent::Saved("/dl/w-1.png".into()),
            Some(std::path::PathBuf::from("/dl/w-1.png")),
            None,
        ),
        (
            DownloadEvent::Failed("HTTP 500".into()),
            None,
            Some("the download failed: HTTP 500".to_string()),
        ),
    ] {
        let mut s = state();
        s.watch.auto_download = true;
        let cmds = finish(&mut s, "w-1", "COMPLETED", 100, true);
        assert!(download_of(&cmds).is_some());
        assert_eq!(finished_of(&cmds), None, "not before the download ended");
        let progress = s.apply(Msg::Download {
            key: key.clone(),
            event: DownloadEvent::Progress {
                done: 10,
                total: Some(20),
            },
        });
        assert_eq!(finished_of(&progress), None, "not while it runs");
        let cmds = s.apply(Msg::Download {
            key: key.clone(),
            event,
        });
        assert_eq!(finished_of(&cmds), Some((file, why)));
    }
    let mut s = state();
    let cmds = finish(&mut s, "w-1", "COMPLETED", 100, true);
    assert_eq!(
        finished_of(&cmds),
        Some((None, Some("auto_download is off for it".to_string())))
    );

    // `D` pressed while the claim was on its way: the hook waits for that download too.
    let mut s = state();
    let cmds = s.apply(ok_poll("w-1", "COMPLETED", 100));
    assert!(cmds.contains(&Cmd::Persist(PersistOp::Claim(key.clone()))));
    s.update(Action::FocusNext);
    assert!(download_of(&s.update(Action::Download)).is_some());
    s.apply(Msg::Download {
        key: key.clone(),
        event: DownloadEvent::Progress {
            done: 1,
            total: None,
        },
    });
    let cmds = s.apply(Msg::Claimed {
        key: key.clone(),
        won: true,
    });
    assert_eq!(finished_of(&cmds), None, "not while D's download runs");
    let cmds = s.apply(Msg::Download {
        key,
        event: DownloadEvent::Saved("/dl/w-1.png".into()),
    });
    assert_eq!(finished_of(&cmds), Some((Some("/dl/w-1.png".into()), None)));
}

// ---- offline, the type and the category (issue 17, §1) ---------------------------------------

/// Models with a type and a category, as `metadata.type` and `metadata.category` say.
fn typed_models(models: &[(&str, &str, &str)]) -> Catalogue {
    Catalogue {
        entries: models
            .iter()
            .map(|(name, lora_type, cate)| {
                let meta = serde_json::json!({"type": lora_type, "category": cate});
                LoraEntry::new(*name, meta.as_object().expect("an object"))
            })
            .collect(),
        skipped: 0,
    }
}

/// The cache's answer: a copy (kept for broader filters when `filtered`).
fn copy(generation: u64, catalogue: Catalogue, saved_at: u64, filtered: bool) -> Msg {
    Msg::CachedCatalogue {
        generation,
        cached: Some(crate::store::catalogue::Cached {
            catalogue,
            saved_at,
            filtered,
        }),
    }
}

/// The cache's answer: nothing for these filters nor broader ones.
fn nothing(generation: u64) -> Msg {
    Msg::CachedCatalogue {
        generation,
        cached: None,
    }
}

fn refused() -> ApiError {
    ApiError::Connect {
        origin: "http://127.0.0.1:8787".into(),
        detail: "connection refused".into(),
    }
}

/// The types and categories of the models listed, and the title's mark: what stands under
/// the label.
fn listed(s: &State) -> Vec<(Option<&str>, Option<&str>)> {
    s.browser
        .matches
        .iter()
        .map(|&i| {
            let e = &s.browser.entries[i as usize];
            (e.lora_type(), e.category())
        })
        .collect()
}

/// Offline, the type and category change: the list under the label always satisfies it —
/// the key's own copy, a broader copy narrowed here (said in the title), or nothing, said
/// as such; the fresh list replaces whichever was shown when the service answers again.
#[test]
fn offline_a_new_type_or_category_never_stands_over_a_list_it_does_not_satisfy() {
    let mut s = state();
    let g = started(&mut s);
    let whole = [
        ("a_sd_style", "sd", "style"),
        ("b_sd_poses", "sd", "poses"),
        ("c_xl_style", "sdxl", "style"),
    ];
    s.apply(copy(g, typed_models(&whole), NOW - 3 * 3600, false));
    s.apply(catalogue(g, Err(refused())));
    s.browser.move_by(1);
    assert_eq!(selected_model(&s), Some("b_sd_poses"));

    // `t`: sd. The list of every type goes at once.
    let (_, cmds) = press(&mut s, ch('t'));
    assert_eq!(fetched(&cmds), [(Some(crate::api::LoraType::Sd), None)]);
    assert!(s.browser.entries.is_empty() && s.browser.matches.is_empty());
    let g = s.browser.generation;
    s.apply(copy(g, typed_models(&whole[..2]), NOW - 3 * 3600, true));
    assert_eq!(
        s.browser.cached_mark(s.now).as_deref(),
        Some("cached 3h ago · filtered here"),
        "while the fetch runs"
    );
    s.apply(catalogue(g, Err(refused())));
    assert_eq!(
        s.browser.cached_mark(s.now).as_deref(),
        Some("cached 3h ago · offline · filtered here")
    );
    assert!(listed(&s).iter().all(|(t, _)| *t == Some("sd")));
    assert_eq!(selected_model(&s), Some("b_sd_poses"), "still selected");

    // `t`: sdxl, of which nothing is cached, nor anything broader that the worker found.
    press(&mut s, ch('t'));
    let g = s.browser.generation;
    assert!(s.apply(nothing(g)).is_empty());
    s.apply(catalogue(g, Err(refused())));
    assert!(s.browser.entries.is_empty());
    assert_eq!(
        s.browser.nothing_cached().as_deref(),
        Some("no cached copy for type sdxl · offline")
    );
    assert_eq!(s.browser.cached_mark(s.now), None);

    // The category too, and both together.
    press(&mut s, ch('c'));
    for c in "poses".chars() {
        press(&mut s, ch(c));
    }
    press(&mut s, key(KeyCode::Enter));
    let g = s.browser.generation;
    s.apply(nothing(g));
    s.apply(catalogue(g, Err(refused())));
    assert_eq!(
        s.browser.nothing_cached().as_deref(),
        Some("no cached copy for type sdxl, category poses · offline")
    );
    press(&mut s, ch('t'));
    let g = s.browser.generation;
    s.apply(nothing(g));
    s.apply(catalogue(g, Err(refused())));
    assert_eq!(
        s.browser.nothing_cached().as_deref(),
        Some("no cached copy for category poses · offline")
    );
    // Nothing said before the service was tried: the fetch may still answer.
    press(&mut s, ch('t'));
    let g = s.browser.generation;
    s.apply(nothing(g));
    assert_eq!(s.browser.nothing_cached(), None);

    // Back online: the fresh list replaces the empty one, and no mark is left.
    s.apply(catalogue(
        g,
        Ok(typed_models(&[("d_sd_poses", "sd", "poses")])),
    ));
    assert_eq!(listed(&s), [(Some("sd"), Some("poses"))]);
    assert_eq!(s.browser.cached_mark(s.now), None);
    assert_eq!(s.browser.nothing_cached(), None);
    // A late answer about an older fetch's cache changes nothing.
    assert!(s.apply(nothing(g - 1)).is_empty());
    assert_eq!(s.browser.entries.len(), 1);
}

/// The fresh list replaces a narrowed copy, and its mark goes with it.
#[test]
fn the_fresh_list_replaces_a_copy_narrowed_here() {
    let mut s = state();
    let g = started(&mut s);
    press(&mut s, ch('t'));
    assert_ne!(g, s.browser.generation);
    let g = s.browser.generation;
    s.apply(copy(
        g,
        typed_models(&[("a", "sd", "style")]),
        NOW - 60,
        true,
    ));
    s.apply(catalogue(g, Err(refused())));
    assert_eq!(s.browser.cache, crate::app::browser::CacheLookup::Narrowed);
    s.apply(catalogue(
        g,
        Ok(typed_models(&[("a", "sd", "style"), ("n", "sd", "new")])),
    ));
    assert_eq!(s.browser.entries.len(), 2);
    assert!(s.browser.cached_at.is_none() && !s.browser.offline);
    assert_eq!(s.browser.cached_mark(s.now), None);
}

/// Health is one state from the last answers: `reconnected` and `trouble` are never on the
/// status bar together, in either order, and `reconnected` gives way to `connected`.
#[test]
fn trouble_and_reconnected_are_never_said_at_once() {
    let mut s = state();
    s.start();
    let trouble = |s: &State| matches!(s.health, Health::Trouble(_));
    let reconnected = |s: &State| matches!(s.health, Health::Reconnected { .. });
    s.apply(polled("w-1", Err(refused())));
    assert!(trouble(&s), "{:?}", s.health);
    s.apply(ok_poll("w-1", "IN_PROGRESS", 50));
    assert!(reconnected(&s), "{:?}", s.health);
    assert_eq!(
        s.notice, None,
        "said in the health's place, not as a notice beside it"
    );
    // Trouble again within the seconds `reconnected` is said: only trouble is.
    s.apply(Msg::Tick(NOW + 1));
    s.apply(catalogue(s.browser.generation, Err(http(503))));
    assert!(trouble(&s), "{:?}", s.health);
    // Answers again; then, after a while, it is simply connected.
    s.apply(ok_poll("w-1", "IN_PROGRESS", 60));
    assert!(reconnected(&s), "{:?}", s.health);
    s.dirty = false;
    s.apply(Msg::Tick(NOW + 1 + NOTICE_SECONDS));
    assert!(s.dirty);
    assert_eq!(s.health, Health::Connected);
}

/// 404 where the spec's routes are is not `connected`, even when other answers come.
#[test]
fn a_wrong_base_path_is_not_connected() {
    let mut s = state();
    s.start();
    let wrong = ApiError::WrongPath {
        method: "POST",
        url: "http://127.0.0.1:8787/lora/".into(),
        status: 404,
    };
    s.apply(catalogue(s.browser.generation, Err(wrong.clone())));
    assert_eq!(s.health, Health::WrongPath(wrong.to_string()));
    // A task's poll to the same wrong path says the same; the task is not `not found`.
    let task_wrong = ApiError::WrongPath {
        method: "POST",
        url: "http://127.0.0.1:8787/ai/image_generation/w-1".into(),
        status: 404,
    };
    s.apply(polled("w-1", Err(task_wrong.clone())));
    assert_eq!(s.health, Health::WrongPath(task_wrong.to_string()));
    let row = &s.watch.rows[0];
    assert!(row.not_found.is_none() && row.error.is_some());
}

/// Under a profile, tasks of the top level's service (or another profile's) are polled too:
/// their answers never set the status bar's health, which stands beside the service in force.
#[test]
fn only_the_service_in_force_tells_the_health() {
    let other = "http://127.0.0.1:9999";
    let mut s = state_with(
        vec![
            entry("here", Some(("IN_PROGRESS", 40))),
            WatchEntry {
                service: Some(other.into()),
                ..entry("there", Some(("IN_PROGRESS", 40)))
            },
        ],
        ui(true, true),
    );
    let mut services = crate::app::services::Services::single(&s.watch.services.current);
    services.names.insert(other.into(), "top level".into());
    s.watch.set_services(services);
    s.apply(ok_poll("here", "IN_PROGRESS", 50));
    assert_eq!(s.health, Health::Connected);

    s.apply(polled("there", Err(refused())));
    assert_eq!(s.health, Health::Connected, "the other service's trouble");
    s.apply(polled("here", Err(refused())));
    assert!(matches!(s.health, Health::Trouble(_)), "{:?}", s.health);
    s.apply(ok_poll("there", "IN_PROGRESS", 60));
    assert!(
        matches!(s.health, Health::Trouble(_)),
        "the other service's answer is no reconnection: {:?}",
        s.health
    );
    s.apply(ok_poll("here", "IN_PROGRESS", 70));
    assert!(
        matches!(s.health, Health::Reconnected { .. }),
        "{:?}",
        s.health
    );
}
