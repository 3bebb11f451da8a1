//! The filter's ranking, off the UI loop, on a thread whose requests supersede one another
//! (`superseding`), so a burst of keystrokes never queues up stale rankings. The App shows an
//! answer only when its generation is the latest asked for.
//!
//! A ranking that costs little (a query ranked lately, as when a key is erased, or one that
//! narrows a few hundred matches) is answered where it is asked, on the UI loop: handing it to
//! the thread and its answer back cost two thread wake-ups, more than the ranking itself.

use crate::api::SearchText;
use crate::cmd::RankJob;
use crate::filter::Ranker;
use crate::msg::Msg;
use std::sync::mpsc as queue;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::mpsc;

/// The App's handle on the ranking thread; dropping it ends the thread.
pub struct Handle {
    jobs: queue::Sender<RankJob>,
    /// The thread's ranker, which keeps the rankings of shorter queries between calls: taken
    /// here only when the thread is not using it.
    ranker: Arc<Mutex<Ranker>>,
    msgs: mpsc::Sender<Msg>,
}

/// Starts the thread, which ranks with the filter's `Ranker` (it keeps the rankings of shorter
/// queries between calls, since the calls come one at a time and in order) and reports each
/// ranking as a `Msg::Ranked`.
pub fn spawn(msgs: mpsc::Sender<Msg>) -> Handle {
    let ranker = Arc::new(Mutex::new(Ranker::new()));
    let shared = ranker.clone();
    spawn_with(
        move |query, text| lock(&shared).rank(query, text),
        ranker,
        msgs,
    )
}

/// The ranker, whatever a panic while it was held left (a ranking is made from its kept
/// rankings, which a panic leaves whole or not at all).
fn lock(ranker: &Mutex<Ranker>) -> std::sync::MutexGuard<'_, Ranker> {
    ranker.lock().unwrap_or_else(PoisonError::into_inner)
}

/// As `spawn`, the thread ranking with `rank` (indices of the matches, best first), the cheap
/// rankings with `ranker`.
fn spawn_with(
    mut rank: impl FnMut(&str, &Arc<SearchText>) -> Arc<[u32]> + Send + 'static,
    ranker: Arc<Mutex<Ranker>>,
    msgs: mpsc::Sender<Msg>,
) -> Handle {
    let jobs = super::superseding::spawn(
        move |job: RankJob| Msg::Ranked {
            generation: job.generation,
            matches: rank(&job.query, &job.text),
        },
        msgs.clone(),
    );
    Handle { jobs, ranker, msgs }
}

impl Handle {
    /// Ranks the catalogue's `text` against `query` (`Cmd::Rank`): at once when that costs
    /// little and the thread is idle, else on the thread. An answer the thread sends later
    /// for an older job is dropped by the App (its generation is no longer the latest).
    pub fn rank(&self, job: RankJob) {
        let cheap = match self.ranker.try_lock() {
            Ok(mut ranker) => ranker.rank_if_cheap(&job.query, &job.text),
            Err(_) => None,
        };
        if let Some(matches) = cheap {
            let answer = Msg::Ranked {
                generation: job.generation,
                matches,
            };
            // Full (or closed): the thread answers instead, as it would have.
            if self.msgs.try_send(answer).is_ok() {
                return;
            }
        }
        // Fails only when the thread is gone (the App is closing): nothing is left to show.
        let _ = self.jobs.send(job);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::FuzzyFilter;
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
        let ranker = spawn_with(rank, Arc::new(Mutex::new(Ranker::new())), tx);
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

    /// A query ranked lately, and one that narrows a few matches, are answered at once by the
    /// handle, the thread not asked (its answer would cost two wake-ups); the answers are the
    /// filter's. A query that narrows nothing kept goes to the thread.
    #[tokio::test]
    async fn cheap_rankings_are_answered_where_asked() {
        let ranker = Arc::new(Mutex::new(Ranker::new()));
        let shared = ranker.clone();
        let asked = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        let seen = asked.clone();
        let rank = move |query: &str, text: &Arc<SearchText>| {
            seen.lock().expect("lock").push(query.to_string());
            lock(&shared).rank(query, text)
        };
        let (tx, mut rx) = mpsc::channel(8);
        let handle = spawn_with(rank, ranker, tx);
        let names = ["anime-style", "photo-real", "anime", "manga", "animal"];
        let text = Arc::new(SearchText::from_names(names));
        let job = |generation: u64, query: &str| RankJob {
            generation,
            query: query.into(),
            text: text.clone(),
        };
        let want = |query: &str| -> Vec<u32> {
            let best = FuzzyFilter::new().rank(query, names);
            best.iter().map(|r| r.index).collect()
        };
        handle.rank(job(1, "an"));
        assert_eq!(next_generation(&mut rx).await, 1);
        for (generation, query) in [(2, "an"), (3, "ani"), (4, "anim"), (5, "an")] {
            handle.rank(job(generation, query));
            match rx.try_recv() {
                Ok(Msg::Ranked {
                    generation: g,
                    matches,
                }) => {
                    assert_eq!(g, generation);
                    assert_eq!(*matches, want(query), "{query:?}");
                }
                other => panic!("{query:?}: expected an answer at once, got {other:?}"),
            }
        }
        handle.rank(job(6, "x"));
        assert_eq!(next_generation(&mut rx).await, 6);
        assert_eq!(*asked.lock().expect("lock"), ["an", "x"]);
    }
}
