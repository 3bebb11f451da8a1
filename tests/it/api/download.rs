//! The download engine against the reference service over loopback: resume after a dropped
//! connection at several offsets, a server that ignores `Range`, a body that stays short, a
//! `.part` file left by an interrupted run, and where files land (`download_dir`,
//! `download_template`, `-o`).

use crate::common::{self, Fault, TOKEN};
use gendash::api::Client;
use gendash::api::TaskKind;
use gendash::api::download::Downloader;
use gendash::server::SAMPLE_PNG;
use std::path::Path;
use std::time::Duration;

/// The task's URL once it completed (`sim-1-…` completes on its second lookup).
async fn completed_url(client: &Client, id: &str) -> String {
    for _ in 0..3 {
        let r = client.task_result(TaskKind::Image, id).await.unwrap();
        if r.status == "COMPLETED" {
            return r.url_download.unwrap();
        }
    }
    panic!("{id} did not complete")
}

fn downloader(client: &Client) -> Downloader {
    Downloader::for_service(client)
        .unwrap()
        .with_retry_base(Duration::from_millis(2))
}

#[tokio::test]
async fn a_dropped_connection_is_resumed_to_the_same_bytes() {
    let svc = common::service().await;
    let client = common::client(&svc.base_url());
    let dl = downloader(&client);
    let len = SAMPLE_PNG.len();
    let dir = tempfile::tempdir().unwrap();
    // Cut before the first byte, after one, in the middle, one short of the end; and once on a
    // server that answers a resume with the whole file (200), which starts again from zero.
    let cases = [
        ("sim-1-cut0-a".to_string(), 0),
        ("sim-1-cut1-b".to_string(), 1),
        (format!("sim-1-cut{}-c", len / 2), len / 2),
        (format!("sim-1-cut{}-d", len - 1), len - 1),
        (format!("sim-1-cut{}-norange-e", len / 3), len / 3),
    ];
    for (id, cut) in cases {
        let url = completed_url(&client, &id).await;
        let mut seen = Vec::new();
        let mut progress = |done: u64, total: Option<u64>| seen.push((done, total));
        let path = dl
            .fetch(&url, dir.path(), &format!("{id}.png"), false, &mut progress)
            .await
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(std::fs::read(&path).unwrap(), *SAMPLE_PNG, "{id}");
        assert!(!dir.path().join(format!("{id}.png.part")).exists(), "{id}");
        assert_eq!(seen.last(), Some(&(len as u64, Some(len as u64))), "{id}");
        let restarted = id.contains("norange");
        // A resume starts counting at what the part already held; a restart at zero.
        if cut > 0 && !restarted {
            assert!(
                seen.iter()
                    .skip(1)
                    .any(|(d, t)| *d as usize == cut && *t == Some(len as u64)),
                "{id}: resumed at {cut}: {seen:?}"
            );
        }
        if restarted {
            assert!(
                seen.iter().filter(|(d, _)| *d == 0).count() >= 2,
                "{id}: started again from zero: {seen:?}"
            );
        } else {
            resumed_on_the_wire(&svc, &id, cut, len);
        }
    }
}

