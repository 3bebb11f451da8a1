//! New tasks (`●`, `n`, seen when looked at), labels (the label key, the add dialog's label
//! field, the filter) and the title's figures (new count, all done).

use crate::app::test_support::*;
use crate::app::watch::{order, poll, unseen};

fn unseen_ids(s: &State) -> Vec<&str> {
    s.watch
        .rows
        .iter()
        .filter(|r| r.entry.unseen())
        .map(|r| r.entry.task_id.as_str())
        .collect()
}

fn selected(s: &State) -> Option<&str> {
    s.watch.selected_row().map(|r| r.entry.task_id.as_str())
}

fn seen_ops(cmds: &[Cmd]) -> Vec<Vec<String>> {
    cmds.iter()
        .filter_map(|c| match c {
            Cmd::Persist(PersistOp::Seen(keys)) => {
                Some(keys.iter().map(|k| k.id.clone()).collect())
            }
            _ => None,
        })
        .collect()
}

/// A task that finished while watched is new until the cursor rests on it in the watch pane;
/// `n` goes to the next new one (from the top again); one added finished, or found finished
/// at its first poll, is not new.
#[test]
fn finished_tasks_are_new_until_looked_at_and_n_jumps_to_them() {
    let mut s = state_with(
        vec![
            entry("a", Some(("IN_PROGRESS", 10))),
            entry("b", Some(("IN_PROGRESS", 10))),
            entry("c", Some(("IN_PROGRESS", 10))),
            entry("done", Some(("COMPLETED", 100))),
            entry("fresh", None),
        ],
        ui(false, false),
    );
    finish(&mut s, "a", "COMPLETED", 100, true);
    finish(&mut s, "c", "FAILED", 30, true);
    finish(&mut s, "fresh", "COMPLETED", 100, true);
    assert_eq!(
        unseen_ids(&s),
        ["a", "c"],
        "finished while watched, failed too"
    );
    assert_eq!(unseen::count(&s.watch), 2);

    // The browser has the keys: nothing is looked at.
    let (_, cmds) = press(&mut s, ch('j'));
    assert!(seen_ops(&cmds).is_empty());
    assert_eq!(unseen_ids(&s), ["a", "c"]);

    // The watch pane takes the keys with the cursor on `a`: seen, and saved.
    let (_, cmds) = press(&mut s, key(KeyCode::Tab));
    assert_eq!(selected(&s), Some("a"));
    assert_eq!(seen_ops(&cmds), [vec!["a".to_string()]]);
    assert_eq!(unseen_ids(&s), ["c"]);

    // `n`: to `c`, which is then seen.
    let (action, cmds) = press(&mut s, ch('n'));
    assert_eq!(action, Some(Action::NextUnseen));
    assert_eq!(selected(&s), Some("c"));
    assert_eq!(seen_ops(&cmds), [vec!["c".to_string()]]);
    assert!(unseen_ids(&s).is_empty());
    press(&mut s, ch('n'));
    assert_eq!(selected(&s), Some("c"), "nothing new: the cursor stays");
    assert_eq!(
        notice(&s),
        Some("no new task: each finished task has been seen")
    );

    // `b` finishes under the cursor: new until the next key.
    press(&mut s, ch('k'));
    assert_eq!(selected(&s), Some("b"));
    finish(&mut s, "b", "COMPLETED", 100, true);
    assert_eq!(unseen_ids(&s), ["b"]);
    let (_, cmds) = press(&mut s, ch('s'));
    assert_eq!(seen_ops(&cmds), [vec!["b".to_string()]]);

    // From the top again, past the end.
    finish(&mut s, "a", "COMPLETED", 100, true);
    s.watch.rows[0].entry.seen = Some(false);
    press(&mut s, ch('G'));
    press(&mut s, ch('n'));
    assert_eq!(selected(&s), Some("a"));
}

/// A new task the filter hides is not jumped to; `n` says why.
#[test]
fn n_says_when_the_filter_hides_the_new_tasks() {
    let mut s = state_with(
        vec![
            entry("a", Some(("IN_PROGRESS", 10))),
            entry("b", Some(("IN_PROGRESS", 10))),
        ],
        ui(false, false),
    );
    finish(&mut s, "b", "COMPLETED", 100, true);
    s.focus = Pane::Watch;
    order::set_query(&mut s.watch, "a".into(), NOW);
    press(&mut s, ch('n'));
    assert_eq!(
        notice(&s),
        Some("the new task is hidden by the filter (Esc clears it)")
    );
    assert_eq!(unseen_ids(&s), ["b"]);
}

