//! The help overlay through the reducers: scrolling, searching, closing.

use crate::app::test_support::*;

// ---- 9. the help overlay --------------------------------------------------------------------

fn help_scroll(s: &State) -> u16 {
    match s.popup {
        Some(Popup::Help { scroll }) => scroll,
        ref other => panic!("expected the help, got {other:?}"),
    }
}

#[test]
fn the_help_scrolls_to_its_last_line_and_no_further() {
    // Its lines as drawn inside the overlay's borders (76 wide at most): a note wraps.
    let lines = |columns: u16| {
        let inner = usize::from(columns.min(crate::app::layout::HELP_SIZE.0) - 2);
        Keymap::default().help_lines_at(inner).len()
    };
    // Rows inside the overlay's borders: it is 40 high at most.
    let end_at = |columns: u16, rows: usize| {
        u16::try_from(lines(columns).saturating_sub(rows)).expect("small")
    };
    let end = |rows: usize| end_at(60, rows);
    let wide = |rows: usize| end_at(100, rows);
    assert_eq!(
        lines(60),
        lines(100) + 1,
        "the note takes two rows at 60 columns"
    );
    // (size, downs then ups, the scroll after)
    let cases: [((u16, u16), usize, usize, u16); 8] = [
        ((60, 20), 5, 0, 5),
        ((60, 20), 1000, 0, end(18)),
        ((60, 20), 1000, 3, end(18) - 3),
        ((100, 40), 1000, 0, wide(38)),
        ((160, 60), 1000, 0, wide(38)),
        ((60, 3), 1000, 0, end(1)),
        ((60, 2), 1000, 0, end(0)),
        ((60, 20), 2, 1000, 0),
    ];
    for ((width, height), downs, ups, scroll) in cases {
        let mut s = state();
        s.update(Action::Resize { width, height });
        s.update(Action::ToggleHelp);
        for _ in 0..downs {
            s.update(Action::Down);
        }
        for _ in 0..ups {
            s.update(Action::Up);
        }
        assert_eq!(
            help_scroll(&s),
            scroll,
            "{width}x{height}, {downs} down, {ups} up"
        );
    }
    // A taller terminal shows more of the end: the scroll comes back to keep it full.
    let mut s = state();
    s.update(Action::Resize {
        width: 60,
        height: 20,
    });
    s.update(Action::ToggleHelp);
    for _ in 0..lines(60) {
        s.update(Action::Down);
    }
    assert_eq!(help_scroll(&s), end(18));
    s.update(Action::Resize {
        width: 100,
        height: 40,
    });
    assert_eq!(help_scroll(&s), wide(38));
    s.update(Action::Resize {
        width: 60,
        height: 20,
    });
    assert_eq!(help_scroll(&s), wide(38), "a smaller one keeps the place");
    s.update(Action::Down);
    assert_eq!(help_scroll(&s), wide(38) + 1);
}

/// `on_complete` failing is said once in the status bar; later failures go to the log only.
#[test]
fn a_failing_hook_is_said_once() {
    let mut s = state();
    s.dirty = false;
    s.apply(Msg::HookFailed(
        "on_complete: x failed (exit status: 1)".into(),
    ));
    assert!(s.dirty);
    assert_eq!(
        s.last_error.as_deref(),
        Some("on_complete: x failed (exit status: 1) (later failures go to the log only)")
    );
    s.last_error = Some("HTTP 502".into());
    s.dirty = false;
    s.apply(Msg::HookFailed("on_complete: x failed again".into()));
    assert!(!s.dirty);
    assert_eq!(s.last_error.as_deref(), Some("HTTP 502"));
}
