//! The watch list's worker: applies the App's changes to the file (coalescing status updates
//! to at most one write a second) and notices when another process changed the file.

use crate::cmd::{PersistOp, TaskKey};
use crate::msg::Msg;
use crate::store::dashboards::Registration;
use crate::store::watchlist::{Stamp, WatchEntry, WatchStore};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Queue depth towards the saver: far beyond what a person can cause.
const OPS: usize = 4096;

/// How often the file is checked for changes by others, and status updates written.
pub const CHECK_EVERY: Duration = Duration::from_secs(1);

/// This dashboard when it claims a finished task's end (`PersistOp::Claim`): its ID, and how
/// to tell whether the dashboard that holds a claim still runs (`store::dashboards::running`).
#[derive(Clone)]
pub struct Claimant {
    pub id: String,
    pub running: Arc<dyn Fn(&str) -> bool + Send + Sync>,
}

impl Claimant {
    /// Whether this dashboard may take `entry`'s end on: nobody has, this one has, or the one
    /// that had is gone (it crashed before it was done).
    fn may_take(&self, entry: &WatchEntry) -> bool {
        entry
            .claimed_by
            .as_deref()
            .is_none_or(|by| by == self.id || !(self.running)(by))
    }
}

/// The App's handle on the saver. Dropping it lets the saver write what is pending and end;
/// `finish` waits for that.
pub struct Handle {
    ops: mpsc::Sender<PersistOp>,
    task: JoinHandle<()>,
    /// Says that this dashboard runs, for as long as it does, to the others on its data
    /// directory (its claims stand while it does).
    registration: Registration,
}

/// Saves the App's changes to `store`. This dashboard registers beside the watch list: the
/// dashboards that share it are the ones that claim from it.
pub fn spawn(store: WatchStore, msgs: mpsc::Sender<Msg>) -> Handle {
    let dashboards = store.path().with_file_name("dashboards");
    let registration = Registration::register(&dashboards);
    let claimant = Claimant {
        id: registration.id().to_string(),
        running: Arc::new(move |id: &str| crate::store::dashboards::running(&dashboards, id)),
    };
    let (ops, queue) = mpsc::channel(OPS);
    let task = tokio::spawn(run(store, queue, msgs, claimant));
    Handle {
        ops,
        task,
        registration,
    }
}

impl Handle {
    /// A change to the saved watch list (`Cmd::Persist`).
    pub fn persist(&self, op: PersistOp) {
        // The queue is sized far beyond what a person can cause; a full one means the saver is
        // gone, and the App keeps running without it.
        let _ = self.ops.try_send(op);
    }

    /// Lets the saver write what is pending, waiting at most `grace`.
    pub async fn finish(self, grace: Duration) {
        let Handle {
            ops,
            task,
            registration,
        } = self;
        drop(ops);
        let _ = tokio::time::timeout(grace, task).await;
        // Only once the last claims are written: until then they are this dashboard's.
        drop(registration);
    }
}

/// Applies `op` to the list read under the lock; a claim's answer is returned.
fn apply(list: &mut Vec<WatchEntry>, op: &PersistOp, me: &Claimant) -> Option<(TaskKey, bool)> {
    if let PersistOp::Claim(key) = op {
        let won = list
            .iter_mut()
            .find(|e| TaskKey::of(e) == *key)
            .is_some_and(|e| {
                let free = me.may_take(e);
                if free {
                    e.claimed_by = Some(me.id.clone());
                } else {
                    tracing::info!(
                        "{} {}: claimed by dashboard {}, which runs: its notification, \
                         on_complete and download are left to it",
                        key.kind.as_str(),
                        crate::api::sanitize::sanitize(&key.id),
                        crate::api::sanitize::sanitize(e.claimed_by.as_deref().unwrap_or(""))
                    );
                }
                free
            });
        return Some((key.clone(), won));
    }
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
        PersistOp::Claim(_) => {}
    }
    None
}

/// What polls bring, written at most once a second; the user's own changes go at once.
fn routine(op: &PersistOp) -> bool {
    matches!(op, PersistOp::Status(..) | PersistOp::Trouble(..))
}

