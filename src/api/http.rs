//! The one transport layer under the service client and the download engine: how the HTTP
//! client is built, how the token travels, how a status becomes an error, how bodies are read
//! with a cap and scrubbed of the token. Written once so the two users cannot drift apart.

use super::direct::{Direct, Failed};
use super::error::ApiError;
use super::recording::{InFlight, RequestSink};
use super::secret::Secret;
use reqwest::header::{AUTHORIZATION, HeaderValue, RETRY_AFTER};
use reqwest::{RequestBuilder, Response, StatusCode};
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use url::Url;

/// Length of the body excerpt carried by HTTP errors.
pub const EXCERPT_CHARS: usize = 512;
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Who asks, on every request.
pub const USER_AGENT: &str = concat!("gendash/", env!("CARGO_PKG_VERSION"));
/// Error bodies are read up to this size for their excerpt.
const ERROR_BODY_CAP: u64 = 64 * 1024;

/// How long a request may take: as a whole (API calls) or between two reads (downloads, whose
/// total time depends on the file).
#[derive(Clone, Copy, Debug)]
pub enum Deadline {
    Whole(Duration),
    BetweenReads(Duration),
}

impl Deadline {
    fn limit(self) -> Duration {
        match self {
            Deadline::Whole(d) | Deadline::BetweenReads(d) => d,
        }
    }
}

/// rustls needs one process-wide crypto provider; ring builds with nothing but a C compiler.
fn install_crypto_provider() {
    // Err only means another caller installed it first.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// Redirects are followed only within the origin they started from, so the bearer token is
/// never presented to anyone else; a redirect elsewhere comes back as the 3xx response.
fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let first = attempt.previous().first().map(Url::origin);
        if attempt.previous().len() > 5 {
            attempt.error("too many redirects")
        } else if first.is_some_and(|o| o != attempt.url().origin()) {
            attempt.stop()
        } else {
            attempt.follow()
        }
    })
}

/// Who follows redirects: the HTTP client, within the origin the request started at (API
/// calls: a redirect elsewhere is an error), or the caller, hop by hop ([`next_hop`]:
/// downloads, which go on to another origin without the token).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Redirects {
    SameOrigin,
    ByCaller,
}

/// Redirects a download follows at most, as curl's and browsers' limits are of that order.
pub const MAX_HOPS: usize = 10;

/// Where a response sends the request next: `None` when it is no redirect (its status is the
/// caller's to read). A redirect without a usable `Location`, to anything but http(s), or from
/// https to http is refused: a file asked for over TLS never arrives in the clear.
pub fn next_hop(from: &Url, status: u16, location: Option<&str>) -> Result<Option<Url>, ApiError> {
    if !matches!(status, 301 | 302 | 303 | 307 | 308) {
        return Ok(None);
    }
    let origin = from.origin().ascii_serialization();
    let to = location
        .and_then(|l| from.join(l).ok())
        .ok_or_else(|| ApiError::Invalid(format!("a redirect from {origin} leads nowhere")))?;
    let shown = super::sanitize::sanitize(&to.origin().ascii_serialization());
    match (from.scheme(), to.scheme()) {
        ("https", "http") => Err(ApiError::Invalid(format!(
            "refused a redirect from https to http ({shown})"
        ))),
        (_, "http" | "https") => Ok(Some(to)),
        (_, other) => Err(ApiError::Invalid(format!(
            "refused a redirect from {origin} to a {} link",
            super::sanitize::sanitize(other)
        ))),
    }
}

/// A connection to one origin at a time, with the token it may present there.
#[derive(Clone, Debug)]
pub struct Transport {
    http: reqwest::Client,
    deadline: Deadline,
    redirects: Redirects,
    /// Where each request is reported once it is done (the dashboard's request log).
    requests: Option<RequestSink>,
    /// Where the service's calls go unless reqwest must carry them ([`super::direct`]).
    direct: Option<Arc<Direct>>,
}

