//! The yes/no questions through the reducers: "overwrite …?" (asked when `D` finds the file
//! there) and "remove the completed tasks?" (`C`), answered `y`, `n` or Esc through the real
//! keymap.

use crate::app::test_support::*;

// ---- overwrite …? ---------------------------------------------------------------------------

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
    s.watch.rows[0].end = crate::app::watch::End::Ours(crate::app::watch::Stage::HookWaits(
        Box::new(crate::cmd::Finished {
            task_id: "done-1".into(),
            kind: TaskKind::Image,
            status: "COMPLETED".into(),
            status_failed: false,
            percent: 100,
            url: None,
            file: None,
            no_file: None,
            label: None,
        }),
    ));
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

/// The watch list focused on `done-1` (completed, with its URL), `D` pressed, and the file
/// found there: the question is open.
fn asked_to_overwrite() -> State {
    let mut s = state_with(
        vec![entry("done-1", Some(("COMPLETED", 100)))],
        ui(false, false),
    );
    press(&mut s, key(KeyCode::Tab));
    press(
        &mut s,
        KeyEvent::new(KeyCode::Char('D'), KeyModifiers::SHIFT),
    );
    s.apply(Msg::Download {
        key: image("done-1"),
        event: DownloadEvent::Exists("/dl/done-1.png".into()),
    });
    assert_eq!(
        s.popup,
        Some(Popup::Confirm(Confirm {
            question: "overwrite /dl/done-1.png?".into(),
            then: Then::Replace(image("done-1")),
        }))
    );
    s.dirty = false;
    s
}

/// Each answer to "overwrite …?": `y` (or `Y`) downloads again replacing the file, `n` or Esc
/// keeps it; either closes the question and gives the keys back to the watch list.
#[test]
fn the_overwrite_question_replaces_the_file_only_on_yes() {
    let yes = "replacing the file of done-1";
    let no = "kept the file; done-1 not downloaded";
    // (key, whether the file is downloaded again replacing it, the notice)
    let cases = [
        (ch('y'), true, yes),
        (
            KeyEvent::new(KeyCode::Char('Y'), KeyModifiers::SHIFT),
            true,
            yes,
        ),
        (ch('n'), false, no),
        (key(KeyCode::Esc), false, no),
    ];
    for (k, replaced, said) in cases {
        let mut s = asked_to_overwrite();
        let (_, cmds) = press(&mut s, k);
        let expected = replaced.then(|| ("done-1 COMPLETED".to_string(), true));
        assert_eq!(download_of(&cmds), expected, "{k:?}");
        assert_eq!(cmds.len(), usize::from(replaced), "{k:?}: {cmds:?}");
        assert_eq!(notice(&s), Some(said), "{k:?}");
        assert_eq!(s.popup, None, "{k:?}");
        assert_eq!(
            s.contexts(),
            [Context::Watch, Context::Global, Context::Always]
        );
        assert_eq!(row_ids(&s), ["done-1"], "{k:?}");
        assert!(s.dirty, "{k:?}");
    }
}

/// While a question is open, an action that is no answer changes nothing: no command, the
/// question still asked, no notice.
#[test]
fn a_question_waits_for_its_answer() {
    let others = [
        Action::Down,
        Action::Type('x'),
        Action::Remove,
        Action::Download,
        Action::Undo,
    ];
    for action in others {
        let mut s = asked_to_overwrite();
        let before = s.popup.clone();
        assert!(s.update(action.clone()).is_empty(), "{action:?}");
        assert_eq!(s.popup, before, "{action:?}");
        assert_eq!(notice(&s), None, "{action:?}");
        assert_eq!(row_ids(&s), ["done-1"], "{action:?}");

        let mut s = asked_to_remove_completed();
        let before = s.popup.clone();
        assert!(s.update(action.clone()).is_empty(), "{action:?}");
        assert_eq!(s.popup, before, "{action:?}");
        assert_eq!(notice(&s), None, "{action:?}");
        assert_eq!(row_ids(&s), ["run-1", "done-1", "done-2"], "{action:?}");
    }
}

