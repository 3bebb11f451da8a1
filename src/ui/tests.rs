//! The view's own cell writer against ratatui's.

use proptest::prelude::*;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

/// Pieces a span is made of: printable ASCII and other one-column characters, and what takes
/// `set_stringn`'s way (wide and combining characters, a control character, a tab, an emoji
/// with a joiner, a wide character among the one-column blocks, a sign outside them).
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
        "é",
        "—",
        "→",
        "─┐",
        "▏",
        "½",
        "€",
        "⌚",
        "\u{301}",
        "\u{fe0f}",
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

/// Every character up to U+2FFF (the blocks `set_line` writes a cell at a time and the scripts
/// around them) between two letters and after a wide one: the same cells as ratatui's
/// `set_line` (a character written alone that joined a neighbour into one grapheme, or one
/// wider than a column, would differ).
#[test]
fn each_character_written_a_cell_at_a_time_is_a_grapheme_of_one_column() {
    let mut fast = 0;
    for c in (0x20..=0x2fff).filter_map(char::from_u32) {
        fast += usize::from(super::one_column_alone(c));
        for text in [format!("a{c}b"), format!("界{c}{c}")] {
            let area = Rect::new(0, 0, 8, 1);
            let line = Line::from(Span::styled(text.clone(), Style::new().fg(Color::Cyan)));
            let mut ours = Buffer::empty(area);
            let mut theirs = Buffer::empty(area);
            super::set_line(&mut ours, 0, 0, &line, 8);
            theirs.set_line(0, 0, &line, 8);
            assert_eq!(ours, theirs, "{text:?} (U+{:04X})", u32::from(c));
        }
    }
    // The blocks are mostly one column each: the way is not one taken for nothing.
    assert!(fast > 2_000, "{fast} characters written a cell at a time");
}
