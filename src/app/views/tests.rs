//! Saved views through the reducers: saving one with `V` and a name, the list (`v`), applying
//! (Enter, a view's own key), deleting after the question, the title's view cleared by an
//! edit, the last state remembered and restored, and the config's views checked.

use super::{PaneSort, Shape, ViewError, ViewPane, ViewSpec, Views, check};
use crate::app::browser::{Sort, SortField};
use crate::app::test_support::*;
use crate::store::config::{ConfiguredView, KeyCombo};
use crate::store::views_file::{LastState, ViewsFile, ViewsOp};
use std::collections::BTreeMap;

fn spec(pane: ViewPane, filter: &str) -> ViewSpec {
    ViewSpec {
        pane,
        filter: filter.into(),
        lora_type: None,
        category: String::new(),
    }
}

fn typed(s: &mut State, text: &str) -> Vec<Cmd> {
    text.chars().flat_map(|c| press(s, ch(c)).1).collect()
}

/// A watch list of a running and a failed task, the watch pane focused.
fn watching() -> State {
    let mut s = state_with(
        vec![
            entry("run-1", Some(("IN_PROGRESS", 40))),
            entry("fail-2", Some(("FAILED", 0))),
        ],
        ui(false, false),
    );
    press(&mut s, key(KeyCode::Tab));
    assert_eq!(s.focus, Pane::Watch);
    s
}

/// The config's views, their keys in the keymap, as the dashboard makes them.
fn configured(s: &mut State, views: &[(&str, ViewSpec, &str)]) {
    let table: BTreeMap<String, ConfiguredView> = views
        .iter()
        .map(|(n, spec, key)| {
            let keys: Vec<KeyCombo> = key
                .split_whitespace()
                .map(|k| k.parse().expect("key"))
                .collect();
            (
                (*n).to_string(),
                ConfiguredView {
                    spec: spec.clone(),
                    keys,
                },
            )
        })
        .collect();
    s.keymap = Keymap::default().with_views(&table).expect("no clash");
    *s.views = Views::new(&table, &ViewsFile::default());
}

fn saves(cmds: &[Cmd]) -> Vec<&ViewsOp> {
    cmds.iter()
        .filter_map(|c| match c {
            Cmd::Views(op) => Some(op),
            _ => None,
        })
        .collect()
}

#[test]
fn v_upper_saves_the_filter_and_sort_under_a_typed_name_and_the_title_names_it() {
    let mut s = watching();
    press(&mut s, ch('/'));
    typed(&mut s, "fail");
    press(&mut s, key(KeyCode::Enter));
    press(&mut s, ch('s')); // sort: status
    assert_eq!(s.view_in_use(ViewPane::Watch), None);
    press(&mut s, ch('V'));
    assert_eq!(s.mode(), Mode::ViewName);
    typed(&mut s, "failed");
    let (_, cmds) = press(&mut s, key(KeyCode::Enter));
    assert_eq!(
        saves(&cmds),
        [&ViewsOp::Save(
            "failed".into(),
            spec(ViewPane::Watch, "fail sort:status")
        )]
    );
    assert_eq!(notice(&s), Some("saved the view failed"));
    assert_eq!(s.view_in_use(ViewPane::Watch), Some("failed"));
    // Editing the filter away from the view clears the name; back to it, it is named again.
    press(&mut s, ch('/'));
    typed(&mut s, "x");
    assert_eq!(s.view_in_use(ViewPane::Watch), None);
    press(&mut s, key(KeyCode::Backspace));
    assert_eq!(s.view_in_use(ViewPane::Watch), Some("failed"));
}

