//! The lane ([`super::super::direct`]) against reqwest, on the same faults over loopback: the
//! same answers and the same errors, word for word.

use super::*;
use std::time::Instant;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const LIMIT: Duration = Duration::from_millis(600);

/// How a test server answers each request it reads.
#[derive(Clone, Copy, Debug)]
enum Fault {
    /// Nothing listens on the port.
    Refused,
    /// The connection is reset once the request is read.
    Reset,
    /// A head promising 100 bytes, then 10 and the end of the connection.
    ShortBody,
    /// The request is read and never answered.
    Hang,
    /// The head at once, then the body a byte every 200 ms (past the whole request's limit).
    Trickle,
    /// Every request redirected to the path it asked (307).
    Loop,
    /// The head asks for 10 bytes and the body is there.
    Fine,
}

/// A server on loopback answering every request as `fault` says; its address.
async fn server(fault: Fault) -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    if matches!(fault, Fault::Refused) {
        return addr; // dropped: the port refuses
    }
    tokio::spawn(async move {
        // Bounded: each test makes a few connections.
        for _ in 0..64 {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                let mut read = 0;
                while !buf[..read].windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf[read..]).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => read += n,
                    }
                }
                let path = String::from_utf8_lossy(&buf[..read])
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or("/")
                    .to_string();
                let text = match fault {
                    Fault::Refused => unreachable!("nothing listens"),
                    Fault::Reset => {
                        let std = stream.into_std().expect("std stream");
                        socket2::SockRef::from(&std)
                            .set_linger(Some(Duration::ZERO))
                            .expect("linger");
                        return; // dropped with linger 0: a reset
                    }
                    Fault::Hang => {
                        tokio::time::sleep(Duration::from_secs(30)).await;
                        return;
                    }
                    Fault::Trickle => {
                        let head = "HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n";
                        let _ = stream.write_all(head.as_bytes()).await;
                        for _ in 0..50 {
                            tokio::time::sleep(Duration::from_millis(200)).await;
                            if stream.write_all(b"x").await.is_err() {
                                return;
                            }
                        }
                        return;
                    }
                    Fault::ShortBody => {
                        "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789".into()
                    }
                    Fault::Loop => format!(
                        "HTTP/1.1 307 Temporary Redirect\r\nLocation: {path}\r\nContent-Length: 0\r\n\r\n"
                    ),
                    Fault::Fine => {
                        "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nX-Seen: yes\r\n\r\n0123456789"
                            .into()
                    }
                };
                let _ = stream.write_all(text.as_bytes()).await;
                if !matches!(fault, Fault::Loop) {
                    let _ = stream.shutdown().await;
                }
            });
        }
    });
    addr
}

/// A POST by `transport` to `url` with a token, its body read: what the caller gets.
async fn ask(transport: &Transport, url: &Url) -> Result<(u16, Vec<u8>, Url), ApiError> {
    let token = Secret::new("tok-SECRET");
    let origin = url.origin().ascii_serialization();
    let response = transport
        .send(transport.post(url.clone()), Some(&token), &origin)
        .await?;
    let status = response.status().as_u16();
    let at = response.url().clone();
    let body = transport
        .read_capped(response, 1 << 20, &origin, Some(&token))
        .await?;
    Ok((status, body, at))
}

#[tokio::test]
async fn the_lane_answers_and_fails_as_reqwest_does() {
    let lane = Transport::new(Deadline::Whole(LIMIT)).expect("transport");
    let reqwest_only = Transport::new(Deadline::Whole(LIMIT))
        .expect("transport")
        .without_lane();
    for fault in [
        Fault::Fine,
        Fault::Refused,
        Fault::Reset,
        Fault::ShortBody,
        Fault::Hang,
        Fault::Trickle,
        Fault::Loop,
    ] {
        let addr = server(fault).await;
        let url = Url::parse(&format!("http://{addr}/ai/image_generation/t")).expect("url");
        let request = lane.post(url.clone()).build().expect("request");
        assert!(
            lane.direct
                .as_ref()
                .and_then(|d| d.route(&request))
                .is_some(),
            "{fault:?}: the lane takes a call without a body when no proxy is set"
        );
        let started = Instant::now();
        let by_lane = ask(&lane, &url).await;
        let lane_took = started.elapsed();
        let by_reqwest = ask(&reqwest_only, &url).await;
        assert_eq!(by_lane, by_reqwest, "{fault:?}");
        match fault {
            Fault::Fine => assert_eq!(by_lane.expect("answered").1, b"0123456789"),
            Fault::Hang | Fault::Trickle => {
                assert!(
                    matches!(by_lane, Err(ApiError::Timeout { after, .. }) if after == LIMIT),
                    "{fault:?}: {by_lane:?}"
                );
                // The whole request's limit, the body included, not a limit per read.
                assert!(lane_took < LIMIT * 3, "{fault:?} took {lane_took:?}");
            }
            Fault::Loop => assert!(
                matches!(&by_lane, Err(ApiError::Invalid(m)) if m.starts_with("redirect loop at")),
                "{by_lane:?}"
            ),
            _ => assert!(by_lane.is_err(), "{fault:?}: {by_lane:?}"),
        }
    }
}

