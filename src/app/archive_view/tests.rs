//! The archive view's reducer, driven as the event loop drives it: keys resolved by the
//! keymap in the current contexts, the archiver's reports applied.

use crate::app::test_support::*;
use crate::msg::ArchiveReport;
use crate::store::archive::ArchivedTask;
use crate::store::watchlist::Transition;

/// An archived task: row `id`, task `task`, this status and label, finished `ago` seconds
/// before `NOW`.
fn archived(id: i64, task: &str, status: &str, label: Option<&str>, ago: u64) -> ArchivedTask {
    let mut entry = entry(task, Some((status, 100)));
    entry.label = label.map(str::to_string);
    entry.added_at = NOW - 1000 - u64::try_from(id).unwrap_or(0);
    if let Some(l) = entry.last.as_mut() {
        l.finished_at = Some(NOW - ago);
    }
    ArchivedTask {
        id,
        entry,
        archived_at: NOW,
    }
}

fn list() -> Vec<ArchivedTask> {
    vec![
        archived(1, "sim-2", "COMPLETED", Some("cat portrait"), 10),
        archived(2, "sim-10", "FAILED", None, 20),
        archived(3, "sim-1", "COMPLETED", Some("dog"), 30),
        archived(4, "alpha", "COMPLETED", Some("Bird"), 5),
    ]
}

/// The archive view open at 80×24 over `tasks`, the watch list holding `w-1`.
fn opened(tasks: Vec<ArchivedTask>) -> (State, Vec<Cmd>) {
    let mut s = state();
    s.update(Action::Resize {
        width: 80,
        height: 24,
    });
    s.focus = Pane::Watch;
    let (action, cmds) = press(&mut s, ch('H'));
    assert_eq!(action, Some(Action::ToggleArchive));
    let more = s.apply(Msg::Archive(ArchiveReport::listed(tasks.into(), 0)));
    (s, cmds.into_iter().chain(more).collect())
}

fn shown(s: &State) -> Vec<&str> {
    let v = &s.archive;
    v.order
        .iter()
        .map(|&i| v.tasks[i as usize].entry.task_id.as_str())
        .collect()
}

fn archive_ops(cmds: &[Cmd]) -> Vec<&ArchiveOp> {
    cmds.iter()
        .filter_map(|c| match c {
            Cmd::Archive(op) => Some(op),
            _ => None,
        })
        .collect()
}

fn typed(s: &mut State, text: &str) {
    press(s, ch('/'));
    press(s, ctrl('u'));
    for c in text.chars() {
        press(s, ch(c));
    }
    press(s, key(KeyCode::Enter));
}

#[test]
fn h_opens_the_view_and_asks_the_list_and_its_keys_go_back_without_quitting() {
    let (mut s, cmds) = opened(list());
    assert!(s.archive.open);
    assert_eq!(archive_ops(&cmds)[0], &ArchiveOp::Load);
    assert_eq!(
        s.contexts(),
        vec![Context::Archive, Context::Always],
        "the archive has the keys"
    );
    // The list's rows lack their history: the detail asks for the whole row, once.
    assert!(archive_ops(&cmds).contains(&&ArchiveOp::Get(4)), "{cmds:?}");
    press(&mut s, ch('q'));
    assert!(!s.archive.open);
    assert_eq!(s.quit, None, "q leaves the archive, not the dashboard");
    let (_, again) = press(&mut s, ch('H'));
    assert_eq!(archive_ops(&again), vec![&ArchiveOp::Load]);
    press(&mut s, key(KeyCode::Esc));
    assert!(!s.archive.open);
}

#[test]
fn the_filter_reads_ids_labels_and_statuses() {
    let (mut s, _) = opened(list());
    assert_eq!(shown(&s), vec!["alpha", "sim-2", "sim-10", "sim-1"]);
    typed(&mut s, "label:cat");
    assert_eq!(shown(&s), vec!["sim-2"]);
    typed(&mut s, "status:failed");
    assert_eq!(shown(&s), vec!["sim-10"]);
    typed(&mut s, "!status:failed kind:image");
    assert_eq!(shown(&s), vec!["alpha", "sim-2", "sim-1"]);
    // Narrowing (typing more) and widening (erasing) both give the right rows.
    typed(&mut s, "sim");
    assert_eq!(shown(&s), vec!["sim-2", "sim-10", "sim-1"]);
    press(&mut s, ch('/'));
    press(&mut s, ch('-'));
    press(&mut s, ch('1'));
    press(&mut s, ch('0'));
    assert_eq!(shown(&s), vec!["sim-10"]);
    press(&mut s, key(KeyCode::Backspace));
    press(&mut s, key(KeyCode::Backspace));
    assert_eq!(shown(&s), vec!["sim-2", "sim-10", "sim-1"]);
}