#[test]
fn a_name_is_refused_in_the_prompt_when_empty_or_the_configs() {
    let mut s = watching();
    configured(&mut s, &[("mine", spec(ViewPane::Watch, "run"), "")]);
    press(&mut s, ch('V'));
    let (_, cmds) = press(&mut s, key(KeyCode::Enter));
    assert!(saves(&cmds).is_empty());
    typed(&mut s, "mine");
    let (_, cmds) = press(&mut s, key(KeyCode::Enter));
    assert!(saves(&cmds).is_empty());
    let Some(Popup::ViewName(p)) = &s.popup else {
        panic!("the prompt stays: {:?}", s.popup)
    };
    assert_eq!(
        p.error.as_deref(),
        Some("mine is a view of the config file; choose another name")
    );
    press(&mut s, key(KeyCode::Esc));
    assert!(s.popup.is_none());
}

#[test]
fn the_list_applies_the_picked_view_with_its_sort_and_remembers_the_watch_sort() {
    let mut s = watching();
    configured(
        &mut s,
        &[
            ("a running", spec(ViewPane::Watch, "run")),
            ("b failed", spec(ViewPane::Watch, "fail sort:status")),
            ("models", spec(ViewPane::Browser, "tilt")),
        ]
        .map(|(n, v)| (n, v, "")),
    );
    press(&mut s, ch('v'));
    assert_eq!(s.mode(), Mode::Views);
    let Some(Popup::Views(l)) = &s.popup else {
        panic!("the list: {:?}", s.popup)
    };
    let names: Vec<&str> = s.views.of(l.pane).iter().map(|(n, _)| *n).collect();
    assert_eq!(names, ["a running", "b failed"], "the watch list's only");
    press(&mut s, key(KeyCode::Down));
    let (_, cmds) = press(&mut s, key(KeyCode::Enter));
    assert!(s.popup.is_none());
    assert_eq!(s.watch.query, "fail");
    assert_eq!(s.watch.sort, SortKey::Status);
    assert_eq!(row_ids(&s).len(), 2);
    assert_eq!(s.watch.order.len(), 1, "the filter is applied");
    assert!(
        cmds.contains(&Cmd::RememberSort("status".into())),
        "{:?}",
        kinds(&cmds)
    );
    assert_eq!(s.view_in_use(ViewPane::Watch), Some("b failed"));
}

#[test]
fn a_views_own_key_applies_it_in_its_pane_only() {
    let mut s = watching();
    configured(
        &mut s,
        &[("failed", spec(ViewPane::Watch, "fail"), "ctrl-f5 F6")],
    );
    let action = s.keymap.resolve(&s.contexts(), &key(KeyCode::F(6)));
    assert_eq!(action, Some(Action::ApplyView("failed".into())));
    s.update(Action::ApplyView("failed".into()));
    assert_eq!(s.watch.query, "fail");
    assert_eq!(notice(&s), Some("view failed"));
    // In the browser, the watch list's view has no key.
    press(&mut s, key(KeyCode::Tab));
    assert_eq!(s.keymap.resolve(&s.contexts(), &key(KeyCode::F(6))), None);
}

#[test]
fn a_browser_view_sets_type_and_category_with_a_fetch_and_its_sort_term_the_sort_key() {
    let mut s = state();
    let mut view = spec(ViewPane::Browser, "sort:-rating tilt");
    view.lora_type = Some(crate::api::LoraType::Sdxl);
    view.category = "style".into();
    configured(&mut s, &[("xl", view, "")]);
    let cmds = s.update(Action::ApplyView("xl".into()));
    assert_eq!(s.browser.query, "tilt");
    assert_eq!(
        s.browser.sort,
        Sort {
            field: SortField::Rating,
            descending: true
        }
    );
    assert_eq!(
        fetched(&cmds),
        [(Some(crate::api::LoraType::Sdxl), Some("style".into()))]
    );
    assert_eq!(s.view_in_use(ViewPane::Browser), Some("xl"));
    // The sort key moves the sort away from the view.
    press(&mut s, ch('s'));
    assert_eq!(s.view_in_use(ViewPane::Browser), None);
}

