use super::*;
use crate::api::TaskKind;
use crate::store::watchlist::LastKnown;

fn finished(id: &str, at: u64) -> WatchEntry {
    let mut e = WatchEntry::new(id, TaskKind::Image);
    e.service = Some("http://svc".into());
    e.added_at = at - 100;
    e.last = Some(LastKnown {
        status: "COMPLETED".into(),
        percent: 100,
        url_download: Some(format!("http://svc/{id}.png")),
        updated_at: at,
        finished_at: Some(at),
        history: vec![
            Transition {
                at: at - 50,
                status: "IN_PROGRESS".into(),
            },
            Transition {
                at,
                status: "COMPLETED".into(),
            },
        ],
        ..LastKnown::default()
    });
    e
}

fn open_in(dir: &tempfile::TempDir) -> Archive {
    Archive::open(&Files::in_dir(dir.path())).expect("open")
}

fn ids(list: &[ArchivedTask]) -> Vec<&str> {
    list.iter().map(|t| t.entry.task_id.as_str()).collect()
}

#[test]
fn insert_lists_newest_finished_first_and_get_has_the_history() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut a = open_in(&dir);
    assert_eq!(
        a.insert(&[finished("a", 1000), finished("c", 3000)], 5000)
            .expect("insert"),
        2
    );
    a.insert(&[finished("b", 2000)], 5001).expect("insert");
    let list = a.list().expect("list");
    assert_eq!(ids(&list), ["c", "b", "a"]);
    assert!(
        list[0]
            .entry
            .last
            .as_ref()
            .expect("last")
            .history
            .is_empty(),
        "list leaves the history to get"
    );
    let got = a.get(list[0].id).expect("get").expect("there");
    assert_eq!(
        got.entry,
        finished("c", 3000),
        "everything the watch list knew"
    );
    assert_eq!(got.archived_at, 5000);
    let full = a.list_full(Some(2)).expect("list");
    assert_eq!(ids(&full), ["c", "b"]);
    assert_eq!(full[1].entry, finished("b", 2000));
    // Another process sees it all.
    let other = open_in(&dir);
    assert_eq!(ids(&other.list().expect("list")), ["c", "b", "a"]);
}

#[test]
fn archiving_a_task_again_replaces_it_and_keeps_its_id() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut a = open_in(&dir);
    a.insert(&[finished("a", 1000)], 5000).expect("insert");
    let id = a.list().expect("list")[0].id;
    let mut again = finished("a", 1500);
    again.label = Some("second\x1b[31m  time".into());
    a.insert(&[again], 6000).expect("insert");
    let list = a.list().expect("list");
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].id, id);
    assert_eq!(list[0].archived_at, 6000);
    assert_eq!(list[0].finished_at(), 1500);
    assert_eq!(
        list[0].entry.label.as_deref(),
        Some("second time"),
        "labels are cleaned"
    );
    // Another service's task of the same ID is another row.
    let mut elsewhere = finished("a", 1000);
    elsewhere.service = Some("http://other".into());
    a.insert(&[elsewhere], 6000).expect("insert");
    assert_eq!(a.count().expect("count"), 2);
}

#[test]
fn delete_then_restore_puts_rows_back_with_their_ids() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut a = open_in(&dir);
    a.insert(&[finished("a", 1000), finished("b", 2000)], 5000)
        .expect("insert");
    let before = a.list_full(None).expect("list");
    // The first row, not the last: a row put back with a new id would show.
    let gone = a.delete(&[before[1].id, 999]).expect("delete");
    assert_eq!(ids(&gone), ["a"]);
    assert_eq!(gone[0], before[1], "deleted with its history, for undo");
    assert_eq!(ids(&a.list().expect("list")), ["b"]);
    assert_eq!(a.get(before[1].id).expect("get"), None);
    a.restore(&gone).expect("restore");
    assert_eq!(a.list_full(None).expect("list"), before);
    // Undo twice changes nothing.
    a.restore(&gone).expect("restore");
    assert_eq!(a.list_full(None).expect("list"), before);
}

#[test]
fn set_saved_records_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut a = open_in(&dir);
    a.insert(&[finished("a", 1000)], 5000).expect("insert");
    let id = a.list().expect("list")[0].id;
    a.set_saved(id, "/tmp/a.png").expect("saved");
    let got = a.get(id).expect("get").expect("there");
    assert_eq!(got.entry.saved.as_deref(), Some("/tmp/a.png"));
    let saved: Option<String> = a
        .conn
        .query_row("SELECT saved FROM tasks WHERE id = ?1", [id], |r| r.get(0))
        .expect("column");
    assert_eq!(
        saved.as_deref(),
        Some("/tmp/a.png"),
        "the indexed column too"
    );
}

#[test]
fn a_newer_schema_is_refused_with_the_files_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let files = Files::in_dir(dir.path());
    let path = &files.archive;
    {
        let a = open_in(&dir);
        a.conn
            .pragma_update(None, "user_version", VERSION + 1)
            .expect("bump");
    }
    let e = Archive::open(&files).expect_err("newer");
    let text = e.to_string();
    assert!(text.contains(&path.display().to_string()), "{text}");
    assert!(text.contains("newer gendash"), "{text}");
    assert!(path.exists(), "left alone");
}

