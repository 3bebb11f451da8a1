//! The process's one runtime, for the dashboard and every command.
//!
//! One thread: the work is waiting on sockets and the terminal, and wake-ups between threads
//! were most of a poll's CPU (a profile of the dashboard watching 1,000 tasks). CPU-heavy work
//! (decoding a catalogue, ranking) runs on blocking threads, off this one. Before it sleeps
//! with polls in flight, it waits a moment for more answers (`workers::linger`).

use crate::workers::linger;

/// Builds the runtime.
pub fn build() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .on_thread_park(linger::before_park)
        .on_thread_unpark(linger::after_unpark)
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_runtime_waits_before_sleeping_while_a_poll_is_in_flight() {
        let runtime = build().expect("a runtime");
        let before = linger::waits_on_this_thread();
        let awaiting = linger::Awaited::process().one();
        // The runtime sleeps on its timer: with a poll in flight, it waits first.
        runtime.block_on(async { tokio::time::sleep(Duration::from_millis(5)).await });
        drop(awaiting);
        assert!(
            linger::waits_on_this_thread() > before,
            "no wait before sleeping with a poll in flight"
        );
    }
}
