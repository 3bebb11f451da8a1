//! The picture of a finished task: drawn with half-blocks on `TestBackend`, fetched once by the
//! preview worker from a loopback server into a capped cache, refused with one line when it is
//! too big, broken or a bomb, and the terminal's graphics detected without stalling the first
//! frame of the real binary in a pseudo-terminal.

use crate::common::pty::{Answers, Session, command};
use gendash::api::TaskKind;
use gendash::api::download::Downloader;
use gendash::cmd::{PreviewRequest, PreviewSource, TaskKey};
use gendash::msg::PreviewReport;
use gendash::picture::decode::{Decoded, decode, encode};
use gendash::picture::{Graphics, Picture, PreviewView};
use gendash::store::cache::ImageCache;
use gendash::workers::{copies::Copies, previewer};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::{Rect, Size};
use ratatui::style::Color;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

pub use gendash::testing::quadrants;

/// A PNG whose header claims `width` x `height` RGBA pixels over a few bytes of data.
fn bomb(width: u32, height: u32) -> Vec<u8> {
    gendash::testing::claimed_png(width, height, 8)
}

pub fn decoded(png: &[u8]) -> Decoded {
    decode(png).unwrap()
}

fn draw(width: u16, height: u16, view: &PreviewView) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(width, height)).unwrap();
    t.draw(|f| gendash::ui::preview_slot::render(f, f.area(), view))
        .unwrap();
    t
}

#[test]
fn a_picture_in_half_blocks() {
    let area = Size::new(16, 6);
    let image = encode(
        &decoded(&quadrants(32, 24)),
        &Graphics::halfblocks(),
        area,
        1,
    )
    .unwrap();
    // 4:3 in 10x20 cells fills the height: 16x6 cells.
    assert_eq!(image.covers(), Size::new(16, 6));
    let view = PreviewView::Ready(Picture::Image(image));
    let t = draw(20, 7, &view);
    insta::assert_snapshot!(t.backend());
    let buf = t.backend().buffer();
    let colours = |x: u16, y: u16| {
        let c = &buf[(x, y)];
        (c.fg, c.bg)
    };
    // Each quadrant in its colour; the cells beside and below the picture untouched.
    assert_eq!(
        colours(1, 1),
        (Color::Rgb(255, 0, 0), Color::Rgb(255, 0, 0))
    );
    assert_eq!(
        colours(14, 1),
        (Color::Rgb(0, 255, 0), Color::Rgb(0, 255, 0))
    );
    assert_eq!(
        colours(1, 4),
        (Color::Rgb(0, 0, 255), Color::Rgb(0, 0, 255))
    );
    assert_eq!(
        colours(14, 4),
        (Color::Rgb(255, 255, 0), Color::Rgb(255, 255, 0))
    );
    assert_eq!(colours(18, 1), (Color::Reset, Color::Reset));
    assert_eq!(colours(1, 6), (Color::Reset, Color::Reset));

    // The pane shrank below the picture: a line, until the new encoding arrives.
    let t = draw(20, 3, &view);
    assert!(
        t.backend().to_string().contains("resizing preview…"),
        "{}",
        t.backend()
    );
}

#[test]
fn what_is_shown_instead_of_a_picture() {
    let no_frame = |bytes| gendash::picture::video::VideoPreview {
        bytes,
        duration: None,
        frame: gendash::picture::video::Frame::Missing(
            gendash::picture::video::VideoFrameError::NoFfmpeg.to_string(),
        ),
    };
    let views = [
        PreviewView::Loading,
        PreviewView::Failed(
            "the image is too large to preview (100000x100000 pixels; at most 12000 a side)".into(),
        ),
        PreviewView::Ready(Picture::Video(no_frame(Some(3_400_000)))),
        PreviewView::Ready(Picture::Video(no_frame(None))),
        PreviewView::Off("no image preview: NO_COLOR is set and half-blocks are colour".into()),
    ];
    let mut t = Terminal::new(TestBackend::new(60, 5)).unwrap();
    t.draw(|f| {
        for (row, view) in views.iter().enumerate() {
            let area = Rect::new(0, u16::try_from(row).unwrap(), 60, 1);
            gendash::ui::preview_slot::render(f, area, view);
        }
    })
    .unwrap();
    insta::assert_snapshot!(t.backend());
    // Nothing to draw into: nothing drawn, no panic.
    for view in &views {
        let mut t = Terminal::new(TestBackend::new(1, 1)).unwrap();
        t.draw(|f| gendash::ui::preview_slot::render(f, Rect::new(0, 0, 0, 0), view))
            .unwrap();
    }
}