/// Another dashboard's look (in the file) clears the mark here; a label it set shows.
#[test]
fn marks_and_labels_from_the_file_are_taken_on() {
    let mut s = state_with(
        vec![entry("a", Some(("IN_PROGRESS", 10)))],
        ui(false, false),
    );
    finish(&mut s, "a", "COMPLETED", 100, true);
    let mut saved = s.watch.rows[0].entry.clone();
    saved.seen = Some(true);
    saved.label = Some("sunset v2".into());
    let sent = s.persist_sent;
    s.apply(Msg::WatchFile {
        entries: vec![saved].into(),
        applied: sent,
    });
    assert!(unseen_ids(&s).is_empty());
    assert_eq!(s.watch.rows[0].entry.label.as_deref(), Some("sunset v2"));
}

fn label_ops(cmds: &[Cmd]) -> Vec<(Vec<String>, Option<String>)> {
    cmds.iter()
        .filter_map(|c| match c {
            Cmd::Persist(PersistOp::Label(keys, label)) => {
                Some((keys.iter().map(|k| k.id.clone()).collect(), label.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The label key edits the selected task's label in the add dialog's field: Enter saves it
/// (cleaned of controls), empty clears it, Esc leaves it as it was.
#[test]
fn the_label_key_edits_saves_clears_and_cancels() {
    let mut s = state_with(
        vec![entry("a", Some(("IN_PROGRESS", 10)))],
        ui(false, false),
    );
    s.focus = Pane::Watch;
    let (action, _) = press(&mut s, ch('e'));
    assert_eq!(action, Some(Action::EditLabel));
    let Some(Popup::Add(dialog)) = &s.popup else {
        panic!("the label dialog: {:?}", s.popup);
    };
    assert_eq!(dialog.relabel, Some(vec![image("a")]));
    for c in "sun".chars() {
        press(&mut s, ch(c));
    }
    s.update(Action::Paste("set\u{1b}[2J\n v2".into()));
    let (_, cmds) = press(&mut s, key(KeyCode::Enter));
    assert!(s.popup.is_none());
    assert_eq!(
        label_ops(&cmds),
        [(vec!["a".to_string()], Some("sunset v2".to_string()))]
    );
    assert_eq!(s.watch.rows[0].entry.label.as_deref(), Some("sunset v2"));
    assert_eq!(notice(&s), Some("labelled a \"sunset v2\""));

    // Esc: as it was.
    press(&mut s, ch('e'));
    press(&mut s, ch('x'));
    let (_, cmds) = press(&mut s, key(KeyCode::Esc));
    assert!(s.popup.is_none() && label_ops(&cmds).is_empty());
    assert_eq!(s.watch.rows[0].entry.label.as_deref(), Some("sunset v2"));

    // The field holds the label; emptied, Enter clears it.
    press(&mut s, ch('e'));
    let Some(Popup::Add(dialog)) = &s.popup else {
        panic!("the label dialog");
    };
    assert_eq!(dialog.label, "sunset v2");
    press(&mut s, ctrl('u'));
    let (_, cmds) = press(&mut s, key(KeyCode::Enter));
    assert_eq!(label_ops(&cmds), [(vec!["a".to_string()], None)]);
    assert_eq!(s.watch.rows[0].entry.label, None);
}

/// The add dialog's label field (↓ to it) labels every task added.
#[test]
fn the_add_dialog_labels_the_tasks_it_adds() {
    let mut s = state_with(Vec::new(), ui(false, false));
    press(&mut s, ch('a'));
    for c in "n-1 n-2".chars() {
        press(&mut s, ch(c));
    }
    press(&mut s, key(KeyCode::Down));
    for c in "batch 7".chars() {
        press(&mut s, ch(c));
    }
    let (_, cmds) = press(&mut s, key(KeyCode::Enter));
    let Some(Cmd::Persist(PersistOp::Add(added))) = cmds.first() else {
        panic!("{cmds:?}");
    };
    let labels: Vec<(&str, Option<&str>)> = added
        .iter()
        .map(|e| (e.task_id.as_str(), e.label.as_deref()))
        .collect();
    assert_eq!(labels, [("n-1", Some("batch 7")), ("n-2", Some("batch 7"))]);
}

/// The watch filter matches labels: as free text and with `label:`.
#[test]
fn the_filter_matches_labels() {
    let mut w = Watch::new(
        ["r-1", "r-2", "r-3"]
            .iter()
            .map(|id| new_entry(id, TaskKind::Image, 0))
            .collect(),
        default_failure_statuses(),
    );
    let _ = super::super::label::set(&mut w, &[image("r-2")], Some("sunset v2".into()), 0);
    let shown = |w: &Watch| -> Vec<String> {
        w.order
            .iter()
            .map(|&i| w.rows[i].entry.task_id.clone())
            .collect()
    };
    order::set_query(&mut w, "label:sunset".into(), 0);
    assert_eq!(shown(&w), ["r-2"]);
    order::set_query(&mut w, "sunset".into(), 0);
    assert_eq!(shown(&w), ["r-2"]);
    order::set_query(&mut w, "!label:sunset".into(), 0);
    assert_eq!(shown(&w), ["r-1", "r-3"]);
    order::set_query(&mut w, "label:dawn".into(), 0);
    assert!(shown(&w).is_empty());
}

/// All done: the latest ETA among the running tasks, marked `+` while one has none; nothing
/// while none has an ETA.
#[test]
fn all_done_is_the_latest_eta() {
    let mut w = Watch::new(
        vec![
            new_entry("fast", TaskKind::Image, 0),
            new_entry("slow", TaskKind::Image, 0),
            new_entry("unknown", TaskKind::Image, 0),
        ],
        default_failure_statuses(),
    );
    assert_eq!(super::super::timing::all_done(&w, 100), None, "no ETA yet");
    let poll = |w: &mut Watch, id: &str, at: u64, p: u8| {
        let _ = poll::polled(w, &image(id), Ok(result(id, "IN_PROGRESS", p)), None, at);
    };
    for (at, p) in [(100, 10), (110, 20), (120, 30)] {
        poll(&mut w, "fast", at, p);
        poll(&mut w, "slow", at, p / 2);
    }
    // fast: 70 s to go; slow: 15% in 20 s, 85% to go at 0.75%/s.
    let done = super::super::timing::all_done(&w, 120).expect("ETAs");
    assert_eq!(done.at, 120 + w.rows[1].eta(120).expect("slow's ETA"));
    assert!(done.at > 120 + 70);
    assert!(done.more, "`unknown` runs with no ETA yet");
    super::super::undo::remove(&mut w, &[image("unknown")], 120);
    assert!(!super::super::timing::all_done(&w, 120).expect("ETAs").more);
}

/// A running task that has taken longer than the p90 of its kind's completed tasks is
/// slower than usual, once five of its kind finished.
#[test]
fn slower_than_usual_needs_five_of_its_kind() {
    use crate::app::watch::timing::Usual;
    let finished = |id: &str, took: u64| {
        let mut e = new_entry(id, TaskKind::Image, 0);
        e.last = Some(LastKnown {
            status: "COMPLETED".into(),
            percent: 100,
            running_since: Some(1000),
            finished_at: Some(1000 + took),
            start_seen: true,
            ..LastKnown::default()
        });
        e
    };
    let mut running = new_entry("run", TaskKind::Image, 0);
    running.last = Some(LastKnown {
        status: "IN_PROGRESS".into(),
        percent: 50,
        running_since: Some(5000),
        ..LastKnown::default()
    });
    let mut entries: Vec<WatchEntry> = (1..=4)
        .map(|n| finished(&format!("d{n}"), n * 60))
        .collect();
    entries.push(running.clone());
    let w = Watch::new(entries.clone(), default_failure_statuses());
    let run = &w.rows[4];
    let phase = run.phase(5000 + 600, 10_000);
    assert_eq!(
        Usual::of(&w).slower(&run.entry, phase, 5000 + 600),
        None,
        "4 finished"
    );
    entries.insert(0, finished("d5", 300));
    let w = Watch::new(entries, default_failure_statuses());
    let usual = Usual::of(&w);
    assert_eq!(usual.p90(TaskKind::Image), Some(300));
    let run = &w.rows[5];
    assert_eq!(usual.slower(&run.entry, Phase::Running, 5000 + 300), None);
    assert_eq!(
        usual.slower(&run.entry, Phase::Running, 5000 + 301),
        Some((301, 300))
    );
    assert_eq!(usual.p90(TaskKind::Video), None);
}

/// The usual durations are kept between frames, and worked out again once a task finishes.
#[test]
fn the_usual_durations_follow_the_finishes() {
    use crate::app::watch::timing::Usual;
    let finished = |id: &str, took: u64| {
        let mut e = new_entry(id, TaskKind::Image, 0);
        e.last = Some(LastKnown {
            status: "COMPLETED".into(),
            percent: 100,
            running_since: Some(1000),
            finished_at: Some(1000 + took),
            start_seen: true,
            ..LastKnown::default()
        });
        e
    };
    let mut entries: Vec<WatchEntry> = (1..=4)
        .map(|n| finished(&format!("d{n}"), n * 60))
        .collect();
    entries.push(new_entry("fifth", TaskKind::Image, 0));
    let mut w = Watch::new(entries, default_failure_statuses());
    let _ = poll::polled(
        &mut w,
        &image("fifth"),
        Ok(result("fifth", "QUEUED", 0)),
        None,
        2000,
    );
    assert_eq!(Usual::of(&w).p90(TaskKind::Image), None, "four known");
    let _ = poll::polled(
        &mut w,
        &image("fifth"),
        Ok(result("fifth", "COMPLETED", 100)),
        None,
        2600,
    );
    assert_eq!(Usual::of(&w).p90(TaskKind::Image), Some(600));
    // A row removed: four known again.
    super::super::undo::remove(&mut w, &[image("d1")], 2600);
    assert_eq!(Usual::of(&w).p90(TaskKind::Image), None);
}

/// A task's label goes with its end: `on_complete`'s `{label}` and the download's template.
#[test]
fn the_label_reaches_on_complete_and_the_download() {
    let mut labelled = entry("w-1", Some(("IN_PROGRESS", 40)));
    labelled.label = Some("sunset v2".into());
    let mut s = state_with(vec![labelled], ui(false, false));
    s.watch.auto_download = true;
    let cmds = finish(&mut s, "w-1", "COMPLETED", 100, true);
    let job = cmds.iter().find_map(|c| match c {
        Cmd::Download(job) => Some(job.label.clone()),
        _ => None,
    });
    assert_eq!(job, Some(Some("sunset v2".to_string())), "{cmds:?}");
    // The hook waits for the download, then has the label.
    let cmds = s.apply(Msg::Download {
        key: image("w-1"),
        event: DownloadEvent::Saved("/dl/sunset v2/w-1.png".into()),
    });
    let hook = cmds.iter().find_map(|c| match c {
        Cmd::Finished(f) => Some(f.label.clone()),
        _ => None,
    });
    assert_eq!(hook, Some(Some("sunset v2".to_string())), "{cmds:?}");
}

/// With tasks marked, the label key labels every one of them.
#[test]
fn the_label_key_labels_every_marked_task() {
    let mut s = state_with(
        vec![
            entry("a", Some(("IN_PROGRESS", 10))),
            entry("b", Some(("IN_PROGRESS", 10))),
            entry("c", Some(("IN_PROGRESS", 10))),
        ],
        ui(false, false),
    );
    s.focus = Pane::Watch;
    press(&mut s, ch(' '));
    press(&mut s, ch(' '));
    press(&mut s, ch('e'));
    for c in "pair".chars() {
        press(&mut s, ch(c));
    }
    let (_, cmds) = press(&mut s, key(KeyCode::Enter));
    assert_eq!(
        label_ops(&cmds),
        [(
            vec!["a".to_string(), "b".to_string()],
            Some("pair".to_string())
        )]
    );
    let labels: Vec<Option<&str>> = s
        .watch
        .rows
        .iter()
        .map(|r| r.entry.label.as_deref())
        .collect();
    assert_eq!(labels, [Some("pair"), Some("pair"), None]);
    assert_eq!(notice(&s), Some("labelled 2 tasks \"pair\""));
}
