//! The add dialog: task IDs (several at once) and the image/video toggle.

use super::theme::Theme;
use crate::app::state::{AddDialog, TaskKind};
use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

pub fn render(dialog: &AddDialog, theme: Theme, frame: &mut Frame) {
    let area = super::centered(frame.area(), 64, 10);
    frame.render_widget(Clear, area);
    let kind = |k: TaskKind| {
        if dialog.kind == k {
            Span::styled(format!("[{}]", k.as_str()), theme.key())
        } else {
            Span::styled(format!(" {} ", k.as_str()), theme.dim())
        }
    };
    let shown: String = dialog.text.replace(['\n', '\r', '\t'], " ");
    let mut lines = vec![
        Line::from(vec![
            Span::styled("Task IDs: ", theme.dim()),
            Span::raw(crate::api::sanitize::sanitize(&shown)),
            Span::styled("▏", theme.key()),
        ]),
        Line::from(""),
        Line::from(vec![
            Span::styled("Kind: ", theme.dim()),
            kind(TaskKind::Image),
            Span::raw(" "),
            kind(TaskKind::Video),
            Span::styled("   (Tab switches)", theme.dim()),
        ]),
    ];
    if let Some(e) = &dialog.error {
        lines.push(Line::from(Span::styled(e.clone(), theme.error())));
    }
    lines.push(Line::from(Span::styled(
        "⏎ add · Esc cancel · several IDs: space, comma or newline",
        theme.dim(),
    )));
    let block = Block::bordered()
        .title(Span::styled(" Add tasks to the watch list ", theme.title()))
        .border_style(theme.border(true));
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false }),
        area,
    );
}
