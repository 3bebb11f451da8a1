//! The dirty flag: which inputs and reports redraw.

use super::*;

#[test]
fn every_input_redraws_in_every_mode() {
    let actions = [
        Action::Up,
        Action::Down,
        Action::Type('x'),
        Action::Refresh,
        Action::Cancel,
        Action::Undo,
        Action::PollNow,
        Action::Resize {
            width: 80,
            height: 24,
        },
        Action::Click { column: 0, row: 0 },
        Action::Wheel {
            column: 0,
            row: 0,
            down: true,
        },
        Action::Suspend,
        Action::Terminate(1),
    ];
    for mode in MODES {
        for a in &actions {
            let mut s = enter(mode);
            s.update(a.clone());
            assert!(s.dirty, "{mode:?} {a:?}");
        }
    }
}

/// (what, how the state got there, the report, whether it redraws)
type ReportCase = (&'static str, Setup, Msg, bool);

// A data table: splitting it would only scatter the cases.
#[allow(clippy::too_many_lines)]
fn report_cases() -> Vec<ReportCase> {
    let poll_once: Setup = |s| {
        s.apply(ok_poll("w-1", "IN_PROGRESS", 40));
    };
    // Loaded (ranking 1), then `i` (ranking 2) and `n` (ranking 3) typed into the filter.
    let two_keys: Setup = |s| {
        let entries = ["ink", "pixel_art"]
            .map(|model| LoraEntry::new(model, &serde_json::Map::new()))
            .to_vec();
        s.apply(catalogue(
            0,
            Ok(Catalogue {
                entries,
                skipped: 0,
            }),
        ));
        s.update(Action::FocusFilter);
        s.update(Action::Type('i'));
        s.update(Action::Type('n'));
    };
    vec![
        (
            "the same poll result again",
            poll_once,
            ok_poll("w-1", "IN_PROGRESS", 40),
            false,
        ),
        (
            "a new percent",
            poll_once,
            ok_poll("w-1", "IN_PROGRESS", 41),
            true,
        ),
        (
            "the same result a second later (the next tick redraws the age)",
            |s| {
                s.apply(ok_poll("w-1", "IN_PROGRESS", 40));
                s.now += 1;
            },
            ok_poll("w-1", "IN_PROGRESS", 40),
            false,
        ),
        (
            "the same error again",
            |s| {
                s.apply(polled("w-1", Err(http(502))));
            },
            polled("w-1", Err(http(502))),
            false,
        ),
        (
            "a poll for a task no longer listed",
            poll_once,
            ok_poll("gone", "COMPLETED", 100),
            false,
        ),
        (
            "a stale catalogue",
            |s| {
                s.start();
            },
            catalogue(0, Ok(Catalogue::default())),
            false,
        ),
        (
            "a watch file older than the ops sent",
            |s| {
                s.update(Action::FocusNext);
                s.update(Action::Remove);
            },
            Msg::WatchFile {
                entries: vec![entry("w-1", None), entry("new", None)].into(),
                applied: 0,
            },
            false,
        ),
        (
            "a watch file equal to the list",
            |_| {},
            Msg::WatchFile {
                entries: vec![entry("w-1", Some(("IN_PROGRESS", 40)))].into(),
                applied: 0,
            },
            false,
        ),
        (
            "a download event for a task not listed",
            |_| {},
            Msg::Download {
                key: image("gone"),
                event: DownloadEvent::Progress {
                    done: 1,
                    total: None,
                },
            },
            false,
        ),
        (
            "a tick that changes no label",
            |s| {
                s.apply(Msg::Tick(NOW + 90));
            },
            Msg::Tick(NOW + 100),
            false,
        ),
        (
            "a tick while a notice is still shown",
            |s| {
                s.apply(Msg::Tick(NOW + 90));
                s.update(Action::Refresh);
            },
            Msg::Tick(NOW + 90 + NOTICE_SECONDS - 1),
            false,
        ),
        (
            "a tick that ends a notice",
            |s| {
                s.apply(Msg::Tick(NOW + 90));
                s.update(Action::Refresh);
            },
            Msg::Tick(NOW + 90 + NOTICE_SECONDS),
            true,
        ),
        (
            "the ranking of a query typed over since",
            two_keys,
            Msg::Ranked {
                generation: 2,
                matches: Arc::from([0, 1]),
            },
            false,
        ),
        (
            "the ranking of the query typed last",
            two_keys,
            Msg::Ranked {
                generation: 3,
                matches: Arc::from([0]),
            },
            true,
        ),
        (
            "a finished poll",
            poll_once,
            ok_poll("w-1", "COMPLETED", 100),
            true,
        ),
        (
            "a store problem",
            |_| {},
            Msg::StoreProblem("disk full".into()),
            true,
        ),
        (
            "an opened link",
            |_| {},
            Msg::Opened(crate::msg::Opened::Launched("http://x".into())),
            true,
        ),
        (
            "a download event",
            |_| {},
            Msg::Download {
                key: image("w-1"),
                event: DownloadEvent::Progress {
                    done: 1,
                    total: None,
                },
            },
            true,
        ),
    ]
}

#[test]
fn reports_redraw_only_when_something_shown_changed() {
    let cases = report_cases();
    assert_eq!(cases.len(), 18);
    for (name, setup, msg, redraw) in cases {
        let mut s = state();
        setup(&mut s);
        s.dirty = false;
        s.apply(msg);
        assert_eq!(s.dirty, redraw, "{name}");
    }
}