/// What the service saw of `id`'s file: a first GET cut after `cut` bytes, then one GET that
/// asked for the rest (`Range: bytes=cut-`, the file's `ETag` in `If-Range`) and got it (206,
/// `len - cut` bytes). Cut before the first byte, there is nothing to continue: the second GET
/// asks for the whole file again (no `Range`, no `If-Range`) and gets all `len` bytes (200).
fn resumed_on_the_wire(svc: &gendash::server::Running, id: &str, cut: usize, len: usize) {
    let name = format!("{id}.png");
    let gets: Vec<_> = svc
        .file_requests()
        .into_iter()
        .filter(|r| r.name == name && r.method == "GET")
        .collect();
    assert_eq!(gets.len(), 2, "{id}: one cut, one resume: {gets:?}");
    let (first, second) = (&gets[0], &gets[1]);
    assert_eq!((first.range.as_deref(), first.status), (None, 200), "{id}");
    assert_eq!(first.bytes, cut as u64, "{id}: cut after {cut} bytes");
    if cut == 0 {
        assert_eq!(
            (second.range.as_deref(), second.if_range.as_deref()),
            (None, None),
            "{id}"
        );
        assert_eq!((second.status, second.bytes), (200, len as u64), "{id}");
        return;
    }
    assert_eq!(
        second.range.as_deref(),
        Some(format!("bytes={cut}-").as_str()),
        "{id}"
    );
    assert_eq!(
        second.if_range,
        Some(gendash::server::files::etag(&SAMPLE_PNG)),
        "{id}"
    );
    assert_eq!(
        (second.status, second.bytes),
        (206, (len - cut) as u64),
        "{id}: only the rest was sent"
    );
}

#[tokio::test]
async fn a_body_that_stays_short_is_never_renamed() {
    let fs = common::fault_server(Fault::ShortBody).await;
    let dir = tempfile::tempdir().unwrap();
    let dl = Downloader::new(None, None)
        .unwrap()
        .with_retry_base(Duration::from_millis(1));
    let url = format!("{}files/x.png", fs.url());
    let e = dl
        .fetch(&url, dir.path(), "x.png", false, &mut |_, _| {})
        .await
        .expect_err("never whole");
    assert!(e.to_string().contains("connection"), "{e}");
    assert!(
        !dir.path().join("x.png").exists(),
        "a short body keeps no final name"
    );
    assert!(
        dir.path().join("x.png.part").exists(),
        "what came is kept to resume"
    );
    assert_eq!(
        fs.requests.lock().unwrap().len(),
        gendash::api::download::ATTEMPTS as usize,
        "tried as often as promised, no more"
    );
}

fn write_part(dir: &Path, name: &str, bytes: &[u8], validator: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(format!("{name}.part")), bytes).unwrap();
    std::fs::write(dir.join(format!("{name}.part.validator")), validator).unwrap();
}

/// An interrupted `gendash download` left a `.part`: the next run asks for the rest only
/// (`If-Range` with the saved validator), so the part's bytes are kept as they are. When the
/// file changed since (another validator), the whole file comes again.
#[tokio::test]
async fn a_rerun_resumes_from_the_part_file() {
    let svc = common::service().await;
    let base = svc.base_url();
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("out");
    let etag = gendash::server::files::etag(&SAMPLE_PNG);
    // Marked bytes where the part is: they survive only if the run resumed after them.
    let marked = vec![b'#'; 100];
    write_part(&out, "demo-image-done.png", &marked, &etag);
    let run = |args: &[&str]| {
        let mut cmd = common::gendash_async(home.path());
        cmd.env("GENDASH_BASE_URL", base.as_str())
            .env("GENDASH_TOKEN", TOKEN)
            .args(args);
        async move { cmd.output().await.unwrap() }
    };
    let o = run(&["download", "-o", "out", "demo-image-done"]).await;
    assert!(o.status.success(), "{o:?}");
    let got = std::fs::read(out.join("demo-image-done.png")).unwrap();
    assert_eq!(&got[..100], &marked[..], "resumed after the part");
    assert_eq!(&got[100..], &SAMPLE_PNG[100..]);
    assert!(!out.join("demo-image-done.png.part").exists());
    assert!(!out.join("demo-image-done.png.part.validator").exists());

    write_part(&out, "demo-image-done.png", &marked, "\"an-older-file\"");
    let o = run(&["download", "--force", "-o", "out", "demo-image-done"]).await;
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        std::fs::read(out.join("demo-image-done.png")).unwrap(),
        *SAMPLE_PNG,
        "a changed file comes whole"
    );
}

