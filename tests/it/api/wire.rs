//! What crossed the wire, counted by a recording service in front of (or instead of) the
//! reference service: whom the token was shown to, the request bodies, and the promises of the
//! README that only the wire can check.

use crate::common::recorder::{Behind, Recorder, in_front_of, recorder};
use crate::common::{self, TOKEN};
use common::pty::{Session, command};
use gendash::api::Secret;
use gendash::server::{Options, Running, SAMPLE_PNG};
use std::time::Duration;

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

/// The services of the token test: the configured one (`front`, a recorder in front of the
/// reference service whose download URLs it points at `away`, another origin that reaches the
/// same service), a second configured one (`beta`, profile `beta`), and `stray`, a recorder
/// that answers nothing and was never configured.
struct Wires {
    _rt: tokio::runtime::Runtime,
    _svc: Running,
    beta: Running,
    front: Recorder,
    away: Recorder,
    stray: Recorder,
}

impl Wires {
    fn new() -> Self {
        let rt = tokio::runtime::Runtime::new().unwrap();
        let (svc, beta, away, stray) = rt.block_on(async {
            let svc = common::service().await;
            let beta = common::service_with(Options::new(Secret::new("token-beta"))).await;
            let away = in_front_of(svc.addr).await;
            (svc, beta, away, recorder(Behind::Nobody).await)
        });
        let front = rt.block_on(recorder(Behind::Service {
            addr: svc.addr,
            host: Some(away.addr.to_string()),
        }));
        Wires {
            _rt: rt,
            _svc: svc,
            beta,
            front,
            away,
            stray,
        }
    }
}

/// Previews on: a finished video's details ask its size with `HEAD` at the file's origin,
/// another one than the service's, and that `HEAD` carries no token, as the download's `GET`
/// carries none; the service's own origin is asked with it.
#[test]
fn a_video_preview_asks_its_size_at_another_origin_without_the_token() {
    let w = Wires::new();
    let home = tempfile::tempdir().unwrap();
    common::write_config(
        home.path(),
        &format!(
            "base_url = \"{}\"\ntoken = \"{TOKEN}\"\npoll_interval = 0.2\nbell = false\n\
             desktop_notifications = false\nimage_preview = \"halfblocks\"\n",
            w.front.base(),
        ),
    );
    let id = "demo-video-done";
    common::gendash_ok(home.path(), &["watch", "add", "--video", id]);
    let mut s = Session::spawn(command(home.path(), &[], &[]), 150, 40);
    s.wait_row(id, "COMPLETED");
    s.send("\t");
    s.wait_text(&gendash::fmt::human_bytes(
        gendash::server::SAMPLE_MP4.len() as u64,
    ));
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    let file = format!("/files/{id}.mp4");
    let away = w.away.seen();
    assert!(
        away.iter().any(|r| r.method == "HEAD" && r.path == file),
        "the size was asked at the file's origin: {away:?}"
    );
    assert_eq!(w.away.authorizations(), 0, "no token there: {away:?}");
    let front = w.front.seen();
    assert!(!front.is_empty());
    for r in &front {
        assert_eq!(
            r.header("authorization"),
            Some(bearer(TOKEN).as_str()),
            "{r:?}"
        );
    }
}

/// The dashboard polls a task at its configured service with that service's token; a task
/// saved for a service it has no configuration for is never asked about; a download URL on
/// another origin is fetched without the token. The recorders count the requests that reached
/// each and the `Authorization` headers among them. The request log then shows the polls of
/// both configured services and marks the download "sent without the token".
#[test]
fn a_token_is_never_sent_to_a_service_it_was_not_configured_for() {
    let w = Wires::new();
    let home = tempfile::tempdir().unwrap();
    common::write_config(
        home.path(),
        &format!(
            "base_url = \"{}\"\ntoken = \"{TOKEN}\"\npoll_interval = 0.2\nbell = false\n\
             desktop_notifications = false\nauto_download = true\ndownload_dir = \"~/dl\"\n\
             image_preview = \"halfblocks\"\n\n[profiles.beta]\nbase_url = \"{}\"\ntoken = \"token-beta\"\n",
            w.front.base(),
            w.beta.base_url()
        ),
    );
    common::gendash_ok(home.path(), &["watch", "add", "sim-1-mine"]);
    common::gendash_ok(
        home.path(),
        &["--profile", "beta", "watch", "add", "fail-1-beta"],
    );
    let stray = w.stray.base();
    common::gendash_ok(
        home.path(),
        &["--base-url", &stray, "watch", "add", "sim-1-stray"],
    );
    let (front_before, away_before, stray_before) =
        (w.front.count(), w.away.count(), w.stray.count());

    let mut s = Session::spawn(command(home.path(), &[], &[]), 150, 40);
    let saved = home.path().join("dl/sim-1-mine.png");
    s.wait_for(
        "the file saved, the other service's task failed",
        Duration::from_secs(30),
        |t| {
            saved.exists()
                && t.lines()
                    .any(|l| l.contains("fail-1-beta") && l.contains("FAILED"))
        },
    );
    assert_eq!(std::fs::read(&saved).unwrap(), *SAMPLE_PNG);

    // The configured service: asked, always with its token.
    let front = &w.front.seen()[front_before..];
    assert!(front.len() >= 2, "the catalogue and polls: {front:?}");
    for r in front {
        assert_eq!(
            r.header("authorization"),
            Some(bearer(TOKEN).as_str()),
            "{r:?}"
        );
    }
    // The other origin: the file was fetched there, never with a token.
    let away = &w.away.seen()[away_before..];
    assert!(
        away.iter()
            .any(|r| r.method == "GET" && r.path == "/files/sim-1-mine.png"),
        "the download went to the other origin: {away:?}"
    );
    assert_eq!(
        away.iter()
            .filter(|r| r.header("authorization").is_some())
            .count(),
        0,
        "no Authorization header at the other origin: {away:?}"
    );
    // The service nobody configured: never reached.
    assert_eq!(
        w.stray.count() - stray_before,
        0,
        "requests at an unconfigured service: {:?}",
        w.stray.seen()
    );
    assert_eq!(w.stray.authorizations(), 0);
    let screen = s.contents();
    assert!(
        screen
            .lines()
            .any(|l| l.contains("sim-1-stray") && l.contains("no service")),
        "{screen}"
    );

    // The request log: a poll of each configured service, and the download from the other
    // origin marked as sent without the token.
    s.send("L");
    s.wait_text("Requests · ");
    s.wait_text("/ai/image_generation/sim-1-mine");
    s.wait_text("/ai/image_generation/fail-1-beta");
    s.send("/");
    s.type_text("GET");
    s.send("\r");
    s.wait_text(&format!("GET {}files/sim-1-mine.png", w.away.base()));
    s.wait_text("sent without the token");
    s.send("\x1b");

    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    assert!(
        !String::from_utf8_lossy(&s.raw()).contains(TOKEN),
        "the token reached the terminal"
    );
}

