//! Fetching a finished task's file: streamed to a temporary name beside the target and renamed
//! into place only when complete, so a partial file never carries the real name.

use super::error::ApiError;
use super::http::{Deadline, Transport};
use super::links::validate_link;
use super::secret::Secret;
use super::types::TaskKind;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use url::Url;

/// Downloads stall out after this long without a byte, however long the whole file takes.
pub const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// The file name a task's result is saved under: `<task_id>.png|.mp4`, with characters that
/// would leave the directory or hide the file replaced by `_`.
pub fn file_name(task_id: &str, kind: TaskKind) -> String {
    format!("{}.{}", safe_component(task_id), kind.extension())
}

/// One path component from a value that may hold anything: characters that would leave the
/// directory, hide the file or upset a terminal are gone or replaced by `_`, and `.`/`..`
/// cannot result.
pub fn safe_component(value: &str) -> String {
    let mut name: String = super::sanitize::sanitize_with_limit(value, 120)
        .chars()
        .map(|c| match c {
            '/' | '\\' | ':' | '\0' => '_',
            c => c,
        })
        .collect();
    if name.starts_with('.') || name.is_empty() {
        name.insert(0, '_');
    }
    name
}

/// The placeholders a download template may hold.
pub const TEMPLATE_PLACEHOLDERS: [&str; 5] = ["task_id", "kind", "ext", "date", "status"];

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
}

impl Default for Template {
    fn default() -> Self {
        Template("{task_id}.{ext}".into())
    }
}

impl Template {
    pub fn parse(text: &str) -> Result<Self, String> {
        if text.trim().is_empty() {
            return Err("the download template is empty".into());
        }
        if text.starts_with('/') || text.starts_with('\\') || text.starts_with('~') {
            return Err(format!(
                "`{text}` is absolute; it is a path inside download_dir"
            ));
        }
        let mut rest = text;
        while let Some(at) = rest.find(['{', '}']) {
            if rest[at..].starts_with('}') {
                return Err(format!("`{text}` has a `}}` without its `{{`"));
            }
            let after = &rest[at + 1..];
            let end = after
                .find('}')
                .ok_or_else(|| format!("`{text}` has a `{{` without its `}}`"))?;
            let name = &after[..end];
            if !TEMPLATE_PLACEHOLDERS.contains(&name) {
                return Err(format!(
                    "`{{{name}}}` is not a placeholder of download_template (known: {})",
                    TEMPLATE_PLACEHOLDERS.map(|p| format!("{{{p}}}")).join(", ")
                ));
            }
            rest = &after[end + 1..];
        }
        for part in text.split(['/', '\\']) {
            if part == ".." || part == "." {
                return Err(format!("`{text}` has a `{part}` component"));
            }
            if part.is_empty() {
                return Err(format!("`{text}` has an empty path component"));
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
                // A component made only of values (`{status}`) must not hide or climb.
                safe_component(&out)
            })
            .collect()
    }
}

/// Today's date for `{date}`, `YYYY-MM-DD`: local where the offset is known, else UTC.
pub fn today() -> String {
    let now = time::OffsetDateTime::now_local().unwrap_or_else(|_| time::OffsetDateTime::now_utc());
    let fmt = time::macros::format_description!("[year]-[month]-[day]");
    now.format(&fmt).unwrap_or_default()
}

