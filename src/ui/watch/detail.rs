//! The selected task's detail below the table: every fact about it, wrapped to the pane's
//! width, its URL as links.

use super::cells::{Link, status_text};
use crate::app::state::Theme;
use crate::app::state::{Action, Context, DownloadView, Phase, Row as WatchRow, State};
use crate::app::watch::end;
use crate::app::watch::timing::Usual;
use crate::fmt::{ago, countdown, duration_label, format_eta, wall_time};
use crate::ui::facts::{Labels, labelled, mark_cut};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders};

/// Width of the detail's labels, the space after the longest (`not found`) included.
const LABEL: usize = 10;

/// A fact of the task: `value` after its `label`, wrapped to `width`.
fn wrapped(
    label: &str,
    value: &str,
    width: usize,
    style: Style,
    theme: Theme,
) -> Vec<Line<'static>> {
    let labels = Labels {
        width: LABEL,
        style: theme.dim(),
    };
    labelled(label, value, width, style, labels)
}

/// The selected task, every fact about it; the URL is returned as links, one per line it takes.
pub(super) fn render(state: &State, area: Rect, theme: Theme, frame: &mut Frame) -> Vec<Link> {
    if area.height < 2 || area.width < 12 {
        return Vec::new();
    }
    let Some(r) = state.watch.selected_row() else {
        return Vec::new();
    };
    let title = Span::styled(" task ", theme.dim());
    let mut inner = Block::new()
        .borders(Borders::TOP)
        .title(title.clone())
        .inner(area);
    crate::ui::border::sides(frame, area, Borders::TOP, title, theme.dim());
    // A finished task's picture on the right; the text keeps the rest.
    let picture = state.areas.watch_preview;
    let view = state
        .preview_source()
        .and(state.preview.view())
        .filter(|_| !picture.is_empty());
    if let Some(view) = view.filter(|v| crate::ui::preview_slot::needs_room(v)) {
        crate::ui::preview_slot::render(frame, picture, view);
        inner.width = picture.x.saturating_sub(inner.x + 1);
    }
    let (mut lines, mut url_lines) = detail_lines(state, r, usize::from(inner.width), theme);
    if let Some(view) = view.filter(|v| !crate::ui::preview_slot::needs_room(v)) {
        // Above the URL, where a short section still shows it.
        let text = crate::ui::preview_slot::describe(view);
        let said = wrapped(
            "preview",
            &text,
            usize::from(inner.width),
            theme.dim(),
            theme,
        );
        let at = url_lines.as_ref().map_or(lines.len(), |u| u.start);
        let n = said.len();
        lines.splice(at..at, said);
        url_lines = url_lines.map(|u| u.start + n..u.end + n);
    }
    let mut found = Vec::new();
    if let (Some(url), Some(at)) = (r.openable_url(), url_lines.clone()) {
        for i in at {
            let y = inner.y + i as u16;
            let text_width = lines[i].spans.get(1).map_or(0, Span::width) as u16;
            if y < inner.bottom() && text_width > 0 {
                found.push(Link {
                    x: inner.x + LABEL as u16,
                    y,
                    width: text_width.min(inner.width.saturating_sub(LABEL as u16)),
                    url: url.to_string(),
                });
            }
        }
    }
    mark_cut(
        &mut lines,
        usize::from(inner.height),
        usize::from(inner.width),
    );
    crate::ui::set_lines(frame, inner, &lines);
    found
}

/// The detail's lines, cut to `width`, and which of them hold the URL.
fn detail_lines(
    state: &State,
    r: &WatchRow,
    width: usize,
    theme: Theme,
) -> (Vec<Line<'static>>, Option<std::ops::Range<usize>>) {
    let now = state.now;
    let phase = r.phase(now, state.watch.stall_after);
    let plain = Style::new();
    let mut lines = wrapped("task", &r.entry.task_id, width, theme.title(), theme);
    if let Some(label) = &r.entry.label {
        lines.extend(wrapped("label", label, width, theme.title(), theme));
    }
    let services = &state.watch.services;
    let service = services.of(r.entry.service.as_deref());
    let name = services.name(service);
    let service_text = if name == service || service.is_empty() {
        name
    } else {
        format!("{name} ({service})")
    };
    lines.extend(wrapped(
        "kind",
        &format!("{} · service {service_text}", r.entry.kind.as_str()),
        width,
        plain,
        theme,
    ));
    let mut status = vec![status_text(r, phase)];
    if r.entry.last.is_some() {
        status.push(format!("{}%", r.percent()));
    }
    match phase {
        Phase::Stalled => status.push(format!(
            "stalled: no progress for {}",
            duration_label(r.still_for(now).unwrap_or(0))
        )),
        Phase::Running => status.extend(r.eta(now).map(|e| format!("ETA {}", format_eta(e)))),
        _ => {}
    }
    if let Some((taken, p90)) = Usual::of(&state.watch).slower(&r.entry, phase, now) {
        status.push(format!(
            "slower than usual: running for {}, 90% of {} tasks took at most {}",
            duration_label(taken),
            r.entry.kind.as_str(),
            duration_label(p90)
        ));
    }
    if r.entry.unseen() {
        status.push("new".into());
    }
    lines.extend(wrapped(
        "status",
        &status.join(" · "),
        width,
        theme.phase(phase, r.error().is_some()),
        theme,
    ));
    let offset = state.requests.utc_offset;
    lines.extend(wrapped(
        "times",
        &times(r, now, offset).join(" · "),
        width,
        plain,
        theme,
    ));
    lines.extend(wrapped(
        "polled",
        &polled(state, r, phase),
        width,
        plain,
        theme,
    ));
    let mut url_lines = None;
    if let Some(url) = r.url() {
        let first = lines.len();
        lines.extend(wrapped("url", url, width, theme.link(), theme));
        url_lines = Some(first..lines.len());
    }
    for (label, text, style) in troubles(state, r, theme) {
        lines.extend(wrapped(label, &text, width, style, theme));
    }
    if let Some(extra) = r.entry.last.as_ref().and_then(|l| l.extra.as_deref()) {
        let labels = Labels {
            width: LABEL,
            style: theme.dim(),
        };
        let (fields, omitted) = (extra.shown(), extra.omitted());
        lines.extend(crate::ui::facts::extra_lines(
            fields, omitted, width, plain, labels,
        ));
    }
    if let Some(last) = &r.entry.last
        && !last.history.is_empty()
    {
        let history = last
            .history
            .iter()
            .map(|t| format!("{} {}", wall_time(t.at, now, offset), t.status))
            .collect::<Vec<_>>()
            .join(" → ");
        lines.extend(wrapped("history", &history, width, plain, theme));
    }
    (lines, url_lines)
}

