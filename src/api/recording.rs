//! The request log's records: every request the transport makes, reported to a sink once its
//! body has been read (or the response dropped), with what a user asks of a stuck dashboard:
//! when, what, the answer, how long it took, how much came back. The token never appears: it
//! is not in URLs, and the URL is scrubbed of it anyway before it is recorded.

use super::sanitize::sanitize;
use super::secret::Secret;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// The method of a request log row that records a run of one of the user's actions (its URL
/// is the command line).
pub const RUN_METHOD: &str = "RUN";

/// One finished request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestRecord {
    /// When it was sent.
    pub at: SystemTime,
    pub method: &'static str,
    /// The whole URL, sanitised.
    pub url: String,
    /// The token was presented (as `Authorization: Bearer`).
    pub authorized: bool,
    /// The HTTP status, when an answer came.
    pub status: Option<u16>,
    /// What went wrong on the way: no answer at all, or a body cut short. Sanitised.
    pub error: Option<String>,
    /// From sending to the end of the body.
    pub duration: Duration,
    /// Body bytes received (a run: bytes its program wrote).
    pub bytes: u64,
    /// A run's output: its last lines, sanitised and bounded (`RUN_OUTPUT_LINES`); none for a
    /// request.
    pub output: Option<String>,
}

/// How many of a run's last lines of output the request log keeps.
pub const RUN_OUTPUT_LINES: usize = 3;
/// At most this many characters of them.
pub const RUN_OUTPUT_CHARS: usize = 400;

impl RequestRecord {
    /// A run of one of the user's actions, not a request (its URL is the command line).
    pub fn is_run(&self) -> bool {
        self.method == RUN_METHOD
    }

    /// The request as a `curl` command line that reads the token from `$GENDASH_TOKEN`, never
    /// carrying the token itself; the URL is quoted for a POSIX shell.
    pub fn curl(&self) -> String {
        self.curl_authorized_by("\"Authorization: Bearer $GENDASH_TOKEN\"")
    }

    /// The request as a `curl` command line carrying `token` itself, ready to paste. Only for
    /// a throwaway token that may be shown, as the demo service's is; a real one is never
    /// written out (`curl`).
    pub fn curl_with_token(&self, token: &Secret) -> String {
        self.curl_authorized_by(&shell_quote(&format!(
            "Authorization: Bearer {}",
            token.expose()
        )))
    }

    /// `header` is the `-H` argument, already quoted for the shell.
    fn curl_authorized_by(&self, header: &str) -> String {
        // An action's run: its command line is what runs it again.
        if self.method == RUN_METHOD {
            return self.url.clone();
        }
        let url = shell_quote(&self.url);
        let mut out = String::from("curl");
        match self.method {
            "GET" => {}
            m => {
                out.push_str(" -X ");
                out.push_str(m);
            }
        }
        if self.authorized {
            out.push_str(" -H ");
            out.push_str(header);
        }
        out.push(' ');
        out.push_str(&url);
        out
    }
}

/// `text` as one word of a POSIX shell.
pub fn shell_quote(text: &str) -> String {
    shlex::try_quote(text).map_or_else(
        |_| format!("'{}'", text.replace('\'', "'\\''")),
        std::borrow::Cow::into_owned,
    )
}

/// Where records go; the dashboard's puts them on its message channel.
#[derive(Clone)]
pub struct RequestSink(pub Arc<dyn Fn(RequestRecord) + Send + Sync>);

impl std::fmt::Debug for RequestSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RequestSink")
    }
}

/// A request on its way: made when it is sent, reported when the last handle on it goes
/// (the response and its body read), with the bytes counted in between.
#[derive(Clone)]
pub(crate) struct InFlight(Arc<Pending>);

struct Pending {
    sink: RequestSink,
    /// Taken when reported.
    record: Mutex<Option<RequestRecord>>,
    started: Instant,
    bytes: AtomicU64,
}

