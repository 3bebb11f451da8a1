//! Fetching a finished task's file: streamed to a temporary name beside the target and renamed
//! into place only when complete, so a partial file never carries the real name.

use super::error::ApiError;
use super::http::{Deadline, MAX_HOPS, Redirects, Transport, next_hop};
use super::links::validate_link;
use super::secret::Secret;
use super::types::TaskKind;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::io::{AsyncSeekExt, AsyncWriteExt};
use url::Url;

/// Downloads stall out after this long without a byte, however long the whole file takes.
pub const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// The file name a task's result is saved under: `<task_id>.png|.mp4`, with characters that
/// would leave the directory or hide the file replaced by `_`.
pub fn file_name(task_id: &str, kind: TaskKind) -> String {
    format!("{}.{}", safe_component(task_id), kind.extension())
}

/// Longest value, in bytes, one placeholder puts into a path component.
const MAX_VALUE_BYTES: usize = 96;
/// Longest path component a template makes, in bytes: file systems allow 255, and the
/// download's `.part.validator` (15 bytes) must still fit beside it.
const MAX_COMPONENT_BYTES: usize = 200;

/// One path component from a value that may hold anything: characters that would leave the
/// directory, hide the file or upset a terminal are gone or replaced by `_`, `.`/`..` cannot
/// result, and it is at most [`MAX_VALUE_BYTES`] long.
pub fn safe_component(value: &str) -> String {
    component(value, MAX_VALUE_BYTES)
}

fn component(value: &str, max_bytes: usize) -> String {
    let mut name: String = super::sanitize::sanitize(value)
        .chars()
        .map(|c| match c {
            '/' | '\\' | ':' | '\0' => '_',
            c => c,
        })
        .collect();
    if name.starts_with('.') || name.is_empty() {
        name.insert(0, '_');
    }
    shorten(name, max_bytes)
}

/// At most `max` bytes (counted in bytes, as file systems count them), cut at a character
/// boundary and marked with `…`; a short extension at the end is kept, so a long task ID
/// still saves as a `.png`.
fn shorten(name: String, max: usize) -> String {
    if name.len() <= max {
        return name;
    }
    let ext = name
        .rfind('.')
        .filter(|&at| at > 0 && name.len() - at <= 16)
        .map_or("", |at| &name[at..]);
    let mut cut = max.saturating_sub(ext.len() + '\u{2026}'.len_utf8());
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}\u{2026}{ext}", &name[..cut])
}

/// The placeholders a download template may hold.
pub const TEMPLATE_PLACEHOLDERS: [&str; 6] = ["task_id", "kind", "ext", "date", "status", "label"];

/// `download_template`: where in the download directory a task's file goes, e.g.
/// `"{kind}/{date}/{task_id}.{ext}"`. Checked when read: only known placeholders, no absolute
/// path, no `..`; each placeholder's value becomes one safe path component, so no task ID can
/// leave the directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template(String);

/// The values a template is filled with.
pub struct TemplateValues<'a> {
    pub task_id: &'a str,
    pub kind: TaskKind,
    pub status: &'a str,
    /// `YYYY-MM-DD`.
    pub date: &'a str,
    /// The task's label on the watch list; empty when it has none.
    pub label: &'a str,
}

impl Default for Template {
    fn default() -> Self {
        Template("{task_id}.{ext}".into())
    }
}

/// Why a `download_template` is refused, naming the template as given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    #[error("the download template is empty")]
    Empty,
    #[error("`{0}` is absolute; it is a path inside download_dir")]
    Absolute(String),
    #[error("`{0}` has a `}}` without its `{{`")]
    Unopened(String),
    #[error("`{0}` has a `{{` without its `}}`")]
    Unclosed(String),
    #[error("`{{{name}}}` is not a placeholder of download_template (known: {})",
        TEMPLATE_PLACEHOLDERS.map(|p| format!("{{{p}}}")).join(", "))]
    NoSuchPlaceholder { name: String },
    #[error("`{text}` has a `{part}` component")]
    Dots { text: String, part: String },
    #[error("`{0}` has an empty path component")]
    EmptyPart(String),
}

