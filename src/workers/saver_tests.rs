use super::*;
use crate::api::TaskKind;
use crate::store::watchlist::LastKnown;
use std::sync::atomic::{AtomicBool, Ordering};

/// This dashboard as `id`, which takes every other dashboard for running.
fn me(id: &str) -> Claimant {
    Claimant {
        id: id.into(),
        running: Arc::new(|_: &str| true),
    }
}

fn key(id: &str) -> TaskKey {
    TaskKey::new(TaskKind::Image, id)
}

/// A status as a poll saves it; `finished` makes it a finish.
fn known(text: &str, percent: u8, finished: Option<u64>) -> LastKnown {
    LastKnown {
        status: text.into(),
        percent,
        finished_at: finished,
        ..LastKnown::default()
    }
}

/// A task of `service` (`None`: the current one) the file knows running.
fn running(id: &str, service: Option<&str>) -> WatchEntry {
    let mut e = WatchEntry::new(id, TaskKind::Image);
    e.service = service.map(Into::into);
    e.last = Some(known("IN_PROGRESS", 40, None));
    e
}

/// What a dashboard writes when it sees `id` finish: the status, then its claim.
fn finish(id: &str) -> Vec<PersistOp> {
    vec![
        PersistOp::Status(key(id), known("COMPLETED", 100, Some(5))),
        PersistOp::Claim(key(id)),
    ]
}

/// A dashboard whose one service (and its entries' with none recorded) is `http://svc`.
fn polls_svc() -> Pollable {
    Pollable::new("http://svc", [])
}

/// A saver of `store` running as `me`: the sender of its operations, what it tells the App,
/// and its task (it ends when the sender is dropped).
fn running_saver(
    store: &WatchStore,
    me: Claimant,
    archiving: Archiving,
    pollable: Pollable,
) -> (
    mpsc::Sender<PersistOp>,
    mpsc::Receiver<Msg>,
    tokio::task::JoinHandle<()>,
) {
    let (tx, rx) = mpsc::channel(64);
    let (msgs, told) = mpsc::channel(64);
    let saver = tokio::spawn(run(store.clone(), rx, msgs, me, archiving, pollable));
    (tx, told, saver)
}

/// Runs a saver of `store` as `me`, polling what `pollable` says, over `ops` to its end (as
/// each dashboard's is, one write): what it told the App.
async fn write(
    store: &WatchStore,
    me: Claimant,
    archiving: Archiving,
    pollable: Pollable,
    ops: Vec<PersistOp>,
) -> Vec<Msg> {
    let (tx, mut told, saver) = running_saver(store, me, archiving, pollable);
    for op in ops {
        tx.send(op).await.expect("send");
    }
    drop(tx);
    saver.await.expect("saver");
    let mut out = Vec::new();
    while let Ok(m) = told.try_recv() {
        out.push(m);
    }
    out
}

