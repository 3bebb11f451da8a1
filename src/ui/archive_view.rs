//! The archive view: the finished tasks that left the watch list, over the panes' place: a
//! filter line, the list (status, finished time, kind, task ID, label, a mark for a saved
//! file) and the selected task's detail with its picture. Every key it names is the keymap's.

use super::facts::{Labels, labelled, mark_cut};
use crate::app::state::{Action, Context, GalleryOf};
use crate::app::state::{
    ArchiveView, Areas, DownloadView, State, Theme, archive_areas, archive_completed,
};
use crate::fit::{self, cut as ellipsis};
use crate::fmt::local_minute;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

/// Draws the view in place of the panes (they are not drawn under it, and a frame starts
/// blank, so nothing is cleared first).
pub fn render(state: &State, areas: &Areas, theme: Theme, frame: &mut Frame) {
    let a = archive_areas(areas);
    let view = &state.archive;
    let block = Block::bordered()
        .title(Span::styled(
            ellipsis(
                &title(view, state.archive_view_in_use()),
                usize::from(a.body.width.saturating_sub(4)),
            ),
            theme.title(),
        ))
        .border_style(theme.border(state.popup.is_none()));
    frame.render_widget(block, a.body);
    if a.list.height == 0 && a.header.height == 0 {
        return;
    }
    render_filter(state, a.filter, theme, frame);
    if view.order.is_empty() {
        let area = a.header.union(a.list);
        let width = usize::from(area.width);
        let mut lines: Vec<Line<'static>> = empty(state, theme)
            .iter()
            .flat_map(|line| fit::wrap_spans(&line.spans, width))
            .map(Line::from)
            .collect();
        mark_cut(&mut lines, usize::from(area.height), width);
        frame.render_widget(Paragraph::new(lines), area);
        return;
    }
    if state.gallery_shown() == Some(GalleryOf::Archive) {
        super::gallery::render_pane(state, GalleryOf::Archive, a.header, a.list, theme, frame);
    } else {
        render_list(state, a.header, a.list, theme, frame);
    }
    render_detail(state, a.detail, a.preview, theme, frame);
}

/// `Archive · view mine · 1,234 tasks · filtered 12 · sorted by finished ↓`.
pub fn title(view: &ArchiveView, in_use: Option<&str>) -> String {
    let n = view.count();
    let filtered = if view.query.trim().is_empty() {
        String::new()
    } else if view.first_only() {
        // The first matches are on screen; the rest of the list is read after this frame.
        " · filtering…".to_string()
    } else {
        format!(" · filtered {}", crate::fmt::grouped(view.order.len()))
    };
    let in_use = in_use.map(|v| format!("view {v} · ")).unwrap_or_default();
    format!(
        " Archive · {in_use}{}{filtered} · sorted by {} ",
        crate::fmt::count(n, "task"),
        view.sort.label()
    )
}

fn render_filter(state: &State, area: Rect, theme: Theme, frame: &mut Frame) {
    let view = &state.archive;
    let line = if let Some(e) = &view.error {
        Line::from(Span::styled(e.clone(), theme.error()))
    } else if view.editing || !view.query.is_empty() {
        let mut spans = vec![
            Span::styled("/ ", theme.key()),
            Span::raw(view.query.clone()),
        ];
        if view.editing {
            spans.push(Span::styled("▏", theme.key()));
        }
        for issue in view.filter_issues() {
            spans.push(Span::styled(format!(" · {}", issue.told()), theme.error()));
        }
        Line::from(spans)
    } else {
        Line::from(vec![
            Span::styled(
                state
                    .keymap
                    .key_for(Context::Archive, &Action::FocusFilter)
                    .to_string(),
                theme.key(),
            ),
            Span::styled(
                ellipsis(
                    " filters: ID, label:, status:, kind:, service:, finished:>2026-11-01, added:",
                    usize::from(area.width).saturating_sub(
                        state
                            .keymap
                            .key_for(Context::Archive, &Action::FocusFilter)
                            .len(),
                    ),
                ),
                theme.dim(),
            ),
        ])
    };
    frame.render_widget(Paragraph::new(line), area);
}