impl Template {
    pub fn parse(text: &str) -> Result<Self, TemplateError> {
        let given = || text.to_string();
        if text.trim().is_empty() {
            return Err(TemplateError::Empty);
        }
        // `C:\…` and `C:…` name a drive on Windows: a path outside download_dir there.
        let drive = text
            .as_bytes()
            .get(..2)
            .is_some_and(|p| p[0].is_ascii_alphabetic() && p[1] == b':');
        if text.starts_with('/') || text.starts_with('\\') || text.starts_with('~') || drive {
            return Err(TemplateError::Absolute(given()));
        }
        let mut rest = text;
        while let Some(at) = rest.find(['{', '}']) {
            if rest[at..].starts_with('}') {
                return Err(TemplateError::Unopened(given()));
            }
            let after = &rest[at + 1..];
            let end = after
                .find('}')
                .ok_or_else(|| TemplateError::Unclosed(given()))?;
            let name = &after[..end];
            if !TEMPLATE_PLACEHOLDERS.contains(&name) {
                return Err(TemplateError::NoSuchPlaceholder {
                    name: name.to_string(),
                });
            }
            rest = &after[end + 1..];
        }
        for part in text.split(['/', '\\']) {
            if part == ".." || part == "." {
                return Err(TemplateError::Dots {
                    text: given(),
                    part: part.to_string(),
                });
            }
            if part.is_empty() {
                return Err(TemplateError::EmptyPart(given()));
            }
        }
        Ok(Template(text.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The file's path relative to the download directory. Literal text is kept as written
    /// (it was checked); each value is made one safe component.
    pub fn expand(&self, v: &TemplateValues<'_>) -> PathBuf {
        let value = |name: &str| match name {
            "task_id" => safe_component(v.task_id),
            "kind" => v.kind.as_str().to_string(),
            "ext" => v.kind.extension().to_string(),
            "date" => safe_component(v.date),
            // No label is nothing (a component of nothing else becomes `_`).
            "label" if v.label.is_empty() => String::new(),
            "label" => safe_component(v.label),
            _ => safe_component(v.status),
        };
        self.0
            .split('/')
            .map(|part| {
                let mut out = String::new();
                let mut rest = part;
                while let Some(at) = rest.find('{') {
                    out.push_str(&rest[..at]);
                    let after = &rest[at + 1..];
                    let end = after.find('}').unwrap_or(after.len());
                    out.push_str(&value(&after[..end]));
                    rest = after.get(end + 1..).unwrap_or("");
                }
                out.push_str(rest);
                // A component made only of values (`{status}`) must not hide or climb, and
                // several long values together must still fit a file name.
                component(&out, MAX_COMPONENT_BYTES)
            })
            .collect()
    }
}

/// Progress callback: bytes of the file on disk so far (a resumed download starts at what the
/// `.part` file already held) and the file's whole length, if known.
pub type Progress<'a> = &'a mut (dyn FnMut(u64, Option<u64>) + Send);

/// Attempts at one download before it fails (the `.part` file is kept for the next try).
pub const ATTEMPTS: u32 = 5;

/// The wait before the second attempt, doubled for each further one: 0.5 s, 1 s, 2 s, 4 s.
pub const RETRY_BASE: Duration = Duration::from_millis(500);

/// Where the body of `dir/name` grows until it is whole: `name.part` beside it. Kept when a
/// download fails, so the next call (or the next run of `gendash download`) resumes from it.
pub fn part_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.part"))
}

/// Beside the part: the validator (`ETag` or `Last-Modified`) of the file its bytes came from,
/// sent back in `If-Range` so a changed file is sent whole instead of glued onto old bytes.
fn validator_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.part.validator"))
}

/// The download engine shared by `gendash download` and the dashboard.
#[derive(Clone, Debug)]
pub struct Downloader {
    transport: Transport,
    /// The token is presented only to the service's own origin.
    token: Option<(url::Origin, Secret)>,
    /// The wait before the first resume; doubled for each further one.
    retry_base: Duration,
}

impl Downloader {
    pub fn new(service_base: Option<&Url>, token: Option<Secret>) -> Result<Self, ApiError> {
        let transport =
            Transport::with_redirects(Deadline::BetweenReads(READ_TIMEOUT), Redirects::ByCaller)?;
        let token = match (service_base, token) {
            (Some(base), Some(t)) if !t.is_empty() => Some((base.origin(), t)),
            _ => None,
        };
        Ok(Downloader {
            transport,
            token,
            retry_base: RETRY_BASE,
        })
    }

