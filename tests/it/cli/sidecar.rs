//! `sidecar = true`: the provenance file `<file>.json` beside each saved file, by
//! `gendash download` and by the dashboard's automatic download, checked against what the
//! reference service served: the file's SHA-256 on disk, the download URL, the `ETag`, the
//! times; never the token; never beside an incomplete file.

use crate::common::{self, TOKEN};
use gendash::api::TaskKind;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn sha256_hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    Sha256::digest(bytes)
        .iter()
        .fold(String::new(), |mut s, b| {
            write!(s, "{b:02x}").unwrap();
            s
        })
}

/// Reads the sidecar of `file`, checking on the way that the token is nowhere in it.
fn sidecar_of(file: &Path) -> Value {
    let side = file.with_file_name(format!(
        "{}.json",
        file.file_name().unwrap().to_string_lossy()
    ));
    let text = std::fs::read_to_string(&side).unwrap();
    assert!(
        !text.contains(TOKEN),
        "the token is not in the sidecar: {text}"
    );
    assert!(!text.contains("SECRET"), "nor a part of it: {text}");
    serde_json::from_str(&text).unwrap()
}

/// A time pair of the sidecar: the RFC 3339 text says the same instant as the epoch number.
fn time_of(v: &Value, name: &str) -> u64 {
    let epoch = v["times"][format!("{name}_at_epoch")]
        .as_u64()
        .unwrap_or_else(|| panic!("{name}_at_epoch in {v}"));
    let text = v["times"][format!("{name}_at")].as_str().unwrap();
    let expected = time::OffsetDateTime::from_unix_timestamp(i64::try_from(epoch).unwrap())
        .unwrap()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    assert!(text.ends_with('Z'), "UTC: {text}");
    assert_eq!(text, expected);
    epoch
}

async fn download(home: &Path, base: &str, args: &[&str]) -> std::process::Output {
    let mut cmd = common::gendash_async(home);
    cmd.env("GENDASH_BASE_URL", base)
        .env("GENDASH_TOKEN", TOKEN)
        .env("GENDASH_TEST_RETRY_MS", "1")
        .args(["download", "-o", "out"])
        .args(args);
    tokio::time::timeout(Duration::from_secs(60), cmd.output())
        .await
        .unwrap()
        .unwrap()
}

#[tokio::test]
async fn gendash_download_writes_a_sidecar_that_matches_the_wire() {
    let svc = common::service().await;
    let base = svc.base_url().to_string();
    let home = tempfile::tempdir().unwrap();
    common::write_config(home.path(), "sidecar = true\n");
    let id = "demo-image-done";
    let before = now();
    common::gendash_ok(
        home.path(),
        &[
            "--base-url",
            &base,
            "watch",
            "add",
            "--label",
            "the cat",
            id,
        ],
    );
    let o = download(home.path(), &base, &[id]).await;
    assert!(o.status.success(), "{o:?}");
    let after = now();
    let out = home.path().join("out");
    assert_eq!(
        common::names_in(&out),
        [format!("{id}.png"), format!("{id}.png.json")],
        "the file and its sidecar, no temporary file left"
    );
    let file = out.join(format!("{id}.png"));
    let bytes = std::fs::read(&file).unwrap();
    assert_eq!(bytes, *gendash::server::SAMPLE_PNG);
    let v = sidecar_of(&file);
    assert_eq!(v["format"], 1);
    assert_eq!(v["task_id"], id);
    assert_eq!(v["kind"], "image");
    assert_eq!(v["label"], "the cat");
    assert_eq!(v["sha256"], sha256_hex(&bytes));
    assert_eq!(v["bytes"], bytes.len());
    assert_eq!(v["etag"], gendash::server::files::etag(&bytes));
    assert_eq!(v["service"]["base_url"], base.trim_end_matches('/'));
    assert_eq!(v["service"]["profile"], Value::Null);
    let served = common::client(&svc.base_url())
        .task_result(TaskKind::Image, id)
        .await
        .unwrap();
    assert_eq!(
        v["download_url"].as_str(),
        served.url_download.as_deref(),
        "the URL the service serves"
    );
    assert!(
        v["service_reported"]["total_time_by_second"].is_number(),
        "{v}"
    );
    assert!(v["service_reported"]["start_time"].is_string(), "{v}");
    assert!(v["service_reported"]["end_time"].is_string(), "{v}");
    for name in ["added", "saved"] {
        let t = time_of(&v, name);
        assert!(
            (before..=after).contains(&t),
            "{name} {t} in {before}..={after}"
        );
    }
    assert!(time_of(&v, "added") <= time_of(&v, "saved"));
    assert!(
        v["generator"]
            .as_str()
            .unwrap()
            .ends_with(env!("CARGO_PKG_VERSION"))
    );
}

