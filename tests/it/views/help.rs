//! The help overlay: drawn, scrolled to its end, and the line its search found selected.

use super::*;

#[test]
fn help_overlay() {
    let mut s = loaded(100, 40, Vec::new());
    s.update(Action::ToggleHelp);
    insta::assert_snapshot!(draw(&s).backend());
}

/// At 60x20 the help does not fit: its border says so and which lines are shown; scrolled as
/// far as it goes, its last line is on the overlay's last row. Its closing note, wider than
/// the overlay, wraps whole onto two rows (never cut with `…`).
#[test]
fn help_overlay_shows_that_it_scrolls_and_stops_at_its_end() {
    let mut s = loaded(60, 20, Vec::new());
    s.update(Action::ToggleHelp);
    insta::assert_snapshot!("help_overlay_60x20_top", draw(&s).backend());
    for _ in 0..200 {
        s.update(Action::Down);
    }
    let t = draw(&s);
    insta::assert_snapshot!("help_overlay_60x20_end", t.backend());
    let buf = t.backend().buffer();
    let help = s.areas.help;
    let row = |y: u16| -> String {
        (help.x..help.right())
            .map(|x| buf[(x, y)].symbol())
            .collect()
    };
    assert!(
        row(help.bottom() - 3).contains("Mouse: click")
            && row(help.bottom() - 2).contains("scrolls."),
        "the note wrapped, its last row on the last row: {}",
        row(help.bottom() - 2)
    );
    assert!(
        !row(help.bottom() - 3).contains('…'),
        "{}",
        row(help.bottom() - 3)
    );
    assert!(row(help.bottom() - 1).contains("↑ more"));
}

/// A search in the help scrolls to the line it found and draws that line, and only it, in the
/// selected style, whichever row of the overlay it is on.
#[test]
fn the_help_draws_the_line_its_search_found_selected() {
    let mut s = loaded(80, 20, Vec::new());
    s.update(Action::ToggleHelp);
    s.update(Action::Search);
    for c in "zoom".chars() {
        s.update(Action::Type(c));
    }
    let t = draw(&s);
    let buf = t.backend().buffer();
    let help = s.areas.help;
    let selected = s.theme.selected();
    let rows: Vec<(String, bool)> = (help.y + 1..help.bottom() - 1)
        .map(|y| {
            let text: String = (help.x + 1..help.right() - 1)
                .map(|x| buf[(x, y)].symbol())
                .collect();
            let marked = buf[(help.x + 3, y)].style().bg == selected.bg;
            (text, marked)
        })
        .collect();
    let marked: Vec<&String> = rows.iter().filter(|r| r.1).map(|r| &r.0).collect();
    assert_eq!(marked.len(), 1, "one line selected: {rows:#?}");
    assert!(marked[0].to_lowercase().contains("zoom"), "{marked:?}");
    assert!(
        !rows[0].0.contains("zoom") || rows[0].1,
        "the found line is the one selected: {rows:#?}"
    );
}