impl Transport {
    pub fn new(deadline: Deadline) -> Result<Self, ApiError> {
        Self::with_redirects(deadline, Redirects::SameOrigin)
    }

    pub fn with_redirects(deadline: Deadline, redirects: Redirects) -> Result<Self, ApiError> {
        install_crypto_provider();
        let policy = match redirects {
            Redirects::SameOrigin => same_origin_redirects(),
            Redirects::ByCaller => reqwest::redirect::Policy::none(),
        };
        let builder = reqwest::Client::builder()
            .tls_backend_preconfigured(super::tls::client_config())
            .connect_timeout(CONNECT_TIMEOUT)
            .redirect(policy)
            .user_agent(USER_AGENT);
        let builder = match deadline {
            Deadline::Whole(d) => builder.timeout(d),
            Deadline::BetweenReads(d) => builder.read_timeout(d),
        };
        let http = builder
            .build()
            .map_err(|e| ApiError::Invalid(format!("cannot build the HTTP client: {e}")))?;
        Ok(Transport {
            http,
            deadline,
            redirects,
            requests: None,
            // The service's calls (a limit on the whole request, redirects followed within
            // the origin); downloads, whose redirects and time limits are their own, are
            // reqwest's alone.
            direct: (redirects == Redirects::SameOrigin && matches!(deadline, Deadline::Whole(_)))
                .then(|| Arc::new(Direct::new(CONNECT_TIMEOUT, USER_AGENT))),
        })
    }

    /// The same transport with reqwest carrying every request (the lane's tests compare).
    #[cfg(test)]
    fn without_lane(mut self) -> Self {
        self.direct = None;
        self
    }

    /// Reports every request from now on to `sink`.
    pub fn set_requests(&mut self, sink: Option<RequestSink>) {
        self.requests = sink;
    }

    pub fn requests(&self) -> Option<&RequestSink> {
        self.requests.as_ref()
    }

    pub fn post(&self, url: Url) -> RequestBuilder {
        self.http
            .post(url)
            .header(reqwest::header::CONTENT_LENGTH, 0)
    }

    pub fn get(&self, url: Url) -> RequestBuilder {
        self.http.get(url)
    }

    pub fn head(&self, url: Url) -> RequestBuilder {
        self.http.head(url)
    }

    /// Sends `request`, presenting `token` as a Bearer token when given. A redirect to another
    /// origin is an error (unless the caller follows redirects); any other status is the
    /// caller's to read.
    pub async fn send(
        &self,
        request: RequestBuilder,
        token: Option<&Secret>,
        origin: &str,
    ) -> Result<Response, ApiError> {
        let authorization = token.map(bearer).transpose()?;
        self.send_authorized(request, token.zip(authorization), origin)
            .await
    }

