use super::*;
use crate::api::TaskKind;
use crate::api::types::default_failure_statuses;
use crate::api::{ApiError, TaskResult};
use crate::app::effects::Effects;
use crate::cmd::{PersistOp, PollCmd};
use crate::store::watchlist::{LastKnown, Trouble, TroubleKind};
use std::time::Duration;

fn statuses() -> Vec<String> {
    default_failure_statuses()
}

use crate::testing::task_result as result;

#[test]
fn only_a_plain_http_or_https_url_is_openable() {
    let with_url = |url: &str| {
        let mut e = new_entry("t", TaskKind::Image, 0);
        e.last = Some(LastKnown {
            status: "COMPLETED".into(),
            url_download: Some(url.into()),
            ..LastKnown::default()
        });
        Watch::new(vec![e], statuses())
    };
    let https = "https://cdn.example/t.png";
    assert_eq!(with_url(https).rows[0].openable_url(), Some(https));
    for refused in [
        "file:///etc/passwd",
        "javascript:alert(1)",
        "https://a b/c.png",
    ] {
        let w = with_url(refused);
        assert_eq!(w.rows[0].url(), Some(refused));
        assert_eq!(w.rows[0].openable_url(), None, "{refused}");
    }
    assert_eq!(
        Watch::new(vec![new_entry("t", TaskKind::Image, 0)], statuses()).rows[0].openable_url(),
        None
    );
}

#[test]
fn add_remove_undo() {
    let mut w = Watch::new(Vec::new(), statuses());
    let Changed {
        cmds,
        what: Added {
            keys: added,
            skipped,
        },
    } = super::undo::add(
        &mut w,
        vec![
            new_entry("a", TaskKind::Image, 0),
            new_entry("b", TaskKind::Video, 0),
            new_entry("a", TaskKind::Image, 0),
        ],
        0,
    );
    assert_eq!((added.len(), skipped), (2, 1));
    assert!(matches!(&cmds[0], Cmd::Persist(PersistOp::Add(v)) if v.len() == 2));
    assert_eq!(
        cmds[1..],
        [
            Cmd::Poll(PollCmd::Watch(TaskKey::new(TaskKind::Image, "a"), None)),
            Cmd::Poll(PollCmd::Watch(TaskKey::new(TaskKind::Video, "b"), None))
        ]
    );
    assert_eq!(
        super::undo::add(&mut w, vec![new_entry("a", TaskKind::Image, 0)], 0)
            .what
            .skipped,
        1,
        "duplicates are not added"
    );
    w.select(0);
    let Changed { cmds, what: id } = super::undo::remove_selected(&mut w, 0);
    assert_eq!(id.as_deref(), Some("a"));
    assert_eq!(
        cmds[0],
        Cmd::Poll(PollCmd::Unwatch(TaskKey::new(TaskKind::Image, "a")))
    );
    assert_eq!(w.rows.len(), 1);
    let Changed { cmds, what: undone } = super::undo::revert_last(&mut w, 0).expect("undo remove");
    assert!(matches!(&cmds[0], Cmd::Persist(PersistOp::Add(v)) if v[0].task_id == "a"));
    assert_eq!(undone, Undone::Restored(vec!["a".into()]));
    assert_eq!(w.rows[0].entry.task_id, "a", "restored at its old place");
    let Changed { cmds, what: undone } = super::undo::revert_last(&mut w, 0).expect("undo add");
    assert_eq!(undone, Undone::TookBack(vec!["a".into(), "b".into()]));
    assert!(w.rows.is_empty());
    assert!(cmds.contains(&Cmd::Poll(PollCmd::Unwatch(TaskKey::new(
        TaskKind::Video,
        "b"
    )))));
    assert!(super::undo::revert_last(&mut w, 0).is_none());
}

