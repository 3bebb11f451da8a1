//! The filter's ranking, off the UI loop, on a thread whose requests supersede one another
//! (`superseding`), so a burst of keystrokes never queues up stale rankings. The App shows an
//! answer only when its generation is the latest asked for.

use crate::api::SearchText;
use crate::cmd::RankJob;
use crate::filter::Ranker;
use crate::msg::Msg;
use std::sync::Arc;
use std::sync::mpsc as queue;
use tokio::sync::mpsc;

/// The App's handle on the ranking thread; dropping it ends the thread.
pub struct Handle {
    jobs: queue::Sender<RankJob>,
}

/// Starts the thread, which ranks with the filter's `Ranker` (it keeps the rankings of shorter
/// queries between calls, since the calls come one at a time and in order) and reports each
/// ranking as a `Msg::Ranked`.
pub fn spawn(msgs: mpsc::Sender<Msg>) -> Handle {
    let mut ranker = Ranker::new();
    spawn_with(move |query, text| ranker.rank(query, text), msgs)
}

/// As `spawn`, ranking with `rank`: indices of the matches, best first.
fn spawn_with(
    mut rank: impl FnMut(&str, &Arc<SearchText>) -> Arc<[u32]> + Send + 'static,
    msgs: mpsc::Sender<Msg>,
) -> Handle {
    let jobs = super::superseding::spawn(
        move |job: RankJob| Msg::Ranked {
            generation: job.generation,
            matches: rank(&job.query, &job.text),
        },
        msgs,
    );
    Handle { jobs }
}

impl Handle {
    /// Ranks the catalogue's `text` against `query` (`Cmd::Rank`).
    pub fn rank(&self, job: RankJob) {
        // Fails only when the thread is gone (the App is closing): nothing is left to show.
        let _ = self.jobs.send(job);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;
    use std::time::Duration;

    const WAIT: Duration = Duration::from_secs(10);

    async fn next_generation(rx: &mut mpsc::Receiver<Msg>) -> u64 {
        match tokio::time::timeout(WAIT, rx.recv()).await {
            Ok(Some(Msg::Ranked { generation, .. })) => generation,
            other => panic!("expected a ranking, got {other:?}"),
        }
    }

    /// While a ranking runs, three more requests arrive: only the newest of them is ranked.
    #[tokio::test]
    async fn the_newest_request_supersedes_those_waiting() {
        let (started, has_started) = queue::channel::<()>();
        let (release, released) = queue::channel::<()>();
        let queries = Arc::new(Mutex::new(Vec::<String>::new()));
        let seen = queries.clone();
        let rank = move |query: &str, text: &Arc<SearchText>| {
            seen.lock().expect("lock").push(query.to_string());
            if query == "q1" {
                started.send(()).expect("test waits");
                released.recv_timeout(WAIT).expect("released");
            }
            (0..text.len() as u32).collect()
        };
        let (tx, mut rx) = mpsc::channel(8);
        let ranker = spawn_with(rank, tx);
        let names = Arc::new(SearchText::from_names(["a", "b"]));
        ranker.rank(RankJob {
            generation: 1,
            query: "q1".into(),
            text: names.clone(),
        });
        has_started
            .recv_timeout(WAIT)
            .expect("the first ranking started");
        for generation in 2..=4 {
            ranker.rank(RankJob {
                generation,
                query: format!("q{generation}"),
                text: names.clone(),
            });
        }
        release.send(()).expect("ranking waits");
        assert_eq!(next_generation(&mut rx).await, 1);
        assert_eq!(next_generation(&mut rx).await, 4);
        assert_eq!(*queries.lock().expect("lock"), ["q1", "q4"]);
        drop(ranker);
        assert!(
            tokio::time::timeout(WAIT, rx.recv())
                .await
                .expect("the thread ends")
                .is_none(),
            "nothing more is ranked, and the thread ended with its handle"
        );
    }

    /// The worker ranks with the filter's matcher: the dashboard's filter language.
    #[tokio::test]
    async fn it_ranks_with_the_filter() {
        let (tx, mut rx) = mpsc::channel(8);
        let ranker = spawn(tx);
        let names = Arc::new(SearchText::from_names([
            "anime-style",
            "photo-real",
            "anime",
        ]));
        ranker.rank(RankJob {
            generation: 7,
            query: "anime !style".into(),
            text: names,
        });
        match tokio::time::timeout(WAIT, rx.recv()).await {
            Ok(Some(Msg::Ranked {
                generation,
                matches,
            })) => {
                assert_eq!(generation, 7);
                assert_eq!(&*matches, &[2]);
            }
            other => panic!("expected a ranking, got {other:?}"),
        }
    }
}
