//! The keymap's tests: the table, `[keys]` on top of it, the modes' contexts.

use super::*;
use std::collections::BTreeMap;

fn resolve(contexts: &[Context], key: &KeyEvent) -> Option<Action> {
    Keymap::default().resolve(contexts, key)
}

fn markdown() -> String {
    Keymap::default().markdown()
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// Rebinding the key that opens the help or the archive rebinds the key that closes it,
/// in the keys and in the label every message shows; a closer of its own stays its own.
#[test]
fn a_rebound_opener_closes_its_view() {
    let alt_h = KeyEvent::new(KeyCode::Char('h'), KeyModifiers::ALT);
    let shift_h = KeyEvent::new(KeyCode::Char('H'), KeyModifiers::SHIFT);
    let f1 = key(KeyCode::F(1));
    let map = configured(&[("archive", &["alt-h"]), ("help", &["f1"])]).expect("accepted");
    let archive = [Context::Archive, Context::Always];
    assert_eq!(map.resolve(&archive, &alt_h), Some(Action::ToggleArchive));
    assert_eq!(
        map.resolve(&archive, &shift_h),
        None,
        "H is no longer the archive's"
    );
    assert_eq!(
        map.resolve(&archive, &key(KeyCode::Esc)),
        Some(Action::ToggleArchive)
    );
    assert_eq!(map.key(ActionName::CloseArchive), "Esc/Alt-h/q");
    let help = [Context::Help, Context::Always];
    assert_eq!(map.resolve(&help, &f1), Some(Action::ToggleHelp));
    assert_eq!(map.resolve(&help, &key(KeyCode::Char('?'))), None);
    assert_eq!(map.key(ActionName::CloseHelp), "Esc/F1");
    let own = configured(&[("archive", &["alt-h"]), ("close_archive", &["x"])]).expect("accepted");
    assert_eq!(own.resolve(&archive, &alt_h), None);
    assert_eq!(own.key(ActionName::CloseArchive), "x");
}

#[test]
fn pane_bindings_win_over_global_and_text_types() {
    let browser = [Context::Browser, Context::Global];
    let watch = [Context::Watch, Context::Global];
    assert_eq!(
        resolve(&browser, &key(KeyCode::Char('y'))),
        Some(Action::CopyUrl)
    );
    assert_eq!(
        resolve(&watch, &key(KeyCode::Char('d'))),
        Some(Action::Remove)
    );
    assert_eq!(resolve(&browser, &key(KeyCode::Char('d'))), None);
    assert_eq!(
        resolve(&browser, &key(KeyCode::Char('j'))),
        Some(Action::Down)
    );
    assert_eq!(
        resolve(&[Context::TextInput], &key(KeyCode::Char('q'))),
        Some(Action::Type('q'))
    );
    assert_eq!(
        resolve(&[Context::AddDialog], &key(KeyCode::Tab)),
        Some(Action::ToggleKind)
    );
    let shifted = KeyEvent::new(KeyCode::Char('R'), KeyModifiers::SHIFT);
    assert_eq!(resolve(&watch, &shifted), Some(Action::PollNow));
    // ^C and ^Z work in every mode, even while typing.
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    let ctrl_z = KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL);
    for contexts in [
        &[Context::Browser, Context::Global, Context::Always][..],
        &[Context::TextInput, Context::Always],
        &[Context::AddDialog, Context::Always],
        &[Context::Help, Context::Always],
    ] {
        assert_eq!(
            resolve(contexts, &ctrl_c),
            Some(Action::Quit),
            "{contexts:?}"
        );
        assert_eq!(
            resolve(contexts, &ctrl_z),
            Some(Action::Suspend),
            "{contexts:?}"
        );
    }
}

/// `docs/keys.md` holds, between its markers, exactly the tables the keymap makes
/// (`cargo run --locked --features keys-markdown --example keys_markdown -- --write` puts them
/// there).
#[test]
fn docs_keys_lists_every_key_as_the_keymap_does() {
    let doc = include_str!("../../../docs/keys.md");
    let begin = doc
        .find("<!-- keys:begin")
        .expect("docs/keys.md's begin marker");
    let end = doc
        .find("<!-- keys:end -->")
        .expect("docs/keys.md's end marker");
    let open = begin
        + doc[begin..end]
            .find("-->")
            .expect("the begin marker closed")
        + 3;
    assert_eq!(
        doc[open..end].trim(),
        markdown(),
        "docs/keys.md is out of date; run \
         `cargo run --locked --features keys-markdown --example keys_markdown -- --write`"
    );
}

#[test]
fn every_binding_is_described_and_no_key_means_two_things_at_once() {
    for b in bindings().iter() {
        assert!(
            !b.description.is_empty() && !b.keys.is_empty() && !b.label.is_empty(),
            "{b:?}"
        );
    }
    let built = Keymap::configured(&BTreeMap::new()).expect("the built-in table settles");
    assert!(built.given_up().is_empty(), "{:?}", built.given_up());
}

