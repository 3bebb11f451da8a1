//! The one error type of the service client: each variant renders as a single line a person
//! understands.

use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum ApiError {
    #[error("cannot connect to {origin}: {detail}")]
    Connect { origin: String, detail: String },
    /// The TLS handshake failed: the certificate is not trusted, not the host's, or there are
    /// no CA certificates to trust it by.
    #[error("cannot verify {origin}: {detail}")]
    Tls { origin: String, detail: String },
    #[error("timed out after {}s waiting for {origin}", after.as_secs_f64())]
    Timeout { origin: String, after: Duration },
    #[error("the connection to {origin} broke: {detail}")]
    Transport { origin: String, detail: String },
    #[error("authentication refused (HTTP {status}): {excerpt}")]
    Auth { status: u16, excerpt: String },
    #[error("HTTP {status}{}: {excerpt}", retry_after.map(|d| format!(" (retry after {}s)", d.as_secs())).unwrap_or_default())]
    Http {
        status: u16,
        excerpt: String,
        retry_after: Option<Duration>,
    },
    /// A route of the spec answered 404 with no answer of the spec: the service is there, but
    /// not under the base URL's path (a missing or wrong prefix such as `/api/v1`).
    #[error(
        "the base URL's path looks wrong: {method} {url} → {status}: is the path prefix right?"
    )]
    WrongPath {
        method: &'static str,
        /// What was asked, without its query.
        url: String,
        status: u16,
    },
    #[error("lookup failed: {description}")]
    Lookup { description: String },
    #[error("response not understood: expected {expected}{}", if detail.is_empty() { String::new() } else { format!(" ({detail})") })]
    Decode {
        expected: &'static str,
        detail: String,
    },
    #[error(
        "response too large: more than {limit} bytes{}",
        setting.map(|s| format!("; raise the `{s}` setting to accept more")).unwrap_or_default()
    )]
    TooLarge {
        limit: u64,
        /// The setting that sets this cap, where one does (the catalogue's).
        setting: Option<&'static str>,
    },
    #[error(
        "the service redirected to another origin ({to}); not followed so the token stays private"
    )]
    CrossOriginRedirect { to: String },
    /// A download's target is already there and overwriting was not asked for: the caller
    /// may ask the user, then fetch again with `force`.
    #[error("{} exists; use --force to overwrite", path.display())]
    Exists { path: PathBuf },
    #[error("{0}")]
    Invalid(String),
}

impl ApiError {
    /// Whether a later attempt may succeed: network trouble, 5xx and 429 are transient, a
    /// refused token, a missing task or any other 4xx is not.
    pub fn is_retryable(&self) -> bool {
        match self {
            // A certificate can be renewed or trusted while a dashboard runs.
            ApiError::Connect { .. }
            | ApiError::Tls { .. }
            | ApiError::Timeout { .. }
            | ApiError::Transport { .. }
            | ApiError::Decode { .. } => true,
            ApiError::Http { status, .. } => *status == 429 || *status >= 500,
            ApiError::Auth { .. }
            | ApiError::WrongPath { .. }
            | ApiError::Lookup { .. }
            | ApiError::TooLarge { .. }
            | ApiError::CrossOriginRedirect { .. }
            | ApiError::Exists { .. }
            | ApiError::Invalid(_) => false,
        }
    }

    /// Whether the service could not be reached at all (no connection, no trusted one, no
    /// answer in time, a broken connection), as opposed to one that answered with an error.
    pub fn is_unreachable(&self) -> bool {
        matches!(
            self,
            ApiError::Connect { .. }
                | ApiError::Tls { .. }
                | ApiError::Timeout { .. }
                | ApiError::Transport { .. }
        )
    }

    /// A delay the service asked for with `Retry-After`.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ApiError::Http { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}