impl InFlight {
    pub(crate) fn start(
        sink: &RequestSink,
        method: &'static str,
        url: &url::Url,
        token: Option<&Secret>,
    ) -> Self {
        let mut text = sanitize(url.as_str());
        // Looked for first: `replace` copies the URL even when it holds no token.
        if let Some(t) = token.filter(|t| !t.is_empty() && text.contains(t.expose())) {
            text = text.replace(t.expose(), "<redacted>");
        }
        InFlight(Arc::new(Pending {
            sink: sink.clone(),
            record: Mutex::new(Some(RequestRecord {
                at: SystemTime::now(),
                method,
                url: text,
                authorized: token.is_some(),
                status: None,
                error: None,
                duration: Duration::ZERO,
                bytes: 0,
                output: None,
            })),
            started: Instant::now(),
            bytes: AtomicU64::new(0),
        }))
    }

    pub(crate) fn answered(&self, status: u16) {
        if let Ok(mut guard) = self.0.record.lock()
            && let Some(r) = guard.as_mut()
        {
            r.status = Some(status);
        }
    }

    pub(crate) fn failed(&self, error: &str) {
        if let Ok(mut guard) = self.0.record.lock()
            && let Some(r) = guard.as_mut()
        {
            r.error = Some(sanitize(error));
        }
    }

    pub(crate) fn received(&self, n: usize) {
        self.0.bytes.fetch_add(n as u64, Ordering::Relaxed);
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        let taken = match self.record.get_mut() {
            Ok(r) => r.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        let Some(mut record) = taken else { return };
        record.duration = self.started.elapsed();
        record.bytes = self.bytes.load(Ordering::Relaxed);
        (self.sink.0)(record);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curl_reads_the_token_from_the_environment_and_quotes_the_url() {
        let r = RequestRecord {
            at: SystemTime::UNIX_EPOCH,
            method: "POST",
            url: "http://127.0.0.1:8787/lora/?type=sd&cate=it's".into(),
            authorized: true,
            status: Some(200),
            error: None,
            duration: Duration::from_millis(3),
            bytes: 10,
            output: None,
        };
        assert_eq!(
            r.curl(),
            "curl -X POST -H \"Authorization: Bearer $GENDASH_TOKEN\" \
             \"http://127.0.0.1:8787/lora/?type=sd&cate=it's\""
        );
        let get = RequestRecord {
            method: "GET",
            authorized: false,
            url: "https://cdn.example/a.png".into(),
            ..r
        };
        assert_eq!(get.curl(), "curl https://cdn.example/a.png");
    }

    #[test]
    fn curl_with_a_throwaway_token_carries_it_as_one_shell_word() {
        let r = RequestRecord {
            at: SystemTime::UNIX_EPOCH,
            method: "POST",
            url: "http://127.0.0.1:8787/lora/".into(),
            authorized: true,
            status: Some(200),
            error: None,
            duration: Duration::from_millis(3),
            bytes: 10,
            output: None,
        };
        let line = r.curl_with_token(&Secret::new("gd-abc"));
        assert_eq!(
            line,
            "curl -X POST -H 'Authorization: Bearer gd-abc' http://127.0.0.1:8787/lora/"
        );
        let odd = r.curl_with_token(&Secret::new("it's $(x)"));
        assert_eq!(
            shlex::split(&odd).expect("one command line")[4],
            "Authorization: Bearer it's $(x)"
        );
        let file = RequestRecord {
            authorized: false,
            ..r
        };
        assert!(
            !file
                .curl_with_token(&Secret::new("gd-abc"))
                .contains("gd-abc")
        );
    }

    #[test]
    fn a_record_is_reported_once_when_the_last_handle_goes_without_the_token() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let into = Arc::clone(&seen);
        let sink = RequestSink(Arc::new(move |r| into.lock().expect("lock").push(r)));
        let token = Secret::new("CANARY-token-123".to_string());
        let url =
            url::Url::parse("http://127.0.0.1:1/ai/image_generation/CANARY-token-123?x=\u{1b}[31m")
                .expect("url");
        let flight = InFlight::start(&sink, "POST", &url, Some(&token));
        let copy = flight.clone();
        flight.answered(200);
        copy.received(40);
        copy.received(2);
        drop(flight);
        assert!(seen.lock().expect("lock").is_empty(), "reported too early");
        drop(copy);
        let seen = seen.lock().expect("lock");
        assert_eq!(seen.len(), 1);
        let r = &seen[0];
        assert_eq!((r.status, r.bytes, r.authorized), (Some(200), 42, true));
        assert!(!r.url.contains("CANARY"), "{}", r.url);
        assert!(!r.url.contains('\u{1b}'), "{}", r.url);
    }
}