/// Progress callback: bytes written so far and the announced total, if any.
pub type Progress<'a> = &'a mut (dyn FnMut(u64, Option<u64>) + Send);

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
        let transport = Transport::new(Deadline::BetweenReads(READ_TIMEOUT))?;
        let token = match (service_base, token) {
            (Some(base), Some(t)) if !t.is_empty() => Some((base.origin(), t)),
            _ => None,
        };
        Ok(Downloader {
            transport,
            token,
            retry_base: Duration::from_millis(500),
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
    pub fn for_service(client: &super::Client) -> Result<Self, ApiError> {
        Self::new(Some(client.base_url()), Some(client.token().clone()))
    }

    /// Downloads `url` into `dir/name`. Refuses non-http(s) URLs, and an existing file unless
    /// `force`. The body goes to `name.part` (kept when the download fails, resumed from by the
    /// next call); a dropped connection or a short body is resumed with `Range` (and `If-Range`
    /// when the server gave a validator) up to `ATTEMPTS` times; a server that answers 200
    /// instead of 206 starts from zero. Only a complete body is renamed to `name`.
    pub async fn fetch(
        &self,
        url: &str,
        dir: &Path,
        name: &str,
        force: bool,
        progress: Progress<'_>,
    ) -> Result<PathBuf, ApiError> {
        let url = validate_link(url).map_err(|e| ApiError::Invalid(e.to_string()))?;
        let target = dir.join(name);
        if !force && exists(&target).await {
            return Err(ApiError::Invalid(format!(
                "{} exists; use --force to overwrite",
                target.display()
            )));
        }
        let part = dir.join(format!("{name}.part"));
        let meta = dir.join(format!("{name}.part.validator"));
        let mut failures = 0;
        loop {
            match self.attempt(&url, &part, &meta, progress).await {
                Ok(()) => break,
                Err(Attempt::Fatal(e)) => return Err(e),
                Err(Attempt::Again(e)) => {
                    failures += 1;
                    if failures >= ATTEMPTS {
                        return Err(e);
                    }
                    tracing::info!("download of {url} interrupted ({e}); resuming");
                    tokio::time::sleep(self.retry_base * 2u32.pow(failures - 1)).await;
                }
            }
        }
        if !force && exists(&target).await {
            return Err(ApiError::Invalid(format!(
                "{} appeared meanwhile; use --force to overwrite",
                target.display()
            )));
        }
        tokio::fs::rename(&part, &target)
            .await
            .map_err(|e| io_error(&target, &e))?;
        let _ = tokio::fs::remove_file(&meta).await;
        Ok(target)
    }

    /// One request: appends to `part` from its current length, or starts it again.
    async fn attempt(
        &self,
        url: &Url,
        part: &Path,
        meta: &Path,
        progress: Progress<'_>,
    ) -> Result<(), Attempt> {
        let origin_text = url.origin().ascii_serialization();
        // The token goes to the service's own origin only; a redirect elsewhere is refused.
        let token = self
            .token
            .as_ref()
            .filter(|(service, _)| *service == url.origin())
            .map(|(_, t)| t);
        let have = tokio::fs::metadata(part).await.map_or(0, |m| m.len());
        let validator = tokio::fs::read_to_string(meta).await.ok();
        let mut request = self.transport.get(url.clone());
        if have > 0 {
            request = request.header(reqwest::header::RANGE, format!("bytes={have}-"));
            if let Some(v) = validator.as_deref().filter(|v| !v.is_empty()) {
                request = request.header(reqwest::header::IF_RANGE, v);
            }
        }
        let mut response = self
            .transport
            .send(request, token, &origin_text)
            .await
            .map_err(again_if_transient)?;
        let status = response.status();
        if status == reqwest::StatusCode::RANGE_NOT_SATISFIABLE && have > 0 {
            // The part is as long as the file, or longer: check it against the total.
            let total = content_range_total(&response);
            if total == Some(have) && validator.is_some() {
                progress(have, Some(have));
                return Ok(());
            }
            let _ = tokio::fs::remove_file(part).await;
            return Err(Attempt::Again(ApiError::Invalid(
                "the partial download did not match the file; starting again".into(),
            )));
        }
        if !status.is_success() {
            return Err(Attempt::Fatal(
                self.transport
                    .status_error(response, &origin_text, token, false)
                    .await,
            ));
        }
        // 206 continues the part from where it ends; anything else is the whole file.
        let resumed = status == reqwest::StatusCode::PARTIAL_CONTENT
            && content_range_start(&response) == Some(have);
        let start = if resumed { have } else { 0 };
        let total = response.content_length().map(|n| n + start);
        let new_validator = header_text(&response, reqwest::header::ETAG)
            .or_else(|| header_text(&response, reqwest::header::LAST_MODIFIED));
        if !resumed || validator.as_deref() != new_validator.as_deref() {
            tokio::fs::write(meta, new_validator.unwrap_or_default())
                .await
                .map_err(|e| Attempt::Fatal(io_error(meta, &e)))?;
        }
        let mut file = if resumed {
            tokio::fs::OpenOptions::new().append(true).open(part).await
        } else {
            tokio::fs::File::create(part).await
        }
        .map_err(|e| Attempt::Fatal(io_error(part, &e)))?;
        let mut written = start;
        progress(written, total);
        loop {
            let chunk = match response.chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => break,
                Err(e) => {
                    let _ = file.sync_all().await;
                    return Err(Attempt::Again(
                        self.transport.transport_error(&e, &origin_text),
                    ));
                }
            };
            file.write_all(&chunk)
                .await
                .map_err(|e| Attempt::Fatal(io_error(part, &e)))?;
            written += chunk.len() as u64;
            progress(written, total);
        }
        file.sync_all()
            .await
            .map_err(|e| Attempt::Fatal(io_error(part, &e)))?;
        if total.is_some_and(|t| t != written) {
            return Err(Attempt::Again(ApiError::Transport {
                origin: origin_text,
                detail: "the file ended before its announced length".into(),
            }));
        }
        Ok(())
    }
}