#[test]
fn an_answer_reaches_its_own_row_after_rows_come_and_go() {
    let entries = ["a", "b", "c"].map(|id| new_entry(id, TaskKind::Image, 0));
    let mut w = Watch::new(entries.to_vec(), statuses());
    let key = |id: &str| TaskKey::new(TaskKind::Image, id);
    let _ = poll::polled(
        &mut w,
        &key("c"),
        Ok(result("c", "IN_PROGRESS", 10)),
        None,
        100,
    );
    // "a" goes: every row after it moves up one.
    super::undo::remove(&mut w, &[key("a")], 101);
    let _ = poll::polled(
        &mut w,
        &key("c"),
        Ok(result("c", "IN_PROGRESS", 30)),
        None,
        102,
    );
    let _ = poll::polled(
        &mut w,
        &key("b"),
        Ok(result("b", "IN_PROGRESS", 20)),
        None,
        103,
    );
    let percents: Vec<(&str, u8)> = w
        .rows
        .iter()
        .map(|r| (r.entry.task_id.as_str(), r.percent()))
        .collect();
    assert_eq!(percents, [("b", 20), ("c", 30)]);
    // Same ID, the other kind: not this row.
    let _ = poll::polled(
        &mut w,
        &TaskKey::new(TaskKind::Video, "b"),
        Ok(result("b", "IN_PROGRESS", 90)),
        None,
        104,
    );
    assert_eq!(w.rows[0].percent(), 20);
}

#[test]
fn polls_update_rows_and_notify_once_on_finish() {
    let mut w = Watch::new(vec![new_entry("t", TaskKind::Image, 0)], statuses());
    let key = TaskKey::new(TaskKind::Image, "t");
    let Effects {
        cmds,
        redraw: changed,
        ..
    } = poll::polled(&mut w, &key, Ok(result("t", "IN_PROGRESS", 40)), None, 100);
    assert!(changed);
    assert!(matches!(&cmds[..], [Cmd::Persist(PersistOp::Status(_, l))] if l.percent == 40));
    let Effects { cmds, .. } = poll::polled(
        &mut w,
        &key,
        Err(ApiError::Http {
            status: 502,
            excerpt: "bad".into(),
            retry_after: None,
        }),
        Some(Duration::from_secs(4)),
        101,
    );
    assert!(matches!(
        &cmds[..],
        [Cmd::Persist(PersistOp::Trouble(_, Some(_)))]
    ));
    assert_eq!(w.rows[0].error(), Some("HTTP 502: bad"));
    assert_eq!(row::counts(&w, 200).erroring, 1);
    let Effects { cmds, .. } =
        poll::polled(&mut w, &key, Ok(result("t", "COMPLETED", 100)), None, 102);
    assert_eq!(cmds[0], Cmd::Persist(PersistOp::Trouble(key.clone(), None)));
    assert_eq!(cmds[2], Cmd::Persist(PersistOp::Claim(key.clone())));
    let cmds = end::claimed(&mut w, &key, true).cmds;
    // The notice is the state's (the notification policy's): here only `on_complete`.
    assert!(matches!(&cmds[..], [Cmd::Finished(f)] if f.task_id == "t"));
    assert_eq!(w.rows[0].state, TaskState::Completed);
    assert_eq!(w.rows[0].error(), None);
    assert_eq!(w.rows[0].url(), Some("http://127.0.0.1:8787/files/t.png"));
    let Effects { cmds, .. } =
        poll::polled(&mut w, &key, Ok(result("t", "COMPLETED", 100)), None, 103);
    assert!(
        cmds.is_empty(),
        "no second notification, nothing to persist"
    );
    let c = row::counts(&w, 200);
    assert_eq!((c.running, c.completed, c.failed, c.erroring), (0, 1, 0, 0));
}

#[test]
fn finished_tasks_from_disk_are_not_polled() {
    let mut done = new_entry("d", TaskKind::Image, 0);
    done.last = Some(LastKnown {
        status: "FAILED".into(),
        percent: 10,
        url_download: None,
        updated_at: 1,
        ..LastKnown::default()
    });
    let w = Watch::new(vec![done, new_entry("r", TaskKind::Image, 0)], statuses());
    assert_eq!(
        poll::start_polling(&w),
        [Cmd::Poll(PollCmd::Watch(
            TaskKey::new(TaskKind::Image, "r"),
            None
        ))]
    );
}

