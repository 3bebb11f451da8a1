//! The gallery (`P`) at 80x24 and 220x50: text tiles (no graphics, a video, an unfinished or
//! failed task), a half-block picture once the thumbnail worker answers, the selected tile's
//! caption highlighted, and the archive's gallery.

use super::{NOW, draw, state};
use gendash::api::TaskKind;
use gendash::app::action::Action;
use gendash::app::state::{GalleryOf, State};
use gendash::cmd::TaskKey;
use gendash::msg::{ArchiveReport, Msg, ThumbnailMsg, ThumbnailReport};
use gendash::picture::Graphics;
use gendash::picture::decode::{decode, encode};
use gendash::picture::video::{Frame as VideoFrame, VideoFrameError, VideoPreview};
use gendash::store::archive::ArchivedTask;
use gendash::store::watchlist::{LastKnown, WatchEntry};

fn task(id: &str, kind: TaskKind, status: &str, percent: u8, label: Option<&str>) -> WatchEntry {
    WatchEntry {
        task_id: id.into(),
        kind,
        added_at: NOW - 600,
        last: Some(LastKnown {
            status: status.into(),
            percent,
            url_download: (status == "COMPLETED")
                .then(|| format!("http://127.0.0.1:8787/files/{id}.png")),
            updated_at: NOW - 60,
            ..LastKnown::default()
        }),
        label: label.map(str::to_string),
        ..gendash::app::watch::new_entry(id, kind, NOW - 600)
    }
}

fn results() -> Vec<WatchEntry> {
    let mut entries = vec![
        task(
            "render-1",
            TaskKind::Image,
            "COMPLETED",
            100,
            Some("lighthouse at dusk"),
        ),
        task("clip-2", TaskKind::Video, "COMPLETED", 100, None),
        task("render-3", TaskKind::Image, "IN_PROGRESS", 40, None),
        task("render-4", TaskKind::Image, "FAILED", 100, None),
    ];
    entries.extend((5..=14).map(|i| {
        task(
            &format!("render-{i}"),
            TaskKind::Image,
            "COMPLETED",
            100,
            None,
        )
    }));
    entries
}

/// The watch list's gallery at `width`x`height`, the second tile selected.
fn gallery(width: u16, height: u16) -> State {
    let mut s = state(width, height, results());
    s.update(Action::FocusNext);
    s.update(Action::ToggleGallery);
    s.update(Action::Right);
    assert_eq!(
        s.mode(),
        gendash::app::state::Mode::Gallery(GalleryOf::Watch)
    );
    s
}

#[test]
fn gallery_text_tiles_80() {
    let s = gallery(80, 24);
    let t = draw(&s);
    insta::assert_snapshot!(t.backend());
    // The selected tile's caption (the second) is drawn as the list's selection, the others not.
    let grid = s.gallery_grid(GalleryOf::Watch);
    let selected = s.theme.selected();
    let caption = |n: usize| {
        let r = grid.tile_rect(n);
        t.backend().buffer()[(r.x, r.bottom() - 1)].style()
    };
    assert_eq!(
        (caption(1).bg, caption(1).add_modifier),
        (selected.bg, selected.add_modifier)
    );
    assert_ne!(caption(0), caption(1));
}

#[test]
fn gallery_text_tiles_220() {
    insta::assert_snapshot!(draw(&gallery(220, 50)).backend());
}

