//! Plain mode's lines: what a watched task's row says, and which change of it is worth a line.
//! Pure: a row, the reducers' clock and what was last printed in, a line (or none) out.

use crate::app::state::{DownloadView, Phase, Row};

/// How a line is coloured when colours are asked for (`--color always`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Plain,
    Good,
    Warn,
    Bad,
}

/// One line to print, its text not yet sanitised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub text: String,
    pub tone: Tone,
}

impl Line {
    pub fn plain(text: impl Into<String>) -> Self {
        Line {
            text: text.into(),
            tone: Tone::Plain,
        }
    }

    pub fn bad(text: impl Into<String>) -> Self {
        Line {
            text: text.into(),
            tone: Tone::Bad,
        }
    }
}

/// A running task's percent is told when it enters another step of this many percent.
pub const STEP: u8 = 10;

/// What was last printed of a task: a line is due when this changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    phase: Phase,
    /// The percent's step while running, the percent otherwise.
    percent: u8,
    saved: Option<String>,
    download_failed: Option<String>,
    trouble: Option<String>,
}

impl Seen {
    pub fn of(row: &Row, now: u64, stall_after: u64) -> Self {
        let phase = row.phase(now, stall_after);
        let percent = if phase == Phase::Running {
            row.percent() / STEP
        } else {
            row.percent()
        };
        Seen {
            phase,
            percent,
            saved: match &row.download {
                Some(DownloadView::Saved(path)) => Some(path.clone()),
                _ => None,
            },
            download_failed: match &row.download {
                Some(DownloadView::Failed(why)) => Some(why.clone()),
                _ => None,
            },
            trouble: row.error().map(str::to_string),
        }
    }
}

/// The lines a task's change calls for, given what was last printed of it (`None`: nothing
/// yet); and what to remember as printed. A task that completed while its file is being
/// fetched waits for the file, so its completion and where it went are one line.
pub fn changed(
    row: &Row,
    before: Option<&Seen>,
    now: u64,
    stall_after: u64,
    home: Option<&str>,
) -> (Vec<Line>, Option<Seen>) {
    let seen = Seen::of(row, now, stall_after);
    if before == Some(&seen) {
        return (Vec::new(), None);
    }
    let phase_moved = before.is_none_or(|b| b.phase != seen.phase || b.percent != seen.percent);
    let fetching =
        row.download.as_ref().is_some_and(DownloadView::under_way) || row.end.will_fetch();
    if seen.phase == Phase::Completed && phase_moved && fetching {
        return (Vec::new(), None);
    }
    let id = &row.entry.task_id;
    let mut lines = Vec::new();
    if phase_moved && seen.phase != Phase::NotPolled {
        lines.push(status(row, now, stall_after, home));
    } else if seen.saved.is_some() && before.is_none_or(|b| b.saved != seen.saved) {
        let path = seen.saved.as_deref().unwrap_or_default();
        lines.push(Line {
            text: format!("{id} saved {}", home_relative(path, home)),
            tone: Tone::Good,
        });
    }
    if let Some(why) = &seen.download_failed
        && before.is_none_or(|b| b.download_failed.is_none())
    {
        lines.push(Line::bad(format!("{id} download failed: {why}")));
    }
    if let Some(why) = &seen.trouble
        && before.is_none_or(|b| b.trouble.as_ref() != Some(why))
    {
        lines.push(Line::bad(format!("{id} error: {why}")));
    }
    (lines, Some(seen))
}

/// A task's whole state on one line: `sim-3 completed 100% · saved ~/gen/sim-3.png`,
/// `sim-7 stalled 4m at 45%`, `sim-5 running 40% · ETA ~2m`.
pub fn status(row: &Row, now: u64, stall_after: u64, home: Option<&str>) -> Line {
    let id = &row.entry.task_id;
    let percent = row.percent();
    let saved = match &row.download {
        Some(DownloadView::Saved(path)) => format!(" · saved {}", home_relative(path, home)),
        Some(DownloadView::Kept(path)) => {
            format!(" · kept {} (already there)", home_relative(path, home))
        }
        _ => String::new(),
    };
    match row.phase(now, stall_after) {
        Phase::NotPolled => Line::plain(format!("{id} not asked yet")),
        Phase::Running => {
            let eta = row
                .eta(now)
                .map(|s| format!(" · ETA {}", crate::fmt::format_eta(s)))
                .unwrap_or_default();
            Line::plain(format!("{id} running {percent}%{eta}"))
        }
        Phase::Stalled => {
            let still = row.still_for(now).unwrap_or(stall_after);
            Line {
                text: format!(
                    "{id} stalled {} at {percent}%",
                    crate::fmt::age_label(0, still)
                ),
                tone: Tone::Warn,
            }
        }
        Phase::Completed => Line {
            text: format!("{id} completed {percent}%{saved}"),
            tone: Tone::Good,
        },
        Phase::Failed => {
            let said = row
                .entry
                .last
                .as_ref()
                .map(|l| format!(" ({})", l.status))
                .unwrap_or_default();
            Line::bad(format!("{id} failed at {percent}%{said}"))
        }
        Phase::NotFound => Line::bad(format!(
            "{id} not found: {}",
            row.not_found().unwrap_or("the service does not know it")
        )),
        Phase::NoService => Line::bad(format!("{id}: no configured service polls it")),
    }
}

/// `path` with the home directory written `~`.
pub fn home_relative(path: &str, home: Option<&str>) -> String {
    match home.filter(|h| !h.is_empty() && *h != "/") {
        Some(home) => match path.strip_prefix(home.trim_end_matches('/')) {
            Some(rest) if rest.starts_with('/') => format!("~{rest}"),
            _ => path.to_string(),
        },
        None => path.to_string(),
    }
}

/// The line as printed: sanitised (nothing a terminal would obey), then coloured if asked
/// (SGR only: `ESC [ … m`).
/// A line as printed: sanitised, fitted to `width` columns when stdout is a terminal of that
/// width (wrapped at spaces, nothing cut: a screen reader reads every row), coloured when
/// asked. Piped, a line stays one line.
pub fn render(line: &Line, color: bool, width: Option<usize>) -> String {
    let text = crate::api::sanitize::sanitize_with_limit(&line.text, 64 * 1024);
    let text = match width {
        Some(width) => crate::fit::wrap(&text, width).join("\n"),
        None => text,
    };
    let sgr = match line.tone {
        _ if !color => None,
        Tone::Plain => None,
        Tone::Good => Some("32"),
        Tone::Warn => Some("33"),
        Tone::Bad => Some("31"),
    };
    match sgr {
        Some(code) => format!("\x1b[{code}m{text}\x1b[0m"),
        None => text,
    }
}

#[cfg(test)]
#[path = "lines_tests.rs"]
mod tests;