/// `download_dir` (with `~`) and `download_template` (with sub-folders) place the file; the
/// full path is printed.
#[tokio::test]
async fn files_land_where_the_config_says() {
    let svc = common::service().await;
    let base = svc.base_url();
    let home = tempfile::tempdir().unwrap();
    common::write_config(
        home.path(),
        "download_dir = \"~/dl\"\ndownload_template = \"{kind}/{status}/{task_id}.{ext}\"\n",
    );
    let mut cmd = common::gendash_async(home.path());
    cmd.env("GENDASH_BASE_URL", base.as_str())
        .env("GENDASH_TOKEN", TOKEN)
        .args(["download", "demo-image-done"]);
    let o = cmd.output().await.unwrap();
    assert!(o.status.success(), "{o:?}");
    let saved = home.path().join("dl/image/COMPLETED/demo-image-done.png");
    assert_eq!(std::fs::read(&saved).unwrap(), *SAMPLE_PNG);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("{}\n", saved.display())
    );

    for (template, says) in [
        ("../{task_id}", "`..` component"),
        ("{id}.{ext}", "`{id}` is not a placeholder"),
        ("/tmp/{task_id}", "absolute"),
    ] {
        common::write_config(
            home.path(),
            &format!("bell = true\ndownload_template = \"{template}\"\n"),
        );
        let o = common::gendash(home.path())
            .args(["config", "show"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success() && err.contains("line 2") && err.contains(says),
            "{template}: {err}"
        );
    }
}

/// The dashboard with `auto_download`: a task's file is fetched when it completes and saved
/// with the watch list; after a restart it is not fetched again, a task that completed while
/// gendash was closed is fetched at start, and `D` on a file already there asks first.
#[test]
fn the_dashboard_downloads_once_and_asks_before_replacing() {
    use common::pty::{Session, command};
    let served = common::Served::with(
        "poll_interval = 0.2\nbell = false\ndesktop_notifications = false\n\
         auto_download = true\ndownload_dir = \"~/dl\"\n",
        &["sim-2-auto"],
    );
    let home = &served.home;
    let dl = home.path().join("dl");
    let env = served.env();
    let mut s = Session::spawn(command(home.path(), &[], &env), 150, 40);
    let first = dl.join("sim-2-auto.png");
    s.wait_for("the completed task's file", Duration::from_secs(20), |_| {
        first.exists()
    });
    s.wait_text("saved sim-2-auto.png");
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    assert_eq!(std::fs::read(&first).unwrap(), *SAMPLE_PNG);
    let list = std::fs::read_to_string(home.path().join("data/gendash/watchlist.json")).unwrap();
    assert!(list.contains(&first.display().to_string()), "{list}");

    // Closed: the file goes away, and a task completes meanwhile.
    std::fs::remove_file(&first).unwrap();
    served.watch_add(&["demo-image-done"]);
    let mut s = Session::spawn(command(home.path(), &[], &env), 150, 40);
    let second = dl.join("demo-image-done.png");
    s.wait_for(
        "the task that completed meanwhile",
        Duration::from_secs(20),
        |_| second.exists(),
    );
    s.wait_text("saved demo-image-done.png");
    assert!(!first.exists(), "a saved task is not fetched again");

    // D on it: the file is there, so the dashboard asks; y replaces it.
    std::fs::write(&second, b"older").unwrap();
    s.send("\t");
    s.send("G");
    s.send("D");
    s.wait_text(&format!("overwrite {}?", second.display()));
    s.send("y");
    s.wait_for("the file replaced", Duration::from_secs(10), |_| {
        std::fs::read(&second).is_ok_and(|b| b == *SAMPLE_PNG)
    });
    s.wait_text(&format!("saved {}", second.display()));
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
}

