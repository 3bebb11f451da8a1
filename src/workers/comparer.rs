//! The catalogue diff, off the UI loop: what changed between the list shown and a fresh one
//! (tens of ms over 100,000 models), on a thread whose requests supersede one another
//! (`superseding`): the App keeps only the answer to the comparison it asked for last (its
//! generation). Each answer is a `Msg::Compared`.

use crate::api::LoraEntry;
use crate::cmd::CompareJob;
use crate::msg::Msg;
use crate::store::catalogue_cache::{Diff, diff};
use std::sync::mpsc as queue;
use tokio::sync::mpsc;

/// The App's handle on the comparing thread; dropping it ends the thread.
pub struct Handle {
    jobs: queue::Sender<CompareJob>,
}

/// Starts the thread, which compares with the catalogue cache's `diff` and reports each
/// answer as a `Msg::Compared` of the job's generation.
pub fn spawn(msgs: mpsc::Sender<Msg>) -> Handle {
    spawn_with(diff, msgs)
}

/// As `spawn`, comparing with `compare` (the list before, the fresh one).
fn spawn_with(
    mut compare: impl FnMut(&[LoraEntry], &[LoraEntry]) -> Diff + Send + 'static,
    msgs: mpsc::Sender<Msg>,
) -> Handle {
    let jobs = super::superseding::spawn(
        move |job: CompareJob| Msg::Compared {
            generation: job.generation,
            diff: compare(&job.before, &job.after),
        },
        msgs,
    );
    Handle { jobs }
}

impl Handle {
    /// Compares the job's fresh list with the one before it (`Cmd::Compare`).
    pub fn compare(&self, job: CompareJob) {
        // Fails only when the thread is gone (the App is closing): nothing is left to show.
        let _ = self.jobs.send(job);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::catalogue_cache::Mark;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    const WAIT: Duration = Duration::from_secs(10);

    fn list(models: &[&str]) -> Arc<[LoraEntry]> {
        models
            .iter()
            .map(|m| LoraEntry::new(*m, &serde_json::Map::new()))
            .collect()
    }

    async fn next_generation(rx: &mut mpsc::Receiver<Msg>) -> u64 {
        match tokio::time::timeout(WAIT, rx.recv()).await {
            Ok(Some(Msg::Compared { generation, .. })) => generation,
            other => panic!("expected a comparison, got {other:?}"),
        }
    }

    /// The worker compares with the catalogue cache's diff: a model the list before did not
    /// have is new, and the answer carries the job's generation.
    #[tokio::test]
    async fn it_answers_with_the_catalogue_diff() {
        let (tx, mut rx) = mpsc::channel(8);
        let comparer = spawn(tx);
        comparer.compare(CompareJob {
            generation: 3,
            before: list(&["a", "b"]),
            after: list(&["a", "b", "c"]),
        });
        match tokio::time::timeout(WAIT, rx.recv()).await {
            Ok(Some(Msg::Compared { generation, diff })) => {
                assert_eq!(generation, 3);
                assert_eq!(diff.marks, [Mark::Same, Mark::Same, Mark::New]);
                assert_eq!((diff.new, diff.changed), (1, 0));
            }
            other => panic!("expected a comparison, got {other:?}"),
        }
    }

    /// While a comparison runs, three more requests arrive: only the newest of them is
    /// compared, and the thread ends with its handle.
    #[tokio::test]
    async fn the_newest_request_supersedes_those_waiting() {
        let (started, has_started) = queue::channel::<()>();
        let (release, released) = queue::channel::<()>();
        let sizes = Arc::new(Mutex::new(Vec::<usize>::new()));
        let seen = sizes.clone();
        let compare = move |_before: &[LoraEntry], after: &[LoraEntry]| {
            seen.lock().expect("lock").push(after.len());
            if after.len() == 1 {
                started.send(()).expect("test waits");
                released.recv_timeout(WAIT).expect("released");
            }
            Diff::default()
        };
        let (tx, mut rx) = mpsc::channel(8);
        let comparer = spawn_with(compare, tx);
        let models = ["a", "b", "c", "d"];
        comparer.compare(CompareJob {
            generation: 1,
            before: list(&[]),
            after: list(&models[..1]),
        });
        has_started
            .recv_timeout(WAIT)
            .expect("the first comparison started");
        for generation in 2..=4 {
            comparer.compare(CompareJob {
                generation,
                before: list(&[]),
                after: list(&models[..generation as usize]),
            });
        }
        release.send(()).expect("comparison waits");
        assert_eq!(next_generation(&mut rx).await, 1);
        assert_eq!(next_generation(&mut rx).await, 4);
        assert_eq!(*sizes.lock().expect("lock"), [1, 4]);
        drop(comparer);
        assert!(
            tokio::time::timeout(WAIT, rx.recv())
                .await
                .expect("the thread ends")
                .is_none(),
            "nothing more is compared, and the thread ended with its handle"
        );
    }
}