    /// The same, waiting `base` before the first resume (tests use a few milliseconds).
    #[must_use]
    pub fn with_retry_base(mut self, base: Duration) -> Self {
        self.retry_base = base;
        self
    }

    /// A downloader that presents the client's token to the client's service, and to no one
    /// else.
    /// Presents `client`'s token to its service, and reports to its request log.
    pub fn for_service(client: &super::Client) -> Result<Self, ApiError> {
        let mut d = Self::new(Some(client.base_url()), Some(client.token().clone()))?;
        d.transport.set_requests(client.requests().cloned());
        Ok(d)
    }

    /// Downloads `url` into `dir/name` (`dir` must exist) and returns that path.
    ///
    /// Refuses non-http(s) URLs, and an existing file unless `force` ([`ApiError::Exists`], so
    /// a caller can ask and call again with `force`). The body goes to [`part_path`], locked
    /// against a second download of the same file; a dropped connection, a short body or a
    /// 5xx is resumed with `Range` (and `If-Range` when the server gave a validator), up to
    /// [`ATTEMPTS`] attempts in all. A server that answers 200, or another range than the one
    /// asked for, starts the part again. Only a body as long as announced is synced to disk
    /// and renamed to `name`; on failure the part stays for the next call to resume.
    pub async fn fetch(
        &self,
        url: &str,
        dir: &Path,
        name: &str,
        force: bool,
        progress: Progress<'_>,
    ) -> Result<PathBuf, ApiError> {
        self.fetch_seen(url, dir, name, force, progress)
            .await
            .map(|f| f.path)
    }

    /// [`Self::fetch`], also returning what the download saw (for the provenance file beside
    /// the file).
    pub async fn fetch_seen(
        &self,
        url: &str,
        dir: &Path,
        name: &str,
        force: bool,
        progress: Progress<'_>,
    ) -> Result<Fetched, ApiError> {
        let url = validate_link(url).map_err(|e| ApiError::Invalid(e.to_string()))?;
        let target = dir.join(name);
        if !force && exists(&target).await {
            return Err(ApiError::Exists { path: target });
        }
        let mut part = Part::open(dir, name).await?;
        let mut failures = 0;
        let from = loop {
            match self.attempt(&url, &mut part, progress).await {
                Ok(from) => break from,
                Err(Attempt::Fatal(e)) => {
                    part.abandon().await;
                    return Err(e);
                }
                Err(Attempt::Again(e)) => {
                    failures += 1;
                    if failures >= ATTEMPTS {
                        part.abandon().await;
                        return Err(e);
                    }
                    tracing::info!(
                        "download of {} interrupted ({e}); attempt {} follows",
                        url.path(),
                        failures + 1
                    );
                    tokio::time::sleep(self.retry_base * 2u32.pow(failures - 1)).await;
                }
            }
        };
        if !force && exists(&target).await {
            // Someone else saved it meanwhile: theirs stays, the whole part too (a call with
            // `force` then only has to rename it).
            return Err(ApiError::Exists { path: target });
        }
        let etag = part.validator().await.filter(|v| v.starts_with('"'));
        part.finish(&target).await?;
        Ok(Fetched {
            path: target,
            etag,
            url: from,
        })
    }

