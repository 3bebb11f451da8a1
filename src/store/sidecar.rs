//! `sidecar = true`: the provenance file `<file>.json` beside each saved file: which task of
//! which service it came from, when, and the file's SHA-256. Written atomically (temporary
//! file, sync, rename: [`super::atomic`]) and only once the file itself is whole, so a
//! `.json` beside a file always describes that complete file. Never the token: only the
//! service's base URL and the profile's name.

use super::watchlist::{Transition, WatchEntry};
use crate::api::TaskKind;
use crate::api::types::Envelope;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The sidecar's format version: raised when a field changes meaning or goes away.
pub const FORMAT: u32 = 1;

/// What the download knows of the task besides its file, carried in the download job.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Provenance {
    /// The service's base URL (never its token).
    pub base_url: Option<String>,
    /// The profile whose service it is, if one.
    pub profile: Option<String>,
    /// When the task was added to the watch list (seconds since the epoch).
    pub added_at: Option<u64>,
    /// When it was first seen running.
    pub started_at: Option<u64>,
    /// When it was first seen finished.
    pub finished_at: Option<u64>,
    /// The status transitions seen, oldest first.
    pub history: Vec<Transition>,
    /// What the service's last answer about the task reported (its times).
    pub reported: Option<Envelope>,
}

impl Provenance {
    /// What a watch-list entry knows.
    pub fn of_entry(entry: &WatchEntry, base_url: &str, profile: Option<String>) -> Self {
        let last = entry.last.as_ref();
        Provenance {
            base_url: Some(base_url.to_string()),
            profile,
            added_at: Some(entry.added_at),
            started_at: last.and_then(|l| l.running_since),
            finished_at: last.and_then(|l| l.finished_at),
            history: last.map(|l| l.history.clone()).unwrap_or_default(),
            reported: None,
        }
    }
}

/// The saved file and what its download saw.
#[derive(Debug, Clone, PartialEq)]
pub struct Saved<'a> {
    pub task_id: &'a str,
    pub kind: TaskKind,
    pub label: Option<&'a str>,
    pub url: &'a str,
    pub path: &'a Path,
    pub bytes: u64,
    pub sha256: &'a str,
    pub etag: Option<&'a str>,
    /// When the file was saved (seconds since the epoch).
    pub saved_at: u64,
}

/// The sidecar's path: `<file>.json`.
pub fn path_for(file: &Path) -> PathBuf {
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(".json");
    file.with_file_name(name)
}

/// `2026-11-25T21:30:09Z`.
pub fn rfc3339(epoch: u64) -> Option<String> {
    let t = time::OffsetDateTime::from_unix_timestamp(i64::try_from(epoch).ok()?).ok()?;
    t.format(&time::format_description::well_known::Rfc3339)
        .ok()
}

fn time_pair(epoch: Option<u64>) -> (Value, Value) {
    match epoch {
        Some(e) => (rfc3339(e).map_or(Value::Null, Value::String), json!(e)),
        None => (Value::Null, Value::Null),
    }
}

/// The sidecar's JSON.
pub fn content(saved: &Saved<'_>, p: &Provenance) -> Value {
    let mut times = serde_json::Map::new();
    for (name, epoch) in [
        ("added", p.added_at),
        ("started", p.started_at),
        ("finished", p.finished_at),
        ("saved", Some(saved.saved_at)),
    ] {
        let (text, number) = time_pair(epoch);
        times.insert(format!("{name}_at"), text);
        times.insert(format!("{name}_at_epoch"), number);
    }
    let reported = p.reported.clone().unwrap_or_default();
    let history: Vec<Value> = p
        .history
        .iter()
        .map(|t| {
            let (at, epoch) = time_pair(Some(t.at));
            json!({"status": t.status, "at": at, "at_epoch": epoch})
        })
        .collect();
    json!({
        "format": FORMAT,
        "generator": format!("gendash {}", env!("CARGO_PKG_VERSION")),
        "task_id": saved.task_id,
        "kind": saved.kind.as_str(),
        "label": saved.label,
        "service": {"base_url": p.base_url, "profile": p.profile},
        "download_url": saved.url,
        "file": saved.path.file_name().map(|n| n.to_string_lossy().into_owned()),
        "bytes": saved.bytes,
        "sha256": saved.sha256,
        "etag": saved.etag,
        "times": times,
        "service_reported": {
            "start_time": reported.start_time,
            "end_time": reported.end_time,
            "total_time_by_second": reported.total_time_by_second,
        },
        "history": history,
    })
}

/// The file's SHA-256 (lowercase hex) and length, read back from the disk.
pub fn hash_file(path: &Path) -> std::io::Result<(String, u64)> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut len = 0u64;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        len += n as u64;
    }
    let hex = hasher
        .finalize()
        .iter()
        .fold(String::with_capacity(64), |mut s, b| {
            use std::fmt::Write as _;
            let _ = write!(s, "{b:02x}");
            s
        });
    Ok((hex, len))
}

