//! The user's actions through the reducers and the real keymap: bound where they run, refused
//! on a key bound there, run on the marked rows (a row without the value skipped and said),
//! asked first when they ask, their runs on the status bar until they end.

use crate::app::keymap::HelpLine;
use crate::app::palette;
use crate::app::test_support::*;
use crate::cmd::ActionRun;
use crate::msg::ActionEnded;
use crate::store::config::{KeyCombo, OwnAction, Scope};
use std::collections::BTreeMap;

fn upscale(key: &str, confirm: bool) -> OwnAction {
    OwnAction {
        name: "upscale".into(),
        key: key.parse().expect("a key"),
        scopes: vec![Scope::Watch, Scope::Archive],
        command: vec!["upscale".into(), "--in".into(), "{file}".into()],
        confirm,
    }
}

/// Two finished tasks, `a` saved, `b` not; the watch pane has the keys; `upscale` on `key`.
fn with_action(key: &str, confirm: bool) -> State {
    let mut saved = entry("a", Some(("COMPLETED", 100)));
    saved.saved = Some("/dl/a.png".into());
    let mut s = state_with(
        vec![saved, entry("b", Some(("COMPLETED", 100)))],
        ui(false, false),
    );
    s.update(Action::FocusNext);
    s.keymap = Keymap::default()
        .with_actions(&[upscale(key, confirm)])
        .expect("no clash");
    s
}

/// A key as the event loop handles it, through the state's own keymap.
fn press_own(s: &mut State, k: KeyEvent) -> Vec<Cmd> {
    let action = s.keymap.resolve(&s.contexts(), &k).expect("bound");
    s.update(action)
}