    /// [`Transport::send`] with the token's `Authorization` header already made (see
    /// [`bearer`]): a client that asks the same service hundreds of times a second makes it
    /// once.
    pub async fn send_authorized(
        &self,
        request: RequestBuilder,
        authorization: Option<(&Secret, HeaderValue)>,
        origin: &str,
    ) -> Result<Response, ApiError> {
        let (token, request) = match authorization {
            Some((t, value)) => (Some(t), request.header(AUTHORIZATION, value)),
            None => (None, request),
        };
        let request = request
            .build()
            .map_err(|e| self.transport_error(&e, origin))?;
        let flight = self.requests.as_ref().map(|sink| {
            let method = match *request.method() {
                reqwest::Method::GET => "GET",
                reqwest::Method::POST => "POST",
                reqwest::Method::HEAD => "HEAD",
                _ => "OTHER",
            };
            InFlight::start(sink, method, request.url(), token)
        });
        let sent = match self
            .direct
            .as_deref()
            .and_then(|d| Some((d, d.route(&request)?)))
        {
            Some((direct, uri)) => self.send_direct(direct, request, uri, origin).await,
            None => self
                .http
                .execute(request)
                .await
                .map_err(|e| self.transport_error(&e, origin)),
        };
        let mut response = match sent {
            Ok(r) => r,
            Err(error) => {
                if let Some(f) = &flight {
                    f.failed(&error.to_string());
                }
                return Err(error);
            }
        };
        if let Some(f) = flight {
            f.answered(response.status().as_u16());
            // Reported when the response goes, its body read.
            response.extensions_mut().insert(f);
        }
        if self.redirects == Redirects::SameOrigin && response.status().is_redirection() {
            let to = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|l| l.to_str().ok())
                .and_then(|l| response.url().join(l).ok())
                .map_or_else(
                    || "an unknown place".into(),
                    |u| u.origin().ascii_serialization(),
                );
            return Err(ApiError::CrossOriginRedirect {
                to: super::sanitize::sanitize(&to),
            });
        }
        Ok(response)
    }

    /// `request` sent by the lane to `uri`: the answer as reqwest's would be.
    async fn send_direct(
        &self,
        direct: &Direct,
        mut request: reqwest::Request,
        uri: http::Uri,
        origin: &str,
    ) -> Result<Response, ApiError> {
        use reqwest::ResponseBuilderExt;
        let limit = self.deadline.limit();
        let deadline = tokio::time::Instant::now() + limit;
        let fault = |causes, timeout, connect, redirect| Fault {
            causes,
            timeout,
            connect,
            redirect,
        };
        let (answer, moved) = match direct.send(&mut request, uri, deadline).await {
            Ok(sent) => sent,
            Err(Failed::TimedOut) => {
                return Err(classify(&fault(None, true, false, false), origin, limit));
            }
            Err(Failed::TooManyRedirects) => {
                return Err(classify(&fault(None, false, false, true), origin, limit));
            }
            Err(Failed::Client(e)) => {
                let told = fault(Some(&e), timed_out(&e), e.is_connect(), false);
                return Err(classify(&told, origin, limit));
            }
        };
        // The URL answered, as reqwest's answers carry it (a placeholder is parsed for each
        // answer without one): a redirect's target is parsed only when one was followed.
        let url = match moved.map(|at| Url::parse(&at.to_string())) {
            Some(Ok(at)) => at,
            _ => request.url().clone(),
        };
        let (mut parts, body) = answer.into_parts();
        let carrier = http::Response::builder()
            .url(url)
            .body(())
            .expect("a response without status or headers");
        parts.extensions.extend(carrier.into_parts().0.extensions);
        Ok(Response::from(http::Response::from_parts(
            parts,
            reqwest::Body::wrap(body),
        )))
    }

    /// Reads a body chunk by chunk, refusing it as soon as it passes `cap`, and scrubs the
    /// token from it: a hostile or broken server cannot make us buffer more than `cap` bytes,
    /// nor get an echoed token onto the screen or into a log.
    pub async fn read_capped(
        &self,
        response: Response,
        cap: u64,
        origin: &str,
        token: Option<&Secret>,
    ) -> Result<Vec<u8>, ApiError> {
        // Held whole anyway: scrubbed once at the end rather than chunk by chunk (the same
        // text: the chunked scrub keeps a token's length of overlap between chunks).
        let mut buf = Vec::new();
        self.for_each_chunk(response, cap, origin, None, |chunk| {
            if buf.is_empty() {
                buf = chunk;
            } else {
                buf.extend_from_slice(&chunk);
            }
            std::future::ready(true)
        })
        .await?;
        Ok(match token {
            Some(token) => redact(buf, token),
            None => buf,
        })
    }

    /// Like `read_capped`, but hands the body on as it arrives (to a decoder on another
    /// thread), so it is never held whole. Stops early when the receiver is gone.
    pub async fn stream_capped(
        &self,
        response: Response,
        cap: u64,
        origin: &str,
        token: Option<&Secret>,
        sink: &tokio::sync::mpsc::Sender<Vec<u8>>,
    ) -> Result<(), ApiError> {
        self.for_each_chunk(response, cap, origin, token, |chunk| async move {
            sink.send(chunk).await.is_ok()
        })
        .await
    }

    /// The one loop under both: the cap counts the bytes received; `each` gets them scrubbed
    /// of the token and returns false to stop.
    async fn for_each_chunk<F, Fut>(
        &self,
        mut response: Response,
        cap: u64,
        origin: &str,
        token: Option<&Secret>,
        mut each: F,
    ) -> Result<(), ApiError>
    where
        F: FnMut(Vec<u8>) -> Fut,
        Fut: std::future::Future<Output = bool>,
    {
        if response.content_length().is_some_and(|n| n > cap) {
            return Err(ApiError::TooLarge {
                limit: cap,
                setting: None,
            });
        }
        let mut received = 0u64;
        let mut redactor = Redactor::new(token);
        let flight = in_flight(&response);
        let noted = |e: ApiError| {
            if let Some(f) = &flight {
                f.failed(&e.to_string());
            }
            e
        };
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| noted(self.transport_error(&e, origin)))?
        {
            received += chunk.len() as u64;
            if let Some(f) = &flight {
                f.received(chunk.len());
            }
            if received > cap {
                return Err(noted(ApiError::TooLarge {
                    limit: cap,
                    setting: None,
                }));
            }
            let clean = redactor.push(&chunk);
            if !clean.is_empty() && !each(clean).await {
                return Ok(());
            }
        }
        let rest = redactor.finish();
        if !rest.is_empty() {
            each(rest).await;
        }
        Ok(())
    }

    /// The error for a response whose status is not a success, read from its (capped,
    /// redacted) body. With `spec_envelope`, a 4xx carrying the spec's envelope is a failed
    /// lookup (API calls); without, it is an HTTP error (file downloads).
    pub async fn status_error(
        &self,
        response: Response,
        origin: &str,
        token: Option<&Secret>,
        spec_envelope: bool,
    ) -> ApiError {
        let status = response.status();
        let retry_after = retry_after(&response);
        let body = self
            .read_capped(response, ERROR_BODY_CAP, origin, token)
            .await
            .unwrap_or_default();
        error_for(status, &body, retry_after, spec_envelope)
    }

    pub fn transport_error(&self, e: &reqwest::Error, origin: &str) -> ApiError {
        map_transport(e, origin, self.deadline.limit())
    }
}