#[test]
fn external_changes_are_merged() {
    let mut w = Watch::new(
        vec![
            new_entry("a", TaskKind::Image, 0),
            new_entry("b", TaskKind::Image, 0),
        ],
        statuses(),
    );
    let Effects {
        cmds,
        redraw: changed,
        ..
    } = super::merge::external(
        &mut w,
        &[
            new_entry("b", TaskKind::Image, 0),
            new_entry("c", TaskKind::Video, 0),
        ],
        0,
    );
    assert!(changed);
    assert_eq!(
        cmds,
        [
            Cmd::Poll(PollCmd::Unwatch(TaskKey::new(TaskKind::Image, "a"))),
            Cmd::Poll(PollCmd::Watch(TaskKey::new(TaskKind::Video, "c"), None))
        ]
    );
    let ids: Vec<_> = w.rows.iter().map(|r| r.entry.task_id.as_str()).collect();
    assert_eq!(ids, ["b", "c"]);
    assert!(
        !super::merge::external(
            &mut w,
            &[
                new_entry("b", TaskKind::Image, 0),
                new_entry("c", TaskKind::Video, 0)
            ],
            0
        )
        .redraw
    );
}

fn lookup_failed() -> Result<TaskResult, ApiError> {
    Err(ApiError::Lookup {
        description: "task not found".into(),
    })
}

fn ids(w: &Watch) -> Vec<&str> {
    w.order
        .iter()
        .map(|&i| w.rows[i].entry.task_id.as_str())
        .collect()
}

#[test]
fn each_state_is_its_own_and_counted_apart() {
    let k = |id: &str| TaskKey::new(TaskKind::Image, id);
    let mut w = Watch::new(
        ["run", "gone", "err", "done", "new"]
            .iter()
            .map(|id| new_entry(id, TaskKind::Image, 0))
            .collect(),
        statuses(),
    );
    let _ = poll::polled(
        &mut w,
        &k("run"),
        Ok(result("run", "IN_PROGRESS", 10)),
        None,
        10,
    );
    let Effects {
        redraw: changed, ..
    } = poll::polled(
        &mut w,
        &k("gone"),
        lookup_failed(),
        Some(Duration::from_secs(15)),
        10,
    );
    assert!(changed);
    let _ = poll::polled(
        &mut w,
        &k("err"),
        Ok(result("err", "IN_PROGRESS", 50)),
        None,
        10,
    );
    let _ = poll::polled(
        &mut w,
        &k("err"),
        Err(ApiError::Http {
            status: 503,
            excerpt: "busy".into(),
            retry_after: None,
        }),
        Some(Duration::from_secs(4)),
        12,
    );
    let _ = poll::polled(
        &mut w,
        &k("done"),
        Ok(result("done", "COMPLETED", 100)),
        None,
        10,
    );
    let phases: Vec<Phase> = w.rows.iter().map(|r| r.phase(12, 300)).collect();
    assert_eq!(
        phases,
        [
            Phase::Running,
            Phase::NotFound,
            Phase::Running,
            Phase::Completed,
            Phase::NotPolled
        ]
    );
    let gone = &w.rows[1];
    assert_eq!(gone.not_found(), Some("task not found"));
    assert_eq!(gone.next_retry_at(), Some(25), "the next retry is shown");
    assert!(gone.error().is_none(), "an unknown task is not an error");
    let err = &w.rows[2];
    assert_eq!(
        err.entry.last.as_ref().map(|l| l.percent),
        Some(50),
        "last status kept"
    );
    assert_eq!((err.retries(), err.next_retry_at()), (1, Some(16)));
    let c = row::counts(&w, 12);
    assert_eq!(
        (
            c.running,
            c.not_found,
            c.erroring,
            c.completed,
            c.not_polled
        ),
        (1, 1, 1, 1, 1),
        "each task counted once: 5 in all"
    );
    // Found after all: the unknown task becomes an ordinary one.
    let _ = poll::polled(
        &mut w,
        &k("gone"),
        Ok(result("gone", "QUEUED", 0)),
        None,
        30,
    );
    assert_eq!(w.rows[1].phase(30, 300), Phase::Running);
    assert_eq!(w.rows[1].retries(), 0);
}

