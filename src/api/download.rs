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
    let mut name: String = super::sanitize::sanitize_with_limit(task_id, 200)
        .chars()
        .map(|c| match c {
            '/' | '\\' | ':' | '\0' => '_',
            c => c,
        })
        .collect();
    if name.starts_with('.') || name.is_empty() {
        name.insert(0, '_');
    }
    format!("{name}.{}", kind.extension())
}

/// Progress callback: bytes written so far and the announced total, if any.
pub type Progress<'a> = &'a mut (dyn FnMut(u64, Option<u64>) + Send);

/// The download engine shared by `gendash download` and the dashboard.
#[derive(Clone, Debug)]
pub struct Downloader {
    transport: Transport,
    /// The token is presented only to the service's own origin.
    token: Option<(url::Origin, Secret)>,
}

impl Downloader {
    pub fn new(service_base: Option<&Url>, token: Option<Secret>) -> Result<Self, ApiError> {
        let transport = Transport::new(Deadline::BetweenReads(READ_TIMEOUT))?;
        let token = match (service_base, token) {
            (Some(base), Some(t)) if !t.is_empty() => Some((base.origin(), t)),
            _ => None,
        };
        Ok(Downloader { transport, token })
    }

    /// A downloader that presents the client's token to the client's service, and to no one
    /// else.
    pub fn for_service(client: &super::Client) -> Result<Self, ApiError> {
        Self::new(Some(client.base_url()), Some(client.token().clone()))
    }

    /// Streams `url` into `dir/name`. Refuses non-http(s) URLs, and an existing file unless
    /// `force`. Returns the final path.
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
        if !force && tokio::fs::symlink_metadata(&target).await.is_ok() {
            return Err(ApiError::Invalid(format!(
                "{} exists; use --force to overwrite",
                target.display()
            )));
        }
        let origin = url.origin();
        let origin_text = origin.ascii_serialization();
        // The token goes to the service's own origin only; a redirect elsewhere is refused.
        let token = self
            .token
            .as_ref()
            .filter(|(service, _)| *service == origin)
            .map(|(_, t)| t);
        let mut response = self
            .transport
            .send(self.transport.get(url), token, &origin_text)
            .await?;
        if !response.status().is_success() {
            return Err(self
                .transport
                .status_error(response, &origin_text, token, false)
                .await);
        }
        let total = response.content_length();
        let temp = dir.join(format!(".{name}.part-{}", std::process::id()));
        let result = async {
            let mut file = tokio::fs::File::create(&temp)
                .await
                .map_err(|e| io_error(&temp, &e))?;
            let mut written = 0u64;
            progress(0, total);
            while let Some(chunk) = response
                .chunk()
                .await
                .map_err(|e| self.transport.transport_error(&e, &origin_text))?
            {
                file.write_all(&chunk)
                    .await
                    .map_err(|e| io_error(&temp, &e))?;
                written += chunk.len() as u64;
                progress(written, total);
            }
            if total.is_some_and(|t| t != written) {
                return Err(ApiError::Transport {
                    origin: origin_text.clone(),
                    detail: "the file ended before its announced length".into(),
                });
            }
            file.sync_all().await.map_err(|e| io_error(&temp, &e))?;
            drop(file);
            if !force && tokio::fs::symlink_metadata(&target).await.is_ok() {
                return Err(ApiError::Invalid(format!(
                    "{} appeared meanwhile; use --force to overwrite",
                    target.display()
                )));
            }
            tokio::fs::rename(&temp, &target)
                .await
                .map_err(|e| io_error(&target, &e))?;
            Ok(target.clone())
        }
        .await;
        if result.is_err() {
            let _ = tokio::fs::remove_file(&temp).await;
        }
        result
    }
}

fn io_error(path: &Path, e: &std::io::Error) -> ApiError {
    ApiError::Invalid(format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

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