/// The request log's handle on the request that `response` answers, if it is logged.
pub(crate) fn in_flight(response: &Response) -> Option<InFlight> {
    response.extensions().get::<InFlight>().cloned()
}

/// The `Authorization` header for `token`, marked sensitive so it is never logged.
pub fn bearer(token: &Secret) -> Result<HeaderValue, ApiError> {
    let mut value = HeaderValue::from_str(&format!("Bearer {}", token.expose())).map_err(|_| {
        ApiError::Invalid("the token contains characters a header cannot carry".into())
    })?;
    value.set_sensitive(true);
    Ok(value)
}

fn retry_after(response: &Response) -> Option<Duration> {
    response
        .headers()
        .get(RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| super::backoff::parse_retry_after(v, SystemTime::now()))
}

/// Maps a non-success status and its body to an error. Transient statuses (408, 429, 5xx)
/// stay HTTP errors so they are retried; only 429 and 503 carry a `Retry-After`.
pub fn error_for(
    status: StatusCode,
    body: &[u8],
    retry_after: Option<Duration>,
    spec_envelope: bool,
) -> ApiError {
    let code = status.as_u16();
    if spec_envelope
        && status.is_client_error()
        && !matches!(code, 401 | 403 | 408 | 429)
        && let Ok(serde_json::Value::Object(obj)) = serde_json::from_slice(body)
        // A 404 is a lookup's answer only in the result envelope (`data` an object); any other
        // 404 is the route's (nothing there), whatever error fields it carries.
        && (code != 404 || obj.get("data").is_some_and(serde_json::Value::is_object))
        && let Some(description) = super::types::lookup_failure(&obj)
    {
        return ApiError::Lookup { description };
    }
    let excerpt = excerpt(body);
    match code {
        401 | 403 => ApiError::Auth {
            status: code,
            excerpt,
        },
        _ => ApiError::Http {
            status: code,
            excerpt,
            retry_after: if code == 429 || code == 503 {
                retry_after
            } else {
                None
            },
        },
    }
}