/// The worker's pictures in half-blocks, a video's size, a tile still loading.
#[test]
fn gallery_half_blocks_220() {
    let mut s = gallery(220, 50);
    let cmds = s.apply(Msg::Thumbnail(ThumbnailMsg::Started { cell: (10, 20) }));
    assert!(
        cmds.iter()
            .any(|c| matches!(c, gendash::cmd::Cmd::Thumbnails(_))),
        "{cmds:?}"
    );
    let size = s.gallery_grid(GalleryOf::Watch).picture;
    let png = super::preview::quadrants(64, 64);
    let picture = encode(&decode(&png).unwrap(), &Graphics::halfblocks(), size, 1).unwrap();
    let reports = [
        ThumbnailReport {
            key: TaskKey::new(TaskKind::Image, "render-1"),
            size,
            result: Ok(gendash::picture::Picture::Image(picture)),
        },
        ThumbnailReport {
            key: TaskKey::new(TaskKind::Video, "clip-2"),
            size,
            result: Ok(gendash::picture::Picture::Video(VideoPreview {
                bytes: Some(3_500_000),
                duration: None,
                frame: VideoFrame::Shown {
                    image: encode(&decode(&png).unwrap(), &Graphics::halfblocks(), size, 2)
                        .unwrap(),
                    at: std::time::Duration::ZERO,
                    area: size,
                },
            })),
        },
    ];
    for r in reports {
        s.apply(Msg::Thumbnail(ThumbnailMsg::Report(r)));
    }
    let t = draw(&s);
    insta::assert_snapshot!(t.backend());
    let text = format!("{:?}", t.backend().buffer());
    assert!(
        text.contains('▀') || text.contains('▄'),
        "half-blocks drawn"
    );
    assert!(text.contains("loading…"), "a tile whose picture is coming");
    // The video's tile is its frame.
    let r = s.gallery_grid(GalleryOf::Watch).tile_rect(1);
    let buffer = t.backend().buffer();
    let frame_cells = (r.y..r.bottom() - 1)
        .flat_map(|y| (r.x..r.right()).map(move |x| (x, y)))
        .filter(|&(x, y)| matches!(buffer[(x, y)].symbol(), "▀" | "▄"))
        .count();
    assert!(frame_cells > 0, "the video's frame in half-blocks");
}

/// A video without a frame (no ffmpeg) is a text tile with its size and why.
#[test]
fn a_video_without_ffmpeg_says_its_size_and_why() {
    let mut s = gallery(220, 50);
    s.apply(Msg::Thumbnail(ThumbnailMsg::Started { cell: (10, 20) }));
    let size = s.gallery_grid(GalleryOf::Watch).picture;
    s.apply(Msg::Thumbnail(ThumbnailMsg::Report(ThumbnailReport {
        key: TaskKey::new(TaskKind::Video, "clip-2"),
        size,
        result: Ok(gendash::picture::Picture::Video(VideoPreview {
            bytes: Some(3_500_000),
            duration: None,
            frame: VideoFrame::Missing(VideoFrameError::NoFfmpeg.to_string()),
        })),
    })));
    let t = draw(&s);
    let r = s.gallery_grid(GalleryOf::Watch).tile_rect(1);
    let tile: String = (r.y..r.bottom() - 1)
        .map(|y| {
            (r.x..r.right())
                .map(|x| t.backend().buffer()[(x, y)].symbol().to_string())
                .collect::<String>()
                .trim_matches(|c| c == '│' || c == ' ')
                .to_string()
                + " "
        })
        .collect();
    assert!(tile.contains("video · 3.5 MB: no ffmpeg on PATH"), "{tile}");
}

fn archived(id: i64, entry: WatchEntry) -> ArchivedTask {
    ArchivedTask {
        id,
        entry,
        archived_at: NOW - 30,
    }
}

#[test]
fn archive_gallery_80() {
    let mut s = state(80, 24, Vec::new());
    s.update(Action::ToggleArchive);
    let tasks: Vec<ArchivedTask> = results()
        .into_iter()
        .filter(|e| e.last.as_ref().is_some_and(|l| l.status != "IN_PROGRESS"))
        .zip(1..)
        .map(|(e, id)| archived(id, e))
        .collect();
    s.apply(Msg::Archive(ArchiveReport::listed(tasks.into(), 0)));
    s.update(Action::ToggleGallery);
    assert_eq!(
        s.mode(),
        gendash::app::state::Mode::Gallery(GalleryOf::Archive)
    );
    s.update(Action::Down);
    insta::assert_snapshot!(draw(&s).backend());
}
