//! Times the archive view's filter per keystroke without a terminal: the reducer's share of
//! what `scripts/measure-archive.py` times end to end (which adds the frame, the drawing and
//! the pseudo-terminal's round trip).
//!
//! `cargo run --release --locked --features archive-examples --example archive_filter_keys -- DIR [ROUNDS] [PAUSE_MS]`
//! reads the archive in DIR (made by `examples/archive_fill.rs`), makes the filter's text of it
//! as the archiver does, then types the measurement script's queries one key at a time into
//! `ArchiveView::set_query`, ROUNDS times (3), `PAUSE_MS` apart (0; 100 is a typist's pace, and
//! memory left alone that long is slower to read again), and prints each keystroke's time and
//! the median and p95 over all of them. Each keystroke's time is what comes before its frame
//! (the first reading of a long list); the rest of the list is read after it, untimed.
mod common;

use gendash::app::archive_view::ArchiveView;
use std::fmt::Write as _;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

fn main() -> ExitCode {
    let (tasks, rounds, pause) = match common::archive_and_rounds("archive_filter_keys", 0) {
        Ok(got) => got,
        Err(code) => return code,
    };
    let t = Instant::now();
    let table = Arc::new(gendash::msg::search_table(&tasks, 0));
    println!(
        "the filter's text of {} tasks made in {:.1} ms (the archiver makes it with the list)",
        tasks.len(),
        t.elapsed().as_secs_f64() * 1000.0
    );
    let mut all = Vec::new();
    for round in 0..rounds {
        // A fresh view each round: the first field term pays for the fields' text again.
        let mut view = ArchiveView::new(0);
        view.listed(Arc::clone(&tasks), Arc::clone(&table));
        for q in common::QUERIES {
            let mut line = format!("round {round} {q:18}");
            for n in 1..=q.len() {
                std::thread::sleep(std::time::Duration::from_millis(pause));
                let t = Instant::now();
                view.set_query(q[..n].to_string());
                let ms = t.elapsed().as_secs_f64() * 1000.0;
                // As the dashboard does once the keystroke's frame is drawn: the rest of a long
                // list is read (not timed), so the next key narrows the whole answer.
                view.settle();
                all.push(ms);
                let _ = write!(line, " {ms:.1}");
            }
            view.set_query(String::new());
            println!("{line} ms");
        }
    }
    all.sort_by(f64::total_cmp);
    let at = |p: f64| all[((all.len() - 1) as f64 * p).round() as usize];
    println!(
        "{} tasks, {} keystrokes: median {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        tasks.len(),
        all.len(),
        at(0.5),
        at(0.95),
        at(1.0)
    );
    ExitCode::SUCCESS
}