/// A download cut short leaves its `.part` and no sidecar; the run that completes it writes
/// one whose hash is the whole file's.
#[tokio::test]
async fn an_incomplete_download_has_no_sidecar() {
    let svc = common::service().await;
    let base = svc.base_url().to_string();
    let home = tempfile::tempdir().unwrap();
    common::write_config(home.path(), "sidecar = true\n");
    let id = "sim-0-cut100x5-side";
    let o = download(home.path(), &base, &[id]).await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let out = home.path().join("out");
    let names = common::names_in(&out);
    assert!(names.contains(&format!("{id}.png.part")), "{names:?}");
    assert!(
        !names.iter().any(|n| n.contains(".json")),
        "no sidecar beside an incomplete file: {names:?}"
    );
    let o = download(home.path(), &base, &[id]).await;
    assert!(o.status.success(), "{o:?}");
    let file = out.join(format!("{id}.png"));
    let bytes = std::fs::read(&file).unwrap();
    let v = sidecar_of(&file);
    assert_eq!(v["sha256"], sha256_hex(&bytes));
    assert_eq!(v["bytes"], gendash::server::SAMPLE_PNG.len());
    assert_eq!(v["label"], Value::Null, "not on the watch list");
    assert_eq!(v["times"]["added_at"], Value::Null);
}

/// Off by default: no sidecar.
#[tokio::test]
async fn no_sidecar_unless_asked() {
    let svc = common::service().await;
    let home = tempfile::tempdir().unwrap();
    let o = download(home.path(), svc.base_url().as_str(), &["demo-image-done"]).await;
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        common::names_in(&home.path().join("out")),
        ["demo-image-done.png"]
    );
}

/// The dashboard's automatic download: the sidecar carries what the watch list knew (when the
/// task was added, its status history) and what the service's last answer reported.
#[test]
fn the_dashboards_automatic_download_writes_a_sidecar() {
    use common::pty::{Session, command};
    let id = "demo-image-done";
    let before = now();
    // No preview: the file comes from the service, not from the preview's copy (the test
    // after this one).
    let served = common::Served::with(
        &format!(
            "{}auto_download = true\nsidecar = true\nimage_preview = \"off\"\n",
            common::QUICK_TO_DL
        ),
        &[id],
    );
    let home = served.home.path();
    let env = served.env();
    let mut s = Session::spawn(command(home, &[], &env), 150, 40);
    let file = home.join(format!("dl/{id}.png"));
    let side = home.join(format!("dl/{id}.png.json"));
    s.wait_for("the file", Duration::from_secs(20), |t| {
        side.exists() && t.contains(&format!("saved {}", file.display()))
    });
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    let after = now();
    let bytes = std::fs::read(&file).unwrap();
    let v = sidecar_of(&file);
    assert_eq!(v["task_id"], id);
    assert_eq!(v["sha256"], sha256_hex(&bytes));
    assert_eq!(v["etag"], gendash::server::files::etag(&bytes));
    assert_eq!(v["service"]["base_url"], served.base.trim_end_matches('/'));
    let added = time_of(&v, "added");
    assert!((before..=after).contains(&added));
    assert!(time_of(&v, "finished") >= added);
    assert!(
        v["history"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["status"] == "COMPLETED"),
        "{v}"
    );
    assert!(
        v["service_reported"]["total_time_by_second"].is_number(),
        "{v}"
    );
}

/// A download copied from the preview's copy of the file (the picture was shown first, so the
/// service is not asked again) still tells its sidecar the `ETag` the service sent with it.
#[test]
fn a_download_copied_from_the_preview_keeps_the_etag_in_its_sidecar() {
    use common::pty::{Session, command};
    let id = "demo-image-done";
    let served = common::Served::with(&format!("{}sidecar = true\n", common::QUICK_TO_DL), &[id]);
    let home = served.home.path();
    let env = served.env();
    let mut s = Session::spawn(command(home, &[], &env), 150, 40);
    s.wait_row(id, "COMPLETED");
    // The watch pane's detail shows the picture: the preview fetches it into its cache.
    s.send("\t");
    let cached = || {
        common::files_under(home)
            .into_iter()
            .any(|p| p.extension().is_some_and(|e| e == "img"))
    };
    s.wait_for("the preview's copy", Duration::from_secs(20), |_| cached());
    s.send("D");
    let file = home.join(format!("dl/{id}.png"));
    s.wait_for("the file", Duration::from_secs(20), |t| {
        t.contains(&format!("saved {}", file.display()))
    });
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    let gets = served
        .svc
        .file_requests()
        .into_iter()
        .filter(|r| r.method == "GET")
        .count();
    assert_eq!(gets, 1, "the download was the preview's copy");
    let bytes = std::fs::read(&file).unwrap();
    let v = sidecar_of(&file);
    assert_eq!(v["sha256"], sha256_hex(&bytes));
    assert_eq!(v["etag"], gendash::server::files::etag(&bytes), "{v}");
}