/// A name means one set of keys: the bindings of one action share them (the archive's
/// `download` is the watch list's), and each name of `[keys]` has a binding.
#[test]
fn every_action_name_names_bindings_with_one_set_of_keys() {
    // `view` names the keys of `[views.NAME]`, which the config makes, not the table.
    for name in ActionName::ALL.iter().filter(|n| **n != ActionName::View) {
        let mut of_name = bindings().iter().filter(|b| b.name == *name);
        let first = of_name
            .next()
            .unwrap_or_else(|| panic!("`{name}` has no binding"));
        for b in of_name {
            assert_eq!((&b.keys, &b.also), (&first.keys, &first.also), "{name}");
        }
    }
}

/// Labels come from the keys: `⏎/o`, `PgUp/^B`, and `y` alone where `Y` also answers.
#[test]
fn labels_are_written_from_the_keys() {
    let label = |ctx: Context, name: ActionName| {
        bindings()
            .iter()
            .find(|b| b.context == ctx && b.name == name)
            .map(|b| b.label.to_string())
    };
    assert_eq!(
        label(Context::Browser, ActionName::Open).as_deref(),
        Some("⏎/o")
    );
    assert_eq!(
        label(Context::Global, ActionName::PageUp).as_deref(),
        Some("PgUp/^B")
    );
    assert_eq!(
        label(Context::Confirm, ActionName::Yes).as_deref(),
        Some("y")
    );
    assert_eq!(
        label(Context::Requests, ActionName::CloseLog).as_deref(),
        Some("Esc/L")
    );
    assert_eq!(
        Keymap::default().resolve(
            Mode::Confirm.contexts(),
            &KeyEvent::new(KeyCode::Char('Y'), KeyModifiers::SHIFT)
        ),
        Some(Action::Submit),
        "a key left out of the label still answers"
    );
}

/// `Mode::ALL` holds every mode at its index, so the keymap's check of what is in force
/// together sees every mode.
#[test]
fn every_mode_is_listed_at_its_index() {
    for (i, mode) in Mode::ALL.iter().enumerate() {
        assert_eq!(mode.index(), i, "{mode:?}");
    }
}

fn configured(pairs: &[(&str, &[&str])]) -> Result<Keymap, KeymapError> {
    let keys = pairs
        .iter()
        .map(|(name, keys)| {
            let keys = keys.iter().map(|k| k.parse().expect("a key")).collect();
            ((*name).to_string(), keys)
        })
        .collect();
    Keymap::configured(&keys)
}

#[test]
fn key_names_an_actions_keys_as_configured() {
    assert_eq!(Keymap::default().key(ActionName::Undo), "u");
    let map = configured(&[("undo", &["ctrl-u", "f9"])]).expect("accepted");
    assert_eq!(map.key(ActionName::Undo), "^U/F9");
}

#[test]
fn rebinding_replaces_an_actions_keys_in_every_context_and_labels_follow() {
    let map = configured(&[
        ("quit", &["x"]),
        ("open", &["enter", "o"]),
        ("download", &["ctrl-d"]),
        ("remove", &["delete", "shift-x"]),
    ])
    .expect("accepted");
    let watch = [Context::Watch, Context::Global, Context::Always];
    let browser = [Context::Browser, Context::Global, Context::Always];
    let ctrl_d = KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL);
    assert_eq!(map.resolve(&watch, &ctrl_d), Some(Action::Download));
    assert_eq!(
        map.resolve(&watch, &key(KeyCode::Char('D'))),
        None,
        "the old key is gone"
    );
    assert_eq!(
        map.resolve(&browser, &key(KeyCode::Char('x'))),
        Some(Action::Quit)
    );
    assert_eq!(map.resolve(&browser, &key(KeyCode::Char('q'))), None);
    // ^C still quits: `interrupt` was not rebound.
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(map.resolve(&browser, &ctrl_c), Some(Action::Quit));
    for ctx in [&watch, &browser] {
        assert_eq!(map.resolve(ctx, &key(KeyCode::Enter)), Some(Action::Open));
    }
    let label = |name: ActionName, ctx: Context| {
        map.bindings()
            .iter()
            .find(|b| b.name == name && b.context == ctx)
            .map(|b| b.label.to_string())
    };
    assert_eq!(
        label(ActionName::Download, Context::Watch).as_deref(),
        Some("^D")
    );
    assert_eq!(
        label(ActionName::Quit, Context::Global).as_deref(),
        Some("x")
    );
    assert_eq!(
        label(ActionName::Open, Context::Browser).as_deref(),
        Some("⏎/o")
    );
    assert_eq!(
        label(ActionName::Remove, Context::Watch).as_deref(),
        Some("Del/X")
    );
    // The hint line and the help read the same table.
    let hints: Vec<String> = map.hints(&watch).map(|b| b.label.to_string()).collect();
    assert!(hints.contains(&"^D".to_string()), "{hints:?}");
    assert!(
        map.help_lines()
            .iter()
            .any(|l| matches!(l, HelpLine::Binding(b) if b.label == "^D"))
    );
}

