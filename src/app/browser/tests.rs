//! The browser's own tests: the filter's ranking, reloads, the category field.

use super::*;
use crate::api::{Catalogue, Listing};
use crate::cmd::{CatalogueRequest, RankJob};
use crate::filter::Ranker;
use serde_json::Map;

fn entry(name: &str) -> LoraEntry {
    LoraEntry::new(name, &Map::new())
}

fn loaded(names: &[&str]) -> Browser {
    let mut b = Browser::new(vec!["style".into(), "character".into()], vec!["old".into()]);
    let Cmd::FetchCatalogue(CatalogueRequest { generation, .. }) = b.fetch() else {
        panic!("fetch")
    };
    let cat = Catalogue {
        entries: names.iter().map(|n| entry(n)).collect(),
        skipped: 0,
    };
    assert_eq!(b.loaded(generation, Ok(cat.into())), Some(Vec::new()));
    b
}

/// The ranking a `Cmd::Rank` asks for, as the worker answers it (generation, matches).
fn answer(cmd: Option<Cmd>) -> (u64, Arc<[u32]>) {
    let Some(Cmd::Rank(RankJob {
        generation,
        query,
        text,
    })) = cmd
    else {
        panic!("expected a ranking, got {cmd:?}")
    };
    (generation, Ranker::new().rank(&query, &text))
}

/// Types `text` key by key, each keystroke's ranking answered before the next key.
fn typed(b: &mut Browser, text: &str) {
    for c in text.chars() {
        let (generation, matches) = answer(b.type_text(c.encode_utf8(&mut [0; 4])));
        assert!(b.ranked(generation, matches));
    }
}

fn shown(b: &Browser) -> Vec<&str> {
    b.matches
        .iter()
        .map(|&i| b.entries[i as usize].model())
        .collect()
}

fn selected(b: &Browser) -> Option<&str> {
    b.selected_entry().map(LoraEntry::model)
}

#[test]
fn filter_reranks_on_each_keystroke() {
    let mut b = loaded(&["pixel_art", "watercolor", "water_tower", "ink"]);
    assert_eq!(b.matches.len(), 4);
    b.start_editing(Field::Filter);
    typed(&mut b, "wat");
    assert_eq!(b.matches.len(), 2);
    typed(&mut b, "erc");
    assert_eq!(selected(&b), Some("watercolor"));
    typed(&mut b, "zzz");
    assert!(b.matches.is_empty() && b.selected_entry().is_none());
    assert_eq!(b.clear_input(), None, "an empty query needs no ranking");
    assert_eq!(b.matches.len(), 4);
    b.cancel();
    assert_eq!(b.editing, None);
}

/// Until the latest query's ranking arrives the list shows the previous matches; a ranking
/// for an older query is never shown, whether it arrives before or after the latest.
#[test]
fn a_ranking_for_an_older_query_is_ignored() {
    let mut b = loaded(&["pixel_art", "watercolor", "water_tower", "ink"]);
    b.start_editing(Field::Filter);
    let (first, first_matches) = answer(b.type_text("i"));
    assert!(b.filtering());
    assert_eq!(shown(&b).len(), 4, "the previous matches stay meanwhile");
    let (latest, latest_matches) = answer(b.type_text("n"));
    assert!(
        !b.ranked(first, first_matches.clone()),
        "superseded by `in`"
    );
    assert!(b.filtering() && shown(&b).len() == 4);
    assert!(b.ranked(latest, latest_matches));
    assert_eq!(shown(&b), ["ink"]);
    assert!(!b.filtering());
    assert!(
        !b.ranked(first, first_matches),
        "late, and older than what is shown"
    );
    assert_eq!(shown(&b), ["ink"]);

    // Erasing to nothing shows everything at once; the ranking still out is dropped.
    let (erased, erased_matches) = answer(b.backspace());
    assert!(b.filtering());
    assert_eq!(b.backspace(), None);
    assert!(!b.filtering());
    assert_eq!(shown(&b).len(), 4);
    assert!(!b.ranked(erased, erased_matches));
    assert_eq!(shown(&b).len(), 4);
}

