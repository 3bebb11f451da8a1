//! The reference service's switches for measuring a client (`--latency`, `--capacity`), its
//! clock-driven tasks on an injected clock, its faulty IDs and its request counts, over real
//! loopback HTTP.

use crate::common::{self, TOKEN, service, service_with};
use gendash::api::Secret;
use gendash::server::pace::ManualClock;
use gendash::server::{Capacity, Options, Running};
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn http() -> reqwest::Client {
    let _ = common::client(&url::Url::parse("http://127.0.0.1/").unwrap());
    common::raw_http()
}

/// `POST ai/image_generation/ID` with the token: status, headers and body text.
async fn ask(svc: &Running, id: &str) -> (u16, reqwest::header::HeaderMap, String) {
    ask_with(&http(), svc, id).await
}

async fn ask_with(
    http: &reqwest::Client,
    svc: &Running,
    id: &str,
) -> (u16, reqwest::header::HeaderMap, String) {
    let r = http
        .post(
            svc.base_url()
                .join(&format!("ai/image_generation/{id}"))
                .unwrap(),
        )
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let headers = r.headers().clone();
    (status, headers, r.text().await.unwrap())
}

/// The task's `(status, percent)` as answered.
async fn progress(svc: &Running, id: &str) -> (String, u64) {
    let (code, _, body) = ask(svc, id).await;
    assert_eq!(code, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    let d = &v["data"]["data"];
    (
        d["status"].as_str().unwrap().to_string(),
        d["percent"].as_u64().unwrap(),
    )
}

fn with_clock(clock: &Arc<ManualClock>) -> Options {
    Options {
        clock: clock.clone(),
        ..Options::new(Secret::new(TOKEN))
    }
}

#[tokio::test]
async fn the_latency_switch_delays_every_answer_of_the_api() {
    let svc = service_with(Options {
        latency: Duration::from_millis(50),
        ..Options::new(Secret::new(TOKEN))
    })
    .await;
    // The client is made before the clock starts: only the answer is timed.
    let http = http();
    for id in ["hold-a", "no-such-task"] {
        let t = Instant::now();
        let (code, _, _) = ask_with(&http, &svc, id).await;
        assert_eq!(code, 200);
        assert!(
            t.elapsed() >= Duration::from_millis(50),
            "{id}: {:?}",
            t.elapsed()
        );
    }
    let t = Instant::now();
    let r = http
        .post(svc.base_url().join("lora/").unwrap())
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(
        t.elapsed() >= Duration::from_millis(50),
        "{:?}",
        t.elapsed()
    );
}

#[tokio::test]
async fn beyond_its_capacity_the_service_answers_429_with_retry_after() {
    let clock = Arc::new(ManualClock::new());
    let svc = service_with(Options {
        capacity: Some(Capacity::per_second(3)),
        ..with_clock(&clock)
    })
    .await;
    // The clock stands still: three requests in the second are served, the fourth refused.
    for _ in 0..3 {
        assert_eq!(ask(&svc, "hold-a").await.0, 200);
    }
    let (code, headers, body) = ask(&svc, "hold-a").await;
    assert_eq!(code, 429, "{body}");
    assert_eq!(headers["retry-after"], "1");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["status"], "failed");
    assert_eq!(v["errors"][0]["code"], "rate_limited");
    // The listing shares the limit.
    let r = http()
        .post(svc.base_url().join("lora/").unwrap())
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 429);
    // A third of a second refills one request, not two.
    clock.advance(Duration::from_millis(334));
    assert_eq!(ask(&svc, "hold-a").await.0, 200);
    assert_eq!(ask(&svc, "hold-a").await.0, 429);
    let stats = svc.stats();
    assert_eq!(stats["refused"], 3);
    assert_eq!(stats["by_status"]["429"], 3);
    assert_eq!(stats["tasks"]["hold-a"]["requests"], 6);
}

