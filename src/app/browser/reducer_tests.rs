//! The browser pane through the reducers: the cached catalogue, offline, the type and the
//! category.

use crate::app::test_support::*;
use crate::cmd::CatalogueRequest;

// ---- the cached catalogue -------------------------------------------------------------------

fn models(names: &[&str]) -> Catalogue {
    Catalogue {
        entries: names
            .iter()
            .map(|n| LoraEntry::new(*n, &serde_json::Map::new()))
            .collect(),
        skipped: 0,
    }
}

fn cached(generation: u64, names: &[&str], saved_at: u64) -> Msg {
    Msg::CachedCatalogue {
        generation,
        cached: Some(crate::store::catalogue_cache::Cached {
            catalogue: models(names).into(),
            saved_at,
            filtered: false,
        }),
    }
}

/// The start's fetch, which asks for the cached copy meanwhile; its generation.
fn started(s: &mut State) -> u64 {
    let cmds = s.start();
    let Some(Cmd::FetchCatalogue(CatalogueRequest {
        generation, cached, ..
    })) = cmds.first()
    else {
        panic!("the start fetches the catalogue: {cmds:?}")
    };
    assert!(cached, "the start shows the cached copy meanwhile");
    *generation
}

fn selected_model(s: &State) -> Option<&str> {
    s.browser.selected_entry().map(LoraEntry::model)
}

#[test]
fn the_cached_copy_is_shown_with_its_age_until_the_fresh_list_replaces_it() {
    let mut s = state();
    let g = started(&mut s);
    assert!(
        s.apply(cached(g, &["a", "b", "c"], NOW - 3 * 3600))
            .is_empty()
    );
    assert!(s.dirty);
    assert_eq!(s.browser.entries.len(), 3);
    assert_eq!(s.browser.load, Load::Loading, "the fresh load still runs");
    assert_eq!(
        s.browser.cached_mark(s.now).as_deref(),
        Some("cached 3h ago")
    );
    s.browser.move_by(2);
    assert_eq!(selected_model(&s), Some("c"));

    // The fresh list has another order and one more model: the selection follows the name.
    s.apply(catalogue(g, Ok(models(&["z", "c", "a", "b"]))));
    assert_eq!(s.browser.entries.len(), 4);
    assert_eq!(s.browser.load, Load::Loaded);
    assert_eq!(s.browser.cached_mark(s.now), None, "the mark goes");
    assert_eq!(selected_model(&s), Some("c"));
}

#[test]
fn a_late_cached_copy_never_replaces_the_fresh_list() {
    let mut s = state();
    let g = started(&mut s);
    s.apply(catalogue(g, Ok(models(&["fresh"]))));
    // Compared with the fresh list (off the UI loop), never shown.
    let cmds = s.apply(cached(g, &["old", "older"], NOW - 60));
    assert_eq!(kinds(&cmds), ["Compare"]);
    assert_eq!(s.browser.entries.len(), 1);
    assert_eq!(s.browser.cached_mark(s.now), None);
    // A cached copy for an earlier fetch (before the type changed) is ignored too.
    let (_, cmds) = press(&mut s, ch('t'));
    assert!(
        matches!(
            cmds.first(),
            Some(Cmd::FetchCatalogue(CatalogueRequest { cached: true, .. }))
        ),
        "a new type shows its cached copy meanwhile: {cmds:?}"
    );
    assert!(s.browser.entries.is_empty(), "the list of every type went");
    s.apply(cached(g, &["old"], NOW - 60));
    assert!(s.browser.entries.is_empty());
    // A reload asks for the fresh list only.
    let (_, cmds) = press(&mut s, ch('r'));
    assert!(
        matches!(
            cmds.first(),
            Some(Cmd::FetchCatalogue(CatalogueRequest { cached: false, .. }))
        ),
        "{cmds:?}"
    );
}

#[test]
fn an_unreachable_service_keeps_the_cached_copy_marked_offline() {
    let mut s = state();
    let g = started(&mut s);
    s.apply(cached(g, &["a", "b"], NOW - 2 * 86_400 - 5));
    let down = ApiError::Connect {
        origin: "http://127.0.0.1:8787".into(),
        detail: "connection refused".into(),
    };
    s.apply(catalogue(g, Err(down)));
    assert_eq!(s.browser.entries.len(), 2, "the copy stays");
    assert_eq!(
        s.browser.cached_mark(s.now).as_deref(),
        Some("cached 2 days ago · offline")
    );
    // The service comes back (the worker retries): the fresh list replaces the copy.
    s.apply(catalogue(g, Ok(models(&["a", "b", "c"]))));
    assert_eq!(s.browser.cached_mark(s.now), None);
    assert!(!s.browser.offline);
}

