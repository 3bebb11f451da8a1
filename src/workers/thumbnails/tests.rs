//! The thumbnail worker: a picture is made into a thumbnail once (a second showing reads the
//! disk cache), a video is a size, and work for tiles scrolled away is dropped.

use super::*;
use crate::api::TaskKind;
use crate::picture::GraphicsProtocol;
use std::time::Duration;

fn worker(
    dir: &Path,
    protocol: GraphicsProtocol,
) -> (Handle<ThumbnailReport>, mpsc::Receiver<ThumbnailReport>) {
    let (tx, rx) = mpsc::channel(64);
    let graphics = Graphics {
        protocol,
        ..Graphics::halfblocks()
    };
    let handle = spawn(
        graphics,
        ImageCache::new(dir.join("previews"), 10_000_000),
        ThumbCache::new(dir.join("thumbnails"), 10_000_000),
        Downloader::new(None, None).expect("a downloader"),
        Copies::default(),
        tx,
        |r| r,
    )
    // Whatever this machine has on PATH: a video has no frame unless a test gives a fake.
    .with_ffmpeg(None, video::Limits::default());
    (handle, rx)
}

fn ask(h: &mut Handle<ThumbnailReport>, tiles: &[(&str, TileSource)]) {
    let tiles: Vec<(TaskKey, TileSource)> = tiles
        .iter()
        .map(|(id, s)| (TaskKey::new(TaskKind::Image, *id), s.clone()))
        .collect();
    h.request(ThumbnailRequest {
        keep: tiles.iter().map(|(k, _)| k.clone()).collect(),
        tiles,
        size: Size::new(16, 8),
    });
}

async fn next(rx: &mut mpsc::Receiver<ThumbnailReport>) -> ThumbnailReport {
    tokio::time::timeout(Duration::from_secs(20), rx.recv())
        .await
        .expect("a report in time")
        .expect("the worker is there")
}

/// A PNG of `width`x`height` pixels, two colours a half.
fn png(width: u32, height: u32) -> Vec<u8> {
    let picture = image::RgbImage::from_fn(width, height, |x, _| {
        if x < width / 2 {
            image::Rgb([200, 30, 30])
        } else {
            image::Rgb([30, 30, 200])
        }
    });
    let mut out = Vec::new();
    picture
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .expect("encoded");
    out
}

fn thumbnails_in(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir.join("thumbnails"))
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default()
}

#[tokio::test]
async fn a_picture_is_made_into_a_thumbnail_once_and_read_back_after() {
    let dir = tempfile::tempdir().expect("a directory");
    let picture = dir.path().join("t-1.png");
    std::fs::write(&picture, png(640, 480)).expect("written");
    let source = TileSource::Image(PreviewSource::File(picture.clone()));
    let (mut h, mut rx) = worker(dir.path(), GraphicsProtocol::Halfblocks);
    ask(&mut h, &[("t-1", source.clone())]);
    let first = next(&mut rx).await;
    let Ok(Picture::Image(image)) = &first.result else {
        panic!("a picture: {first:?}")
    };
    assert!(image.covers().width <= 16 && image.covers().height <= 8);
    assert_eq!(h.made(), 1);
    let kept = thumbnails_in(dir.path());
    assert_eq!(kept.len(), 1, "{kept:?}");
    let made_at = std::fs::metadata(&kept[0])
        .and_then(|m| m.modified())
        .expect("a time");
    let png = std::fs::read(&kept[0]).expect("read");
    let small = image::load_from_memory(&png).expect("a PNG");
    assert!(small.width() <= THUMB_SIDE && small.height() <= THUMB_SIDE);

    // A new session's worker: the kept thumbnail is read back, not made again.
    let (mut again, mut rx2) = worker(dir.path(), GraphicsProtocol::Sixel);
    ask(&mut again, &[("t-1", source)]);
    let second = next(&mut rx2).await;
    assert!(matches!(second.result, Ok(Picture::Image(_))), "{second:?}");
    assert_eq!(again.made(), 0, "read back from the disk cache, not made");
    assert_eq!(thumbnails_in(dir.path()), kept);
    let now = std::fs::metadata(&kept[0])
        .and_then(|m| m.modified())
        .expect("a time");
    assert_eq!(now, made_at, "the kept thumbnail was not written again");
}

