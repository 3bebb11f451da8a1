//! Transport faults: a server that never answers, trickles, truncates or resets, sends endless or oversized bodies, HTML, 429s and redirects; the catalogue's own cap.

use super::*;

async fn fault_error(fault: Fault, timeout: Duration) -> (ApiError, Duration, common::FaultServer) {
    let fs = fault_server(fault).await;
    let c = client_with(&fs.url(), TOKEN, timeout);
    let start = Instant::now();
    let e = c.task_result(TaskKind::Image, "t").await.unwrap_err();
    (e, start.elapsed(), fs)
}

#[tokio::test]
async fn a_server_that_never_answers_times_out() {
    // The server never answers: only the time-out can end the request, and says so.
    let (e, _, _fs) = fault_error(Fault::Hang, Duration::from_millis(800)).await;
    assert!(matches!(e, ApiError::Timeout { .. }), "{e:?}");
    assert_eq!(
        gendash::cli::exit::for_api_error(&e),
        gendash::cli::exit::TIMED_OUT
    );
}

#[tokio::test]
async fn a_trickling_server_is_cut_off() {
    // 200 bytes, one every 200 ms: a time-out per read would let the body finish (40 s, then
    // fail to decode); only the whole request's time-out ends it as a time-out.
    let (e, _, _fs) = fault_error(
        Fault::Trickle(Duration::from_millis(200)),
        Duration::from_secs(1),
    )
    .await;
    assert!(matches!(e, ApiError::Timeout { .. }), "{e:?}");
}

#[tokio::test]
async fn truncated_and_reset_connections_are_transport_errors() {
    let (e, _, _fs) = fault_error(Fault::ShortBody, Duration::from_secs(5)).await;
    assert!(matches!(e, ApiError::Transport { .. }), "{e:?}");
    let (e, _, _fs) = fault_error(Fault::Reset, Duration::from_secs(5)).await;
    assert!(
        matches!(e, ApiError::Transport { .. } | ApiError::Connect { .. }),
        "{e:?}"
    );
}