fn runs(cmds: &[Cmd]) -> Vec<ActionRun> {
    cmds.iter()
        .filter_map(|c| match c {
            Cmd::RunAction(run) => Some(run.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn an_action_is_bound_where_it_runs_and_listed_with_its_command() {
    let s = with_action("ctrl-u", false);
    let own = |ctx: Context| {
        s.keymap
            .bindings()
            .iter()
            .find(|b| b.context == ctx && b.name.as_str() == "upscale")
            .map(|b| (b.label.to_string(), b.description.to_string()))
    };
    let bound = Some(("^U".to_string(), "upscale --in {file}".to_string()));
    assert_eq!(own(Context::Watch), bound);
    assert_eq!(own(Context::Archive), bound);
    assert_eq!(own(Context::Browser), None);
    let help: Vec<String> = s.keymap.help_lines().iter().map(HelpLine::text).collect();
    assert!(
        help.contains(&"^U upscale --in {file}".to_string()),
        "{help:?}"
    );
    let offered = palette::entries(&s.keymap, s.mode());
    assert!(
        offered.iter().any(|e| e.name == "upscale"
            && e.keys == "^U"
            && e.description == "upscale --in {file}"),
        "{offered:?}"
    );
}

/// A key bound where the action runs is refused, naming both; `[keys]` can free it.
#[test]
fn a_key_bound_where_it_runs_is_refused_unless_keys_frees_it() {
    let clash = Keymap::default()
        .with_actions(&[upscale("u", false)])
        .expect_err("u is undo's in the watch list");
    assert_eq!(
        clash.to_string(),
        "actions: `u` of action `upscale` is bound to `undo` in the watch list; give the action \
         another key, or `undo` another in [keys]"
    );
    let keys: BTreeMap<String, Vec<KeyCombo>> =
        [("undo".to_string(), vec!["ctrl-z".parse().expect("a key")])].into();
    let freed = Keymap::configured(&keys)
        .expect("keys")
        .with_actions(&[upscale("u", false)])
        .expect("u is free now");
    let watch = [Context::Watch, Context::Global, Context::Always];
    assert!(matches!(
        freed.resolve(&watch, &ch('u')),
        Some(Action::RunOwn(a)) if a.name == "upscale"
    ));
    // A key of either pane (`q`) is in force where it runs too.
    assert!(
        Keymap::default()
            .with_actions(&[upscale("q", false)])
            .is_err()
    );
}

/// The key runs it on the marked rows, skipping the one without a file (said); the run is on
/// the status bar until its last command ends, whose exit code and last line are told.
#[test]
fn the_key_runs_it_on_the_marked_rows_and_its_end_is_told() {
    let mut s = with_action("ctrl-u", false);
    press(&mut s, ch(' '));
    press(&mut s, ch(' '));
    let cmds = press_own(&mut s, ctrl('u'));
    let [run] = runs(&cmds).try_into().expect("one run");
    assert_eq!(
        run.runs,
        [(
            vec!["a".to_string()],
            vec!["upscale".to_string(), "--in".into(), "/dl/a.png".into()]
        )]
    );
    assert_eq!(notice(&s), Some("skipped b ({file} is empty)"));
    assert_eq!(
        s.own_actions.text().as_deref(),
        Some("running upscale on a")
    );
    s.apply(Msg::ActionEnded(ActionEnded {
        id: run.id,
        name: "upscale".into(),
        rows: vec!["a".into()],
        outcome: Ok((Some(0), Some("wrote a@2x.png".into()))),
        last: true,
    }));
    assert_eq!(notice(&s), Some("upscale on a: exit 0 · wrote a@2x.png"));
    assert_eq!(s.own_actions.text(), None);
    s.apply(Msg::ActionEnded(ActionEnded {
        id: run.id + 1,
        name: "upscale".into(),
        rows: vec!["a".into()],
        outcome: Ok((Some(2), Some("no such file".into()))),
        last: true,
    }));
    assert_eq!(
        s.last_error.as_deref(),
        Some("upscale on a: exit 2 · no such file")
    );
}

/// `confirm = true` asks with the yes/no question; yes runs it, no does not.
#[test]
fn an_action_that_asks_runs_only_on_yes() {
    let mut s = with_action("ctrl-u", true);
    let cmds = press_own(&mut s, ctrl('u'));
    assert!(runs(&cmds).is_empty());
    let Some(Popup::Confirm(c)) = &s.popup else {
        panic!("asked: {:?}", s.popup)
    };
    assert_eq!(c.question, "run upscale on a?");
    let (_, cmds) = press(&mut s, ch('n'));
    assert!(runs(&cmds).is_empty() && s.popup.is_none());
    assert_eq!(notice(&s), Some("did not run upscale"));
    press_own(&mut s, ctrl('u'));
    let (_, cmds) = press(&mut s, ch('y'));
    assert_eq!(runs(&cmds).len(), 1);
    assert!(s.popup.is_none());
}

/// The palette lists it where it runs and Enter runs it there; with nothing to run on, it
/// says so.
#[test]
fn the_palette_runs_it() {
    let mut s = with_action("ctrl-u", false);
    s.update(Action::OpenPalette);
    for c in "upsc".chars() {
        s.update(Action::Type(c));
    }
    let cmds = s.update(Action::Submit);
    assert_eq!(runs(&cmds).len(), 1, "{cmds:?}");
    assert!(s.popup.is_none());
    let mut empty = state_with(Vec::new(), ui(false, false));
    empty.update(Action::FocusNext);
    empty.keymap = s.keymap.clone();
    let cmds = press_own(&mut empty, ctrl('u'));
    assert!(runs(&cmds).is_empty());
    assert_eq!(notice(&empty), Some("upscale: no task selected"));
}

/// In the browser it runs on the marked models, a metadata field filled
/// from each; `{models}` runs it once with them all; a model lacking the field is skipped.
#[test]
fn in_the_browser_it_runs_on_the_marked_models_with_their_fields() {
    use crate::api::{Catalogue, LoraEntry};
    let mut s = state();
    let cmds = s.start();
    let Some(Cmd::FetchCatalogue(CatalogueRequest { generation, .. })) = cmds.first() else {
        panic!("the start fetches the catalogue: {cmds:?}")
    };
    let entry = |name: &str, meta: serde_json::Value| {
        LoraEntry::new(name, meta.as_object().expect("an object"))
    };
    let entries = vec![
        entry("a", serde_json::json!({"base_model": "SD 1.5"})),
        entry("b", serde_json::json!({})),
        entry("c", serde_json::json!({"base_model": "SDXL"})),
    ];
    s.apply(catalogue(
        *generation,
        Ok(Catalogue {
            entries,
            skipped: 0,
        }),
    ));
    let note = |command: &[&str]| OwnAction {
        name: "note".into(),
        key: "N".parse().expect("a key"),
        scopes: vec![Scope::Browser],
        command: command.iter().map(ToString::to_string).collect(),
        confirm: false,
    };
    s.keymap = Keymap::default()
        .with_actions(&[note(&["note", "{model}", "{base_model}"])])
        .expect("no clash");
    // Marks a, b and c (space marks and moves down).
    for _ in 0..3 {
        press(&mut s, ch(' '));
    }
    let cmds = press_own(&mut s, ch('N'));
    let [run] = runs(&cmds).try_into().expect("one run");
    let argv: Vec<Vec<String>> = run.runs.into_iter().map(|(_, a)| a).collect();
    assert_eq!(
        argv,
        [
            vec!["note".to_string(), "a".into(), "SD 1.5".into()],
            vec!["note".to_string(), "c".into(), "SDXL".into()],
        ]
    );
    assert_eq!(notice(&s), Some("skipped b ({base_model} is empty)"));
    let all = note(&["zip", "{models}"]);
    let cmds = s.update(Action::RunOwn(std::sync::Arc::new(all)));
    let [run] = runs(&cmds).try_into().expect("one run");
    assert_eq!(
        run.runs,
        [(
            vec!["a".to_string(), "b".into(), "c".into()],
            vec!["zip".to_string(), "a".into(), "b".into(), "c".into()]
        )]
    );
}

/// In the gallery (the watch list's), the key runs on the selected tile as on the row.
#[test]
fn in_the_gallery_it_runs_on_the_selected_tile() {
    let mut s = with_action("ctrl-u", false);
    s.update(Action::ToggleGallery);
    assert_eq!(
        s.mode(),
        crate::app::keymap::Mode::Gallery(crate::app::gallery::GalleryOf::Watch)
    );
    let cmds = press_own(&mut s, ctrl('u'));
    let [run] = runs(&cmds).try_into().expect("one run");
    assert_eq!(
        run.runs,
        [(
            vec!["a".to_string()],
            vec!["upscale".to_string(), "--in".into(), "/dl/a.png".into()]
        )]
    );
}