/// The next run end a running saver tells its App of (`here`), within 20 s.
async fn next_run_end(told: &mut mpsc::Receiver<Msg>) -> Option<bool> {
    let next = async {
        loop {
            match told.recv().await {
                Some(Msg::RunEnded { here }) => return Some(here),
                Some(_) => {}
                None => return None,
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(20), next)
        .await
        .ok()
        .flatten()
}

/// The task IDs on disk, in order.
fn listed(store: &WatchStore) -> Vec<String> {
    let entries = store.load().expect("load").entries;
    entries.into_iter().map(|e| e.task_id).collect()
}

/// The run ends a saver told its App of (`here` each).
fn ended(told: &[Msg]) -> Vec<bool> {
    told.iter()
        .filter_map(|m| match m {
            Msg::RunEnded { here } => Some(*here),
            _ => None,
        })
        .collect()
}

/// A task is new from the status that first records it finished after it ran (two
/// dashboards may both report the finish: a look recorded between stands); a look clears
/// it; one found finished at its first status is not new.
#[test]
fn a_finish_marks_new_once_and_a_look_clears_it() {
    let me = me("me");
    let status =
        |text: &str, finished: Option<u64>| PersistOp::Status(key("t"), known(text, 0, finished));
    let mut list = vec![WatchEntry::new("t", TaskKind::Image)];
    let _ = apply(
        &mut list,
        &mut Index::default(),
        &status("COMPLETED", Some(5)),
        &me,
    );
    assert_eq!(list[0].seen, None, "found finished: not new");
    let mut list = vec![WatchEntry::new("t", TaskKind::Image)];
    let _ = apply(
        &mut list,
        &mut Index::default(),
        &status("IN_PROGRESS", None),
        &me,
    );
    let _ = apply(
        &mut list,
        &mut Index::default(),
        &status("COMPLETED", Some(5)),
        &me,
    );
    assert_eq!(list[0].seen, Some(false));
    let _ = apply(
        &mut list,
        &mut Index::default(),
        &PersistOp::Seen(vec![key("t")]),
        &me,
    );
    assert_eq!(list[0].seen, Some(true));
    // The other dashboard's report of the same finish, after the look.
    let _ = apply(
        &mut list,
        &mut Index::default(),
        &status("COMPLETED", Some(6)),
        &me,
    );
    assert_eq!(list[0].seen, Some(true));
}

/// Another dashboard's older status (running) written after the finish leaves it finished.
#[test]
fn a_finished_task_never_runs_again_in_the_file() {
    let me = me("me");
    let status = |text: &str, percent: u8, finished: Option<u64>| {
        PersistOp::Status(key("t"), known(text, percent, finished))
    };
    let mut list = vec![WatchEntry::new("t", TaskKind::Image)];
    let _ = apply(
        &mut list,
        &mut Index::default(),
        &status("IN_PROGRESS", 40, None),
        &me,
    );
    let _ = apply(
        &mut list,
        &mut Index::default(),
        &status("COMPLETED", 100, Some(5)),
        &me,
    );
    let _ = apply(
        &mut list,
        &mut Index::default(),
        &status("IN_PROGRESS", 90, None),
        &me,
    );
    let kept = list[0].last.as_ref().expect("known");
    assert_eq!((kept.status.as_str(), kept.percent), ("COMPLETED", 100));
}

/// Claims `key` through a saver of `store` as `me`; the answer it sent.
async fn claim(store: &WatchStore, me: Claimant, key: &TaskKey) -> bool {
    let told = write(
        store,
        me,
        Archiving::default(),
        polls_svc(),
        vec![PersistOp::Claim(key.clone())],
    )
    .await;
    let mut won = None;
    for msg in told {
        if let Msg::Claimed { key: k, won: w } = msg {
            assert_eq!(&k, key);
            won = Some(w);
        }
    }
    won.expect("answered")
}

/// One claim per task between the dashboards that run: the first takes it, another does
/// not while the first runs, and does once it is gone; the first may claim again.
#[tokio::test]
async fn a_claim_goes_to_one_running_dashboard() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = WatchStore::new(dir.path().join("w.json"));
    store
        .update(|l| l.push(WatchEntry::new("t-1", TaskKind::Image)))
        .expect("add");
    let first_runs = Arc::new(AtomicBool::new(true));
    let runs = first_runs.clone();
    let running: Arc<dyn Fn(&str) -> bool + Send + Sync> =
        Arc::new(move |id: &str| id == "first" && runs.load(Ordering::SeqCst));
    let me = |id: &str| Claimant {
        id: id.into(),
        running: running.clone(),
    };
    assert!(claim(&store, me("first"), &key("t-1")).await);
    assert!(!claim(&store, me("second"), &key("t-1")).await);
    assert!(claim(&store, me("first"), &key("t-1")).await);
    let on_disk = store.load().expect("load").entries;
    assert_eq!(on_disk[0].claimed_by.as_deref(), Some("first"));
    first_runs.store(false, Ordering::SeqCst);
    assert!(claim(&store, me("second"), &key("t-1")).await);
    assert!(!claim(&store, me("second"), &key("not-listed")).await);
}

/// Two dashboards write the finishes of two running tasks, each its own and the other's
/// again: exactly one write, the one that left nothing running, says it ended the run.
#[tokio::test]
async fn one_write_of_the_two_dashboards_ends_the_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = WatchStore::new(dir.path().join("w.json"));
    store
        .update(|l| l.extend([running("t-1", None), running("t-2", None)]))
        .expect("add");
    let write = |who: &str, ops| {
        let me = me(who);
        let store = &store;
        async move { ended(&write(store, me, Archiving::default(), polls_svc(), ops).await) }
    };
    assert_eq!(write("a", finish("t-1")).await, Vec::<bool>::new());
    assert_eq!(
        write("b", finish("t-2")).await,
        [true],
        "b's write ended it"
    );
    assert_eq!(write("a", finish("t-2")).await, Vec::<bool>::new());
    assert_eq!(write("b", finish("t-1")).await, Vec::<bool>::new());
}