/// A redirected picture shown first, then downloaded with the download key: the download is
/// the preview's copy (one GET on the wire), and its sidecar records where the redirect led,
/// not the URL asked for.
#[test]
fn a_download_copied_from_a_redirected_preview_records_the_final_url() {
    use crate::common::recorder::{Behind, in_front_of, recorder};
    use common::pty::{Session, command};
    let id = "demo-image-done";
    let mut served = common::Served::new();
    // The service's file URLs name `hop`, which redirects each to `away`: two other origins.
    let (away, hop, front) = served.rt.block_on(async {
        let away = in_front_of(served.svc.addr).await;
        let hop = recorder(Behind::Redirect(away.url())).await;
        let front = recorder(Behind::Service {
            addr: served.svc.addr,
            host: Some(hop.addr.to_string()),
        })
        .await;
        (away, hop, front)
    });
    served.base = front.base();
    served.config(&format!("{}sidecar = true\n", common::QUICK_TO_DL));
    served.watch_add(&[id]);
    let home = served.home.path();
    let env = served.env();
    let mut s = Session::spawn(command(home, &[], &env), 150, 40);
    s.wait_row(id, "COMPLETED");
    s.send("\t");
    let cached = || {
        common::files_under(home)
            .into_iter()
            .any(|p| p.extension().is_some_and(|e| e == "img"))
    };
    s.wait_for("the preview's copy", Duration::from_secs(20), |_| cached());
    s.send("D");
    let file = home.join(format!("dl/{id}.png"));
    s.wait_for("the file", Duration::from_secs(20), |t| {
        t.contains(&format!("saved {}", file.display()))
    });
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    let gets: Vec<String> = away
        .seen()
        .into_iter()
        .filter(|r| r.method == "GET")
        .map(|r| r.path)
        .collect();
    assert_eq!(
        gets.len(),
        1,
        "the download was the preview's copy: {gets:?}"
    );
    assert_eq!(hop.count(), 1, "{:?}", hop.seen());
    let v = sidecar_of(&file);
    assert_eq!(
        v["download_url"].as_str(),
        Some(format!("{}{}", away.base().trim_end_matches('/'), gets[0]).as_str()),
        "the final hop's URL: {v}"
    );
    assert_eq!(
        v["etag"],
        gendash::server::files::etag(&std::fs::read(&file).unwrap())
    );
}

/// A sidecar that cannot be written (a directory has its name) is said on stderr; the file
/// stays and the run succeeds.
#[tokio::test]
async fn a_sidecar_that_cannot_be_written_is_said_and_the_file_stays() {
    let svc = common::service().await;
    let home = tempfile::tempdir().unwrap();
    common::write_config(home.path(), "sidecar = true\n");
    let out = home.path().join("out");
    std::fs::create_dir_all(out.join("demo-image-done.png.json/occupied")).unwrap();
    let o = download(home.path(), svc.base_url().as_str(), &["demo-image-done"]).await;
    assert!(o.status.success(), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("demo-image-done.png.json") && err.contains("the file itself is saved"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(out.join("demo-image-done.png")).unwrap(),
        *gendash::server::SAMPLE_PNG
    );
    assert_eq!(
        common::names_in(&out),
        ["demo-image-done.png", "demo-image-done.png.json"],
        "no temporary file left behind"
    );
}

/// A file whose URL redirects to another origin: `gendash download` follows it without the
/// token (each hop's wire is seen), and the sidecar records where the bytes came from.
#[tokio::test]
async fn a_redirected_download_records_the_final_url_and_shows_no_token_away() {
    use crate::common::recorder::{Behind, in_front_of, recorder};
    let svc = common::service().await;
    // The service's file URLs name `hop`, which redirects each to `away`, in front of the
    // same service: two other origins.
    let away = in_front_of(svc.addr).await;
    let hop = recorder(Behind::Redirect(away.url())).await;
    let front = recorder(Behind::Service {
        addr: svc.addr,
        host: Some(hop.addr.to_string()),
    })
    .await;
    let home = tempfile::tempdir().unwrap();
    common::write_config(home.path(), "sidecar = true\n");
    let id = "demo-image-done";
    let o = download(home.path(), &front.base(), &[id]).await;
    assert!(o.status.success(), "{o:?}");
    let file = home.path().join("out").join(format!("{id}.png"));
    assert_eq!(std::fs::read(&file).unwrap(), *gendash::server::SAMPLE_PNG);
    let v = sidecar_of(&file);
    let url = v["download_url"].as_str().unwrap();
    assert!(url.starts_with(&away.base()), "the final hop's URL: {url}");
    let (hop_seen, away_seen) = (hop.seen(), away.seen());
    assert_eq!(hop_seen.len(), 1, "{hop_seen:?}");
    assert_eq!(away_seen.len(), 1, "{away_seen:?}");
    assert_eq!(
        url,
        format!("{}{}", away.base().trim_end_matches('/'), away_seen[0].path)
    );
    assert_eq!(
        hop.authorizations() + away.authorizations(),
        0,
        "no token away"
    );
    assert!(
        front.authorizations() > 0,
        "the service's own origin had it"
    );
}
