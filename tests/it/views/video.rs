//! A finished video's poster frame: made by a fake `ffmpeg` (CI has no real one) that checks
//! how it is run and writes a known PNG; from the saved file, or from a ranged request of the
//! URL (the reference service's log and a loopback server's count say how much went over the
//! wire); drawn with its duration and size under it. A slow ffmpeg is stopped with what it
//! started, a failing one's last line is shown sanitised, and without ffmpeg the preview says
//! to install it.

use gendash::api::TaskKind;
use gendash::api::download::Downloader;
use gendash::cmd::{PreviewRequest, PreviewSource, TaskKey};
use gendash::msg::PreviewReport;
use gendash::picture::video::{
    Ffmpeg, Frame, Limits, Source, VideoFrameError, VideoPreview, poster_frame,
};
use gendash::picture::{Graphics, Picture, PreviewView};
use gendash::store::cache::ImageCache;
use gendash::workers::{copies::Copies, previewer};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Size;
use ratatui::style::Color;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

/// A fake ffmpeg in `dir`: asked about its input (no output named), it reports a 2-second
/// video as ffmpeg does, on stderr, and exits 1; asked for a frame, it writes each argument
/// on a line of `argv` and `frame.png` to stdout. Each run adds a line to `runs`.
fn fake_ffmpeg(dir: &Path) -> Ffmpeg {
    std::fs::write(dir.join("frame.png"), gendash::testing::quadrants(64, 36)).unwrap();
    let d = dir.display();
    script(
        dir,
        &format!(
            r#"echo run >> "{d}/runs"
case " $* " in
  *" image2pipe "*)
    for a in "$@"; do echo "$a"; done > "{d}/argv"
    cat "{d}/frame.png" ;;
  *)
    echo "Input #0, mov,mp4,m4a,3gp,3g2,mj2, from 'x':" >&2
    echo "  Duration: 00:00:02.00, start: 0.000000, bitrate: 15 kb/s" >&2
    echo "At least one output file must be specified" >&2
    exit 1 ;;
esac"#
        ),
    )
}

/// `body` as an executable `ffmpeg` script in `dir`.
fn script(dir: &Path, body: &str) -> Ffmpeg {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("ffmpeg");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    Ffmpeg::at(path)
}

fn runs(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("runs")).map_or(0, |r| r.lines().count())
}

