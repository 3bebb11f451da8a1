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

/// How often the file is checked for changes by others.
pub const CHECK_EVERY: Duration = Duration::from_secs(1);

/// Routine operations (what polls bring) wait this many checks for a write, unless something
/// else is written first: each write reads, merges and rewrites the whole list, and with
/// 1,000 tasks moving that once a second was a third of the dashboard's CPU in the soak; every
/// 5 s it was still a seventh with adaptive polling (issue 31: ~4 ms a write at 1,000 tasks).
/// What waits is a running task's percent and status: a finish's claim goes at the next check,
/// the user's own changes at once, and a dashboard started anew asks every task again.
const ROUTINE_CHECKS: u32 = 10;

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

/// Where each task is in the list a write changes: a scan per operation, copying each
/// entry's ID to compare it, was most of a write's CPU (a write takes the statuses of several
/// seconds, thousands at 1,000 tasks, each over the whole list).
#[derive(Default)]
struct Index {
    at: std::collections::HashMap<TaskKey, usize>,
    /// `at` holds the list's positions: an operation that adds or removes entries clears it.
    fresh: bool,
}

impl Index {
    fn find<'l>(
        &mut self,
        list: &'l mut [WatchEntry],
        key: &TaskKey,
    ) -> Option<&'l mut WatchEntry> {
        if !self.fresh {
            // The first of each task, as a scan finds it.
            self.at = list
                .iter()
                .enumerate()
                .rev()
                .map(|(i, e)| (TaskKey::of(e), i))
                .collect();
            self.fresh = true;
        }
        list.get_mut(*self.at.get(key)?)
    }
}

