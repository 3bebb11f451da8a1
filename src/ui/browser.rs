//! The LoRA browser pane: filter line, ranked list with highlighted matches, detail.

use super::set_lines;
use crate::app::browser::Marks;
use crate::app::layout::Areas;
use crate::app::state::Theme;
use crate::app::state::{Action, Context};
use crate::app::state::{Field, Load, Pane, State};
use crate::filter::query::Flag;
use crate::filter::{FuzzyFilter, Query};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Block;
use std::cell::RefCell;

thread_local! {
    // Highlighting needs a matcher's scratch space; reusing one keeps frames allocation-light.
    static MATCHER: RefCell<FuzzyFilter> = RefCell::new(FuzzyFilter::new());
}

pub fn render(state: &State, areas: &Areas, theme: Theme, frame: &mut Frame) {
    let b = &state.browser;
    let type_label = b.lora_type.map_or("all", |t| t.as_str());
    let cate_label = if b.category.is_empty() {
        "any"
    } else {
        b.category.as_str()
    };
    let shown = format!(" · {}/{}", b.matches.len(), b.entries.len());
    // A cached copy shown until the fresh list arrives says how old it is (and, when the
    // service could not be reached, that it is offline) instead of `stale`.
    let count = match (&b.load, b.cached_mark(state.now)) {
        (Load::Loading, None) => " · loading…".to_string(),
        (Load::Loading, Some(mark)) => format!("{shown} · {mark} · loading…"),
        (Load::Failed(_), None) if b.nothing_cached().is_some() => " · offline".to_string(),
        (Load::Failed(_), None) if b.entries.is_empty() => " · failed".to_string(),
        (Load::Failed(_), None) => format!("{shown} (stale)"),
        (Load::Failed(_), Some(mark)) => format!("{shown} · {mark}"),
        (Load::Loaded, _) => shown,
    };
    // Drawn only when a ranking took longer than a frame (the event loop waits that long for
    // it): the count and the rows are still the previous query's.
    let filtering = if b.filtering() {
        " · filtering…"
    } else {
        ""
    };
    let only = if b.only_favourites {
        " · ★ only"
    } else {
        ""
    };
    let changed = b.marks.as_ref().and_then(Marks::summary);
    let sorted = b.sort.label();
    let picked = (!b.marked.is_empty()).then(|| format!("{} marked", b.marked.len()));
    let long = [
        picked.clone(),
        changed.clone(),
        sorted.as_ref().map(|l| format!("sorted by {l}")),
    ];
    let short = [
        picked,
        b.marks.as_ref().and_then(Marks::short_summary),
        sorted,
    ];
    let extra = |parts: &[Option<String>]| -> String {
        parts.iter().flatten().fold(String::new(), |mut out, p| {
            out.push_str(" · ");
            out.push_str(p);
            out
        })
    };
    let view = state
        .browser_view()
        .map(|v| format!("view {v} · "))
        .unwrap_or_default();
    let marks = format!(
        "{view}type {type_label} · cate {cate_label}{only}{count}{filtering}{}",
        extra(&long)
    );
    // Where the title does not fit, what the list is (`offline · filtered here`) matters more
    // than the pane's name, then the words of the counts and the sort (`+12 ~3 −2 · rating ↓`).
    let fits =
        |t: &str| unicode_width::UnicodeWidthStr::width(t) + 2 <= usize::from(areas.browser.width);
    let named = format!(" LoRA models · {marks} ");
    let title = if fits(&named) {
        named
    } else if fits(&format!(" {marks} ")) {
        format!(" {marks} ")
    } else {
        format!(
            " {view}{type_label} · {cate_label}{only}{count}{filtering}{} ",
            extra(&short)
        )
    };
    let title = crate::fit::cut(&title, usize::from(areas.browser.width.saturating_sub(2)));
    let border = theme.border(state.is_focused(Pane::Browser));
    super::border::sides(
        frame,
        areas.browser,
        ratatui::widgets::Borders::ALL,
        Span::styled(title, theme.title()),
        border,
    );

    let filter = filter_line(state, theme);
    // One line each, cut to fit: drawn as a `Paragraph` of them would draw them.
    set_lines(
        frame,
        areas.browser_filter,
        &[Line::from(crate::fit::cut_spans(
            filter.spans,
            usize::from(areas.browser_filter.width),
        ))],
    );
    if let Some(detail) = &b.filter_detail {
        let area = areas.browser_filter_detail;
        let text = crate::fit::cut(&format!("  {detail}"), usize::from(area.width));
        set_lines(frame, area, &[Line::from(Span::styled(text, theme.dim()))]);
    }
    render_list(state, areas, theme, frame);
    render_detail(state, areas, theme, frame);
}

