//! Frame pacing: what only the poller's answers change is drawn at most four times a second
//! (and the clock's tick once a second), however many answers come; a key is still drawn at
//! once.

use crate::common;
use common::pty::{Session, command};
use std::time::{Duration, Instant};

/// ratatui hides the cursor at the end of every frame the watch pane draws (no text field has
/// it): one per frame.
const FRAME_END: &[u8] = b"\x1b[?25l";

fn frames(raw: &[u8]) -> usize {
    raw.windows(FRAME_END.len())
        .filter(|w| *w == FRAME_END)
        .count()
}

#[test]
fn hundreds_of_moving_answers_a_second_cost_at_most_five_frames_a_second() {
    // 100 tasks whose percent moves on every lookup, each asked five times a second: 500
    // answers a second, each a change on screen or in the status bar.
    let ids: Vec<String> = (0..100).map(|i| format!("sim-400-pace-{i}")).collect();
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    let served = common::Served::with(
        "poll_interval = 0.2\nadaptive_polling = false\nmax_concurrent_polls = 1\nbell = false\nimage_preview = \"off\"\n",
        &ids,
    );
    let mut s = Session::spawn(command(served.path(), &[], &served.env()), 150, 40);
    s.wait_for("every task polled", Duration::from_secs(30), |t| {
        t.contains("100 tasks (100 running")
    });
    // The window lasts 3 s and until 300 answers came (each moved a percent): on a loaded
    // machine they come slower, and the window grows with them rather than failing.
    let (before, polls_before) = (frames(&s.raw()), lookups(&served));
    let start = Instant::now();
    let mut polls = 0;
    while (polls < 300 || start.elapsed() < Duration::from_secs(3))
        && start.elapsed() < Duration::from_secs(60)
    {
        std::thread::sleep(Duration::from_millis(100));
        polls = lookups(&served) - polls_before;
    }
    let (drawn, window) = (frames(&s.raw()) - before, start.elapsed());
    assert!(polls >= 300, "only {polls} lookups in {window:?}");
    // At most a routine frame a half second and the tick's once a second (and a few for
    // scheduling), not one per answer (up to 60 a second); still drawn, the percent moving on
    // screen.
    let seconds = window.as_secs_f64();
    let (fewest, most) = (
        seconds.floor() as usize,
        (seconds * 5.0).ceil() as usize + 4,
    );
    assert!(
        (fewest..=most).contains(&drawn),
        "{drawn} frames for {polls} answers in {window:?} (expected {fewest}..={most})"
    );

    // A key is drawn at once meanwhile, not a quarter second later: the selection moves.
    s.send("\t");
    s.wait_for("the watch pane focused", Duration::from_secs(10), |t| {
        t.contains("sim-400-pace-")
    });
    let mut slowest = Duration::ZERO;
    for _ in 0..5 {
        let raw = s.raw().len();
        let sent = Instant::now();
        s.send("\x1b[B");
        s.wait_for("a frame after the key", Duration::from_secs(10), |_| {
            frames(&s.raw()[raw..]) > 0
        });
        slowest = slowest.max(sent.elapsed());
        std::thread::sleep(Duration::from_millis(150));
    }
    // Generous for a debug build on a loaded machine; the pace of routine frames alone would
    // put every answer near 500 ms.
    assert!(slowest < Duration::from_secs(2), "{slowest:?}");
    s.send("q");
    s.wait_exit(Duration::from_secs(10));
}

/// Lookups the reference service has answered so far.
fn lookups(served: &common::Served) -> u64 {
    common::service_stats(&served.rt, &served.svc)["requests"]
        .as_u64()
        .unwrap()
}