/// Applies `op` to the list read under the lock; a claim's answer is returned.
fn apply(
    list: &mut Vec<WatchEntry>,
    index: &mut Index,
    op: &PersistOp,
    me: &Claimant,
) -> Option<(TaskKey, bool)> {
    if let PersistOp::Claim(key) = op {
        let won = index.find(list, key).is_some_and(|e| {
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
    if matches!(op, PersistOp::Add(_) | PersistOp::Remove(_)) {
        index.fresh = false;
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
            if let Some(e) = index.find(list, key) {
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
            if let Some(e) = index.find(list, key) {
                e.saved = Some(path.clone());
            }
        }
        PersistOp::AutoDownload(key, auto) => {
            if let Some(e) = index.find(list, key) {
                e.auto_download = *auto;
            }
        }
        PersistOp::Trouble(key, trouble) => {
            if let Some(e) = index.find(list, key) {
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

/// Whether a task of the file still runs, judged alike by every dashboard on the data
/// directory whatever services its config can poll: not known finished, nor unknown to its
/// service, and polled by a running dashboard (this one, or the one its `polled_by` names).
/// A task no running dashboard can poll goes nowhere, and does not keep the run going.
struct Runs<'a> {
    pollable: &'a Pollable,
    me: &'a Claimant,
    /// The other dashboards asked about, and whether they run (a lock tried each).
    asked: Vec<(String, bool)>,
    /// The last service asked about, and whether it is polled: the entries of a list are
    /// nearly all of one service, and each question takes the router's lock (a thousand a
    /// second, at every check, was a tenth of the saver's time).
    last_service: Option<(Option<String>, bool)>,
}

impl<'a> Runs<'a> {
    fn new(pollable: &'a Pollable, me: &'a Claimant) -> Self {
        Runs {
            pollable,
            me,
            asked: Vec::new(),
            last_service: None,
        }
    }

    fn polls(&mut self, service: Option<&str>) -> bool {
        match &self.last_service {
            Some((last, polls)) if last.as_deref() == service => *polls,
            _ => {
                let polls = self.pollable.polls(service);
                self.last_service = Some((service.map(str::to_string), polls));
                polls
            }
        }
    }

    fn runs(&mut self, entry: &WatchEntry) -> bool {
        moving(entry)
            && (self.polls(entry.service.as_deref())
                || entry
                    .polled_by
                    .as_deref()
                    .is_some_and(|by| self.dashboard_runs(by)))
    }

    fn any(&mut self, entries: &[WatchEntry]) -> bool {
        entries.iter().any(|e| self.runs(e))
    }

    fn dashboard_runs(&mut self, id: &str) -> bool {
        if id == self.me.id {
            return true;
        }
        if let Some(&(_, runs)) = self.asked.iter().find(|(by, _)| by == id) {
            return runs;
        }
        let runs = (self.me.running)(id);
        self.asked.push((id.to_string(), runs));
        runs
    }

    /// Marks the unfinished tasks this dashboard polls as polled by it (unless a running
    /// dashboard does already), and takes its mark off those it can no longer poll and
    /// those that stopped: the file says who keeps each one going.
    fn mark(&mut self, list: &mut [WatchEntry]) {
        for e in list.iter_mut() {
            match self.remark(e) {
                Some(Remark::Mine) => e.polled_by = Some(self.me.id.clone()),
                Some(Remark::Off) => e.polled_by = None,
                None => {}
            }
        }
    }

    /// Whether `list` holds a mark that this dashboard's next write would change (`mark`): a
    /// task it polls that no running dashboard is marked polling (it started, the task was
    /// added, the dashboard that marked it is gone), or its mark on a task it can no longer
    /// poll (its service was found unusable). The saver writes then without waiting for an
    /// operation: until the file says who polls a task, another dashboard's write may take the
    /// run for ended while it still goes. A finished task's mark is left to the next write
    /// (`mark` takes it off; it keeps nothing going): a tick, once a second, does not classify
    /// every task this dashboard polls.
    fn marks_due(&mut self, list: &[WatchEntry]) -> bool {
        list.iter().any(|e| match e.polled_by.as_deref() {
            Some(by) if by == self.me.id => !self.polls(e.service.as_deref()),
            Some(by) if self.dashboard_runs(by) => false,
            _ => moving(e) && self.polls(e.service.as_deref()),
        })
    }

    /// How `mark` changes `e`'s mark, if it does.
    fn remark(&mut self, e: &WatchEntry) -> Option<Remark> {
        if !moving(e) {
            return e.polled_by.is_some().then_some(Remark::Off);
        }
        match e.polled_by.as_deref() {
            Some(by) if by == self.me.id => {
                (!self.polls(e.service.as_deref())).then_some(Remark::Off)
            }
            Some(by) if self.dashboard_runs(by) => None,
            // Nobody's, or the mark of a dashboard that is gone (left where this one cannot
            // poll either: it keeps nothing going).
            _ => self
                .pollable
                .polls(e.service.as_deref())
                .then_some(Remark::Mine),
        }
    }

    /// Whether a write that turned a list whose running tasks were `ran` into `after` ended a
    /// run: some task ran before it, none runs after it, and not every task that stopped running in it was removed
    /// while it ran (a run whose last running tasks were removed ends untold). A task stops
    /// running by its finish (written in this write, or in the same batch as its removal:
    /// `removed` holds each removed task as it was removed), by its service's "not found",
    /// or because no running dashboard can poll it any more. Writes are made under the file's
    /// lock one after another, so of the dashboards sharing the file exactly one makes it.
    fn ends_run(
        &mut self,
        ran: &HashSet<TaskKey>,
        removed: &[WatchEntry],
        after: &[WatchEntry],
    ) -> bool {
        if self.any(after) {
            return false;
        }
        after.iter().any(|a| ran.contains(&TaskKey::of(a)))
            || removed
                .iter()
                .any(|r| archive::is_finished(r) && ran.contains(&TaskKey::of(r)))
    }

    /// The tasks of `list` that run: all a write asks of the list as it found it (a copy of
    /// the whole list was 2.8 MiB at 10,000 tasks, once a second).
    fn running_keys(&mut self, list: &[WatchEntry]) -> HashSet<TaskKey> {
        list.iter()
            .filter(|e| self.runs(e))
            .map(TaskKey::of)
            .collect()
    }
}

/// Whether `entry` may still move: not known finished, nor unknown to its service.
fn moving(entry: &WatchEntry) -> bool {
    !archive::is_finished(entry)
        && entry
            .trouble
            .as_ref()
            .is_none_or(|t| t.kind != TroubleKind::NotFound)
}

/// A change `Runs::mark` makes to a task's mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Remark {
    /// This dashboard polls it.
    Mine,
    /// Nobody polls it (it stopped, or this dashboard can no longer poll it).
    Off,
}

/// What polls bring, written at most every `ROUTINE_CHECKS` checks; the user's own changes go
/// at once, with whatever routine operations wait.
fn routine(op: &PersistOp) -> bool {
    matches!(op, PersistOp::Status(..) | PersistOp::Trouble(..))
}

/// A finish's claim goes at the next check (within `CHECK_EVERY`), with the others that came
/// meanwhile: a thousand tasks finish several a second, and a write each was most of the
/// saver's time.
fn at_next_check(op: &PersistOp) -> bool {
    matches!(op, PersistOp::Claim(..))
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
        told: false,
    };
    w.seen = w.store.stamp();
    // The list as the dashboard started with it (its start-up read it, setting aside a bad
    // file): what is written back should the file turn bad before the first write.
    let (s, pollable, me) = (w.store.clone(), w.pollable.clone(), w.me.clone());
    let read = tokio::task::spawn_blocking(move || {
        s.read()
            .map(|entries| (Runs::new(&pollable, &me).any(&entries), entries))
    });
    if let Ok(Ok((running, entries))) = read.await {
        w.running = running;
        w.held = Arc::new(entries);
    }
    // `archive_after` is checked at start, then whenever the list is written or read, and
    // when the earliest finished task falls due (no wake-up otherwise).
    if w.archiving.after.is_some() && w.archiving.files.is_some() {
        w.flush(&msgs, true).await;
    }
    let mut ticker = tokio::time::interval(CHECK_EVERY);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // Checks since the last write.
    let mut checks = 0u32;
    loop {
        let urgent = tokio::select! {
            op = ops.recv() => {
                let Some(op) = op else {
                    w.flush(&msgs, false).await;
                    return;
                };
                let at_once = |op: &PersistOp| !routine(op) && !at_next_check(op);
                let mut urgent = at_once(&op);
                w.pending.push(op);
                while let Ok(more) = ops.try_recv() {
                    urgent |= at_once(&more);
                    w.pending.push(more);
                }
                urgent
            }
            _ = ticker.tick() => {
                checks += 1;
                let due = w.next_due.is_some_and(|t| t <= unix_now());
                let waited = checks >= ROUTINE_CHECKS || w.pending.iter().any(at_next_check);
                if (!w.pending.is_empty() && waited) || due || w.marks_due() {
                    w.flush(&msgs, due).await;
                    checks = 0;
                } else if w.store.stamp() != w.seen {
                    let (s, held) = (w.store.clone(), Arc::clone(&w.held));
                    let (pollable, me) = (w.pollable.clone(), w.me.clone());
                    let read = tokio::task::spawn_blocking(move || {
                        s.load_keeping(&held).map(|loaded| {
                            (Runs::new(&pollable, &me).any(&loaded.entries), loaded)
                        })
                    });
                    match read.await {
                        Ok(Ok((running, mut loaded))) => {
                            w.seen = loaded.stamp;
                            w.next_due = w.archiving.next_due(&loaded.entries);
                            // Said while the loaded list is whole: it counts the tasks.
                            let notice = set_aside_notice(&loaded);
                            w.held = Arc::new(std::mem::take(&mut loaded.entries));
                            w.told = true;
                            if let Some(text) = notice {
                                let _ = msgs.send(Msg::StoreProblem(text)).await;
                            }
                            if msgs.send(Msg::WatchFile { entries: Arc::clone(&w.held), applied: w.applied }).await.is_err() {
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
            checks = 0;
        }
    }
}

/// Whether tasks ran in the file as a write found it and as it left it, and whether that
/// write ended the run.
#[derive(Debug, Default)]
struct Ran {
    before: bool,
    after: bool,
    ended_here: bool,
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
    /// The App was sent a list since this saver started.
    told: bool,
}

impl Writer {
    /// Keeps the list as written, and says it to the App: as news, or (only the App's own ops
    /// in it) shared rather than copied, which the App merges only if it set a list aside
    /// meanwhile (a copy and a merge of 1,000 tasks after each routine write).
    fn tell(&mut self, entries: Vec<WatchEntry>, news: bool) -> Msg {
        self.told = true;
        self.held = Arc::new(entries);
        let entries = Arc::clone(&self.held);
        if news {
            Msg::WatchFile {
                entries,
                applied: self.applied,
            }
        } else {
            Msg::WatchSaved {
                entries,
                applied: self.applied,
            }
        }
    }

    /// A mark in the file is this dashboard's to change (`Runs::marks_due`): the next tick
    /// writes.
    fn marks_due(&self) -> bool {
        Runs::new(&self.pollable, &self.me).marks_due(&self.held)
    }

    /// Writes what is pending (and, with `expire`, moves the tasks `archive_after` made due to
    /// the archive), then tells the App what the file now holds.
    async fn flush(&mut self, msgs: &mpsc::Sender<Msg>, expire: bool) {
        if self.pending.is_empty() && !expire && !self.marks_due() {
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
        let (held, pollable, known) = (Arc::clone(&self.held), self.pollable.clone(), self.seen);
        let result = tokio::task::spawn_blocking(move || {
            let mut answers = Vec::new();
            let mut moved = Moved::default();
            let now = unix_now();
            let mut runs = Runs::new(&pollable, &me);
            let mut ran = Ran::default();
            let saved = s.update_known(&held, known, |list| {
                let found = runs.running_keys(list);
                let removed;
                (removed, answers) = apply_all(list, &ops, &me, expire);
                if expire {
                    list.retain(|e| archiving.due(e).is_none_or(|t| t > now));
                }
                archive_removed(&removed, list, &archiving, now, &mut moved);
                runs.mark(list);
                ran = Ran {
                    before: !found.is_empty(),
                    after: runs.any(list),
                    ended_here: runs.ends_run(&found, &removed, list),
                };
            });
            if let Ok(loaded) = &saved {
                forget_added(&ops, &loaded.entries, &archiving, &mut moved);
            }
            saved.map(|loaded| (loaded, answers, moved, ran))
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
        // written: this write ended the run (`Runs::ends_run`); one found with none running
        // after some ran here was ended by another dashboard's write meanwhile.
        let mut run_ended = None;
        match result {
            Ok(Ok((loaded, _, moved, ran))) => {
                // What the App cannot know from its own ops: the file as another process left
                // it (read again), tasks moved to or from the archive, or put back when the
                // archive refused them, a bad or vanished file, and whatever the first write
                // finds (the App read the file before this saver did).
                let news = !loaded.as_known
                    || expire
                    || moved.archived + moved.forgotten > 0
                    || !moved.problems.is_empty()
                    || loaded.set_aside.is_some()
                    || loaded.wrote_back
                    || !self.told;
                if ran.ended_here {
                    run_ended = Some(true);
                } else if (self.running || ran.before) && !ran.after {
                    run_ended = Some(false);
                }
                self.running = ran.after;
                self.seen = loaded.stamp;
                self.next_due = self.archiving.next_due(&loaded.entries);
                if let Some(text) = set_aside_notice(&loaded) {
                    let _ = msgs.send(Msg::StoreProblem(text)).await;
                }
                for problem in moved.problems {
                    let _ = msgs.send(Msg::StoreProblem(problem)).await;
                }
                let told = self.tell(loaded.entries, news);
                let _ = msgs.send(told).await;
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

/// Applies `ops` to `list` in order; returns the claims' answers, and the entries the archive
/// must see: each removed one as it was when it was removed, so a task whose finish and
/// removal come in one batch is archived as finished (never dropped as a running one), and
/// with `expire` the whole list as found (expiring drops from it after). Only then is the whole
/// list copied: a routine write removes nothing.
fn apply_all(
    list: &mut Vec<WatchEntry>,
    ops: &[PersistOp],
    me: &Claimant,
    expire: bool,
) -> (Vec<WatchEntry>, Vec<(TaskKey, bool)>) {
    let mut before = if expire { list.clone() } else { Vec::new() };
    let mut answers = Vec::new();
    let mut index = Index::default();
    for op in ops {
        if let PersistOp::Remove(keys) = op {
            for e in list.iter().filter(|e| keys.contains(&TaskKey::of(e))) {
                match before.iter_mut().find(|b| b.same_task(e)) {
                    Some(b) => b.clone_from(e),
                    None => before.push(e.clone()),
                }
            }
        }
        answers.extend(apply(list, &mut index, op, me));
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
#[path = "saver_tests.rs"]
mod tests;
