//! What changed in the catalogue, through the reducers: the marks a fresh list leaves against
//! the cached copy (or the list before), the title's counts, the clear-marks key, the `is:`
//! terms, and the sort keys.

use crate::app::test_support::*;
use crate::filter::Ranker;
use serde_json::{Value, json};

fn model(name: &str, fields: &Value) -> LoraEntry {
    LoraEntry::new(name, fields.as_object().expect("object"))
}

fn list(entries: Vec<LoraEntry>) -> Catalogue {
    Catalogue {
        entries,
        skipped: 0,
    }
}

fn cached_copy(generation: u64, entries: Vec<LoraEntry>) -> Msg {
    Msg::CachedCatalogue {
        generation,
        cached: Some(crate::store::catalogue_cache::Cached {
            catalogue: list(entries).into(),
            saved_at: NOW - 3600,
            filtered: false,
        }),
    }
}

/// The copy cached last time: `a` rated 4.2, `b`, `c`.
fn before() -> Vec<LoraEntry> {
    vec![
        model(
            "a",
            &json!({"rating": 4.2, "version": "v1", "downloads": 10}),
        ),
        model("b", &json!({"rating": 3.0, "downloads": 2000})),
        model("c", &json!({"rating": 5.0})),
    ]
}

/// The fresh list: `a` re-rated, `b` the same, `c` gone, `d` new.
fn fresh() -> Vec<LoraEntry> {
    vec![
        model(
            "a",
            &json!({"rating": 4.5, "version": "v2", "downloads": 10}),
        ),
        model("b", &json!({"rating": 3.0, "downloads": 2000})),
        model("d", &json!({"rating": 4.0, "downloads": 500})),
    ]
}

/// The start's fetch generation.
fn started(s: &mut State) -> u64 {
    match s.start().first() {
        Some(Cmd::FetchCatalogue(CatalogueRequest { generation, .. })) => *generation,
        other => panic!("the start fetches: {other:?}"),
    }
}

/// Answers every ranking among `cmds` as the worker would, as the event loop does.
fn settle(s: &mut State, cmds: Vec<Cmd>) {
    for cmd in cmds {
        if let Cmd::Rank(RankJob {
            generation,
            query,
            text,
        }) = &cmd
        {
            let (generation, query, text) = (*generation, query.clone(), text.clone());
            let matches = Ranker::new().rank(&query, &text);
            let more = s.apply(Msg::Ranked {
                generation,
                matches,
            });
            settle(s, more);
        }
        if let Cmd::Compare(job) = cmd {
            let diff = crate::store::catalogue_cache::diff(&job.before, &job.after);
            let more = s.apply(Msg::Compared {
                generation: job.generation,
                diff,
            });
            settle(s, more);
        }
    }
}

/// A state that showed the cached copy, then got the fresh list.
fn marked() -> State {
    let mut s = state();
    let g = started(&mut s);
    let cmds = s.apply(cached_copy(g, before()));
    settle(&mut s, cmds);
    let cmds = s.apply(catalogue(g, Ok(list(fresh()))));
    settle(&mut s, cmds);
    s
}

fn shown(s: &State) -> Vec<&str> {
    let b = &s.browser;
    b.matches
        .iter()
        .map(|&i| b.entries[i as usize].model())
        .collect()
}

fn select(s: &mut State, name: &str) {
    let at = shown(s).iter().position(|n| *n == name).expect("shown");
    s.browser.select(at);
}

/// Types into the filter (opening it first), each keystroke's ranking answered.
fn filter(s: &mut State, text: &str) {
    let (_, cmds) = press(s, ch('/'));
    settle(s, cmds);
    for c in text.chars() {
        let (_, cmds) = press(s, ch(c));
        settle(s, cmds);
    }
    let (_, cmds) = press(s, key(KeyCode::Enter));
    settle(s, cmds);
}

fn flags(s: &State) -> Vec<(&str, bool, bool)> {
    use crate::filter::query::Flag;
    let b = &s.browser;
    (0..b.entries.len() as u32)
        .map(|i| {
            (
                b.entries[i as usize].model(),
                b.has_flag(i, Flag::New),
                b.has_flag(i, Flag::Changed),
            )
        })
        .collect()
}

