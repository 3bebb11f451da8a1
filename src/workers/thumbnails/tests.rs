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
    );
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
    assert!(
        matches!(
            got[1].result,
            Ok(Picture::Video {
                bytes: Some(12_345)
            })
        ),
        "{:?}",
        got[1]
    );
    let Ok(Picture::Image(image)) = &got[0].result else {
        panic!("a picture: {:?}", got[0])
    };
    assert!(matches!(
        image.protocol(),
        ratatui_image::protocol::Protocol::Sixel(_)
    ));
    assert_eq!(
        h.made(),
        1,
        "a video makes no thumbnail (until poster frames)"
    );
}
