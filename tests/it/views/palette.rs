//! The palette over the browser at 80 and 220 columns: its field, the actions the typed text
//! matches with their keys as bound now, the pick highlighted.

use super::{Action, draw, loaded};

/// The palette opened over the browser, `fav` typed, the pick moved to the second match.
fn palette_at(width: u16, height: u16) -> gendash::app::state::State {
    let mut s = loaded(width, height, Vec::new());
    s.update(Action::OpenPalette);
    for c in "fav".chars() {
        s.update(Action::Type(c));
    }
    s.update(Action::PickNext);
    s
}

#[test]
fn the_palette_lists_the_matching_actions_with_their_keys_at_80_and_220_columns() {
    for (width, height, name) in [(80, 24, "palette_80x24"), (220, 50, "palette_220x50")] {
        let s = palette_at(width, height);
        let t = draw(&s);
        insta::assert_snapshot!(name, t.backend());
        let buf = t.backend().buffer();
        let area = s.areas.help;
        let row = |y: u16| -> String {
            (area.x..area.right())
                .map(|x| buf[(x, y)].symbol())
                .collect()
        };
        let rows: Vec<String> = (area.y..area.bottom()).map(row).collect();
        assert!(rows[0].contains("Actions"), "{rows:#?}");
        assert!(rows[1].contains("> fav"), "{rows:#?}");
        let at = |name: &str| {
            rows.iter()
                .position(|r| r.contains(&format!(" {name} ")))
                .unwrap_or_else(|| panic!("{name} in {rows:#?}"))
        };
        let (favourite, only) = (at("favourite"), at("favourites_only"));
        assert!(
            rows[favourite].contains("│f "),
            "its key: {}",
            rows[favourite]
        );
        assert!(rows[only].contains("│F "), "its key: {}", rows[only]);
        // The pick (the second match) is drawn as selected, the first is not.
        let style = |y: usize| buf[(area.x + 3, area.y + u16::try_from(y).unwrap())].style();
        let selected = s.theme.selected();
        let pick = style(only);
        assert!(
            pick.bg == selected.bg && pick.add_modifier.contains(selected.add_modifier),
            "the pick is highlighted: {pick:?} against {selected:?}"
        );
        assert_ne!(style(favourite), pick, "only the pick is");
    }
}