#[test]
fn a_fresh_list_marks_what_changed_since_the_cached_copy() {
    let mut s = marked();
    assert_eq!(
        flags(&s),
        [("a", false, true), ("b", false, false), ("d", true, false)]
    );
    let marks = s.browser.marks.as_ref().expect("marks");
    assert_eq!(
        marks.summary().as_deref(),
        Some("1 new · 1 changed · 1 gone")
    );
    assert_eq!(marks.short_summary().as_deref(), Some("+1 ~1 −1"));
    // Of the list before, only the changed model is kept: not the whole list beside the fresh.
    let kept: Vec<&str> = marks.before.iter().map(|(_, e)| e.model()).collect();
    assert_eq!(kept, ["a"]);
    select(&mut s, "a");
    assert_eq!(
        s.browser.selected_changes(),
        ["rating 4.2 → 4.5", "version v1 → v2"]
    );
    select(&mut s, "b");
    assert!(s.browser.selected_changes().is_empty());
}

#[test]
fn the_first_load_with_nothing_cached_marks_nothing() {
    let mut s = state();
    let g = started(&mut s);
    s.apply(Msg::CachedCatalogue {
        generation: g,
        cached: None,
    });
    s.apply(catalogue(g, Ok(list(fresh()))));
    assert!(s.browser.marks.is_none());
    // Nothing cached answered after the fresh list: nothing either.
    let mut s = state();
    let g = started(&mut s);
    s.apply(catalogue(g, Ok(list(fresh()))));
    s.apply(Msg::CachedCatalogue {
        generation: g,
        cached: None,
    });
    assert!(s.browser.marks.is_none());
}

#[test]
fn a_cached_copy_read_after_the_fresh_list_still_marks_it() {
    let mut s = state();
    let g = started(&mut s);
    let cmds = s.apply(catalogue(g, Ok(list(fresh()))));
    settle(&mut s, cmds);
    s.dirty = false;
    let cmds = s.apply(cached_copy(g, before()));
    assert!(s.browser.marks.is_none(), "compared off the UI loop");
    settle(&mut s, cmds);
    assert!(s.dirty, "the marks are drawn");
    assert_eq!(s.browser.entries.len(), 3, "the fresh list stays");
    assert_eq!(
        flags(&s),
        [("a", false, true), ("b", false, false), ("d", true, false)]
    );
    // Only once.
    s.browser.marks = None;
    let cmds = s.apply(cached_copy(g, before()));
    assert!(cmds.is_empty());
    assert!(s.browser.marks.is_none());
}

#[test]
fn a_reload_marks_what_changed_since_the_list_before_and_a_new_filter_clears_them() {
    let mut s = marked();
    let (_, cmds) = press(&mut s, ch('r'));
    let Some(Cmd::FetchCatalogue(CatalogueRequest { generation, .. })) = cmds.first() else {
        panic!("a reload fetches: {cmds:?}")
    };
    let mut again = fresh();
    again.push(model("e", &json!({})));
    let cmds = s.apply(catalogue(*generation, Ok(list(again))));
    assert!(kinds(&cmds).contains(&"Compare"), "{cmds:?}");
    settle(&mut s, cmds);
    let marks = s.browser.marks.as_ref().expect("marks");
    assert_eq!(
        marks.summary().as_deref(),
        Some("1 new"),
        "against the list before"
    );
    // Another type: another list, the marks go with the old one.
    press(&mut s, ch('t'));
    assert!(s.browser.marks.is_none());
}

/// An answer for a list no longer shown is dropped: another fetch, or the marks cleared
/// before it came.
#[test]
fn a_comparison_answered_too_late_is_dropped() {
    let mut s = state();
    let g = started(&mut s);
    s.apply(cached_copy(g, before()));
    let cmds = s.apply(catalogue(g, Ok(list(fresh()))));
    let job = cmds
        .iter()
        .find_map(|c| match c {
            Cmd::Compare(job) => Some(job.clone()),
            _ => None,
        })
        .expect("a comparison is asked");
    assert_eq!((job.before.len(), job.after.len()), (3, 3));
    let diff = crate::store::catalogue_cache::diff(&job.before, &job.after);
    press(&mut s, ch('X'));
    s.apply(Msg::Compared {
        generation: g,
        diff: diff.clone(),
    });
    assert!(s.browser.marks.is_none(), "cleared before the answer");
    let mut s = state();
    let g = started(&mut s);
    s.apply(cached_copy(g, before()));
    s.apply(catalogue(g, Ok(list(fresh()))));
    press(&mut s, ch('t'));
    s.apply(Msg::Compared {
        generation: g,
        diff,
    });
    assert!(s.browser.marks.is_none(), "another fetch since");
}