/// The headers of a task lookup and of the catalogue, as the service receives them from the
/// real binary: the same for both, whichever client inside sent them (`api::direct`).
#[test]
fn a_lookup_and_the_catalogue_carry_the_same_headers() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let svc = rt.block_on(common::service());
    let front = rt.block_on(in_front_of(svc.addr));
    let home = tempfile::tempdir().unwrap();
    for args in [&["status", "demo-image-done"][..], &["models", "--json"]] {
        let out = common::gendash(home.path())
            .env("GENDASH_TOKEN", TOKEN)
            .args(["--base-url", &front.base()])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
    }
    let seen = front.seen();
    assert_eq!(seen.len(), 2, "{seen:?}");
    let mut told: Vec<Vec<(String, String)>> = Vec::new();
    for s in &seen {
        assert_eq!(s.method, "POST", "{s:?}");
        let mut headers: Vec<(String, String)> = s
            .headers
            .iter()
            .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
            .collect();
        headers.sort();
        told.push(headers);
    }
    let want = |name: &str| {
        told[0]
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(want("authorization"), Some(bearer(TOKEN)));
    assert_eq!(
        want("user-agent"),
        Some(format!("gendash/{}", env!("CARGO_PKG_VERSION")))
    );
    assert_eq!(want("accept"), Some("*/*".into()));
    assert_eq!(want("content-length"), Some("0".into()));
    assert_eq!(want("host"), Some(front.addr.to_string()));
    assert_eq!(told[0], told[1], "a lookup and the catalogue differ");
    assert_eq!(
        told[0].iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
        [
            "accept",
            "authorization",
            "content-length",
            "host",
            "user-agent"
        ]
    );
}

/// A proxy named in the environment (`HTTP_PROXY`, as curl and reqwest read it) carries the
/// lookups and the catalogue; `NO_PROXY` naming the service's host sends them straight.
#[test]
fn a_proxy_in_the_environment_carries_every_call() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let svc = rt.block_on(common::service());
    let home = tempfile::tempdir().unwrap();
    for no_proxy in [None, Some("127.0.0.1")] {
        let proxy = rt.block_on(in_front_of(svc.addr));
        for args in [&["status", "demo-image-done"][..], &["models", "--json"]] {
            let mut cmd = common::gendash(home.path());
            cmd.env("GENDASH_TOKEN", TOKEN)
                .env("HTTP_PROXY", proxy.base())
                .args(["--base-url", svc.base_url().as_str()])
                .args(args);
            if let Some(hosts) = no_proxy {
                cmd.env("NO_PROXY", hosts);
            }
            let out = cmd.output().unwrap();
            assert!(out.status.success(), "{args:?}: {out:?}");
        }
        let seen = proxy.seen();
        if no_proxy.is_some() {
            assert!(seen.is_empty(), "NO_PROXY names the service: {seen:?}");
            continue;
        }
        let targets: Vec<&str> = seen.iter().map(|s| s.path.as_str()).collect();
        let base = svc.base_url().to_string();
        assert_eq!(
            targets,
            [
                format!("{base}ai/image_generation/demo-image-done"),
                format!("{base}lora/"),
            ],
            "the proxy is asked for the service's URLs"
        );
        assert!(
            seen.iter()
                .all(|s| s.header("authorization") == Some(bearer(TOKEN).as_str()))
        );
    }
}
