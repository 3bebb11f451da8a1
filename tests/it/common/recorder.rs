//! A recording service: a raw `TcpListener` on loopback that writes down every request that
//! reached it (method, path, headers, body), and either answers it itself or hands it on to a
//! real service behind it. Tests count what crossed the wire with it: how many requests, how
//! many `Authorization` headers, which `Range`.

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use url::Url;

/// One request as it arrived.
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    /// The request target, query included.
    pub path: String,
    /// Every header line, in order, as sent (names as the client spelled them).
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Seen {
    /// The value of header `name` (compared case-insensitively), if sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

pub struct Recorder {
    pub addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Recorder {
    pub fn url(&self) -> Url {
        Url::parse(&format!("http://{}", self.addr)).unwrap()
    }
    /// `http://ADDR/`, as `--base-url` takes it.
    pub fn base(&self) -> String {
        self.url().to_string()
    }
    /// Every request so far, oldest first.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
    /// How many requests reached it.
    pub fn count(&self) -> usize {
        self.seen.lock().unwrap().len()
    }
    /// How many of them carried an `Authorization` header (any value).
    pub fn authorizations(&self) -> usize {
        self.seen()
            .iter()
            .filter(|s| s.header("authorization").is_some())
            .count()
    }
}

/// Where a recorder sends what it received.
#[derive(Clone, Debug)]
pub enum Behind {
    /// Nobody: every request is answered 404, empty.
    Nobody,
    /// A real service at this address; with `host`, the `Host` header is rewritten to it on the
    /// way (the reference service builds its download URLs from `Host`: another origin).
    Service {
        addr: SocketAddr,
        host: Option<String>,
    },
    /// Every request answered `302 Found` to the same path at this base (another origin).
    Redirect(Url),
}

/// A recorder on an ephemeral loopback port.
/// A recorder in front of the service at `addr`, passing every request on unchanged.
pub async fn in_front_of(addr: SocketAddr) -> Recorder {
    recorder(Behind::Service { addr, host: None }).await
}

pub async fn recorder(behind: Behind) -> Recorder {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let task = tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let (log, behind) = (log.clone(), behind.clone());
            tokio::spawn(async move { serve(stream, &log, &behind).await });
        }
    });
    Recorder { addr, seen, task }
}

/// One request of `stream` recorded and answered; the connection is closed after it (the
/// answer says so), so a client sends each request it makes on a connection of its own.
async fn serve(mut stream: TcpStream, log: &Mutex<Vec<Seen>>, behind: &Behind) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
        if buf.len() > 64 * 1024 {
            return;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or("").split_whitespace();
    let (method, path) = (
        first.next().unwrap_or("").to_string(),
        first.next().unwrap_or("").to_string(),
    );
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| {
            let (k, v) = l.split_once(':')?;
            Some((k.trim().to_string(), v.trim().to_string()))
        })
        .collect();
    let mut seen = Seen {
        method,
        path,
        headers,
        body: buf[head_end + 4..].to_vec(),
    };
    let length: usize = seen
        .header("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while seen.body.len() < length {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => seen.body.extend_from_slice(&chunk[..n]),
        }
    }
    log.lock().unwrap().push(seen.clone());
    match behind {
        Behind::Nobody => {
            let _ = stream
                .write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                )
                .await;
        }
        Behind::Redirect(to) => {
            let location = format!("{}{}", to.as_str().trim_end_matches('/'), seen.path);
            let answer = format!(
                "HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            let _ = stream.write_all(answer.as_bytes()).await;
        }
        Behind::Service { addr, host } => {
            let Ok(mut upstream) = TcpStream::connect(addr).await else {
                return;
            };
            let mut out = format!("{} {} HTTP/1.1\r\n", seen.method, seen.path);
            for (k, v) in &seen.headers {
                if k.eq_ignore_ascii_case("connection") {
                    continue;
                }
                let v = match host {
                    Some(h) if k.eq_ignore_ascii_case("host") => h.as_str(),
                    _ => v.as_str(),
                };
                let _ = write!(out, "{k}: {v}\r\n");
            }
            out.push_str("Connection: close\r\n\r\n");
            let mut bytes = out.into_bytes();
            bytes.extend_from_slice(&seen.body);
            if upstream.write_all(&bytes).await.is_err() {
                return;
            }
            // The answer as the service sends it, to its end (a cut body stays cut).
            let _ = tokio::io::copy(&mut upstream, &mut stream).await;
        }
    }
    let _ = stream.shutdown().await;
}
