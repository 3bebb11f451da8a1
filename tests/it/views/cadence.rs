//! What the adaptive poller tells the screen: the detail's next poll and why, and the status
//! bar's requests per second and polls in flight.

use super::{NOW, loaded, result, status_row, task};
use gendash::api::TaskKind;
use gendash::app::action::Action;
use gendash::cmd::TaskKey;
use gendash::msg::{Msg, NextPoll, PollLoad, PollWhy};
use std::time::Duration;

#[test]
fn the_detail_says_when_the_next_poll_is_and_why_and_the_status_bar_the_rate() {
    let mut s = loaded(140, 45, vec![task("render-far", TaskKind::Image)]);
    s.apply(Msg::Tick(NOW));
    s.apply(Msg::Polled {
        key: TaskKey::new(TaskKind::Image, "render-far"),
        result: Ok(result("render-far", "IN_PROGRESS", 10)),
        retry_in: None,
        next: Some(NextPoll {
            after: Duration::from_secs(12),
            why: PollWhy::EtaFar,
        }),
    });
    s.update(Action::FocusNext);
    let text = crate::common::rendered_text(&s, 140, 45);
    assert!(text.contains("next poll in 12s · ETA far"), "{text}");
    assert!(
        !status_row(&s, 140, 45).contains("in flight"),
        "nothing reported yet"
    );
    s.apply(Msg::PollLoad(PollLoad {
        per_second_tenths: 125,
        in_flight: 8,
        limit: 64,
    }));
    assert!(s.dirty);
    s.apply(Msg::Tick(NOW + 5));
    let text = crate::common::rendered_text(&s, 140, 45);
    assert!(
        text.contains("next poll in 7s · ETA far"),
        "counts down: {text}"
    );
    let bar = status_row(&s, 140, 45);
    assert!(bar.contains("12 req/s · 8/64 in flight"), "{bar}");
    // The same answer with another reason: the detail is redrawn at once, not at the next tick.
    s.dirty = false;
    s.apply(Msg::Polled {
        key: TaskKey::new(TaskKind::Image, "render-far"),
        result: Ok(result("render-far", "IN_PROGRESS", 10)),
        retry_in: None,
        next: Some(NextPoll {
            after: Duration::from_secs(2),
            why: PollWhy::EtaNear,
        }),
    });
    assert!(s.dirty, "the selected row's next poll changed");
    let text = crate::common::rendered_text(&s, 140, 45);
    assert!(text.contains("next poll in 2s · ETA near"), "{text}");
    // A slow cadence: a fraction of a request a second is still said.
    s.apply(Msg::PollLoad(PollLoad {
        per_second_tenths: 5,
        in_flight: 0,
        limit: 64,
    }));
    let bar = status_row(&s, 140, 45);
    assert!(bar.contains("0.5 req/s · 0/64 in flight"), "{bar}");
    // Nothing polled any more: the figure goes.
    s.apply(Msg::PollLoad(PollLoad {
        per_second_tenths: 0,
        in_flight: 0,
        limit: 64,
    }));
    assert!(!status_row(&s, 140, 45).contains("in flight"));
}

/// At 80 columns the status bar has no room left for the load: the request log's title says it.
#[test]
fn the_request_log_says_the_load_too() {
    let mut s = loaded(80, 24, vec![task("render-far", TaskKind::Image)]);
    s.apply(Msg::PollLoad(PollLoad {
        per_second_tenths: 25,
        in_flight: 3,
        limit: 64,
    }));
    s.update(Action::ToggleRequests);
    let text = crate::common::rendered_text(&s, 80, 24);
    let title = text
        .lines()
        .find(|l| l.contains("Requests ·"))
        .unwrap_or_default();
    assert!(title.contains("2.5 req/s · 3/64 in flight"), "{text}");
}