pub async fn run(
    store: WatchStore,
    mut ops: mpsc::Receiver<PersistOp>,
    msgs: mpsc::Sender<Msg>,
    me: Claimant,
) {
    let mut pending: Vec<PersistOp> = Vec::new();
    let mut applied = 0u64;
    let mut seen = store.stamp();
    let mut ticker = tokio::time::interval(CHECK_EVERY);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let urgent = tokio::select! {
            op = ops.recv() => {
                let Some(op) = op else {
                    flush(&store, &mut pending, &mut applied, &mut seen, &msgs, &me).await;
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
                    flush(&store, &mut pending, &mut applied, &mut seen, &msgs, &me).await;
                } else if store.stamp() != seen {
                    let s = store.clone();
                    match tokio::task::spawn_blocking(move || s.load()).await {
                        Ok(Ok(loaded)) => {
                            seen = loaded.stamp;
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
            flush(&store, &mut pending, &mut applied, &mut seen, &msgs, &me).await;
        }
    }
}

async fn flush(
    store: &WatchStore,
    pending: &mut Vec<PersistOp>,
    applied: &mut u64,
    seen: &mut Option<Stamp>,
    msgs: &mpsc::Sender<Msg>,
    me: &Claimant,
) {
    if pending.is_empty() {
        return;
    }
    let ops = std::mem::take(pending);
    let count = ops.len() as u64;
    let claims: Vec<TaskKey> = ops
        .iter()
        .filter_map(|op| match op {
            PersistOp::Claim(key) => Some(key.clone()),
            _ => None,
        })
        .collect();
    let (s, me) = (store.clone(), me.clone());
    let result = tokio::task::spawn_blocking(move || {
        let mut answers = Vec::new();
        let saved = s.update(|list| {
            answers = ops.iter().filter_map(|op| apply(list, op, &me)).collect();
        });
        saved.map(|loaded| (loaded, answers))
    })
    .await;
    *applied += count;
    let answers = match &result {
        Ok(Ok((_, answers))) => answers.clone(),
        // The file cannot say whether another dashboard took them on: better twice than never.
        _ => claims.into_iter().map(|key| (key, true)).collect(),
    };
    let result = result.map(|r| r.map(|(loaded, _)| loaded));
    match result {
        Ok(Ok(loaded)) => {
            *seen = loaded.stamp;
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
    for (key, won) in answers {
        let _ = msgs.send(Msg::Claimed { key, won }).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::TaskKind;
    use crate::store::watchlist::LastKnown;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// Claims `key` through a saver of `store` as `me`; the answer it sent.
    async fn claim(store: &WatchStore, me: Claimant, key: &TaskKey) -> bool {
        let (ops, rx) = mpsc::channel(4);
        let (msgs, mut answers) = mpsc::channel(16);
        let saver = tokio::spawn(run(store.clone(), rx, msgs, me));
        ops.send(PersistOp::Claim(key.clone())).await.expect("send");
        drop(ops);
        saver.await.expect("saver");
        let mut won = None;
        while let Ok(msg) = answers.try_recv() {
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
        let key = TaskKey::new(TaskKind::Image, "t-1");
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
        assert!(claim(&store, me("first"), &key).await);
        assert!(!claim(&store, me("second"), &key).await);
        assert!(claim(&store, me("first"), &key).await);
        let on_disk = store.load().expect("load").entries;
        assert_eq!(on_disk[0].claimed_by.as_deref(), Some("first"));
        first_runs.store(false, Ordering::SeqCst);
        assert!(claim(&store, me("second"), &key).await);
        let gone = TaskKey::new(TaskKind::Image, "not-listed");
        assert!(!claim(&store, me("second"), &gone).await);
    }

    /// A status update waits for the next write (a second); `finish` writes it before the
    /// dashboard ends, and only then takes this dashboard off the running ones.
    #[tokio::test]
    async fn finish_writes_what_is_pending_then_unregisters() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = WatchStore::new(dir.path().join("w.json"));
        let registered =
            || std::fs::read_dir(dir.path().join("dashboards")).map_or(0, Iterator::count);
        let (msgs, _answers) = mpsc::channel(16);
        let saver = spawn(store.clone(), msgs);
        assert_eq!(registered(), 1, "registered while it runs");
        let key = TaskKey::new(TaskKind::Image, "t-1");
        saver.persist(PersistOp::Add(vec![WatchEntry::new(
            "t-1",
            TaskKind::Image,
        )]));
        let status = LastKnown {
            status: "running".into(),
            percent: 40,
            ..LastKnown::default()
        };
        saver.persist(PersistOp::Status(key, status.clone()));
        saver.finish(Duration::from_secs(20)).await;
        let on_disk = store.load().expect("load").entries;
        assert_eq!(on_disk.len(), 1);
        assert_eq!(on_disk[0].last.as_ref(), Some(&status));
        assert_eq!(registered(), 0, "unregistered once it ended");
    }
}