#[test]
fn a_saved_view_is_deleted_after_the_question_and_a_configs_is_not() {
    let mut s = watching();
    configured(&mut s, &[("conf", spec(ViewPane::Watch, "run"), "")]);
    let mut saved = BTreeMap::new();
    saved.insert("mine".to_string(), spec(ViewPane::Watch, "fail"));
    s.views.set_saved(&saved);
    press(&mut s, ch('v'));
    press(&mut s, ch('d'));
    assert_eq!(
        notice(&s),
        Some("conf is a view of the config file: remove it there")
    );
    press(&mut s, key(KeyCode::Down));
    press(&mut s, ch('d'));
    assert_eq!(s.mode(), Mode::DeleteView);
    press(&mut s, ch('n'));
    assert_eq!(s.mode(), Mode::Views, "no keeps it");
    press(&mut s, ch('d'));
    let (_, cmds) = press(&mut s, ch('y'));
    assert_eq!(saves(&cmds), [&ViewsOp::Delete("mine".into())]);
    assert_eq!(notice(&s), Some("deleted the view mine"));
    assert_eq!(s.views.of(ViewPane::Watch).len(), 1);
}

#[test]
fn v_with_no_views_says_which_key_saves_one() {
    let mut s = watching();
    press(&mut s, ch('v'));
    assert!(s.popup.is_none());
    assert_eq!(
        notice(&s),
        Some("no views for the watch list yet: V saves what it shows")
    );
}

#[test]
fn each_panes_state_is_remembered_at_the_quit_and_restored_at_start() {
    let mut s = watching();
    press(&mut s, ch('/'));
    let mut cmds = typed(&mut s, "fail");
    cmds.extend(press(&mut s, key(KeyCode::Enter)).1);
    // The browser's sort too (the guide said it was not remembered).
    press(&mut s, key(KeyCode::Tab));
    cmds.extend(press(&mut s, ch('s')).1);
    assert!(saves(&cmds).is_empty(), "nothing written before the quit");
    let quit = s.update(Action::Quit);
    let last = LastState {
        filter: "fail".into(),
        ..LastState::default()
    };
    assert_eq!(
        saves(&quit),
        [
            &ViewsOp::Last(
                ViewPane::Browser,
                LastState {
                    filter: "sort:name".into(),
                    ..LastState::default()
                }
            ),
            &ViewsOp::Last(ViewPane::Watch, last.clone()),
        ],
        "the panes that changed, the archive not"
    );
    // The next session starts where this one left off.
    let mut file = ViewsFile::default();
    file.last.insert(ViewPane::Watch, last);
    file.last.insert(
        ViewPane::Browser,
        LastState {
            filter: "tilt sort:-downloads".into(),
            lora_type: Some(crate::api::LoraType::Sd),
            category: String::new(),
            view: None,
        },
    );
    let mut next = State::new(Init {
        watch: vec![
            entry("run-1", Some(("IN_PROGRESS", 40))),
            entry("fail-2", Some(("FAILED", 0))),
        ],
        views: Box::new(Views::new(&BTreeMap::new(), &file)),
        now: NOW,
        ..Init::default()
    });
    assert_eq!(next.watch.query, "fail");
    assert_eq!(next.watch.order.len(), 1);
    assert_eq!(next.browser.query, "tilt");
    assert_eq!(next.browser.sort.field, SortField::Downloads);
    let start = next.start();
    assert_eq!(fetched(&start), [(Some(crate::api::LoraType::Sd), None)]);
    assert!(
        saves(&next.update(Action::Quit)).is_empty(),
        "nothing new to write"
    );
}