/// The file route's ranges as the spec of HTTP has them: 206 with `Content-Range`, 416 past
/// the end; a `.part` already whole (a run that died before its rename) is finished by a 416.
#[tokio::test]
async fn ranges_past_the_end_are_416_and_a_whole_part_is_finished() {
    let svc = common::service().await;
    let url = format!("{}files/demo-image-done.png", svc.base_url());
    let len = SAMPLE_PNG.len();
    let http = crate::common::raw_http();
    let r = ranged(&http, &url, "bytes=10-").await;
    assert_eq!(r.status(), 206);
    assert_eq!(
        r.headers()["content-range"],
        format!("bytes 10-{}/{len}", len - 1).as_str()
    );
    assert_eq!(r.bytes().await.unwrap(), SAMPLE_PNG[10..]);
    let r = ranged(&http, &url, format!("bytes={len}-")).await;
    assert_eq!(r.status(), 416);
    assert_eq!(
        r.headers()["content-range"],
        format!("bytes */{len}").as_str()
    );

    let dir = tempfile::tempdir().unwrap();
    write_part(
        dir.path(),
        "whole.png",
        &SAMPLE_PNG,
        &gendash::server::files::etag(&SAMPLE_PNG),
    );
    let client = common::client(&svc.base_url());
    let path = downloader(&client)
        .fetch(&url, dir.path(), "whole.png", false, &mut |_, _| {})
        .await
        .unwrap();
    assert_eq!(std::fs::read(path).unwrap(), *SAMPLE_PNG);
    assert!(!dir.path().join("whole.png.part").exists());
}

/// A response with `headers`, announcing `length` bytes and sending `body` (fewer bytes: the
/// connection drops early).
fn answer(status: &str, headers: &str, length: usize, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: image/png\r\nContent-Length: {length}\r\nConnection: close\r\n{headers}\r\n{body}"
    )
}

/// A file of `len` letters in which no stretch repeats at a short distance, so a misplaced
/// range cannot look right.
fn numbered(len: usize) -> String {
    (0..len)
        .map(|i| char::from(b'a' + ((i * 7 + i / 26) % 26) as u8))
        .collect()
}

/// A resume answered with another range than the one asked for (here from byte 100 when the
/// part holds 400) is not glued on: the part starts again, and the file comes out whole.
#[tokio::test]
async fn a_range_other_than_the_one_asked_for_starts_again() {
    let body = numbered(1000);
    let tag = "ETag: \"v1\"\r\n";
    let fs = common::fault_server(Fault::Sequence(vec![
        answer("200 OK", tag, 1000, &body[..400]),
        answer(
            "206 Partial Content",
            &format!("{tag}Content-Range: bytes 100-999/1000\r\n"),
            900,
            &body[100..],
        ),
        answer("200 OK", tag, 1000, &body),
    ]))
    .await;
    let dir = tempfile::tempdir().unwrap();
    let dl = Downloader::new(None, None)
        .unwrap()
        .with_retry_base(Duration::from_millis(1));
    let path = dl
        .fetch(
            &format!("{}files/x.png", fs.url()),
            dir.path(),
            "x.png",
            false,
            &mut |_, _| {},
        )
        .await
        .unwrap();
    assert_eq!(std::fs::read_to_string(path).unwrap(), body);
    let requests = fs.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 3, "{requests:?}");
    assert_eq!(common::header(&requests[1], "range"), Some("bytes=400-"));
    assert_eq!(common::header(&requests[1], "if-range"), Some("\"v1\""));
    assert_eq!(
        common::header(&requests[2], "range"),
        None,
        "the whole file again"
    );
}