#[test]
fn another_failure_keeps_the_cached_copy_without_the_offline_mark() {
    let mut s = state();
    let g = started(&mut s);
    s.apply(cached(g, &["a"], NOW - 300));
    s.apply(catalogue(g, Err(http(500))));
    assert_eq!(s.browser.entries.len(), 1);
    assert!(matches!(s.browser.load, Load::Failed(ref e) if e.contains("500")));
    assert_eq!(
        s.browser.cached_mark(s.now).as_deref(),
        Some("cached 5 min ago")
    );
    // The failure may even come before the copy is read: the copy is still shown.
    let mut s = state();
    let g = started(&mut s);
    s.apply(catalogue(
        g,
        Err(ApiError::Timeout {
            origin: "o".into(),
            after: Duration::from_secs(5),
        }),
    ));
    s.apply(cached(g, &["a"], NOW));
    assert_eq!(
        s.browser.cached_mark(s.now).as_deref(),
        Some("cached just now · offline")
    );
}

// ---- offline, the type and the category (issue 17, §1) ---------------------------------------

/// Models with a type and a category, as `metadata.type` and `metadata.category` say.
fn typed_models(models: &[(&str, &str, &str)]) -> Catalogue {
    Catalogue {
        entries: models
            .iter()
            .map(|(name, lora_type, cate)| {
                let meta = serde_json::json!({"type": lora_type, "category": cate});
                LoraEntry::new(*name, meta.as_object().expect("an object"))
            })
            .collect(),
        skipped: 0,
    }
}

/// The cache's answer: a copy (kept for broader filters when `filtered`).
fn copy(generation: u64, catalogue: Catalogue, saved_at: u64, filtered: bool) -> Msg {
    Msg::CachedCatalogue {
        generation,
        cached: Some(crate::store::catalogue_cache::Cached {
            catalogue: catalogue.into(),
            saved_at,
            filtered,
        }),
    }
}

/// The cache's answer: nothing for these filters nor broader ones.
fn nothing(generation: u64) -> Msg {
    Msg::CachedCatalogue {
        generation,
        cached: None,
    }
}

fn refused() -> ApiError {
    ApiError::Connect {
        origin: "http://127.0.0.1:8787".into(),
        detail: "connection refused".into(),
    }
}

/// The types and categories of the models listed, and the title's mark: what stands under
/// the label.
fn listed(s: &State) -> Vec<(Option<&str>, Option<&str>)> {
    s.browser
        .matches
        .iter()
        .map(|&i| {
            let e = &s.browser.entries[i as usize];
            (e.lora_type(), e.category())
        })
        .collect()
}