#[test]
fn progress_gives_an_eta_and_stalls_follow_the_clock() {
    let key = TaskKey::new(TaskKind::Image, "t");
    let mut w = Watch::new(vec![new_entry("t", TaskKind::Image, 0)], statuses());
    w.stall_after = 300;
    for (at, percent) in [(100, 10), (110, 20)] {
        let _ = poll::polled(
            &mut w,
            &key,
            Ok(result("t", "IN_PROGRESS", percent)),
            None,
            at,
        );
    }
    assert_eq!(w.rows[0].eta(110), None, "one move is not enough");
    let _ = poll::polled(&mut w, &key, Ok(result("t", "IN_PROGRESS", 30)), None, 120);
    assert_eq!(w.rows[0].eta(120), Some(70));
    // Unchanged polls until stall_after has passed since the last move.
    for at in (122..420).step_by(2) {
        let _ = poll::polled(&mut w, &key, Ok(result("t", "IN_PROGRESS", 30)), None, at);
        assert_eq!(w.rows[0].phase(at, 300), Phase::Running, "at {at}");
    }
    assert_eq!(w.rows[0].phase(420, 300), Phase::Stalled);
    assert_eq!(row::counts(&w, 420).stalled, 1);
    assert_eq!(w.rows[0].eta(420), w.rows[0].progress.eta(420.0));
    let _ = poll::polled(&mut w, &key, Ok(result("t", "IN_PROGRESS", 31)), None, 422);
    assert_eq!(w.rows[0].phase(422, 300), Phase::Running, "moving again");
    let _ = poll::polled(&mut w, &key, Ok(result("t", "COMPLETED", 100)), None, 430);
    let last = w.rows[0].entry.last.clone().expect("known");
    assert_eq!(
        (last.running_since, last.finished_at),
        (Some(100), Some(430))
    );
    let history: Vec<(u64, &str)> = last
        .history
        .iter()
        .map(|t| (t.at, t.status.as_str()))
        .collect();
    assert_eq!(history, [(100, "IN_PROGRESS"), (430, "COMPLETED")]);
    assert_eq!(w.rows[0].eta(430), None, "no ETA once finished");
}

#[test]
fn sorts_cycle_and_keep_the_selection() {
    let k = |id: &str| TaskKey::new(TaskKind::Image, id);
    let mut w = Watch::new(
        ["b-run", "a-fail", "c-done", "d-gone", "e-stuck"]
            .iter()
            .map(|id| new_entry(id, TaskKind::Image, 0))
            .collect(),
        statuses(),
    );
    w.stall_after = 100;
    for (at, p) in [(0, 10), (10, 20), (20, 30)] {
        let _ = poll::polled(
            &mut w,
            &k("b-run"),
            Ok(result("b-run", "IN_PROGRESS", p)),
            None,
            at,
        );
    }
    let _ = poll::polled(
        &mut w,
        &k("a-fail"),
        Ok(result("a-fail", "FAILED", 40)),
        None,
        20,
    );
    let _ = poll::polled(
        &mut w,
        &k("c-done"),
        Ok(result("c-done", "COMPLETED", 100)),
        None,
        20,
    );
    let _ = poll::polled(&mut w, &k("d-gone"), lookup_failed(), None, 20);
    let _ = poll::polled(
        &mut w,
        &k("e-stuck"),
        Ok(result("e-stuck", "IN_PROGRESS", 5)),
        None,
        0,
    );
    // e-stuck has not moved for 110 s, b-run for 90 s.
    let now = 110;
    w.select(2);
    assert_eq!(ids(&w), ["b-run", "a-fail", "c-done", "d-gone", "e-stuck"]);
    let mut seen = Vec::new();
    for _ in 0..5 {
        let sort = order::cycle_sort(&mut w, now);
        assert_eq!(
            w.selected_row().map(|r| r.entry.task_id.as_str()),
            Some("c-done"),
            "{sort:?} keeps the selected task selected"
        );
        seen.push((sort, ids(&w).join(" ")));
    }
    assert_eq!(
        seen,
        [
            (
                SortKey::Status,
                "a-fail d-gone e-stuck b-run c-done".to_string()
            ),
            (
                SortKey::Progress,
                "c-done a-fail b-run e-stuck d-gone".to_string()
            ),
            (
                SortKey::Eta,
                "b-run a-fail c-done d-gone e-stuck".to_string()
            ),
            (
                SortKey::TaskId,
                "a-fail b-run c-done d-gone e-stuck".to_string()
            ),
            (
                SortKey::Added,
                "b-run a-fail c-done d-gone e-stuck".to_string()
            ),
        ]
    );
    assert_eq!(SortKey::from_label("status"), SortKey::Status);
    assert_eq!(SortKey::from_label("nonsense"), SortKey::Added);
}