/// A resume answered `206` with another `ETag` than the part's (a server that ignored
/// `If-Range`) sends the rest of another version: it is not glued on. The part starts over and
/// the file ends as the new version whole, never old bytes with new ones after them.
#[tokio::test]
async fn a_resume_answered_with_another_etag_starts_over() {
    let (old, new) = (numbered(1000), numbered(1000).to_uppercase());
    let dir = tempfile::tempdir().unwrap();
    write_part(dir.path(), "v.png", &old.as_bytes()[..400], "\"v1\"");
    let v2 = "ETag: \"v2\"\r\n";
    let fs = common::fault_server(Fault::Sequence(vec![
        answer(
            "206 Partial Content",
            &format!("{v2}Content-Range: bytes 400-999/1000\r\n"),
            600,
            &new[400..],
        ),
        answer("200 OK", v2, 1000, &new),
    ]))
    .await;
    let got = quick()
        .fetch_seen(
            &format!("{}files/v.png", fs.url()),
            dir.path(),
            "v.png",
            false,
            &mut |_, _| {},
        )
        .await
        .unwrap();
    assert_eq!(std::fs::read_to_string(&got.path).unwrap(), new);
    assert_eq!(got.etag.as_deref(), Some("\"v2\""));
    let requests = fs.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert_eq!(common::header(&requests[0], "range"), Some("bytes=400-"));
    assert_eq!(common::header(&requests[0], "if-range"), Some("\"v1\""));
    assert_eq!(
        common::header(&requests[1], "range"),
        None,
        "from the start"
    );
}

fn quick() -> Downloader {
    Downloader::new(None, None)
        .unwrap()
        .with_retry_base(Duration::from_millis(1))
}

/// A weak `ETag` never matches in `If-Range`, so a resume sends `Last-Modified` instead; a
/// 503 is tried again; a 404 is final and leaves no `.part` behind.
#[tokio::test]
async fn validators_statuses_and_what_is_left_behind() {
    let body = numbered(300);
    let date = "Last-Modified: Sun, 01 Nov 2026 12:00:00 GMT\r\n";
    let fs = common::fault_server(Fault::Sequence(vec![
        answer("503 Service Unavailable", "", 0, ""),
        answer(
            "200 OK",
            &format!("ETag: W/\"weak\"\r\n{date}"),
            300,
            &body[..120],
        ),
        answer(
            "206 Partial Content",
            &format!("ETag: W/\"weak\"\r\n{date}Content-Range: bytes 120-299/300\r\n"),
            180,
            &body[120..],
        ),
    ]))
    .await;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("{}files/w.png", fs.url());
    let path = quick()
        .fetch(&url, dir.path(), "w.png", false, &mut |_, _| {})
        .await
        .unwrap();
    assert_eq!(std::fs::read_to_string(path).unwrap(), body);
    let requests = fs.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 3, "{requests:?}");
    assert_eq!(common::header(&requests[2], "range"), Some("bytes=120-"));
    assert_eq!(
        common::header(&requests[2], "if-range"),
        Some("Sun, 01 Nov 2026 12:00:00 GMT")
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "neither part nor validator stays"
    );

    let gone = common::fault_server(Fault::Raw(common::response(
        "404 Not Found",
        "text/plain",
        "",
        "no such file",
    )))
    .await;
    let e = quick()
        .fetch(
            &format!("{}files/g.png", gone.url()),
            dir.path(),
            "g.png",
            false,
            &mut |_, _| {},
        )
        .await
        .unwrap_err();
    assert!(
        matches!(e, gendash::api::ApiError::Http { status: 404, .. }),
        "{e:?}"
    );
    assert_eq!(gone.requests.lock().unwrap().len(), 1, "a 404 is final");
    assert!(!dir.path().join("g.png.part").exists());
}

