//! The watch list's worker: applies the App's changes to the file (coalescing status updates
//! to at most one write a second) and notices when another process changed the file.
//!
//! It also moves finished tasks to the archive: those the App removes (`PersistOp::Remove`)
//! and, with `archive_after`, those finished that long ago. Each is written to the archive
//! before the watch list drops it, under the watch list's lock, so a crash in between leaves it
//! in both (archiving is an upsert), never in neither; if the archive cannot take them they
//! stay on the watch list and the problem is reported. A task put back on the watch list
//! (undo, watch again) leaves the archive, after the watch list has it.

use super::pollable::Pollable;
use crate::cmd::{PersistOp, TaskKey};
use crate::msg::{ArchiveReport, Msg};
use crate::store::archive::{self, Archive};
use crate::store::dashboards::Registration;
use crate::store::watchlist::{Stamp, TroubleKind, WatchEntry, WatchStore, unix_now};
use std::collections::HashSet;
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

/// Where finished tasks go when they leave the watch list, and when they leave it unasked.
#[derive(Debug, Clone, Default)]
pub struct Archiving {
    /// The archive's file and the watch list it imports; `None` archives nothing.
    pub files: Option<archive::Files>,
    /// `archive_after`: finished tasks move to the archive this long after they finished.
    pub after: Option<Duration>,
}

impl Archiving {
    /// When `entry` is due to move to the archive by `archive_after`, if ever.
    fn due(&self, entry: &WatchEntry) -> Option<u64> {
        let after = self.after?.as_secs();
        self.files.as_ref()?;
        if !archive::is_finished(entry) {
            return None;
        }
        let last = entry.last.as_ref()?;
        Some(
            last.finished_at
                .unwrap_or(last.updated_at)
                .saturating_add(after),
        )
    }

    /// The earliest moment a task of `entries` is due.
    fn next_due(&self, entries: &[WatchEntry]) -> Option<u64> {
        entries.iter().filter_map(|e| self.due(e)).min()
    }
}

/// What archiving did during one write of the watch list.
#[derive(Debug, Default)]
struct Moved {
    /// How many tasks moved to the archive, and how many left it for the watch list.
    archived: usize,
    forgotten: usize,
    /// What went wrong, one line each.
    problems: Vec<String>,
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

/// Saves the App's changes to `store`. This dashboard registers in `dashboards` (beside the
/// watch list): the dashboards that share it are the ones that claim from it. Finished tasks
/// that leave it go to the archive as `archiving` says. Tasks of services outside `pollable`
/// do not keep a run going.
pub fn spawn(
    store: WatchStore,
    dashboards: std::path::PathBuf,
    archiving: Archiving,
    pollable: Pollable,
    msgs: mpsc::Sender<Msg>,
) -> Handle {
    let registration = Registration::register(&dashboards);
    let claimant = Claimant {
        id: registration.id().to_string(),
        running: Arc::new(move |id: &str| crate::store::dashboards::running(&dashboards, id)),
    };
    let (ops, queue) = mpsc::channel(OPS);
    let task = tokio::spawn(run(store, queue, msgs, claimant, archiving, pollable));
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
                // A task never runs again once finished: a status another dashboard saw
                // earlier, written after the finish, is older news and leaves the finish be
                // (else the list would run again, and its end be told twice).
                if archive::is_finished(e) && known.finished_at.is_none() {
                    return None;
                }
                // Finished while watched (the file knew it running): new until looked at.
                // Only the first dashboard to record the finish marks it, so a look another
                // one recorded meanwhile stands.
                let was_running = e.last.as_ref().is_some_and(|l| l.finished_at.is_none());
                if was_running && known.finished_at.is_some() && e.seen.is_none() {
                    e.seen = Some(false);
                }
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
        PersistOp::Seen(keys) => {
            for e in list.iter_mut().filter(|e| keys.contains(&TaskKey::of(e))) {
                e.seen = Some(true);
            }
        }
        PersistOp::Label(keys, label) => {
            for e in list.iter_mut().filter(|e| keys.contains(&TaskKey::of(e))) {
                e.label.clone_from(label);
            }
        }
        PersistOp::Claim(_) => {}
    }
    None
}