/// A task whose service this dashboard cannot poll (not configured, or its client could
/// not be made), and no other running dashboard polls, goes nowhere: the write that
/// finishes the last other running task ends the run, as the rows' `no service` says.
#[tokio::test]
async fn a_task_of_no_usable_service_does_not_keep_the_run_going() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = WatchStore::new(dir.path().join("w.json"));
    store
        .update(|l| {
            l.extend([
                running("t-1", None),
                running("t-2", Some("http://nowhere:1")),
                running("t-3", Some("http://broken:2")),
            ]);
        })
        .expect("add");
    let pollable = Pollable::new("http://svc", ["http://broken:2".to_string()]);
    // The router found its client cannot be made.
    pollable.clone().unusable("http://broken:2");
    let told = write(
        &store,
        me("me"),
        Archiving::default(),
        pollable,
        finish("t-1"),
    )
    .await;
    assert_eq!(ended(&told), [true], "t-1's finish ended the run");
}

/// The write of `me` (with `pollable`) over `ops`: the run ends it told.
async fn ends(
    store: &WatchStore,
    me: Claimant,
    pollable: Pollable,
    ops: Vec<PersistOp>,
) -> Vec<bool> {
    ended(&write(store, me, Archiving::default(), pollable, ops).await)
}

/// `t-1` of `http://svc` and `t-2` of `http://other` run; `wide` (polling both, as `wide`
/// says) writes `t-2`'s status, which marks it as its poller; `narrow` (polling only
/// `http://svc`) writes `t-1`'s finish, which ends nothing: `t-2` runs for both.
async fn narrow_finishes_while_wide_polls(store: &WatchStore, wide: &Pollable) {
    store
        .update(|l| l.extend([running("t-1", None), running("t-2", Some("http://other"))]))
        .expect("add");
    let status = vec![PersistOp::Status(
        key("t-2"),
        known("IN_PROGRESS", 50, None),
    )];
    assert!(
        ends(store, me("wide"), wide.clone(), status)
            .await
            .is_empty()
    );
    let on_disk = store.load().expect("load").entries;
    assert_eq!(on_disk[1].polled_by.as_deref(), Some("wide"));
    let told = ends(store, me("narrow"), polls_svc(), finish("t-1")).await;
    assert!(told.is_empty(), "wide's task still runs: {told:?}");
}

/// Two dashboards of different configs: `narrow` polls only `http://svc`, `wide` polls
/// `http://other` too. A task of `http://other` that `wide` polls keeps the run going for
/// both: the finish `narrow` writes of the last task it polls ends nothing, the finish of
/// `wide`'s task ends it, once.
#[tokio::test]
async fn a_task_another_running_dashboard_polls_keeps_the_run_going() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = WatchStore::new(dir.path().join("w.json"));
    let wide = Pollable::new("http://svc", ["http://other".to_string()]);
    narrow_finishes_while_wide_polls(&store, &wide).await;
    let told = ends(&store, me("wide"), wide, finish("t-2")).await;
    assert_eq!(told, [true], "the last finish ends the run");
    assert!(
        store
            .load()
            .expect("load")
            .entries
            .iter()
            .all(|e| e.polled_by.is_none()),
        "a finished task is polled by no one"
    );
    // With `wide` gone, its mark keeps nothing going: `narrow` takes it for no service's.
    let gone = Claimant {
        id: "narrow".into(),
        running: Arc::new(|id: &str| id != "wide"),
    };
    store
        .update(|l| {
            l.push(running("t-3", Some("http://other")));
            l[2].polled_by = Some("wide".into());
            l.push(running("t-4", None));
        })
        .expect("add");
    assert_eq!(ends(&store, gone, polls_svc(), finish("t-4")).await, [true]);
}