/// A file already there is `ApiError::Exists` (the dashboard asks, then passes `force`); the
/// same file fetched twice at once is refused to the second, whose bytes would interleave.
#[tokio::test]
async fn an_existing_file_and_a_second_download_at_once_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("x.png"), b"mine").unwrap();
    let svc = common::service().await;
    let url = format!("{}files/demo-image-done.png", svc.base_url());
    let e = quick()
        .fetch(&url, dir.path(), "x.png", false, &mut |_, _| {})
        .await
        .unwrap_err();
    assert_eq!(
        e,
        gendash::api::ApiError::Exists {
            path: dir.path().join("x.png")
        }
    );
    assert!(e.to_string().contains("--force"), "{e}");
    assert_eq!(std::fs::read(dir.path().join("x.png")).unwrap(), b"mine");

    let slow = common::fault_server(Fault::Trickle(Duration::from_millis(5))).await;
    let url = format!("{}files/s.png", slow.url());
    let (started_tx, started) = tokio::sync::oneshot::channel();
    let first = {
        let (url, dir) = (url.clone(), dir.path().to_path_buf());
        tokio::spawn(async move {
            let mut started_tx = Some(started_tx);
            let mut progress = move |done: u64, _: Option<u64>| {
                if done > 0
                    && let Some(tx) = started_tx.take()
                {
                    let _ = tx.send(());
                }
            };
            quick()
                .fetch(&url, &dir, "s.png", false, &mut progress)
                .await
        })
    };
    tokio::time::timeout(Duration::from_secs(10), started)
        .await
        .unwrap()
        .unwrap();
    let e = quick()
        .fetch(&url, dir.path(), "s.png", false, &mut |_, _| {})
        .await
        .unwrap_err();
    assert!(e.to_string().contains("being downloaded already"), "{e}");
    assert_eq!(
        slow.requests.lock().unwrap().len(),
        1,
        "the second asked nothing"
    );
    first.abort();
    let _ = first.await;
}

/// `gendash download -o OUT ARGS` in `home` against `svc`, retrying at once; its output, which
/// must come within a minute.
fn download_into(
    home: &Path,
    svc: &gendash::server::Running,
    out: &str,
    args: &[&str],
) -> impl Future<Output = std::process::Output> + use<> {
    let mut cmd = common::gendash_async(home);
    cmd.env("GENDASH_BASE_URL", svc.base_url().as_str())
        .env("GENDASH_TOKEN", TOKEN)
        .env("GENDASH_TEST_RETRY_MS", "1")
        .args(["download", "-o", out])
        .args(args);
    async move {
        tokio::time::timeout(Duration::from_secs(60), cmd.output())
            .await
            .unwrap()
            .unwrap()
    }
}

/// `gendash download` interrupted for real: the service drops the connection after 100 bytes
/// five times over, so the run gives up with 500 bytes in the `.part` and says so. The next
/// run asks only for the rest (`Range: bytes=500-` with the `ETag` in `If-Range`), as the
/// service's request log shows, and the file comes out byte for byte.
#[tokio::test]
async fn an_interrupted_download_command_resumes_when_run_again() {
    let svc = common::service().await;
    let home = tempfile::tempdir().unwrap();
    let id = "sim-0-cut100x5-again";
    let run = || download_into(home.path(), &svc, "new/dir", &[id]);
    let out = home.path().join("new/dir");
    let (part, saved) = (
        out.join(format!("{id}.png.part")),
        out.join(format!("{id}.png")),
    );

    let o = run().await;
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("the 500 bytes received are kept in") && err.contains("run again to resume"),
        "{err}"
    );
    assert!(!saved.exists(), "never renamed while short");
    assert_eq!(std::fs::read(&part).unwrap(), SAMPLE_PNG[..500]);
    let first = svc.file_requests();
    assert_eq!(first.len(), 5, "{first:?}");
    for (n, r) in first.iter().enumerate() {
        assert_eq!(r.bytes, 100, "{r:?}");
        let asked = (n > 0).then(|| format!("bytes={}-", n * 100));
        assert_eq!(r.range, asked, "{r:?}");
        assert_eq!(r.status, if n == 0 { 200 } else { 206 }, "{r:?}");
    }

    let o = run().await;
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("{}\n", saved.display()),
        "the full path, alone on stdout"
    );
    assert!(err.contains("resumed"), "{err}");
    assert_eq!(std::fs::read(&saved).unwrap(), *SAMPLE_PNG);
    assert!(!part.exists());
    let again = &svc.file_requests()[5..];
    assert_eq!(again.len(), 1, "{again:?}");
    assert_eq!(again[0].range.as_deref(), Some("bytes=500-"));
    assert_eq!(
        again[0].if_range,
        Some(gendash::server::files::etag(&SAMPLE_PNG))
    );
    assert_eq!(
        (again[0].status, again[0].bytes),
        (206, (SAMPLE_PNG.len() - 500) as u64),
        "only the rest was sent"
    );
}