    /// The token for a request to `url`: only the service's own origin is shown it.
    fn token_for(&self, url: &Url) -> Option<&Secret> {
        self.token
            .as_ref()
            .filter(|(service, _)| *service == url.origin())
            .map(|(_, t)| t)
    }

    /// Sends the request `build` makes for `url`, following redirects hop by hop (at most
    /// [`MAX_HOPS`], never from https to http: [`next_hop`]). The token goes along only while
    /// every hop so far stayed at the service's origin: a redirect elsewhere is followed
    /// without it, as curl and browsers do, and it is not given back on the way home. Returns
    /// the answer, the URL that gave it, and the token that request carried.
    async fn send_following(
        &self,
        url: &Url,
        build: impl Fn(Url) -> reqwest::RequestBuilder,
    ) -> Result<(reqwest::Response, Url, Option<&Secret>), ApiError> {
        let mut at = url.clone();
        let mut token = self.token_for(&at);
        for _ in 0..=MAX_HOPS {
            let origin = at.origin().ascii_serialization();
            let response = self
                .transport
                .send(build(at.clone()), token, &origin)
                .await?;
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|l| l.to_str().ok());
            let Some(next) = next_hop(&at, response.status().as_u16(), location)? else {
                return Ok((response, at, token));
            };
            token = token.and(self.token_for(&next));
            at = next;
        }
        Err(ApiError::Invalid(format!(
            "more than {MAX_HOPS} redirects from {}; gave up",
            url.origin().ascii_serialization()
        )))
    }

    /// The file's length as the server announces it to a `HEAD`, without a byte of the body
    /// (a video's size for its preview): `None` when it announces none.
    pub async fn announced_length(&self, url: &str) -> Result<Option<u64>, ApiError> {
        let url = validate_link(url).map_err(|e| ApiError::Invalid(e.to_string()))?;
        let (response, at, token) = self
            .send_following(&url, |hop| self.transport.head(hop))
            .await?;
        let origin_text = at.origin().ascii_serialization();
        if !response.status().is_success() {
            return Err(self
                .transport
                .status_error(response, &origin_text, token, false)
                .await);
        }
        Ok(header_text(&response, reqwest::header::CONTENT_LENGTH).and_then(|v| v.parse().ok()))
    }

    /// At most the first `max` bytes of `url`, written to `path` (a video's poster frame is
    /// made from them, never from a whole file fetched for it): asked with
    /// `Range: bytes=0-{max - 1}`; from a server that ignores ranges, the body is read up to
    /// `max` and the connection dropped.
    pub async fn fetch_head(&self, url: &str, path: &Path, max: u64) -> Result<Head, ApiError> {
        let url = validate_link(url).map_err(|e| ApiError::Invalid(e.to_string()))?;
        let last = max.saturating_sub(1);
        let (mut response, at, token) = self
            .send_following(&url, |hop| {
                self.transport
                    .get(hop)
                    .header(reqwest::header::RANGE, format!("bytes=0-{last}"))
            })
            .await?;
        let origin = at.origin().ascii_serialization();
        let status = response.status();
        let total = if status == reqwest::StatusCode::PARTIAL_CONTENT {
            header_text(&response, reqwest::header::CONTENT_RANGE)
                .and_then(|v| ContentRange::parse(&v))
                .and_then(|r| r.total)
        } else if status == reqwest::StatusCode::RANGE_NOT_SATISFIABLE {
            // Only an empty file has no byte 0.
            Some(0)
        } else if status.is_success() {
            response.content_length()
        } else {
            return Err(self
                .transport
                .status_error(response, &origin, token, false)
                .await);
        };
        let fail =
            |e: std::io::Error| ApiError::Invalid(format!("cannot write {}: {e}", path.display()));
        let mut file = tokio::fs::File::create(path).await.map_err(fail)?;
        let mut bytes = 0u64;
        if status != reqwest::StatusCode::RANGE_NOT_SATISFIABLE {
            let flight = super::http::in_flight(&response);
            while bytes < max {
                let chunk = match response.chunk().await {
                    Ok(Some(chunk)) => chunk,
                    Ok(None) => break,
                    Err(e) => {
                        let error = self.transport.transport_error(&e, &origin);
                        if let Some(f) = &flight {
                            f.failed(&error.to_string());
                        }
                        return Err(error);
                    }
                };
                if let Some(f) = &flight {
                    f.received(chunk.len());
                }
                let room = usize::try_from(max - bytes)
                    .unwrap_or(usize::MAX)
                    .min(chunk.len());
                file.write_all(&chunk[..room]).await.map_err(fail)?;
                bytes += room as u64;
            }
        }
        file.flush().await.map_err(fail)?;
        Ok(Head { bytes, total })
    }

