//! `gendash download`: fetch completed tasks' files.

use super::{CliResult, Failure, Global, client_from, output};
use crate::api::download::{Downloader, Template, TemplateValues, part_path};
use crate::api::types::{TaskState, classify};
use crate::api::{ApiError, TaskKind};
use crate::cli::exit;
use crate::store::sidecar::{self, Provenance};
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub struct DownloadArgs {
    /// The tasks are video tasks (default: image).
    #[arg(long)]
    pub video: bool,
    #[arg(
        short = 'o',
        long = "output-dir",
        value_name = "DIR",
        help = "Directory to save into, created if missing (default: download_dir of the config, else the platform's download directory). Files are named by download_template"
    )]
    pub dir: Option<PathBuf>,
    /// Overwrite files that are already there.
    #[arg(long)]
    pub force: bool,
    #[arg(
        long,
        help = "One JSON object per task and line: {task_id, path, bytes, resumed}, or {task_id, kind, error}"
    )]
    pub json: bool,
    #[arg(required = true, value_name = "TASK_ID")]
    pub ids: Vec<String>,
}

pub async fn run(global: &Global, args: &DownloadArgs) -> CliResult {
    let settings = global.settings()?;
    let client = client_from(&settings)?;
    #[cfg_attr(
        not(any(test, debug_assertions, feature = "testing")),
        allow(unused_mut)
    )]
    let mut downloader = Downloader::new(Some(client.base_url()), settings.token.clone())?;
    #[cfg(any(test, debug_assertions, feature = "testing"))]
    if let Some(base) = crate::testing::download_retry_base() {
        downloader = downloader.with_retry_base(base);
    }
    let kind = TaskKind::from_video_flag(args.video);
    let dir = args.dir.clone().unwrap_or(settings.download_dir.clone());
    if dir.exists() && !dir.is_dir() {
        return Err(Failure::new(
            exit::OTHER,
            format!("{} is not a directory", dir.display()),
        ));
    }
    let place = Place {
        dir,
        template: settings.download_template.clone(),
        force: args.force,
        sidecar: settings.sidecar,
        profile: settings.profile.clone(),
    };
    let mut worst = exit::OK;
    for id in &args.ids {
        let code = match download_one(
            &client,
            &downloader,
            &settings.failure_statuses,
            kind,
            id,
            &place,
        )
        .await
        {
            Ok(saved) => {
                report_saved(id, &saved, args.json);
                exit::OK
            }
            Err(f) => {
                output::error(&format!("{id}: {}", f.message));
                if args.json {
                    output::json_line(serde_json::json!({
                        "task_id": id,
                        "kind": kind.as_str(),
                        "error": f.message,
                    }));
                }
                f.code
            }
        };
        if worst == exit::OK {
            worst = code;
        }
    }
    Ok(worst)
}

/// A file saved: where, how long, and whether it was finished from a `.part` an earlier run
/// left.
struct Saved {
    path: PathBuf,
    bytes: u64,
    resumed: bool,
}

/// The path alone on stdout, so `gendash download … | xargs open` works; or its JSON object.
/// A resume is noted on stderr.
fn report_saved(id: &str, saved: &Saved, json: bool) {
    let path = saved.path.display().to_string();
    if json {
        output::json_line(serde_json::json!({
            "task_id": id,
            "path": path,
            "bytes": saved.bytes,
            "resumed": saved.resumed,
        }));
    } else {
        output::line(&path);
        if saved.resumed {
            eprintln!(
                "{}: resumed from the part an earlier run left",
                output::sanitize_line(id)
            );
        }
    }
}

/// Where files go: the directory, the template inside it, and whether to overwrite.
struct Place {
    dir: PathBuf,
    template: Template,
    force: bool,
    /// `sidecar`: write the provenance file beside each file.
    sidecar: bool,
    /// The profile in force, for the provenance file.
    profile: Option<String>,
}

impl Place {
    /// The absolute path of the task's file.
    fn target(&self, id: &str, kind: TaskKind, status: &str) -> Result<PathBuf, Failure> {
        let label = label_of(&self.template, id);
        let relative = self.template.expand(&TemplateValues {
            task_id: id,
            kind,
            status,
            date: &crate::clock::today(),
            label: &label,
        });
        std::path::absolute(self.dir.join(relative))
            .map_err(|e| Failure::new(exit::OTHER, format!("cannot place the file: {e}")))
    }
}

/// `{label}`: the task's label on the watch list, read only when the template asks for it.
fn label_of(template: &Template, id: &str) -> String {
    if !template.as_str().contains("{label}") {
        return String::new();
    }
    watched(id, None).and_then(|e| e.label).unwrap_or_default()
}

/// The task's entry on the watch list, if it is there (of `kind`, when given).
fn watched(id: &str, kind: Option<TaskKind>) -> Option<crate::store::watchlist::WatchEntry> {
    crate::store::watchlist::WatchStore::new(crate::store::watchlist::WatchStore::default_path())
        .read()
        .ok()?
        .into_iter()
        .find(|e| e.task_id == id && kind.is_none_or(|k| e.kind == k))
}