/// Column widths for a list `width` wide: the task ID's and the label's.
fn columns(width: u16) -> (usize, usize) {
    // mark, status, finished, kind and the saved mark, with their spaces.
    let fixed = 1 + 1 + 10 + 1 + 16 + 1 + 5 + 1 + 2;
    let rest = usize::from(width).saturating_sub(fixed);
    let id = (rest / 2).clamp(8, 36).min(rest);
    (id, rest.saturating_sub(id + 1))
}

fn render_list(state: &State, header: Rect, list: Rect, theme: Theme, frame: &mut Frame) {
    let view = &state.archive;
    let (id_w, label_w) = columns(list.width);
    let head = format!(
        "  {:<10} {:<16} {:<5} {:<id_w$} {}",
        "status", "finished", "kind", "task ID", "label"
    );
    frame.render_widget(Line::styled(head, theme.dim()), header);
    let rows = view
        .order
        .iter()
        .enumerate()
        .skip(view.cursor.offset)
        .take(usize::from(list.height))
        .map(|(at, &i)| {
            let t = &view.tasks[i as usize];
            let ok = archive_completed(t);
            let status = t.entry.last.as_ref().map_or("", |l| l.status.as_str());
            let saved = match view.download_of(t) {
                Some(DownloadView::Running { .. } | DownloadView::Waiting) => "↓",
                Some(DownloadView::Failed(_)) => "!",
                Some(DownloadView::Saved(_) | DownloadView::Kept(_)) => "⤓",
                None if t.entry.saved.is_some() => "⤓",
                None => " ",
            };
            let style = if at == view.cursor.selected {
                theme.selected()
            } else {
                ratatui::style::Style::default()
            };
            Line::from(vec![
                Span::styled(
                    if ok { "✓ " } else { "✗ " },
                    if ok { theme.ok() } else { theme.error() },
                ),
                Span::raw(format!(
                    "{:<10} {:<16} {:<5} {:<id_w$} {:<label_w$} {saved}",
                    ellipsis(status, 10),
                    local_minute(t.finished_at(), view.utc_offset),
                    t.entry.kind.as_str(),
                    ellipsis(&t.entry.task_id, id_w),
                    ellipsis(t.entry.label.as_deref().unwrap_or(""), label_w),
                )),
            ])
            .style(style)
        });
    // Each row a line of its own, not one paragraph: a paragraph copies every character of
    // every line into a growing list first (a quarter of the dashboard's time while typing a
    // filter, in perf).
    for (y, line) in (list.y..list.bottom()).zip(rows) {
        frame.render_widget(
            line,
            Rect {
                y,
                height: 1,
                ..list
            },
        );
    }
}

/// What an empty view says: how tasks get here, or that the filter matches none.
fn empty(state: &State, theme: Theme) -> Vec<Line<'static>> {
    let view = &state.archive;
    let k = |context: Context, action: &Action| {
        Span::styled(
            state.keymap.key_for(context, action).to_string(),
            theme.key(),
        )
    };
    let d = |text: &str| Span::styled(text.to_string(), theme.dim());
    if !view.loaded {
        return vec![Line::from(d("Reading the archive…"))];
    }
    if view.count() == 0 {
        return vec![
            Line::from(d("The archive is empty.")),
            Line::from(vec![
                d("A finished task removed from the watch list ("),
                k(Context::Watch, &Action::Remove),
                d(" there, or "),
                k(Context::Watch, &Action::RemoveCompleted),
                d(
                    " for every completed one) is kept here with its status history, times, URL \
                   and saved file.",
                ),
            ]),
            Line::from(vec![
                k(Context::Archive, &Action::ToggleArchive),
                d(" goes back to the watch list."),
            ]),
        ];
    }
    vec![Line::from(vec![
        d("No archived task matches the filter ("),
        k(Context::Archive, &Action::FocusFilter),
        d(" then "),
        k(Context::TextInput, &Action::ClearInput),
        d(" clears it)."),
    ])]
}

/// Width of the detail's labels, the space after the longest (`finished`, `archived`) included.
const LABEL: usize = 9;

