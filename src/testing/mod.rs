//! Everything that exists only so the tests can reach the product from outside, in one place:
//!
//! | switch | who uses it | what it does |
//! |---|---|---|
//! | `GENDASH_TEST_PANIC=main` | `tests/it/dashboard/signals.rs` | the dashboard panics when `?` is pressed |
//! | `GENDASH_TEST_PANIC=worker` | `tests/it/dashboard/signals.rs` | a worker task panics when the process gets `SIGUSR1` (the test sends it once the first frame is on screen) |
//! | `GENDASH_TEST_RETRY_MS=N` | `tests/it/api/download.rs` | `gendash download` waits N ms (not 500) before its first resume |
//! | `GENDASH_TEST_QUERY_BOUND_MS=N` | `tests/it/common/pty.rs` (a terminal that answers as a sixel one) | each question to the terminal waits N ms (not 200) for its answer, for a pseudo-terminal that answers but, on a loaded machine, late |
//! | `GENDASH_TEST_STRESS_SAVE=FILE` (`GENDASH_TEST_STRESS_ROUNDS=N`, default 1000) | `tests/it/cli/durability.rs` | instead of anything else, saves FILE N times, alternating [`stress_lists`], so a test can kill it mid-save |
//! | [`task_result`], [`download_url`] | reducer and view tests | sample lookup results |
//! | [`quadrants`] | preview and view tests | a small PNG whose colours are known |
//! | [`claimed_png`] | preview tests | a decompression bomb's header |
//! | [`fuzzing`] | `fuzz/` targets and `tests/it/properties/fuzz_corpora.rs` | the properties each fuzz target checks |
//!
//! None of it changes behaviour unless its variable is set. Every switch is a variable, not a
//! flag or a subcommand, so none shows in `--help`, the completions or the manual.

pub mod fuzzing;

use crate::api::types::Envelope;
use crate::api::{TaskKind, TaskResult};
use crate::store::watchlist::{StoreError, WatchEntry, WatchStore};
use std::path::Path;

fn panic_wanted(place: &str) -> bool {
    std::env::var("GENDASH_TEST_PANIC").is_ok_and(|v| v == place)
}

/// With `GENDASH_TEST_PANIC=worker`, a worker task panics when the process gets `SIGUSR1`:
/// proves the terminal is restored from any thread. The handler is installed before this
/// returns (before the first frame), so a test that saw the first frame can send the signal
/// without racing a timer. Called on the runtime.
pub fn maybe_panic_in_worker() {
    use tokio::signal::unix::{SignalKind, signal};
    if panic_wanted("worker") {
        let Ok(mut usr1) = signal(SignalKind::user_defined1()) else {
            panic!("test panic in a worker (GENDASH_TEST_PANIC=worker): no SIGUSR1 handler");
        };
        tokio::spawn(async move {
            usr1.recv().await;
            panic!("test panic in a worker (GENDASH_TEST_PANIC=worker)");
        });
    }
}

/// With `GENDASH_TEST_PANIC=main`, the main task panics when the help key is pressed.
pub fn maybe_panic_in_main(help_pressed: bool) {
    assert!(
        !(help_pressed && panic_wanted("main")),
        "test panic in the main task (GENDASH_TEST_PANIC=main)"
    );
}

/// With `GENDASH_TEST_RETRY_MS=N`, `gendash download` resumes after N ms instead of
/// half a second, so a test of its five attempts takes milliseconds.
pub fn download_retry_base() -> Option<std::time::Duration> {
    let ms = std::env::var("GENDASH_TEST_RETRY_MS").ok()?.parse().ok()?;
    Some(std::time::Duration::from_millis(ms))
}

/// With `GENDASH_TEST_QUERY_BOUND_MS=N`, each question to the terminal waits N ms for its
/// answer instead of 200: the test's pseudo-terminal answers from a thread of the test, which
/// twelve tests at once on two cores can delay past 200 ms.
pub fn query_bound() -> Option<std::time::Duration> {
    let ms = std::env::var("GENDASH_TEST_QUERY_BOUND_MS")
        .ok()?
        .parse()
        .ok()?;
    Some(std::time::Duration::from_millis(ms))
}