fn filter_line(state: &State, theme: Theme) -> Line<'static> {
    let b = &state.browser;
    let editing = state.focus == Pane::Browser && state.popup.is_none();
    match b.editing {
        Some(Field::Category) if editing => {
            let mut spans = vec![
                Span::styled("category: ", theme.key()),
                Span::raw(b.category_draft.clone()),
                Span::styled("▏", theme.key()),
            ];
            let known = b.known_categories();
            if !known.is_empty() {
                let keys = &state.keymap;
                spans.push(Span::styled(
                    format!(
                        "  {} {}: {}",
                        keys.key_for(Context::TextInput, &Action::PickPrevious),
                        keys.key_for(Context::TextInput, &Action::PickNext),
                        known.join(", ")
                    ),
                    theme.dim(),
                ));
            }
            Line::from(spans)
        }
        Some(Field::Filter) if editing => Line::from(vec![
            Span::styled("/", theme.key()),
            Span::raw(b.query.clone()),
            Span::styled("▏", theme.key()),
        ]),
        _ if !b.query.is_empty() => Line::from(vec![
            Span::styled("/", theme.key()),
            Span::raw(b.query.clone()),
        ]),
        _ => {
            let keys = &state.keymap;
            Line::from(Span::styled(
                format!(
                    "{} to filter · {} type · {} category",
                    keys.key_for(Context::Browser, &Action::FocusFilter),
                    keys.key_for(Context::Browser, &Action::CycleType),
                    keys.key_for(Context::Browser, &Action::EditCategory)
                ),
                theme.dim(),
            ))
        }
    }
}

/// The list's one line when nothing is listed: loading, failed, empty, filtering, or no match.
fn nothing_listed(state: &State, theme: Theme) -> Line<'static> {
    let b = &state.browser;
    match &b.load {
        Load::Loading if b.entries.is_empty() => {
            Line::from(Span::styled("Loading the catalogue…", theme.dim()))
        }
        Load::Failed(e) if b.entries.is_empty() => Line::from(vec![
            Span::styled("Cannot load the catalogue: ", theme.error()),
            Span::raw(e.clone()),
            Span::styled(
                format!(
                    "  ({} reloads)",
                    state.keymap.key_for(Context::Browser, &Action::Refresh)
                ),
                theme.dim(),
            ),
        ]),
        _ if b.entries.is_empty() => Line::from(Span::styled(
            "The service lists no models for these filters.",
            theme.dim(),
        )),
        _ if b.filtering() => Line::from(Span::styled("Filtering…", theme.dim())),
        _ if b.only_favourites => Line::from(Span::styled(
            format!(
                "No favourite matches ({} marks a model; {} lists everything again).",
                state
                    .keymap
                    .key_for(Context::Browser, &Action::ToggleFavourite),
                state
                    .keymap
                    .key_for(Context::Browser, &Action::OnlyFavourites)
            ),
            theme.dim(),
        )),
        _ => Line::from(Span::styled(
            format!("No model matches “{}”.", b.query),
            theme.dim(),
        )),
    }
}