/// A dashboard marks the tasks it polls as soon as it runs, before any operation of its App
/// (its statuses wait five checks): `wide` started, with nothing to write yet, keeps its task
/// of `http://other` going when `narrow` writes the finish of the last task it polls.
#[tokio::test]
async fn a_dashboard_marks_what_it_polls_at_once_and_keeps_the_run_going() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = WatchStore::new(dir.path().join("w.json"));
    store
        .update(|l| l.extend([running("t-1", None), running("t-2", Some("http://other"))]))
        .expect("add");
    let wide = Pollable::new("http://svc", ["http://other".to_string()]);
    let (tx, mut told, saver) = running_saver(&store, me("wide"), Archiving::default(), wide);
    let marked = || store.load().expect("load").entries[1].polled_by.clone();
    // Bounded: without the mark nothing writes, and this gives up after 10 s.
    for _ in 0..200 {
        if marked().is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        marked().as_deref(),
        Some("wide"),
        "marked with no operation"
    );
    let narrow = ends(&store, me("narrow"), polls_svc(), finish("t-1")).await;
    assert!(narrow.is_empty(), "wide's task still runs: {narrow:?}");
    drop(tx);
    saver.await.expect("saver");
    while let Ok(m) = told.try_recv() {
        assert!(!matches!(m, Msg::RunEnded { .. }), "wide ends nothing");
    }
}

/// A service found unusable after the last other task finished: the task of it stops
/// running, and the write that takes this dashboard's mark off it ends the run (once: the
/// other dashboard is told it ended elsewhere).
#[tokio::test]
async fn a_service_found_unusable_after_the_last_finish_ends_the_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = WatchStore::new(dir.path().join("w.json"));
    let pollable = Pollable::new("http://svc", ["http://other".to_string()]);
    narrow_finishes_while_wide_polls(&store, &pollable).await;
    pollable.clone().unusable("http://other");
    // No operation: the saver's tick sees its stale mark and writes.
    let (tx, mut told, saver) = running_saver(&store, me("wide"), Archiving::default(), pollable);
    let here = next_run_end(&mut told).await;
    drop(tx);
    saver.await.expect("saver");
    assert_eq!(here, Some(true));
    assert_eq!(store.load().expect("load").entries[1].polled_by, None);
}

/// The last running task's finish and its removal in one batch end the run, told.
#[tokio::test]
async fn a_finish_and_its_removal_in_one_batch_end_the_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = WatchStore::new(dir.path().join("w.json"));
    store.update(|l| l.push(running("t-1", None))).expect("add");
    let mut ops = finish("t-1");
    ops.push(PersistOp::Remove(vec![key("t-1")]));
    assert_eq!(
        ended(&save(&store, Archiving::default(), ops).await),
        [true]
    );
}

/// The last running task removed rather than finished ends the run untold, in the
/// dashboard that removed it as in the others: its finishes are not counted in the next.
#[tokio::test]
async fn removing_the_last_running_task_ends_the_run_untold() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = WatchStore::new(dir.path().join("w.json"));
    store.update(|l| l.push(running("t-1", None))).expect("add");
    let remove = PersistOp::Remove(vec![key("t-1")]);
    let told = save(&store, Archiving::default(), vec![remove]).await;
    assert_eq!(ended(&told), [false]);
}

/// A dashboard that starts while a run goes, and never writes, is told that another
/// dashboard's write ended it (its App's counts start anew). On tokio's paused clock: the
/// saver's reads run on blocking threads, which hold the clock until they are done, so its
/// first read is done before the two seconds pass, and they pass at once.
#[tokio::test(start_paused = true)]
async fn a_run_going_at_start_that_another_ends_is_told() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = WatchStore::new(dir.path().join("w.json"));
    store.update(|l| l.push(running("t-1", None))).expect("add");
    let (tx, mut told, saver) = running_saver(&store, me("me"), Archiving::default(), polls_svc());
    // Its first read (of the running list) is done long before.
    tokio::time::sleep(Duration::from_secs(2)).await;
    store
        .update(|l| l[0].last = Some(known("COMPLETED", 100, Some(5))))
        .expect("the other dashboard's write");
    let ended = next_run_end(&mut told).await;
    drop(tx);
    saver.await.expect("saver");
    assert_eq!(ended, Some(false));
}

