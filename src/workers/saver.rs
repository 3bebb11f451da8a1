//! The watch list's worker: applies the App's changes to the file (coalescing status updates
//! to at most one write a second) and notices when another process changed the file.

use crate::msg::{Msg, PersistOp, TaskKey};
use crate::store::watchlist::{WatchEntry, WatchStore};
use std::time::{Duration, SystemTime};
use tokio::sync::mpsc;

/// How often the file is checked for changes by others, and status updates written.
pub const CHECK_EVERY: Duration = Duration::from_secs(1);

fn apply(list: &mut Vec<WatchEntry>, op: &PersistOp) {
    match op {
        PersistOp::Add(entries) => {
            for e in entries {
                if !list.iter().any(|x| x.same_task(e)) {
                    list.push(e.clone());
                }
            }
        }
        PersistOp::Remove(keys) => list.retain(|e| !keys.contains(&TaskKey::of(e))),
        PersistOp::Status(key, known) => {
            if let Some(e) = list.iter_mut().find(|e| TaskKey::of(e) == *key) {
                e.last = Some(known.clone());
            }
        }
        PersistOp::Saved(key, path) => {
            if let Some(e) = list.iter_mut().find(|e| TaskKey::of(e) == *key) {
                e.saved = Some(path.clone());
            }
        }
        PersistOp::AutoDownload(key, auto) => {
            if let Some(e) = list.iter_mut().find(|e| TaskKey::of(e) == *key) {
                e.auto_download = *auto;
            }
        }
        PersistOp::Trouble(key, trouble) => {
            if let Some(e) = list.iter_mut().find(|e| TaskKey::of(e) == *key) {
                e.trouble.clone_from(trouble);
            }
        }
        PersistOp::Adopt(service) => {
            for e in list.iter_mut().filter(|e| e.service.is_none()) {
                e.service = Some(service.clone());
            }
        }
    }
}

/// What polls bring, written at most once a second; the user's own changes go at once.
fn routine(op: &PersistOp) -> bool {
    matches!(op, PersistOp::Status(..) | PersistOp::Trouble(..))
}

fn stamp(store: &WatchStore) -> Option<(SystemTime, u64)> {
    let m = std::fs::metadata(store.path()).ok()?;
    Some((m.modified().ok()?, m.len()))
}

pub async fn run(store: WatchStore, mut ops: mpsc::Receiver<PersistOp>, msgs: mpsc::Sender<Msg>) {
    let mut pending: Vec<PersistOp> = Vec::new();
    let mut applied = 0u64;
    let mut seen = stamp(&store);
    let mut ticker = tokio::time::interval(CHECK_EVERY);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let urgent = tokio::select! {
            op = ops.recv() => {
                let Some(op) = op else {
                    flush(&store, &mut pending, &mut applied, &mut seen, &msgs).await;
                    return;
                };
                let mut urgent = !routine(&op);
                pending.push(op);
                while let Ok(more) = ops.try_recv() {
                    urgent |= !routine(&more);
                    pending.push(more);
                }
                urgent
            }
            _ = ticker.tick() => {
                if !pending.is_empty() {
                    flush(&store, &mut pending, &mut applied, &mut seen, &msgs).await;
                } else if stamp(&store) != seen {
                    let s = store.clone();
                    match tokio::task::spawn_blocking(move || s.load()).await {
                        Ok(Ok(loaded)) => {
                            seen = stamp(&store);
                            if let Some(p) = loaded.set_aside {
                                let _ = msgs.send(Msg::StoreProblem(format!("the watch list could not be read and was set aside as {}", p.display()))).await;
                            }
                            if msgs.send(Msg::WatchFile { entries: loaded.entries, applied }).await.is_err() {
                                return;
                            }
                        }
                        Ok(Err(e)) => {
                            let _ = msgs.send(Msg::StoreProblem(e.to_string())).await;
                        }
                        Err(_) => {}
                    }
                }
                false
            }
        };
        if urgent {
            flush(&store, &mut pending, &mut applied, &mut seen, &msgs).await;
        }
    }
}

async fn flush(
    store: &WatchStore,
    pending: &mut Vec<PersistOp>,
    applied: &mut u64,
    seen: &mut Option<(SystemTime, u64)>,
    msgs: &mpsc::Sender<Msg>,
) {
    if pending.is_empty() {
        return;
    }
    let ops = std::mem::take(pending);
    let count = ops.len() as u64;
    let s = store.clone();
    let result = tokio::task::spawn_blocking(move || {
        s.update(|list| ops.iter().for_each(|op| apply(list, op)))
    })
    .await;
    *applied += count;
    match result {
        Ok(Ok(loaded)) => {
            *seen = stamp(store);
            if let Some(p) = loaded.set_aside {
                let _ = msgs
                    .send(Msg::StoreProblem(format!(
                        "the watch list could not be read and was set aside as {}",
                        p.display()
                    )))
                    .await;
            }
            let _ = msgs
                .send(Msg::WatchFile {
                    entries: loaded.entries,
                    applied: *applied,
                })
                .await;
        }
        Ok(Err(e)) => {
            let _ = msgs.send(Msg::StoreProblem(e.to_string())).await;
        }
        Err(e) => {
            let _ = msgs
                .send(Msg::StoreProblem(format!(
                    "saving the watch list failed: {e}"
                )))
                .await;
        }
    }
}