/// Attempts at one download before it fails (the `.part` file is kept for the next try).
pub const ATTEMPTS: u32 = 5;

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

async fn exists(path: &Path) -> bool {
    tokio::fs::symlink_metadata(path).await.is_ok()
}

fn header_text(r: &reqwest::Response, name: reqwest::header::HeaderName) -> Option<String> {
    let v = r.headers().get(name)?.to_str().ok()?;
    // Only printable ASCII goes back to the server in `If-Range`.
    (!v.is_empty() && v.chars().all(|c| matches!(c, ' '..='~'))).then(|| v.to_string())
}

/// `Content-Range: bytes START-END/TOTAL` → START.
fn content_range_start(r: &reqwest::Response) -> Option<u64> {
    let v = header_text(r, reqwest::header::CONTENT_RANGE)?;
    v.strip_prefix("bytes ")?
        .split('-')
        .next()?
        .trim()
        .parse()
        .ok()
}

/// `Content-Range: bytes …/TOTAL` (also `bytes */TOTAL`) → TOTAL.
fn content_range_total(r: &reqwest::Response) -> Option<u64> {
    let v = header_text(r, reqwest::header::CONTENT_RANGE)?;
    v.rsplit('/').next()?.trim().parse().ok()
}

fn io_error(path: &Path, e: &std::io::Error) -> ApiError {
    ApiError::Invalid(format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values<'a>(task_id: &'a str, status: &'a str) -> TemplateValues<'a> {
        TemplateValues {
            task_id,
            kind: TaskKind::Video,
            status,
            date: "2026-11-22",
        }
    }

    #[test]
    fn templates_expand_inside_the_directory_whatever_the_values() {
        let t = Template::parse("{kind}/{date}/{task_id}-{status}.{ext}").expect("valid");
        assert_eq!(
            t.expand(&values("abc", "COMPLETED")),
            PathBuf::from("video/2026-11-22/abc-COMPLETED.mp4")
        );
        assert_eq!(
            t.expand(&values("../../etc/passwd", "x")),
            PathBuf::from("video/2026-11-22/_.._.._etc_passwd-x.mp4")
        );
        let only = Template::parse("{status}/{task_id}").expect("valid");
        assert_eq!(only.expand(&values("..", "..")), PathBuf::from("_../_.."));
        assert_eq!(
            only.expand(&values("a\u{1b}]0;x\u{7}b\\c", ".hidden")),
            PathBuf::from("_.hidden/ab_c")
        );
        assert_eq!(
            Template::default().expand(&values("t/1", "C")),
            PathBuf::from("t_1.mp4")
        );
        for p in [
            Template::default().expand(&values("\u{202e}evil", "x")),
            only.expand(&values("/", "/")),
        ] {
            assert!(
                p.components()
                    .all(|c| matches!(c, std::path::Component::Normal(_))),
                "{p:?}"
            );
        }
    }

    #[test]
    fn bad_templates_say_what_is_wrong() {
        for (text, says) in [
            ("", "empty"),
            ("/abs/{task_id}", "absolute"),
            ("~/x/{task_id}", "absolute"),
            ("../{task_id}", "`..` component"),
            ("a//{task_id}", "empty path component"),
            ("{task}.{ext}", "`{task}` is not a placeholder"),
            ("{task_id.{ext}", "not a placeholder"),
            ("{task_id", "without its `}`"),
            ("task}", "without its `{`"),
        ] {
            let e = Template::parse(text).expect_err(text);
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn file_names_cannot_escape() {
        assert_eq!(file_name("abc", TaskKind::Image), "abc.png");
        assert_eq!(
            file_name("../../etc/passwd", TaskKind::Video),
            "_.._.._etc_passwd.mp4"
        );
        assert_eq!(file_name(".hidden", TaskKind::Image), "_.hidden.png");
        assert_eq!(file_name("a\u{1b}[2Jb", TaskKind::Image), "ab.png");
    }
}
