//! The focus coming back: the running tasks on screen are polled at once, at most once each
//! `FRESH` seconds however often the focus comes and goes; the unseen marks wait for an input.

use super::FRESH;
use crate::app::test_support::*;

/// The task IDs a focus-in asked to poll now.
fn polled_now(cmds: &[Cmd]) -> Vec<String> {
    cmds.iter()
        .filter_map(|c| match c {
            Cmd::Poll(PollCmd::PollNow(k)) => Some(k.id.clone()),
            _ => None,
        })
        .collect()
}

/// Twelve running tasks and a completed one, on a screen that shows a few of them.
fn listed() -> State {
    let mut entries: Vec<WatchEntry> = (0..12)
        .map(|i| entry(&format!("run-{i:02}"), Some(("IN_PROGRESS", 10))))
        .collect();
    entries.insert(1, entry("done", Some(("COMPLETED", 100))));
    let mut s = state_with(entries, ui(false, false));
    s.update(Action::Resize {
        width: 100,
        height: 16,
    });
    s
}

fn shown(s: &State) -> Vec<String> {
    s.watch.visible().map(|r| r.entry.task_id.clone()).collect()
}

fn tick(s: &mut State, seconds: u64) {
    let now = s.now + seconds;
    s.apply(Msg::Tick(now));
}

#[test]
fn the_focus_coming_back_polls_the_running_rows_on_screen_only() {
    let mut s = listed();
    let on_screen = shown(&s);
    assert!(
        on_screen.len() >= 3 && on_screen.len() < 13,
        "{on_screen:?}"
    );
    assert!(on_screen.iter().any(|id| id == "done"), "{on_screen:?}");
    let asked = polled_now(&s.focus_gained());
    let want: Vec<String> = on_screen.into_iter().filter(|id| id != "done").collect();
    assert_eq!(asked, want, "the running rows on screen, none off it");
}

#[test]
fn a_task_answered_lately_or_waiting_out_a_retry_is_not_asked() {
    let mut s = listed();
    let on_screen = shown(&s);
    let (fresh, failing) = (on_screen[0].clone(), on_screen[2].clone());
    tick(&mut s, 10);
    // Failed 3 s before the focus, its retry due in 30 s: the focus does not cut the backoff
    // short.
    s.apply(Msg::Polled {
        key: image(&failing),
        result: Err(http(503)),
        retry_in: Some(Duration::from_secs(30)),
        next: None,
    });
    tick(&mut s, 2);
    // Answered a second ago: fresh.
    s.apply(ok_poll(&fresh, "IN_PROGRESS", 20));
    tick(&mut s, 1);
    let asked = polled_now(&s.focus_gained());
    assert!(!asked.contains(&fresh), "{asked:?}");
    assert!(!asked.contains(&failing), "{asked:?}");
    assert_eq!(asked.len(), shown(&s).len() - 3, "{asked:?}");
}

#[test]
fn focus_flapping_costs_one_poll_a_task_each_fresh_interval() {
    let mut s = listed();
    let first = polled_now(&s.focus_gained());
    assert!(!first.is_empty());
    // Twenty more in the same second: nothing more is asked.
    for _ in 0..20 {
        assert_eq!(polled_now(&s.focus_gained()), Vec::<String>::new());
    }
    tick(&mut s, FRESH - 1);
    assert!(s.focus_gained().is_empty(), "still within {FRESH} s");
    // Once the interval has passed, the focus asks again, but not for what answered since.
    tick(&mut s, 1);
    s.apply(ok_poll(&first[0], "IN_PROGRESS", 30));
    let again = polled_now(&s.focus_gained());
    assert_eq!(again, first[1..], "all but the one just answered");
}

#[test]
fn rows_not_on_screen_are_not_polled_on_focus() {
    let mut s = listed();
    // The browser over the whole screen: the watch rows are not drawn.
    s.update(Action::Zoom);
    assert!(polled_now(&s.focus_gained()).is_empty(), "zoomed browser");
    s.update(Action::Zoom);
    s.update(Action::ToggleHelp);
    assert!(polled_now(&s.focus_gained()).is_empty(), "under the help");
    s.update(Action::ToggleHelp);
    assert!(!polled_now(&s.focus_gained()).is_empty(), "back on screen");
}

/// The selected task finishing while the terminal is away stays new: the focus coming back
/// does not clear it, the user's next input (with the watch pane's keys) does.
#[test]
fn a_task_finished_while_away_stays_new_until_an_input() {
    let mut s = listed();
    press(&mut s, key(KeyCode::Tab));
    let selected = s.watch.selected_row().expect("a row").entry.task_id.clone();
    finish(&mut s, &selected, "COMPLETED", 100, true);
    let new = |s: &State| s.watch.selected_row().is_some_and(|r| r.entry.unseen());
    assert!(new(&s), "finished under the cursor while away");
    s.focus_gained();
    assert!(new(&s), "the focus alone is not a look");
    press(&mut s, ch('j'));
    press(&mut s, ch('k'));
    assert!(!new(&s), "seen once the user acts with it selected");
}

/// With a longer `poll_interval`, a return asks at once (answers older than `FRESH`), and focus
/// that comes and goes asks again only once that interval has passed: at most one lookup per
/// task is added to each of the poller's.
#[test]
fn a_longer_poll_interval_bounds_how_often_focus_asks() {
    let mut s = listed();
    s.settings.poll_interval = 10;
    tick(&mut s, FRESH);
    assert!(!polled_now(&s.focus_gained()).is_empty(), "a return asks");
    tick(&mut s, 9);
    assert!(s.focus_gained().is_empty(), "within the configured 10 s");
    tick(&mut s, 1);
    assert!(!polled_now(&s.focus_gained()).is_empty());
}
