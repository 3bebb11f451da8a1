//! The watch-file gate: which of the saver's snapshots the App merges, and when.

use super::*;

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
        Cmd::Poll(PollCmd::Unwatch(image("a"))),
        Cmd::Poll(PollCmd::Watch(image("ext"), None)),
        Cmd::Poll(PollCmd::Prefer(
            ["b", "c", "ext", "fin"].map(image).to_vec(),
        )),
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
            entries: disk.clone().into(),
            applied,
        });
        assert_eq!(got, cmds, "applied {applied}");
        assert_eq!(row_ids(&s), rows, "applied {applied}");
        assert_eq!(s.dirty, dirty, "applied {applied}");
        assert_eq!(s.persist_sent, 1, "merging sends no ops");
    }
}

/// A list the saver says holds only the App's own ops is not merged, unless a list was set
/// aside (older than an op in flight) since the last merge: what that one told comes now.
#[test]
fn a_saved_list_is_merged_only_after_one_was_set_aside() {
    let setup = || {
        let mut s = state_with(vec![entry("a", None)], ui(true, true));
        s.update(Action::OpenAddDialog);
        s.update(Action::Paste("c".into()));
        s.update(Action::Submit);
        assert_eq!(s.persist_sent, 1);
        s
    };
    // Another process added `ext`; the file then took the App's `c`.
    let with_ext = vec![entry("a", None), entry("ext", None)];
    let later = std::sync::Arc::new(vec![entry("a", None), entry("ext", None), entry("c", None)]);
    let saved = |applied| Msg::WatchSaved {
        entries: std::sync::Arc::clone(&later),
        applied,
    };

    let mut s = setup();
    s.apply(saved(1));
    assert_eq!(row_ids(&s), ["a", "c"], "nothing set aside: not merged");

    let mut s = setup();
    s.apply(Msg::WatchFile {
        entries: with_ext.clone().into(),
        applied: 0,
    });
    assert_eq!(row_ids(&s), ["a", "c"], "older than the op: set aside");
    s.apply(saved(0));
    assert_eq!(row_ids(&s), ["a", "c"], "still older: set aside");
    let got = s.apply(saved(1));
    assert_eq!(
        row_ids(&s),
        ["a", "c", "ext"],
        "the news of the set-aside list"
    );
    assert!(got.contains(&Cmd::Poll(PollCmd::Watch(image("ext"), None))));
    s.apply(Msg::WatchFile {
        entries: with_ext.into(),
        applied: 1,
    });
    s.apply(saved(1));
    assert_eq!(
        row_ids(&s),
        ["a", "ext"],
        "after a merge, a saved list is not merged again"
    );
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
                entries: Vec::new().into(),
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