/// When the task was added, seen running, finished, and how long it took: only when both its
/// start (first seen at 0%) and its finish were seen, else the span would be a guess.
fn times(r: &WatchRow, now: u64, offset: time::UtcOffset) -> Vec<String> {
    let mut times = vec![format!(
        "added {}",
        wall_time(r.entry.added_at, now, offset)
    )];
    let Some(last) = &r.entry.last else {
        return times;
    };
    if let Some(t) = last.running_since {
        let verb = if last.start_seen {
            "started"
        } else {
            "seen running"
        };
        times.push(format!("{verb} {}", wall_time(t, now, offset)));
    }
    if let Some(t) = last.finished_at {
        let verb = if last.running_since.is_some() {
            "finished"
        } else {
            "found finished"
        };
        times.push(format!("{verb} {}", wall_time(t, now, offset)));
        if let Some(from) = last.running_since.filter(|_| last.start_seen) {
            times.push(format!("took {}", duration_label(t.saturating_sub(from))));
        }
    }
    times
}

/// When the task was last asked about, and why it is not being asked now (or when it will
/// be), in words that agree with the status above.
fn polled(state: &State, r: &WatchRow, phase: Phase) -> String {
    let now = state.now;
    let before = r
        .entry
        .last
        .as_ref()
        .map(|l| l.updated_at)
        .into_iter()
        .chain(r.entry.trouble.as_ref().map(|t| t.since))
        .max();
    let when = match (r.polled_at, before) {
        (Some(t), _) => ago(t, now),
        (None, Some(t)) => format!("{}, before this start", ago(t, now)),
        (None, None) => "never".into(),
    };
    let services = &state.watch.services;
    let service = services.of(r.entry.service.as_deref());
    let next = match phase {
        Phase::NoService => format!(
            "not polled: {}",
            services
                .why_not(service)
                .unwrap_or_else(|| "its service is not configured".into())
        ),
        Phase::Completed | Phase::Failed => "finished, so not polled again".into(),
        _ => match r.next_retry_at() {
            Some(at) if at > now => format!("retry in {}", countdown(at - now)),
            Some(_) => "asking again now".into(),
            None if r.polled_at.is_none() => "first poll of this start under way".into(),
            None => r
                .next_poll
                .map_or_else(|| "polled again while it runs".into(), |p| p.words(now)),
        },
    };
    format!("{when} · {next}")
}

/// The error, the unknown task and the download, each with its label and style.
fn troubles(state: &State, r: &WatchRow, theme: Theme) -> Vec<(&'static str, String, Style)> {
    let since = r.entry.trouble.as_ref().map(|t| {
        format!(
            "since {}",
            wall_time(t.since, state.now, state.requests.utc_offset)
        )
    });
    let mut out = Vec::new();
    if let Some(e) = r.error() {
        let mut text = vec![e.to_string()];
        if r.retries() > 0 {
            text.push(format!("attempt {}", r.retries()));
        }
        text.extend(since.clone());
        out.push(("error", text.join(" · "), theme.error()));
    }
    if let Some(d) = r.not_found() {
        let mut text = vec![format!("the service does not know this task: {d}")];
        if r.retries() > 0 {
            text.push(format!(
                "asked {}",
                crate::fmt::count(usize::try_from(r.retries()).unwrap_or(usize::MAX), "time")
            ));
        }
        text.extend(since);
        out.push(("not found", text.join(" · "), theme.error()));
    }
    if let Some(d) = &r.download {
        let text = match d {
            DownloadView::Waiting => {
                "waiting for the preview's fetch of the same file, to copy it".to_string()
            }
            DownloadView::Running { done, total } => match total {
                Some(t) => format!(
                    "downloading: {} of {} ({}%)",
                    crate::fmt::human_bytes(*done),
                    crate::fmt::human_bytes(*t),
                    done * 100 / (*t).max(1)
                ),
                None => format!("downloading: {}", crate::fmt::human_bytes(*done)),
            },
            DownloadView::Saved(p) => format!("saved to {p}"),
            // The reason first: a long path is what a narrow pane cuts.
            DownloadView::Kept(p) => format!(
                "kept, {} replaces it: {p} was there already",
                state.keymap.key_for(Context::Watch, &Action::Download)
            ),
            DownloadView::Failed(e) => format!("download failed: {e}"),
        };
        out.push(("file", text, Style::new()));
    } else if end::auto_for(&state.watch, r) && !r.failed() {
        out.push((
            "file",
            format!(
                "downloaded by itself when it completes ({} turns this off)",
                state
                    .keymap
                    .key_for(Context::Watch, &Action::ToggleAutoDownload)
            ),
            theme.dim(),
        ));
    }
    out
}