/// What the file server sends for a path.
#[derive(Clone)]
enum Body {
    /// These bytes, with their length announced.
    Bytes(Vec<u8>),
    /// A `Content-Length` of this many bytes, then zeros up to it.
    Announced(u64),
    /// Chunks of zeros with no length announced, up to 64 MiB (so the loop ends).
    Endless,
}

struct FileServer {
    base: String,
    /// Paths requested, in order.
    requests: Arc<Mutex<Vec<String>>>,
    /// Body bytes the server managed to write.
    written: Arc<AtomicU64>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FileServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn file_server(routes: Vec<(&'static str, Body)>) -> FileServer {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let requests = Arc::new(Mutex::new(Vec::new()));
    let written = Arc::new(AtomicU64::new(0));
    let (seen, count) = (requests.clone(), written.clone());
    let task = tokio::spawn(async move {
        for _ in 0..32 {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let head = crate::common::read_head(&mut stream).await;
            let path = head.split_whitespace().nth(1).unwrap_or("").to_string();
            seen.lock().unwrap().push(path.clone());
            let body = routes
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(_, b)| b.clone());
            let count = count.clone();
            tokio::spawn(async move {
                let zeros = vec![0u8; 64 * 1024];
                match body {
                    None => {
                        let _ = stream
                            .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                            .await;
                    }
                    Some(Body::Bytes(bytes)) => {
                        let head = format!(
                            "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                            bytes.len()
                        );
                        let _ = stream.write_all(head.as_bytes()).await;
                        if stream.write_all(&bytes).await.is_ok() {
                            count.fetch_add(bytes.len() as u64, Ordering::SeqCst);
                        }
                    }
                    Some(Body::Announced(len)) => {
                        let head = format!(
                            "HTTP/1.1 200 OK\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n"
                        );
                        let _ = stream.write_all(head.as_bytes()).await;
                        let mut sent = 0u64;
                        while sent < len {
                            let n = zeros.len().min(usize::try_from(len - sent).unwrap());
                            if stream.write_all(&zeros[..n]).await.is_err() {
                                break;
                            }
                            sent += n as u64;
                            count.fetch_add(n as u64, Ordering::SeqCst);
                        }
                    }
                    Some(Body::Endless) => {
                        let _ = stream
                            .write_all(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
                            .await;
                        let chunk =
                            [format!("{:x}\r\n", zeros.len()).as_bytes(), &zeros, b"\r\n"].concat();
                        for _ in 0..1024 {
                            if stream.write_all(&chunk).await.is_err() {
                                break;
                            }
                            count.fetch_add(zeros.len() as u64, Ordering::SeqCst);
                        }
                    }
                }
                let _ = stream.shutdown().await;
            });
        }
    });
    FileServer {
        base,
        requests,
        written,
        task,
    }
}

struct Harness {
    worker: previewer::Handle<PreviewReport>,
    reports: mpsc::Receiver<PreviewReport>,
}

fn harness(cache: &Path, cap: u64) -> Harness {
    let (tx, reports) = mpsc::channel(16);
    let worker = previewer::spawn(
        Graphics::halfblocks(),
        ImageCache::new(cache.to_path_buf(), cap),
        Downloader::new(None, None).unwrap(),
        Copies::default(),
        tx,
        std::convert::identity,
    )
    // Whether ffmpeg is installed here or not: the frames have tests of their own.
    .with_ffmpeg(None, gendash::picture::video::Limits::default());
    Harness { worker, reports }
}

impl Harness {
    async fn ask(&mut self, kind: TaskKind, source: PreviewSource, area: Size) -> PreviewReport {
        self.worker.request(PreviewRequest {
            key: TaskKey::new(kind, "t"),
            source,
            area,
        });
        tokio::time::timeout(Duration::from_secs(20), self.reports.recv())
            .await
            .expect("the worker answers")
            .expect("the worker is alive")
    }

    async fn refused(&mut self, source: PreviewSource) -> String {
        let report = self.ask(TaskKind::Image, source, Size::new(20, 8)).await;
        let reason = report.result.expect_err("refused").to_string();
        assert!(
            !reason.contains('\n') && reason.chars().count() <= 160,
            "{reason}"
        );
        reason
    }
}

/// The kept files: not the download's scratch directory, whose removal nothing waits for.
fn cache_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|name| !name.starts_with('.'))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn a_picture_is_fetched_once_and_encoded_for_each_size() {
    let server = file_server(vec![("/files/a.png", Body::Bytes(quadrants(64, 48)))]).await;
    let home = tempfile::tempdir().unwrap();
    let cache = home.path().join("cache");
    let url = format!("{}/files/a.png", server.base);
    let mut h = harness(&cache, 10_000_000);
    for area in [Size::new(20, 8), Size::new(40, 12), Size::new(20, 8)] {
        let report = h
            .ask(TaskKind::Image, PreviewSource::Url(url.clone()), area)
            .await;
        assert_eq!(report.area, area);
        match report.result {
            Ok(Picture::Image(image)) => {
                assert_eq!(image.area(), area);
                assert_eq!(image.pixels(), (64, 48));
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(server.requests.lock().unwrap().len(), 1);
    // The one picture, and beside it where it came from.
    let mut kinds: Vec<String> = cache_files(&cache)
        .iter()
        .filter_map(|n| n.rsplit_once('.').map(|(_, e)| e.to_string()))
        .collect();
    kinds.sort();
    assert_eq!(kinds, ["etag", "img"], "{:?}", cache_files(&cache));

    // Another session: from the cache, without a request.
    let mut h = harness(&cache, 10_000_000);
    let report = h
        .ask(TaskKind::Image, PreviewSource::Url(url), Size::new(30, 10))
        .await;
    assert!(matches!(report.result, Ok(Picture::Image(_))));
    assert_eq!(server.requests.lock().unwrap().len(), 1);

    // A saved file is read where it is, and nothing is fetched.
    let saved = home.path().join("t.png");
    std::fs::write(&saved, quadrants(10, 10)).unwrap();
    let report = h
        .ask(
            TaskKind::Image,
            PreviewSource::File(saved),
            Size::new(30, 10),
        )
        .await;
    assert!(matches!(report.result, Ok(Picture::Image(i)) if i.pixels() == (10, 10)));
    assert_eq!(server.requests.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn broken_files_bombs_and_refused_links_give_one_line() {
    let mut corrupt = quadrants(32, 32);
    corrupt.truncate(corrupt.len() / 2);
    let server = file_server(vec![
        ("/files/corrupt.png", Body::Bytes(corrupt)),
        ("/files/bomb.png", Body::Bytes(bomb(100_000, 100_000))),
        (
            "/files/page.png",
            Body::Bytes(b"<html>502 Bad Gateway</html>".to_vec()),
        ),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let mut h = harness(&home.path().join("cache"), 10_000_000);
    let url = |p: &str| PreviewSource::Url(format!("{}/files/{p}", server.base));
    let reason = h.refused(url("corrupt.png")).await;
    assert!(reason.starts_with("the image cannot be read"), "{reason}");
    let reason = h.refused(url("bomb.png")).await;
    assert_eq!(
        reason,
        "the image is too large to preview (100000x100000 pixels; at most 12000 a side)"
    );
    let reason = h.refused(url("page.png")).await;
    assert_eq!(reason, "the file is not a PNG, JPEG or WebP image");
    // A refusal is kept: asking again at another size fetches nothing.
    let before = server.requests.lock().unwrap().len();
    let report = h
        .ask(TaskKind::Image, url("bomb.png"), Size::new(50, 20))
        .await;
    assert!(report.result.is_err());
    assert_eq!(server.requests.lock().unwrap().len(), before);

    // The same from a saved file.
    let saved = home.path().join("bomb.png");
    std::fs::write(&saved, bomb(100_000, 100_000)).unwrap();
    assert!(
        h.refused(PreviewSource::File(saved))
            .await
            .contains("100000x100000")
    );
    let reason = h
        .refused(PreviewSource::File(home.path().join("gone.png")))
        .await;
    assert!(reason.starts_with("cannot read"), "{reason}");

    // Only http(s) links are fetched, through the downloader's check.
    let reason = h
        .refused(PreviewSource::Url("file:///etc/passwd".into()))
        .await;
    assert!(reason.contains("http"), "{reason}");
    let reason = h
        .refused(PreviewSource::Url(format!("{}/nothing.png", server.base)))
        .await;
    assert!(reason.contains("404"), "{reason}");
}

#[tokio::test]
async fn files_over_20_mb_are_refused() {
    let server = file_server(vec![
        ("/files/announced.png", Body::Announced(25_000_000)),
        ("/files/endless.png", Body::Endless),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let cache = home.path().join("cache");
    let mut h = harness(&cache, 100_000_000);
    let url = |p: &str| PreviewSource::Url(format!("{}/files/{p}", server.base));
    let reason = h.refused(url("announced.png")).await;
    assert_eq!(
        reason,
        "the file is too large to preview (25 MB; at most 20 MB)"
    );
    let reason = h.refused(url("endless.png")).await;
    assert_eq!(reason, "the file is too large to preview (over 20 MB)");
    // Stopped near the cap, not at the end of the 64 MiB stream; nothing left behind.
    let written = server.written.load(Ordering::SeqCst);
    assert!(written < 60_000_000, "{written} bytes sent");
    let left = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let files = cache_files(&cache);
            if files.is_empty() {
                return files;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(left.is_ok(), "{:?}", cache_files(&cache));

    // A saved file over the cap is not read at all.
    let saved = home.path().join("big.png");
    std::fs::File::create(&saved)
        .unwrap()
        .set_len(20_000_001)
        .unwrap();
    let reason = h.refused(PreviewSource::File(saved)).await;
    assert_eq!(reason, "the file is too large to preview (over 20 MB)");
}

#[tokio::test]
async fn videos_show_their_size_without_downloading() {
    let server = file_server(vec![("/files/v.mp4", Body::Announced(30_000_000))]).await;
    let home = tempfile::tempdir().unwrap();
    let mut h = harness(&home.path().join("cache"), 100_000_000);
    let report = h
        .ask(
            TaskKind::Video,
            PreviewSource::Url(format!("{}/files/v.mp4", server.base)),
            Size::new(20, 8),
        )
        .await;
    assert!(
        matches!(
            report.result,
            Ok(Picture::Video(ref v)) if v.bytes == Some(30_000_000)
        ),
        "{report:?}"
    );
    let saved = home.path().join("v.mp4");
    std::fs::write(&saved, b"\x00\x00\x00\x18ftypmp42").unwrap();
    let report = h
        .ask(
            TaskKind::Video,
            PreviewSource::File(saved),
            Size::new(20, 8),
        )
        .await;
    assert!(
        matches!(report.result, Ok(Picture::Video(ref v)) if v.bytes == Some(12)),
        "{report:?}"
    );
}

fn config(home: &Path, text: &str) -> String {
    let path = home.join("gendash.toml");
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// Starts `--demo` with `image_preview = "auto"` on a TERM that calls for a question, and
/// returns, once the catalogue appeared and it quit, the bytes written and the log.
fn start_demo(answers: Answers, setting: &str) -> (Vec<u8>, String) {
    let home = tempfile::tempdir().unwrap();
    let cfg = config(home.path(), &format!("image_preview = \"{setting}\"\n"));
    let log = home.path().join("gendash.log");
    let log_text = log.to_string_lossy().into_owned();
    let env = [
        ("GENDASH_CONFIG", cfg.as_str()),
        ("GENDASH_LOG_FILE", log_text.as_str()),
        ("TERM", "xterm-256color"),
    ];
    let mut s = Session::spawn_answering(
        command(home.path(), &["-v", "--demo"], &env),
        120,
        36,
        answers,
    );
    s.wait_for("the first frame", Duration::from_secs(20), |t| {
        t.contains("320/320")
    });
    // The terminal is asked after the first frame: quit once it has answered (or not).
    let until = std::time::Instant::now() + Duration::from_secs(10);
    while !std::fs::read_to_string(&log).is_ok_and(|l| l.contains("image previews"))
        && std::time::Instant::now() < until
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
    let raw = s.raw();
    (raw, std::fs::read_to_string(&log).unwrap_or_default())
}

fn count(raw: &[u8], what: &[u8]) -> usize {
    raw.windows(what.len()).filter(|w| *w == what).count()
}

#[test]
fn a_terminal_that_never_answers_is_asked_once_and_the_first_frame_comes_anyway() {
    // One question, bounded at 200 ms, after the first frame (how soon the frame comes is
    // measured by `scripts/measure-cpu.py --scenario startup`).
    let (raw, log) = start_demo(Answers::Never, "auto");
    assert_eq!(count(&raw, b"\x1b[c"), 1, "device attributes asked once");
    assert_eq!(
        count(&raw, b"\x1b_G"),
        0,
        "no graphics question after no answer"
    );
    assert_eq!(count(&raw, b"\x1b[16t"), 0);
    assert!(
        log.contains("image previews: halfblocks (the terminal did not answer within 200 ms)"),
        "{log}"
    );
    // Off: no graphics question; the device attributes (for synchronized output and the
    // background colour) got no answer, so nothing more is asked.
    let (raw, log) = start_demo(Answers::Never, "off");
    assert_eq!(count(&raw, b"\x1b[c"), 1);
    assert_eq!(count(&raw, b"\x1b_G") + count(&raw, b"\x1b[16t"), 0);
    assert_eq!(count(&raw, b"\x1b[?2026$p") + count(&raw, b"\x1b]11;?"), 0);
    assert!(log.contains("image previews are off"), "{log}");
}

#[test]
fn a_sixel_terminal_is_recognised_and_its_replies_are_not_read_as_keys() {
    let (raw, log) = start_demo(Answers::Sixel, "auto");
    // Device attributes, then (sixel said, no kitty question) the cell size.
    assert_eq!(count(&raw, b"\x1b[c"), 2);
    assert_eq!(count(&raw, b"\x1b[16t"), 1);
    assert_eq!(count(&raw, b"\x1b_G"), 0);
    assert!(log.contains("image previews: sixel"), "{log}");
}

/// The browser's pictures wait for the selection to rest (`settling`): pictures asked for and
/// replaced within the wait (a filter being typed runs the selection through many entries)
/// are never fetched; the one the selection rests on is.
#[tokio::test]
async fn a_settling_worker_fetches_only_the_picture_the_selection_rests_on() {
    let server = file_server(vec![
        ("/files/a.png", Body::Bytes(quadrants(16, 16))),
        ("/files/b.png", Body::Bytes(quadrants(16, 16))),
        ("/files/c.png", Body::Bytes(quadrants(24, 16))),
    ])
    .await;
    let home = tempfile::tempdir().unwrap();
    let mut h = harness(&home.path().join("cache"), 10_000_000);
    h.worker = std::mem::replace(
        &mut h.worker,
        harness(&home.path().join("unused"), 1).worker,
    )
    .settling(Duration::from_millis(300));
    for name in ["a", "b"] {
        h.worker.request(PreviewRequest {
            key: TaskKey::new(TaskKind::Image, "t"),
            source: PreviewSource::Url(format!("{}/files/{name}.png", server.base)),
            area: Size::new(20, 8),
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let url = format!("{}/files/c.png", server.base);
    let report = h
        .ask(TaskKind::Image, PreviewSource::Url(url), Size::new(20, 8))
        .await;
    match report.result {
        Ok(Picture::Image(image)) => assert_eq!(image.pixels(), (24, 16)),
        other => panic!("{other:?}"),
    }
    let asked = server.requests.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "only the picture rested on: {asked:?}");
}