/// Hashes the complete file at `path` and writes its sidecar atomically; returns the sidecar's
/// path. The file itself is never touched.
pub fn write(
    path: &Path,
    task_id: &str,
    kind: TaskKind,
    label: Option<&str>,
    url: &str,
    etag: Option<&str>,
    p: &Provenance,
) -> std::io::Result<PathBuf> {
    let (sha256, bytes) = hash_file(path)?;
    let saved_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let value = content(
        &Saved {
            task_id,
            kind,
            label,
            url,
            path,
            bytes,
            sha256: &sha256,
            etag,
            saved_at,
        },
        p,
    );
    let mut text = serde_json::to_vec_pretty(&value).map_err(std::io::Error::other)?;
    text.push(b'\n');
    let target = path_for(path);
    super::atomic::write_atomic(&target, &text, None)?;
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sidecar_says_what_the_download_saw_and_nothing_secret() {
        let p = Provenance {
            base_url: Some("http://127.0.0.1:8000/api".into()),
            profile: Some("staging".into()),
            added_at: Some(1_795_642_200),
            started_at: Some(1_795_642_210),
            finished_at: Some(1_795_642_260),
            history: vec![
                Transition {
                    at: 1_795_642_210,
                    status: "IN_PROGRESS".into(),
                },
                Transition {
                    at: 1_795_642_260,
                    status: "COMPLETED".into(),
                },
            ],
            reported: Some(Envelope {
                start_time: Some("2026-11-25 21:30:00.000001".into()),
                end_time: Some("2026-11-25 21:30:00.500000".into()),
                total_time_by_second: Some(0.5),
                ..Envelope::default()
            }),
        };
        let v = content(
            &Saved {
                task_id: "sim-3",
                kind: TaskKind::Image,
                label: Some("cat"),
                url: "http://127.0.0.1:8000/files/sim-3.png",
                path: Path::new("/dl/sim-3.png"),
                bytes: 42,
                sha256: "ab",
                etag: Some("\"e1\""),
                saved_at: 1_795_642_270,
            },
            &p,
        );
        assert_eq!(v["format"], json!(FORMAT));
        assert_eq!(v["task_id"], "sim-3");
        assert_eq!(v["kind"], "image");
        assert_eq!(v["label"], "cat");
        assert_eq!(v["service"]["base_url"], "http://127.0.0.1:8000/api");
        assert_eq!(v["service"]["profile"], "staging");
        assert_eq!(v["download_url"], "http://127.0.0.1:8000/files/sim-3.png");
        assert_eq!(v["file"], "sim-3.png");
        assert_eq!(v["sha256"], "ab");
        assert_eq!(v["etag"], "\"e1\"");
        assert_eq!(v["times"]["added_at"], "2026-11-25T21:30:00Z");
        assert_eq!(v["times"]["added_at_epoch"], 1_795_642_200);
        assert_eq!(v["times"]["finished_at"], "2026-11-25T21:31:00Z");
        assert_eq!(v["times"]["saved_at_epoch"], 1_795_642_270);
        assert_eq!(v["service_reported"]["total_time_by_second"], 0.5);
        assert_eq!(
            v["service_reported"]["start_time"],
            "2026-11-25 21:30:00.000001"
        );
        assert_eq!(v["history"][1]["status"], "COMPLETED");
        assert_eq!(v["history"][1]["at"], "2026-11-25T21:31:00Z");
        assert!(
            v["generator"]
                .as_str()
                .is_some_and(|g| g.ends_with(env!("CARGO_PKG_VERSION")))
        );
    }

    #[test]
    fn unknown_times_are_null_and_the_path_is_beside_the_file() {
        let v = content(
            &Saved {
                task_id: "t",
                kind: TaskKind::Video,
                label: None,
                url: "u",
                path: Path::new("a/t.mp4"),
                bytes: 0,
                sha256: "",
                etag: None,
                saved_at: 0,
            },
            &Provenance::default(),
        );
        assert_eq!(v["times"]["started_at"], Value::Null);
        assert_eq!(v["etag"], Value::Null);
        assert_eq!(path_for(Path::new("a/t.mp4")), Path::new("a/t.mp4.json"));
    }

    #[test]
    fn the_hash_is_the_files() {
        let dir = tempfile::tempdir().expect("temp dir");
        let f = dir.path().join("x.bin");
        std::fs::write(&f, b"abc").expect("write");
        let (hex, len) = hash_file(&f).expect("hash");
        assert_eq!(len, 3);
        assert_eq!(
            hex,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let written = write(
            &f,
            "t",
            TaskKind::Image,
            None,
            "u",
            None,
            &Provenance::default(),
        )
        .expect("sidecar");
        let v: Value =
            serde_json::from_slice(&std::fs::read(written).expect("read")).expect("json");
        assert_eq!(v["sha256"], hex);
        assert_eq!(v["bytes"], 3);
    }
}
