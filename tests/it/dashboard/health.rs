//! The status bar's health speaks of the service: one task it answers with garbage is that
//! task's trouble (on its row), and the health does not flap while the others answer.

use crate::common;
use common::pty::{Session, command};
use std::time::{Duration, Instant};

#[test]
fn one_task_answered_with_garbage_is_its_own_trouble_and_the_health_holds() {
    let served = common::Served::with(
        "poll_interval = 0.2\nbell = false\nimage_preview = \"off\"\n",
        &["sim-100000-steady", "garbage-1-task"],
    );
    let s = Session::spawn(command(served.path(), &[], &served.env()), 150, 40);
    // The garbled task's row says so...
    s.wait_for(
        "the garbled task's error on its row",
        Duration::from_secs(20),
        |t| {
            t.lines()
                .any(|l| l.contains("garbage-1-task") && l.contains('⚠'))
        },
    );
    let status_bar = |screen: &str| {
        screen
            .lines()
            .find(|l| l.trim_start().starts_with("http://127.0.0.1"))
            .unwrap_or_default()
            .to_string()
    };
    // The garbled answer may come before the steady task's first one (under load): until
    // that one, the health still says `connecting`.
    s.wait_for(
        "the steady task's answer: connected",
        Duration::from_secs(20),
        |t| status_bar(t).contains("connected"),
    );
    // ...and for a while after, over many polls of both, the health says connected only.
    let until = Instant::now() + Duration::from_secs(4);
    let mut looks = 0;
    while Instant::now() < until {
        let status_bar = status_bar(&s.contents());
        assert!(
            status_bar.contains("connected") && !status_bar.contains("trouble"),
            "{status_bar}"
        );
        looks += 1;
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(looks > 10);
    let mut s = s;
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
}
