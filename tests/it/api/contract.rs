//! The client against the reference service and the fault server, over real loopback HTTP.

use crate::common;

use common::{
    Fault, TOKEN, client, client_with, fault_server, header, redirect, response, service,
    service_with,
};
use gendash::api::Secret;
use gendash::api::client::{CATALOGUE_CAP, CatalogueCap};
use gendash::api::download::{Downloader, file_name};
use gendash::api::{ApiError, LoraType, TaskKind};
use gendash::server::{Options, SAMPLE_MP4, SAMPLE_PNG, served_catalogue};
use std::time::{Duration, Instant};

mod download_tokens;
mod transport_faults;

#[tokio::test]
async fn lists_the_catalogue_with_each_filter() {
    let svc = service().await;
    let c = client(&svc.base_url());
    let all = c.list_loras(None, None).await.unwrap();
    assert_eq!(all.entries.len(), served_catalogue::embedded().len());
    assert_eq!(all.skipped, 0);
    assert!(
        all.entries
            .iter()
            .all(|e| e.source().is_some_and(|s| s.starts_with("https://")))
    );

    let sd = c.list_loras(Some(LoraType::Sd), None).await.unwrap();
    let sdxl = c.list_loras(Some(LoraType::Sdxl), None).await.unwrap();
    assert_eq!(sd.entries.len() + sdxl.entries.len(), all.entries.len());
    assert!(sd.entries.iter().all(|e| e.metadata()["type"] == "sd"));

    let style = c.list_loras(None, Some("style")).await.unwrap();
    assert!(
        !style.entries.is_empty()
            && style
                .entries
                .iter()
                .all(|e| e.metadata()["category"] == "style")
    );
    let both = c
        .list_loras(Some(LoraType::Sdxl), Some("style"))
        .await
        .unwrap();
    assert!(!both.entries.is_empty());
    assert!(
        both.entries
            .iter()
            .all(|e| e.metadata()["category"] == "style" && e.metadata()["type"] == "sdxl")
    );
    assert!(
        c.list_loras(None, Some("no-such-category"))
            .await
            .unwrap()
            .entries
            .is_empty()
    );
}

#[tokio::test]
async fn query_parameters_are_encoded_and_only_sent_when_set() {
    let body = r#"{"data": []}"#;
    let fs = fault_server(Fault::Raw(response("200 OK", "application/json", "", body))).await;
    let c = client(&fs.url());
    c.list_loras(None, None).await.unwrap();
    c.list_loras(Some(LoraType::Sd), Some("fan art & more/+?#"))
        .await
        .unwrap();
    c.list_loras(None, Some("")).await.unwrap();
    let reqs = fs.requests.lock().unwrap().clone();
    assert!(reqs[0].starts_with("POST /lora/ HTTP/1.1"), "{}", reqs[0]);
    assert!(
        reqs[1].starts_with("POST /lora/?type=sd&cate=fan+art+%26+more%2F%2B%3F%23 HTTP/1.1"),
        "{}",
        reqs[1]
    );
    assert!(reqs[2].starts_with("POST /lora/ HTTP/1.1"), "{}", reqs[2]);
    for r in &reqs {
        assert!(r.contains(&format!("authorization: Bearer {TOKEN}")), "{r}");
    }
}

#[tokio::test]
async fn categories_with_odd_characters_reach_the_service_intact() {
    let mut cat = served_catalogue::embedded();
    cat[0].cate = Some("fan art & more/+?#".into());
    let svc = service_with(Options {
        catalogue: cat.clone(),
        ..Options::new(Secret::new(TOKEN))
    })
    .await;
    let got = client(&svc.base_url())
        .list_loras(None, Some("fan art & more/+?#"))
        .await
        .unwrap();
    assert_eq!(got.entries.len(), 1);
    assert_eq!(got.entries[0].model(), cat[0].model);
}