#[test]
fn a_sort_term_is_the_panes_order_and_an_unknown_field_stays_in_the_browsers_filter() {
    let (shape, unknown) = Shape::of(&spec(ViewPane::Archive, "label:x sort:id"));
    assert_eq!(shape.query, "label:x");
    assert_eq!(
        shape.sort,
        PaneSort::Archive(crate::app::archive_view::ArchiveSort::TaskId)
    );
    assert_eq!(unknown, None);
    let (shape, _) = Shape::of(&spec(ViewPane::Browser, "tilt sort:-likes"));
    assert_eq!(shape.query, "tilt sort:-likes", "the filter orders by it");
    assert_eq!(shape.sort, PaneSort::Browser(Sort::default()));
    assert_eq!(shape.filter(), "tilt sort:-likes");
}

#[test]
fn a_configs_view_with_a_bad_filter_or_sort_is_refused_naming_it() {
    assert_eq!(
        check("ok", &spec(ViewPane::Watch, "status:failed sort:eta")),
        Ok(())
    );
    let bad = check("odd", &spec(ViewPane::Watch, "nosuchfield:x"));
    assert!(
        matches!(&bad, Err(ViewError::Filter { view, .. }) if view == "odd"),
        "{bad:?}"
    );
    assert_eq!(
        bad.expect_err("refused").to_string(),
        "views.odd.filter: nosuchfield: no such field (fields: ".to_string()
            + &crate::app::watch::filter_fields::SCOPE
                .fields
                .unwrap_or_default()
                .join(", ")
            + ")"
    );
    let sort = check("s", &spec(ViewPane::Archive, "sort:rating"));
    assert_eq!(
        sort.expect_err("refused").to_string(),
        "views.s.filter: sort:rating is not an order of the archive (sort: finished, added, id, status, label)"
    );
}

#[test]
fn keys_view_is_refused_pointing_at_views_name() {
    let keys: BTreeMap<String, Vec<KeyCombo>> =
        [("view".to_string(), vec!["x".parse().expect("key")])].into();
    let e = Keymap::configured(&keys).expect_err("view is not [keys]'");
    assert_eq!(e.actions(), ["view"]);
    assert_eq!(
        e.to_string(),
        "keys.view: a view's key is the `key` of its [views.NAME], not [keys]"
    );
}

#[test]
fn a_views_key_that_a_binding_beside_it_has_is_refused() {
    let table: BTreeMap<String, ConfiguredView> = [(
        "v".to_string(),
        ConfiguredView {
            spec: spec(ViewPane::Watch, ""),
            keys: vec!["u".parse().expect("key")],
        },
    )]
    .into();
    let e = Keymap::default().with_views(&table).expect_err("u is undo");
    assert_eq!(e.view_field().as_deref(), Some("v.key"));
    assert_eq!(
        e.to_string(),
        "views.v.key: `u` is already `undo`'s (watch list); choose another key for the view"
    );
}

#[test]
fn the_list_rereads_the_file_and_follows_another_dashboards_views() {
    let mut s = watching();
    // No views here yet: said, and the file is read again all the same.
    let (_, cmds) = press(&mut s, ch('v'));
    assert!(s.popup.is_none());
    assert_eq!(saves(&cmds), [&ViewsOp::Reread]);
    // Another dashboard saved two; they come back as the file holds them.
    let theirs: BTreeMap<String, ViewSpec> = [
        ("a".to_string(), spec(ViewPane::Watch, "run")),
        ("b".to_string(), spec(ViewPane::Watch, "fail")),
    ]
    .into();
    s.apply(Msg::ViewsSaved(theirs.clone()));
    let (_, cmds) = press(&mut s, ch('v'));
    assert_eq!(saves(&cmds), [&ViewsOp::Reread]);
    press(&mut s, key(KeyCode::Down));
    // While the list is open, one is deleted elsewhere: the selection stays on a view.
    let fewer: BTreeMap<String, ViewSpec> = theirs.into_iter().take(1).collect();
    s.apply(Msg::ViewsSaved(fewer));
    let Some(Popup::Views(l)) = &s.popup else {
        panic!("the list: {:?}", s.popup)
    };
    assert_eq!(l.selected, 0);
    press(&mut s, key(KeyCode::Enter));
    assert_eq!(s.watch.query, "run");
}