/// A user's key wins over a built-in one: the built-in action in force beside it gives the
/// key up, and the keymap says which.
#[test]
fn a_users_key_wins_over_a_built_in_one() {
    let ctrl_z = KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL);
    let map = configured(&[("undo", &["ctrl-z"])]).expect("the docs' example is accepted");
    let watch = Mode::Pane(crate::app::layout::Pane::Watch).contexts();
    assert_eq!(map.resolve(watch, &ctrl_z), Some(Action::Undo));
    assert_eq!(
        map.resolve(Mode::Typing(TextField::Browser).contexts(), &ctrl_z),
        None,
        "suspend has no key left"
    );
    let given: Vec<String> = map.given_up().iter().map(ToString::to_string).collect();
    assert_eq!(
        given,
        [
            "`ctrl-z` is `undo`'s ([keys]); `suspend` (always, even while typing or in a popup) \
          gave it up and has no key left"
        ]
    );
    assert!(map.hints(watch).all(|b| b.name != ActionName::Suspend));
    // A built-in action with another key keeps it: `a` was `add`'s, `download` takes it.
    let map = configured(&[("download", &["a"])]).expect("accepted");
    assert_eq!(
        map.resolve(watch, &key(KeyCode::Char('a'))),
        Some(Action::Download)
    );
    assert_eq!(map.key(ActionName::Add), "(no key)");
    let map = configured(&[("quit", &["o"])]).expect("accepted");
    assert_eq!(map.key(ActionName::Open), "⏎");
    assert_eq!(
        map.given_up()[0].to_string(),
        "`o` is `quit`'s ([keys]); `open` (lora browser) gave it up and keeps ⏎"
    );
}

/// Two of the user's own actions on one key, in force together, are refused naming both.
#[test]
fn two_of_the_users_actions_on_one_key_are_an_error_naming_both() {
    let e = configured(&[("download", &["a"]), ("add", &["a"])]).expect_err("an error");
    assert_eq!(
        e.to_string(),
        "keys: `a` is bound to both `add` (either pane) and `download` (watch list); give one \
         of them another key in [keys]"
    );
    assert_eq!(e.actions(), ["add", "download"]);
    let e = configured(&[("undo", &["s"]), ("sort", &["s"])]).expect_err("an error");
    assert_eq!(e.actions(), ["sort", "undo"]);
    // Upper case is one key with or without a reported shift.
    let e = configured(&[("undo", &["shift-r"]), ("poll_now", &["R"])]).expect_err("an error");
    assert_eq!(e.actions(), ["poll_now", "undo"]);
    // Keys of contexts never in force together do not clash: `y` answers yes in the
    // question and copies in the panes.
    configured(&[("yes", &["x"]), ("copy_url", &["x"])]).expect("accepted");
}

#[test]
fn a_plain_character_cannot_be_bound_where_it_is_typed() {
    let e = configured(&[("submit", &["x"])]).expect_err("an error");
    assert!(
        e.to_string()
            .starts_with("keys.submit: `x` would no longer be typed"),
        "{e}"
    );
    configured(&[("submit", &["ctrl-j"]), ("clear_input", &["alt-u"])]).expect("accepted");
    let e = configured(&[("nonsense", &["x"])]).expect_err("an error");
    assert_eq!(e.to_string(), "keys.nonsense: no such action");
}

/// `key_for` names one binding: no action has two bindings in one context.
#[test]
fn an_action_has_one_binding_in_a_context() {
    let all = bindings();
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            assert!(
                !(a.context == b.context && a.action == b.action),
                "{:?} has {} and {}",
                a.context,
                a.name,
                b.name
            );
        }
    }
}

/// The start-up notice names each key `[keys]` took and the action that lost it, from the
/// keymap: one alone with what it keeps, several counted.
#[test]
fn the_given_up_notice_names_the_keys_and_who_lost_them() {
    assert_eq!(Keymap::default().given_up_notice(), None);
    let one = configured(&[("quit", &["o"])]).expect("accepted");
    assert_eq!(
        one.given_up_notice().as_deref(),
        Some("[keys]: o is quit's now; open keeps ⏎")
    );
    let two = configured(&[("undo", &["ctrl-z"]), ("download", &["a"])]).expect("accepted");
    let notice = two.given_up_notice().expect("a notice");
    assert!(
        notice.starts_with("[keys] took 2 built-in keys: ")
            && notice.contains("ctrl-z from suspend")
            && notice.contains("a from add")
            && notice.ends_with(" · gendash keys lists them"),
        "{notice}"
    );
}
