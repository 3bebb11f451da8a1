//! The archive from the command line: `watch rm` moves finished tasks into it, `history`
//! prints it (`--json`, `--filter`, `--limit`); writers killed with SIGKILL mid-way never lose
//! a task (it is on the watch list or in the archive, never neither), and writers at the same
//! time all arrive. And the dashboard's remove key moves a finished task there too, its undo
//! takes it back out.

use crate::common::{self, Served};
use common::pty::{Session, command};
use gendash::api::TaskKind;
use gendash::store::archive::{Archive, Files};
use gendash::store::watchlist::{LastKnown, Transition, WatchEntry, WatchStore, unix_now};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use rand::{Rng, SeedableRng};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

/// `gendash ARGS` in `home` with its data in `data`; exit code, stdout, stderr.
fn run(home: &Path, data: &Path, args: &[&str]) -> (i32, String, String) {
    let out = common::gendash(home)
        .env("GENDASH_DATA_DIR", data)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn json(home: &Path, data: &Path, args: &[&str]) -> Value {
    let (code, out, err) = run(home, data, args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// Asks the service for the task with `gendash status --json` until it is finished (each
/// lookup moves a simulated task on), and keeps what it saw as the dashboard would.
fn poll_until_finished(home: &Path, data: &Path, id: &str, kind: TaskKind) -> LastKnown {
    let mut last = LastKnown::default();
    for _ in 0..20 {
        let mut args = vec!["status", "--json"];
        if kind == TaskKind::Video {
            args.push("--video");
        }
        args.push(id);
        let (_, out, err) = run(home, data, &args);
        let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
        let status = v["status"].as_str().unwrap().to_string();
        let now = unix_now();
        if last.history.last().is_none_or(|t| t.status != status) {
            last.history.push(Transition {
                at: now,
                status: status.clone(),
            });
        }
        last.percent = u8::try_from(v["percent"].as_u64().unwrap()).unwrap();
        last.url_download = v["url_download"].as_str().map(str::to_string);
        last.updated_at = now;
        last.status = status;
        if last.status == "COMPLETED" || last.status == "FAILED" {
            last.finished_at = Some(now);
            return last;
        }
    }
    panic!("{id} never finished");
}

/// `watch add` (with a label), the tasks run to their end at the reference service, `watch rm`:
/// the finished ones are in `history`, with their status history, the label clean, newest
/// first; the one still running is gone, not archived; `--filter` and `--limit` choose. The
/// archive's first open copied in the finished task left on the watch list, which stays.
#[test]
fn watch_rm_archives_finished_tasks_and_history_prints_them() {
    let served = Served::new();
    served.config(&format!(
        "base_url = \"{}\"\ntoken = \"{}\"\n",
        served.base,
        common::TOKEN
    ));
    let home = served.path();
    let data = home.join("data/gendash");
    // Nothing archived yet: nothing printed, no file made.
    assert_eq!(
        run(home, &data, &["history"]),
        (0, String::new(), String::new())
    );
    assert_eq!(run(home, &data, &["history", "--json"]).1, "[]\n");
    assert!(!Archive::path_in(&data).exists());

    let label = "sunset\u{1b}[31m  v2";
    for args in [
        &["watch", "add", "--label", label, "sim-2-a", "sim-1-b"][..],
        &["watch", "add", "--video", "fail-1-c"],
        &["watch", "add", "hold-d"],
    ] {
        assert_eq!(run(home, &data, args).0, 0);
    }
    let store = WatchStore::new(data.join("watchlist.json"));
    for (id, kind) in [
        ("sim-2-a", TaskKind::Image),
        ("fail-1-c", TaskKind::Video),
        ("sim-1-b", TaskKind::Image),
    ] {
        let last = poll_until_finished(home, &data, id, kind);
        store
            .update(|list| {
                let e = list.iter_mut().find(|e| e.task_id == id).unwrap();
                e.last = Some(last.clone());
            })
            .unwrap();
    }
    let (code, out, err) = run(
        home,
        &data,
        &["watch", "rm", "sim-2-a", "fail-1-c", "hold-d"],
    );
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "removed: sim-2-a, fail-1-c, hold-d\narchived: sim-2-a, fail-1-c\n"
        ),
        "{err}"
    );
    let listed: Vec<String> = store
        .load()
        .unwrap()
        .entries
        .into_iter()
        .map(|e| e.task_id)
        .collect();
    assert_eq!(listed, ["sim-1-b"], "they left the watch list");

    what_history_prints(home, &data, &served.base);
}

/// What `history` prints of the archive the test above made.
fn what_history_prints(home: &Path, data: &Path, base: &str) {
    let history = json(home, data, &["history", "--json"]);
    let tasks = history.as_array().unwrap();
    let ids: BTreeSet<&str> = tasks
        .iter()
        .map(|t| t["task_id"].as_str().unwrap())
        .collect();
    // The archive's first open copied in the watch list's finished tasks (once): sim-1-b
    // is there as well as on the watch list.
    assert_eq!(
        ids,
        BTreeSet::from(["sim-2-a", "fail-1-c", "sim-1-b"]),
        "{history}"
    );
    let finished: Vec<u64> = tasks
        .iter()
        .map(|t| t["finished_at"].as_u64().unwrap())
        .collect();
    assert!(
        finished.windows(2).all(|w| w[0] >= w[1]),
        "newest first: {history}"
    );
    let sim = tasks.iter().find(|t| t["task_id"] == "sim-2-a").unwrap();
    let statuses: Vec<&str> = sim["last"]["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["QUEUED", "IN_PROGRESS", "COMPLETED"], "{sim}");
    assert_eq!(sim["label"], "sunset v2");
    assert_eq!(sim["service"].as_str(), Some(base.trim_end_matches('/')));
    assert!(
        sim["last"]["url_download"]
            .as_str()
            .unwrap()
            .ends_with("/sim-2-a.png"),
        "{sim}"
    );
    assert!(sim.get("claimed_by").is_none());
    assert!(
        !history.to_string().contains(common::TOKEN),
        "never the token"
    );

    let failed = json(
        home,
        data,
        &["history", "--json", "--filter", "status:failed"],
    );
    let failed: Vec<&str> = failed
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["task_id"].as_str().unwrap())
        .collect();
    assert_eq!(failed, ["fail-1-c"]);
    assert_eq!(
        json(home, data, &["history", "--json", "--limit", "1"])
            .as_array()
            .unwrap()
            .len(),
        1
    );

    let (code, text, _) = run(home, data, &["history", "--filter", "kind:image id:sim-2"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert!(
        lines[0].starts_with("sim-2-a  image  COMPLETED  20") && lines[0].ends_with("sunset v2"),
        "{text}"
    );
}

/// `count` finished tasks `fill-0`… for the kill and writer tests.
fn finished(count: usize, prefix: &str) -> Vec<WatchEntry> {
    (0..count)
        .map(|i| {
            let mut e = WatchEntry::new(format!("{prefix}-{i}"), TaskKind::Image);
            e.last = Some(LastKnown {
                status: "COMPLETED".into(),
                percent: 100,
                finished_at: Some(1_000 + i as u64),
                ..LastKnown::default()
            });
            e
        })
        .collect()
}

/// A data directory whose archive exists (empty: its one import saw an empty watch list) and
/// whose watch list holds `entries`.
fn data_dir_with(entries: &[WatchEntry]) -> (tempfile::TempDir, WatchStore) {
    let dir = tempfile::tempdir().unwrap();
    drop(Archive::open(&Files::in_dir(dir.path())).unwrap());
    let store = WatchStore::new(dir.path().join("watchlist.json"));
    store.update(|l| l.extend(entries.iter().cloned())).unwrap();
    (dir, store)
}

/// Every task of `all` is on the watch list or in the archive; both read whole.
fn none_lost(dir: &Path, store: &WatchStore, all: &[WatchEntry]) -> (usize, usize) {
    let loaded = store.load().unwrap();
    assert!(loaded.set_aside.is_none(), "the watch list reads");
    let archive = Archive::open(&Files::in_dir(dir)).unwrap();
    assert_eq!(archive.set_aside(), None, "the archive reads");
    let archived = archive.list().unwrap();
    let listed: BTreeSet<&str> = loaded.entries.iter().map(|e| e.task_id.as_str()).collect();
    let kept: BTreeSet<&str> = archived.iter().map(|t| t.entry.task_id.as_str()).collect();
    for e in all {
        assert!(
            listed.contains(e.task_id.as_str()) || kept.contains(e.task_id.as_str()),
            "{} is in neither the watch list nor the archive",
            e.task_id
        );
    }
    (listed.len(), kept.len())
}

/// `watch rm` killed with SIGKILL at random moments: the archive always opens intact and no
/// task is ever in neither place.
#[test]
fn sigkill_during_watch_rm_never_loses_a_task() {
    let all = finished(90, "fill");
    let (dir, store) = data_dir_with(&all);
    // How long one whole `watch rm` takes on this machine, so the kills fall anywhere from its
    // start to past its end (and some runs end), however fast the machine is.
    let whole = {
        let (spare, _) = data_dir_with(&all[..3]);
        let started = std::time::Instant::now();
        let status = common::gendash(spare.path())
            .env("GENDASH_DATA_DIR", spare.path())
            .args(["watch", "rm", "fill-0", "fill-1", "fill-2"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        started.elapsed()
    };
    let mut kill_within = u64::try_from(whole.as_micros() * 2)
        .unwrap_or(u64::MAX)
        .max(1_000);
    let mut rng = rand::rngs::StdRng::seed_from_u64(0xa7c4);
    let mut outcomes = BTreeSet::new();
    for batch in all.chunks(3) {
        let ids: Vec<&str> = batch.iter().map(|e| e.task_id.as_str()).collect();
        let mut child = common::gendash(dir.path())
            .env("GENDASH_DATA_DIR", dir.path())
            .args(["watch", "rm"])
            .args(&ids)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(rng.random_range(0..kill_within)));
        let _ = kill(
            Pid::from_raw(i32::try_from(child.id()).unwrap()),
            Signal::SIGKILL,
        );
        let status = child.wait().unwrap();
        outcomes.insert(status.code().is_some());
        let (listed, _) = none_lost(dir.path(), &store, &all);
        assert!(listed <= all.len());
        // The machine's speed may change after it was timed: while only one outcome has
        // come, the range follows it (later kills while all were killed, earlier while all
        // ended).
        if outcomes == BTreeSet::from([false]) {
            kill_within = kill_within.saturating_mul(2);
        } else if outcomes == BTreeSet::from([true]) {
            kill_within = (kill_within / 2).max(1_000);
        }
    }
    assert!(
        outcomes.len() == 2,
        "some runs were killed and some ended: {outcomes:?}"
    );
}

/// Two `watch rm` processes archive different tasks while a third writer (another
/// dashboard's archiver) writes the archive directly: everything arrives.
#[test]
fn writers_at_the_same_time_all_arrive() {
    let (a, b) = (finished(25, "a"), finished(25, "b"));
    let all: Vec<WatchEntry> = a.iter().chain(&b).cloned().collect();
    let (dir, store) = data_dir_with(&all);
    let data = dir.path().to_path_buf();
    let remover = |batch: Vec<WatchEntry>| {
        let data = data.clone();
        std::thread::spawn(move || {
            for e in batch {
                let out = common::gendash(&data)
                    .env("GENDASH_DATA_DIR", &data)
                    .args(["watch", "rm", &e.task_id])
                    .output()
                    .unwrap();
                assert!(out.status.success(), "{out:?}");
            }
        })
    };
    let (one, two) = (remover(a), remover(b));
    let direct = finished(200, "c");
    let mut archive = Archive::open(&Files::in_dir(&data)).unwrap();
    for e in &direct {
        archive.insert(std::slice::from_ref(e), unix_now()).unwrap();
    }
    one.join().unwrap();
    two.join().unwrap();
    let (listed, archived) = none_lost(&data, &store, &all);
    assert_eq!((listed, archived), (0, 250));
}

/// The dashboard: removing a finished task moves it to the archive, with its status history;
/// undo puts it back on the watch list and takes it out of the archive.
#[test]
fn the_dashboards_remove_key_archives_and_undo_takes_it_back() {
    let served = Served::with(
        "poll_interval = 0.2\nbell = false\nimage_preview = \"off\"\n",
        &["sim-2-archived"],
    );
    let data = served.path().join("data/gendash");
    let archived = || {
        let files = Files::in_dir(&data);
        if !files.archive.exists() {
            return Vec::new();
        }
        Archive::open(&files).unwrap().list_full(None).unwrap()
    };
    let mut s = Session::spawn(command(served.path(), &[], &served.env()), 150, 40);
    s.wait_for("the task finished", Duration::from_secs(30), |t| {
        t.contains("COMPLETED")
    });
    // The watch pane takes the keys; Delete removes the task under the cursor.
    s.send("\t");
    s.send("\x1b[3~");
    let started = std::time::Instant::now();
    while archived().is_empty() && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let rows = archived();
    assert_eq!(rows.len(), 1, "archived");
    let statuses: Vec<&str> = rows[0]
        .entry
        .last
        .as_ref()
        .unwrap()
        .history
        .iter()
        .map(|t| t.status.as_str())
        .collect();
    assert_eq!(statuses.last(), Some(&"COMPLETED"), "{statuses:?}");
    s.send("u");
    let started = std::time::Instant::now();
    while !archived().is_empty() && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(archived().is_empty(), "undo takes it out of the archive");
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    let listed = WatchStore::new(data.join("watchlist.json"))
        .load()
        .unwrap()
        .entries;
    assert_eq!(listed.len(), 1, "back on the watch list");
}

/// Text another process put in the archive raw (a status with an escape sequence, a label
/// with a bell) is printed through the sanitiser, in the table and in the JSON.
#[test]
fn history_prints_hostile_text_sanitised() {
    let all = finished(1, "hostile");
    let (dir, _store) = data_dir_with(&[]);
    let files = Files::in_dir(dir.path());
    let path = &files.archive;
    Archive::open(&files).unwrap().insert(&all, 5).unwrap();
    // Rewritten here, not with SQL's JSON functions: the bundled SQLite is built without them.
    let conn = rusqlite::Connection::open(path).unwrap();
    let entry: String = conn
        .query_row("SELECT entry FROM tasks", [], |r| r.get(0))
        .unwrap();
    let mut entry: Value = serde_json::from_str(&entry).unwrap();
    entry["last"]["status"] = "DONE\u{1b}]0;pwned\u{7}\u{1b}[2J".into();
    entry["label"] = "cat\u{7}\u{202e}".into();
    conn.execute("UPDATE tasks SET entry = ?1", [entry.to_string()])
        .unwrap();
    drop(conn);
    for args in [&["history", "--json"][..], &["history"]] {
        let (code, out, err) = run(dir.path(), dir.path(), args);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("DONE"), "{out}");
        assert!(
            !out.chars()
                .any(|c| c == '\u{1b}' || c == '\u{7}' || c == '\u{202e}'),
            "{out:?}"
        );
    }
}

/// Date terms in `--filter` compare at the precision typed, in the local time the CLI prints
/// (`TZ` set): `finished:>2026-11-01` is from the 2nd on, `>=` takes the 1st too, `<` before it.
#[test]
fn history_filters_by_finish_date() {
    // 2026-10-31 23:30, 2026-11-01 12:00 and 2026-11-03 08:00, UTC.
    let at = [1_793_489_400_u64, 1_793_534_400, 1_793_692_800];
    let mut all = finished(3, "dated");
    for (e, t) in all.iter_mut().zip(at) {
        e.last.as_mut().unwrap().finished_at = Some(t);
    }
    let (dir, _store) = data_dir_with(&[]);
    Archive::open(&Files::in_dir(dir.path()))
        .unwrap()
        .insert(&all, at[2] + 60)
        .unwrap();
    let ids = |filter: &str, tz: &str| -> Vec<String> {
        let out = common::gendash(dir.path())
            .env("GENDASH_DATA_DIR", dir.path())
            .env("TZ", tz)
            .args(["history", "--json", "--filter", filter])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut ids: Vec<String> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["task_id"].as_str().unwrap().to_string())
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(ids("finished:>2026-11-01", "UTC"), ["dated-2"]);
    assert_eq!(ids("finished:>=2026-11-01", "UTC"), ["dated-1", "dated-2"]);
    assert_eq!(ids("finished:<2026-11-01", "UTC"), ["dated-0"]);
    assert_eq!(ids("finished:<2026-11", "UTC"), ["dated-0"]);
    // Two hours east, the first one finished on the 1st: local dates, as printed.
    assert_eq!(ids("finished:<2026-11-01", "EET"), Vec::<String>::new());
    assert_eq!(
        ids("finished:>=2026-11 !finished:>2026-11-01", "UTC"),
        ["dated-1"]
    );
    // Every form the docs list: quoted, with an escaped space, with a `T`, at the minute.
    for (filter, want) in [
        (
            r#"finished:>"2026-11-01 11:59""#,
            &["dated-1", "dated-2"][..],
        ),
        (r"finished:>2026-11-01\ 12:00", &["dated-2"]),
        ("finished:>2026-11-01T12:00", &["dated-2"]),
        (r#"finished:<="2026-11-01 12:00""#, &["dated-0", "dated-1"]),
        (r#"finished:="2026-11-01 12:00""#, &["dated-1"]),
        (r#"finished:>"2026-11-01""#, &["dated-2"]),
    ] {
        assert_eq!(ids(filter, "UTC"), want, "{filter}");
    }
    assert_eq!(
        ids(r#"finished:>"2026-11-01 13:00""#, "EET"),
        ["dated-1", "dated-2"],
        "local minutes: 12:00 UTC is 14:00 two hours east"
    );
}

/// What `history --filter` cannot use is named on stderr with exit 2, before the archive is
/// read: `is:` terms (the browser's), a field the archive does not have, a comparison with no
/// date, the catalogue's `type:`, `sort:`.
#[test]
fn history_filter_names_what_it_cannot_use() {
    let (dir, _store) = data_dir_with(&[]);
    Archive::open(&Files::in_dir(dir.path()))
        .unwrap()
        .insert(&finished(2, "named"), unix_now())
        .unwrap();
    for (filter, said) in [
        (
            "is:foo",
            "gendash: error: --filter: is:foo is not new, changed or fav",
        ),
        (
            "is:new",
            "gendash: error: --filter: is:new is the model browser's marks and favourites; gendash history has none",
        ),
        (
            "nosuchfield:x",
            "gendash: error: --filter: nosuchfield: no such field (fields: label, status, kind, service, \
             finished, added, saved, id)",
        ),
        (
            "finished:>abc",
            "gendash: error: --filter: finished:>abc: not a number or a date",
        ),
        (
            "type:sd named",
            "gendash: error: --filter: type:sd is the catalogue's filter; gendash history has none",
        ),
        (
            "sort:-finished",
            "gendash: error: --filter: sort:-finished: gendash history keeps its own order (its sort key sets it)",
        ),
    ] {
        let (code, out, err) = run(dir.path(), dir.path(), &["history", "--filter", filter]);
        assert_eq!((code, out.as_str(), err.trim()), (2, "", said), "{filter}");
    }
    let (code, out, _) = run(dir.path(), dir.path(), &["history", "--filter", "named-1"]);
    assert_eq!((code, out.lines().count()), (0, 1), "{out}");
}
