//! The add dialog through the reducers: pastes (split into IDs, or refused naming the bad
//! ID), Enter adding only valid IDs, errors going with the next edit.

use crate::app::test_support::*;

/// The add dialog opened with `a` and `text` pasted into it, the redraw done.
fn opened(text: &str) -> State {
    let mut s = state();
    assert!(s.update(Action::OpenAddDialog).is_empty());
    assert!(s.update(Action::Paste(text.into())).is_empty());
    s.dirty = false;
    s
}

/// Line breaks and tabs in a paste separate task IDs; the field keeps no control.
#[test]
fn pasted_line_breaks_and_tabs_separate_task_ids() {
    let mut s = opened("");
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
        let mut s = opened("w-9 ");
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
                label: None,
                seen: None,
                ..new_entry(id, kind, NOW)
            })
            .collect::<Vec<_>>();
        let mut cmds = vec![Cmd::Persist(PersistOp::Add(entries))];
        cmds.extend(
            ids.iter()
                .map(|id| Cmd::Poll(PollCmd::Watch(TaskKey::new(kind, *id), None))),
        );
        // All rows fit on screen: the new ones join `w-1` among those polled first.
        let shown =
            std::iter::once(image("w-1")).chain(ids.iter().map(|id| TaskKey::new(kind, *id)));
        cmds.push(Cmd::Poll(PollCmd::Prefer(shown.collect())));
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
        let mut s = opened(c.text);
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
        let mut s = opened("ok-1 ..");
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
