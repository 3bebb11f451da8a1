//! The terminal's focus coming back (`ESC [ I`) in the real binary: the running tasks on
//! screen are asked at once, counted by the reference service; focus that comes and goes
//! twenty times within `poll_interval` asks nothing more.

use crate::common;
use common::Served;
use common::pty::{Session, command};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

const TASKS: usize = 24;

fn ids() -> Vec<String> {
    (0..TASKS).map(|i| format!("hold-focus-{i:02}")).collect()
}

/// The lookups the reference service counted, by task.
fn lookups(setup: &Served) -> BTreeMap<String, u64> {
    let v = common::service_stats(&setup.rt, &setup.svc);
    ids()
        .into_iter()
        .map(|id| {
            let n = v["tasks"][&id]["requests"].as_u64().unwrap_or(0);
            (id, n)
        })
        .collect()
}

/// Waits (bounded) until `done` holds of the lookups; they are returned.
fn wait_lookups(
    setup: &Served,
    what: &str,
    done: impl Fn(&BTreeMap<String, u64>) -> bool,
) -> BTreeMap<String, u64> {
    let start = Instant::now();
    loop {
        let now = lookups(setup);
        if done(&now) {
            return now;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{what}: never so: {now:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_focus_coming_back_polls_the_running_tasks_on_screen_once() {
    let ids = ids();
    let args: Vec<&str> = ids.iter().map(String::as_str).collect();
    // Polled every 60 s otherwise: within the test, only the focus asks again.
    let setup = Served::with(
        "poll_interval = 60\nadaptive_polling = false\nbell = false\n\
         desktop_notifications = false\nimage_preview = \"off\"\n",
        &args,
    );
    let mut s = Session::spawn(command(setup.path(), &[], &setup.env()), 120, 16);
    s.wait_text("hold-focus-00");
    // The start asks each once.
    wait_lookups(&setup, "each asked at start", |n| {
        n.values().all(|&c| c >= 1)
    });
    let screen = s.contents();
    let (shown, hidden): (Vec<&String>, Vec<&String>) =
        ids.iter().partition(|id| screen.contains(id.as_str()));
    assert!(
        !shown.is_empty() && !hidden.is_empty(),
        "some rows on screen, some off it:\n{screen}"
    );
    // Answers older than the focus's fresh interval (2 s), on the dashboard's clock, which a
    // one-second tick moves.
    std::thread::sleep(Duration::from_millis(3_500));
    let before = lookups(&setup);
    s.send("\x1b[I");
    let after = wait_lookups(&setup, "the rows on screen asked again", |n| {
        shown.iter().all(|id| n[*id] > before[*id])
    });
    // Time for a stray lookup of a row off screen to be counted, and for the answers to grow
    // older than the fresh interval again: the flapping below is then held back by the
    // once-each-poll_interval rule alone.
    std::thread::sleep(Duration::from_millis(3_500));
    let settled = lookups(&setup);
    for id in &ids {
        let want = before[id] + u64::from(shown.contains(&id));
        assert_eq!(settled[id], want, "{id}: {before:?} → {settled:?}");
    }
    assert_eq!(after, settled);

    // Twenty times away and back, quickly: focus asks at most once each poll_interval (60 s
    // here), so nothing more is asked.
    let before = settled;
    // In one write: the reports are read as they come all the same, without the pause `send`
    // makes after each (1.2 s for twenty).
    s.send(&"\x1b[O\x1b[I".repeat(20));
    // The screen answers a key after the flapping: every focus report was read by then.
    s.send("?");
    s.wait_text("Keys · Esc/? closes");
    s.send("\x1b");
    // Time for a lookup it asked for to be counted (loopback: milliseconds).
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(lookups(&setup), before, "focus flapping asked again");
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
}