#[tokio::test]
async fn a_timed_task_follows_the_injected_clock_however_often_it_is_asked() {
    let clock = Arc::new(ManualClock::new());
    let svc = service_with(with_clock(&clock)).await;
    let id = "timed-10-render";
    assert_eq!(progress(&svc, id).await, ("IN_PROGRESS".into(), 0));
    for _ in 0..5 {
        assert_eq!(progress(&svc, id).await, ("IN_PROGRESS".into(), 0));
    }
    clock.advance(Duration::from_secs(4));
    assert_eq!(progress(&svc, id).await, ("IN_PROGRESS".into(), 40));
    clock.advance(Duration::from_millis(5_500));
    assert_eq!(progress(&svc, id).await, ("IN_PROGRESS".into(), 95));
    clock.advance(Duration::from_millis(1_500));
    let (_, _, body) = ask(&svc, id).await;
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["data"]["data"]["status"], "COMPLETED");
    assert_eq!(v["data"]["data"]["percent"], 100);
    assert!(
        v["data"]["data"]["url_download"]
            .as_str()
            .unwrap()
            .ends_with("/files/timed-10-render.png")
    );
    // The counts: when it finished on the service's clock, and when that was first answered.
    let t = &svc.stats()["tasks"][id];
    assert_eq!(t["requests"], 9);
    assert_eq!(t["finished_ms"], 10_000);
    assert_eq!(t["finished_answered_ms"], 11_000);
    assert_eq!(t["last_status"], "COMPLETED");

    // Queued first, then timed from when its queue time ended.
    let q = "queued-3-timed-2-y";
    assert_eq!(progress(&svc, q).await, ("QUEUED".into(), 0));
    clock.advance(Duration::from_secs(4));
    assert_eq!(progress(&svc, q).await, ("IN_PROGRESS".into(), 50));
}

#[tokio::test]
async fn faulty_ids_answer_as_documented_and_only_they() {
    let svc = service().await;
    let (code, headers, body) = ask(&svc, "http-502-x").await;
    assert_eq!(code, 502);
    assert_eq!(headers["content-type"], "text/html");
    assert!(body.contains("502 Bad Gateway"), "{body}");
    assert_eq!(ask(&svc, "http-503-y").await.0, 503);

    let (code, headers, body) = ask(&svc, "garbage-x").await;
    assert_eq!(code, 200);
    assert_eq!(headers["content-type"], "application/json");
    assert!(serde_json::from_str::<Value>(&body).is_err(), "{body}");

    let client = http();
    let t = Instant::now();
    let (code, _, body) = ask_with(&client, &svc, "slow-60-hold-x").await;
    assert!(
        t.elapsed() >= Duration::from_millis(60),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(code, 200);
    assert!(body.contains(r#""status":"IN_PROGRESS""#), "{body}");

    // An unknown ID is a lookup failure, as before; IDs near the faulty ones are just unknown.
    for id in ["no-such-task", "http-200-x", "http-x", "garbage"] {
        let (code, _, body) = ask(&svc, id).await;
        assert_eq!(code, 200, "{id}");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["data"]["is_success"], false, "{id}");
    }
    // No token: refused before any fault.
    let r = http()
        .post(
            svc.base_url()
                .join("ai/image_generation/http-502-x")
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let stats = svc.stats();
    assert_eq!(stats["by_status"]["502"], 1);
    assert_eq!(stats["tasks"]["garbage-x"]["requests"], 1);
}

#[tokio::test]
async fn the_stats_route_needs_the_token_and_counts_each_task() {
    let svc = service().await;
    for _ in 0..3 {
        ask(&svc, "hold-counted").await;
    }
    ask(&svc, "sim-1-other").await;
    let url = svc.base_url().join("_gendash/stats").unwrap();
    assert_eq!(http().get(url.clone()).send().await.unwrap().status(), 401);
    let v: Value = http()
        .get(url)
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["requests"], 4);
    assert_eq!(v["tasks"]["hold-counted"]["requests"], 3);
    assert_eq!(v["tasks"]["sim-1-other"]["requests"], 1);
    assert_eq!(v["tasks"]["sim-1-other"]["last_status"], "QUEUED");
}

#[test]
fn serve_names_a_bad_latency_or_capacity() {
    let home = tempfile::tempdir().unwrap();
    for (flag, bad) in [
        ("--latency", "50"),
        ("--latency", "5xs"),
        ("--capacity", "0"),
        ("--capacity", "lots"),
    ] {
        // Refused at once; should it start serving instead, it is stopped after 10 s.
        let mut child = common::gendash(home.path())
            .args(["serve", "--addr", "127.0.0.1:0", flag, bad])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() && started.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let out = child.wait_with_output().unwrap();
        assert!(!out.status.success(), "{flag} {bad} was taken");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("'{bad}'")) && stderr.contains(flag),
            "{stderr}"
        );
    }
}