fn argv(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("argv"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn sample_file(dir: &Path) -> PathBuf {
    let file = dir.join("clip.mp4");
    std::fs::write(&file, gendash::server::SAMPLE_MP4).unwrap();
    file
}

struct Harness {
    worker: previewer::Handle<PreviewReport>,
    reports: mpsc::Receiver<PreviewReport>,
}

fn harness(cache: &Path, downloader: Downloader, ffmpeg: Option<Ffmpeg>) -> Harness {
    let (tx, reports) = mpsc::channel(16);
    let worker = previewer::spawn(
        Graphics::halfblocks(),
        ImageCache::new(cache.to_path_buf(), 10_000_000),
        downloader,
        Copies::default(),
        tx,
        std::convert::identity,
    )
    .with_ffmpeg(ffmpeg, Limits::default());
    Harness { worker, reports }
}

impl Harness {
    async fn ask(&mut self, source: PreviewSource, area: Size) -> VideoPreview {
        self.worker.request(PreviewRequest {
            key: TaskKey::new(TaskKind::Video, "v"),
            source,
            area,
        });
        let report = tokio::time::timeout(Duration::from_secs(30), self.reports.recv())
            .await
            .expect("the worker answers")
            .expect("the worker is alive");
        assert_eq!(report.area, area);
        match report.result {
            Ok(Picture::Video(video)) => video,
            other => panic!("{other:?}"),
        }
    }
}

fn drawn(width: u16, height: u16, video: VideoPreview) -> Terminal<TestBackend> {
    let view = PreviewView::Ready(Picture::Video(video));
    let mut t = Terminal::new(TestBackend::new(width, height)).unwrap();
    t.draw(|f| gendash::ui::preview_slot::render(f, f.area(), &view))
        .unwrap();
    t
}

fn row(t: &Terminal<TestBackend>, y: u16) -> String {
    let buf = t.backend().buffer();
    (0..buf.area.width)
        .map(|x| buf[(x, y)].symbol())
        .collect::<String>()
        .trim_end()
        .to_string()
}

/// A saved video: ffmpeg is asked for its duration, then for the frame 10 % in (0.2 s of 2 s)
/// as a PNG on stdout; the frame is drawn with the video's facts on the line under it. A new
/// size is a new encoding of the frame kept, not another run of ffmpeg.
#[tokio::test]
async fn a_saved_video_shows_a_frame_with_its_duration_and_size() {
    let home = tempfile::tempdir().unwrap();
    let ffmpeg = fake_ffmpeg(home.path());
    let file = sample_file(home.path());
    let mut h = harness(
        &home.path().join("cache"),
        Downloader::new(None, None).unwrap(),
        Some(ffmpeg.clone()),
    );
    let area = Size::new(32, 9);
    let video = h.ask(PreviewSource::File(file.clone()), area).await;
    assert_eq!(runs(home.path()), 2, "the duration, then the frame");
    let file_text = file.display().to_string();
    assert_eq!(
        argv(home.path()),
        [
            "-hide_banner",
            "-nostdin",
            "-loglevel",
            "error",
            "-ss",
            "0.200",
            "-i",
            file_text.as_str(),
            "-frames:v",
            "1",
            "-an",
            "-vf",
            "scale='min(1280,iw)':-2",
            "-f",
            "image2pipe",
            "-c:v",
            "png",
            "-",
        ]
    );
    assert_eq!(video.bytes, Some(gendash::server::SAMPLE_MP4.len() as u64));
    assert_eq!(video.duration, Some(Duration::from_secs(2)));
    let Frame::Shown {
        image,
        at,
        area: made_for,
    } = &video.frame
    else {
        panic!("{:?}", video.frame)
    };
    assert_eq!((*at, *made_for), (Duration::from_millis(200), area));
    // 64x36 pixels in 10x20 cells, in the 32x8 cells above the caption: 32x9 half-blocks...
    // limited by the height, 8 rows.
    assert_eq!(image.area(), Size::new(32, 8));
    let covers = image.covers();
    let t = drawn(32, 9, video.clone());
    let buf = t.backend().buffer();
    // Scaled, a colour may be off by a step.
    let near = |x: u16, y: u16, want: [u8; 3]| match buf[(x, y)].fg {
        Color::Rgb(red, green, blue) => [red, green, blue]
            .iter()
            .zip(want)
            .all(|(got, w)| got.abs_diff(w) <= 2),
        _ => false,
    };
    assert!(near(1, 1, [255, 0, 0]), "the red quadrant");
    assert!(
        near(covers.width - 2, covers.height - 1, [255, 255, 0]),
        "the yellow one"
    );
    assert_eq!(
        row(&t, covers.height),
        "video · 2.0 s · 3.9 kB · frame …",
        "the caption right under the frame, cut to the width"
    );
    let t = drawn(60, 9, video);
    assert_eq!(
        row(&t, covers.height).trim_start(),
        "video · 2.0 s · 3.9 kB · frame at 0.2 s"
    );

    // Another size: encoded again from the frame kept.
    let video = h.ask(PreviewSource::File(file), Size::new(20, 6)).await;
    assert!(matches!(video.frame, Frame::Shown { .. }));
    assert_eq!(runs(home.path()), 2, "ffmpeg ran once per file");
}

/// A video at the reference service's URL, not saved: its first bytes are asked for with a
/// `Range`, which the service answers (206) with the whole 3.9 kB sample; nothing else of the
/// file is fetched.
#[tokio::test]
async fn a_video_not_saved_is_previewed_from_a_ranged_request() {
    let svc = crate::common::service().await;
    let client = crate::common::client(&svc.base_url());
    let id = "sim-0-clip";
    let r = client.task_result(TaskKind::Video, id).await.unwrap();
    let url = r.url_download.expect("sim-0 is done at its first lookup");
    let home = tempfile::tempdir().unwrap();
    let mut h = harness(
        &home.path().join("cache"),
        Downloader::for_service(&client).unwrap(),
        Some(fake_ffmpeg(home.path())),
    );
    let video = h.ask(PreviewSource::Url(url), Size::new(30, 10)).await;
    assert!(matches!(video.frame, Frame::Shown { .. }), "{video:?}");
    let len = gendash::server::SAMPLE_MP4.len() as u64;
    assert_eq!(video.bytes, Some(len));
    let wire: Vec<_> = svc
        .file_requests()
        .into_iter()
        .map(|r| (r.name, r.method, r.range, r.status, r.bytes))
        .collect();
    assert_eq!(
        wire,
        [(
            format!("{id}.mp4"),
            "GET".to_string(),
            Some("bytes=0-4194303".to_string()),
            206,
            len
        )]
    );
    // The frame was made from all of it: 10 % in.
    assert!(argv(home.path()).windows(2).any(|w| w == ["-ss", "0.200"]));
}

/// A 64 MiB video on a server that honours ranges, and one that ignores them (200, the whole
/// file): at most a little over the 4 MiB asked for goes over the wire, and the frame is taken
/// within what arrived (2 s x 4/64 / 2 = 0.0625 s, written 0.062), not 10 % in.
#[tokio::test]
async fn a_large_video_costs_only_its_first_megabytes() {
    const LEN: u64 = 64 * 1024 * 1024;
    for honours in [true, false] {
        let (base, sent, ranges) = big_file_server(LEN, honours).await;
        let home = tempfile::tempdir().unwrap();
        let mut h = harness(
            &home.path().join("cache"),
            Downloader::new(None, None).unwrap(),
            Some(fake_ffmpeg(home.path())),
        );
        let video = h
            .ask(
                PreviewSource::Url(format!("{base}/big.mp4")),
                Size::new(30, 10),
            )
            .await;
        assert!(matches!(video.frame, Frame::Shown { .. }), "{video:?}");
        assert_eq!(video.bytes, Some(LEN), "the size the server announced");
        assert_eq!(
            ranges.lock().unwrap().as_slice(),
            [Some("bytes=0-4194303".to_string())]
        );
        let sent = sent.load(Ordering::SeqCst);
        if honours {
            assert_eq!(sent, previewer::VIDEO_HEAD_BYTES);
        } else {
            // What the socket buffers took before the connection was dropped.
            assert!(sent < 16 * 1024 * 1024, "{sent} bytes sent of {LEN}");
        }
        assert!(
            argv(home.path()).windows(2).any(|w| w == ["-ss", "0.062"]),
            "{:?}",
            argv(home.path())
        );
    }
}

/// Serves `/big.mp4`, `len` bytes of zeros (the fake ffmpeg reads none of them), answering a
/// `Range` with 206 when it `honours` ranges, else the whole file with 200. Returns its base
/// URL, the body bytes written, and the `Range` headers asked.
async fn big_file_server(
    len: u64,
    honours: bool,
) -> (
    String,
    Arc<AtomicU64>,
    Arc<std::sync::Mutex<Vec<Option<String>>>>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let sent = Arc::new(AtomicU64::new(0));
    let ranges = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (count, seen) = (sent.clone(), ranges.clone());
    tokio::spawn(async move {
        for _ in 0..4 {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let head = crate::common::read_head(&mut stream).await;
            let range = crate::common::header(&head, "range").map(str::to_string);
            seen.lock().unwrap().push(range.clone());
            let last = range
                .as_deref()
                .and_then(|r| r.strip_prefix("bytes=0-"))
                .and_then(|l| l.parse::<u64>().ok())
                .filter(|_| honours);
            let (status, body_len, extra) = match last {
                Some(last) => (
                    "206 Partial Content",
                    last + 1,
                    format!("Content-Range: bytes 0-{last}/{len}\r\n"),
                ),
                None => ("200 OK", len, String::new()),
            };
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Type: video/mp4\r\nContent-Length: {body_len}\r\n{extra}Connection: close\r\n\r\n"
            );
            if stream.write_all(head.as_bytes()).await.is_err() {
                continue;
            }
            let zeros = vec![0u8; 64 * 1024];
            let mut written = 0u64;
            while written < body_len {
                let n = zeros
                    .len()
                    .min(usize::try_from(body_len - written).unwrap());
                if stream.write_all(&zeros[..n]).await.is_err() {
                    break;
                }
                written += n as u64;
                count.fetch_add(n as u64, Ordering::SeqCst);
            }
            let _ = stream.shutdown().await;
        }
    });
    (base, sent, ranges)
}

/// Without ffmpeg: the size from a `HEAD` (no byte of the file), and the preview says to
/// install ffmpeg, as `gendash doctor` does.
#[tokio::test]
async fn without_ffmpeg_the_preview_says_to_install_it() {
    let svc = crate::common::service().await;
    let client = crate::common::client(&svc.base_url());
    let id = "sim-0-noff";
    let r = client.task_result(TaskKind::Video, id).await.unwrap();
    let url = r.url_download.expect("sim-0 is done at its first lookup");
    let home = tempfile::tempdir().unwrap();
    let mut h = harness(
        &home.path().join("cache"),
        Downloader::for_service(&client).unwrap(),
        None,
    );
    let video = h.ask(PreviewSource::Url(url), Size::new(90, 10)).await;
    let methods: Vec<_> = svc.file_requests().into_iter().map(|r| r.method).collect();
    assert_eq!(methods, ["HEAD"]);
    let t = drawn(90, 3, video);
    assert_eq!(
        row(&t, 0),
        format!(
            "video · 3.9 kB: no ffmpeg on PATH: {}",
            gendash::store::program::INSTALL_FFMPEG
        )
    );
}

/// An ffmpeg that never ends, and starts a program that would outlive it: both are stopped at
/// the time limit and the error says so.
#[tokio::test]
async fn a_slow_ffmpeg_is_stopped_with_what_it_started() {
    let home = tempfile::tempdir().unwrap();
    let pid_file = home.path().join("child.pid");
    let ffmpeg = script(
        home.path(),
        &format!("sleep 60 &\necho $! > \"{}\"\nwait", pid_file.display()),
    );
    let file = sample_file(home.path());
    let limits = Limits {
        timeout: Duration::from_secs(1),
        ..Limits::default()
    };
    let started = std::time::Instant::now();
    let source = Source {
        file: &file,
        whole: None,
    };
    let Err(e) = poster_frame(Some(&ffmpeg), source, &limits).await else {
        panic!("a frame from a program that never ends")
    };
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(e, VideoFrameError::TooSlow(Duration::from_secs(1)));
    assert_eq!(e.to_string(), "ffmpeg took longer than 1s and was stopped");
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let stat = format!("/proc/{}/stat", pid.trim());
    let mut gone = false;
    for _ in 0..100 {
        // Gone, or a zombie waiting for init to reap it.
        gone = std::fs::read_to_string(&stat).map_or(true, |s| {
            s.rsplit(')')
                .next()
                .is_some_and(|r| r.trim_start().starts_with('Z'))
        });
        if gone {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(gone, "the sleep ffmpeg started was killed with it");
}

/// An ffmpeg that fails: its last line on stderr is the reason, without its escape sequences,
/// the file's path put as "the video".
#[tokio::test]
async fn a_failing_ffmpeg_says_its_last_line() {
    let home = tempfile::tempdir().unwrap();
    let ffmpeg = script(
        home.path(),
        r#"for last in "$@"; do :; done
echo "ffmpeg version 7" >&2
printf '%s: Invalid data found \033[31mwhen processing input\033]0;owned\007\n' "$last" >&2
exit 1"#,
    );
    let file = sample_file(home.path());
    let source = Source {
        file: &file,
        whole: None,
    };
    let Err(e) = poster_frame(Some(&ffmpeg), source, &Limits::default()).await else {
        panic!("a frame from a failing ffmpeg")
    };
    assert_eq!(
        e.to_string(),
        "ffmpeg failed: the video: Invalid data found when processing input"
    );
}

/// The first bytes of a video whose index (`moov`) is at its end: ffmpeg cannot open them, and
/// the preview says why in words (the whole file would have a frame); a whole file's failure
/// is ffmpeg's own last line.
#[tokio::test]
async fn a_partial_file_without_its_index_says_so() {
    let home = tempfile::tempdir().unwrap();
    let ffmpeg = script(
        home.path(),
        r#"echo "[mov,mp4,m4a,3gp,3g2,mj2 @ 0x55] moov atom not found" >&2
echo "Error opening input files: Invalid data found when processing input" >&2
exit 1"#,
    );
    let file = sample_file(home.path());
    let partial = Source {
        file: &file,
        whole: Some(10_000_000),
    };
    let Err(e) = poster_frame(Some(&ffmpeg), partial, &Limits::default()).await else {
        panic!("a frame without an index")
    };
    assert_eq!(e, VideoFrameError::IndexAtEnd);
    assert_eq!(
        e.to_string(),
        "the video's index is at its end, not in the part fetched: save it to see a frame"
    );
    let whole = Source {
        file: &file,
        whole: None,
    };
    let Err(e) = poster_frame(Some(&ffmpeg), whole, &Limits::default()).await else {
        panic!("a frame without an index")
    };
    assert_eq!(
        e.to_string(),
        "ffmpeg failed: Error opening input files: Invalid data found when processing input"
    );
}
