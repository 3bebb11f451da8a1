//! A catalogue entry whose metadata names a picture shows it in the browser's detail, with the
//! same picture engine as a finished task's: asked for only for the selected entry, drawn at
//! the detail's right, or a line saying why not (a terminal without graphics).

use super::{NOW, draw, preview, state};
use gendash::api::{Catalogue, LoraEntry};
use gendash::app::action::Action;
use gendash::app::preview_slot::PreviewSlot;
use gendash::app::state::State;
use gendash::cmd::{Cmd, PreviewRequest, PreviewSource};
use gendash::msg::{Msg, PreviewReport};
use gendash::picture::{Graphics, Picture, PreviewView};
use serde_json::json;

fn catalogue() -> Catalogue {
    let entry = |model: &str, meta: serde_json::Value| {
        LoraEntry::new(model, meta.as_object().expect("object"))
    };
    Catalogue {
        entries: vec![
            entry(
                "watercolor_v2",
                json!({"source": "https://lora-hub.example.com/models/1", "type": "sd",
                       "author": "ayaka", "preview": "samples/1.png"}),
            ),
            entry(
                "ink_wash",
                json!({"source": "https://lora-hub.example.com/models/2", "type": "sd"}),
            ),
        ],
        skipped: 0,
    }
}

/// A `width` x `height` dashboard with the catalogue loaded; the commands it sent.
fn browsing(width: u16, height: u16, slot: Option<PreviewSlot>) -> (State, Vec<Cmd>) {
    let mut s = state(width, height, Vec::new());
    if let Some(slot) = slot {
        s.previews_off(slot);
    }
    s.now = NOW;
    let mut cmds = s.start();
    cmds.extend(s.apply(Msg::Catalogue {
        generation: s.browser.generation,
        result: Ok(catalogue().into()),
    }));
    (s, cmds)
}

fn model_preview(cmds: &[Cmd]) -> Option<&PreviewRequest> {
    cmds.iter().find_map(|c| match c {
        Cmd::ModelPreview(r) => Some(r),
        _ => None,
    })
}

#[test]
fn the_selected_entry_s_picture_is_asked_for_and_drawn() {
    let (mut s, cmds) = browsing(220, 40, None);
    let request = model_preview(&cmds).expect("the selected entry's picture is asked for");
    assert_eq!(
        request.source,
        PreviewSource::Url("http://127.0.0.1:8787/samples/1.png".into()),
        "resolved against the service's base URL"
    );
    assert_eq!(request.key.id, "watercolor_v2");
    let area = s.areas.browser_preview;
    assert!(!area.is_empty());
    assert_eq!(request.area, area.as_size());
    assert!(matches!(s.model_preview.view(), Some(PreviewView::Loading)));
    let image = gendash::picture::decode::encode(
        &preview::decoded(&preview::quadrants(32, 32)),
        &Graphics::halfblocks(),
        area.as_size(),
        1,
    )
    .unwrap();
    s.apply(Msg::ModelPreview(PreviewReport {
        key: request.key.clone(),
        area: request.area,
        result: Ok(Picture::Image(image)),
    }));
    let t = draw(&s);
    insta::assert_snapshot!(t.backend());
    let top_left = &t.backend().buffer()[(area.x + 1, area.y + 1)];
    assert_eq!(top_left.fg, ratatui::style::Color::Rgb(255, 0, 0));

    // An entry that names no picture asks for none and shows none.
    let cmds = s.update(Action::Down);
    assert!(model_preview(&cmds).is_none(), "{cmds:?}");
    assert!(s.model_preview.view().is_none());
    // Back on the first: asked again (the worker answers from what it kept).
    let cmds = s.update(Action::Up);
    assert!(model_preview(&cmds).is_some(), "{cmds:?}");
}

/// A terminal without graphics: one line in the detail says why there is no picture, at 80
/// columns (the browser zoomed) and at 220.
#[test]
fn without_graphics_the_detail_says_why() {
    let off = || {
        Some(PreviewSlot::off(
            "no pictures: the terminal cannot draw them",
        ))
    };
    let (s, cmds) = browsing(220, 40, off());
    assert!(model_preview(&cmds).is_none(), "never asked: {cmds:?}");
    insta::assert_snapshot!("model_picture_off_220", draw(&s).backend());
    let (mut s, _) = browsing(80, 24, off());
    s.update(Action::Zoom);
    let text = crate::common::rendered_text(&s, 80, 24);
    assert!(
        text.contains("picture no pictures: the terminal cannot draw them"),
        "{text}"
    );
    insta::assert_snapshot!("model_picture_off_80", draw(&s).backend());
}
