//! The adaptive poller in the real binary: the status bar's requests per second and polls in
//! flight, the detail's next poll and why.

use crate::common;

use common::Served;
use common::pty::{Session, command};
use std::time::{Duration, Instant};

#[test]
fn the_status_bar_shows_the_poll_rate_and_the_detail_the_next_poll() {
    // One task that runs for ever, on screen: asked every 0.2 s, five requests a second once
    // the poller's rate window (5 s) is full (the demo's other tasks would first have to
    // finish, ~10 s more).
    let served = Served::with(
        "poll_interval = 0.2\nbell = false\ndesktop_notifications = false\n\
         image_preview = \"off\"\n",
        &["hold-rate"],
    );
    let mut s = Session::spawn(command(served.path(), &[], &served.env()), 200, 40);
    s.wait_text("hold-rate");
    s.wait_for("the poll rate", Duration::from_secs(20), |t| {
        t.contains(" 5.0 req/s · ") && t.contains(" in flight")
    });
    // The watch pane, down to a running task: its next poll, on screen.
    s.send("\t");
    let start = Instant::now();
    while !s.contents().contains("· on screen") {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no running task said its next poll:\n{}",
            s.contents()
        );
        s.send("\x1b[B");
        std::thread::sleep(Duration::from_millis(300));
    }
    let screen = s.contents();
    assert!(
        screen.contains("next poll in 1s · on screen")
            || screen.contains("polling now · on screen"),
        "{screen}"
    );
    s.send("q");
}

/// The stats the reference service keeps of task `id`: how many lookups, and the longest
/// wait between two of them or since the last one.
fn tally_of(rt: &tokio::runtime::Runtime, svc: &gendash::server::Running, id: &str) -> (u64, u64) {
    let v = common::service_stats(rt, svc);
    let t = &v["tasks"][id];
    let ms = |v: &serde_json::Value| v.as_u64().unwrap_or(0);
    let since_last = ms(&v["now_ms"]).saturating_sub(ms(&t["last_ms"]));
    (ms(&t["requests"]), ms(&t["max_gap_ms"]).max(since_last))
}

/// `max_poll_interval` reaches the running poller: a task off screen whose ETA is far (a
/// minute) is asked every `max_poll_interval` (1 s), neither every `poll_interval` (0.3 s)
/// nor at the default's 30 s, counted by the reference service.
#[test]
fn a_far_task_is_asked_as_max_poll_interval_says() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let svc = rt.block_on(common::service());
    let home = tempfile::tempdir().unwrap();
    common::write_config(
        home.path(),
        "poll_interval = 0.3\nmax_poll_interval = 1\nbell = false\n\
         desktop_notifications = false\nimage_preview = \"off\"\n",
    );
    let base = svc.base_url().to_string();
    // Enough tasks before it that the far one is below the visible rows (a row on screen is
    // asked every poll_interval).
    let fillers: Vec<String> = (0..24).map(|i| format!("hold-fill-{i:02}")).collect();
    let mut args = vec!["--base-url", base.as_str(), "watch", "add"];
    args.extend(fillers.iter().map(String::as_str));
    args.push("timed-60-far");
    common::gendash_ok(home.path(), &args);
    let env = [
        ("GENDASH_TOKEN", common::TOKEN),
        ("GENDASH_BASE_URL", base.as_str()),
    ];
    let mut s = Session::spawn(command(home.path(), &[], &env), 120, 16);
    s.wait_text("hold-fill-00");
    let start = Instant::now();
    // The first lookup starts the task's minute: wait for it, bounded.
    while tally_of(&rt, &svc, "timed-60-far").0 == 0 {
        assert!(start.elapsed() < Duration::from_secs(30), "never asked");
        std::thread::sleep(Duration::from_millis(100));
    }
    let asked = Instant::now();
    std::thread::sleep(Duration::from_secs(6));
    let screen = s.contents();
    let (requests, max_gap_ms) = tally_of(&rt, &svc, "timed-60-far");
    let window = asked.elapsed().as_secs_f64();
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    assert!(
        !screen.contains("timed-60-far"),
        "the far task must be off screen for this test:\n{screen}"
    );
    // Learning its ETA takes a few polls at 0.3 s (its percent must move twice, once each
    // 0.6 s: ~6 lookups in 1.5 s); after that one each second, ~11 in all. Every 0.3 s would
    // be 20.
    assert!(
        requests <= 15,
        "{requests} lookups in {window:.1} s: more often than max_poll_interval allows"
    );
    // The default's 30 s (or half the minute left) would leave a gap of the window's rest
    // after learning, over 4 s.
    assert!(
        max_gap_ms <= 3_000,
        "a gap of {max_gap_ms} ms: max_poll_interval (1 s) did not bound the wait"
    );
    assert!(requests >= 7, "{requests} lookups in {window:.1} s");
}