    /// One request: continues the part from where it ends, or starts it again. The URL the
    /// bytes came from, after redirects.
    async fn attempt(
        &self,
        url: &Url,
        part: &mut Part,
        progress: Progress<'_>,
    ) -> Result<Url, Attempt> {
        let have = part.len().await.map_err(|e| part.fatal(&e))?;
        let validator = if have > 0 {
            part.validator().await
        } else {
            None
        };
        let (response, from, token) = self
            .send_following(url, |hop| {
                let mut request = self.transport.get(hop);
                if have > 0 {
                    request = request.header(reqwest::header::RANGE, format!("bytes={have}-"));
                    if let Some(v) = &validator {
                        request = request.header(reqwest::header::IF_RANGE, v.as_str());
                    }
                }
                request
            })
            .await
            .map_err(again_if_transient)?;
        let origin_text = from.origin().ascii_serialization();
        let status = response.status();
        if status == reqwest::StatusCode::RANGE_NOT_SATISFIABLE && have > 0 {
            // Nothing after the part's end. Its bytes are the whole file only if they are as
            // many as the file has, and of the version the validator names (the server would
            // have ignored the range for another version, as `If-Range` asks).
            let total = header_text(&response, reqwest::header::CONTENT_RANGE)
                .and_then(|v| ContentRange::parse(&v))
                .and_then(|r| r.total);
            if validator.is_some() && total == Some(have) {
                progress(have, Some(have));
                return Ok(from);
            }
            part.restart().await.map_err(|e| part.fatal(&e))?;
            return Err(Attempt::Again(not_continued(&origin_text)));
        }
        if !status.is_success() {
            return Err(again_if_transient(
                self.transport
                    .status_error(response, &origin_text, token, false)
                    .await,
            ));
        }
        let new_validator = validator_of(&response);
        let (start, total) = if status == reqwest::StatusCode::PARTIAL_CONTENT {
            let range = header_text(&response, reqwest::header::CONTENT_RANGE)
                .and_then(|v| ContentRange::parse(&v));
            // A server that ignored `If-Range` would send the rest of another version.
            let same_file =
                validator.is_none() || new_validator.is_none() || validator == new_validator;
            match range {
                Some(ContentRange {
                    range: Some((start, end)),
                    total,
                }) if start == have && same_file => (start, total.or(Some(end + 1))),
                _ => {
                    part.restart().await.map_err(|e| part.fatal(&e))?;
                    return Err(Attempt::Again(not_continued(&origin_text)));
                }
            }
        } else {
            (0, response.content_length())
        };
        if start == 0 {
            // Emptied before the new validator is written: a crash in between must never leave
            // old bytes under a new file's validator.
            part.restart().await.map_err(|e| part.fatal(&e))?;
        } else {
            part.seek(start).await.map_err(|e| part.fatal(&e))?;
        }
        if start == 0 || validator != new_validator {
            part.set_validator(new_validator.as_deref())
                .await
                .map_err(|e| part.fatal(&e))?;
        }
        self.receive(response, part, start, total, progress, &origin_text)
            .await
            .map(|()| from)
    }