/// A field term typed after plain words (the fields' text is made then) narrows them.
#[test]
fn a_field_term_after_words_narrows_them() {
    let (mut s, _) = opened(list());
    typed(&mut s, "sim");
    press(&mut s, ch('/'));
    for c in " !status:fail".chars() {
        press(&mut s, ch(c));
    }
    assert_eq!(shown(&s), vec!["sim-2", "sim-1"]);
}

#[test]
fn s_cycles_the_orders_and_says_which() {
    let (mut s, _) = opened(list());
    let mut seen = Vec::new();
    for _ in 0..5 {
        press(&mut s, ch('s'));
        seen.push((s.archive.sort.label(), shown(&s).join(" ")));
    }
    assert_eq!(
        seen,
        vec![
            ("added ↓", "sim-2 sim-10 sim-1 alpha".to_string()),
            ("task ID", "alpha sim-1 sim-2 sim-10".to_string()),
            ("status", "alpha sim-2 sim-1 sim-10".to_string()),
            ("label", "alpha sim-2 sim-1 sim-10".to_string()),
            ("finished ↓", "alpha sim-2 sim-10 sim-1".to_string()),
        ]
    );
    assert_eq!(notice(&s), Some("archive sorted by finished ↓"));
}

/// The first order comes with the list, sorted by the archiver; the view's own sort by when
/// each task finished (a deleted row gone, or the list sorted again) agrees with it, ties too.
#[test]
fn the_archivers_first_order_is_the_views_own_by_finished() {
    let mut tasks = list();
    tasks.extend((5..40).map(|id| {
        let ago = u64::try_from(id % 7).unwrap_or(0) * 10;
        archived(id, &format!("t-{id}"), "COMPLETED", None, ago)
    }));
    let (mut s, _) = opened(tasks.clone());
    let first = shown(&s).join(" ");
    assert!(
        first.starts_with("t-7 t-14 t-21 t-28 t-35 alpha sim-2"),
        "{first}"
    );
    for _ in 0..5 {
        press(&mut s, ch('s'));
    }
    assert_eq!(s.archive.sort.label(), "finished ↓");
    assert_eq!(shown(&s).join(" "), first, "sorted by the view itself");
    // Without the archiver's order, as a view sorts after a delete.
    let mut table = crate::msg::search_table(&tasks, 0);
    table.order.clear();
    s.apply(Msg::Archive(ArchiveReport::Listed(
        tasks.into(),
        std::sync::Arc::new(table),
    )));
    assert_eq!(shown(&s).join(" "), first, "listed without an order");
}

#[test]
fn delete_asks_the_archiver_and_u_restores_what_it_deleted() {
    let (mut s, _) = opened(list());
    let (_, cmds) = press(&mut s, ch('d'));
    assert_eq!(archive_ops(&cmds)[0], &ArchiveOp::Delete(vec![4]));
    assert_eq!(shown(&s), vec!["sim-2", "sim-10", "sim-1"], "gone at once");
    assert_eq!(s.archive.count(), 3);
    press(&mut s, ch('s'));
    assert!(
        !shown(&s).contains(&"alpha"),
        "and stays gone in another order"
    );
    let gone = vec![list().remove(3)];
    s.apply(Msg::Archive(ArchiveReport::Deleted(gone.clone())));
    assert_eq!(
        notice(&s),
        Some("deleted alpha from the archive — u undoes")
    );
    let (_, cmds) = press(&mut s, ch('u'));
    assert_eq!(archive_ops(&cmds), vec![&ArchiveOp::Restore(gone)]);
    assert_eq!(notice(&s), Some("restored alpha"));
    let (_, cmds) = press(&mut s, ch('u'));
    assert!(archive_ops(&cmds).is_empty());
    assert_eq!(notice(&s), Some("nothing to undo in the archive"));
}

