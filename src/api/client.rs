//! The typed client of the Generation Service (spec sections 4 and 5).

use super::error::ApiError;
use super::types::{Catalogue, LoraType, TaskKind, TaskResult, decode_catalogue, decode_task};
use crate::store::secret::Secret;
use reqwest::header::{AUTHORIZATION, HeaderValue, RETRY_AFTER};
use reqwest::{Response, StatusCode};
use std::time::{Duration, SystemTime};
use url::Url;

/// Catalogue responses larger than this are refused while streaming.
pub const CATALOGUE_CAP: u64 = 64 * 1024 * 1024;
/// Task-result responses larger than this are refused while streaming.
pub const TASK_CAP: u64 = 1024 * 1024;
/// Length of the body excerpt carried by HTTP errors.
pub const EXCERPT_CHARS: usize = 512;
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
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
    http: reqwest::Client,
    base: Url,
    token: Secret,
    timeout: Duration,
}

/// rustls needs one process-wide crypto provider; ring builds with nothing but a C compiler.
pub(crate) fn install_crypto_provider() {
    // Err only means another caller installed it first.
    let _ = rustls::crypto::ring::default_provider().install_default();
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

/// Redirects are followed only within the origin they started from, so the bearer token is
/// never presented to anyone else.
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

impl Client {
    pub fn new(options: &ClientOptions) -> Result<Self, ApiError> {
        check_base_url(&options.base_url, options.allow_insecure_http)?;
        install_crypto_provider();
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(options.request_timeout)
            .redirect(same_origin_redirects())
            .user_agent(concat!("gendash/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ApiError::Invalid(format!("cannot build the HTTP client: {e}")))?;
        Ok(Client {
            http,
            base: options.base_url.clone(),
            token: options.token.clone(),
            timeout: options.request_timeout,
        })
    }

    pub fn base_url(&self) -> &Url {
        &self.base
    }

    /// `{base}/seg/seg/...` with each segment percent-encoded as exactly one path segment.
    fn endpoint(&self, segments: &[&str]) -> Url {
        let mut url = self.base.clone();
        url.set_query(None);
        url.set_fragment(None);
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().extend(segments);
        }
        url
    }

    /// `POST {base}/lora/?type=..&cate=..` (spec 4.1); parameters only when set.
    pub async fn list_loras(
        &self,
        lora_type: Option<LoraType>,
        cate: Option<&str>,
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
        let body = self.post(url, CATALOGUE_CAP).await?;
        decode_catalogue(&body)
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
        Ok(self.endpoint(&["ai", kind.route(), task_id]))
    }

    async fn post(&self, url: Url, cap: u64) -> Result<Vec<u8>, ApiError> {
        let origin = url.origin().ascii_serialization();
        tracing::debug!(url = %url, "POST");
        let started = std::time::Instant::now();
        let mut auth =
            HeaderValue::from_str(&format!("Bearer {}", self.token.expose())).map_err(|_| {
                ApiError::Invalid("the token contains characters a header cannot carry".into())
            })?;
        auth.set_sensitive(true);
        let response = self
            .http
            .post(url)
            .header(AUTHORIZATION, auth)
            .header(reqwest::header::CONTENT_LENGTH, 0)
            .send()
            .await
            .map_err(|e| map_transport(&e, &origin, self.timeout))?;
        let status = response.status();
        if status.is_redirection() {
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
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| super::backoff::parse_retry_after(v, SystemTime::now()));
        let body = read_capped(response, cap, &origin, self.timeout)
            .await
            .map(|b| redact(b, &self.token));
        tracing::debug!(
            status = status.as_u16(),
            ms = started.elapsed().as_millis() as u64,
            bytes = body.as_ref().map_or(0, Vec::len),
            "response"
        );
        if status.is_success() {
            return body;
        }
        // An error body that is itself too large or broken still yields the status error.
        let body = body.unwrap_or_default();
        // A 4xx that carries the spec's envelope is a failed lookup; transient statuses stay
        // HTTP errors so they are retried.
        if status.is_client_error()
            && !matches!(status.as_u16(), 401 | 403 | 408 | 429)
            && let Ok(serde_json::Value::Object(obj)) = serde_json::from_slice(&body)
            && let Some(description) = super::types::lookup_failure(&obj)
        {
            return Err(ApiError::Lookup { description });
        }
        Err(status_error(status, excerpt(&body), retry_after))
    }
}

/// A service that echoes the token back (in an error page, a status, a URL) must not get it
/// onto the screen or into a log: every body is scrubbed of it before anything reads it.
pub(crate) fn redact(body: Vec<u8>, token: &Secret) -> Vec<u8> {
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
    Ok(())
}

fn status_error(status: StatusCode, excerpt: String, retry_after: Option<Duration>) -> ApiError {
    let code = status.as_u16();
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

pub(crate) fn map_transport(e: &reqwest::Error, origin: &str, timeout: Duration) -> ApiError {
    let origin = origin.to_string();
    if e.is_timeout() {
        return ApiError::Timeout {
            origin,
            after: timeout,
        };
    }
    let detail = error_chain(e);
    if e.is_connect() {
        if detail.contains("timed out") || detail.contains("deadline") {
            return ApiError::Timeout {
                origin,
                after: CONNECT_TIMEOUT,
            };
        }
        ApiError::Connect { origin, detail }
    } else if e.is_redirect() {
        ApiError::Invalid(format!("redirect loop at {origin}"))
    } else {
        ApiError::Transport { origin, detail }
    }
}

/// The innermost causes of an error, without the URL, on one sanitised line.
fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut cur = e.source();
    while let Some(inner) = cur {
        let text = inner.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        cur = inner.source();
    }
    if parts.is_empty() {
        parts.push(e.to_string());
    }
    super::sanitize::sanitize_with_limit(&parts.join(": "), 300)
}

/// Reads a body chunk by chunk, refusing it as soon as it passes `cap`: a hostile or broken
/// server cannot make us buffer more than `cap` bytes.
pub(crate) async fn read_capped(
    mut response: Response,
    cap: u64,
    origin: &str,
    timeout: Duration,
) -> Result<Vec<u8>, ApiError> {
    if response.content_length().is_some_and(|n| n > cap) {
        return Err(ApiError::TooLarge { limit: cap });
    }
    let mut buf = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| map_transport(&e, origin, timeout))?
    {
        if (buf.len() + chunk.len()) as u64 > cap {
            return Err(ApiError::TooLarge { limit: cap });
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(buf)
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
    fn excerpts_are_short_and_clean() {
        let html = b"<html><head><title>502 Bad Gateway</title><style>body{}</style></head><body><h1>Bad\x1b[2J Gateway</h1><script>x()</script></body></html>";
        assert_eq!(excerpt(html), "502 Bad Gateway Bad Gateway");
        assert_eq!(excerpt(br#"{"error_description":"nope"}"#), "nope");
        assert_eq!(excerpt(&vec![b'a'; 5000]).chars().count(), EXCERPT_CHARS);
        assert_eq!(excerpt(b""), "(empty body)");
    }
}
