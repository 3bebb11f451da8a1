//! Table-driven tests of the routing reducers: keys through the real keymap in every mode, and
//! the notices they leave; the watch-file gate (`watch_file`) and the dirty flag (`redraw`) in
//! this module's children; bells and notifications in `notifications_tests.rs`. No terminal, no
//! runtime, no network: a `State`, inputs, and what comes out.

use crate::app::test_support::*;
use crate::cmd::PollCmd;

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
    Popup::Add(AddDialog::with(String::new()))
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

/// (The add dialog checks its pastes itself: `app/add_tests.rs`.)
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
        // Only what each pane shows is written, for the next session.
        let cmds = s.update(Action::Terminate(15));
        assert!(cmds.iter().all(|c| matches!(c, Cmd::Views(_))), "{cmds:?}");
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
                    entries: entries.into(),
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

mod redraw;
mod watch_file;
