//! The watch list drawn: every state, its detail section and links at 140x45, tasks of several services at 80, 100 and 140 columns, and a finished picture in the detail.

use super::*;

#[test]
fn watch_list_with_each_state() {
    let mut s = watching();
    s.update(Action::FocusNext);
    let t = draw(&s);
    insta::assert_snapshot!(t.backend());
    let buf = t.backend().buffer();
    let a = s.areas.watch_rows;
    let status_colour = |row: u16| {
        let line: String = (a.x..a.x + a.width)
            .map(|x| buf[(x, a.y + row)].symbol().to_string())
            .collect();
        let col = line
            .find("IN_PROGRESS")
            .or_else(|| line.find("COMPLETED"))
            .or_else(|| line.find("FAILED"))
            .or_else(|| line.find("no answer"))
            .unwrap();
        buf[(a.x + col as u16, a.y + row)].style().fg
    };
    assert_eq!(status_colour(0), Some(Color::Yellow));
    assert_eq!(status_colour(1), Some(Color::Green));
    // xterm's 203 and 207: a red and a magenta that read on black and on the selected row.
    assert_eq!(status_colour(2), Some(Color::Indexed(203)));
    assert_eq!(
        status_colour(3),
        Some(Color::Indexed(207)),
        "a task whose polls fail stands out"
    );
}

/// A watch list with every state, at the README's 140x45: the detail section shows the
/// selected task without a key press; every state in the table; the links drawn are the file
/// names and the detail's full URL, at the cells where they are drawn.
#[test]
fn watch_details_and_states_at_140x45() {
    let ids = [
        ("sim-45-portrait-batch-with-a-long-name", "IN_PROGRESS"),
        ("clip-done", "COMPLETED"),
        ("render-gone", ""),
        ("render-stuck", "IN_PROGRESS"),
    ];
    let mut s = loaded(
        140,
        45,
        ids.iter()
            .map(|(id, _)| task(id, TaskKind::Image))
            .collect(),
    );
    s.watch.stall_after = 300;
    let poll = |s: &mut State, id: &str, r: Result<TaskResult, ApiError>| {
        s.apply(Msg::Polled {
            key: TaskKey::new(TaskKind::Image, id),
            result: r,
            retry_in: Some(std::time::Duration::from_secs(15)),
            next: None,
        });
    };
    let at = |s: &mut State, t: u64| {
        s.apply(Msg::Tick(NOW - 90 + t));
    };
    at(&mut s, 0);
    poll(
        &mut s,
        "render-stuck",
        Ok(result("render-stuck", "IN_PROGRESS", 40)),
    );
    for (t, p) in [(0, 10), (60, 20), (120, 30)] {
        at(&mut s, t);
        poll(&mut s, ids[0].0, Ok(result(ids[0].0, "IN_PROGRESS", p)));
    }
    at(&mut s, 130);
    poll(&mut s, "clip-done", Ok(result("clip-done", "QUEUED", 0)));
    at(&mut s, 200);
    poll(
        &mut s,
        "clip-done",
        Ok(result("clip-done", "COMPLETED", 100)),
    );
    poll(
        &mut s,
        "render-gone",
        Err(ApiError::Lookup {
            description: "task not found".into(),
        }),
    );
    at(&mut s, 400);
    poll(
        &mut s,
        "render-stuck",
        Ok(result("render-stuck", "IN_PROGRESS", 40)),
    );
    s.update(Action::FocusNext);
    s.update(Action::Down);
    let mut links = Vec::new();
    let a = s.areas.full;
    let mut t = Terminal::new(TestBackend::new(a.width, a.height)).unwrap();
    t.draw(|f| links = gendash::ui::render(&s, f)).unwrap();
    insta::assert_snapshot!(t.backend());
    let text = crate::common::rendered_text(&s, 140, 45);
    assert!(
        text.contains("1 stalled") && text.contains("1 not found"),
        "{text}"
    );
    assert!(
        text.contains("sim-45-portrait-batch-with-…"),
        "a long ID is cut at its end, where it is told apart"
    );
    let buf = t.backend().buffer();
    let drawn = |l: &gendash::ui::watch::Link| -> String {
        (l.x..l.x + l.width)
            .map(|x| buf[(x, l.y)].symbol().to_string())
            .collect()
    };
    let url = "http://127.0.0.1:8787/files/clip-done.png";
    assert!(!links.is_empty());
    assert!(links.iter().all(|l| l.url == url), "{links:?}");
    let texts: Vec<String> = links.iter().map(drawn).collect();
    assert_eq!(texts[0], "clip-done.png", "the row's file name: {texts:?}");
    assert_eq!(
        texts[1..].concat(),
        url,
        "the detail's URL, wrapped beside the picture, each line a link: {texts:?}"
    );
}