#[test]
fn the_filter_matches_ids_and_statuses() {
    let k = |id: &str| TaskKey::new(TaskKind::Image, id);
    let mut w = Watch::new(
        ["render-1", "clip-2", "render-3"]
            .iter()
            .map(|id| new_entry(id, TaskKind::Image, 0))
            .collect(),
        statuses(),
    );
    let _ = poll::polled(
        &mut w,
        &k("clip-2"),
        Ok(result("clip-2", "FAILED", 0)),
        None,
        1,
    );
    order::set_query(&mut w, "rend".into(), 1);
    assert_eq!(ids(&w), ["render-1", "render-3"]);
    order::set_query(&mut w, "failed".into(), 1);
    assert_eq!(ids(&w), ["clip-2"]);
    assert_eq!(
        w.selected_row().map(|r| r.entry.task_id.as_str()),
        Some("clip-2")
    );
    order::set_query(&mut w, "zzz".into(), 1);
    assert!(ids(&w).is_empty() && w.selected_row().is_none());
    order::set_query(&mut w, String::new(), 1);
    assert_eq!(ids(&w).len(), 3);
}

/// Each task is polled at its own service: the current one (`None`), another configured
/// one by its base URL, and none at all when its service is not configured.
#[test]
fn each_task_is_polled_at_its_own_service() {
    let (a, b, c) = ("http://a:1", "http://b:2", "http://c:3");
    let mut services = Services::single(a);
    services.names.insert(b.into(), "staging".into());
    let entry = |id: &str, service: Option<&str>| WatchEntry {
        service: service.map(str::to_string),
        ..new_entry(id, TaskKind::Image, 0)
    };
    let mut w = Watch::new(
        vec![
            entry("old", None),
            entry("on-a", Some(a)),
            entry("on-b", Some(b)),
            entry("on-c", Some(c)),
        ],
        statuses(),
    );
    assert!(
        service::set(&mut w, services).cmds.is_empty(),
        "nothing was polled yet"
    );
    let key = |id: &str| TaskKey::new(TaskKind::Image, id);
    assert_eq!(
        poll::start_polling(&w),
        [
            Cmd::Poll(PollCmd::Watch(key("old"), None)),
            Cmd::Poll(PollCmd::Watch(key("on-a"), None)),
            Cmd::Poll(PollCmd::Watch(key("on-b"), Some(b.into()))),
        ],
        "on-c's service is not configured: never polled"
    );
    assert_eq!(row::counts(&w, 0).no_service, 1);
    let on_c = w
        .rows
        .iter()
        .find(|r| r.entry.task_id == "on-c")
        .expect("on-c");
    assert_eq!(on_c.phase(0, 300), Phase::NoService);

    // Entries saved before entries remembered a service adopt the current one, in the file.
    assert_eq!(
        service::adopt(&mut w).cmds,
        [Cmd::Persist(PersistOp::Adopt(a.into()))]
    );
    assert_eq!(w.rows[0].entry.service.as_deref(), Some(a));
    assert!(service::adopt(&mut w).cmds.is_empty(), "once");

    // Added tasks (the dialog, another process) remember the current service.
    let Changed { cmds, .. } = super::undo::add(&mut w, vec![entry("new", None)], 0);
    assert!(cmds.contains(&Cmd::Poll(PollCmd::Watch(key("new"), None))));
    assert_eq!(
        w.rows.last().expect("added").entry.service.as_deref(),
        Some(a)
    );
    let mut external: Vec<WatchEntry> = w.rows.iter().map(|r| r.entry.clone()).collect();
    external.push(entry("ext-b", Some(b)));
    external.push(entry("ext-c", Some(c)));
    let Effects { cmds, .. } = super::merge::external(&mut w, &external, 0);
    assert_eq!(
        cmds,
        [Cmd::Poll(PollCmd::Watch(key("ext-b"), Some(b.into())))]
    );

    // A configured service whose client cannot be made stops being polled.
    let mut unusable = w.services.clone();
    unusable.unusable.insert(b.into(), "no token".into());
    let cmds = service::set(&mut w, unusable).cmds;
    assert_eq!(
        cmds,
        [
            Cmd::Poll(PollCmd::Unwatch(key("on-b"))),
            Cmd::Poll(PollCmd::Unwatch(key("ext-b")))
        ]
    );
    assert_eq!(row::counts(&w, 0).no_service, 4);
}

