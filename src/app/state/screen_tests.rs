//! The screen's side of the state: the reducers' clock, the rows polled first, resizing.

use crate::app::test_support::*;
use crate::cmd::PollCmd;

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
            Cmd::Poll(PollCmd::Prefer(keys)) => Some(keys.iter().map(|k| k.id.clone()).collect()),
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
                    entries: entries.into(),
                    applied: 0,
                })
            },
            None,
        ),
        (
            "a watch file removing a row shown",
            |_| {},
            |s| {
                let entries: Vec<_> = s
                    .watch
                    .rows
                    .iter()
                    .filter(|r| r.entry.task_id != "r-2")
                    .map(|r| r.entry.clone())
                    .collect();
                s.apply(Msg::WatchFile {
                    entries: entries.into(),
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

// ---- the runtime's reports ------------------------------------------------------------------

#[test]
fn a_failed_suspend_is_shown_on_the_status_bar_and_survives_the_redraw() {
    let mut s = state();
    s.start();
    s.drawn();
    assert!(!s.dirty, "drawn: nothing waits");
    s.suspend_failed();
    assert!(s.dirty, "the error waits to be drawn");
    // What the runtime does next: paint the whole screen again.
    s.update(Action::Resize {
        width: 100,
        height: 30,
    });
    assert_eq!(s.last_error.as_deref(), Some("could not suspend"));
    s.drawn();
    assert!(!s.dirty);
}

// ---- the mode: what has the keys -------------------------------------------------------------

/// Every mode is reached by its keys, `mode()` names it, and the keymap's contexts are the
/// mode's: what routes an action and what resolves a key are one answer.
#[test]
fn every_mode_is_reached_by_its_keys_and_gives_the_contexts() {
    use crate::app::keymap::{Mode, TextField};
    use crate::app::layout::Pane;
    let mut s = state_with(
        vec![
            entry("w-1", Some(("IN_PROGRESS", 40))),
            entry("done-1", Some(("COMPLETED", 100))),
        ],
        ui(false, false),
    );
    s.update(Action::Resize {
        width: 120,
        height: 40,
    });
    let mut seen = Vec::new();
    let mut expect = |s: &State, mode: Mode| {
        assert_eq!(s.mode(), mode);
        assert_eq!(s.contexts(), mode.contexts(), "{mode:?}");
        seen.push(mode);
    };
    let steps: [(KeyEvent, Mode); 41] = [
        (ch('/'), Mode::Typing(TextField::Browser)),
        (key(KeyCode::Esc), Mode::Pane(Pane::Browser)),
        (ch('?'), Mode::Help),
        (ch('/'), Mode::Typing(TextField::HelpSearch)),
        (key(KeyCode::Enter), Mode::Help),
        (key(KeyCode::Esc), Mode::Pane(Pane::Browser)),
        (ch('L'), Mode::Requests),
        (ch('/'), Mode::Typing(TextField::LogSearch)),
        (key(KeyCode::Enter), Mode::Requests),
        (key(KeyCode::Esc), Mode::Pane(Pane::Browser)),
        (ch('a'), Mode::AddDialog),
        (key(KeyCode::Esc), Mode::Pane(Pane::Browser)),
        (ch(':'), Mode::Palette),
        (key(KeyCode::Esc), Mode::Pane(Pane::Browser)),
        (key(KeyCode::Tab), Mode::Pane(Pane::Watch)),
        (ch('/'), Mode::Typing(TextField::WatchFilter)),
        (key(KeyCode::Esc), Mode::Pane(Pane::Watch)),
        (ch('e'), Mode::LabelEditor),
        (key(KeyCode::Esc), Mode::Pane(Pane::Watch)),
        (ch('C'), Mode::RemoveCompleted),
        (ch('n'), Mode::Pane(Pane::Watch)),
        (ch('V'), Mode::ViewName),
        (ch('x'), Mode::ViewName),
        (key(KeyCode::Enter), Mode::Pane(Pane::Watch)),
        (ch('v'), Mode::Views),
        (ch('d'), Mode::DeleteView),
        (ch('n'), Mode::Views),
        (key(KeyCode::Esc), Mode::Pane(Pane::Watch)),
        (ch('H'), Mode::Archive),
        (ch('/'), Mode::Typing(TextField::ArchiveFilter)),
        (key(KeyCode::Esc), Mode::Archive),
        (ch('?'), Mode::Help),
        (key(KeyCode::Esc), Mode::Archive),
        (ch('P'), Mode::Gallery(GalleryOf::Archive)),
        (ch('P'), Mode::Archive),
        (ch('q'), Mode::Pane(Pane::Watch)),
        (ch('j'), Mode::Pane(Pane::Watch)),
        (ch('D'), Mode::Pane(Pane::Watch)),
        (ch('P'), Mode::Gallery(GalleryOf::Watch)),
        (ch('P'), Mode::Pane(Pane::Watch)),
        (key(KeyCode::Tab), Mode::Pane(Pane::Browser)),
    ];
    expect(&s, Mode::Pane(Pane::Browser));
    for (k, mode) in steps {
        press(&mut s, k);
        expect(&s, mode);
    }
    // A file already there asks before it is replaced.
    s.apply(Msg::Download {
        key: image("done-1"),
        event: crate::msg::DownloadEvent::Exists("/dl/done-1.png".into()),
    });
    expect(&s, Mode::Confirm);
    for mode in Mode::ALL {
        assert!(seen.contains(&mode), "{mode:?} was never reached");
    }
}

// ---- the selected catalogue entry's picture -------------------------------------------------

/// The URL of the selected entry's picture is worked out once per entry (it ran after every
/// message), yet follows the entry: a reload that changes its metadata, under the same name,
/// asks for the new picture.
#[test]
fn the_selected_entry_s_picture_follows_a_reload_that_changes_it() {
    let with_preview = |picture: &str| {
        let meta = serde_json::json!({"type": "sd", "preview": picture});
        let entries = vec![LoraEntry::new("ink", meta.as_object().expect("object"))];
        Catalogue {
            entries,
            skipped: 0,
        }
    };
    let asked = |cmds: &[Cmd]| {
        cmds.iter()
            .find_map(|c| match c {
                Cmd::ModelPreview(r) => Some(r.source.clone()),
                _ => None,
            })
            .expect("the picture is asked for")
    };
    let mut s = state();
    s.update(Action::Resize {
        width: 220,
        height: 40,
    });
    s.start();
    let generation = s.browser.generation;
    let cmds = s.apply(catalogue(generation, Ok(with_preview("samples/1.png"))));
    assert_eq!(
        asked(&cmds),
        crate::cmd::PreviewSource::Url("http://127.0.0.1:8787/samples/1.png".into())
    );
    let cmds = s.apply(ok_poll("w-1", "IN_PROGRESS", 41));
    assert!(
        kinds(&cmds).iter().all(|k| *k != "ModelPreview"),
        "{cmds:?}"
    );
    s.update(Action::Refresh);
    let cmds = s.apply(catalogue(
        s.browser.generation,
        Ok(with_preview("samples/2.png")),
    ));
    assert_eq!(
        asked(&cmds),
        crate::cmd::PreviewSource::Url("http://127.0.0.1:8787/samples/2.png".into())
    );
}