#[tokio::test]
async fn endless_and_oversized_bodies_stop_at_the_cap() {
    let (e, _, fs) = fault_error(Fault::Forever, Duration::from_secs(10)).await;
    assert_eq!(
        e,
        ApiError::TooLarge {
            limit: gendash::api::client::TASK_CAP,
            setting: None,
        }
    );
    // The client hung up long before the server's bound: only socket buffers' worth more.
    assert!(*fs.written.lock().unwrap() < 32 * 1024 * 1024);
    let head =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 999999999\r\n\r\n{";
    let (e, _, _fs) = fault_error(Fault::Raw(head.into()), Duration::from_secs(5)).await;
    assert_eq!(
        e,
        ApiError::TooLarge {
            limit: gendash::api::client::TASK_CAP,
            setting: None,
        }
    );
}

#[tokio::test]
async fn html_error_pages_and_html_labelled_json() {
    let page = "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>";
    let (e, _, _fs) = fault_error(
        Fault::Raw(response("502 Bad Gateway", "text/html", "", page)),
        Duration::from_secs(5),
    )
    .await;
    assert_eq!(
        e.to_string(),
        "HTTP 502: 502 Bad Gateway 502 Bad Gateway nginx"
    );
    assert!(e.is_retryable());
    let (e, _, _fs) = fault_error(
        Fault::Raw(response("200 OK", "application/json", "", page)),
        Duration::from_secs(5),
    )
    .await;
    assert!(matches!(e, ApiError::Decode { .. }), "{e:?}");
    assert!(
        e.to_string()
            .starts_with("response not understood: expected a task result envelope"),
        "{e}"
    );
}

#[tokio::test]
async fn too_many_requests_carries_retry_after_capped() {
    for (header, want) in [("7", 7u64), ("99999999", 300)] {
        let raw = response(
            "429 Too Many Requests",
            "application/json",
            &format!("Retry-After: {header}\r\n"),
            "{}",
        );
        let (e, _, _fs) = fault_error(Fault::Raw(raw), Duration::from_secs(5)).await;
        assert_eq!(e.retry_after(), Some(Duration::from_secs(want)), "{e:?}");
        assert!(e.is_retryable());
    }
    // An HTTP date, on a 429 and on a 503: the delay until then.
    for (status, code) in [
        ("429 Too Many Requests", 429),
        ("503 Service Unavailable", 503),
    ] {
        let date = httpdate::fmt_http_date(std::time::SystemTime::now() + Duration::from_secs(40));
        let raw = response(
            status,
            "text/plain",
            &format!("Retry-After: {date}\r\n"),
            "busy",
        );
        let (e, _, _fs) = fault_error(Fault::Raw(raw), Duration::from_secs(5)).await;
        let ApiError::Http {
            status: got_status,
            retry_after: Some(got),
            ..
        } = e
        else {
            panic!("{status}: no delay reported: {e:?}");
        };
        assert_eq!(got_status, code);
        assert!(
            got > Duration::from_secs(30) && got <= Duration::from_secs(40),
            "{status}: {got:?}"
        );
    }
    // Other 4xx are final.
    let raw = response("400 Bad Request", "text/plain", "", "no");
    let (e, _, _fs) = fault_error(Fault::Raw(raw), Duration::from_secs(5)).await;
    assert!(!e.is_retryable());
}

#[tokio::test]
async fn redirects_to_another_origin_are_not_followed_and_get_no_token() {
    let other = common::empty_catalogue_server().await;
    let raw = format!(
        "HTTP/1.1 307 Temporary Redirect\r\nLocation: {}lora/\r\nContent-Length: 0\r\n\r\n",
        other.url()
    );
    let first = fault_server(Fault::Raw(raw)).await;
    let e = client(&first.url())
        .list_loras(None, None)
        .await
        .unwrap_err();
    assert!(matches!(e, ApiError::CrossOriginRedirect { .. }), "{e:?}");
    assert!(
        other.requests.lock().unwrap().is_empty(),
        "the other origin was contacted"
    );
}

#[tokio::test]
async fn same_origin_redirects_are_followed_for_api_calls() {
    let catalogue =
        r#"{"data": [{"model": "moved_model", "metadata": {"source": "https://x.example/1"}}]}"#;
    for status in ["307 Temporary Redirect", "308 Permanent Redirect"] {
        let fs = fault_server(Fault::Routes(vec![
            ("/lora/".into(), redirect(status, "/moved/lora/")),
            (
                "/moved/lora/".into(),
                response("200 OK", "application/json", "", catalogue),
            ),
        ]))
        .await;
        let got = client(&fs.url()).list_loras(None, None).await.unwrap();
        assert_eq!(got.entries.len(), 1, "{status}");
        assert_eq!(got.entries[0].model(), "moved_model");
        let reqs = fs.requests.lock().unwrap().clone();
        assert_eq!(reqs.len(), 2, "{status}: {reqs:?}");
        assert!(reqs[0].starts_with("POST /lora/ HTTP/1.1"), "{}", reqs[0]);
        // Still a POST, and still this service: the token goes along.
        assert!(
            reqs[1].starts_with("POST /moved/lora/ HTTP/1.1"),
            "{}",
            reqs[1]
        );
        for r in &reqs {
            assert_eq!(
                header(r, "authorization"),
                Some(format!("Bearer {TOKEN}").as_str())
            );
        }
    }
}

#[tokio::test]
async fn same_origin_redirects_are_followed_five_times_at_most() {
    let fs = fault_server(Fault::Routes(vec![(
        "/lora/".into(),
        redirect("307 Temporary Redirect", "/lora/"),
    )]))
    .await;
    let e = client(&fs.url()).list_loras(None, None).await.unwrap_err();
    assert!(
        matches!(&e, ApiError::Invalid(m) if m.starts_with("redirect loop at http://127.0.0.1:")),
        "{e:?}"
    );
    assert_eq!(
        fs.requests.lock().unwrap().len(),
        6,
        "the request and five redirects"
    );
}

#[tokio::test]
async fn the_catalogue_stops_at_its_own_cap() {
    // An endless body: cut off at the catalogue's cap (a set one, 4 MiB: not the task result's
    // smaller one), long before the server's own bound.
    let cap = 4 * 1024 * 1024;
    let fs = fault_server(Fault::Forever).await;
    let e = client_with(&fs.url(), TOKEN, Duration::from_secs(60))
        .with_catalogue_cap(CatalogueCap {
            bytes: cap,
            setting: Some("max_catalogue_mib"),
        })
        .list_loras(None, None)
        .await
        .unwrap_err();
    assert_eq!(
        e,
        ApiError::TooLarge {
            limit: cap,
            setting: Some("max_catalogue_mib"),
        }
    );
    // Once the client hung up, the server's writes fail: wait (bounded) for the count to settle.
    let mut written = *fs.written.lock().unwrap();
    for _ in 0..40 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let now = *fs.written.lock().unwrap();
        if now == written {
            break;
        }
        written = now;
    }
    assert!(
        written >= cap / 2,
        "the client read the catalogue up to its cap: {written}"
    );
    assert!(
        written < cap + 32 * 1024 * 1024,
        "the client stopped reading at the cap, only socket buffers' worth more: {written}"
    );
    // An announced length over the default cap is refused before reading the body.
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{{",
        CATALOGUE_CAP + 1
    );
    let fs = fault_server(Fault::Raw(head)).await;
    let e = client(&fs.url()).list_loras(None, None).await.unwrap_err();
    assert_eq!(
        e,
        ApiError::TooLarge {
            limit: CATALOGUE_CAP,
            setting: None,
        }
    );
}