/// NOT FOUND and the last error go to the file when they are news, and come back from it:
/// a restarted dashboard shows them before its first poll; an answer clears them.
#[test]
fn troubles_are_kept_in_the_file_and_restored() {
    let k = |id: &str| TaskKey::new(TaskKind::Image, id);
    let mut w = Watch::new(
        vec![
            new_entry("gone", TaskKind::Image, 0),
            new_entry("err", TaskKind::Image, 0),
        ],
        statuses(),
    );
    let Effects { cmds, .. } = poll::polled(&mut w, &k("gone"), lookup_failed(), None, 10);
    let gone = Trouble {
        kind: TroubleKind::NotFound,
        text: "task not found".into(),
        since: 10,
    };
    assert_eq!(
        cmds,
        [Cmd::Persist(PersistOp::Trouble(
            k("gone"),
            Some(gone.clone())
        ))]
    );
    let Effects { cmds, .. } = poll::polled(&mut w, &k("gone"), lookup_failed(), None, 20);
    assert!(cmds.is_empty(), "the same trouble again is not news");
    let http = |status| {
        Err(ApiError::Http {
            status,
            excerpt: "bad".into(),
            retry_after: None,
        })
    };
    let _ = poll::polled(
        &mut w,
        &k("err"),
        Ok(result("err", "IN_PROGRESS", 40)),
        None,
        10,
    );
    let Effects { cmds, .. } = poll::polled(
        &mut w,
        &k("err"),
        http(502),
        Some(Duration::from_secs(4)),
        11,
    );
    let err = Trouble {
        kind: TroubleKind::Error,
        text: "HTTP 502: bad".into(),
        since: 11,
    };
    assert_eq!(
        cmds,
        [Cmd::Persist(PersistOp::Trouble(
            k("err"),
            Some(err.clone())
        ))]
    );

    // A restart: the entries as saved.
    let saved: Vec<WatchEntry> = w.rows.iter().map(|r| r.entry.clone()).collect();
    assert_eq!(saved[0].trouble, Some(gone));
    assert_eq!(saved[1].trouble, Some(err));
    let mut again = Watch::new(saved, statuses());
    assert_eq!(again.rows[0].phase(30, 300), Phase::NotFound);
    assert_eq!(again.rows[0].not_found(), Some("task not found"));
    assert_eq!(again.rows[1].error(), Some("HTTP 502: bad"));
    assert_eq!(again.rows[1].percent(), 40, "the last status stays too");
    let c = row::counts(&again, 30);
    assert_eq!((c.not_found, c.erroring, c.not_polled), (1, 1, 0));

    // Asking fails afterwards: the file still says NOT FOUND.
    let Effects { cmds, .. } = poll::polled(
        &mut again,
        &k("gone"),
        http(503),
        Some(Duration::from_secs(4)),
        35,
    );
    assert!(cmds.is_empty(), "{cmds:?}");
    assert_eq!(
        again.rows[0].entry.trouble.as_ref().map(|t| t.kind),
        Some(TroubleKind::NotFound)
    );
    // Found after all: the file forgets the trouble.
    let Effects { cmds, .. } = poll::polled(
        &mut again,
        &k("gone"),
        Ok(result("gone", "QUEUED", 0)),
        None,
        40,
    );
    assert!(
        cmds.contains(&Cmd::Persist(PersistOp::Trouble(k("gone"), None))),
        "{cmds:?}"
    );
    assert_eq!(again.rows[0].entry.trouble, None);
}