fn render_list(state: &State, areas: &Areas, theme: Theme, frame: &mut Frame) {
    let b = &state.browser;
    let area = areas.browser_list;
    if area.height == 0 || area.width == 0 {
        return;
    }
    if b.entries.is_empty() || b.matches.is_empty() {
        let nothing_cached = b.nothing_cached();
        let text = nothing_listed(state, theme);
        // Offline with nothing cached to stand in: said first, the failure's reason below.
        let lines = nothing_cached
            .map(|n| Line::from(Span::styled(n, theme.dim())))
            .into_iter()
            .chain([text]);
        set_lines(frame, area, &wrapped_in(lines, area));
        return;
    }
    let rows = usize::from(area.height);
    let focused = state.is_focused(Pane::Browser);
    let width = usize::from(area.width);
    // Parsed once for the screenful, not once a row.
    let query = Query::parse(&b.query);
    // Each row goes straight into the buffer (`set_line`: the same cells a `Paragraph` of these
    // lines draws, without its per-frame lines and line composer); the names are borrowed.
    let buf = frame.buffer_mut();
    MATCHER.with_borrow_mut(|matcher| {
        let shown = b
            .matches
            .iter()
            .enumerate()
            .skip(b.cursor.offset)
            .take(rows);
        for (y, (pos, &idx)) in (area.y..).zip(shown) {
            let entry = &b.entries[idx as usize];
            let spans = row_spans(b, idx, &matcher.indices_of(&query, entry.model()), theme);
            let mut line = Line::from(crate::fit::cut_spans(spans, width));
            if pos == b.cursor.selected {
                line = line.style(if focused {
                    theme.selected()
                } else {
                    theme.dim().add_modifier(ratatui::style::Modifier::REVERSED)
                });
            }
            super::set_line(buf, area.x, y, &line, area.width);
        }
    });
}

/// A list row's spans: the marks, the name with its matched characters, the type and category.
fn row_spans<'e>(
    b: &'e crate::app::browser::Browser,
    idx: u32,
    hits: &[u32],
    theme: Theme,
) -> Vec<Span<'e>> {
    let entry = &b.entries[idx as usize];
    let mut spans = highlight(entry.model(), hits, theme);
    if b.favourites.contains(entry.model()) {
        spans.insert(0, Span::styled("★ ", theme.title()));
    }
    // Marked for the copy-prompt key: a tick, as the watch list marks a task.
    if b.marked.iter().any(|m| m == entry.model()) {
        spans.insert(0, Span::styled("✓ ", theme.key()));
    }
    // What changed since the list before: a column of its own while there are marks.
    if b.marks.is_some() {
        let mark = if b.has_flag(idx, Flag::New) {
            Span::styled("+ ", theme.ok())
        } else if b.has_flag(idx, Flag::Changed) {
            Span::styled("~ ", theme.key())
        } else {
            Span::raw("  ")
        };
        spans.insert(0, mark);
    }
    let tag = match (entry.lora_type(), entry.category()) {
        (Some(t), Some(c)) => format!("  {t} · {c}"),
        // A lone empty one makes no tag; beside the other it still shows its `·`.
        (Some(one), None) | (None, Some(one)) if !one.is_empty() => format!("  {one}"),
        _ => String::new(),
    };
    if !tag.is_empty() {
        spans.push(Span::styled(tag, theme.dim()));
    }
    spans
}

/// `lines` wrapped at their spaces to `area`'s width; when they take more than its rows, the
/// last row shown ends in `…`.
fn wrapped_in(lines: impl Iterator<Item = Line<'static>>, area: Rect) -> Vec<Line<'static>> {
    let width = usize::from(area.width);
    let mut rows: Vec<Line> = lines
        .flat_map(|line| crate::fit::wrap_spans(&line.spans, width))
        .map(Line::from)
        .collect();
    let height = usize::from(area.height);
    if rows.len() > height
        && let Some(last) = rows.get_mut(height.saturating_sub(1))
    {
        let mut spans = std::mem::take(&mut last.spans);
        spans.push(Span::raw(format!(
            "{}{}",
            crate::fit::MORE,
            crate::fit::MORE
        )));
        *last = Line::from(crate::fit::cut_spans(spans, width));
        rows.truncate(height);
    }
    rows
}

fn highlight<'n>(name: &'n str, hits: &[u32], theme: Theme) -> Vec<Span<'n>> {
    if hits.is_empty() {
        return vec![Span::raw(name)];
    }
    // Runs of hit and missed characters, as slices of the name (no copy of it per frame).
    let mut spans = Vec::new();
    let mut start = 0;
    let mut run_hit = false;
    for (i, (at, _)) in name.char_indices().enumerate() {
        let hit = hits.binary_search(&(i as u32)).is_ok();
        if hit != run_hit && at > start {
            spans.push(run(&name[start..at], run_hit, theme));
            start = at;
        }
        run_hit = hit;
    }
    if start < name.len() {
        spans.push(run(&name[start..], run_hit, theme));
    }
    spans
}