/// HEAD answers the headers of GET without a body, and is not one of the requests a `-cut`
/// fault cuts; suffix ranges and malformed ones are answered as RFC 9110 has them.
#[tokio::test]
async fn head_suffix_ranges_and_the_request_log() {
    let svc = common::service().await;
    let client = common::client(&svc.base_url());
    let url = completed_url(&client, "sim-1-cut10-head").await;
    let len = SAMPLE_PNG.len();
    let http = crate::common::raw_http();
    let head = http.head(&url).send().await.unwrap();
    assert_eq!(head.status(), 200);
    assert_eq!(head.headers()["content-length"], len.to_string().as_str());
    assert_eq!(head.headers()["accept-ranges"], "bytes");
    assert!(head.headers().contains_key("etag") && head.headers().contains_key("last-modified"));
    // The GET after it is the one cut.
    let e = http.get(&url).send().await.unwrap().bytes().await;
    assert!(e.is_err(), "cut: {e:?}");
    let whole = http.get(&url).send().await.unwrap().bytes().await.unwrap();
    assert_eq!(whole, *SAMPLE_PNG);

    let r = ranged(&http, &url, "bytes=-16").await;
    assert_eq!(r.status(), 206);
    assert_eq!(
        r.headers()["content-range"],
        format!("bytes {}-{}/{len}", len - 16, len - 1).as_str()
    );
    assert_eq!(r.bytes().await.unwrap(), SAMPLE_PNG[len - 16..]);
    let r = ranged(&http, &url, "bytes=8-15").await;
    assert_eq!(r.status(), 206);
    assert_eq!(r.bytes().await.unwrap(), SAMPLE_PNG[8..16]);
    let r = ranged(&http, &url, "bytes=0-1,4-5").await;
    assert_eq!(r.status(), 200, "several ranges: the whole file");

    let log = svc.file_requests();
    let seen: Vec<_> = log
        .iter()
        .map(|r| (r.method.as_str(), r.range.as_deref(), r.status, r.bytes))
        .collect();
    let len = len as u64;
    assert_eq!(
        seen,
        [
            ("HEAD", None, 200, 0),
            ("GET", None, 200, 10),
            ("GET", None, 200, len),
            ("GET", Some("bytes=-16"), 206, 16),
            ("GET", Some("bytes=8-15"), 206, 8),
            ("GET", Some("bytes=0-1,4-5"), 200, len),
        ]
    );
}

/// A GET of `url` with `Range: range`, as a client asks for part of a file.
async fn ranged(http: &reqwest::Client, url: &str, range: impl AsRef<str>) -> reqwest::Response {
    http.get(url)
        .header("Range", range.as_ref())
        .send()
        .await
        .unwrap()
}

/// `A` on a task that is already completed, with a preview pane, polls going on and the
/// overwrite question asked afterwards: the service sees the file fetched once, and `n` to the
/// question leaves the row saying `saved …`.
#[test]
fn a_on_a_completed_task_fetches_once_and_n_keeps_the_saved_row() {
    use common::pty::{Session, command};
    let id = "sim-1-press-a";
    let served = common::Served::with(common::QUICK_TO_DL, &[id]);
    let (home, svc) = (&served.home, &served.svc);
    let dl = home.path().join("dl");
    let env = served.env();
    let mut s = Session::spawn(command(home.path(), &[], &env), 150, 40);
    s.wait_row(id, "COMPLETED");
    s.send("\t");
    s.send("A");
    let file = dl.join(format!("{id}.png"));
    s.wait_for("the file", Duration::from_secs(20), |t| {
        file.exists() && t.contains(&format!("saved {}", file.display()))
    });
    // More polls come and go: none of them fetches the file again.
    let polls = |svc: &gendash::server::Running| svc.file_requests().len();
    let before = polls(svc);
    s.send("R");
    s.wait_text(&format!("asking the service for {id} now"));
    s.send("D");
    s.wait_text(&format!("overwrite {}?", file.display()));
    s.send("n");
    s.wait_text(&format!("kept the file; {id} not downloaded"));
    s.wait_for("the row as it was", Duration::from_secs(5), |t| {
        t.lines()
            .any(|l| l.contains(id) && l.contains(&format!("saved {id}.png")))
    });
    let screen = s.contents();
    assert!(!screen.contains("download failed"), "{screen}");
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    assert_eq!(polls(svc), before, "nothing fetched after the save");
    let gets: Vec<_> = svc
        .file_requests()
        .into_iter()
        .filter(|r| r.method == "GET" && r.name == format!("{id}.png"))
        .collect();
    assert_eq!(gets.len(), 1, "one GET of the file: {gets:?}");
    assert_eq!(std::fs::read(&file).unwrap(), *SAMPLE_PNG);
}