/// Offline, the type and category change: the list under the label always satisfies it —
/// the key's own copy, a broader copy narrowed here (said in the title), or nothing, said
/// as such; the fresh list replaces whichever was shown when the service answers again.
#[test]
fn offline_a_new_type_or_category_never_stands_over_a_list_it_does_not_satisfy() {
    let mut s = state();
    let g = started(&mut s);
    let whole = [
        ("a_sd_style", "sd", "style"),
        ("b_sd_poses", "sd", "poses"),
        ("c_xl_style", "sdxl", "style"),
    ];
    s.apply(copy(g, typed_models(&whole), NOW - 3 * 3600, false));
    s.apply(catalogue(g, Err(refused())));
    s.browser.move_by(1);
    assert_eq!(selected_model(&s), Some("b_sd_poses"));

    // `t`: sd. The list of every type goes at once.
    let (_, cmds) = press(&mut s, ch('t'));
    assert_eq!(fetched(&cmds), [(Some(crate::api::LoraType::Sd), None)]);
    assert!(s.browser.entries.is_empty() && s.browser.matches.is_empty());
    let g = s.browser.generation;
    s.apply(copy(g, typed_models(&whole[..2]), NOW - 3 * 3600, true));
    assert_eq!(
        s.browser.cached_mark(s.now).as_deref(),
        Some("cached 3h ago · filtered here"),
        "while the fetch runs"
    );
    s.apply(catalogue(g, Err(refused())));
    assert_eq!(
        s.browser.cached_mark(s.now).as_deref(),
        Some("cached 3h ago · offline · filtered here")
    );
    assert!(listed(&s).iter().all(|(t, _)| *t == Some("sd")));
    assert_eq!(selected_model(&s), Some("b_sd_poses"), "still selected");

    // `t`: sdxl, of which nothing is cached, nor anything broader that the worker found.
    press(&mut s, ch('t'));
    let g = s.browser.generation;
    assert!(s.apply(nothing(g)).is_empty());
    s.apply(catalogue(g, Err(refused())));
    assert!(s.browser.entries.is_empty());
    assert_eq!(
        s.browser.nothing_cached().as_deref(),
        Some("no cached copy for type sdxl · offline")
    );
    assert_eq!(s.browser.cached_mark(s.now), None);

    // The category too, and both together.
    press(&mut s, ch('c'));
    for c in "poses".chars() {
        press(&mut s, ch(c));
    }
    press(&mut s, key(KeyCode::Enter));
    let g = s.browser.generation;
    s.apply(nothing(g));
    s.apply(catalogue(g, Err(refused())));
    assert_eq!(
        s.browser.nothing_cached().as_deref(),
        Some("no cached copy for type sdxl, category poses · offline")
    );
    press(&mut s, ch('t'));
    let g = s.browser.generation;
    s.apply(nothing(g));
    s.apply(catalogue(g, Err(refused())));
    assert_eq!(
        s.browser.nothing_cached().as_deref(),
        Some("no cached copy for category poses · offline")
    );
    // Nothing said before the service was tried: the fetch may still answer.
    press(&mut s, ch('t'));
    let g = s.browser.generation;
    s.apply(nothing(g));
    assert_eq!(s.browser.nothing_cached(), None);

    // Back online: the fresh list replaces the empty one, and no mark is left.
    s.apply(catalogue(
        g,
        Ok(typed_models(&[("d_sd_poses", "sd", "poses")])),
    ));
    assert_eq!(listed(&s), [(Some("sd"), Some("poses"))]);
    assert_eq!(s.browser.cached_mark(s.now), None);
    assert_eq!(s.browser.nothing_cached(), None);
    // A late answer about an older fetch's cache changes nothing.
    assert!(s.apply(nothing(g - 1)).is_empty());
    assert_eq!(s.browser.entries.len(), 1);
}

/// The fresh list replaces a narrowed copy, and its mark goes with it.
#[test]
fn the_fresh_list_replaces_a_copy_narrowed_here() {
    let mut s = state();
    let g = started(&mut s);
    press(&mut s, ch('t'));
    assert_ne!(g, s.browser.generation);
    let g = s.browser.generation;
    s.apply(copy(
        g,
        typed_models(&[("a", "sd", "style")]),
        NOW - 60,
        true,
    ));
    s.apply(catalogue(g, Err(refused())));
    assert_eq!(s.browser.cache, crate::app::browser::CacheLookup::Narrowed);
    s.apply(catalogue(
        g,
        Ok(typed_models(&[("a", "sd", "style"), ("n", "sd", "new")])),
    ));
    assert_eq!(s.browser.entries.len(), 2);
    assert!(s.browser.cached_at.is_none() && !s.browser.offline);
    assert_eq!(s.browser.cached_mark(s.now), None);
}

/// Health is one state from the last answers: `reconnected` and `trouble` are never on the
/// status bar together, in either order, and `reconnected` gives way to `connected`.
#[test]
fn trouble_and_reconnected_are_never_said_at_once() {
    let mut s = state();
    s.start();
    let trouble = |s: &State| matches!(s.health, Health::Trouble(_));
    let reconnected = |s: &State| matches!(s.health, Health::Reconnected { .. });
    s.apply(polled("w-1", Err(refused())));
    assert!(trouble(&s), "{:?}", s.health);
    s.apply(ok_poll("w-1", "IN_PROGRESS", 50));
    assert!(reconnected(&s), "{:?}", s.health);
    assert_eq!(
        s.notice, None,
        "said in the health's place, not as a notice beside it"
    );
    // Trouble again within the seconds `reconnected` is said: only trouble is.
    s.apply(Msg::Tick(NOW + 1));
    s.apply(catalogue(s.browser.generation, Err(http(503))));
    assert!(trouble(&s), "{:?}", s.health);
    // Answers again; then, after a while, it is simply connected.
    s.apply(ok_poll("w-1", "IN_PROGRESS", 60));
    assert!(reconnected(&s), "{:?}", s.health);
    s.dirty = false;
    s.apply(Msg::Tick(NOW + 1 + NOTICE_SECONDS));
    assert!(s.dirty);
    assert_eq!(s.health, Health::Connected);
}

