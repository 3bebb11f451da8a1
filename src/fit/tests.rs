use super::*;
use proptest::prelude::*;
use ratatui::style::{Color, Style};

#[test]
fn a_cut_ends_in_the_mark_and_fits() {
    assert_eq!(cut("abcdef", 6), "abcdef");
    assert_eq!(cut("abcdef", 5), "abcd…");
    assert_eq!(cut("abcdef", 1), "…");
    assert_eq!(cut("abcdef", 0), "");
    assert_eq!(cut("", 0), "");
    // A wide character that would straddle the edge is left out whole.
    assert_eq!(cut("日本語", 4), "日…");
    assert_eq!(cut("日本語", 5), "日本…");
    assert_eq!(cut("日本語", 6), "日本語");
    assert_eq!(cut("日本語", 1), "…");
}

#[test]
fn a_cut_from_the_start_keeps_the_end() {
    assert_eq!(cut_start("abcdef", 4), "…def");
    assert_eq!(cut_start("abcdef", 6), "abcdef");
    assert_eq!(cut_start("日本語", 4), "…語");
    assert_eq!(cut_start("abc", 1), "…");
    assert_eq!(cut_start("abc", 0), "");
}

#[test]
fn padded_columns_are_exactly_as_wide() {
    assert_eq!(pad("ab", 4), "ab  ");
    assert_eq!(pad("abcdef", 4), "abc…");
    assert_eq!(pad("日本語", 5), "日本…");
    assert_eq!(pad("日本語", 4), "日… ");
    assert_eq!(pad("x", 0), "");
}

#[test]
fn rows_break_at_spaces_and_urls_after_their_marks() {
    assert_eq!(
        wrap("added 07:58:25 · started 08:00:40", 20),
        ["added 07:58:25 ·", "started 08:00:40"]
    );
    assert_eq!(wrap("exactly ten", 11), ["exactly ten"]);
    assert_eq!(wrap("", 5), [""]);
    assert_eq!(
        wrap("url http://127.0.0.1:8787/files/pic-done.png", 30),
        ["url", "http://127.0.0.1:8787/files/", "pic-done.png"]
    );
    assert_eq!(wrap("ab-cdefgh", 5), ["ab-", "cdefg", "h"]);
    assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
    assert_eq!(wrap("漢字漢字", 5), ["漢字", "漢字"]);
    // Width 0 is taken as 1; a wide character gets a row of its own.
    assert_eq!(wrap("ab", 0), ["a", "b"]);
    // No row is wider than the width, and no word is split where a space could break.
    let text = "the service does not know this task: no image generation task with ID x";
    for width in 10..40 {
        let rows = wrap(text, width);
        assert!(rows.iter().all(|l| l.width() <= width), "{width}: {rows:?}");
        let words: Vec<&str> = text.split(' ').collect();
        let rejoined: Vec<&str> = rows.iter().flat_map(|l| l.split(' ')).collect();
        assert_eq!(rejoined, words, "{width}: {rows:?}");
    }
    assert_eq!(wrap("漢字", 1), ["漢", "字"]);
}

#[test]
fn rows_broken_anywhere() {
    assert_eq!(wrap_chars("abcdefg", 3), ["abc", "def", "g"]);
    assert_eq!(wrap_chars("", 3), [""]);
    assert_eq!(wrap_chars("日本語", 4), ["日本", "語"]);
    assert_eq!(wrap_chars("日本", 1), ["日", "本"]);
}

#[test]
fn too_many_rows_end_in_the_mark() {
    assert_eq!(wrap_rows("aa bb cc", 2, 2), ["aa", "b…"]);
    assert_eq!(wrap_rows("aa bb cc", 5, 1), ["aa b…"]);
    assert_eq!(wrap_rows("aa bb cc", 8, 1), ["aa bb cc"]);
    assert_eq!(wrap_rows("aa bb cc dd", 10, 1), ["aa bb cc …"]);
}

#[test]
fn spans_are_cut_in_the_style_of_the_last_kept() {
    let red = Style::new().fg(Color::Red);
    let spans = || vec![Span::raw("abc"), Span::styled("defg", red)];
    let text = |s: &[Span]| s.iter().map(|s| s.content.to_string()).collect::<String>();
    assert_eq!(text(&cut_spans(spans(), 7)), "abcdefg");
    assert_eq!(text(&cut_spans(spans(), 6)), "abcde…");
    assert_eq!(cut_spans(spans(), 6)[1].style, red);
    // The first span filling the width exactly gives its last column to the mark.
    assert_eq!(text(&cut_spans(spans(), 3)), "ab…");
    assert_eq!(text(&cut_spans(spans(), 4)), "abc…");
    assert_eq!(cut_spans(spans(), 4)[1].style, red);
    assert_eq!(text(&cut_spans(spans(), 1)), "…");
    assert!(cut_spans(spans(), 0).is_empty());
    assert_eq!(text(&ending_cut_spans(spans(), 9)), "abcdefg …");
    assert_eq!(text(&ending_cut_spans(spans(), 8)), "abcdefg…");
    assert_eq!(text(&ending_cut_spans(spans(), 7)), "abcdef…");
}

#[test]
fn wrapped_spans_keep_their_styles() {
    let red = Style::new().fg(Color::Red);
    let spans = [Span::raw("ab cd "), Span::styled("ef gh", red)];
    let rows = wrap_spans(&spans, 5);
    let text: Vec<Vec<(String, Style)>> = rows
        .iter()
        .map(|r| r.iter().map(|s| (s.content.to_string(), s.style)).collect())
        .collect();
    let raw = Style::new();
    assert_eq!(
        text,
        [
            vec![("ab cd".to_string(), raw)],
            vec![("ef gh".to_string(), red)]
        ]
    );
    let rows = wrap_spans(&spans, 8);
    assert_eq!(rows[0].len(), 2, "{rows:?}");
    assert_eq!(rows[0][1].content, "ef");
    assert_eq!(rows[1][0].content, "gh");
}

/// Text with narrow, wide and zero-width characters, spaces and URL marks.
fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just('a'),
            Just('Z'),
            Just(' '),
            Just('/'),
            Just('-'),
            Just('日'),
            Just('é'),
            Just('\u{301}'),
        ],
        0..40,
    )
    .prop_map(|cs| cs.into_iter().collect())
}

proptest! {
    #[test]
    fn nothing_is_cut_without_the_mark(text in text(), width in 0usize..30) {
        let shown = cut(&text, width);
        prop_assert!(shown.width() <= width);
        if shown != text && width > 0 {
            prop_assert!(shown.ends_with(MORE), "{shown:?}");
            prop_assert!(text.starts_with(shown.trim_end_matches(MORE)));
        }
        let shown = cut_start(&text, width);
        prop_assert!(shown.width() <= width);
        if shown != text && width > 0 {
            prop_assert!(shown.starts_with(MORE), "{shown:?}");
            prop_assert!(text.ends_with(shown.trim_start_matches(MORE)));
        }
        prop_assert_eq!(pad(&text, width).width(), width);
    }

    #[test]
    fn wrapping_loses_nothing_and_fits(text in text(), width in 0usize..30) {
        let rows = wrap(&text, width);
        for row in &rows {
            prop_assert!(row.width() <= width.max(2), "{row:?} at {width}");
        }
        let kept: String = rows.concat().chars().filter(|c| *c != ' ').collect();
        let all: String = text.chars().filter(|c| *c != ' ').collect();
        prop_assert_eq!(kept, all);
        prop_assert_eq!(wrap_chars(&text, width).concat(), text);
    }
}