/// Scrubs the token from a body that arrives in chunks: the last `len(token) - 1` bytes of a
/// chunk wait for the next one, so a token split across two chunks is still found.
struct Redactor<'a> {
    token: Option<&'a Secret>,
    carry: Vec<u8>,
}

impl<'a> Redactor<'a> {
    fn new(token: Option<&'a Secret>) -> Self {
        Redactor {
            token: token.filter(|t| t.expose().len() >= 4),
            carry: Vec::new(),
        }
    }

    fn push(&mut self, chunk: &[u8]) -> Vec<u8> {
        let Some(token) = self.token else {
            return chunk.to_vec();
        };
        self.carry.extend_from_slice(chunk);
        let mut out = redact(std::mem::take(&mut self.carry), token);
        let keep = (token.expose().len() - 1).min(out.len());
        self.carry = out.split_off(out.len() - keep);
        out
    }

    fn finish(self) -> Vec<u8> {
        match self.token {
            Some(t) => redact(self.carry, t),
            None => self.carry,
        }
    }
}

/// A service that echoes the token back (in an error page, a status, a URL) must not get it
/// onto the screen or into a log: every body is scrubbed of it before anything reads it.
pub fn redact(body: Vec<u8>, token: &Secret) -> Vec<u8> {
    let needle = token.expose().as_bytes();
    if needle.len() < 4 || memchr::memmem::find(&body, needle).is_none() {
        return body;
    }
    let finder = memchr::memmem::Finder::new(needle);
    let mut out = Vec::with_capacity(body.len());
    let mut rest = &body[..];
    while let Some(at) = finder.find(rest) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(b"<redacted>");
        rest = &rest[at + needle.len()..];
    }
    out.extend_from_slice(rest);
    out
}

/// What went wrong sending a request, as either client tells it: reqwest's error, or the
/// lane's (`hyper_util`'s, which reqwest's error wraps), with the same causes under it.
struct Fault<'e> {
    /// The first cause told (what reqwest's own text adds, the URL, is above it).
    causes: Option<&'e (dyn std::error::Error + 'static)>,
    timeout: bool,
    connect: bool,
    redirect: bool,
}

fn map_transport(e: &reqwest::Error, origin: &str, limit: Duration) -> ApiError {
    use std::error::Error as _;
    let fault = Fault {
        causes: Some(e.source().unwrap_or(e)),
        timeout: e.is_timeout(),
        connect: e.is_connect(),
        redirect: e.is_redirect(),
    };
    classify(&fault, origin, limit)
}

/// Whether `e` ran out of time, read as reqwest's `is_timeout` reads its causes.
fn timed_out(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur = Some(e);
    // Far more links than any client error has.
    for _ in 0..32 {
        let Some(inner) = cur else { return false };
        if inner
            .downcast_ref::<hyper::Error>()
            .is_some_and(hyper::Error::is_timeout)
            || inner
                .downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut)
        {
            return true;
        }
        cur = inner.source();
    }
    false
}

fn classify(fault: &Fault<'_>, origin: &str, limit: Duration) -> ApiError {
    let origin = origin.to_string();
    if fault.timeout {
        return ApiError::Timeout {
            origin,
            after: limit,
        };
    }
    let detail = fault.causes.map(error_chain).unwrap_or_default();
    if fault.connect {
        if detail.contains("timed out") || detail.contains("deadline") {
            return ApiError::Timeout {
                origin,
                after: CONNECT_TIMEOUT,
            };
        }
        if let Some(refused) = fault.causes.and_then(handshake_error) {
            let detail = super::sanitize::sanitize_with_limit(&refused.to_string(), 300);
            return ApiError::Tls { origin, detail };
        }
        ApiError::Connect { origin, detail }
    } else if fault.redirect {
        ApiError::Invalid(format!("redirect loop at {origin}"))
    } else {
        ApiError::Transport { origin, detail }
    }
}

