//! Colours: `NO_COLOR`, the light and high-contrast themes as style maps, and a configured style drawn.

use super::*;

#[test]
fn no_color_uses_no_colours_whatever_the_theme_and_styles_say() {
    let mut styles = BTreeMap::new();
    styles.insert("selected".to_string(), Style::new().bg(Color::Blue));
    styles.insert("running".to_string(), Style::new().fg(Color::Indexed(208)));
    for theme in [ThemeName::Dark, ThemeName::Light, ThemeName::HighContrast] {
        let mut s = watching();
        s.theme = Theme::new(theme, &styles, true);
        let t = draw(&s);
        for cell in t.backend().buffer().content() {
            assert!(
                matches!(cell.fg, Color::Reset) && matches!(cell.bg, Color::Reset),
                "{theme:?}: {cell:?}"
            );
        }
    }
}

/// The screen's styles as a grid of letters, one per distinct style, with a legend: what a
/// text snapshot cannot show of a theme.
fn style_map(t: &Terminal<TestBackend>) -> String {
    use std::fmt::Write as _;
    let buffer = t.backend().buffer();
    let mut legend: Vec<Style> = Vec::new();
    let mut grid = String::new();
    for y in 0..buffer.area.height {
        for x in 0..buffer.area.width {
            let style = buffer[(x, y)].style();
            let i = legend.iter().position(|s| *s == style).unwrap_or_else(|| {
                legend.push(style);
                legend.len() - 1
            });
            let letter =
                b"-ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"[i.min(62)];
            grid.push(char::from(letter));
        }
        grid.push('\n');
    }
    let mut out = String::new();
    for (i, s) in legend.iter().enumerate() {
        let letter = b"-ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"[i.min(62)];
        let _ = writeln!(
            out,
            "{}: fg {:?}, bg {:?}, {:?}",
            char::from(letter),
            s.fg,
            s.bg,
            s.add_modifier
        );
    }
    out + "\n" + &grid
}

fn themed(theme: ThemeName) -> Terminal<TestBackend> {
    let mut s = watching();
    s.update(Action::Resize {
        width: 100,
        height: 24,
    });
    s.theme = Theme::new(theme, &BTreeMap::new(), false);
    draw(&s)
}

#[test]
fn light_theme() {
    insta::assert_snapshot!(style_map(&themed(ThemeName::Light)));
}

#[test]
fn high_contrast_theme() {
    insta::assert_snapshot!(style_map(&themed(ThemeName::HighContrast)));
}

/// `[styles]` replaces a named style wherever it is drawn: here the selected row's.
#[test]
fn a_configured_style_is_drawn() {
    let mut styles = BTreeMap::new();
    let orange = Style::new()
        .fg(Color::Indexed(208))
        .add_modifier(Modifier::ITALIC);
    styles.insert("selected".to_string(), orange);
    let mut s = watching();
    s.theme = Theme::new(ThemeName::Dark, &styles, false);
    let t = draw(&s);
    let buffer = t.backend().buffer();
    let row = (0..buffer.area.height)
        .find(|&y| {
            let text: String = (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol())
                .collect();
            text.contains("watercolor_v2")
        })
        .expect("the first model is on screen");
    assert!(
        (0..buffer.area.width).any(|x| buffer[(x, row)].fg == Color::Indexed(208)
            && buffer[(x, row)].modifier.contains(Modifier::ITALIC)),
        "the selected row is not drawn in the configured style"
    );
}