/// A status update waits for the next write (a second); `finish` writes it before the
/// dashboard ends, and only then takes this dashboard off the running ones.
#[tokio::test]
async fn finish_writes_what_is_pending_then_unregisters() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = WatchStore::new(dir.path().join("w.json"));
    let registered = || std::fs::read_dir(dir.path().join("dashboards")).map_or(0, Iterator::count);
    let (msgs, _answers) = mpsc::channel(16);
    let saver = spawn(
        store.clone(),
        dir.path().join("dashboards"),
        Archiving::default(),
        polls_svc(),
        msgs,
    );
    assert_eq!(registered(), 1, "registered while it runs");
    saver.persist(PersistOp::Add(vec![WatchEntry::new(
        "t-1",
        TaskKind::Image,
    )]));
    let status = known("running", 40, None);
    saver.persist(PersistOp::Status(key("t-1"), status.clone()));
    saver.finish(Duration::from_secs(20)).await;
    let on_disk = store.load().expect("load").entries;
    assert_eq!(on_disk.len(), 1);
    assert_eq!(on_disk[0].last.as_ref(), Some(&status));
    assert_eq!(registered(), 0, "unregistered once it ended");
}

fn done(id: &str, finished_at: u64) -> WatchEntry {
    let mut e = WatchEntry::new(id, TaskKind::Image);
    e.service = Some("http://svc".into());
    e.last = Some(known("COMPLETED", 100, Some(finished_at)));
    e
}

/// Runs a saver as `me` (polling `http://svc`) with `archiving` over `ops`, to its end.
async fn save(store: &WatchStore, archiving: Archiving, ops: Vec<PersistOp>) -> Vec<Msg> {
    write(store, me("me"), archiving, polls_svc(), ops).await
}

fn archived(path: &archive::Files) -> Vec<String> {
    Archive::open(path)
        .expect("archive")
        .list()
        .expect("list")
        .into_iter()
        .map(|t| t.entry.task_id)
        .collect()
}

/// Removed finished tasks move to the archive (and the App hears the archive changed); a
/// removed task still running does not; put back on the list, a task leaves the archive.
#[tokio::test]
async fn removed_finished_tasks_move_to_the_archive() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = WatchStore::new(dir.path().join("watchlist.json"));
    let path = archive::Files::in_dir(dir.path());
    let running = WatchEntry::new("running", TaskKind::Image);
    store
        .update(|l| {
            l.push(done("a", 100));
            l.push(done("b", 200));
            l.push(running.clone());
        })
        .expect("list");
    // The first open imports the list's finished tasks: empty it first.
    let mut first = Archive::open(&path).expect("archive");
    let all: Vec<i64> = first.list().expect("list").iter().map(|t| t.id).collect();
    first.delete(&all).expect("delete");
    let archiving = Archiving {
        files: Some(path.clone()),
        after: None,
    };
    let keys = vec![key("a"), key("running")];
    let told = save(&store, archiving.clone(), vec![PersistOp::Remove(keys)]).await;
    assert_eq!(archived(&path), ["a"]);
    assert_eq!(listed(&store), ["b"]);
    assert!(
        told.iter()
            .any(|m| matches!(m, Msg::Archive(ArchiveReport::Changed)))
    );
    // Undo puts it back: it leaves the archive.
    let _ = save(
        &store,
        archiving,
        vec![PersistOp::Add(vec![done("a", 100)])],
    )
    .await;
    assert!(archived(&path).is_empty());
    assert_eq!(store.load().expect("load").entries.len(), 2);
}

/// A finish and a removal written in one batch (the finish's write waited for the one
/// before it): the task is archived as finished, not dropped as the running task the
/// file knew. So is a task added and removed in one batch.
#[tokio::test]
async fn a_finish_and_a_removal_in_one_batch_archive_the_task() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = WatchStore::new(dir.path().join("watchlist.json"));
    let path = archive::Files::in_dir(dir.path());
    store.update(|l| l.push(running("r", None))).expect("list");
    drop(Archive::open(&path).expect("archive"));
    let archiving = Archiving {
        files: Some(path.clone()),
        after: None,
    };
    let finished = done("r", 100).last.expect("last");
    let (r, c) = (key("r"), key("c"));
    let ops = vec![
        PersistOp::Status(r.clone(), finished),
        PersistOp::Add(vec![done("c", 200)]),
        PersistOp::Remove(vec![r, c]),
    ];
    let _ = save(&store, archiving, ops).await;
    assert!(store.load().expect("load").entries.is_empty());
    let mut kept: Vec<(String, String, bool)> = Archive::open(&path)
        .expect("archive")
        .list()
        .expect("list")
        .into_iter()
        .map(|t| {
            let last = t.entry.last.expect("last");
            (t.entry.task_id, last.status, last.finished_at.is_some())
        })
        .collect();
    kept.sort();
    assert_eq!(
        kept,
        [
            ("c".into(), "COMPLETED".into(), true),
            ("r".into(), "COMPLETED".into(), true)
        ],
        "in the archive as finished, not lost"
    );
}