/// rustls's error when it refused the connection (a certificate, the handshake). tokio-rustls
/// carries it inside an `io::Error` (inside another), whose `source` skips the error it holds.
fn handshake_error<'e>(e: &'e (dyn std::error::Error + 'static)) -> Option<&'e rustls::Error> {
    let mut cur = Some(e);
    // Far more links than any client error has.
    for _ in 0..32 {
        let inner = cur?;
        if let Some(refused) = inner.downcast_ref::<rustls::Error>() {
            return Some(refused);
        }
        cur = match inner
            .downcast_ref::<std::io::Error>()
            .and_then(std::io::Error::get_ref)
        {
            Some(held) => Some(held),
            None => inner.source(),
        };
    }
    None
}

/// An error's causes from `first` on, on one sanitised line.
fn error_chain(first: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut cur = Some(first);
    while let Some(inner) = cur {
        let text = inner.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        cur = inner.source();
    }
    super::sanitize::sanitize_with_limit(&parts.join(": "), 300)
}

/// A short, sanitised, single-line account of an error body: a JSON error description when
/// there is one, the text of an HTML page without its tags, or the text itself.
pub fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    if let Ok(serde_json::Value::Object(obj)) = serde_json::from_str::<serde_json::Value>(&text) {
        for key in ["error_description", "error", "message", "detail"] {
            if let Some(s) = obj.get(key).and_then(serde_json::Value::as_str)
                && !s.trim().is_empty()
            {
                return super::sanitize::sanitize_with_limit(s, EXCERPT_CHARS);
            }
        }
    }
    let trimmed = text.trim_start();
    let plain = if trimmed.starts_with('<') {
        strip_tags(&text)
    } else {
        text.into_owned()
    };
    let collapsed = plain.split_whitespace().collect::<Vec<_>>().join(" ");
    let clean = super::sanitize::sanitize_with_limit(&collapsed, EXCERPT_CHARS);
    if clean.is_empty() {
        "(empty body)".into()
    } else {
        clean
    }
}

/// Drops markup, scripts and styles from an HTML error page, keeping its words.
fn strip_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len().min(8192));
    let lower = html.to_ascii_lowercase();
    let mut i = 0;
    let bytes = html.as_bytes();
    while i < bytes.len() {
        if bytes[i] == b'<' {
            for skipped in ["script", "style"] {
                if lower[i + 1..].starts_with(skipped) {
                    let close = format!("</{skipped}");
                    i = lower[i..].find(&close).map_or(bytes.len(), |p| i + p);
                }
            }
            i = html[i..].find('>').map_or(bytes.len(), |p| i + p + 1);
            out.push(' ');
        } else {
            let next = html[i..].find('<').map_or(bytes.len(), |p| i + p);
            out.push_str(&html[i..next]);
            i = next;
        }
        if out.len() > 64 * 1024 {
            break;
        }
    }
    out.replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