#[tokio::test]
async fn base_url_with_a_path_prefix_with_or_without_slash() {
    let svc = service_with(Options {
        prefix: Some("/api/v1".into()),
        ..Options::new(Secret::new(TOKEN))
    })
    .await;
    for base in ["api/v1", "api/v1/"] {
        let c = client(&svc.base_url().join(base).unwrap());
        assert!(!c.list_loras(None, None).await.unwrap().entries.is_empty());
        let t = c
            .task_result(TaskKind::Image, "demo-image-done")
            .await
            .unwrap();
        assert_eq!(
            t.url_download.unwrap(),
            format!("{}api/v1/files/demo-image-done.png", svc.base_url())
        );
    }
    // Without the prefix the routes are not there: the error says the base URL's path looks
    // wrong and what was asked, never that a task is unknown.
    let wrong = client(&svc.base_url());
    let e = wrong
        .list_loras(Some(LoraType::Sd), None)
        .await
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "the base URL's path looks wrong: POST {}lora/ → 404: is the path prefix right?",
            svc.base_url()
        )
    );
    let e = wrong
        .task_result(TaskKind::Image, "demo-image-done")
        .await
        .unwrap_err();
    assert!(
        matches!(&e, ApiError::WrongPath { method: "POST", url, status: 404 }
            if *url == format!("{}ai/image_generation/demo-image-done", svc.base_url())),
        "{e:?}"
    );
    // With the prefix, an unknown task is still a failed lookup.
    let right = client(&svc.base_url().join("api/v1/").unwrap());
    let e = right
        .task_result(TaskKind::Image, "nope")
        .await
        .unwrap_err();
    assert!(matches!(e, ApiError::Lookup { .. }), "{e:?}");
}

/// The whole catalogue narrowed on this machine (what the dashboard shows offline from a
/// broader cached copy) lists exactly what the service lists for each type and category,
/// whatever the case of the category asked for.
#[tokio::test]
async fn the_whole_catalogue_narrowed_here_is_what_the_service_lists() {
    let svc = service().await;
    let c = client(&svc.base_url());
    let all = c.list_loras(None, None).await.unwrap();
    let names = |cat: &gendash::api::Catalogue| -> Vec<String> {
        cat.entries.iter().map(|e| e.model().to_string()).collect()
    };
    let mut categories: Vec<String> = all
        .entries
        .iter()
        .filter_map(|e| e.category().map(str::to_string))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert!(categories.len() >= 5);
    categories.push(categories[0].to_uppercase());
    categories.push("no-such-category".into());
    let mut checked = 0;
    for lora_type in [None, Some(LoraType::Sd), Some(LoraType::Sdxl)] {
        for cate in std::iter::once(None).chain(categories.iter().map(|c| Some(c.as_str()))) {
            let served = c.list_loras(lora_type, cate).await.unwrap();
            let here = all.clone().narrowed(lora_type, cate);
            assert_eq!(names(&here), names(&served), "{lora_type:?} {cate:?}");
            checked += usize::from(!served.entries.is_empty());
        }
    }
    assert!(checked > 10, "most keys list something: {checked}");
}

#[tokio::test]
async fn task_results_follow_the_envelope_and_move_to_completed() {
    let svc = service().await;
    let c = client(&svc.base_url());
    let first = c.task_result(TaskKind::Video, "sim-3-clip").await.unwrap();
    assert_eq!(
        (
            first.status.as_str(),
            first.percent,
            first.url_download.as_deref()
        ),
        ("QUEUED", 0, None)
    );
    assert_eq!(first.total_tasks, Some(1));
    assert_eq!(first.envelope.status.as_deref(), Some("success"));
    assert_eq!(
        first.envelope.host_of_client_call_request.as_deref(),
        Some("127.0.0.1")
    );
    let ts = first.envelope.start_time.clone().unwrap();
    assert_eq!(ts.len(), "2026-01-01 00:00:00.000000".len(), "{ts}");
    assert!(ts.as_bytes()[4] == b'-' && ts.as_bytes()[10] == b' ' && ts.as_bytes()[19] == b'.');
    assert!(first.envelope.total_time_by_second.unwrap() >= 0.0);
    let mut last = first;
    for _ in 0..3 {
        last = c.task_result(TaskKind::Video, "sim-3-clip").await.unwrap();
    }
    assert_eq!((last.status.as_str(), last.percent), ("COMPLETED", 100));
    let url = last.url_download.unwrap();
    assert!(url.ends_with("/files/sim-3-clip.mp4"), "{url}");

    let done = c
        .task_result(TaskKind::Image, "demo-image-done")
        .await
        .unwrap();
    assert!(done.url_download.unwrap().ends_with("demo-image-done.png"));
}

