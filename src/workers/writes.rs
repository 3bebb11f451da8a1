//! The files written off the UI loop besides the watch list (the favourites, the sort order,
//! the recent categories, the catalogue's cached copy): each write is held until it ends, so a
//! quit waits for those under way, as it waits for the watch list's saver, instead of leaving
//! a favourite unsaved because the disk was slow.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::task::JoinHandle;

/// The writes under way; clones share them.
#[derive(Clone, Default)]
pub struct Writes(Arc<Mutex<Vec<JoinHandle<()>>>>);

impl Writes {
    /// Runs `write` on a blocking thread, held until it ends.
    pub fn spawn(&self, write: impl FnOnce() + Send + 'static) {
        let handle = tokio::task::spawn_blocking(write);
        let mut held = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        held.retain(|h| !h.is_finished());
        held.push(handle);
    }

    /// Waits for the writes under way, at most `grace`.
    pub async fn finish(&self, grace: Duration) {
        let held = std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner));
        let _ = tokio::time::timeout(grace, async {
            for write in held {
                let _ = write.await;
            }
        })
        .await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// `finish` returns once a write under way has ended, and gives up after its grace on one
    /// that does not end.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn finish_waits_for_the_writes_under_way_within_its_grace() {
        let writes = Writes::default();
        let done = Arc::new(AtomicBool::new(false));
        let flag = done.clone();
        writes.spawn(move || {
            std::thread::sleep(Duration::from_millis(150));
            flag.store(true, Ordering::SeqCst);
        });
        writes.finish(Duration::from_secs(10)).await;
        assert!(done.load(Ordering::SeqCst), "waited for the write");

        let (tx, rx) = std::sync::mpsc::channel::<()>();
        writes.spawn(move || {
            let _ = rx.recv_timeout(Duration::from_secs(10));
        });
        let start = std::time::Instant::now();
        writes.finish(Duration::from_millis(100)).await;
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "gave up after its grace"
        );
        drop(tx);
    }
}