/// Typing a query and erasing it key by key comes back to every entry in input order, the
/// selection on the entry it was on before the filter; a query selects its best match.
#[test]
fn typing_then_erasing_returns_the_full_list_and_the_selection() {
    let names = ["pixel_art", "watercolor", "ink", "water_tower", "wash"];
    let mut b = loaded(&names);
    b.move_by(3);
    assert_eq!(selected(&b), Some("water_tower"));
    b.start_editing(Field::Filter);
    let (generation, matches) = answer(b.type_text("w"));
    assert_eq!(
        selected(&b),
        Some("water_tower"),
        "unmoved while the ranking runs"
    );
    assert!(b.ranked(generation, matches));
    assert_eq!(selected(&b), shown(&b).first().copied(), "the best match");
    typed(&mut b, "atr");
    let mut watr = shown(&b);
    watr.sort_unstable();
    assert_eq!(watr, ["water_tower", "watercolor"]);
    for _ in 0..3 {
        let (generation, matches) = answer(b.backspace());
        assert!(b.ranked(generation, matches));
    }
    assert_eq!((b.query.as_str(), shown(&b).len()), ("w", 3));
    let at = shown(&b).iter().position(|&n| n == "watercolor");
    b.select(at.expect("watercolor matches `w`"));
    assert_eq!(b.backspace(), None);
    assert_eq!(shown(&b), names);
    assert_eq!(
        selected(&b),
        Some("watercolor"),
        "the entry selected when the filter was emptied"
    );
}

/// A reload under a query never shows the old entries' matches over the new entries.
#[test]
fn a_reload_under_a_query_ranks_the_new_entries() {
    let mut b = loaded(&["pixel_art", "watercolor"]);
    b.start_editing(Field::Filter);
    typed(&mut b, "pix");
    let Cmd::FetchCatalogue(CatalogueRequest { generation, .. }) = b.fetch() else {
        panic!("fetch")
    };
    let cat = Catalogue {
        entries: vec![entry("ink"), entry("pixie"), entry("pixel_art")],
        skipped: 0,
    };
    let cmds = b.loaded(generation, Ok(cat.into())).expect("current");
    assert!(b.filtering() && b.matches.is_empty());
    let (generation, matches) = answer(cmds.into_iter().next());
    assert!(b.ranked(generation, matches));
    assert_eq!(shown(&b), ["pixie", "pixel_art"]);
}

/// A reload keeps the selection on the model of the same name, wherever it now is, even
/// under a query (once the new entries are ranked); a new query then selects its best.
#[test]
fn a_reload_keeps_the_selection_by_name() {
    let mut b = loaded(&["ink", "pixel_art", "pixie"]);
    b.start_editing(Field::Filter);
    typed(&mut b, "pi");
    b.select(shown(&b).iter().position(|&n| n == "pixie").expect("shown"));
    let Cmd::FetchCatalogue(CatalogueRequest { generation, .. }) = b.reload() else {
        panic!("fetch")
    };
    let cat = Catalogue {
        entries: vec![entry("pixie"), entry("pixel"), entry("pixel_art")],
        skipped: 0,
    };
    let cmds = b.loaded(generation, Ok(cat.into())).expect("current");
    let (generation, matches) = answer(cmds.into_iter().next());
    assert!(b.ranked(generation, matches));
    assert_eq!(selected(&b), Some("pixie"));
    typed(&mut b, "x");
    assert_eq!(selected(&b), shown(&b).first().copied(), "the best match");
}

#[test]
fn stale_fetches_are_ignored_and_errors_keep_the_list() {
    let mut b = loaded(&["a", "b"]);
    let old = b.generation;
    b.reload();
    assert_eq!(b.loaded(old, Ok(Listing::default())), None);
    let down = ApiError::Invalid("down".into());
    assert_eq!(b.loaded(b.generation, Err(down)), Some(Vec::new()));
    assert_eq!(b.entries.len(), 2, "a failed reload keeps the list");
    assert_eq!(b.load, Load::Failed("down".into()));
}

/// A new type or category empties the list at once: it was listed under the old ones.
/// The model selected is selected again if the next list has it.
#[test]
fn new_filters_take_the_old_list_away() {
    let mut b = loaded(&["a", "b"]);
    b.move_by(1);
    let Cmd::FetchCatalogue(CatalogueRequest { lora_type, .. }) = b.cycle_type() else {
        panic!("fetch")
    };
    assert_eq!(lora_type, Some(LoraType::Sd));
    assert!(b.entries.is_empty() && b.matches.is_empty() && b.selected_entry().is_none());
    assert_eq!(b.load, Load::Loading);
    let cat = Catalogue {
        entries: vec![entry("x"), entry("b")],
        skipped: 0,
    };
    b.loaded(b.generation, Ok(cat.into()));
    assert_eq!(b.selected_entry().map(LoraEntry::model), Some("b"));
}

