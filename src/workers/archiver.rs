//! The archive's worker: serves the App's `ArchiveOp`s in order on a thread of its own (the
//! archive is an SQLite file, read and written with blocking calls) and answers each with
//! `Msg::Archive`. The archive is opened at the first request, and again after a failure.
//!
//! Reading 100,000 rows takes longer than a keystroke should wait, so the worker keeps the
//! list it last read: `Load` is answered from it while no other connection has changed the
//! file (SQLite's `data_version`), and its own changes are applied to it as they are made.
//! The list is first read once the dashboard has been up a moment (or at the first request),
//! so the first opening of the view finds it ready.

use crate::cmd::ArchiveOp;
use crate::filter::texts::Table;
use crate::msg::{ArchiveReport, Msg, search_table};
use crate::store::archive::{Archive, ArchiveError, ArchivedTask, Files};
use std::sync::Arc;
use std::sync::mpsc as std_mpsc;
use std::time::Duration;
use tokio::sync::mpsc;

/// How long after the start the list is first read, if nothing asked for it before.
const PRELOAD_AFTER: Duration = Duration::from_millis(1500);

/// How often, between requests, the file is checked for another process's change (a
/// dashboard or `gendash watch rm` archiving), so an open view follows it. The unit tests
/// check five times as often: the promise is the same, told once, within a few checks.
const CHECK_EVERY: Duration = if cfg!(test) {
    Duration::from_millis(200)
} else {
    Duration::from_secs(1)
};

/// The App's handle on the archiver; dropping it ends the worker once its queue is served.
pub struct Handle {
    ops: std_mpsc::Sender<ArchiveOp>,
}

/// Serves requests on the archive in `files`; its dates are read at `utc_offset` seconds from
/// UTC (the filter's `finished:` and `added:`).
pub fn spawn(files: Files, utc_offset: i32, msgs: mpsc::Sender<Msg>) -> Handle {
    let (ops, queue) = std_mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("archiver".into())
        .spawn(move || run(&files, utc_offset, &queue, &msgs));
    if let Err(e) = spawned {
        tracing::warn!("the archiver could not start: {e}");
    }
    Handle { ops }
}

impl Handle {
    /// `Cmd::Archive`.
    pub fn archive(&self, op: ArchiveOp) {
        // A closed queue means the worker is gone; the App keeps running without it.
        let _ = self.ops.send(op);
    }
}

/// The open archive and the list last read from it.
struct Worker<'a> {
    files: &'a Files,
    utc_offset: i32,
    archive: Option<Archive>,
    /// The list as of the archive's `data_version`, in the archive's order, and the filter's
    /// text of it.
    list: Option<(i64, Listed)>,
    /// The `data_version` last told to the App as changed by another process: told once.
    told: Option<i64>,
}

/// A list and the filter's text of it.
type Listed = (Arc<[ArchivedTask]>, Arc<Table>);

fn run(
    files: &Files,
    utc_offset: i32,
    queue: &std_mpsc::Receiver<ArchiveOp>,
    msgs: &mpsc::Sender<Msg>,
) {
    let mut w = Worker {
        files,
        utc_offset,
        archive: None,
        list: None,
        told: None,
    };
    let mut next = match queue.recv_timeout(PRELOAD_AFTER) {
        Ok(op) => Some(op),
        Err(std_mpsc::RecvTimeoutError::Timeout) => {
            // Only an archive that exists is read: starting the dashboard makes none.
            if files.archive.exists() {
                let _ = w.current(msgs);
            }
            None
        }
        Err(std_mpsc::RecvTimeoutError::Disconnected) => return,
    };
    loop {
        let op = match next.take() {
            Some(op) => op,
            None => match queue.recv_timeout(CHECK_EVERY) {
                Ok(op) => op,
                Err(std_mpsc::RecvTimeoutError::Timeout) => {
                    // An open view reloads (`Changed`); a closed one reads afresh when opened.
                    if w.changed_elsewhere()
                        && msgs
                            .blocking_send(Msg::Archive(ArchiveReport::Changed))
                            .is_err()
                    {
                        return;
                    }
                    continue;
                }
                Err(std_mpsc::RecvTimeoutError::Disconnected) => return,
            },
        };
        // Loads queued behind one another are answered once.
        let mut ops = vec![op];
        while let Ok(more) = queue.try_recv() {
            if !(matches!(more, ArchiveOp::Load) && matches!(ops.last(), Some(ArchiveOp::Load))) {
                ops.push(more);
            }
        }
        for op in ops {
            let report = w
                .serve(op, msgs)
                .unwrap_or_else(|e| ArchiveReport::Failed(line(&e)));
            if msgs.blocking_send(Msg::Archive(report)).is_err() {
                return;
            }
        }
    }
}

