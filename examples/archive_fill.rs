//! Makes a big archive for measurements, in one transaction, then times reading it.
//!
//! `cargo run --release --locked --features archive-examples --example archive_fill -- --data-dir DIR --count 100000`
//! writes DIR/archive.sqlite3 with COUNT finished tasks (labels, both kinds, completed and
//! failed, two services, status histories, saved files, finish times spread over a year),
//! replacing none that are there (task IDs are `fill-N`, so a second run upserts the same
//! rows), and prints how long the fill took and how long `Archive::list()` (the archive
//! view's load) and `Archive::list_full` (`gendash history --json`) take, best and median of
//! five, and how long the dashboard's archiver takes to answer `Load`. Point `GENDASH_DATA_DIR` at DIR to open the result in the dashboard.
//!
//! Each completed task's download URL is `FILES/<id>.png` (or `.mp4`), FILES being `--files`
//! (default `http://127.0.0.1:8787/files`, the reference service's default address): loopback,
//! so the preview of a selected row fetches a real picture from `gendash serve` and nothing
//! leaves the machine.
use gendash::api::TaskKind;
use gendash::store::archive::Archive;
use gendash::store::watchlist::{LastKnown, Transition, WatchEntry};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

const WORDS: &[&str] = &[
    "sunset", "portrait", "cat", "forest", "city", "neon", "ocean", "mountain", "robot", "flower",
    "winter", "desert",
];

fn entry(i: u64, now: u64, files: &str) -> WatchEntry {
    let kind = if i.is_multiple_of(7) {
        TaskKind::Video
    } else {
        TaskKind::Image
    };
    let failed = i.is_multiple_of(11);
    let finished = now - (i * 317) % (365 * 86_400);
    let started = finished - 20 - i % 300;
    let id = format!("fill-{i}");
    let status = if failed { "FAILED" } else { "COMPLETED" };
    let mut e = WatchEntry::new(id.clone(), kind);
    e.added_at = started - 5;
    e.service = Some(if i.is_multiple_of(3) {
        "http://127.0.0.1:8080".into()
    } else {
        "https://gen.example.com/api/v1".into()
    });
    e.label = (!i.is_multiple_of(4)).then(|| {
        format!(
            "{} {} v{}",
            WORDS[(i % 12) as usize],
            WORDS[((i / 12) % 12) as usize],
            i % 9
        )
    });
    e.saved = (!failed && !i.is_multiple_of(5))
        .then(|| format!("/home/user/gen/{}/{id}.{}", kind.as_str(), kind.extension()));
    e.last = Some(LastKnown {
        status: status.into(),
        percent: if failed { 40 } else { 100 },
        url_download: (!failed).then(|| format!("{files}/{id}.{}", kind.extension())),
        updated_at: finished,
        running_since: Some(started),
        finished_at: Some(finished),
        start_seen: true,
        history: vec![
            Transition {
                at: started - 5,
                status: "QUEUED".into(),
            },
            Transition {
                at: started,
                status: "IN_PROGRESS".into(),
            },
            Transition {
                at: finished,
                status: status.into(),
            },
        ],
        extra: None,
    });
    e.seen = Some(true);
    e
}

fn timed<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, Duration, T) {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let at = Instant::now();
        last = Some(f());
        times.push(at.elapsed());
    }
    times.sort();
    let out = last.unwrap_or_else(&mut f);
    (times[0], times[times.len() / 2], out)
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// How long the archiver (the dashboard's worker) takes to answer `Load`: the first one reads
/// the archive, the next ones answer from the list it keeps.
fn archiver_loads(files: &gendash::store::archive::Files) {
    use gendash::cmd::ArchiveOp;
    use gendash::msg::{ArchiveReport, Msg};
    let Ok(rt) = tokio::runtime::Builder::new_current_thread().build() else {
        return;
    };
    rt.block_on(async {
        let (tx, mut rx) = tokio::sync::mpsc::channel(4);
        let archiver = gendash::workers::archiver::spawn(files.clone(), 0, tx);
        for which in [
            "first (reads the file)",
            "second (kept list)",
            "third (kept list)",
        ] {
            let at = Instant::now();
            archiver.archive(ArchiveOp::Load);
            if let Some(Msg::Archive(ArchiveReport::Listed(list, _))) = rx.recv().await {
                println!(
                    "archiver Load, {which}: {} ({} rows)",
                    ms(at.elapsed()),
                    list.len()
                );
            }
        }
    });
}

fn main() -> ExitCode {
    let mut dir: Option<PathBuf> = None;
    let mut count: u64 = 100_000;
    let mut files = "http://127.0.0.1:8787/files".to_string();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--data-dir" => dir = args.next().map(PathBuf::from),
            "--files" => {
                let Some(url) = args.next() else {
                    eprintln!("--files takes a URL");
                    return ExitCode::FAILURE;
                };
                files = url.trim_end_matches('/').to_string();
            }
            "--count" => {
                let Some(n) = args.next().and_then(|n| n.parse().ok()) else {
                    eprintln!("--count takes a number");
                    return ExitCode::FAILURE;
                };
                count = n;
            }
            _ => {
                eprintln!("usage: archive_fill --data-dir DIR [--count N] [--files URL]");
                return ExitCode::FAILURE;
            }
        }
    }
    let Some(dir) = dir else {
        eprintln!("usage: archive_fill --data-dir DIR [--count N] [--files URL]");
        return ExitCode::FAILURE;
    };
    let stored = gendash::store::archive::Files::in_dir(&dir);
    let path = &stored.archive;
    let now = gendash::store::watchlist::unix_now();
    let entries: Vec<WatchEntry> = (0..count).map(|i| entry(i, now, &files)).collect();
    let run = || -> Result<(), gendash::store::archive::ArchiveError> {
        let mut archive = Archive::open(&stored)?;
        let at = Instant::now();
        let written = archive.insert(&entries, now)?;
        println!(
            "filled {} with {written} tasks in {} (one transaction); {} archived in all",
            path.display(),
            ms(at.elapsed()),
            archive.count()?
        );
        drop(archive);
        let (best, median, opened) = timed(5, || Archive::open(&stored));
        let archive = opened?;
        println!("open:        best {}, median {}", ms(best), ms(median));
        let (best, median, list) = timed(5, || archive.list());
        println!(
            "list():      best {}, median {} ({} rows, no status history)",
            ms(best),
            ms(median),
            list?.len()
        );
        let (best, median, list) = timed(5, || archive.list_full(None));
        println!(
            "list_full(): best {}, median {} ({} rows, with status history)",
            ms(best),
            ms(median),
            list?.len()
        );
        archiver_loads(&stored);
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