/// `gendash download` for scripts: each saved path alone on stdout, one per line, nothing else
/// there (progress and notes go to stderr); `--json` one object per task, with its bytes and
/// whether a `.part` an earlier run left was resumed; a failed task is an object with its error.
#[tokio::test]
async fn download_prints_paths_on_stdout_and_json_per_task() {
    let svc = common::service().await;
    let home = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| download_into(home.path(), &svc, "out", args);
    let out = home.path().join("out");
    let o = run(&["sim-0-plain-a", "demo-image-done"]).await;
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!(
            "{}\n{}\n",
            out.join("sim-0-plain-a.png").display(),
            out.join("demo-image-done.png").display()
        )
    );

    // An interrupted run leaves a part; the JSON run resumes it.
    let cut = "sim-0-cut100x5-json";
    assert_eq!(run(&[cut]).await.status.code(), Some(1));
    let o = run(&["--json", cut, "sim-0-fresh-b", "fail-0-json-c"]).await;
    assert_eq!(o.status.code(), Some(5), "{o:?}");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let objects: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let len = SAMPLE_PNG.len();
    assert_eq!(
        objects,
        [
            serde_json::json!({
                "task_id": cut,
                "path": out.join(format!("{cut}.png")).display().to_string(),
                "bytes": len,
                "resumed": true,
            }),
            serde_json::json!({
                "task_id": "sim-0-fresh-b",
                "path": out.join("sim-0-fresh-b.png").display().to_string(),
                "bytes": len,
                "resumed": false,
            }),
            serde_json::json!({
                "task_id": "fail-0-json-c",
                "kind": "image",
                "error": "the task ended with status FAILED",
            }),
        ],
        "{stdout}"
    );
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("fail-0-json-c"),
        "the failure is said on stderr too"
    );
}

/// The same for a video: its preview (the size) asks with `HEAD`, so `A` is the one `GET`.
#[test]
fn a_on_a_completed_video_fetches_once() {
    use common::pty::{Session, command};
    let id = "demo-video-done";
    let served = common::Served::with(common::QUICK_TO_DL, &["--video", id]);
    let (home, svc) = (&served.home, &served.svc);
    let env = served.env();
    let mut s = Session::spawn(command(home.path(), &[], &env), 150, 40);
    s.wait_row(id, "COMPLETED");
    s.send("\t");
    // The details show the video's size before A is pressed.
    s.wait_text(&gendash::fmt::human_bytes(
        gendash::server::SAMPLE_MP4.len() as u64,
    ));
    s.send("A");
    let file = home.path().join(format!("dl/{id}.mp4"));
    s.wait_for("the file", Duration::from_secs(20), |t| {
        file.exists() && t.contains(&format!("saved {}", file.display()))
    });
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    let gets: Vec<_> = svc
        .file_requests()
        .into_iter()
        .filter(|r| r.method == "GET")
        .collect();
    assert_eq!(gets.len(), 1, "one GET of the file: {gets:?}");
    assert_eq!(std::fs::read(&file).unwrap(), gendash::server::SAMPLE_MP4);
}