#[test]
fn task_ids_sort_naturally() {
    let mut sorted = vec![
        "sim-20", "sim-3", "sim-100", "sim-03", "sim-2b", "sim-2a", "abc", "sim-", "sim-9x1",
        "sim-9x10", "sim-9x2",
    ];
    sorted.sort_by(|a, b| natural_cmp(a, b));
    assert_eq!(
        sorted,
        [
            "abc", "sim-", "sim-2a", "sim-2b", "sim-03", "sim-3", "sim-9x1", "sim-9x2", "sim-9x10",
            "sim-20", "sim-100"
        ]
    );
    // Numbers longer than any integer type still compare right.
    assert!(natural_cmp("t-99999999999999999999999", "t-100000000000000000000000").is_lt());
    // The watch list's sort by task ID uses it.
    let mut w = Watch::new(
        ["sim-20", "sim-3", "sim-100"]
            .iter()
            .map(|id| new_entry(id, TaskKind::Image, 0))
            .collect(),
        statuses(),
    );
    w.sort = SortKey::TaskId;
    order::reorder(&mut w, 0);
    assert_eq!(ids(&w), ["sim-3", "sim-20", "sim-100"]);
}

/// A task another process added on the wall clock, answered before the reducer's tick caught
/// up: its times are in order, added ≤ each transition ≤ running ≤ finished.
#[test]
fn a_tasks_times_are_in_order_whatever_the_tick() {
    let key = TaskKey::new(TaskKind::Image, "t");
    let mut w = Watch::new(vec![new_entry("t", TaskKind::Image, 100)], statuses());
    let _ = poll::polled(&mut w, &key, Ok(result("t", "IN_PROGRESS", 0)), None, 99);
    let _ = poll::polled(&mut w, &key, Ok(result("t", "COMPLETED", 100)), None, 98);
    let e = &w.rows[0].entry;
    let last = e.last.as_ref().expect("known");
    let running = last.running_since.expect("running");
    let finished = last.finished_at.expect("finished");
    assert!(e.added_at <= running && running <= finished, "{e:?}");
    let at: Vec<u64> = last.history.iter().map(|h| h.at).collect();
    assert!(
        at.windows(2).all(|p| p[0] <= p[1]) && at[0] >= e.added_at,
        "{at:?}"
    );
}

/// Every row holds an `End`, and a dashboard holds a row per watched task (10,000 of them in
/// the big soak): a finish's strings are boxed inside it, so a row of a running task does not
/// carry them.
#[test]
fn a_rows_end_is_a_pointer_not_a_finish() {
    assert!(
        std::mem::size_of::<End>() <= 16,
        "{}",
        std::mem::size_of::<End>()
    );
    assert!(
        std::mem::size_of::<Row>() <= 560,
        "{}",
        std::mem::size_of::<Row>()
    );
}

/// `A` pressed between a finish and its claim's answer does not fetch the file past the claim
/// (another dashboard may have taken the task on) nor drop what the claim waits to do: the
/// answer decides, and with it the download starts, `on_complete` after it. An answer for a
/// row whose end is elsewhere leaves that end as it is.
#[test]
fn auto_download_chosen_while_the_claim_is_pending_waits_for_its_answer() {
    let finished = || {
        let mut w = Watch::new(vec![new_entry("t", TaskKind::Image, 0)], statuses());
        let key = TaskKey::new(TaskKind::Image, "t");
        let _ = poll::polled(&mut w, &key, Ok(result("t", "IN_PROGRESS", 40)), None, 100);
        let fx = poll::polled(&mut w, &key, Ok(result("t", "COMPLETED", 100)), None, 101);
        assert!(
            fx.cmds
                .contains(&Cmd::Persist(PersistOp::Claim(key.clone())))
        );
        let chosen = end::toggle_auto(&mut w).expect("a task selected");
        assert!(chosen.what.on);
        assert!(
            !chosen.cmds.iter().any(|c| matches!(c, Cmd::Download(_))),
            "fetched before the claim's answer: {:?}",
            chosen.cmds
        );
        assert!(w.rows[0].end.will_fetch(), "the claim waits to fetch it");
        (w, key)
    };
    let (mut w, key) = finished();
    let cmds = end::claimed(&mut w, &key, true).cmds;
    assert!(
        matches!(&cmds[..], [Cmd::Download(j)] if j.key == key),
        "{cmds:?}"
    );
    assert!(w.rows[0].end.fetching_by_itself());
    let Effects { cmds, .. } = end::download(
        &mut w,
        &key,
        crate::msg::DownloadEvent::Saved("/dl/t.png".into()),
    );
    assert!(
        matches!(&cmds[..], [Cmd::Persist(PersistOp::Saved(..)), Cmd::Finished(f)]
            if f.file.as_deref() == Some(std::path::Path::new("/dl/t.png"))),
        "on_complete after the download, with its file: {cmds:?}"
    );
    let (mut w, key) = finished();
    assert!(end::claimed(&mut w, &key, false).cmds.is_empty());
    assert_eq!(w.rows[0].end, End::Theirs);
    assert!(end::claimed(&mut w, &key, true).cmds.is_empty());
    assert_eq!(w.rows[0].end, End::Theirs, "a stray answer changes nothing");
}

