//! Downloads: a finished task's file, fetched with its service's downloader (the router picks
//! it) to the place `download_dir` and `download_template` name, with progress reported at
//! most ten times a second. A file already there is not touched unless the job says so: the
//! App asks the user first. The preview's whole copy of the file, if it has one, is copied
//! instead of fetched again.

use super::copies::{self, Copies};
use crate::api::download::{Downloader, Fetched, Template, TemplateValues};
use crate::cmd::{DownloadJob, TaskKey};
use crate::msg::{DownloadEvent, Msg};
use crate::store::sidecar::{self, Provenance};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Where downloads go: `download_dir` and `download_template`.
#[derive(Debug, Clone)]
pub struct Placement {
    pub dir: PathBuf,
    pub template: Template,
    /// `sidecar`: write the provenance file `<file>.json` beside each saved file.
    pub sidecar: bool,
}

impl Placement {
    /// The absolute path of the task's file.
    pub fn target(&self, job: &DownloadJob) -> PathBuf {
        let relative = self.template.expand(&TemplateValues {
            task_id: &job.key.id,
            kind: job.key.kind,
            status: &job.status,
            date: &crate::clock::today(),
            label: job.label.as_deref().unwrap_or(""),
        });
        let path = self.dir.join(relative);
        std::path::absolute(&path).unwrap_or(path)
    }
}

/// The router's handle on the downloads: each job it hands on runs as its own task, reporting
/// to the App as `Msg::Download` until its file is saved or it failed.
pub struct Handle {
    /// Shared with `Workers`, which changes it when the config is read again.
    placement: Arc<Mutex<Placement>>,
    /// Shared with the previews: each file is fetched once.
    copies: Copies,
    msgs: mpsc::Sender<Msg>,
}

/// Downloads to `placement`, taking turns with the previews on `copies`.
pub fn spawn(placement: Placement, copies: Copies, msgs: mpsc::Sender<Msg>) -> Handle {
    Handle {
        placement: Arc::new(Mutex::new(placement)),
        copies,
        msgs,
    }
}

impl Handle {
    /// Where downloads go, shared: a download started after a change goes to the new place.
    pub fn placement(&self) -> Arc<Mutex<Placement>> {
        Arc::clone(&self.placement)
    }

    /// Downloads `job`'s file with `dl`, the downloader of the job's service.
    pub fn start(&self, dl: Downloader, job: DownloadJob) {
        let (target, sidecar) = {
            let placement = self
                .placement
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            (placement.target(&job), placement.sidecar)
        };
        let (copies, msgs) = (self.copies.clone(), self.msgs.clone());
        tokio::spawn(async move {
            let DownloadJob {
                key,
                url,
                force,
                label,
                provenance,
                ..
            } = job;
            // A preview fetching the same file goes first: the row says so at once, since a
            // slow file can take a while.
            let mut known = if let Some(known) = copies.try_hold(&url) {
                known
            } else {
                let waiting = DownloadEvent::WaitingForPreview;
                let _ = msgs
                    .send(Msg::Download {
                        key: key.clone(),
                        event: waiting,
                    })
                    .await;
                copies.hold(&url).await
            };
            let fetched = fetch_to(&dl, &url, &target, force, &key, &msgs, &copies).await;
            let event = match fetched {
                Ok(Fetched { path, etag, url }) => {
                    *known = Some(path.clone());
                    if sidecar {
                        let written = write_sidecar(
                            &path,
                            &key,
                            label.as_deref(),
                            url.as_str(),
                            etag.as_deref(),
                            &provenance,
                        )
                        .await;
                        if let Err(e) = written {
                            // The file stays: only its provenance is missing, and said so.
                            tracing::warn!("{e}");
                            let _ = msgs.send(Msg::StoreProblem(e.to_string())).await;
                        }
                    }
                    DownloadEvent::Saved(path)
                }
                Err(e) => e,
            };
            drop(known);
            let _ = msgs.send(Msg::Download { key, event }).await;
        });
    }
}

/// A provenance file that could not be written: which, and why.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {source}", path.display())]
pub struct SidecarError {
    path: PathBuf,
    source: std::io::Error,
}

/// Writes the provenance file of the complete file at `path`; the error says which file
/// lacks one, and why.
async fn write_sidecar(
    path: &std::path::Path,
    key: &TaskKey,
    label: Option<&str>,
    url: &str,
    etag: Option<&str>,
    provenance: &Provenance,
) -> Result<PathBuf, SidecarError> {
    let (path, id, kind) = (path.to_path_buf(), key.id.clone(), key.kind);
    let (label, url, etag) = (
        label.map(str::to_string),
        url.to_string(),
        etag.map(str::to_string),
    );
    let provenance = provenance.clone();
    let target = sidecar::path_for(&path);
    tokio::task::spawn_blocking(move || {
        sidecar::write(
            &path,
            &id,
            kind,
            label.as_deref(),
            &url,
            etag.as_deref(),
            &provenance,
        )
    })
    .await
    .map_err(std::io::Error::other)
    .and_then(|r| r)
    .map_err(|source| SidecarError {
        path: target,
        source,
    })
}

