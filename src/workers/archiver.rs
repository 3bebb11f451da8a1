//! The archive's worker: serves the App's `ArchiveOp`s in order on a thread of its own (the
//! archive is an SQLite file, read and written with blocking calls) and answers each with
//! `Msg::Archive`. The archive is opened at the first request, and again after a failure.

use crate::cmd::ArchiveOp;
use crate::msg::{ArchiveReport, Msg};
use crate::store::archive::Archive;
use std::path::{Path, PathBuf};
use tokio::sync::mpsc;

/// The App's handle on the archiver; dropping it ends the worker once its queue is served.
pub struct Handle {
    ops: mpsc::UnboundedSender<ArchiveOp>,
}

/// Serves requests on the archive at `path`.
pub fn spawn(path: PathBuf, msgs: mpsc::Sender<Msg>) -> Handle {
    let (ops, queue) = mpsc::unbounded_channel();
    let spawned = std::thread::Builder::new()
        .name("archiver".into())
        .spawn(move || run(&path, queue, &msgs));
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

fn run(path: &Path, mut queue: mpsc::UnboundedReceiver<ArchiveOp>, msgs: &mpsc::Sender<Msg>) {
    let mut archive: Option<Archive> = None;
    while let Some(op) = queue.blocking_recv() {
        // Loads queued behind one another are answered once.
        let mut ops = vec![op];
        while let Ok(more) = queue.try_recv() {
            if !(matches!(more, ArchiveOp::Load) && matches!(ops.last(), Some(ArchiveOp::Load))) {
                ops.push(more);
            }
        }
        for op in ops {
            let a = match archive.as_mut() {
                Some(a) => a,
                None => match Archive::open(path) {
                    Ok(a) => {
                        if let Some(aside) = a.set_aside() {
                            let _ = msgs.blocking_send(Msg::StoreProblem(aside.to_string()));
                        }
                        archive.insert(a)
                    }
                    Err(e) => {
                        let failed = ArchiveReport::Failed(line(&e));
                        if msgs.blocking_send(Msg::Archive(failed)).is_err() {
                            return;
                        }
                        continue;
                    }
                },
            };
            let report = serve(a, op);
            if msgs.blocking_send(Msg::Archive(report)).is_err() {
                return;
            }
        }
    }
}

/// One request's answer.
fn serve(a: &mut Archive, op: ArchiveOp) -> ArchiveReport {
    let answer = match op {
        ArchiveOp::Load => a.list().map(|l| ArchiveReport::Listed(l.into())),
        ArchiveOp::Get(id) => a.get(id).map(|t| ArchiveReport::Got(id, t.map(Box::new))),
        ArchiveOp::Delete(ids) => a.delete(&ids).map(ArchiveReport::Deleted),
        ArchiveOp::Restore(tasks) => a.restore(&tasks).map(|()| ArchiveReport::Changed),
        ArchiveOp::Unarchive(ids) => a.delete(&ids).map(|_| ArchiveReport::Changed),
        ArchiveOp::Saved(id, file) => a.set_saved(id, &file).map(|()| ArchiveReport::Changed),
    };
    answer.unwrap_or_else(|e| ArchiveReport::Failed(line(&e)))
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
        let path = Archive::path_in(dir.path());
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
        let h = spawn(path.clone(), tx);
        h.archive(ArchiveOp::Load);
        let ArchiveReport::Listed(list) = answer(&mut rx).await else {
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
        let ArchiveReport::Listed(list) = answer(&mut rx).await else {
            panic!("listed")
        };
        assert!(list.is_empty());
    }

    /// An archive that cannot be opened is reported as one line naming the file.
    #[tokio::test]
    async fn a_failure_is_one_line_naming_the_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        // A directory where the file should be.
        let path = dir.path().join("archive.sqlite3");
        std::fs::create_dir(&path).expect("dir");
        let (tx, mut rx) = mpsc::channel(16);
        let h = spawn(path.clone(), tx);
        h.archive(ArchiveOp::Load);
        let ArchiveReport::Failed(text) = answer(&mut rx).await else {
            panic!("failed")
        };
        assert!(text.contains(&path.display().to_string()), "{text}");
        assert!(!text.contains('\n'));
    }
}
