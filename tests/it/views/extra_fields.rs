//! The fields a service sends beyond the spec's five, in the watch list's and the archive's
//! detail at 80 and 220 columns: each under its own name, one line, fitted to the width.

use super::{NOW, draw, loaded, poll, state, task};
use gendash::api::{ExtraFields, TaskKind, TaskResult};
use gendash::app::action::Action;
use gendash::app::state::State;
use gendash::msg::{ArchiveReport, Msg};
use gendash::store::archive::ArchivedTask;
use serde_json::json;

/// What the reference service's `-extra` tasks send, as decoded (so sanitised), with a long
/// log the narrow detail must cut.
fn extra() -> ExtraFields {
    let mut e = ExtraFields::default();
    e.push("queue_position", &json!(0));
    e.push(
        "logs",
        &json!([
            "\u{1b}[32mmodel loaded\u{1b}[0m",
            "step 40 of 100: sampling with 30 steps at 1024x1024, cfg 7"
        ]),
    );
    e.push(
        "preview_url",
        &json!("http://127.0.0.1:8787/files/render-001.png"),
    );
    e.push("worker", &json!({"node": "ref-1", "gpu": "A100"}));
    e
}

fn running(width: u16, height: u16) -> State {
    let mut s = loaded(width, height, vec![task("render-001", TaskKind::Image)]);
    poll(
        &mut s,
        "render-001",
        TaskKind::Image,
        Ok(TaskResult {
            extra: Some(Box::new(extra())),
            ..gendash::testing::task_result("render-001", "IN_PROGRESS", 40)
        }),
    );
    s.update(Action::FocusNext);
    s
}

/// At 80x24 the watch pane zoomed (`z`), as a user there sees a task's detail.
#[test]
fn watch_detail_extra_fields_80() {
    let mut s = running(80, 24);
    s.update(Action::Zoom);
    let t = draw(&s);
    insta::assert_snapshot!(t.backend());
    let text = crate::common::rendered_text(&s, 80, 24);
    assert!(text.contains("queue_position 0"), "{text}");
    assert!(!text.contains("[32m"), "{text}");
}

#[test]
fn watch_detail_extra_fields_220() {
    insta::assert_snapshot!(draw(&running(220, 40)).backend());
}

fn archived() -> ArchivedTask {
    let mut entry = task("render-001", TaskKind::Image);
    entry.last = Some(gendash::store::watchlist::LastKnown {
        status: "COMPLETED".into(),
        percent: 100,
        url_download: Some("http://127.0.0.1:8787/files/render-001.png".into()),
        updated_at: NOW - 60,
        finished_at: Some(NOW - 60),
        extra: Some(Box::new(extra())),
        ..Default::default()
    });
    ArchivedTask {
        id: 1,
        entry,
        archived_at: NOW - 30,
    }
}

fn archive_of(width: u16, height: u16) -> State {
    let mut s = state(width, height, Vec::new());
    s.update(Action::ToggleArchive);
    s.apply(Msg::Archive(ArchiveReport::listed(
        vec![archived()].into(),
        0,
    )));
    s
}

#[test]
fn archive_detail_extra_fields_80() {
    insta::assert_snapshot!(draw(&archive_of(80, 30)).backend());
}

#[test]
fn archive_detail_extra_fields_220() {
    insta::assert_snapshot!(draw(&archive_of(220, 30)).backend());
}

/// The detail's metadata, parsed once for the entry drawn frame after frame, follows the
/// selection: each frame shows the selected entry's fields, never the last one's.
#[test]
fn the_detail_shows_the_selected_entrys_fields_frame_after_frame() {
    let entry = |model: &str, author: &str| {
        let meta = json!({"source": format!("https://example.com/{model}"), "author": author});
        gendash::api::LoraEntry::new(model, meta.as_object().expect("object"))
    };
    let mut s = State::new(gendash::app::state::Init::default());
    s.update(Action::Resize {
        width: 140,
        height: 45,
    });
    s.start();
    s.apply(Msg::Catalogue {
        generation: s.browser.generation,
        result: Ok(gendash::api::Catalogue {
            entries: vec![
                entry("first_model", "alice_first"),
                entry("second", "bob_second"),
            ],
            skipped: 0,
        }
        .into()),
    });
    let draw = |s: &State| -> String {
        let t = draw(s);
        let buffer = t.backend().buffer();
        buffer
            .content()
            .iter()
            .map(ratatui::buffer::Cell::symbol)
            .collect()
    };
    for _ in 0..2 {
        let shown = draw(&s);
        assert!(shown.contains("author alice_first"), "{shown}");
        assert!(!shown.contains("bob_second"));
    }
    s.update(Action::Down);
    let shown = draw(&s);
    assert!(shown.contains("author bob_second"), "{shown}");
    assert!(!shown.contains("alice_first"));
    s.update(Action::Up);
    assert!(draw(&s).contains("author alice_first"));
}