/// Whether `entry`'s task still runs as the file says: not known finished, nor unknown to
/// its service, nor of a service this dashboard cannot poll (it goes nowhere).
fn runs(entry: &WatchEntry, pollable: &Pollable) -> bool {
    !archive::is_finished(entry)
        && pollable.polls(entry.service.as_deref())
        && entry
            .trouble
            .as_ref()
            .is_none_or(|t| t.kind != TroubleKind::NotFound)
}

/// Whether a write that turned a list whose running tasks were `ran` into `after` ended a run:
/// some task ran before it, none runs after it, and one that ran finished in it (a run whose
/// last running task was removed rather than finished ends untold). Writes are made under the
/// file's lock one after another, so of the dashboards sharing the file exactly one makes this
/// write.
fn ends_run(ran: &HashSet<TaskKey>, after: &[WatchEntry], pollable: &Pollable) -> bool {
    let runs = |e: &WatchEntry| runs(e, pollable);
    !after.iter().any(runs)
        && after
            .iter()
            .any(|e| !runs(e) && ran.contains(&TaskKey::of(e)))
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
    archiving: Archiving,
    pollable: Pollable,
) {
    let mut w = Writer {
        store,
        pending: Vec::new(),
        applied: 0,
        seen: None,
        held: Arc::default(),
        next_due: None,
        archiving,
        me,
        pollable,
        running: false,
    };
    w.seen = w.store.stamp();
    // The list as the dashboard started with it (its start-up read it, setting aside a bad
    // file): what is written back should the file turn bad before the first write.
    let s = w.store.clone();
    if let Ok(Ok(entries)) = tokio::task::spawn_blocking(move || s.read()).await {
        w.running = entries.iter().any(|e| runs(e, &w.pollable));
        w.held = Arc::new(entries);
    }
    // `archive_after` is checked at start, then whenever the list is written or read, and
    // when the earliest finished task falls due (no wake-up otherwise).
    if w.archiving.after.is_some() && w.archiving.files.is_some() {
        w.flush(&msgs, true).await;
    }
    let mut ticker = tokio::time::interval(CHECK_EVERY);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let urgent = tokio::select! {
            op = ops.recv() => {
                let Some(op) = op else {
                    w.flush(&msgs, false).await;
                    return;
                };
                let mut urgent = !routine(&op);
                w.pending.push(op);
                while let Ok(more) = ops.try_recv() {
                    urgent |= !routine(&more);
                    w.pending.push(more);
                }
                urgent
            }
            _ = ticker.tick() => {
                let due = w.next_due.is_some_and(|t| t <= unix_now());
                if !w.pending.is_empty() || due {
                    w.flush(&msgs, due).await;
                } else if w.store.stamp() != w.seen {
                    let (s, held) = (w.store.clone(), Arc::clone(&w.held));
                    match tokio::task::spawn_blocking(move || s.load_keeping(&held)).await {
                        Ok(Ok(loaded)) => {
                            w.seen = loaded.stamp;
                            w.next_due = w.archiving.next_due(&loaded.entries);
                            w.held = Arc::new(loaded.entries.clone());
                            if let Some(text) = set_aside_notice(&loaded) {
                                let _ = msgs.send(Msg::StoreProblem(text)).await;
                            }
                            let running = loaded.entries.iter().any(|e| runs(e, &w.pollable));
                            if msgs.send(Msg::WatchFile { entries: loaded.entries, applied: w.applied }).await.is_err() {
                                return;
                            }
                            if w.running && !running {
                                let _ = msgs.send(Msg::RunEnded { here: false }).await;
                            }
                            w.running = running;
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
            w.flush(&msgs, false).await;
        }
    }
}

/// The saver's state between writes.
struct Writer {
    store: WatchStore,
    pending: Vec<PersistOp>,
    /// How many of the App's operations are written.
    applied: u64,
    /// The file as last written or read.
    seen: Option<Stamp>,
    /// The list as last written or read: the dashboard's view of it, written back when the
    /// file turns unreadable or vanishes.
    /// Shared with the write under way rather than copied.
    held: Arc<Vec<WatchEntry>>,
    /// When the earliest finished task is due to move to the archive (`archive_after`).
    next_due: Option<u64>,
    archiving: Archiving,
    me: Claimant,
    /// Which services' tasks can run here.
    pollable: Pollable,
    /// Some task ran in the file as last written or read: a file found with none running
    /// since then was ended by another dashboard's write.
    running: bool,
}

impl Writer {
    /// Writes what is pending (and, with `expire`, moves the tasks `archive_after` made due to
    /// the archive), then tells the App what the file now holds.
    async fn flush(&mut self, msgs: &mpsc::Sender<Msg>, expire: bool) {
        if self.pending.is_empty() && !expire {
            return;
        }
        let ops = std::mem::take(&mut self.pending);
        let count = ops.len() as u64;
        let claims: Vec<TaskKey> = ops
            .iter()
            .filter_map(|op| match op {
                PersistOp::Claim(key) => Some(key.clone()),
                _ => None,
            })
            .collect();
        let (s, me, archiving) = (self.store.clone(), self.me.clone(), self.archiving.clone());
        let pollable = self.pollable.clone();
        let held = Arc::clone(&self.held);
        let result = tokio::task::spawn_blocking(move || {
            let mut answers = Vec::new();
            let mut moved = Moved::default();
            let now = unix_now();
            // The tasks that ran in the list as found: all that is asked of it afterwards (a
            // copy of the whole list was 2.8 MiB at 10,000 tasks, once a second).
            let mut found = HashSet::new();
            let saved = s.update_keeping(&held, |list| {
                found = list
                    .iter()
                    .filter(|e| runs(e, &pollable))
                    .map(TaskKey::of)
                    .collect();
                let before;
                (before, answers) = apply_all(list, &ops, &me);
                if expire {
                    list.retain(|e| archiving.due(e).is_none_or(|t| t > now));
                }
                archive_removed(&before, list, &archiving, now, &mut moved);
            });
            if let Ok(loaded) = &saved {
                forget_added(&ops, &loaded.entries, &archiving, &mut moved);
            }
            saved.map(|loaded| (loaded, answers, moved, found))
        })
        .await;
        self.applied += count;
        let answers = match &result {
            Ok(Ok((_, answers, _, _))) => answers.clone(),
            // The file cannot say whether another dashboard took them on: better twice than
            // never.
            _ => claims.into_iter().map(|key| (key, true)).collect(),
        };
        // The file as this write found it (under the lock) ran a task no longer running once
        // written: this write ended the run; one found with none running after some ran here
        // was ended by another dashboard's write meanwhile. A run whose last running task this
        // write removed ends untold, here as in the other dashboards (they read the file).
        let mut run_ended = None;
        match result {
            Ok(Ok((loaded, _, moved, found))) => {
                let runs = |e: &WatchEntry| runs(e, &self.pollable);
                let running = loaded.entries.iter().any(runs);
                if ends_run(&found, &loaded.entries, &self.pollable) {
                    run_ended = Some(true);
                } else if (self.running || !found.is_empty()) && !running {
                    run_ended = Some(false);
                }
                self.running = running;
                self.seen = loaded.stamp;
                self.next_due = self.archiving.next_due(&loaded.entries);
                self.held = Arc::new(loaded.entries.clone());
                if let Some(text) = set_aside_notice(&loaded) {
                    let _ = msgs.send(Msg::StoreProblem(text)).await;
                }
                for problem in moved.problems {
                    let _ = msgs.send(Msg::StoreProblem(problem)).await;
                }
                let _ = msgs
                    .send(Msg::WatchFile {
                        entries: loaded.entries,
                        applied: self.applied,
                    })
                    .await;
                if moved.archived + moved.forgotten > 0 {
                    let _ = msgs.send(Msg::Archive(ArchiveReport::Changed)).await;
                }
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
        // After the claims' answers, so the finish this write claimed is counted in the run.
        if let Some(here) = run_ended {
            let _ = msgs.send(Msg::RunEnded { here }).await;
        }
    }
}

/// What the user is told when the file was unreadable (set aside) or gone, and what this
/// dashboard did about it; also written to the log.
fn set_aside_notice(loaded: &crate::store::watchlist::Loaded) -> Option<String> {
    let wrote_back = || {
        let tasks = crate::fmt::count(loaded.entries.len(), "task");
        format!("this dashboard wrote back the {tasks} it shows")
    };
    let text = match (&loaded.set_aside, loaded.wrote_back) {
        (Some(p), false) => format!(
            "the watch list could not be read and was set aside as {}",
            p.display()
        ),
        // What was done first: a narrow status bar keeps the start.
        (Some(p), true) => format!(
            "the watch list could not be read: {}; the bad file was set aside as {}",
            wrote_back(),
            p.display()
        ),
        (None, true) => format!("the watch list file was gone; {}", wrote_back()),
        (None, false) => return None,
    };
    tracing::warn!("{}", crate::api::sanitize::sanitize(&text));
    Some(text)
}

/// Applies `ops` to `list` in order; returns the claims' answers, and the list as the
/// archive must see it: each entry as it was when it was removed, so a task whose finish and
/// removal come in one batch is archived as finished (never dropped as a running one).
fn apply_all(
    list: &mut Vec<WatchEntry>,
    ops: &[PersistOp],
    me: &Claimant,
) -> (Vec<WatchEntry>, Vec<(TaskKey, bool)>) {
    let mut before = list.clone();
    let mut answers = Vec::new();
    for op in ops {
        if let PersistOp::Remove(keys) = op {
            for e in list.iter().filter(|e| keys.contains(&TaskKey::of(e))) {
                match before.iter_mut().find(|b| b.same_task(e)) {
                    Some(b) => b.clone_from(e),
                    None => before.push(e.clone()),
                }
            }
        }
        answers.extend(apply(list, op, me));
    }
    (before, answers)
}

/// Writes the finished tasks that were in `before` and are not in `list` to the archive
/// (before the watch list is saved without them); if the archive cannot take them, they are
/// put back on `list`.
fn archive_removed(
    before: &[WatchEntry],
    list: &mut Vec<WatchEntry>,
    archiving: &Archiving,
    now: u64,
    moved: &mut Moved,
) {
    let Some(files) = &archiving.files else {
        return;
    };
    match archive::archive_dropped(files, before, list, now) {
        Ok(dropped) => {
            if let Some(aside) = dropped.set_aside {
                moved.problems.push(aside.to_string());
            }
            moved.archived += dropped.archived.len();
        }
        Err(e) => moved
            .problems
            .push(format!("{e}; the finished tasks stay on the watch list")),
    }
}

/// Takes the tasks the App put back on the watch list (`PersistOp::Add`: undo, watch again)
/// out of the archive, now that the watch list has them.
fn forget_added(ops: &[PersistOp], list: &[WatchEntry], archiving: &Archiving, moved: &mut Moved) {
    let Some(files) = archiving.files.as_ref().filter(|f| f.archive.exists()) else {
        return;
    };
    let added: Vec<WatchEntry> = ops
        .iter()
        .filter_map(|op| match op {
            PersistOp::Add(entries) => Some(entries),
            _ => None,
        })
        .flatten()
        .filter_map(|e| list.iter().find(|x| x.same_task(e)).cloned())
        .collect();
    if added.is_empty() {
        return;
    }
    match Archive::open(files).and_then(|mut a| a.forget(&added)) {
        Ok(n) => moved.forgotten += n,
        Err(e) => moved.problems.push(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A task is new from the status that first records it finished after it ran (two
    /// dashboards may both report the finish: a look recorded between stands); a look clears
    /// it; one found finished at its first status is not new.
    #[test]
    fn a_finish_marks_new_once_and_a_look_clears_it() {
        use crate::store::watchlist::LastKnown;
        let me = Claimant {
            id: "me".into(),
            running: Arc::new(|_: &str| true),
        };
        let key = TaskKey::new(TaskKind::Image, "t");
        let status = |text: &str, finished: Option<u64>| {
            PersistOp::Status(
                key.clone(),
                LastKnown {
                    status: text.into(),
                    finished_at: finished,
                    ..LastKnown::default()
                },
            )
        };
        let mut list = vec![WatchEntry::new("t", TaskKind::Image)];
        let _ = apply(&mut list, &status("COMPLETED", Some(5)), &me);
        assert_eq!(list[0].seen, None, "found finished: not new");
        let mut list = vec![WatchEntry::new("t", TaskKind::Image)];
        let _ = apply(&mut list, &status("IN_PROGRESS", None), &me);
        let _ = apply(&mut list, &status("COMPLETED", Some(5)), &me);
        assert_eq!(list[0].seen, Some(false));
        let _ = apply(&mut list, &PersistOp::Seen(vec![key.clone()]), &me);
        assert_eq!(list[0].seen, Some(true));
        // The other dashboard's report of the same finish, after the look.
        let _ = apply(&mut list, &status("COMPLETED", Some(6)), &me);
        assert_eq!(list[0].seen, Some(true));
    }
    use crate::api::TaskKind;
    use crate::store::watchlist::LastKnown;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// A dashboard whose one service (and its entries' with none recorded) is `http://svc`.
    fn polls_svc() -> Pollable {
        Pollable::new("http://svc", [])
    }

    /// Another dashboard's older status (running) written after the finish leaves it finished.
    #[test]
    fn a_finished_task_never_runs_again_in_the_file() {
        let me = Claimant {
            id: "me".into(),
            running: Arc::new(|_: &str| true),
        };
        let key = TaskKey::new(TaskKind::Image, "t");
        let status = |text: &str, percent: u8, finished: Option<u64>| {
            PersistOp::Status(
                key.clone(),
                LastKnown {
                    status: text.into(),
                    percent,
                    finished_at: finished,
                    ..LastKnown::default()
                },
            )
        };
        let mut list = vec![WatchEntry::new("t", TaskKind::Image)];
        let _ = apply(&mut list, &status("IN_PROGRESS", 40, None), &me);
        let _ = apply(&mut list, &status("COMPLETED", 100, Some(5)), &me);
        let _ = apply(&mut list, &status("IN_PROGRESS", 90, None), &me);
        let kept = list[0].last.as_ref().expect("known");
        assert_eq!((kept.status.as_str(), kept.percent), ("COMPLETED", 100));
    }

    /// Claims `key` through a saver of `store` as `me`; the answer it sent.
    async fn claim(store: &WatchStore, me: Claimant, key: &TaskKey) -> bool {
        let (ops, rx) = mpsc::channel(4);
        let (msgs, mut answers) = mpsc::channel(16);
        let saver = tokio::spawn(run(
            store.clone(),
            rx,
            msgs,
            me,
            Archiving::default(),
            polls_svc(),
        ));
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

    /// Two dashboards write the finishes of two running tasks, each its own and the other's
    /// again: exactly one write, the one that left nothing running, says it ended the run.
    #[tokio::test]
    async fn one_write_of_the_two_dashboards_ends_the_run() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = WatchStore::new(dir.path().join("w.json"));
        let running = |id: &str| {
            let mut e = WatchEntry::new(id, TaskKind::Image);
            e.last = Some(LastKnown {
                status: "IN_PROGRESS".into(),
                ..LastKnown::default()
            });
            e
        };
        store
            .update(|l| l.extend([running("t-1"), running("t-2")]))
            .expect("add");
        let finish = |id: &str| {
            let key = TaskKey::new(TaskKind::Image, id);
            let last = LastKnown {
                status: "COMPLETED".into(),
                percent: 100,
                finished_at: Some(5),
                ..LastKnown::default()
            };
            vec![PersistOp::Status(key.clone(), last), PersistOp::Claim(key)]
        };
        let me = |id: &str| Claimant {
            id: id.into(),
            running: Arc::new(|_: &str| true),
        };
        // Each write by a saver of its own, as the dashboards' are: the run's ends it said.
        let write = |who: &str, ops: Vec<PersistOp>| {
            let (store, me) = (store.clone(), me(who));
            async move {
                let (tx, rx) = mpsc::channel(8);
                let (msgs, mut answers) = mpsc::channel(16);
                let saver =
                    tokio::spawn(run(store, rx, msgs, me, Archiving::default(), polls_svc()));
                for op in ops {
                    tx.send(op).await.expect("send");
                }
                drop(tx);
                saver.await.expect("saver");
                let mut ended = Vec::new();
                while let Ok(msg) = answers.try_recv() {
                    if let Msg::RunEnded { here } = msg {
                        ended.push(here);
                    }
                }
                ended
            }
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
    /// not be made) goes nowhere: the write that finishes the last other running task ends
    /// the run, as the rows' `no service` says.
    #[tokio::test]
    async fn a_task_of_no_usable_service_does_not_keep_the_run_going() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = WatchStore::new(dir.path().join("w.json"));
        let running = |id: &str, service: Option<&str>| {
            let mut e = WatchEntry::new(id, TaskKind::Image);
            e.service = service.map(Into::into);
            e.last = Some(LastKnown {
                status: "IN_PROGRESS".into(),
                ..LastKnown::default()
            });
            e
        };
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
        let key = TaskKey::new(TaskKind::Image, "t-1");
        let last = LastKnown {
            status: "COMPLETED".into(),
            percent: 100,
            finished_at: Some(5),
            ..LastKnown::default()
        };
        let me = Claimant {
            id: "me".into(),
            running: Arc::new(|_: &str| true),
        };
        let (tx, rx) = mpsc::channel(8);
        let (msgs, mut told) = mpsc::channel(16);
        let saver = tokio::spawn(run(store, rx, msgs, me, Archiving::default(), pollable));
        tx.send(PersistOp::Status(key.clone(), last))
            .await
            .expect("send");
        tx.send(PersistOp::Claim(key)).await.expect("send");
        drop(tx);
        saver.await.expect("saver");
        let mut ended = Vec::new();
        while let Ok(msg) = told.try_recv() {
            if let Msg::RunEnded { here } = msg {
                ended.push(here);
            }
        }
        assert_eq!(ended, [true], "t-1's finish ended the run");
    }

    /// The last running task removed rather than finished ends the run untold, in the
    /// dashboard that removed it as in the others: its finishes are not counted in the next.
    #[tokio::test]
    async fn removing_the_last_running_task_ends_the_run_untold() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = WatchStore::new(dir.path().join("w.json"));
        let mut e = WatchEntry::new("t-1", TaskKind::Image);
        e.last = Some(LastKnown {
            status: "IN_PROGRESS".into(),
            ..LastKnown::default()
        });
        store.update(|l| l.push(e)).expect("add");
        let remove = PersistOp::Remove(vec![TaskKey::new(TaskKind::Image, "t-1")]);
        let ended: Vec<bool> = save(&store, Archiving::default(), vec![remove])
            .await
            .into_iter()
            .filter_map(|m| match m {
                Msg::RunEnded { here } => Some(here),
                _ => None,
            })
            .collect();
        assert_eq!(ended, [false]);
    }

    /// A dashboard that starts while a run goes, and never writes, is told that another
    /// dashboard's write ended it (its App's counts start anew).
    #[tokio::test]
    async fn a_run_going_at_start_that_another_ends_is_told() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = WatchStore::new(dir.path().join("w.json"));
        let mut e = WatchEntry::new("t-1", TaskKind::Image);
        e.last = Some(LastKnown {
            status: "IN_PROGRESS".into(),
            ..LastKnown::default()
        });
        store.update(|l| l.push(e)).expect("add");
        let me = Claimant {
            id: "me".into(),
            running: Arc::new(|_: &str| true),
        };
        let (tx, rx) = mpsc::channel(8);
        let (msgs, mut told) = mpsc::channel(16);
        let saver = tokio::spawn(run(
            store.clone(),
            rx,
            msgs,
            me,
            Archiving::default(),
            polls_svc(),
        ));
        // Its first read (of the running list) is done long before.
        tokio::time::sleep(Duration::from_secs(2)).await;
        store
            .update(|l| {
                l[0].last = Some(LastKnown {
                    status: "COMPLETED".into(),
                    finished_at: Some(5),
                    ..LastKnown::default()
                });
            })
            .expect("the other dashboard's write");
        let ended = tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                match told.recv().await {
                    Some(Msg::RunEnded { here }) => return Some(here),
                    Some(_) => {}
                    None => return None,
                }
            }
        })
        .await;
        drop(tx);
        saver.await.expect("saver");
        assert_eq!(ended.ok().flatten(), Some(false));
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
        let saver = spawn(
            store.clone(),
            dir.path().join("dashboards"),
            Archiving::default(),
            polls_svc(),
            msgs,
        );
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

    fn done(id: &str, finished_at: u64) -> WatchEntry {
        let mut e = WatchEntry::new(id, TaskKind::Image);
        e.service = Some("http://svc".into());
        e.last = Some(LastKnown {
            status: "COMPLETED".into(),
            percent: 100,
            finished_at: Some(finished_at),
            ..LastKnown::default()
        });
        e
    }

    /// Runs a saver with `archiving` over `ops`, to its end; what it told the App.
    async fn save(store: &WatchStore, archiving: Archiving, ops: Vec<PersistOp>) -> Vec<Msg> {
        let me = Claimant {
            id: "me".into(),
            running: Arc::new(|_: &str| true),
        };
        let (tx, rx) = mpsc::channel(64);
        let (msgs, mut told) = mpsc::channel(64);
        let saver = tokio::spawn(run(store.clone(), rx, msgs, me, archiving, polls_svc()));
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
        let keys = vec![
            TaskKey::new(TaskKind::Image, "a"),
            TaskKey::new(TaskKind::Image, "running"),
        ];
        let told = save(&store, archiving.clone(), vec![PersistOp::Remove(keys)]).await;
        assert_eq!(archived(&path), ["a"]);
        let listed: Vec<String> = store
            .load()
            .expect("load")
            .entries
            .into_iter()
            .map(|e| e.task_id)
            .collect();
        assert_eq!(listed, ["b"]);
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
        let mut running = WatchEntry::new("r", TaskKind::Image);
        running.last = Some(LastKnown {
            status: "IN_PROGRESS".into(),
            percent: 40,
            ..LastKnown::default()
        });
        store.update(|l| l.push(running)).expect("list");
        drop(Archive::open(&path).expect("archive"));
        let archiving = Archiving {
            files: Some(path.clone()),
            after: None,
        };
        let finished = done("r", 100).last.expect("last");
        let (r, c) = (
            TaskKey::new(TaskKind::Image, "r"),
            TaskKey::new(TaskKind::Image, "c"),
        );
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
        let keys = vec![TaskKey::new(TaskKind::Image, "a")];
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
}
