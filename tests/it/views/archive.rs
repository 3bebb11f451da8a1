//! The archive view (`H`): its list, title, detail and empty state at 80 and 220 columns.

use super::{NOW, draw, state};
use gendash::api::TaskKind;
use gendash::app::action::Action;
use gendash::app::state::State;
use gendash::msg::{ArchiveReport, Msg};
use gendash::store::archive::ArchivedTask;
use gendash::store::watchlist::{LastKnown, Transition, WatchEntry};

fn archived(id: i64, task: &str, status: &str, label: Option<&str>, ago: u64) -> ArchivedTask {
    let finished = NOW - ago;
    ArchivedTask {
        id,
        entry: WatchEntry {
            task_id: task.into(),
            kind: if task.starts_with("clip") {
                TaskKind::Video
            } else {
                TaskKind::Image
            },
            added_at: finished - 300,
            last: Some(LastKnown {
                status: status.into(),
                percent: 100,
                url_download: (status == "COMPLETED")
                    .then(|| format!("http://127.0.0.1:8787/files/{task}.png")),
                updated_at: finished,
                running_since: Some(finished - 240),
                finished_at: Some(finished),
                start_seen: true,
                history: vec![
                    Transition {
                        at: finished - 240,
                        status: "IN_PROGRESS".into(),
                    },
                    Transition {
                        at: finished,
                        status: status.into(),
                    },
                ],
                extra: None,
            }),
            service: Some("http://127.0.0.1:8787".into()),
            saved: (id == 1).then(|| "/home/u/gen/render-101.png".into()),
            auto_download: None,
            claimed_by: None,
            polled_by: None,
            trouble: None,
            label: label.map(str::to_string),
            seen: Some(true),
        },
        archived_at: NOW - ago / 2,
    }
}

fn archive_of(width: u16, height: u16, tasks: Vec<ArchivedTask>) -> State {
    let mut s = state(width, height, Vec::new());
    s.update(Action::ToggleArchive);
    s.apply(Msg::Archive(ArchiveReport::listed(tasks.into(), 0)));
    s
}

fn tasks() -> Vec<ArchivedTask> {
    vec![
        archived(1, "render-101", "COMPLETED", Some("lighthouse at dusk"), 60),
        archived(2, "clip-102", "FAILED", None, 3_600),
        archived(
            3,
            "render-103",
            "COMPLETED",
            Some("cat portrait, watercolor"),
            86_400,
        ),
        archived(4, "render-104", "COMPLETED", None, 2 * 86_400),
    ]
}

#[test]
fn archive_80() {
    insta::assert_snapshot!(draw(&archive_of(80, 24, tasks())).backend());
}

#[test]
fn archive_220() {
    insta::assert_snapshot!(draw(&archive_of(220, 30, tasks())).backend());
}

#[test]
fn archive_filtered_80() {
    let mut s = archive_of(80, 24, tasks());
    s.update(Action::FocusFilter);
    for c in "label:cat".chars() {
        s.update(Action::Type(c));
    }
    let text = crate::common::rendered_text(&s, 80, 24);
    assert!(
        text.contains("Archive · 4 tasks · filtered 1 · sorted by finished ↓"),
        "{text}"
    );
    assert!(text.contains("render-103") && !text.contains("render-104"));
}

#[test]
fn archive_empty_80() {
    insta::assert_snapshot!(draw(&archive_of(80, 24, Vec::new())).backend());
}

/// The keys the view names follow `[keys]`.
#[test]
fn the_empty_view_names_the_keys_as_configured() {
    let mut keys = std::collections::BTreeMap::new();
    keys.insert("remove".to_string(), vec!["x".parse().unwrap()]);
    keys.insert("close_archive".to_string(), vec!["f4".parse().unwrap()]);
    let mut s = archive_of(80, 24, Vec::new());
    s.keymap = gendash::app::state::Keymap::configured(&keys).unwrap();
    let text = crate::common::rendered_text(&s, 80, 24);
    assert!(text.contains("list (x there, or C"), "{text}");
    assert!(text.contains("F4 goes back"), "{text}");
}

/// The detail of a task not saved names the download key `[keys]` gives, not a built-in `D`.
#[test]
fn the_detail_names_the_download_key_as_configured() {
    let mut keys = std::collections::BTreeMap::new();
    keys.insert("download".to_string(), vec!["ctrl-d".parse().unwrap()]);
    let mut s = archive_of(220, 30, tasks());
    s.keymap = gendash::app::state::Keymap::configured(&keys).unwrap();
    // The second row, never saved.
    s.update(Action::Down);
    let text = crate::common::rendered_text(&s, 220, 30);
    assert!(text.contains("not saved (^D downloads it)"), "{text}");
    assert!(!text.contains("(D downloads"), "{text}");
}

/// A keystroke in a long list draws its first matches before their count is known: the title
/// says the list is being filtered, then the count once the rest is read.
#[test]
fn a_long_lists_title_says_filtering_until_the_count_is_known() {
    let tasks = (0..10_000)
        .map(|i| {
            archived(
                i + 1,
                &format!("render-{i}"),
                "COMPLETED",
                None,
                60 + i as u64,
            )
        })
        .collect();
    let mut s = archive_of(80, 24, tasks);
    s.update(Action::FocusFilter);
    s.update(Action::Type('r'));
    let text = crate::common::rendered_text(&s, 80, 24);
    assert!(
        text.contains("Archive · 10,000 tasks · filtering… · sorted by finished ↓"),
        "{text}"
    );
    assert!(
        text.contains("render-0 ") && text.contains("render-6 "),
        "{text}"
    );
    s.settle();
    let text = crate::common::rendered_text(&s, 80, 24);
    assert!(
        text.contains("Archive · 10,000 tasks · filtered 10,000 · sorted by finished ↓"),
        "{text}"
    );
}

/// The filter line names what the archive's filter cannot use, beside the query.
#[test]
fn the_filter_line_names_what_the_archive_cannot_use() {
    let mut s = archive_of(140, 24, tasks());
    s.archive.set_query("render is:new nosuchfield:x".into());
    let screen = draw(&s).backend().to_string();
    assert!(
        screen.contains(
            "/ render is:new nosuchfield:x · nosuchfield: no such field (fields: label, status,"
        ),
        "{screen}"
    );
    s.archive.set_query("render".into());
    let screen = draw(&s).backend().to_string();
    assert!(!screen.contains("no such field"), "{screen}");
}

/// The detail wraps as the watch list's does: a URL too long for its row breaks after a `/`,
/// the rest under it, beside the labels.
#[test]
fn the_detail_breaks_a_long_url_after_a_slash() {
    let s = archive_of(44, 40, tasks());
    let screen = draw(&s).backend().to_string();
    assert!(
        screen.contains(
            "\"│URL      http://127.0.0.1:8787/files/     │\"\n\"│         render-101.png"
        ),
        "{screen}"
    );
}