/// When the archive cannot take them, the finished tasks stay on the watch list.
#[tokio::test]
async fn a_failing_archive_keeps_them_on_the_list() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = WatchStore::new(dir.path().join("watchlist.json"));
    let path = archive::Files::in_dir(dir.path());
    std::fs::create_dir(&path.archive).expect("a directory in the way");
    store.update(|l| l.push(done("a", 100))).expect("list");
    let archiving = Archiving {
        files: Some(path),
        after: None,
    };
    let keys = vec![key("a")];
    let told = save(&store, archiving, vec![PersistOp::Remove(keys)]).await;
    assert_eq!(store.load().expect("load").entries.len(), 1);
    assert!(
        told.iter()
            .any(|m| matches!(m, Msg::StoreProblem(t) if t.contains("stay on the watch list")))
    );
}

/// `archive_after` moves the tasks finished that long ago at start, and no others.
#[tokio::test]
async fn archive_after_moves_old_finished_tasks_at_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = WatchStore::new(dir.path().join("watchlist.json"));
    let path = archive::Files::in_dir(dir.path());
    let now = unix_now();
    // Open it first so the import has happened on an empty list.
    drop(Archive::open(&path).expect("archive"));
    store
        .update(|l| {
            l.push(done("old", now - 3 * 86_400));
            l.push(done("recent", now - 3600));
            l.push(WatchEntry::new("running", TaskKind::Image));
        })
        .expect("list");
    let archiving = Archiving {
        files: Some(path.clone()),
        after: Some(Duration::from_secs(2 * 86_400)),
    };
    let told = save(&store, archiving.clone(), Vec::new()).await;
    assert_eq!(archived(&path), ["old"]);
    assert_eq!(store.load().expect("load").entries.len(), 2);
    assert!(
        told.iter()
            .any(|m| matches!(m, Msg::WatchFile { entries, .. } if entries.len() == 2))
    );
    assert_eq!(
        archiving.next_due(&store.load().expect("load").entries),
        Some(now - 3600 + 2 * 86_400)
    );
}

/// A poll's status waits for the tenth check (ten seconds), not the first; a user's own
/// change goes at once and takes it along; a finish's claim goes at the next check.
#[tokio::test(start_paused = true)]
async fn routine_statuses_wait_ten_checks_and_claims_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = WatchStore::new(dir.path().join("watchlist.json"));
    store
        .update(|l| l.push(WatchEntry::new("t", TaskKind::Image)))
        .expect("list");
    let archiving = Archiving {
        files: None,
        after: None,
    };
    let (tx, mut told, saver) = running_saver(&store, me("me"), archiving, polls_svc());
    let percent = |store: &WatchStore| {
        store.load().expect("load").entries[0]
            .last
            .as_ref()
            .map(|l| l.percent)
    };
    let status = |percent| {
        PersistOp::Status(
            TaskKey::new(TaskKind::Image, "t"),
            LastKnown {
                status: "IN_PROGRESS".into(),
                percent,
                ..LastKnown::default()
            },
        )
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    tx.send(status(10)).await.expect("send");
    tokio::time::sleep(CHECK_EVERY * 8).await;
    assert_eq!(percent(&store), None, "written before the tenth check");
    tokio::time::sleep(CHECK_EVERY * 3).await;
    assert_eq!(percent(&store), Some(10));
    // A label (the user's) goes at once, with the routine status that waited.
    tx.send(status(20)).await.expect("send");
    tx.send(PersistOp::Label(
        vec![TaskKey::new(TaskKind::Image, "t")],
        Some("mine".into()),
    ))
    .await
    .expect("send");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(percent(&store), Some(20));
    // A claim waits for the next check, not five, and is answered then.
    tx.send(status(30)).await.expect("send");
    tx.send(PersistOp::Claim(TaskKey::new(TaskKind::Image, "t")))
        .await
        .expect("send");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        percent(&store),
        Some(20),
        "a claim written before the check"
    );
    tokio::time::sleep(CHECK_EVERY).await;
    assert_eq!(percent(&store), Some(30));
    let mut claimed = false;
    while let Ok(m) = told.try_recv() {
        claimed |= matches!(m, Msg::Claimed { won: true, .. });
    }
    assert!(claimed, "the claim answered");
    drop(tx);
    saver.await.expect("saver");
}