/// Fetches (or copies from the previews' cache) the file; its path and the `ETag` it came
/// with, if the server sent one.
async fn fetch_to(
    dl: &Downloader,
    url: &str,
    target: &std::path::Path,
    force: bool,
    key: &TaskKey,
    msgs: &mpsc::Sender<Msg>,
    copies: &Copies,
) -> Result<Fetched, DownloadEvent> {
    if !force && tokio::fs::symlink_metadata(target).await.is_ok() {
        return Err(DownloadEvent::Exists(target.to_path_buf()));
    }
    let (Some(dir), Some(name)) = (target.parent(), target.file_name()) else {
        return Err(DownloadEvent::Failed(
            "the download template names no file".into(),
        ));
    };
    tokio::fs::create_dir_all(dir)
        .await
        .map_err(|e| DownloadEvent::Failed(format!("cannot create {}: {e}", dir.display())))?;
    let (shared, from_url, to) = (copies.clone(), url.to_string(), target.to_path_buf());
    let from_cache = tokio::task::spawn_blocking(move || {
        let (cached, origin) = shared.cached(&from_url)?;
        copies::copy_whole(&cached, &to).ok().map(|()| origin)
    })
    .await;
    if let (Ok(Some(origin)), Ok(asked)) = (from_cache, url::Url::parse(url)) {
        tracing::info!("{} copied from the preview cache", target.display());
        return Ok(Fetched {
            path: target.to_path_buf(),
            etag: origin.etag,
            // Where the preview's fetch ended, after redirects; the URL asked for when the
            // cache does not know (a picture kept by an older gendash).
            url: origin.url.unwrap_or(asked),
        });
    }
    let mut last: Option<Instant> = None;
    let mut progress = |done: u64, total: Option<u64>| {
        if last.is_none_or(|l| l.elapsed() >= Duration::from_millis(100)) {
            last = Some(Instant::now());
            let _ = msgs.try_send(Msg::Download {
                key: key.clone(),
                event: DownloadEvent::Progress { done, total },
            });
        }
    };
    dl.fetch_seen(url, dir, &name.to_string_lossy(), force, &mut progress)
        .await
        .map_err(failure_event)
}

/// How a failed download reaches the App: a file that appeared while this one downloaded is
/// asked about, as one found before it started; anything else is a failure.
fn failure_event(e: crate::api::ApiError) -> DownloadEvent {
    match e {
        crate::api::ApiError::Exists { path } => DownloadEvent::Exists(path),
        e => DownloadEvent::Failed(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ApiError;

    /// A download of a file the preview is fetching says it waits, at once, then goes on
    /// once the preview let go of it.
    #[tokio::test]
    async fn a_download_behind_the_preview_says_it_waits_at_once() {
        use crate::api::TaskKind;
        let dir = tempfile::tempdir().expect("tempdir");
        let client = crate::workers::closed_port_client();
        let (msgs, mut rx) = mpsc::channel(16);
        let copies = Copies::default();
        let downloads = spawn(
            Placement {
                dir: dir.path().to_path_buf(),
                template: crate::api::download::Template::parse("{task_id}.{ext}")
                    .expect("template"),
                sidecar: false,
            },
            copies.clone(),
            msgs,
        );
        let url = "http://127.0.0.1:9/files/t.png";
        let preview = copies.hold(url).await;
        let entry = crate::store::watchlist::WatchEntry::new("t", TaskKind::Image);
        let key = TaskKey::of(&entry);
        downloads.start(
            Downloader::for_service(&client)
                .expect("downloader")
                .with_retry_base(std::time::Duration::from_millis(1)),
            DownloadJob {
                key: key.clone(),
                url: url.into(),
                service: None,
                status: "COMPLETED".into(),
                force: false,
                label: None,
                provenance: Box::new(crate::store::sidecar::Provenance::of_entry(
                    &entry,
                    "http://127.0.0.1:9/",
                    None,
                )),
            },
        );
        let first = tokio::time::timeout(std::time::Duration::from_secs(2), rx.recv())
            .await
            .expect("said at once");
        assert!(
            matches!(
                &first,
                Some(Msg::Download { key: k, event: DownloadEvent::WaitingForPreview }) if *k == key
            ),
            "{first:?}"
        );
        drop(preview);
        let next = tokio::time::timeout(std::time::Duration::from_secs(60), rx.recv())
            .await
            .expect("went on");
        assert!(
            matches!(&next, Some(Msg::Download { event, .. }) if *event != DownloadEvent::WaitingForPreview),
            "{next:?}"
        );
    }

    #[test]
    fn a_file_that_appeared_mid_download_is_asked_about_not_failed() {
        let path = PathBuf::from("/dl/t.png");
        assert_eq!(
            failure_event(ApiError::Exists { path: path.clone() }),
            DownloadEvent::Exists(path)
        );
        assert!(matches!(
            failure_event(ApiError::Invalid("bad".into())),
            DownloadEvent::Failed(m) if m.contains("bad")
        ));
    }
}