/// A reload and a type change hand the loader the list shown (the type change's though it
/// leaves the screen), for the fresh list to share its unchanged entries.
#[test]
fn a_fetch_hands_on_the_list_shown_to_share_from() {
    let mut b = loaded(&["a", "b"]);
    let shown = b.entries.clone();
    let Cmd::FetchCatalogue(CatalogueRequest { earlier, .. }) = b.reload() else {
        panic!("fetch")
    };
    assert!(Arc::ptr_eq(&earlier, &shown));
    let Cmd::FetchCatalogue(CatalogueRequest { earlier, .. }) = b.cycle_type() else {
        panic!("fetch")
    };
    assert!(Arc::ptr_eq(&earlier, &shown));
    assert!(b.entries.is_empty());
}

#[test]
fn category_is_sent_and_remembered() {
    let mut b = loaded(&["a"]);
    b.start_editing(Field::Category);
    b.pick(true);
    assert_eq!(b.category_draft, "style");
    b.pick(true);
    assert_eq!(b.category_draft, "character");
    b.pick(true);
    assert_eq!(
        b.category_draft, "old",
        "recent categories follow the configured ones"
    );
    b.clear_input();
    b.type_text("fan art");
    let cmds = b.submit();
    let Some(Cmd::FetchCatalogue(CatalogueRequest {
        cate, generation, ..
    })) = cmds.first()
    else {
        panic!("fetch")
    };
    assert_eq!(cate.as_deref(), Some("fan art"));
    assert_eq!(cmds.len(), 1, "remembered only once it lists something");
    let listed = Catalogue {
        entries: vec![entry("x")],
        skipped: 0,
    };
    let cmds = b.loaded(*generation, Ok(listed.into())).expect("current");
    assert_eq!(
        cmds,
        [Cmd::RememberCategories(vec![
            "old".into(),
            "fan art".into()
        ])]
    );
    assert_eq!(
        b.known_categories(),
        ["style", "character", "fan art", "old"]
    );
    b.start_editing(Field::Category);
    assert!(b.submit().is_empty(), "unchanged category does not refetch");
    // A category the service lists nothing for is not remembered.
    b.start_editing(Field::Category);
    b.clear_input();
    b.type_text("nope");
    let Some(Cmd::FetchCatalogue(CatalogueRequest { generation, .. })) =
        b.submit().first().cloned()
    else {
        panic!("fetch")
    };
    let empty = Catalogue {
        entries: Vec::new(),
        skipped: 0,
    };
    let cmds = b.loaded(generation, Ok(empty.into())).expect("current");
    assert!(
        !cmds.iter().any(|c| matches!(c, Cmd::RememberCategories(_))),
        "{cmds:?}"
    );
    assert!(!b.known_categories().contains(&"nope".to_string()));
}

/// In the filter, ↑/↓ move the selection (as in fzf); the field keeps the keyboard.
#[test]
fn arrows_in_the_filter_move_the_selection() {
    let mut b = loaded(&["a", "b", "c"]);
    b.start_editing(Field::Filter);
    b.pick(true);
    b.pick(true);
    assert_eq!(b.selected_entry().map(LoraEntry::model), Some("c"));
    b.pick(false);
    assert_eq!(b.selected_entry().map(LoraEntry::model), Some("b"));
    assert_eq!(b.editing, Some(Field::Filter));
}

/// The category picker offers the catalogue's own categories after the configured and
/// recent ones, most common first.
#[test]
fn the_catalogues_categories_are_offered_most_common_first() {
    let with = |name: &str, cate: &str| {
        let mut m = Map::new();
        m.insert("category".into(), serde_json::Value::String(cate.into()));
        LoraEntry::new(name, &m)
    };
    let mut b = loaded(&[]);
    let g = b.generation;
    let cat = Catalogue {
        entries: vec![
            with("a", "poses"),
            with("b", "vehicle"),
            with("c", "vehicle"),
            with("d", "style"),
        ],
        skipped: 0,
    };
    b.loaded(g, Ok(cat.into()));
    assert_eq!(
        b.known_categories(),
        ["style", "character", "old", "vehicle", "poses"]
    );
}