impl Worker<'_> {
    /// The archive, opened if it is not yet (a file set aside on the way is reported).
    fn archive(&mut self, msgs: &mpsc::Sender<Msg>) -> Result<&mut Archive, ArchiveError> {
        if self.archive.is_none() {
            let a = Archive::open(self.files)?;
            if let Some(aside) = a.set_aside() {
                let _ = msgs.blocking_send(Msg::StoreProblem(aside.to_string()));
            }
            self.archive = Some(a);
        }
        // Just opened or already open.
        self.archive.as_mut().ok_or_else(|| ArchiveError {
            path: self.files.archive.clone(),
            detail: "not open".into(),
        })
    }

    /// The whole list: the one kept, unless another connection changed the file since.
    fn current(&mut self, msgs: &mpsc::Sender<Msg>) -> Result<Listed, ArchiveError> {
        let version = self.archive(msgs)?.data_version()?;
        if let Some((v, listed)) = &self.list
            && *v == version
        {
            return Ok(listed.clone());
        }
        let list: Arc<[ArchivedTask]> = self.archive(msgs)?.list()?.into();
        let listed = (
            Arc::clone(&list),
            Arc::new(search_table(&list, self.utc_offset)),
        );
        self.list = Some((version, listed.clone()));
        Ok(listed)
    }

    /// Whether another connection changed the file since the kept list was read, not told
    /// before. Nothing read yet, nothing to tell.
    fn changed_elsewhere(&mut self) -> bool {
        let (Some(archive), Some((kept, _))) = (&self.archive, &self.list) else {
            return false;
        };
        let Ok(now) = archive.data_version() else {
            return false;
        };
        if now == *kept || self.told == Some(now) {
            return false;
        }
        self.told = Some(now);
        true
    }

    /// Applies this worker's own change to the kept list (`data_version` does not see it).
    fn edit(&mut self, change: impl FnOnce(&mut Vec<ArchivedTask>)) {
        if let Some((v, (list, _))) = self.list.take() {
            let mut rows = list.to_vec();
            change(&mut rows);
            let table = search_table(&rows, self.utc_offset);
            self.list = Some((v, (rows.into(), Arc::new(table))));
        }
    }

    /// One request's answer.
    fn serve(
        &mut self,
        op: ArchiveOp,
        msgs: &mpsc::Sender<Msg>,
    ) -> Result<ArchiveReport, ArchiveError> {
        let result = self.serve_open(op, msgs);
        if result.is_err() {
            // Opened again at the next request, and the list read afresh.
            self.archive = None;
            self.list = None;
        }
        result
    }

    fn serve_open(
        &mut self,
        op: ArchiveOp,
        msgs: &mpsc::Sender<Msg>,
    ) -> Result<ArchiveReport, ArchiveError> {
        Ok(match op {
            ArchiveOp::Load => {
                let (list, table) = self.current(msgs)?;
                ArchiveReport::Listed(list, table)
            }
            ArchiveOp::Get(id) => {
                ArchiveReport::Got(id, self.archive(msgs)?.get(id)?.map(Box::new))
            }
            ArchiveOp::Delete(ids) => {
                let gone = self.archive(msgs)?.delete(&ids)?;
                self.edit(|rows| rows.retain(|t| !ids.contains(&t.id)));
                ArchiveReport::Deleted(gone)
            }
            ArchiveOp::Unarchive(ids) => {
                self.archive(msgs)?.delete(&ids)?;
                self.edit(|rows| rows.retain(|t| !ids.contains(&t.id)));
                ArchiveReport::Changed
            }
            ArchiveOp::Restore(tasks) => {
                self.archive(msgs)?.restore(&tasks)?;
                // Read afresh at the next load: a row may have been archived again meanwhile.
                self.list = None;
                ArchiveReport::Changed
            }
            ArchiveOp::Saved(id, file) => {
                self.archive(msgs)?.set_saved(id, &file)?;
                self.edit(|rows| {
                    if let Some(t) = rows.iter_mut().find(|t| t.id == id) {
                        t.entry.saved = Some(file);
                    }
                });
                ArchiveReport::Changed
            }
        })
    }
}