    /// Appends the body to the part, from byte `start` of a file of `total` bytes.
    async fn receive(
        &self,
        mut response: reqwest::Response,
        part: &mut Part,
        start: u64,
        total: Option<u64>,
        progress: Progress<'_>,
        origin: &str,
    ) -> Result<(), Attempt> {
        let mut written = start;
        progress(written, total);
        let flight = super::http::in_flight(&response);
        loop {
            let chunk = match response.chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => break,
                Err(e) => {
                    // What arrived is kept for the next attempt, or the next run.
                    let _ = part.file.sync_all().await;
                    let error = self.transport.transport_error(&e, origin);
                    if let Some(f) = &flight {
                        f.failed(&error.to_string());
                    }
                    return Err(Attempt::Again(error));
                }
            };
            if let Some(f) = &flight {
                f.received(chunk.len());
            }
            part.file
                .write_all(&chunk)
                .await
                .map_err(|e| part.fatal(&e))?;
            written += chunk.len() as u64;
            progress(written, total);
        }
        part.file.sync_all().await.map_err(|e| part.fatal(&e))?;
        if total.is_some_and(|t| t != written) {
            return Err(Attempt::Again(ApiError::Transport {
                origin: origin.to_string(),
                detail: "the file ended before its announced length".into(),
            }));
        }
        Ok(())
    }
}

/// A saved file and what its download saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    pub path: PathBuf,
    /// The strong `ETag` the file's bytes came with, if the server sent one.
    pub etag: Option<String>,
    /// Where the bytes came from: the URL asked for, or where its redirects led.
    pub url: Url,
}

/// What [`Downloader::fetch_head`] wrote: `bytes` of a file of `total` bytes (when the server
/// said).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head {
    pub bytes: u64,
    pub total: Option<u64>,
}

/// How an attempt ended badly: worth another try (the connection dropped), or not.
enum Attempt {
    Again(ApiError),
    Fatal(ApiError),
}

fn again_if_transient(e: ApiError) -> Attempt {
    if e.is_retryable() {
        Attempt::Again(e)
    } else {
        Attempt::Fatal(e)
    }
}

fn not_continued(origin: &str) -> ApiError {
    ApiError::Transport {
        origin: origin.to_string(),
        detail: "the server did not continue the partial download where it ended; starting again"
            .into(),
    }
}

/// The growing body of one download, and the validator of the file it is from.
struct Part {
    /// Open, and locked where the file system allows it, from the first attempt to the
    /// rename: the dashboard and `gendash download` fetching the same file at once cannot
    /// interleave their bytes.
    file: tokio::fs::File,
    path: PathBuf,
    validator_path: PathBuf,
}

