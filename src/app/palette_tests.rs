//! The palette through the reducers: opening, narrowing, running, closing, rebound keys.

use crate::app::test_support::*;
use std::collections::BTreeMap;

fn palette(s: &State) -> &Palette {
    match &s.popup {
        Some(Popup::Palette(p)) => p,
        other => panic!("expected the palette, got {other:?}"),
    }
}

fn shown_names(s: &State) -> Vec<String> {
    let all = crate::app::palette::entries(&s.keymap, s.mode_beneath());
    crate::app::palette::matching(&all, &palette(s).query)
        .iter()
        .map(|e| e.name.to_string())
        .collect()
}

fn type_text(s: &mut State, text: &str) {
    for c in text.chars() {
        press(s, ch(c));
    }
}

#[test]
fn colon_and_ctrl_p_open_the_palette_of_the_pane_beneath() {
    for open in [ch(':'), ctrl('p')] {
        let mut s = state();
        assert_eq!(press(&mut s, open).0, Some(Action::OpenPalette));
        assert_eq!(s.mode(), Mode::Palette);
        assert_eq!(s.mode_beneath(), Mode::Pane(Pane::Browser));
        let names = shown_names(&s);
        // The browser's own, either pane's, and those of every mode; not the watch list's.
        for name in ["type", "filter", "add", "quit", "suspend"] {
            assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
        }
        assert!(!names.iter().any(|n| n == "poll_now"), "{names:?}");
        assert!(!names.iter().any(|n| n == "palette"), "{names:?}");
    }
}

#[test]
fn typing_narrows_the_list_to_the_matching_actions() {
    let mut s = state();
    press(&mut s, ch(':'));
    let all = shown_names(&s).len();
    type_text(&mut s, "fav");
    let names = shown_names(&s);
    assert!(names.len() < all, "{names:?}");
    assert!(names.len() >= 2, "{names:?}");
    assert_eq!(&names[..2], ["favourite", "favourites_only"], "{names:?}");
    type_text(&mut s, "zzqx");
    assert!(shown_names(&s).is_empty());
    assert_eq!(s.mode(), Mode::Palette, "a letter is typed, not run");
}

#[test]
fn enter_runs_the_picked_action_in_the_pane_beneath() {
    let mut s = state();
    assert_eq!(s.browser.lora_type, None);
    press(&mut s, ch(':'));
    type_text(&mut s, "type");
    assert_eq!(shown_names(&s)[0], "type");
    let (_, cmds) = press(&mut s, key(KeyCode::Enter));
    assert!(s.popup.is_none(), "the palette closed");
    assert_eq!(s.mode(), Mode::Pane(Pane::Browser));
    assert_eq!(s.browser.lora_type, Some(crate::api::LoraType::Sd));
    assert_eq!(fetched(&cmds), vec![(Some(crate::api::LoraType::Sd), None)]);
}

#[test]
fn the_pick_moves_and_enter_runs_the_one_picked() {
    let mut s = state();
    press(&mut s, ch(':'));
    type_text(&mut s, "fav");
    press(&mut s, key(KeyCode::Down));
    press(&mut s, key(KeyCode::Down));
    press(&mut s, key(KeyCode::Up));
    assert_eq!(palette(&s).selected, 1);
    assert_eq!(shown_names(&s)[1], "favourites_only");
    press(&mut s, key(KeyCode::Enter));
    assert!(s.browser.only_favourites);
}

#[test]
fn an_action_without_a_selection_says_so() {
    let mut s = state();
    s.update(Action::FocusNext);
    s.update(Action::Remove);
    assert!(row_ids(&s).is_empty(), "the watch list is empty now");
    press(&mut s, ch(':'));
    assert_eq!(s.mode_beneath(), Mode::Pane(Pane::Watch));
    type_text(&mut s, "poll now");
    assert_eq!(shown_names(&s)[0], "poll_now");
    press(&mut s, key(KeyCode::Enter));
    assert!(
        notice(&s).is_some_and(|n| n.contains("no task selected")),
        "{:?}",
        notice(&s)
    );
}

#[test]
fn esc_closes_the_palette_and_runs_nothing() {
    let mut s = state();
    press(&mut s, ch(':'));
    type_text(&mut s, "type");
    press(&mut s, key(KeyCode::Esc));
    assert!(s.popup.is_none());
    assert_eq!(s.browser.lora_type, None);
    assert_eq!(s.mode(), Mode::Pane(Pane::Browser));
}

#[test]
fn the_palette_opens_over_the_archive_and_runs_there() {
    let mut s = state();
    s.update(Action::FocusNext);
    s.update(Action::ToggleArchive);
    assert_eq!(s.mode(), Mode::Archive);
    press(&mut s, ch(':'));
    assert_eq!(s.mode_beneath(), Mode::Archive);
    assert!(shown_names(&s).iter().any(|n| n == "watch_again"));
    type_text(&mut s, "close archive");
    press(&mut s, key(KeyCode::Enter));
    assert!(!s.archive.open, "back to the watch list");
}

#[test]
fn a_rebound_key_shows_as_bound() {
    let mut s = state();
    let keys: BTreeMap<String, Vec<crate::store::config::KeyCombo>> = [
        ("type".to_string(), vec!["T".parse().expect("a key")]),
        (
            "palette".to_string(),
            vec!["ctrl-k".parse().expect("a key")],
        ),
    ]
    .into();
    s.keymap = Keymap::configured(&keys).expect("no clash");
    // `[keys]` moves the palette too: ctrl-k opens it, `:` no longer does.
    let open = s.keymap.resolve(&s.contexts(), &ctrl('k'));
    assert_eq!(open, Some(Action::OpenPalette));
    assert_eq!(s.keymap.resolve(&s.contexts(), &ch(':')), None);
    s.update(Action::OpenPalette);
    let all = crate::app::palette::entries(&s.keymap, s.mode_beneath());
    let ty = all.iter().find(|e| e.name == "type").expect("type offered");
    assert_eq!(ty.keys, "T");
}

/// Page down and page up move the pick by the rows the palette shows, within the list.
#[test]
fn page_keys_move_the_pick_by_a_page() {
    let mut s = state();
    s.update(Action::Resize {
        width: 80,
        height: 24,
    });
    s.update(Action::OpenPalette);
    let page = usize::from(s.areas.help.height - 3);
    let picked = |s: &State| match &s.popup {
        Some(Popup::Palette(p)) => p.selected,
        other => panic!("{other:?}"),
    };
    press(&mut s, key(KeyCode::PageDown));
    assert_eq!(picked(&s), page);
    press(&mut s, key(KeyCode::PageUp));
    assert_eq!(picked(&s), 0);
    let all = crate::app::palette::entries(&s.keymap, s.mode_beneath()).len();
    for _ in 0..all {
        press(&mut s, key(KeyCode::PageDown));
    }
    assert_eq!(picked(&s), all - 1, "the last, never past it");
    press(&mut s, key(KeyCode::PageUp));
    assert_eq!(picked(&s), all - 1 - page);
}