/// An error as one line of plain text.
fn line(e: &impl std::fmt::Display) -> String {
    crate::api::sanitize::sanitize(&e.to_string())
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::TaskKind;
    use crate::store::watchlist::{LastKnown, WatchEntry};
    use std::time::Duration;

    async fn answer(rx: &mut mpsc::Receiver<Msg>) -> ArchiveReport {
        match tokio::time::timeout(Duration::from_secs(20), rx.recv()).await {
            Ok(Some(Msg::Archive(r))) => r,
            other => panic!("no answer: {other:?}"),
        }
    }

    /// Each request is answered in order, with what the archive holds.
    #[tokio::test]
    async fn every_request_is_answered() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = Files::in_dir(dir.path());
        let mut e = WatchEntry::new("t-1", TaskKind::Image);
        e.last = Some(LastKnown {
            status: "COMPLETED".into(),
            finished_at: Some(100),
            ..LastKnown::default()
        });
        Archive::open(&path)
            .expect("open")
            .insert(&[e.clone()], 200)
            .expect("insert");
        let (tx, mut rx) = mpsc::channel(16);
        let h = spawn(path.clone(), 0, tx);
        h.archive(ArchiveOp::Load);
        let ArchiveReport::Listed(list, _) = answer(&mut rx).await else {
            panic!("listed")
        };
        assert_eq!(list.len(), 1);
        let id = list[0].id;
        h.archive(ArchiveOp::Get(id));
        let ArchiveReport::Got(got, Some(task)) = answer(&mut rx).await else {
            panic!("got")
        };
        assert_eq!((got, &task.entry), (id, &e));
        h.archive(ArchiveOp::Saved(id, "/tmp/x.png".into()));
        assert!(matches!(answer(&mut rx).await, ArchiveReport::Changed));
        h.archive(ArchiveOp::Delete(vec![id]));
        let ArchiveReport::Deleted(gone) = answer(&mut rx).await else {
            panic!("deleted")
        };
        assert_eq!(gone[0].entry.saved.as_deref(), Some("/tmp/x.png"));
        h.archive(ArchiveOp::Restore(gone));
        assert!(matches!(answer(&mut rx).await, ArchiveReport::Changed));
        h.archive(ArchiveOp::Unarchive(vec![id]));
        assert!(matches!(answer(&mut rx).await, ArchiveReport::Changed));
        h.archive(ArchiveOp::Load);
        let ArchiveReport::Listed(list, _) = answer(&mut rx).await else {
            panic!("listed")
        };
        assert!(list.is_empty());
    }

    /// An archive that cannot be opened is reported as one line naming the file.
    #[tokio::test]
    async fn a_failure_is_one_line_naming_the_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        // A directory where the file should be.
        let path = Files::in_dir(dir.path());
        std::fs::create_dir(&path.archive).expect("dir");
        let (tx, mut rx) = mpsc::channel(16);
        let h = spawn(path.clone(), 0, tx);
        h.archive(ArchiveOp::Load);
        let ArchiveReport::Failed(text) = answer(&mut rx).await else {
            panic!("failed")
        };
        assert!(text.contains(&path.archive.display().to_string()), "{text}");
        assert!(!text.contains('\n'));
    }

    async fn load(h: &Handle, rx: &mut mpsc::Receiver<Msg>) -> Vec<(String, Option<String>)> {
        h.archive(ArchiveOp::Load);
        // A check between requests may tell of another connection's change first.
        let list = loop {
            match answer(rx).await {
                ArchiveReport::Listed(list, _) => break list,
                ArchiveReport::Changed => {}
                other => panic!("listed: {other:?}"),
            }
        };
        list.iter()
            .map(|t| (t.entry.task_id.clone(), t.entry.saved.clone()))
            .collect()
    }

    /// Another process's change is told (`Changed`) with no request, once: not again while
    /// nothing more changes, though the App may not load it (a closed view).
    #[tokio::test]
    async fn another_process_change_is_told_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = Files::in_dir(dir.path());
        let mut e = WatchEntry::new("a", TaskKind::Image);
        e.last = Some(LastKnown {
            status: "COMPLETED".into(),
            finished_at: Some(100),
            ..LastKnown::default()
        });
        let mut other = Archive::open(&path).expect("open");
        let (tx, mut rx) = mpsc::channel(16);
        let h = spawn(path.clone(), 0, tx);
        assert!(load(&h, &mut rx).await.is_empty());
        other.insert(&[e], 200).expect("insert");
        let told = tokio::time::timeout(CHECK_EVERY * 5, rx.recv()).await;
        assert!(
            matches!(told, Ok(Some(Msg::Archive(ArchiveReport::Changed)))),
            "{told:?}"
        );
        let again = tokio::time::timeout(CHECK_EVERY * 5 / 2, rx.recv()).await;
        assert!(again.is_err(), "told again: {again:?}");
    }

    /// The list kept between loads is current: another process's change is read, and this
    /// worker's own changes are in it.
    #[tokio::test]
    async fn a_kept_list_follows_every_change() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = Files::in_dir(dir.path());
        let task = |id: &str, at: u64| {
            let mut e = WatchEntry::new(id, TaskKind::Image);
            e.last = Some(LastKnown {
                status: "COMPLETED".into(),
                finished_at: Some(at),
                ..LastKnown::default()
            });
            e
        };
        let mut other = Archive::open(&path).expect("open");
        other.insert(&[task("a", 100)], 200).expect("insert");
        let (tx, mut rx) = mpsc::channel(16);
        let h = spawn(path.clone(), 0, tx);
        assert_eq!(load(&h, &mut rx).await, [("a".to_string(), None)]);
        other.insert(&[task("b", 300)], 400).expect("insert");
        assert_eq!(
            load(&h, &mut rx).await,
            [("b".to_string(), None), ("a".to_string(), None)],
            "another connection's change is read"
        );
        let id = other.list().expect("list")[0].id;
        drop(other);
        h.archive(ArchiveOp::Saved(id, "/tmp/b.png".into()));
        h.archive(ArchiveOp::Delete(vec![id + 1000]));
        let _ = (answer(&mut rx).await, answer(&mut rx).await);
        assert_eq!(
            load(&h, &mut rx).await,
            [
                ("b".to_string(), Some("/tmp/b.png".to_string())),
                ("a".to_string(), None)
            ]
        );
        h.archive(ArchiveOp::Unarchive(vec![id]));
        let _ = answer(&mut rx).await;
        assert_eq!(load(&h, &mut rx).await, [("a".to_string(), None)]);
    }
}