#[test]
fn watch_again_adds_the_entry_and_unarchives_it_unless_it_is_watched() {
    let mut tasks = list();
    tasks.push(archived(9, "w-1", "COMPLETED", None, 1));
    let (mut s, _) = opened(tasks);
    assert_eq!(shown(&s)[0], "w-1");
    let (_, cmds) = press(&mut s, ch('w'));
    assert!(archive_ops(&cmds).is_empty(), "{cmds:?}");
    assert!(!cmds.iter().any(|c| matches!(c, Cmd::Persist(_))));
    assert_eq!(notice(&s), Some("w-1 is on the watch list already"));

    press(&mut s, ch('j'));
    let (_, cmds) = press(&mut s, ch('w'));
    let added = cmds.iter().find_map(|c| match c {
        Cmd::Persist(PersistOp::Add(entries)) => Some(entries),
        _ => None,
    });
    let added = added.expect("the entry is saved to the watch list");
    assert_eq!(added[0].task_id, "alpha");
    assert_eq!(added[0].label.as_deref(), Some("Bird"), "with all it kept");
    assert!(archive_ops(&cmds).contains(&&ArchiveOp::Unarchive(vec![4])));
    assert!(s.watch.rows.iter().any(|r| r.entry.task_id == "alpha"));
    assert!(!shown(&s).contains(&"alpha"));
    assert_eq!(
        notice(&s),
        Some("alpha is on the watch list again (Esc/H/q goes back to it)")
    );
}

#[test]
fn download_again_goes_to_the_downloader_and_the_saved_file_to_the_archive() {
    let (mut s, _) = opened(list());
    let (_, cmds) = press(&mut s, ch('D'));
    let job = cmds.iter().find_map(|c| match c {
        Cmd::Download(job) => Some(job),
        _ => None,
    });
    assert_eq!(job.expect("a download").key, image("alpha"));
    let rows = s.watch.rows.clone();
    let cmds = s.apply(Msg::Download {
        key: image("alpha"),
        event: DownloadEvent::Saved("/dl/alpha.png".into()),
    });
    assert_eq!(
        archive_ops(&cmds),
        vec![&ArchiveOp::Saved(4, "/dl/alpha.png".into())]
    );
    assert_eq!(s.watch.rows, rows, "the watch list is not told");
    assert_eq!(notice(&s), Some("saved /dl/alpha.png"));
    let (_, cmds) = press(&mut s, ch('O'));
    assert_eq!(cmds, vec![Cmd::OpenFile("/dl/alpha.png".into())]);
}

#[test]
fn a_failure_is_an_error_and_the_list_stays() {
    let (mut s, _) = opened(list());
    press(&mut s, ch('j'));
    s.apply(Msg::Archive(ArchiveReport::Failed(
        "archive /d/archive.sqlite3: disk I/O error".into(),
    )));
    assert_eq!(
        s.last_error.as_deref(),
        Some("archive /d/archive.sqlite3: disk I/O error")
    );
    assert_eq!(shown(&s), vec!["alpha", "sim-2", "sim-10", "sim-1"]);
    assert_eq!(s.archive.selected().map(|t| t.id), Some(1));
}

#[test]
fn a_change_reloads_an_open_view_only_and_got_fills_the_detail() {
    let (mut s, _) = opened(list());
    let cmds = s.apply(Msg::Archive(ArchiveReport::Changed));
    assert_eq!(archive_ops(&cmds), vec![&ArchiveOp::Load]);
    let mut whole = list().remove(3);
    if let Some(l) = whole.entry.last.as_mut() {
        l.history = vec![Transition {
            at: NOW - 50,
            status: "COMPLETED".into(),
        }];
    }
    s.apply(Msg::Archive(ArchiveReport::Got(
        4,
        Some(Box::new(whole.clone())),
    )));
    assert_eq!(s.archive.detail(), Some(&whole));
    press(&mut s, ch('q'));
    let cmds = s.apply(Msg::Archive(ArchiveReport::Changed));
    assert!(archive_ops(&cmds).is_empty());
}