fn run(text: &str, hit: bool, theme: Theme) -> Span<'_> {
    if hit {
        Span::styled(text, theme.matched())
    } else {
        Span::raw(text)
    }
}

/// The picture the selected entry's metadata names, drawn at the right of the detail as a
/// finished task's is (the text's `inner` narrowed to leave it room); what stands instead of
/// it (a failure, no graphics) is returned, for a line of the text.
fn picture_beside<'s>(
    state: &'s State,
    areas: &Areas,
    inner: &mut Rect,
    frame: &mut Frame,
) -> Option<&'s crate::picture::PreviewView> {
    let picture = areas.browser_preview;
    let view = state
        .model_preview_source()
        .and(state.model_preview.view())
        .filter(|_| !picture.is_empty())?;
    if crate::ui::preview_slot::needs_room(view) {
        crate::ui::preview_slot::render(frame, picture, view);
        inner.width = picture.x.saturating_sub(inner.x + 1);
        return None;
    }
    Some(view)
}

/// The selected model's every field, wrapped to the section's width. When they do not fit,
/// the last row says how many rows are below and which key zooms the pane: no field is cut
/// off without a sign.
fn render_detail(state: &State, areas: &Areas, theme: Theme, frame: &mut Frame) {
    let area = areas.browser_detail;
    if area.height == 0 || area.width == 0 {
        return;
    }
    let Some(entry) = state.browser.selected_entry() else {
        return;
    };
    let borders = if areas.browser_detail.x > areas.browser_list.x {
        ratatui::widgets::Borders::LEFT
    } else {
        ratatui::widgets::Borders::TOP
    };
    let title = Span::styled(" detail ", theme.dim());
    // Without a top border, the title still takes the first row.
    let mut inner = Block::new()
        .borders(borders)
        .title(title.clone())
        .inner(area);
    super::border::sides(frame, area, borders, title, theme.dim());
    let view = picture_beside(state, areas, &mut inner, frame);
    let width = usize::from(inner.width.max(1));
    let picture = view.map(crate::ui::preview_slot::describe);
    let metadata = crate::app::browser::detail_fields(entry);
    let mut fields = vec![("source", entry.source().unwrap_or("(none)"))];
    if let Some(picture) = &picture {
        fields.push(("picture", picture));
    }
    fields.extend(metadata.iter().map(|(k, v)| (&**k, &**v)));
    let mut lines: Vec<Line> = crate::fit::wrap(entry.model(), width)
        .into_iter()
        .map(|c| Line::from(Span::styled(c, theme.title())))
        .collect();
    // A new or changed model says so first, and what changed.
    let b = &state.browser;
    let selected = b.selected_entry_index();
    if selected.is_some_and(|i| b.has_flag(i, Flag::New)) {
        lines.push(Line::from(Span::styled(
            "+ new since the list before",
            theme.ok(),
        )));
    }
    for change in b.selected_changes() {
        for piece in crate::fit::wrap(&format!("~ {change}"), width) {
            lines.push(Line::from(Span::styled(piece, theme.key())));
        }
    }
    for (k, value) in fields {
        let label = format!("{k} ");
        let pieces = crate::fit::wrap(&format!("{label}{value}"), width);
        for (i, piece) in pieces.into_iter().enumerate() {
            // The label is dim on the field's first row; a label never wraps in a narrow pane.
            let line = match piece.strip_prefix(label.as_str()) {
                Some(rest) if i == 0 => Line::from(vec![
                    Span::styled(label.clone(), theme.dim()),
                    Span::raw(rest.to_string()),
                ]),
                // A value too long for the label's row starts on the next.
                _ if i == 0 && piece == k => Line::from(Span::styled(piece, theme.dim())),
                _ => Line::from(Span::raw(piece)),
            };
            lines.push(line);
        }
    }
    let rows = usize::from(inner.height);
    if lines.len() > rows && rows > 0 {
        let below = lines.len() - (rows - 1);
        lines.truncate(rows - 1);
        let zoom = if state.zoomed.is_some() {
            String::new()
        } else {
            format!(
                " · {} zooms",
                state.keymap.key_for(Context::Global, &Action::Zoom)
            )
        };
        lines.push(Line::from(Span::styled(
            format!("↓ {}{zoom}", crate::fmt::count(below, "more row")),
            theme.key(),
        )));
    }
    set_lines(frame, inner, &lines);
}