impl Part {
    async fn open(dir: &Path, name: &str) -> Result<Part, ApiError> {
        let path = part_path(dir, name);
        let target = dir.join(name);
        let opened = path.clone();
        let file = tokio::task::spawn_blocking(move || {
            let file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&opened)
                .map_err(|e| io_error(&opened, &e))?;
            match file.try_lock() {
                Err(std::fs::TryLockError::WouldBlock) => Err(ApiError::Invalid(format!(
                    "{} is being downloaded already (by another gendash?)",
                    target.display()
                ))),
                // Locked, or a file system without locks: then unlocked, as one download of a
                // file at a time is the usual case.
                Ok(()) | Err(std::fs::TryLockError::Error(_)) => Ok(file),
            }
        })
        .await
        .map_err(|e| ApiError::Invalid(format!("the download stopped: {e}")))??;
        Ok(Part {
            file: tokio::fs::File::from_std(file),
            validator_path: validator_path(dir, name),
            path,
        })
    }

    fn fatal(&self, e: &std::io::Error) -> Attempt {
        Attempt::Fatal(io_error(&self.path, e))
    }

    async fn len(&mut self) -> std::io::Result<u64> {
        // Writes still in flight count too.
        self.file.flush().await?;
        Ok(self.file.metadata().await?.len())
    }

    /// The saved validator, if it is one a header can carry back.
    async fn validator(&self) -> Option<String> {
        let text = tokio::fs::read_to_string(&self.validator_path).await.ok()?;
        usable_validator(text.trim())
    }

    async fn set_validator(&self, validator: Option<&str>) -> std::io::Result<()> {
        match validator {
            Some(v) => tokio::fs::write(&self.validator_path, v).await,
            None => match tokio::fs::remove_file(&self.validator_path).await {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            },
        }
    }

    /// Empties the part: its bytes are of another version of the file, or of another range.
    async fn restart(&mut self) -> std::io::Result<()> {
        self.file.set_len(0).await?;
        self.file.seek(std::io::SeekFrom::Start(0)).await?;
        Ok(())
    }

    async fn seek(&mut self, at: u64) -> std::io::Result<()> {
        self.file.seek(std::io::SeekFrom::Start(at)).await.map(drop)
    }

    /// Gives up: what arrived stays for the next call, but an empty part (a 404, a refused
    /// connection) is no use to anyone.
    async fn abandon(mut self) {
        if self.len().await.is_ok_and(|n| n == 0) {
            // Removed while still locked, so no one else starts on it in between.
            let _ = tokio::fs::remove_file(&self.path).await;
            let _ = tokio::fs::remove_file(&self.validator_path).await;
        }
    }

    /// The part is whole (and synced): it takes the final name, still locked, and the
    /// directory entry is synced so the rename survives a crash.
    async fn finish(self, target: &Path) -> Result<(), ApiError> {
        tokio::fs::rename(&self.path, target)
            .await
            .map_err(|e| io_error(target, &e))?;
        drop(self.file);
        let _ = tokio::fs::remove_file(&self.validator_path).await;
        if let Some(dir) = target.parent() {
            // Directories cannot be opened for syncing everywhere (Windows); then the rename
            // is as durable as the platform makes it.
            if let Ok(d) = tokio::fs::File::open(dir).await {
                let _ = d.sync_all().await;
            }
        }
        Ok(())
    }
}

async fn exists(path: &Path) -> bool {
    tokio::fs::symlink_metadata(path).await.is_ok()
}

/// A header's value if it is printable ASCII of a sane length: only such text goes back to
/// the server in `If-Range`, or into a file beside the download.
fn header_text(r: &reqwest::Response, name: reqwest::header::HeaderName) -> Option<String> {
    usable_validator(r.headers().get(name)?.to_str().ok()?)
}

/// `v` if it may be sent back in `If-Range` or written beside a file: printable ASCII, at
/// most 512 bytes.
pub fn usable_validator(v: &str) -> Option<String> {
    (!v.is_empty() && v.len() <= 512 && v.chars().all(|c| matches!(c, ' '..='~')))
        .then(|| v.to_string())
}

/// What `If-Range` may carry: a strong `ETag`, else `Last-Modified`. (A weak `ETag` never
/// matches in `If-Range`, so sending it would restart every resume.)
fn validator_of(r: &reqwest::Response) -> Option<String> {
    header_text(r, reqwest::header::ETAG)
        .filter(|t| !t.starts_with("W/"))
        .or_else(|| header_text(r, reqwest::header::LAST_MODIFIED))
}

/// `Content-Range: bytes START-END/TOTAL`, `bytes START-END/*` or `bytes */TOTAL`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ContentRange {
    range: Option<(u64, u64)>,
    total: Option<u64>,
}

impl ContentRange {
    fn parse(v: &str) -> Option<Self> {
        let (range, total) = v.trim().strip_prefix("bytes ")?.split_once('/')?;
        let total = match total.trim() {
            "*" => None,
            t => Some(t.parse().ok()?),
        };
        let range = match range.trim() {
            "*" => None,
            r => {
                let (start, end) = r.split_once('-')?;
                let (start, end): (u64, u64) =
                    (start.trim().parse().ok()?, end.trim().parse().ok()?);
                if end < start || total.is_some_and(|t| end >= t) {
                    return None;
                }
                Some((start, end))
            }
        };
        (range.is_some() || total.is_some()).then_some(ContentRange { range, total })
    }
}

fn io_error(path: &Path, e: &std::io::Error) -> ApiError {
    ApiError::Invalid(format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests;
