//! The typed client of the Generation Service (spec sections 4 and 5).

use super::error::ApiError;
use super::http::{Deadline, Transport};
use super::secret::Secret;
use super::types::{
    Catalogue, Interner, LoraType, TaskKind, TaskResult, decode_catalogue_with, decode_task,
};
use std::time::Duration;
use url::Url;

/// Catalogue responses larger than this are refused while streaming, unless the client was
/// given another cap: room for a catalogue of 1,000,000 entries (about 360 MB of JSON from the
/// reference service), and a bound on what a broken service can make the client read.
pub const CATALOGUE_CAP: u64 = 512 * 1024 * 1024;
/// Task-result responses larger than this are refused while streaming.
pub const TASK_CAP: u64 = 1024 * 1024;
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// What a client needs to know; built from the resolved configuration.
#[derive(Clone, Debug)]
pub struct ClientOptions {
    pub base_url: Url,
    pub token: Secret,
    pub request_timeout: Duration,
    pub allow_insecure_http: bool,
}

#[derive(Clone, Debug)]
pub struct Client {
    transport: Transport,
    base: Url,
    /// The base URL's origin, written out once: every endpoint shares it.
    origin: std::sync::Arc<str>,
    token: Secret,
    /// The token's `Authorization` header, made once (`None`: the token cannot be one, which
    /// each request then says).
    authorization: Option<reqwest::header::HeaderValue>,
    /// `{base}/ai/image_generation` and `{base}/ai/video_generation`: a lookup adds its ID.
    task_routes: [Url; 2],
    catalogue_cap: CatalogueCap,
}

/// The most bytes a catalogue answer may take, and the setting that raises it (named in the
/// error, so a refused catalogue says what to change).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CatalogueCap {
    pub bytes: u64,
    pub setting: Option<&'static str>,
}

/// True for hosts that never leave this machine.
pub fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