#[tokio::test]
async fn a_redirect_loop_is_asked_six_times_by_either_client() {
    for transport in [
        Transport::new(Deadline::Whole(LIMIT)).expect("transport"),
        Transport::new(Deadline::Whole(LIMIT))
            .expect("transport")
            .without_lane(),
    ] {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let asked = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = asked.clone();
        tokio::spawn(async move {
            for _ in 0..20 {
                let Ok((mut stream, _)) = listener.accept().await else {
                    return;
                };
                let count = count.clone();
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 4096];
                    // Bounded: a keep-alive connection carries a few requests.
                    for _ in 0..20 {
                        match stream.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(_) => {}
                        }
                        count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        let moved = "HTTP/1.1 307 Temporary Redirect\r\nLocation: /again\r\nContent-Length: 0\r\n\r\n";
                        if stream.write_all(moved.as_bytes()).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
        let url = Url::parse(&format!("http://{addr}/first")).expect("url");
        let e = ask(&transport, &url).await.expect_err("a loop");
        assert!(
            matches!(&e, ApiError::Invalid(m) if m.starts_with("redirect loop at")),
            "{e:?}"
        );
        assert_eq!(
            asked.load(std::sync::atomic::Ordering::SeqCst),
            1 + super::super::direct::MAX_REDIRECTS,
            "the request and five redirects"
        );
    }
}

/// A service whose accept queue is full: a new connection's handshake is never answered
/// (Linux drops its SYN), so only the connect time-out ends it.
#[tokio::test]
async fn a_connection_never_accepted_times_out_alike() {
    let socket =
        socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).expect("socket");
    socket
        .bind(&std::net::SocketAddr::from(([127, 0, 0, 1], 0)).into())
        .expect("bind");
    socket.listen(0).expect("listen");
    let addr = socket
        .local_addr()
        .expect("addr")
        .as_socket()
        .expect("inet");
    // These fill the queue (never accepted); the clients' connections come after.
    let mut filling = Vec::new();
    for _ in 0..4 {
        if let Ok(Ok(s)) = tokio::time::timeout(
            Duration::from_millis(200),
            tokio::net::TcpStream::connect(addr),
        )
        .await
        {
            filling.push(s);
        }
    }
    // A limit past the connect time-out: the connection's own time-out is what ends it.
    let limit = Deadline::Whole(CONNECT_TIMEOUT * 2);
    let lane = Transport::new(limit).expect("transport");
    let reqwest_only = Transport::new(limit).expect("transport").without_lane();
    let url = Url::parse(&format!("http://{addr}/ai/image_generation/t")).expect("url");
    let (by_lane, by_reqwest) = tokio::join!(ask(&lane, &url), ask(&reqwest_only, &url));
    assert_eq!(by_lane, by_reqwest);
    assert!(
        matches!(by_lane, Err(ApiError::Timeout { .. })),
        "{by_lane:?}"
    );
    drop((socket, filling));
}

/// A service that takes the connection and never answers the TLS handshake: the connect
/// time-out ends it, the handshake counted in (as reqwest counts it), long before the
/// request's own limit.
#[tokio::test]
async fn a_handshake_never_answered_ends_at_the_connect_time_out() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let mut held = Vec::new();
        // Bounded: the two clients connect once each.
        for _ in 0..8 {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            held.push(stream); // read nothing, answer nothing
        }
    });
    let limit = Deadline::Whole(CONNECT_TIMEOUT * 3);
    let lane = Transport::new(limit).expect("transport");
    let reqwest_only = Transport::new(limit).expect("transport").without_lane();
    let url = Url::parse(&format!("https://{addr}/ai/image_generation/t")).expect("url");
    let timed = |t: &'static str, transport: Transport| {
        let url = url.clone();
        async move {
            let started = Instant::now();
            let got = ask(&transport, &url).await;
            (t, got, started.elapsed())
        }
    };
    let (by_lane, by_reqwest) = tokio::join!(timed("lane", lane), timed("reqwest", reqwest_only));
    assert_eq!(by_lane.1, by_reqwest.1);
    assert!(
        matches!(by_lane.1, Err(ApiError::Timeout { .. })),
        "{by_lane:?}"
    );
    for (who, _, took) in [by_lane, by_reqwest] {
        assert!(
            took < CONNECT_TIMEOUT * 2,
            "{who}: the handshake waited {took:?}, past the connect time-out"
        );
    }
}
