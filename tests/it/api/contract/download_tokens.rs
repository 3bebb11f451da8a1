//! Downloads: whom the token is shown to, and which redirects are followed.

use super::*;

fn file_response(body: &str) -> String {
    response("200 OK", "image/png", "", body)
}

#[tokio::test]
async fn downloads_present_the_token_to_the_service_origin_only() {
    let own = fault_server(Fault::Raw(file_response("own-bytes"))).await;
    // Same host, another port: another origin.
    let other = fault_server(Fault::Raw(file_response("other-bytes"))).await;
    assert_ne!(own.url().origin(), other.url().origin());
    let dir = tempfile::tempdir().unwrap();
    let mut noop = |_: u64, _: Option<u64>| {};
    let downloaders = [
        Downloader::new(Some(&own.url()), Some(Secret::new(TOKEN))).unwrap(),
        Downloader::for_service(&client(&own.url())).unwrap(),
    ];
    for dl in &downloaders {
        let url = own.url().join("files/a.png").unwrap();
        let path = dl
            .fetch(url.as_str(), dir.path(), "a.png", true, &mut noop)
            .await
            .unwrap();
        assert_eq!(std::fs::read(path).unwrap(), b"own-bytes");
        let url = other.url().join("files/b.png").unwrap();
        let path = dl
            .fetch(url.as_str(), dir.path(), "b.png", true, &mut noop)
            .await
            .unwrap();
        assert_eq!(std::fs::read(path).unwrap(), b"other-bytes");
    }
    let own_reqs = own.requests.lock().unwrap().clone();
    assert_eq!(own_reqs.len(), 2, "{own_reqs:?}");
    for r in &own_reqs {
        assert!(r.starts_with("GET /files/a.png HTTP/1.1"), "{r}");
        assert_eq!(
            header(r, "authorization"),
            Some(format!("Bearer {TOKEN}").as_str()),
            "the service's own origin gets the token: {r}"
        );
    }
    let other_reqs = other.requests.lock().unwrap().clone();
    assert_eq!(other_reqs.len(), 2, "{other_reqs:?}");
    for r in &other_reqs {
        assert!(r.starts_with("GET /files/b.png HTTP/1.1"), "{r}");
        assert_eq!(header(r, "authorization"), None, "{r}");
        assert!(!r.contains(TOKEN), "{r}");
    }
}

/// A download follows redirects as curl and browsers do: within the service's origin with the
/// token, to another origin without it (seen on the other server's wire), and the file and its
/// reported URL are the final hop's.
#[tokio::test]
async fn downloads_follow_redirects_and_the_token_stays_home() {
    let other = fault_server(Fault::Raw(file_response("other-bytes"))).await;
    let away = format!("{}files/x.png", other.url());
    let own = fault_server(Fault::Routes(vec![
        (
            "/files/moved.png".into(),
            redirect("302 Found", "/files/here.png"),
        ),
        ("/files/here.png".into(), file_response("own-bytes")),
        ("/files/away.png".into(), redirect("302 Found", &away)),
    ]))
    .await;
    let dl = Downloader::new(Some(&own.url()), Some(Secret::new(TOKEN))).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut noop = |_: u64, _: Option<u64>| {};

    let url = own.url().join("files/moved.png").unwrap();
    let got = dl
        .fetch_seen(url.as_str(), dir.path(), "moved.png", false, &mut noop)
        .await
        .unwrap();
    assert_eq!(std::fs::read(&got.path).unwrap(), b"own-bytes");
    assert_eq!(got.url, own.url().join("files/here.png").unwrap());

    let url = own.url().join("files/away.png").unwrap();
    let got = dl
        .fetch_seen(url.as_str(), dir.path(), "away.png", false, &mut noop)
        .await
        .unwrap();
    assert_eq!(std::fs::read(&got.path).unwrap(), b"other-bytes");
    assert_eq!(
        got.url.as_str(),
        away,
        "the final URL, not the one asked for"
    );
    // A HEAD (a video preview's size) goes the same way.
    dl.announced_length(url.as_str()).await.unwrap();

    let reqs = own.requests.lock().unwrap().clone();
    assert_eq!(reqs.len(), 4, "{reqs:?}");
    for r in &reqs {
        assert_eq!(
            header(r, "authorization"),
            Some(format!("Bearer {TOKEN}").as_str()),
            "the service's own origin: {r}"
        );
    }
    let reqs = other.requests.lock().unwrap().clone();
    assert_eq!(reqs.len(), 2, "{reqs:?}");
    assert!(
        reqs[0].starts_with("GET /files/x.png HTTP/1.1"),
        "{}",
        reqs[0]
    );
    assert!(
        reqs[1].starts_with("HEAD /files/x.png HTTP/1.1"),
        "{}",
        reqs[1]
    );
    for r in &reqs {
        assert_eq!(header(r, "authorization"), None, "another origin: {r}");
        assert!(!r.contains(TOKEN), "{r}");
    }
    assert_eq!(
        crate::common::names_in(dir.path()),
        ["away.png", "moved.png"]
    );
}

/// Ten redirects are followed, the eleventh is refused with a clear error, and no file, whole
/// or partial, is left behind.
#[tokio::test]
async fn downloads_follow_ten_redirects_at_most() {
    let hops = |n: usize| {
        let mut routes: Vec<(String, String)> = (0..n)
            .map(|i| {
                (
                    format!("/h{i}"),
                    redirect("307 Temporary Redirect", &format!("/h{}", i + 1)),
                )
            })
            .collect();
        routes.push((format!("/h{n}"), file_response("end")));
        routes
    };
    let dir = tempfile::tempdir().unwrap();
    let mut noop = |_: u64, _: Option<u64>| {};
    let ten = fault_server(Fault::Routes(hops(10))).await;
    let dl = Downloader::new(Some(&ten.url()), Some(Secret::new(TOKEN))).unwrap();
    let got = dl
        .fetch_seen(
            ten.url().join("h0").unwrap().as_str(),
            dir.path(),
            "ten",
            false,
            &mut noop,
        )
        .await
        .unwrap();
    assert_eq!(std::fs::read(&got.path).unwrap(), b"end");
    assert_eq!(got.url.path(), "/h10");
    assert_eq!(ten.requests.lock().unwrap().len(), 11);

    let eleven = fault_server(Fault::Routes(hops(11))).await;
    let dl = Downloader::new(Some(&eleven.url()), Some(Secret::new(TOKEN))).unwrap();
    let e = dl
        .fetch(
            eleven.url().join("h0").unwrap().as_str(),
            dir.path(),
            "eleven",
            false,
            &mut noop,
        )
        .await
        .unwrap_err();
    let origin = eleven.url().origin().ascii_serialization();
    assert_eq!(
        e,
        ApiError::Invalid(format!("more than 10 redirects from {origin}; gave up"))
    );
    let reqs = eleven.requests.lock().unwrap().clone();
    assert_eq!(reqs.len(), 11, "asked once and followed ten: {reqs:?}");
    assert!(!reqs.iter().any(|r| r.starts_with("GET /h11 ")), "{reqs:?}");
    assert_eq!(
        crate::common::names_in(dir.path()),
        ["ten"],
        "nothing kept of the refused one"
    );
}