/// The fields a service sends beyond the spec's five: kept on the row, saved with a status or
/// percent change, and a change of them alone redraws without a save.
#[test]
fn extra_fields_ride_with_the_status_and_redraw_when_they_alone_move() {
    let mut w = Watch::new(vec![new_entry("t", TaskKind::Image, 0)], statuses());
    let key = TaskKey::new(TaskKind::Image, "t");
    let with = |position: u64, percent: u8| {
        let mut extra = crate::api::ExtraFields::default();
        extra.push("queue_position", &serde_json::json!(position));
        TaskResult {
            extra: extra.finish(),
            ..result("t", "IN_PROGRESS", percent)
        }
    };
    let Effects { cmds, .. } = poll::polled(&mut w, &key, Ok(with(3, 10)), None, 100);
    assert!(
        matches!(&cmds[..], [Cmd::Persist(PersistOp::Status(_, l))] if l.extra.is_some()),
        "{cmds:?}"
    );
    let Effects { cmds, redraw, .. } = poll::polled(&mut w, &key, Ok(with(2, 10)), None, 102);
    assert!(redraw, "a new queue position is drawn");
    assert!(cmds.is_empty(), "and not saved by itself: {cmds:?}");
    let shown = |w: &Watch| {
        let extra = w.rows[0].entry.last.as_ref().and_then(|l| l.extra.clone());
        extra.map(|e| {
            e.shown()
                .map(|(n, v)| format!("{n}={v}"))
                .collect::<Vec<_>>()
        })
    };
    assert_eq!(shown(&w), Some(vec!["queue_position=2".to_string()]));
    let Effects { redraw, .. } = poll::polled(&mut w, &key, Ok(with(2, 10)), None, 104);
    assert!(!redraw, "the same answer again draws nothing");
}

/// At start the first answer to come may be a garbled one: while another task of the service
/// has yet to answer, it speaks only of its task (the health does not flap to `trouble` and
/// back); once every task has answered and none well, it is the service's trouble.
#[test]
fn a_garbled_first_answer_waits_for_the_other_tasks_before_it_speaks_of_the_service() {
    let mut w = Watch::new(
        vec![
            new_entry("garbled", TaskKind::Image, 0),
            new_entry("steady", TaskKind::Image, 0),
        ],
        statuses(),
    );
    let garbled = TaskKey::new(TaskKind::Image, "garbled");
    let steady = TaskKey::new(TaskKind::Image, "steady");
    let garbage = || -> Result<TaskResult, ApiError> {
        Err(ApiError::Decode {
            expected: "JSON",
            detail: "line 1".into(),
        })
    };
    let answer = garbage();
    assert!(
        matches!(
            poll::service_says(&w, &garbled, &answer),
            ServiceSays::Nothing
        ),
        "the steady task has yet to answer"
    );
    let _ = poll::polled(&mut w, &garbled, answer, None, 100);
    let answer = garbage();
    assert!(
        matches!(
            poll::service_says(&w, &steady, &answer),
            ServiceSays::Reports(_)
        ),
        "every task answered, none well: the service's trouble"
    );
}
