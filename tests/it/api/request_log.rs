//! The request log as the API layer fills it, against the reference service over loopback:
//! one record per request with its status, size and timing, transport failures included, and
//! never the token (a canary token is looked for in every field).

use crate::common::{self, TOKEN};
use gendash::api::download::Downloader;
use gendash::api::recording::{RequestRecord, RequestSink};
use gendash::api::{Client, TaskKind};
use gendash::server::SAMPLE_PNG;
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn recording(client: Client) -> (Client, Arc<Mutex<Vec<RequestRecord>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let into = Arc::clone(&seen);
    let sink = RequestSink(Arc::new(move |r| into.lock().unwrap().push(r)));
    (client.with_requests(sink), seen)
}

fn assert_no_token(records: &[RequestRecord]) {
    for r in records {
        let all = format!("{r:?} {}", r.curl());
        assert!(!all.contains(TOKEN), "the token is in a record: {all}");
    }
}

#[tokio::test]
async fn every_request_is_recorded_with_its_answer_and_never_the_token() {
    let svc = common::service().await;
    let (client, seen) = recording(common::client(&svc.base_url()));

    let catalogue = client.list_loras(None, Some("style")).await.unwrap();
    assert!(!catalogue.entries.is_empty());
    client
        .task_result(TaskKind::Image, "sim-3-x")
        .await
        .unwrap();
    // A task the service does not know: answered, and recorded with its status.
    let missing = client.task_result(TaskKind::Video, "nope-unknown").await;
    assert!(missing.is_err());
    // The token itself as a task ID: scrubbed from the recorded URL.
    let _ = client.task_result(TaskKind::Image, TOKEN).await;

    let records = seen.lock().unwrap().clone();
    assert_eq!(records.len(), 4, "{records:#?}");
    let lora = &records[0];
    assert_eq!(lora.method, "POST");
    assert!(lora.url.ends_with("/lora/?cate=style"), "{}", lora.url);
    assert_eq!(lora.status, Some(200));
    assert!(lora.authorized && lora.error.is_none());
    assert!(
        lora.bytes > 100,
        "the catalogue's body is counted: {}",
        lora.bytes
    );
    assert!(lora.duration > Duration::ZERO);
    assert!(records[1].url.ends_with("/ai/image_generation/sim-3-x"));
    assert_eq!(records[1].status, Some(200));
    assert!(records[2].url.contains("/ai/video_generation/nope-unknown"));
    assert!(records[2].status.is_some());
    assert!(records[3].url.contains("<redacted>"), "{}", records[3].url);
    assert!(
        records[1].curl().starts_with(
            "curl -X POST -H \"Authorization: Bearer $GENDASH_TOKEN\" http://127.0.0.1:"
        )
    );
    assert_no_token(&records);
}

#[tokio::test]
async fn a_request_that_gets_no_answer_is_recorded_with_why() {
    // A port nothing listens on: the connection is refused.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let base = url::Url::parse(&format!("http://127.0.0.1:{port}/")).unwrap();
    let (client, seen) = recording(common::client(&base));
    assert!(client.task_result(TaskKind::Image, "t-1").await.is_err());
    let records = seen.lock().unwrap().clone();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].status, None);
    let error = records[0].error.as_deref().unwrap_or_default();
    assert!(error.contains("127.0.0.1"), "{error}");
    assert_no_token(&records);
}

#[tokio::test]
async fn downloads_are_recorded_as_gets_with_every_byte() {
    let svc = common::service().await;
    let (client, seen) = recording(common::client(&svc.base_url()));
    let dl = Downloader::for_service(&client)
        .unwrap()
        .with_retry_base(Duration::from_millis(2));
    // `sim-1-…` completes on its second lookup.
    let mut url = None;
    for _ in 0..3 {
        let r = client
            .task_result(TaskKind::Image, "sim-1-log")
            .await
            .unwrap();
        if r.status == "COMPLETED" {
            url = r.url_download;
            break;
        }
    }
    let url = url.expect("a completed task has a URL");
    let dir = tempfile::tempdir().unwrap();
    dl.fetch(&url, dir.path(), "x.png", false, &mut |_, _| {})
        .await
        .unwrap();
    let records = seen.lock().unwrap().clone();
    let get = records.iter().find(|r| r.method == "GET").expect("the GET");
    assert_eq!(get.status, Some(200));
    assert_eq!(get.bytes, SAMPLE_PNG.len() as u64);
    assert_no_token(&records);
}