/// One write applies a batch through its index of the list: a status after an add or a
/// removal in the same batch lands on its own task, wherever the change moved it.
#[test]
fn statuses_land_on_their_tasks_across_adds_and_removals_in_one_batch() {
    let mut list = vec![running("a", None), running("b", None)];
    let ops = vec![
        PersistOp::Status(key("a"), known("IN_PROGRESS", 50, None)),
        PersistOp::Remove(vec![key("a")]),
        PersistOp::Status(key("b"), known("IN_PROGRESS", 60, None)),
        PersistOp::Add(vec![WatchEntry::new("c", TaskKind::Image)]),
        PersistOp::Status(key("c"), known("IN_PROGRESS", 70, None)),
    ];
    let (removed, _) = apply_all(&mut list, &ops, &me("me"), false);
    let percents: Vec<_> = list
        .iter()
        .map(|e| (e.task_id.as_str(), e.last.as_ref().map(|l| l.percent)))
        .collect();
    assert_eq!(percents, [("b", Some(60)), ("c", Some(70))]);
    let removed: Vec<_> = removed
        .iter()
        .map(|e| (e.task_id.as_str(), e.last.as_ref().map(|l| l.percent)))
        .collect();
    assert_eq!(removed, [("a", Some(50))], "removed as it was when removed");
}

/// The next list a running saver tells its App of, within a second (before its next check).
async fn next_list(told: &mut mpsc::Receiver<Msg>) -> Msg {
    let next = async {
        loop {
            match told.recv().await {
                Some(m @ (Msg::WatchFile { .. } | Msg::WatchSaved { .. })) => return m,
                Some(_) => {}
                None => panic!("the saver ended"),
            }
        }
    };
    tokio::time::timeout(Duration::from_millis(900), next)
        .await
        .expect("a list within the second")
}

/// How many of the App's ops a told list holds.
fn applied_of(m: &Msg) -> u64 {
    match m {
        Msg::WatchFile { applied, .. } | Msg::WatchSaved { applied, .. } => *applied,
        other => panic!("not a list: {other:?}"),
    }
}

/// After a write that holds only the App's own ops, the list goes back shared and marked as
/// such (`WatchSaved`); the first write, and one that found another process's change, send
/// it as news (`WatchFile`).
#[tokio::test(start_paused = true)]
async fn a_write_of_the_apps_own_ops_says_so_and_one_with_news_sends_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = WatchStore::new(dir.path().join("w.json"));
    store.update(|l| l.push(running("t", None))).expect("list");
    let (tx, mut told, saver) = running_saver(&store, me("me"), Archiving::default(), polls_svc());
    let label = |text: &str| PersistOp::Label(vec![key("t")], Some(text.into()));
    let ids = |entries: &[WatchEntry]| -> Vec<String> {
        entries.iter().map(|e| e.task_id.clone()).collect()
    };

    // The saver's first check may write this dashboard's polling marks before the label's
    // write: either way, the first list told is news.
    tx.send(label("one")).await.expect("send");
    let first = next_list(&mut told).await;
    assert!(
        matches!(first, Msg::WatchFile { .. }),
        "the first write is news"
    );
    let mut applied = applied_of(&first);
    while applied < 1 {
        applied = applied_of(&next_list(&mut told).await);
    }
    tx.send(label("two")).await.expect("send");
    match next_list(&mut told).await {
        Msg::WatchSaved { entries, applied } => {
            assert_eq!(applied, 2);
            assert_eq!(entries[0].label.as_deref(), Some("two"));
        }
        other => panic!("only the App's own op, sent as news: {other:?}"),
    }
    // Another process adds a task; the next write finds it (before any check reads it).
    store.update(|l| l.push(running("ext", None))).expect("add");
    tx.send(label("three")).await.expect("send");
    match next_list(&mut told).await {
        Msg::WatchFile { entries, .. } => {
            assert_eq!(ids(&entries), ["t", "ext"]);
            // The saver keeps the very list it sent as the one it wrote: no copy of it.
            assert_eq!(Arc::strong_count(&entries), 2, "shared with the saver");
        }
        other => panic!("another process's task, not sent as news: {other:?}"),
    }
    drop(tx);
    saver.await.expect("saver");
}