/// Checks a base URL: absolute http(s), no credentials, no query; plain http only on loopback
/// unless explicitly allowed.
pub fn check_base_url(url: &Url, allow_insecure_http: bool) -> Result<(), ApiError> {
    match url.scheme() {
        "https" => {}
        "http" if allow_insecure_http || is_loopback(url) => {}
        "http" => {
            return Err(ApiError::Invalid(format!(
                "refusing plain http to {}: use https, or set allow_insecure_http = true",
                url.origin().ascii_serialization()
            )));
        }
        other => {
            return Err(ApiError::Invalid(format!(
                "base URL scheme `{other}` is not http or https"
            )));
        }
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(ApiError::Invalid("base URL has no host".into()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(ApiError::Invalid(
            "base URL must not carry a user name or password; use the token setting".into(),
        ));
    }
    Ok(())
}

impl Client {
    pub fn new(options: &ClientOptions) -> Result<Self, ApiError> {
        check_base_url(&options.base_url, options.allow_insecure_http)?;
        let route = |kind: TaskKind| endpoint(&options.base_url, &["ai", kind.route()]);
        Ok(Client {
            transport: Transport::new(Deadline::Whole(options.request_timeout))?,
            base: options.base_url.clone(),
            origin: options.base_url.origin().ascii_serialization().into(),
            token: options.token.clone(),
            authorization: super::http::bearer(&options.token).ok(),
            task_routes: [route(TaskKind::Image), route(TaskKind::Video)],
            catalogue_cap: CatalogueCap {
                bytes: CATALOGUE_CAP,
                setting: None,
            },
        })
    }

    /// Refuses catalogue answers over `cap.bytes` (instead of [`CATALOGUE_CAP`]).
    #[must_use]
    pub fn with_catalogue_cap(mut self, cap: CatalogueCap) -> Self {
        self.catalogue_cap = cap;
        self
    }

    pub fn base_url(&self) -> &Url {
        &self.base
    }

    /// Reports every request from now on to `sink` (the dashboard's request log).
    #[must_use]
    pub fn with_requests(mut self, sink: super::recording::RequestSink) -> Self {
        self.transport.set_requests(Some(sink));
        self
    }

    pub fn requests(&self) -> Option<&super::recording::RequestSink> {
        self.transport.requests()
    }

    /// The token, for the download engine to present to this same service.
    pub(crate) fn token(&self) -> &Secret {
        &self.token
    }

    /// `{base}/seg/seg/...` with each segment percent-encoded as exactly one path segment.
    fn endpoint(&self, segments: &[&str]) -> Url {
        endpoint(&self.base, segments)
    }

    /// `POST {base}/lora/?type=..&cate=..` (spec 4.1); parameters only when set.
    pub async fn list_loras(
        &self,
        lora_type: Option<LoraType>,
        cate: Option<&str>,
    ) -> Result<Catalogue, ApiError> {
        self.list_loras_sharing(lora_type, cate, Interner::default())
            .await
    }

    /// [`Client::list_loras`], the entries decoded with what `interner` shares (an earlier
    /// list's unchanged entries: see [`Interner::sharing`]).
    pub async fn list_loras_sharing(
        &self,
        lora_type: Option<LoraType>,
        cate: Option<&str>,
        interner: Interner,
    ) -> Result<Catalogue, ApiError> {
        let mut url = self.endpoint(&["lora", ""]);
        {
            let mut query = url.query_pairs_mut();
            if let Some(t) = lora_type {
                query.append_pair("type", t.as_str());
            }
            if let Some(c) = cate.filter(|c| !c.is_empty()) {
                query.append_pair("cate", c);
            }
        }
        if url.query() == Some("") {
            url.set_query(None);
        }
        let (origin, response) = self.send_post(url).await?;
        // The body goes to a decoder on a blocking thread as it arrives: neither the whole
        // body nor a tree of its values is held at once, and the UI thread never decodes.
        let (tx, rx) = tokio::sync::mpsc::channel(8);
        let decoder = tokio::task::spawn_blocking(move || {
            decode_catalogue_with(
                std::io::BufReader::with_capacity(64 * 1024, ChunkReader::new(rx)),
                |_| true,
                interner,
            )
        });
        let cap = self.catalogue_cap;
        let fed = self
            .transport
            .stream_capped(response, cap.bytes, &origin, Some(&self.token), &tx)
            .await
            .map_err(|e| match e {
                ApiError::TooLarge { limit, .. } => ApiError::TooLarge {
                    limit,
                    setting: cap.setting,
                },
                e => e,
            });
        drop(tx);
        let catalogue = decoder
            .await
            .map_err(|e| ApiError::Invalid(format!("decoding the catalogue failed: {e}")))?;
        // A transport error or an oversized body explains a truncated decode best.
        fed?;
        catalogue
    }

    /// `POST {base}/ai/image_generation/{id}` or `/ai/video_generation/{id}` (spec 4.2, 4.3).
    pub async fn task_result(&self, kind: TaskKind, task_id: &str) -> Result<TaskResult, ApiError> {
        let url = self.task_url(kind, task_id)?;
        let body = self.post(url, TASK_CAP).await?;
        decode_task(&body, kind, task_id)
    }

    /// The URL a task lookup goes to. IDs that a URL cannot carry as one segment are refused.
    pub fn task_url(&self, kind: TaskKind, task_id: &str) -> Result<Url, ApiError> {
        validate_task_id(task_id)?;
        let mut url = self.task_routes[usize::from(kind == TaskKind::Video)].clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.push(task_id);
        }
        Ok(url)
    }

    async fn post(&self, url: Url, cap: u64) -> Result<Vec<u8>, ApiError> {
        let (origin, response) = self.send_post(url).await?;
        let started = std::time::Instant::now();
        let body = self
            .transport
            .read_capped(response, cap, &origin, Some(&self.token))
            .await;
        tracing::debug!(
            ms = started.elapsed().as_millis() as u64,
            bytes = body.as_ref().map_or(0, Vec::len),
            "response body"
        );
        body
    }

    /// Sends a POST with the token; a status other than success is the error it means.
    async fn send_post(&self, url: Url) -> Result<(String, reqwest::Response), ApiError> {
        // The endpoints are the base URL's paths: its origin, already written out.
        let origin = if url.host_str() == self.base.host_str()
            && url.port_or_known_default() == self.base.port_or_known_default()
            && url.scheme() == self.base.scheme()
        {
            self.origin.to_string()
        } else {
            url.origin().ascii_serialization()
        };
        tracing::debug!(url = %url, "POST");
        let token = Some(&self.token);
        let request = self.transport.post(url.clone());
        let response = match &self.authorization {
            Some(value) => {
                let authorization = Some((&self.token, value.clone()));
                self.transport
                    .send_authorized(request, authorization, &origin)
                    .await?
            }
            None => self.transport.send(request, token, &origin).await?,
        };
        let status = response.status();
        tracing::debug!(status = status.as_u16(), "response");
        if !status.is_success() {
            let e = self
                .transport
                .status_error(response, &origin, token, true)
                .await;
            return Err(wrong_path(e, "POST", &url));
        }
        Ok((origin, response))
    }
}

/// `{base}/seg/seg/...` with each segment percent-encoded as exactly one path segment.
fn endpoint(base: &Url, segments: &[&str]) -> Url {
    let mut url = base.clone();
    url.set_query(None);
    url.set_fragment(None);
    if let Ok(mut path) = url.path_segments_mut() {
        path.pop_if_empty().extend(segments);
    }
    url
}

/// A 404 that is no lookup's answer (see `http::error_for`) means nothing is at the spec's
/// route under the base URL: its path is wrong, and the user is shown what was asked.
fn wrong_path(e: ApiError, method: &'static str, url: &Url) -> ApiError {
    match e {
        ApiError::Http { status: 404, .. } => {
            let mut asked = url.clone();
            asked.set_query(None);
            ApiError::WrongPath {
                method,
                url: super::sanitize::sanitize(asked.as_str()),
                status: 404,
            }
        }
        e => e,
    }
}

/// The body's chunks, read as one stream by a decoder on a blocking thread.
struct ChunkReader {
    chunks: tokio::sync::mpsc::Receiver<Vec<u8>>,
    chunk: Vec<u8>,
    at: usize,
}

impl ChunkReader {
    fn new(chunks: tokio::sync::mpsc::Receiver<Vec<u8>>) -> Self {
        ChunkReader {
            chunks,
            chunk: Vec::new(),
            at: 0,
        }
    }
}

impl std::io::Read for ChunkReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.chunk.len() {
            match self.chunks.blocking_recv() {
                Some(c) => (self.chunk, self.at) = (c, 0),
                None => return Ok(0),
            }
        }
        let n = out.len().min(self.chunk.len() - self.at);
        out[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Refuses task IDs that cannot travel as a single path segment. Everything else, `/`, `?`,
/// `#`, `%` and spaces included, is percent-encoded and reaches the service verbatim.
pub fn validate_task_id(task_id: &str) -> Result<(), ApiError> {
    if task_id.is_empty() {
        return Err(ApiError::Invalid("the task ID is empty".into()));
    }
    // URL parsers resolve `.` and `..` segments (even percent-encoded), which would change the
    // route; no real task ID looks like that.
    if task_id == "." || task_id == ".." {
        return Err(ApiError::Invalid(format!(
            "`{task_id}` is not a valid task ID"
        )));
    }
    if task_id.len() > 1024 {
        return Err(ApiError::Invalid(
            "the task ID is longer than 1024 bytes".into(),
        ));
    }
    // Refused rather than cleaned: the cleaned ID would be another task's, and the raw one
    // would reach terminals and the watch list file.
    if holds_controls(task_id) {
        return Err(ApiError::Invalid(format!(
            "task ID {} holds control or invisible characters",
            escaped_id(task_id)
        )));
    }
    Ok(())
}

/// Whether `task_id` holds a character the sanitiser would remove (controls, escape
/// sequences, bidi overrides, invisible separators).
pub fn holds_controls(task_id: &str) -> bool {
    task_id.chars().any(is_unclean)
}

fn is_unclean(c: char) -> bool {
    !super::sanitize::is_clean(c.encode_utf8(&mut [0; 4]))
}

/// A task ID as it can be shown whatever it holds: quoted, with control and invisible
/// characters written out (`"sim-1\u{1b}[31m"`).
pub fn escaped_id(task_id: &str) -> String {
    use std::fmt::Write;
    let mut out = String::from("\"");
    for c in task_id.chars() {
        if is_unclean(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else if c == '"' || c == '\\' {
            out.push('\\');
            out.push(c);
        } else {
            out.push(c);
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(base: &str) -> Client {
        Client::new(&ClientOptions {
            base_url: Url::parse(base).expect("url"),
            token: Secret::new("t"),
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            allow_insecure_http: false,
        })
        .expect("client")
    }

    #[test]
    fn hostile_ids_stay_one_segment() {
        let c = client("https://h.example/api/v1/");
        for (id, want) in [
            ("abc", "/api/v1/ai/image_generation/abc"),
            ("a/b", "/api/v1/ai/image_generation/a%2Fb"),
            ("a?b#c", "/api/v1/ai/image_generation/a%3Fb%23c"),
            ("../x", "/api/v1/ai/image_generation/..%2Fx"),
            ("a..b", "/api/v1/ai/image_generation/a..b"),
            ("50%", "/api/v1/ai/image_generation/50%25"),
            ("a b", "/api/v1/ai/image_generation/a%20b"),
        ] {
            let url = c.task_url(TaskKind::Image, id).expect("valid");
            assert_eq!(url.path(), want, "{id}");
            assert_eq!(url.query(), None);
        }
        assert!(c.task_url(TaskKind::Image, "..").is_err());
        assert!(c.task_url(TaskKind::Image, ".").is_err());
        assert!(c.task_url(TaskKind::Image, "").is_err());
    }

    #[test]
    fn prefix_with_or_without_slash() {
        for base in ["https://h.example/api/v1", "https://h.example/api/v1/"] {
            let c = client(base);
            assert_eq!(
                c.task_url(TaskKind::Video, "t").expect("ok").path(),
                "/api/v1/ai/video_generation/t"
            );
            assert_eq!(c.endpoint(&["lora", ""]).path(), "/api/v1/lora/");
        }
    }

    /// One loopback answer: the request's head as it reached the wire, after a task answer.
    async fn answer_once(listener: tokio::net::TcpListener) -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let (mut conn, _) = listener.accept().await.expect("accept");
        let mut head = Vec::new();
        let mut buf = [0u8; 1024];
        while !head.ends_with(b"\r\n\r\n") && head.len() < 64 * 1024 {
            let n = conn.read(&mut buf).await.expect("read");
            assert!(n > 0, "the request ended early");
            head.extend_from_slice(&buf[..n]);
        }
        let body = br#"{"data":{"is_success":true,"data":{"task_id":"t-1","status":"IN_PROGRESS","percent":7}}}"#;
        let reply = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n", body.len());
        conn.write_all(reply.as_bytes()).await.expect("write");
        conn.write_all(body).await.expect("write");
        String::from_utf8_lossy(&head).to_ascii_lowercase()
    }

    #[tokio::test]
    async fn a_lookup_presents_the_token_made_once_and_reads_the_answer() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let base = format!("http://{}/p", listener.local_addr().expect("addr"));
        let server = tokio::spawn(answer_once(listener));
        let c = client(&base);
        let task = c.task_result(TaskKind::Video, "t-1").await.expect("answer");
        assert_eq!((task.status.as_str(), task.percent), ("IN_PROGRESS", 7));
        let head = server.await.expect("server");
        assert!(
            head.starts_with("post /p/ai/video_generation/t-1 http/1.1\r\n"),
            "{head}"
        );
        assert!(head.contains("\r\nauthorization: bearer t\r\n"), "{head}");
    }

    #[tokio::test]
    async fn a_token_no_header_can_carry_is_refused_before_anything_is_sent() {
        let c = Client::new(&ClientOptions {
            base_url: Url::parse("http://127.0.0.1:9").expect("url"),
            token: Secret::new("t\nx"),
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            allow_insecure_http: false,
        })
        .expect("client");
        assert_eq!(
            c.task_result(TaskKind::Image, "a").await.err(),
            Some(ApiError::Invalid(
                "the token contains characters a header cannot carry".into()
            ))
        );
    }

    #[test]
    fn http_only_on_loopback_unless_allowed() {
        let ok = |u: &str, allow| check_base_url(&Url::parse(u).expect("url"), allow).is_ok();
        assert!(ok("http://127.0.0.1:8787", false));
        assert!(ok("http://[::1]:8787", false));
        assert!(ok("http://localhost:8787", false));
        assert!(!ok("http://gen.example", false));
        assert!(ok("http://gen.example", true));
        assert!(!ok("ftp://gen.example", true));
        assert!(!ok("https://u:p@gen.example", false));
    }
}
