//! What a task's cells say: its status, ETA, what happens next and the info column's words,
//! and the links drawn on screen. The detail repeats the status's words, so the two agree.

use crate::app::state::{DownloadView, Phase, Row as WatchRow};
use crate::fmt::{countdown, format_eta};

/// A clickable link on screen: the cells from (`x`, `y`), `width` wide, open `url` (an
/// http/https URL, checked). The event loop wraps them in OSC 8 after drawing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub x: u16,
    pub y: u16,
    pub width: u16,
    pub url: String,
}

/// "██████░░░░": a gauge that fits a table cell. Any percent renders within 0..=100.
pub fn gauge(percent: u8, cells: usize) -> String {
    let p = usize::from(percent.min(100));
    let filled = (p * cells + 50) / 100;
    format!(
        "{}{}",
        "█".repeat(filled),
        "░".repeat(cells - filled.min(cells))
    )
}

/// The last path segment of a URL: `…/files/img-done.png?sig=…` -> `img-done.png`.
pub fn file_name(url: &str) -> &str {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let path = path.split_once("://").map_or(path, |(_, rest)| {
        rest.split_once('/').map_or("", |(_, p)| p)
    });
    path.rsplit('/').find(|s| !s.is_empty()).unwrap_or(url)
}

/// The status cell's words.
pub(super) fn status_text(r: &WatchRow, phase: Phase) -> String {
    match phase {
        // Asked, but no answer yet: "not polled" would contradict the error beside it.
        Phase::NotPolled if r.error().is_some() => "no answer".into(),
        Phase::NotPolled => "not polled".into(),
        Phase::NotFound => "NOT FOUND".into(),
        Phase::NoService => "no service".into(),
        _ => r
            .entry
            .last
            .as_ref()
            .map(|l| l.status.clone())
            .unwrap_or_default(),
    }
}

/// The ETA cell: `~3m`, `stalled`, or nothing.
pub(super) fn eta_text(r: &WatchRow, phase: Phase, now: u64) -> String {
    match phase {
        Phase::Stalled => "stalled".into(),
        Phase::Running => r.eta(now).map(format_eta).unwrap_or_default(),
        _ => String::new(),
    }
}

/// What happens next to a task in trouble: `retry in 4s` while waiting for the retry; once it
/// is due the request is under way, so no countdown stuck at 0s.
fn retry_text(r: &WatchRow, now: u64, poll_key: &str) -> String {
    match r.next_retry_at() {
        Some(at) if at > now => format!("retry in {}", countdown(at - now)),
        Some(_) => "asking again".into(),
        None => format!("{poll_key} asks again"),
    }
}

/// The keys the watch rows name, as the keymap labels them.
#[derive(Clone, Copy)]
pub(super) struct Keys<'a> {
    pub(super) poll: &'a str,
    pub(super) download: &'a str,
}

/// The info cell: the error, the unknown task, the download, else the file's name.
pub(super) fn info_text(r: &WatchRow, now: u64, keys: Keys) -> (String, bool) {
    let poll_key = keys.poll;
    if let Some(e) = r.error() {
        return (format!("⚠ {e} · {}", retry_text(r, now, poll_key)), true);
    }
    if let Some(d) = r.not_found() {
        return (format!("{d} · {}", retry_text(r, now, poll_key)), true);
    }
    match &r.download {
        Some(DownloadView::Waiting) => ("⤓ waits for the preview's copy".into(), false),
        Some(DownloadView::Running {
            done,
            total: Some(t),
        }) if *t > 0 => (
            format!("⤓ {}% of {}", done * 100 / t, crate::fmt::human_bytes(*t)),
            false,
        ),
        Some(DownloadView::Running { done, .. }) => {
            (format!("⤓ {}", crate::fmt::human_bytes(*done)), false)
        }
        // The name; the status bar and the detail give the whole path.
        Some(DownloadView::Saved(p)) => (
            format!(
                "saved {}",
                std::path::Path::new(p)
                    .file_name()
                    .map_or_else(|| p.clone(), |n| n.to_string_lossy().into_owned())
            ),
            false,
        ),
        // Nothing went wrong: the reason first, so it survives a narrow column.
        Some(DownloadView::Kept(_)) => (format!("kept · {} replaces", keys.download), false),
        Some(DownloadView::Failed(e)) => (format!("download failed: {e}"), true),
        None => (r.url().map_or("", file_name).to_string(), false),
    }
}

#[cfg(test)]
#[path = "cells_tests.rs"]
mod tests;