/// The watch pane with tasks of three services (the current one, a profile's, one not
/// configured) at the widths people use: the SERVICE column, the states, the detail.
#[test]
fn watch_pane_across_services_at_80_100_140() {
    let current = "http://127.0.0.1:8787";
    let staging = "https://staging.example.com/api";
    let gone = "https://old.example.net";
    let on = |id: &str, kind: TaskKind, service: &str| WatchEntry {
        service: Some(service.into()),
        saved: None,
        auto_download: None,
        claimed_by: None,
        polled_by: None,
        label: None,
        seen: None,
        ..task(id, kind)
    };
    for (width, height) in [(80, 24), (100, 30), (140, 45)] {
        let mut s = loaded(
            width,
            height,
            vec![
                on("render-001", TaskKind::Image, current),
                on("clip-002", TaskKind::Video, staging),
                on("render-003", TaskKind::Image, gone),
                on("render-004", TaskKind::Image, staging),
            ],
        );
        let mut services = gendash::app::services::Services::single(current);
        services.names.insert(current.into(), "local".into());
        services.names.insert(staging.into(), "staging".into());
        let _ = watch::service::set(&mut s.watch, services);
        for (t, p) in [(0, 10), (30, 40)] {
            s.apply(Msg::Tick(NOW - 60 + t));
            poll(
                &mut s,
                "render-001",
                TaskKind::Image,
                Ok(result("render-001", "IN_PROGRESS", p)),
            );
        }
        s.apply(Msg::Tick(NOW));
        poll(
            &mut s,
            "clip-002",
            TaskKind::Video,
            Ok(result("clip-002", "COMPLETED", 100)),
        );
        poll(
            &mut s,
            "render-004",
            TaskKind::Image,
            Err(ApiError::Http {
                status: 503,
                excerpt: "Service Unavailable".into(),
                retry_after: None,
            }),
        );
        s.update(Action::FocusNext);
        s.update(Action::Down);
        s.update(Action::Down);
        let t = draw(&s);
        insta::assert_snapshot!(format!("watch_services_{width}x{height}"), t.backend());
        let text = crate::common::rendered_text(&s, width, height);
        assert!(text.contains("no service"), "{width}: {text}");
        if width >= 100 {
            assert!(
                text.contains("SERVICE") && text.contains("staging"),
                "{width}: {text}"
            );
        }
    }
}

/// A finished image task's picture beside the detail's text, as the preview worker sends it;
/// a video says in a line of the text that previews are for images.
#[test]
fn the_detail_shows_the_picture_of_a_finished_image() {
    use gendash::cmd::PreviewSource;
    use gendash::msg::PreviewReport;
    use gendash::picture::{Graphics, Picture, PreviewView};
    let mut s = loaded(
        140,
        45,
        vec![
            task("pic-done", TaskKind::Image),
            task("clip-done", TaskKind::Video),
        ],
    );
    poll(
        &mut s,
        "clip-done",
        TaskKind::Video,
        Ok(result("clip-done", "COMPLETED", 100)),
    );
    // The selected task finishes: its picture is asked for.
    let cmds = s.apply(Msg::Polled {
        key: TaskKey::new(TaskKind::Image, "pic-done"),
        result: Ok(result("pic-done", "COMPLETED", 100)),
        retry_in: None,
        next: None,
    });
    s.update(Action::FocusNext);
    let Some(Cmd::Preview(request)) = cmds.iter().find(|c| matches!(c, Cmd::Preview(_))) else {
        panic!("the selected finished task's picture is asked for: {cmds:?}")
    };
    assert_eq!(
        request.source,
        PreviewSource::Url("http://127.0.0.1:8787/files/pic-done.png".into())
    );
    let area = s.areas.watch_preview;
    assert_eq!(request.area, area.as_size());
    let image = gendash::picture::decode::encode(
        &preview::decoded(&preview::quadrants(32, 32)),
        &Graphics::halfblocks(),
        area.as_size(),
        1,
    )
    .unwrap();
    s.apply(Msg::Preview(PreviewReport {
        key: request.key.clone(),
        area: request.area,
        result: Ok(Picture::Image(image)),
    }));
    assert!(matches!(s.preview.view(), Some(PreviewView::Ready(_))));
    let t = draw(&s);
    insta::assert_snapshot!(t.backend());
    let top_left = &t.backend().buffer()[(area.x + 1, area.y + 1)];
    assert_eq!(
        top_left.fg,
        ratatui::style::Color::Rgb(255, 0, 0),
        "the red quadrant"
    );

    let cmds = s.update(Action::Down);
    let Some(Cmd::Preview(request)) = cmds.iter().find(|c| matches!(c, Cmd::Preview(_))) else {
        panic!("the video's file is asked about too: {cmds:?}")
    };
    s.apply(Msg::Preview(PreviewReport {
        key: request.key.clone(),
        area: request.area,
        result: Ok(Picture::Video(gendash::picture::video::VideoPreview {
            bytes: Some(3_900),
            duration: None,
            frame: gendash::picture::video::Frame::Missing(
                gendash::picture::video::VideoFrameError::NoFfmpeg.to_string(),
            ),
        })),
    }));
    let text = crate::common::rendered_text(&s, 140, 45);
    assert!(
        text.contains("preview   video · 3.9 kB: no ffmpeg on PATH: install ffmpeg"),
        "{text}"
    );
}