#[cfg(test)]
#[path = "lane_tests.rs"]
mod lane_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echoed_tokens_are_redacted() {
        let t = Secret::new("tok-SECRET");
        assert_eq!(
            redact(b"a tok-SECRET b tok-SECRETtok-SECRET".to_vec(), &t),
            b"a <redacted> b <redacted><redacted>"
        );
        assert_eq!(redact(b"nothing".to_vec(), &t), b"nothing");
    }

    #[test]
    fn tokens_split_across_chunks_are_redacted() {
        let t = Secret::new("tok-SECRET");
        let body = b"a tok-SECRET b tok-SECRETtok-SECRET c".as_slice();
        // Every way of cutting the body in three still scrubs every copy.
        for i in 0..body.len() {
            for j in i..body.len() {
                let mut r = Redactor::new(Some(&t));
                let mut out = r.push(&body[..i]);
                out.extend(r.push(&body[i..j]));
                out.extend(r.push(&body[j..]));
                out.extend(r.finish());
                assert_eq!(
                    String::from_utf8_lossy(&out),
                    "a <redacted> b <redacted><redacted> c",
                    "cut at {i}, {j}"
                );
            }
        }
    }

    #[test]
    fn excerpts_are_short_and_clean() {
        let html = b"<html><head><title>502 Bad Gateway</title><style>body{}</style></head><body><h1>Bad\x1b[2J Gateway</h1><script>x()</script></body></html>";
        assert_eq!(excerpt(html), "502 Bad Gateway Bad Gateway");
        assert_eq!(excerpt(br#"{"error_description":"nope"}"#), "nope");
        assert_eq!(excerpt(&vec![b'a'; 5000]).chars().count(), EXCERPT_CHARS);
        assert_eq!(excerpt(b""), "(empty body)");
    }

    #[test]
    fn redirects_lead_on_over_http_s_and_never_down_from_https() {
        let url = |u: &str| Url::parse(u).expect("a URL");
        let from = url("https://files.example/a/b.png");
        let hop = |status, location| next_hop(&from, status, location);
        assert_eq!(hop(200, Some("/x")), Ok(None));
        assert_eq!(hop(304, Some("/x")), Ok(None));
        for status in [301, 302, 303, 307, 308] {
            assert_eq!(
                hop(status, Some("c.png")),
                Ok(Some(url("https://files.example/a/c.png")))
            );
        }
        assert_eq!(
            hop(302, Some("https://cdn.example/f")),
            Ok(Some(url("https://cdn.example/f")))
        );
        assert_eq!(
            hop(302, Some("http://cdn.example/f")),
            Err(ApiError::Invalid(
                "refused a redirect from https to http (http://cdn.example)".into()
            ))
        );
        assert!(hop(302, Some("file:///etc/passwd")).is_err());
        assert!(hop(302, None).is_err());
        // Up from http to https, and http to http, are followed.
        let plain = url("http://127.0.0.1:1/f");
        for to in ["https://x.example/", "http://127.0.0.1:2/"] {
            assert_eq!(next_hop(&plain, 307, Some(to)), Ok(Some(url(to))));
        }
    }

    #[test]
    fn statuses_map_to_errors() {
        let s = |c| StatusCode::from_u16(c).expect("status");
        let wait = Some(Duration::from_secs(7));
        let lookup = br#"{"data":{"is_success":false},"error_description":"no such task"}"#;
        assert!(matches!(
            error_for(s(401), b"no", wait, true),
            ApiError::Auth { status: 401, .. }
        ));
        assert_eq!(
            error_for(s(404), lookup, None, true),
            ApiError::Lookup {
                description: "no such task".into()
            }
        );
        // A route's 404, error fields and all, is no lookup's answer.
        let route = br#"{"errors":[{"code":"not_found"}],"error_description":"no such route"}"#;
        assert!(matches!(
            error_for(s(404), route, None, true),
            ApiError::Http { status: 404, .. }
        ));
        // A file download reads no envelope: a 404 is a 404.
        assert!(matches!(
            error_for(s(404), lookup, None, false),
            ApiError::Http { status: 404, .. }
        ));
        assert_eq!(error_for(s(429), b"", wait, true).retry_after(), wait);
        assert_eq!(error_for(s(503), b"", wait, true).retry_after(), wait);
        assert_eq!(error_for(s(500), b"", wait, true).retry_after(), None);
        // A transient status is never read as a failed lookup, whatever its body says.
        assert!(matches!(
            error_for(s(429), lookup, None, true),
            ApiError::Http { status: 429, .. }
        ));
    }
}