/// `D` in the archive view asks, as the watch list does, before replacing a file already there:
/// `n` keeps it and records nothing (the task shows what the archive knew), `y` fetches it again
/// replacing it, and the saved file goes to the archive, never to the watch list.
#[test]
fn the_archive_view_asks_before_replacing_a_file_too() {
    use crate::cmd::ArchiveOp;
    use crate::msg::ArchiveReport;
    use crate::store::archive::ArchivedTask;
    let mut s = state();
    s.update(Action::Resize {
        width: 80,
        height: 24,
    });
    s.focus = Pane::Watch;
    press(&mut s, ch('H'));
    let task = ArchivedTask {
        id: 7,
        entry: entry("old-1", Some(("COMPLETED", 100))),
        archived_at: NOW,
    };
    s.apply(Msg::Archive(ArchiveReport::listed(vec![task].into(), 0)));
    let shift_d = KeyEvent::new(KeyCode::Char('D'), KeyModifiers::SHIFT);
    let exists = || Msg::Download {
        key: image("old-1"),
        event: DownloadEvent::Exists("/dl/old-1.png".into()),
    };
    let (_, cmds) = press(&mut s, shift_d);
    assert_eq!(
        download_of(&cmds),
        Some(("old-1 COMPLETED".to_string(), false))
    );
    let cmds = s.apply(exists());
    assert!(archive_ops(&cmds).is_empty(), "not recorded: {cmds:?}");
    assert_eq!(
        s.popup,
        Some(Popup::Confirm(Confirm {
            question: "overwrite /dl/old-1.png?".into(),
            then: Then::Replace(image("old-1")),
        }))
    );
    assert_eq!(s.contexts(), [Context::Confirm, Context::Always]);
    // n keeps the file: nothing fetched or recorded, the keys back to the archive view.
    let (_, cmds) = press(&mut s, ch('n'));
    assert!(
        download_of(&cmds).is_none() && archive_ops(&cmds).is_empty(),
        "{cmds:?}"
    );
    assert_eq!(notice(&s), Some("kept the file; old-1 not downloaded"));
    assert_eq!(s.contexts(), [Context::Archive, Context::Always]);
    let selected = s.archive.selected().expect("the task");
    assert_eq!(s.archive.download_of(selected), None);
    // y replaces it; the saved file is the archive's.
    press(&mut s, shift_d);
    s.apply(exists());
    let (_, cmds) = press(&mut s, ch('y'));
    assert_eq!(
        download_of(&cmds),
        Some(("old-1 COMPLETED".to_string(), true))
    );
    assert_eq!(notice(&s), Some("replacing the file of old-1"));
    let rows = s.watch.rows.clone();
    let cmds = s.apply(Msg::Download {
        key: image("old-1"),
        event: DownloadEvent::Saved("/dl/old-1.png".into()),
    });
    assert_eq!(
        archive_ops(&cmds),
        [&ArchiveOp::Saved(7, "/dl/old-1.png".into())]
    );
    assert_eq!(notice(&s), Some("saved /dl/old-1.png"));
    assert_eq!(s.watch.rows, rows, "the watch list is not told");
}

fn archive_ops(cmds: &[Cmd]) -> Vec<&crate::cmd::ArchiveOp> {
    cmds.iter()
        .filter_map(|c| match c {
            Cmd::Archive(op) => Some(op),
            _ => None,
        })
        .collect()
}

// ---- remove the completed tasks? ------------------------------------------------------------

/// The watch list focused on `run-1` (running), `done-1` and `done-2` (completed), `C`
/// pressed: the question is open.
fn asked_to_remove_completed() -> State {
    let mut s = state_with(
        vec![
            entry("run-1", Some(("IN_PROGRESS", 40))),
            entry("done-1", Some(("COMPLETED", 100))),
            entry("done-2", Some(("COMPLETED", 100))),
        ],
        ui(false, false),
    );
    press(&mut s, key(KeyCode::Tab));
    let (action, cmds) = press(
        &mut s,
        KeyEvent::new(KeyCode::Char('C'), KeyModifiers::SHIFT),
    );
    assert_eq!(action, Some(Action::RemoveCompleted));
    assert!(cmds.is_empty());
    assert_eq!(s.popup, Some(Popup::RemoveCompleted { count: 2 }));
    assert_eq!(s.contexts(), [Context::Confirm, Context::Always]);
    assert_eq!(row_ids(&s), ["run-1", "done-1", "done-2"]);
    s.dirty = false;
    s
}

/// `y` removes every completed task, and only those, in one step that one undo takes back.
#[test]
fn yes_removes_every_completed_task_and_one_undo_brings_them_back() {
    for yes in [
        ch('y'),
        KeyEvent::new(KeyCode::Char('Y'), KeyModifiers::SHIFT),
    ] {
        let mut s = asked_to_remove_completed();
        let (_, cmds) = press(&mut s, yes);
        let gone = vec![image("done-1"), image("done-2")];
        assert_eq!(
            cmds,
            [
                Cmd::Poll(PollCmd::Unwatch(image("done-1"))),
                Cmd::Poll(PollCmd::Unwatch(image("done-2"))),
                Cmd::Persist(PersistOp::Remove(gone)),
                // The task left on screen is the one polled first.
                Cmd::Poll(PollCmd::Prefer(vec![image("run-1")])),
            ],
            "{yes:?}"
        );
        assert_eq!(row_ids(&s), ["run-1"], "{yes:?}");
        assert_eq!(s.popup, None, "{yes:?}");
        assert_eq!(notice(&s), Some("removed 2 tasks — u undoes"), "{yes:?}");
        assert!(s.dirty, "{yes:?}");

        press(&mut s, ch('u'));
        assert_eq!(row_ids(&s), ["run-1", "done-1", "done-2"], "{yes:?}");
    }
}

/// `n` or Esc keeps every task and says so; nothing is sent.
#[test]
fn no_keeps_the_completed_tasks() {
    for no in [ch('n'), key(KeyCode::Esc)] {
        let mut s = asked_to_remove_completed();
        let (_, cmds) = press(&mut s, no);
        assert!(cmds.is_empty(), "{no:?}: {cmds:?}");
        assert_eq!(row_ids(&s), ["run-1", "done-1", "done-2"], "{no:?}");
        assert_eq!(s.popup, None, "{no:?}");
        assert_eq!(notice(&s), Some("kept the completed tasks"), "{no:?}");
        assert!(s.dirty, "{no:?}");
    }
}