/// The selected task, every fact about it, each wrapped as the watch list's detail wraps them;
/// a detail taller than its area ends in `…`.
fn render_detail(state: &State, area: Rect, preview: Rect, theme: Theme, frame: &mut Frame) {
    if area.height == 0 {
        return;
    }
    let view = &state.archive;
    let Some(t) = view.detail() else {
        return;
    };
    let text = Rect {
        width: if preview.is_empty() {
            area.width
        } else {
            area.width.saturating_sub(preview.width + 1)
        },
        ..area
    };
    let width = usize::from(text.width);
    let off = view.utc_offset;
    let e = &t.entry;
    let at = |s: u64| local_minute(s, off);
    let labels = Labels {
        width: LABEL,
        style: theme.dim(),
    };
    let fact = |name: &str, value: &str, style: Style| labelled(name, value, width, style, labels);
    let plain = Style::new();
    let heading = Labels {
        width: 2,
        style: theme.title(),
    };
    let mut lines = labelled("─", &e.task_id, width, theme.title(), heading);
    let kind = format!(
        "{} · {}",
        e.kind.as_str(),
        e.service.as_deref().unwrap_or("the current service")
    );
    lines.extend(fact("kind", &kind, plain));
    if let Some(l) = &e.label {
        lines.extend(fact("label", l, plain));
    }
    let last = e.last.as_ref();
    let mut history: Vec<String> = last
        .map(|l| {
            l.history
                .iter()
                .map(|h| {
                    let when = at(h.at);
                    let hm = when.split_once(' ').map_or(when.as_str(), |(_, hm)| hm);
                    format!("{} {hm}", h.status)
                })
                .collect()
        })
        .unwrap_or_default();
    if history.is_empty() {
        history.push(last.map_or("?", |l| l.status.as_str()).to_string());
    }
    lines.extend(fact("status", &history.join(" → "), plain));
    lines.extend(fact("added", &at(e.added_at), plain));
    if let Some(s) = last.and_then(|l| l.running_since) {
        let after = crate::fmt::duration_label(s.saturating_sub(e.added_at));
        let started = format!("{} ({after} after it was added)", at(s));
        lines.extend(fact("started", &started, plain));
    }
    let finished = t.finished_at();
    let took = last
        .and_then(|l| l.running_since.filter(|_| l.start_seen))
        .map(|s| {
            format!(
                " (took {})",
                crate::fmt::duration_label(finished.saturating_sub(s))
            )
        })
        .unwrap_or_default();
    lines.extend(fact("finished", &format!("{}{took}", at(finished)), plain));
    lines.extend(match last.and_then(|l| l.url_download.as_deref()) {
        Some(u) => fact("URL", u, theme.link()),
        None => fact("URL", "none", theme.dim()),
    });
    if let Some(extra) = last.and_then(|l| l.extra.as_deref()) {
        let (fields, omitted) = (extra.shown(), extra.omitted());
        lines.extend(super::facts::extra_lines(
            fields, omitted, width, plain, labels,
        ));
    }
    let file = file_span(state, theme);
    lines.extend(fact("file", &file.content, file.style));
    lines.extend(fact("archived", &at(t.archived_at), plain));
    mark_cut(&mut lines, usize::from(text.height), width);
    frame.render_widget(Paragraph::new(lines), text);
    if let Some(picture) = state.preview.view().filter(|_| !preview.is_empty()) {
        super::preview_slot::render(frame, preview, picture);
    }
}

/// The detail's `file` line: a download under way here, its failure, or the saved file.
fn file_span(state: &State, theme: Theme) -> Span<'static> {
    let view = &state.archive;
    let Some(t) = view.detail() else {
        return Span::raw("");
    };
    match view.download_of(t) {
        Some(DownloadView::Running { done, total }) => Span::raw(match total {
            Some(n) if *n > 0 => format!("downloading {}%", done * 100 / n),
            _ => format!("downloading {}", crate::fmt::human_bytes(*done)),
        }),
        Some(DownloadView::Failed(why)) => {
            Span::styled(format!("download failed: {why}"), theme.error())
        }
        _ => match view.saved_file(t) {
            Some(p) => Span::raw(p),
            None => Span::styled(
                format!(
                    "not saved ({} downloads it)",
                    state.keymap.key_for(Context::Archive, &Action::Download)
                ),
                theme.dim(),
            ),
        },
    }
}