#[test]
fn an_unreadable_file_is_set_aside_byte_for_byte() {
    let dir = tempfile::tempdir().expect("tempdir");
    let files = Files::in_dir(dir.path());
    let path = &files.archive;
    let junk = b"this is not a database, it is junk that fills a page or so".repeat(100);
    std::fs::write(path, &junk).expect("write");
    let mut a = Archive::open(&files).expect("open");
    let aside = a.set_aside().expect("set aside").clone();
    assert_eq!(std::fs::read(&aside.to).expect("aside"), junk);
    assert!(aside.to.to_string_lossy().contains(".corrupt-"));
    assert!(
        aside.to_string().contains("not a database"),
        "{}",
        aside.reason
    );
    a.insert(&[finished("a", 1000)], 5000)
        .expect("a fresh one works");
    assert_eq!(a.count().expect("count"), 1);
    assert_eq!(open_in(&dir).set_aside(), None, "the new file is fine");
}

#[test]
fn the_watch_lists_finished_tasks_are_copied_in_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = crate::store::watchlist::WatchStore::new(dir.path().join("watchlist.json"));
    let mut running = WatchEntry::new("running", TaskKind::Video);
    running.last = Some(LastKnown {
        status: "IN_PROGRESS".into(),
        ..LastKnown::default()
    });
    let mut failed = WatchEntry::new("failed", TaskKind::Image);
    failed.last = Some(LastKnown {
        status: "FAILED".into(),
        updated_at: 10,
        ..LastKnown::default()
    });
    let done = finished("done", 1000);
    store
        .update(|l| {
            l.push(running.clone());
            l.push(done.clone());
            l.push(failed.clone());
            l.push(WatchEntry::new("unknown", TaskKind::Image));
        })
        .expect("watch list");
    let mut a = open_in(&dir);
    assert_eq!(a.imported(), 2);
    let list = a.list_full(None).expect("list");
    // Its finish never seen, the failed one counts as finished when it was archived.
    assert_eq!(ids(&list), ["failed", "done"]);
    assert_eq!(list[1].entry, done);
    assert_eq!(
        store.load().expect("load").entries.len(),
        4,
        "they stay listed"
    );
    // Deleted from the archive, they are not imported again.
    let all: Vec<i64> = list.iter().map(|t| t.id).collect();
    a.delete(&all).expect("delete");
    drop(a);
    let a = open_in(&dir);
    assert_eq!(a.imported(), 0);
    assert_eq!(a.count().expect("count"), 0);
}

/// The watch list imported is the one named in `Files`, wherever it is: not a file found
/// beside the archive.
#[test]
fn the_watch_list_imported_is_the_one_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let named = dir.path().join("elsewhere/list.json");
    crate::store::watchlist::WatchStore::new(named.clone())
        .update(|l| l.push(finished("named", 1000)))
        .expect("named list");
    crate::store::watchlist::WatchStore::new(dir.path().join("watchlist.json"))
        .update(|l| l.push(finished("beside", 1000)))
        .expect("list beside");
    let files = Files {
        archive: Archive::path_in(dir.path()),
        watchlist: named,
    };
    let a = Archive::open(&files).expect("open");
    assert_eq!(ids(&a.list_full(None).expect("list")), ["named"]);
}

#[test]
fn search_values_follow_the_keys() {
    let mut e = finished("t-1", 86_400 + 3600);
    e.label = Some("cat".into());
    e.saved = Some("/x/t-1.png".into());
    let t = ArchivedTask {
        id: 1,
        entry: e,
        archived_at: 5,
    };
    let keys: Vec<&str> = SearchKey::ALL
        .iter()
        .map(|k| format!("{k:?}"))
        .map(|k| {
            SEARCH_KEYS
                .iter()
                .copied()
                .find(|n| n.eq_ignore_ascii_case(&k))
                .unwrap_or("?")
        })
        .collect();
    assert_eq!(keys, SEARCH_KEYS, "SearchKey::ALL is in SEARCH_KEYS' order");
    let values: Vec<SearchValue> = SearchKey::ALL.iter().map(|&k| t.search_value(k)).collect();
    assert_eq!(
        values,
        [
            SearchValue::Text("cat"),
            SearchValue::Text("COMPLETED"),
            SearchValue::Text("image"),
            SearchValue::Text("http://svc"),
            SearchValue::Time(86_400 + 3600),
            SearchValue::Time(86_400 + 3600 - 100),
            SearchValue::Text("/x/t-1.png"),
            SearchValue::Text("t-1"),
        ]
    );
    assert_eq!(t.search_name(), "t-1 COMPLETED cat");
    for (key, value) in SearchKey::ALL.iter().zip(&values) {
        assert_eq!(
            key.is_date(),
            matches!(value, SearchValue::Time(_)),
            "{key:?}"
        );
    }
}

#[test]
fn list_reads_every_field_but_the_history_from_the_columns() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut a = open_in(&dir);
    let mut e = finished("c", 3000);
    e.seen = Some(true);
    e.label = Some("sunset".into());
    e.saved = Some("/s/c.png".into());
    if let Some(l) = e.last.as_mut() {
        l.running_since = Some(2950);
        l.start_seen = true;
        l.percent = 97;
    }
    let mut v = finished("v", 1000);
    v.kind = TaskKind::Video;
    v.service = None;
    a.insert(&[e.clone(), v.clone()], 5000).expect("insert");
    let list = a.list().expect("list");
    for (got, mut want) in list.into_iter().zip([e, v]) {
        if let Some(l) = want.last.as_mut() {
            l.history.clear();
        }
        assert_eq!(got.entry, want);
        assert_eq!(got.archived_at, 5000);
    }
}