#[test]
fn the_clear_marks_key_clears_them_and_says_so() {
    let mut s = marked();
    s.dirty = false;
    let (action, _) = press(&mut s, ch('X'));
    assert_eq!(action, Some(Action::ClearMarks));
    assert!(s.browser.marks.is_none() && s.dirty);
    assert_eq!(notice(&s), Some("marks cleared"));
    press(&mut s, ch('X'));
    assert_eq!(
        notice(&s),
        Some("no marks: nothing changed since the list before")
    );
}

#[test]
fn is_terms_list_new_changed_and_favourites_with_the_rest_of_the_query() {
    let mut s = marked();
    filter(&mut s, "is:new");
    assert_eq!(shown(&s), ["d"]);
    assert_eq!(s.browser.filter_detail.as_deref(), Some("is new"));
    let mut s = marked();
    filter(&mut s, "!is:new");
    assert_eq!(shown(&s), ["a", "b"]);
    let mut s = marked();
    filter(&mut s, "is:changed");
    assert_eq!(shown(&s), ["a"]);
    let mut s = marked();
    filter(&mut s, "!is:changed rating:>=4");
    assert_eq!(shown(&s), ["d"], "with a comparison");
    // Clearing the marks lists again: nothing is new any more.
    let mut s = marked();
    filter(&mut s, "is:new");
    let (_, cmds) = press(&mut s, ch('X'));
    settle(&mut s, cmds);
    assert!(shown(&s).is_empty());
    // Favourites: unmarking one under is:fav takes it off the list.
    let mut s = marked();
    select(&mut s, "b");
    press(&mut s, ch('f'));
    filter(&mut s, "is:fav");
    assert_eq!(shown(&s), ["b"]);
    press(&mut s, ch('f'));
    assert!(shown(&s).is_empty());
}

#[test]
fn the_sort_key_cycles_fields_and_the_shifted_key_flips_the_direction() {
    let mut s = marked();
    let label = |s: &State| s.browser.sort.label();
    let steps = [
        ("name ↑", vec!["a", "b", "d"]),
        ("downloads ↓", vec!["b", "d", "a"]),
        ("rating ↓", vec!["a", "d", "b"]),
        ("updated ↓", vec!["a", "b", "d"]),
    ];
    for (want, order) in steps {
        let (action, cmds) = press(&mut s, ch('s'));
        assert_eq!(action, Some(Action::CycleSort));
        settle(&mut s, cmds);
        assert_eq!(label(&s).as_deref(), Some(want));
        assert_eq!(notice(&s), Some(format!("sorted by {want}").as_str()));
        assert_eq!(shown(&s), order, "{want}");
    }
    let (_, cmds) = press(&mut s, ch('s'));
    settle(&mut s, cmds);
    assert_eq!(label(&s), None, "back to relevance");
    assert_eq!(notice(&s), Some("sorted by relevance"));
    let (action, _) = press(&mut s, ch('S'));
    assert_eq!(action, Some(Action::FlipSort));
    assert!(notice(&s).is_some_and(|n| n.contains("s picks a field first")));
    press(&mut s, ch('s'));
    press(&mut s, ch('s'));
    let (_, cmds) = press(&mut s, ch('S'));
    settle(&mut s, cmds);
    assert_eq!(label(&s).as_deref(), Some("downloads ↑"));
    assert_eq!(shown(&s), ["a", "d", "b"]);
    // The sort and the filter together; the filter shown has no sort term.
    filter(&mut s, "rating:>3");
    assert_eq!(shown(&s), ["a", "d"]);
    assert_eq!(s.browser.query, "rating:>3");
}

/// The sort rides on the query sent to the ranking worker, after the filter, outside any quote
/// the filter leaves open.
#[test]
fn the_sort_term_follows_the_filter_outside_its_quotes() {
    let mut s = marked();
    press(&mut s, ch('s'));
    press(&mut s, ch('s'));
    assert_eq!(s.browser.ranked_query(), "sort:-downloads");
    s.browser.query = "base:\"SD 1".into();
    assert_eq!(s.browser.ranked_query(), "base:\"SD 1\" sort:-downloads");
    s.browser.query = "base:\"SD 1\" a\\\"b".into();
    assert_eq!(
        s.browser.ranked_query(),
        "base:\"SD 1\" a\\\"b sort:-downloads"
    );
}
