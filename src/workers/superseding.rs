//! The shape of a worker whose requests supersede one another (the ranking, the catalogue
//! diff): one blocking thread takes a request, and any that arrived while it was busy are
//! dropped for the newest, since the App keeps only the answer to what it asked last.

use crate::msg::Msg;
use std::sync::mpsc as queue;
use tokio::sync::mpsc;

/// Starts the thread: each request's answer is `work`'s, sent as it is made. The thread ends
/// when the returned sender is dropped or the App stops reading.
pub fn spawn<J: Send + 'static>(
    mut work: impl FnMut(J) -> Msg + Send + 'static,
    msgs: mpsc::Sender<Msg>,
) -> queue::Sender<J> {
    // Unbounded, but the thread empties the queue every time it takes a request, and each
    // request holds pointers to shared lists.
    let (jobs, waiting) = queue::channel::<J>();
    tokio::task::spawn_blocking(move || {
        while let Ok(mut job) = waiting.recv() {
            while let Ok(newer) = waiting.try_recv() {
                job = newer;
            }
            if msgs.blocking_send(work(job)).is_err() {
                return;
            }
        }
    });
    jobs
}