#[tokio::test]
async fn hostile_ids_never_change_the_route() {
    let svc = service().await;
    let c = client(&svc.base_url());
    for suffix in [
        "a/b",
        "a?b=c",
        "a#frag",
        "../../lora",
        "%2F..%2F",
        "with space",
        "50%",
        "x/../../y",
    ] {
        let id = format!("sim-1-{suffix}");
        let t = c.task_result(TaskKind::Image, &id).await.unwrap();
        assert_eq!(t.task_id, id, "the service saw a different ID");
        assert_eq!(t.status, "QUEUED");
    }
    // Unknown hostile IDs are unknown tasks, not other routes.
    let e = c
        .task_result(TaskKind::Image, "../../lora/")
        .await
        .unwrap_err();
    assert!(
        matches!(e, ApiError::Lookup { ref description } if description.contains("../../lora/")),
        "{e:?}"
    );
    assert!(matches!(
        c.task_result(TaskKind::Image, "..").await,
        Err(ApiError::Invalid(_))
    ));
}

#[tokio::test]
async fn every_error_class() {
    let svc = service().await;
    let good = client(&svc.base_url());
    let e = good
        .task_result(TaskKind::Image, "no-such-task")
        .await
        .unwrap_err();
    assert!(
        matches!(e, ApiError::Lookup { ref description } if description.contains("no-such-task"))
    );
    assert_eq!(
        gendash::cli::exit::for_api_error(&e),
        gendash::cli::exit::NOT_FOUND
    );
    let e = good
        .task_result(TaskKind::Image, "demo-video-done")
        .await
        .unwrap_err();
    assert!(matches!(e, ApiError::Lookup { .. }), "{e:?}");

    let bad = client_with(&svc.base_url(), "wrong", Duration::from_secs(5));
    let e = bad.list_loras(None, None).await.unwrap_err();
    assert!(matches!(e, ApiError::Auth { status: 401, .. }), "{e:?}");
    assert_eq!(
        gendash::cli::exit::for_api_error(&e),
        gendash::cli::exit::AUTH
    );
    assert!(!e.to_string().contains(TOKEN));

    // A port nobody listens on.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let e = client(&url::Url::parse(&format!("http://{closed}")).unwrap())
        .list_loras(None, None)
        .await
        .unwrap_err();
    assert!(matches!(e, ApiError::Connect { .. }), "{e:?}");
    assert!(
        e.to_string()
            .starts_with("cannot connect to http://127.0.0.1:"),
        "{e}"
    );
}

#[tokio::test]
async fn the_file_route_serves_real_files_without_a_token() {
    let svc = service().await;
    let c = client(&svc.base_url());
    let dir = tempfile::tempdir().unwrap();
    let dl = Downloader::new(None, None).unwrap();
    for (kind, id, bytes) in [
        (TaskKind::Image, "demo-image-done", SAMPLE_PNG.as_slice()),
        (TaskKind::Video, "demo-video-done", SAMPLE_MP4),
    ] {
        let t = c.task_result(kind, id).await.unwrap();
        let mut calls = 0;
        let mut progress = |_: u64, _: Option<u64>| calls += 1;
        let path = dl
            .fetch(
                &t.url_download.unwrap(),
                dir.path(),
                &file_name(id, kind),
                false,
                &mut progress,
            )
            .await
            .unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
        assert!(calls >= 2);
    }
    assert!(SAMPLE_PNG.starts_with(b"\x89PNG\r\n\x1a\n"));
    assert_eq!(&SAMPLE_MP4[4..8], b"ftyp");
    // Not-yet-finished or unknown tasks have no file.
    c.task_result(TaskKind::Image, "sim-5-x").await.unwrap();
    let mut noop = |_: u64, _: Option<u64>| {};
    let e = dl
        .fetch(
            &format!("{}files/sim-5-x.png", svc.base_url()),
            dir.path(),
            "s.png",
            false,
            &mut noop,
        )
        .await
        .unwrap_err();
    assert!(matches!(e, ApiError::Http { status: 404, .. }), "{e:?}");
}