#[tokio::test]
async fn the_same_file_shown_twice_is_made_once() {
    let dir = tempfile::tempdir().expect("a directory");
    let picture = dir.path().join("t-1.png");
    std::fs::write(&picture, png(300, 300)).expect("written");
    let source = TileSource::Image(PreviewSource::File(picture));
    let (mut h, mut rx) = worker(dir.path(), GraphicsProtocol::Halfblocks);
    ask(&mut h, &[("t-1", source.clone())]);
    assert!(next(&mut rx).await.result.is_ok());
    let kept = thumbnails_in(dir.path());
    let made_at = std::fs::metadata(&kept[0])
        .and_then(|m| m.modified())
        .expect("a time");
    tokio::time::sleep(Duration::from_millis(20)).await;
    // Scrolled away and back: a new request for the same tile.
    ask(&mut h, &[]);
    ask(&mut h, &[("t-1", source)]);
    assert!(next(&mut rx).await.result.is_ok());
    assert_eq!(h.made(), 1, "the second showing read the kept thumbnail");
    let again = std::fs::metadata(&kept[0])
        .and_then(|m| m.modified())
        .expect("a time");
    assert_eq!(again, made_at, "the kept thumbnail was not written again");
}

#[tokio::test]
async fn a_video_tile_is_its_size_and_sixel_thumbnails_are_sixel() {
    let dir = tempfile::tempdir().expect("a directory");
    let video = dir.path().join("v-1.mp4");
    std::fs::write(&video, vec![0u8; 12_345]).expect("written");
    let picture = dir.path().join("t-1.png");
    std::fs::write(&picture, png(200, 100)).expect("written");
    let (mut h, mut rx) = worker(dir.path(), GraphicsProtocol::Sixel);
    ask(
        &mut h,
        &[
            ("v-1", TileSource::Video(PreviewSource::File(video))),
            ("t-1", TileSource::Image(PreviewSource::File(picture))),
        ],
    );
    let mut got = [next(&mut rx).await, next(&mut rx).await];
    got.sort_by(|a, b| a.key.id.cmp(&b.key.id));
    let Ok(Picture::Video(video)) = &got[1].result else {
        panic!("a video: {:?}", got[1])
    };
    assert_eq!(video.bytes, Some(12_345));
    assert_eq!(
        video.caption(),
        "video · 12.3 kB: no ffmpeg on PATH: install ffmpeg to see a frame of the video"
    );
    let Ok(Picture::Image(image)) = &got[0].result else {
        panic!("a picture: {:?}", got[0])
    };
    assert!(matches!(
        image.protocol(),
        ratatui_image::protocol::Protocol::Sixel(_)
    ));
    assert_eq!(h.made(), 1, "a video without ffmpeg makes no thumbnail");
}

/// With ffmpeg, a video's tile is its poster frame, made once: a second showing reads the
/// kept thumbnail, and ffmpeg is not run again.
#[tokio::test]
async fn a_video_tile_is_its_frame_made_once() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("a directory");
    let d = dir.path().display();
    std::fs::write(dir.path().join("frame.png"), png(64, 36)).expect("written");
    let script = dir.path().join("ffmpeg");
    std::fs::write(
        &script,
        format!(
            r#"#!/bin/sh
echo run >> "{d}/runs"
case " $* " in
  *" image2pipe "*) cat "{d}/frame.png" ;;
  *)
    echo "Input #0, mov,mp4,m4a,3gp,3g2,mj2, from 'x':" >&2
    echo "  Duration: 00:00:02.00, start: 0.000000, bitrate: 15 kb/s" >&2
    echo "At least one output file must be specified" >&2
    exit 1 ;;
esac
"#
        ),
    )
    .expect("written");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("mode");
    let video = dir.path().join("v-1.mp4");
    std::fs::write(&video, vec![0u8; 12_345]).expect("written");
    let (h, mut rx) = worker(dir.path(), GraphicsProtocol::Halfblocks);
    let mut h = h.with_ffmpeg(Some(Ffmpeg::at(&script)), video::Limits::default());
    let source = TileSource::Video(PreviewSource::File(video));
    let runs = || std::fs::read_to_string(dir.path().join("runs")).map_or(0, |r| r.lines().count());
    for showing in 0..2 {
        ask(&mut h, &[("v-1", source.clone())]);
        let got = next(&mut rx).await;
        let Ok(Picture::Video(tile)) = &got.result else {
            panic!("a video: {got:?}")
        };
        assert!(
            matches!(tile.frame, Frame::Shown { .. }),
            "showing {showing}: {:?}",
            tile.frame
        );
        assert_eq!(tile.bytes, Some(12_345));
        // Let the first showing's job end, so the second is a new request.
        ask(&mut h, &[]);
    }
    assert_eq!(h.made(), 1, "the second showing read the kept frame");
    assert_eq!(
        runs(),
        2,
        "ffmpeg ran for the first showing only (probe and frame)"
    );
}