#[test]
fn the_date_fields_read_the_local_day_the_list_was_made_for() {
    // 2026-11-01 00:30 UTC is 02:30 on the 1st at UTC+2, and 2026-10-31 23:30 UTC is 01:30 on
    // the 1st there: the task finished "on the 1st" depends on the offset the archiver used.
    let at = |id: i64, task: &str, t: u64| {
        let mut a = archived(id, task, "COMPLETED", None, 0);
        if let Some(l) = a.entry.last.as_mut() {
            l.finished_at = Some(t);
        }
        a
    };
    let tasks = vec![
        at(1, "late-oct-utc", 1_793_489_400),
        at(2, "first-nov-utc", 1_793_493_000),
    ];
    for (offset, on_the_first) in [
        (0, vec!["first-nov-utc"]),
        (7200, vec!["first-nov-utc", "late-oct-utc"]),
    ] {
        let (mut s, _) = opened(Vec::new());
        s.apply(Msg::Archive(ArchiveReport::listed(
            tasks.clone().into(),
            offset,
        )));
        typed(&mut s, "finished:>=2026-11-01");
        let mut seen = shown(&s);
        seen.sort_unstable();
        let mut want = on_the_first.clone();
        want.sort_unstable();
        assert_eq!(seen, want, "offset {offset}");
        typed(&mut s, "finished:<2026-11-01");
        assert_eq!(shown(&s).len(), usize::from(offset == 0), "offset {offset}");
    }
}

/// `n` tasks `t-0`, `t-1`… finished a second apart, the first the latest; every third one
/// failed (the others' status holds a `c`, no task ID does).
fn many(n: i64) -> Vec<ArchivedTask> {
    (0..n)
        .map(|i| {
            let status = if i % 3 == 2 { "FAILED" } else { "COMPLETED" };
            let ago = 100 + u64::try_from(i).unwrap_or(0);
            archived(i + 1, &format!("t-{i}"), status, None, ago)
        })
        .collect()
}

/// `c` typed into the filter of 10,000 tasks: the view shows the first matches at once, and
/// reads the rest of the list only when asked to settle (after the frame).
fn typed_c() -> (State, Vec<String>) {
    let (mut s, _) = opened(many(10_000));
    press(&mut s, ch('/'));
    press(&mut s, ch('c'));
    let first = shown(&s).iter().map(ToString::to_string).collect();
    (s, first)
}

#[test]
fn a_long_list_shows_its_first_matches_at_once_and_the_rest_after_the_frame() {
    let (mut s, first) = typed_c();
    let completed: Vec<String> = (0..10_000)
        .filter(|i| i % 3 != 2)
        .map(|i| format!("t-{i}"))
        .collect();
    assert!(s.archive.first_only(), "only the first rows read");
    let screen = s.archive.cursor.viewport;
    assert!(
        first.len() >= 2 * screen && first.len() < completed.len() / 2,
        "{} rows shown first",
        first.len()
    );
    assert_eq!(
        first,
        completed[..first.len()],
        "the whole list's first rows"
    );
    s.settle();
    assert!(!s.archive.first_only());
    assert!(s.dirty, "the count is drawn next");
    assert_eq!(shown(&s), completed, "the rest read after the frame");
    // Narrowed, then erased back: the first query's matches are known, none left for later.
    press(&mut s, ch('o'));
    assert!(s.archive.first_only(), "`co` narrows `c`'s 6,667 matches");
    s.settle();
    press(&mut s, key(KeyCode::Backspace));
    assert!(!s.archive.first_only());
    assert_eq!(shown(&s), completed);
}

#[test]
fn a_move_after_a_first_reading_reads_the_whole_list_first() {
    let (mut s, _) = typed_c();
    press(&mut s, key(KeyCode::Down));
    assert!(!s.archive.first_only());
    assert_eq!(shown(&s).len(), 6_667);
    assert_eq!(s.archive.cursor.selected, 1);
    let (mut s, _) = typed_c();
    press(&mut s, key(KeyCode::Enter));
    press(&mut s, key(KeyCode::End));
    assert_eq!(
        s.archive.cursor.selected, 6_666,
        "the last of all the matches"
    );
    assert_eq!(
        s.archive.selected().map(|t| t.entry.task_id.as_str()),
        Some("t-9999")
    );
}