/// Writes the provenance file beside the saved `path`: what the watch list knows of the task,
/// if it is watched, and what the service just answered. A failure is said; the file stays.
fn write_sidecar(
    client: &crate::api::Client,
    profile: Option<&str>,
    task: &crate::api::TaskResult,
    url: &str,
    path: &std::path::Path,
    etag: Option<&str>,
) {
    let base_url = crate::store::watchlist::service_key(client.base_url());
    let entry = watched(&task.task_id, Some(task.kind));
    let provenance = Provenance {
        reported: Some(task.envelope.clone()),
        ..entry.as_ref().map_or_else(
            || Provenance {
                base_url: Some(base_url.clone()),
                profile: profile.map(str::to_string),
                ..Provenance::default()
            },
            |e| Provenance::of_entry(e, &base_url, profile.map(str::to_string)),
        )
    };
    let label = entry.as_ref().and_then(|e| e.label.as_deref());
    if let Err(e) = sidecar::write(
        path,
        &task.task_id,
        task.kind,
        label,
        url,
        etag,
        &provenance,
    ) {
        output::error(&format!(
            "cannot write {}: {e} (the file itself is saved)",
            sidecar::path_for(path).display()
        ));
    }
}

/// The download's progress bar on stderr, if stderr is a terminal.
fn progress_bar(id: &str) -> Option<indicatif::ProgressBar> {
    output::stderr_is_terminal().then(|| {
        let b = indicatif::ProgressBar::new(0);
        b.set_style(
            indicatif::ProgressStyle::with_template("{prefix} [{bar:30}] {bytes}/{total_bytes}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        b.set_prefix(output::sanitize_line(id));
        b
    })
}

async fn download_one(
    client: &crate::api::Client,
    downloader: &Downloader,
    failure_statuses: &[String],
    kind: TaskKind,
    id: &str,
    place: &Place,
) -> Result<Saved, Failure> {
    let task = client.task_result(kind, id).await?;
    match classify(&task.status, failure_statuses) {
        TaskState::Completed => {}
        TaskState::Failed => {
            return Err(Failure::new(
                exit::TASK_FAILED,
                format!("the task ended with status {}", task.status),
            ));
        }
        TaskState::Running => {
            return Err(Failure::new(
                exit::OTHER,
                format!(
                    "the task is not completed yet (status {}, {}%)",
                    task.status, task.percent
                ),
            ));
        }
    }
    let url = task
        .url_download
        .clone()
        .ok_or_else(|| Failure::new(exit::OTHER, "the completed task has no download URL"))?;
    let bar = progress_bar(id);
    // A download's first report is what the part already held: more than nothing is a resume.
    let mut first_report: Option<u64> = None;
    let mut progress = |done: u64, total: Option<u64>| {
        first_report.get_or_insert(done);
        if let Some(b) = &bar {
            if let Some(t) = total {
                b.set_length(t);
            }
            b.set_position(done);
        }
    };
    let target = place.target(id, kind, &task.status)?;
    let (Some(parent), Some(name)) = (target.parent(), target.file_name()) else {
        return Err(Failure::new(
            exit::OTHER,
            "the download template names no file",
        ));
    };
    tokio::fs::create_dir_all(parent).await.map_err(|e| {
        Failure::new(
            exit::OTHER,
            format!("cannot create {}: {e}", parent.display()),
        )
    })?;
    let result = downloader
        .fetch_seen(
            &url,
            parent,
            &name.to_string_lossy(),
            place.force,
            &mut progress,
        )
        .await;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let resumed = first_report.is_some_and(|held| held > 0);
    let fetched = result.map_err(|e: ApiError| {
        let mut failure: Failure = e.into();
        let part = part_path(parent, &name.to_string_lossy());
        if let Ok(kept) = std::fs::metadata(&part)
            && kept.len() > 0
        {
            failure.message = format!("{}; {}", failure.message, kept_note(kept.len(), &part));
        }
        failure
    })?;
    if place.sidecar {
        write_sidecar(
            client,
            place.profile.as_deref(),
            &task,
            fetched.url.as_str(),
            &fetched.path,
            fetched.etag.as_deref(),
        );
    }
    let bytes = tokio::fs::metadata(&fetched.path)
        .await
        .map_or(0, |m| m.len());
    Ok(Saved {
        path: fetched.path,
        bytes,
        resumed,
    })
}

/// What a failed download leaves for the next run: `the 1,234 bytes received are kept in
/// PATH: run again to resume`, the count said as every count is.
fn kept_note(bytes: u64, part: &Path) -> String {
    let n = usize::try_from(bytes).unwrap_or(usize::MAX);
    format!(
        "the {} received {} kept in {}: run again to resume",
        crate::fmt::count(n, "byte"),
        if n == 1 { "is" } else { "are" },
        part.display()
    )
}

#[cfg(test)]
mod kept_note_tests {
    #[test]
    fn the_bytes_kept_are_counted_grouped() {
        let part = std::path::Path::new("/dl/a.png.part");
        assert_eq!(
            super::kept_note(1_234_567, part),
            "the 1,234,567 bytes received are kept in /dl/a.png.part: run again to resume"
        );
        assert!(super::kept_note(1, part).starts_with("the 1 byte received is kept"));
    }
}
