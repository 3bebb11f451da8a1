//! The view's own cell writer against ratatui's.

use proptest::prelude::*;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

/// Pieces a span is made of: printable ASCII, and what takes `set_stringn`'s way (wide and
/// combining characters, a control character, a tab, an emoji with a joiner).
fn piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "a",
        "Z",
        "7",
        " ",
        "~",
        "watercolor",
        "·",
        "★ ",
        "界",
        "e\u{301}",
        "\t",
        "\u{1b}",
        "\n",
        "\u{7f}",
        "👩\u{200d}🔬",
        "…",
    ])
}

fn style() -> impl Strategy<Value = Style> {
    (0u8..4, 0u8..3).prop_map(|(fg, m)| {
        let mut s = Style::new();
        if fg > 0 {
            s = s.fg(Color::Indexed(fg));
        }
        match m {
            1 => s.add_modifier(Modifier::BOLD),
            2 => s.add_modifier(Modifier::REVERSED),
            _ => s,
        }
    })
}

fn line() -> impl Strategy<Value = Line<'static>> {
    (
        prop::collection::vec((prop::collection::vec(piece(), 0..6), style()), 0..5),
        style(),
    )
        .prop_map(|(spans, line_style)| {
            Line::from(
                spans
                    .into_iter()
                    .map(|(pieces, s)| Span::styled(pieces.concat(), s))
                    .collect::<Vec<_>>(),
            )
            .style(line_style)
        })
}

proptest! {
    /// Any line, anywhere on a row, at any width: the same cells as ratatui's `set_line`, on
    /// a buffer already drawn on (the cells it leaves alone stay as they were).
    #[test]
    fn set_line_sets_the_cells_ratatui_sets(
        line in line(),
        x in 0u16..24,
        max_width in 0u16..30,
        under in prop::collection::vec(piece(), 0..8),
    ) {
        let area = Rect::new(2, 1, 20, 3);
        let mut ours = Buffer::empty(area);
        ours.set_string(2, 2, under.concat(), Style::new().fg(Color::Red));
        let mut theirs = ours.clone();
        let x = x.clamp(area.left(), area.right());
        super::set_line(&mut ours, x, 2, &line, max_width);
        theirs.set_line(x, 2, &line, max_width);
        prop_assert_eq!(ours, theirs);
    }
}
