//! The request log (`L`): one row per request, newest at the bottom, and below the rows the
//! selected request's whole URL and what went wrong with it.

use crate::app::layout::Areas;
use crate::app::state::{Action, Context};
use crate::app::state::{Keymap, RequestLog, State, Theme};
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Clear, Paragraph, Row, Table};

/// The URL's path and query: the host is the same for nearly every row, and the detail
/// below shows it for the selected one.
fn path_of(url: &str) -> &str {
    url.split_once("://")
        .and_then(|(_, rest)| rest.find('/').map(|i| &rest[i..]))
        .unwrap_or(url)
}

/// The log's title: how many requests, the search, and its keys as bound.
fn title(state: &State) -> String {
    let keys = &state.keymap;
    let search = super::help::search_label(state)
        .map(|s| format!("{s} · "))
        .unwrap_or_default();
    // The poller's load, also here: a narrow status bar cuts it off.
    let load = crate::app::status::load_text(&state.poll_load)
        .map(|l| format!("{l} · "))
        .unwrap_or_default();
    format!(
        " Requests · {} of the last {} · {load}{search}{} copies as curl · {} searches · {} closes ",
        state.requests.entries.len(),
        crate::app::state::REQUESTS_KEPT,
        keys.key_for(Context::Requests, &Action::CopyCurl),
        keys.key_for(Context::Requests, &Action::Search),
        keys.key_for(Context::Requests, &Action::ToggleRequests),
    )
}

pub fn render(state: &State, areas: &Areas, theme: Theme, frame: &mut Frame) {
    let log = &state.requests;
    let keys = &state.keymap;
    let area = areas.requests;
    if area.width < 20 || area.height < 7 {
        return;
    }
    frame.render_widget(Clear, area);
    let block = Block::bordered()
        .title(Span::styled(
            crate::fit::cut(&title(state), usize::from(area.width.saturating_sub(2))),
            theme.title(),
        ))
        .border_style(theme.border(true));
    frame.render_widget(block, area);

    let zone = if log.utc_offset.is_utc() {
        "UTC"
    } else {
        "time"
    };
    let header =
        Row::new(["", zone, "method", "status", "took", "size", "path"]).style(theme.title());
    let first = log.cursor.offset;
    // The path's column: what the six before it and the gaps between the seven leave.
    let path_width =
        usize::from(areas.requests_rows.width).saturating_sub(1 + 8 + 6 + 6 + 8 + 8 + 6);
    let rows = log
        .entries
        .iter()
        .enumerate()
        .skip(first)
        .take(usize::from(areas.requests_rows.height))
        .map(|(i, r)| {
            let at = time::OffsetDateTime::from(r.at).to_offset(log.utc_offset);
            let (status, style) = match (r.status, &r.error) {
                (Some(s), None) if s < 400 => (s.to_string(), theme.ok()),
                (Some(s), _) => (s.to_string(), theme.error()),
                (None, _) => ("—".to_string(), theme.error()),
            };
            let row = Row::new([
                Cell::from(if i == log.cursor.selected { "›" } else { " " }),
                Cell::from(format!(
                    "{:02}:{:02}:{:02}",
                    at.hour(),
                    at.minute(),
                    at.second()
                )),
                Cell::from(r.method),
                Cell::from(Span::styled(status, style)),
                Cell::from(crate::fmt::took(r.duration)),
                Cell::from(crate::fmt::size_short(r.bytes)),
                Cell::from(crate::fit::cut(path_of(&r.url), path_width)),
            ]);
            if i == log.cursor.selected {
                row.style(theme.selected())
            } else {
                row
            }
        });
    let table = Table::new(
        rows,
        [
            Constraint::Length(1),
            Constraint::Length(8),
            Constraint::Length(6),
            Constraint::Length(6),
            Constraint::Length(8),
            Constraint::Length(8),
            Constraint::Min(10),
        ],
    )
    .header(header);
    let r = areas.requests_rows;
    frame.render_widget(table, Rect::new(r.x, r.y - 1, r.width, r.height + 1));

    let below = Rect::new(r.x, r.bottom(), r.width, 3);
    let mut lines = vec![Line::styled("─".repeat(usize::from(r.width)), theme.dim())];
    match log.selected() {
        None => lines.push(Line::styled(
            "no requests yet: the catalogue and every poll appear here as they happen",
            theme.dim(),
        )),
        Some(sel) => {
            lines.push(Line::from(vec![
                Span::styled(format!("{} ", sel.method), theme.key()),
                Span::raw(sel.url.clone()),
            ]));
            lines.push(how_sent(log, keys, theme));
        }
    }
    let width = usize::from(r.width);
    let lines: Vec<Line> = lines
        .into_iter()
        .map(|line| Line::from(crate::fit::cut_spans(line.spans, width)).style(line.style))
        .collect();
    frame.render_widget(Paragraph::new(lines), below);
}

/// The selected request's last line: its error, or whether it carried the token (the demo's
/// throwaway token is shown, so the request can be tried).
fn how_sent(log: &RequestLog, keys: &Keymap, theme: Theme) -> Line<'static> {
    let Some(sel) = log.selected() else {
        return Line::default();
    };
    let copy = keys.key_for(Context::Requests, &Action::CopyCurl);
    match &sel.error {
        Some(e) => Line::styled(e.clone(), theme.error()),
        None if sel.authorized && log.demo_token.is_some() => Line::from(vec![
            Span::styled(
                format!("try it (the demo's token; {copy} copies): "),
                theme.dim(),
            ),
            Span::raw(log.curl(sel)),
        ]),
        None if sel.authorized => Line::styled(
            format!("sent with the token ({copy} copies it as $GENDASH_TOKEN, never the token)"),
            theme.dim(),
        ),
        None if sel.is_run() => match &sel.output {
            Some(output) => Line::from(vec![
                Span::styled("output: ", theme.dim()),
                Span::raw(output.clone()),
                Span::styled(format!(" · {copy} copies the command line"), theme.dim()),
            ]),
            None => Line::styled(
                format!("ran without the token, wrote nothing ({copy} copies the command line)"),
                theme.dim(),
            ),
        },
        None => Line::styled("sent without the token", theme.dim()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_read_short() {
        assert_eq!(
            path_of("http://127.0.0.1:8787/api/lora/?type=sd"),
            "/api/lora/?type=sd"
        );
        assert_eq!(path_of("http://h"), "http://h");
    }
}