/// 404 where the spec's routes are is not `connected`, even when other answers come.
#[test]
fn a_wrong_base_path_is_not_connected() {
    let mut s = state();
    s.start();
    let wrong = ApiError::WrongPath {
        method: "POST",
        url: "http://127.0.0.1:8787/lora/".into(),
        status: 404,
    };
    s.apply(catalogue(s.browser.generation, Err(wrong.clone())));
    assert_eq!(s.health, Health::WrongPath(wrong.to_string()));
    // A task's poll to the same wrong path says the same; the task is not `not found`.
    let task_wrong = ApiError::WrongPath {
        method: "POST",
        url: "http://127.0.0.1:8787/ai/image_generation/w-1".into(),
        status: 404,
    };
    s.apply(polled("w-1", Err(task_wrong.clone())));
    assert_eq!(s.health, Health::WrongPath(task_wrong.to_string()));
    let row = &s.watch.rows[0];
    assert!(row.not_found().is_none() && row.error().is_some());
}

/// Under a profile, tasks of the top level's service (or another profile's) are polled too:
/// their answers never set the status bar's health, which stands beside the service in force.
#[test]
fn only_the_service_in_force_tells_the_health() {
    let other = "http://127.0.0.1:9999";
    let mut s = state_with(
        vec![
            entry("here", Some(("IN_PROGRESS", 40))),
            WatchEntry {
                service: Some(other.into()),
                ..entry("there", Some(("IN_PROGRESS", 40)))
            },
        ],
        ui(true, true),
    );
    let mut services = crate::app::services::Services::single(&s.watch.services.current);
    services.names.insert(other.into(), "top level".into());
    let _ = crate::app::watch::service::set(&mut s.watch, services);
    s.apply(ok_poll("here", "IN_PROGRESS", 50));
    assert_eq!(s.health, Health::Connected);

    s.apply(polled("there", Err(refused())));
    assert_eq!(s.health, Health::Connected, "the other service's trouble");
    s.apply(polled("here", Err(refused())));
    assert!(matches!(s.health, Health::Trouble(_)), "{:?}", s.health);
    s.apply(ok_poll("there", "IN_PROGRESS", 60));
    assert!(
        matches!(s.health, Health::Trouble(_)),
        "the other service's answer is no reconnection: {:?}",
        s.health
    );
    s.apply(ok_poll("here", "IN_PROGRESS", 70));
    assert!(
        matches!(s.health, Health::Reconnected { .. }),
        "{:?}",
        s.health
    );
}

// ---- the filter's detail line -----------------------------------------------------------------

/// What the filter cannot use is named on the detail line: a finished term at once, the one
/// being typed once Enter leaves the field (`rating:>4.` on its way to `4.5` is not an error
/// yet); an unknown field once the catalogue's fields are known.
#[test]
fn the_detail_line_names_what_the_filter_ignores() {
    let mut s = state();
    s.start();
    let g = s.browser.generation;
    let meta = serde_json::json!({"rating": 4.5, "updated": "2026-07-14"});
    s.apply(catalogue(
        g,
        Ok(Catalogue {
            entries: vec![LoraEntry::new("pixel", meta.as_object().expect("object"))],
            skipped: 0,
        }),
    ));
    let typed = |s: &mut State, text: &str| {
        press(s, ch('/'));
        press(s, ctrl('u'));
        for c in text.chars() {
            press(s, ch(c));
        }
        s.browser.filter_detail.clone().unwrap_or_default()
    };
    assert_eq!(
        typed(&mut s, "rating:>abc x"),
        "name ~ x · rating:>abc: not a number or a date; ignored"
    );
    assert_eq!(typed(&mut s, "rating:>4."), "", "still being typed");
    press(&mut s, key(KeyCode::Enter));
    assert_eq!(
        s.browser.filter_detail.as_deref(),
        Some("rating:>4.: not a number or a date; ignored"),
        "the field left, the term is finished"
    );
    assert_eq!(
        typed(&mut s, "is:foo "),
        "is:foo is not new, changed or fav; ignored"
    );
    assert_eq!(
        typed(&mut s, r#"updated:>"2026-06-01" rating:>=4.5"#),
        "updated > 2026-06-01 · rating >= 4.5",
        "a quoted date is a comparison"
    );
}