#[tokio::test]
async fn downloads_refuse_overwrites_and_non_http_urls() {
    let svc = service().await;
    let dir = tempfile::tempdir().unwrap();
    let dl = Downloader::new(None, None).unwrap();
    let url = format!("{}files/demo-image-done.png", svc.base_url());
    let mut noop = |_: u64, _: Option<u64>| {};
    std::fs::write(dir.path().join("x.png"), b"mine").unwrap();
    let e = dl
        .fetch(&url, dir.path(), "x.png", false, &mut noop)
        .await
        .unwrap_err();
    assert!(e.to_string().contains("--force"), "{e}");
    assert_eq!(std::fs::read(dir.path().join("x.png")).unwrap(), b"mine");
    dl.fetch(&url, dir.path(), "x.png", true, &mut noop)
        .await
        .unwrap();
    assert_eq!(
        std::fs::read(dir.path().join("x.png")).unwrap(),
        *SAMPLE_PNG
    );
    for bad in [
        "file:///etc/passwd",
        "ftp://127.0.0.1/x",
        "javascript:alert(1)",
    ] {
        assert!(
            dl.fetch(bad, dir.path(), "y.png", true, &mut noop)
                .await
                .is_err()
        );
    }
    // No temporary files are left behind.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

// ---- the reference service, seen as raw HTTP ----------------------------------------------

#[tokio::test]
async fn the_reference_service_speaks_the_spec_on_the_wire() {
    let svc = service().await;
    let base = svc.base_url();
    let http = crate::common::raw_http();
    let bearer = format!("Bearer {TOKEN}");

    // The list response is {"data": [...]} and nothing else; entries are {model, metadata}.
    let v: serde_json::Value = http
        .post(base.join("lora/?type=sdxl").unwrap())
        .header("authorization", &bearer)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let obj = v.as_object().unwrap();
    assert_eq!(obj.keys().collect::<Vec<_>>(), ["data"]);
    for e in obj["data"].as_array().unwrap() {
        let mut keys: Vec<_> = e.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["metadata", "model"]);
        assert!(e["metadata"]["source"].is_string());
    }

    // No or a wrong token: 401 with a JSON body.
    for auth in [None, Some("Bearer nope"), Some("Basic abc")] {
        let mut req = http.post(base.join("ai/image_generation/demo-image-done").unwrap());
        if let Some(a) = auth {
            req = req.header("authorization", a);
        }
        let resp = req.send().await.unwrap();
        assert_eq!(resp.status(), 401);
        assert_eq!(resp.headers()["www-authenticate"], "Bearer");
        let body: serde_json::Value = resp.json().await.unwrap();
        assert!(!body["error_description"].as_str().unwrap().is_empty());
    }

    // Other methods than POST on the spec routes: 405.
    for path in ["lora/", "ai/image_generation/x", "ai/video_generation/x"] {
        for method in [
            reqwest::Method::GET,
            reqwest::Method::PUT,
            reqwest::Method::DELETE,
        ] {
            let resp = http
                .request(method.clone(), base.join(path).unwrap())
                .header("authorization", &bearer)
                .send()
                .await
                .unwrap();
            assert_eq!(resp.status(), 405, "{method} {path}");
        }
    }

    // The file route needs no token, and only serves completed tasks.
    let resp = http
        .get(base.join("files/demo-video-done.mp4").unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "video/mp4");
    assert_eq!(
        http.get(base.join("files/demo-video-done.png").unwrap())
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    assert_eq!(
        http.get(base.join("files/never-heard-of.png").unwrap())
            .send()
            .await
            .unwrap()
            .status(),
        404
    );

    // Unknown IDs: the envelope with is_success false and a description.
    let v: serde_json::Value = http
        .post(base.join("ai/video_generation/nope").unwrap())
        .header("authorization", &bearer)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["data"]["is_success"], false);
    assert!(!v["errors"].as_array().unwrap().is_empty());
    assert!(v["error_description"].as_str().unwrap().contains("nope"));
    assert!(v["start_time"].is_string() && v["host_of_client_call_request"] == "127.0.0.1");
}