#[test]
fn a_first_reading_goes_as_far_as_the_selected_task() {
    // Long enough that the second part read (8,192 rows after the first 2,048) is not the end.
    let (mut s, _) = opened(many(20_000));
    s.archive.select(6_000);
    assert_eq!(
        s.archive.selected().map(|t| t.entry.task_id.as_str()),
        Some("t-6000")
    );
    press(&mut s, ch('/'));
    press(&mut s, ch('c'));
    assert!(s.archive.first_only());
    // t-6000 is the 4,000th completed task: still selected, on screen.
    assert_eq!(
        s.archive.selected().map(|t| t.entry.task_id.as_str()),
        Some("t-6000")
    );
    let (at, offset) = (s.archive.cursor.selected, s.archive.cursor.offset);
    assert_eq!(at, 4_000);
    assert!(offset <= at && at < offset + s.archive.cursor.viewport);
    s.settle();
    assert_eq!(
        (s.archive.cursor.selected, s.archive.cursor.offset),
        (at, offset)
    );
    // One it does not match: the selection goes to the top, as with a short list.
    press(&mut s, ch('/'));
    press(&mut s, key(KeyCode::Backspace));
    s.settle();
    s.archive.select(6_001 - 1);
    press(&mut s, ch('/'));
    press(&mut s, ch('f'));
    assert_eq!(s.archive.cursor.selected, 0);
}

/// Every date form the docs list, in the archive view as the archiver lists it (local
/// minutes at the offset given), and what the filter cannot use named on the filter line.
#[test]
fn every_date_form_in_the_archive_view_and_what_it_cannot_use_named() {
    use crate::filter::forms_tests::{FORMS, MOMENTS, NAMES};
    // UTC, 2026-11-28 00:00 and a minute's seconds.
    const DAY: u64 = 1_795_824_000;
    let minute = |m: &str| -> u64 {
        let n = |r: std::ops::Range<usize>| m[r].parse::<u64>().expect("digits");
        DAY - (28 - n(8..10)) * 86_400 + n(11..13) * 3600 + n(14..16) * 60
    };
    let tasks: Vec<ArchivedTask> = NAMES[..4]
        .iter()
        .zip(MOMENTS)
        .enumerate()
        .map(|(i, (name, moment))| {
            let mut a = archived(i64::try_from(i).unwrap_or(0), name, "COMPLETED", None, 0);
            if let Some(l) = a.entry.last.as_mut() {
                l.finished_at = Some(minute(moment) - 3600);
            }
            a
        })
        .collect();
    let (mut s, _) = opened(Vec::new());
    // An hour east of UTC: each moment above is the local minute.
    s.apply(Msg::Archive(ArchiveReport::listed(tasks.into(), 3600)));
    for &(query, kept) in FORMS {
        typed(&mut s, query);
        let mut seen = shown(&s);
        seen.sort_unstable();
        let want: Vec<&str> = kept.iter().copied().filter(|n| *n != "e").collect();
        assert_eq!(seen, want, "{query}");
        assert!(s.archive.filter_issues().is_empty(), "{query}");
    }
    let told = |s: &State| -> Vec<String> {
        s.archive
            .filter_issues()
            .iter()
            .map(crate::filter::Issue::told)
            .collect()
    };
    typed(&mut s, "is:new a");
    assert_eq!(
        told(&s),
        ["is:new is the model browser's marks and favourites; the archive has none; ignored"]
    );
    press(&mut s, ch('/'));
    for c in " finished:>abc".chars() {
        press(&mut s, ch(c));
    }
    assert_eq!(told(&s).len(), 1, "the term being typed is not told yet");
    press(&mut s, key(KeyCode::Enter));
    let left = told(&s);
    assert!(
        left.len() == 2 && left.contains(&"finished:>abc: not a number or a date; ignored".into()),
        "told once the field is left: {left:?}"
    );
    typed(&mut s, "nosuchfield:x");
    assert_eq!(
        told(&s),
        [
            "nosuchfield: no such field (fields: label, status, kind, service, finished, added, \
          saved, id); matches nothing"
        ]
    );
}