/// The download URL the reference service on port 8787 would give an image task in `status`.
pub fn download_url(id: &str, status: &str) -> Option<String> {
    (status == "COMPLETED").then(|| format!("http://127.0.0.1:8787/files/{id}.png"))
}

/// An image task's lookup result, for the reducer and view tests.
pub fn task_result(id: &str, status: &str, percent: u8) -> TaskResult {
    TaskResult {
        task_id: id.into(),
        kind: TaskKind::Image,
        status: status.into(),
        percent,
        total_tasks: Some(1),
        url_download: download_url(id, status),
        envelope: Envelope::default(),
        extra: None,
    }
}

/// The two lists `watch stress-save` alternates between: 10 and 20 entries.
pub fn stress_lists() -> [Vec<WatchEntry>; 2] {
    let list = |n: usize, tag: &str| -> Vec<WatchEntry> {
        (0..n)
            .map(|i| WatchEntry {
                task_id: format!("{tag}-{i:03}"),
                kind: TaskKind::Image,
                added_at: 1_700_000_000,
                last: None,
                service: None,
                saved: None,
                auto_download: None,
                trouble: None,
                claimed_by: None,
                polled_by: None,
                label: None,
                seen: None,
            })
            .collect()
    };
    [list(10, "old"), list(20, "new")]
}

/// Saves `file` `rounds` times, alternating the two [`stress_lists`].
/// With `GENDASH_TEST_STRESS_SAVE=FILE`, the file to save over and over and how many times.
pub fn stress_save_wanted() -> Option<(std::path::PathBuf, u32)> {
    let file = std::env::var_os("GENDASH_TEST_STRESS_SAVE")?;
    let rounds = std::env::var("GENDASH_TEST_STRESS_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(1000);
    Some((file.into(), rounds))
}

pub fn stress_save(file: &Path, rounds: u32) -> Result<(), StoreError> {
    let store = WatchStore::new(file.to_path_buf());
    let lists = stress_lists();
    for round in 0..rounds {
        let next = lists[(round % 2) as usize].clone();
        store.update(|l| *l = next)?;
    }
    Ok(())
}

/// A PNG of four coloured quadrants: red, green / blue, yellow.
pub fn quadrants(width: u32, height: u32) -> Vec<u8> {
    use image::ImageEncoder;
    let img = image::RgbImage::from_fn(width, height, |x, y| {
        match (x < width / 2, y < height / 2) {
            (true, true) => image::Rgb([255, 0, 0]),
            (false, true) => image::Rgb([0, 255, 0]),
            (true, false) => image::Rgb([0, 0, 255]),
            (false, false) => image::Rgb([255, 255, 0]),
        }
    });
    let mut out = Vec::new();
    // Encoding an in-memory picture cannot fail.
    let _ = image::codecs::png::PngEncoder::new(&mut out).write_image(
        img.as_raw(),
        width,
        height,
        image::ExtendedColorType::Rgb8,
    );
    out
}

/// A PNG whose header claims `width` x `height` (`depth`-bit RGBA), with a scrap of data:
/// what a decompression bomb looks like before it goes off.
pub fn claimed_png(width: u32, height: u32, depth: u8) -> Vec<u8> {
    fn crc(bytes: &[u8]) -> u32 {
        let mut c = 0xffff_ffffu32;
        for b in bytes {
            c ^= u32::from(*b);
            for _ in 0..8 {
                c = if c & 1 == 1 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
        }
        !c
    }
    fn chunk(out: &mut Vec<u8>, kind: &[u8], data: &[u8]) {
        out.extend_from_slice(&u32::try_from(data.len()).unwrap_or(u32::MAX).to_be_bytes());
        let start = out.len();
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        let sum = crc(&out[start..]);
        out.extend_from_slice(&sum.to_be_bytes());
    }
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[depth, 6, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    // A zlib stream of zeros: it would inflate to the whole claimed size.
    chunk(
        &mut out,
        b"IDAT",
        &[0x78, 0x9c, 0xed, 0xc1, 0x01, 0x0d, 0x00, 0x00],
    );
    chunk(&mut out, b"IEND", &[]);
    out
}
