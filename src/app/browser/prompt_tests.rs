//! The copy-prompt key through the reducers: the selected model, or the marked ones, as the
//! text copied and the status bar's words for how it went; rebound, the notices name its key.

use crate::app::keymap::Keymap;
use crate::app::test_support::*;
use crate::cmd::Clip;
use serde_json::json;

/// A state whose browser lists `a` (trigger words, a weight), `b` (neither) and `c`.
fn listed() -> State {
    let mut s = state();
    let cmds = s.start();
    let Some(Cmd::FetchCatalogue(CatalogueRequest { generation, .. })) = cmds.first() else {
        panic!("the start fetches the catalogue: {cmds:?}")
    };
    let entry = |name: &str, meta: serde_json::Value| {
        LoraEntry::new(name, meta.as_object().expect("an object"))
    };
    let entries = vec![
        entry(
            "a",
            json!({"trigger_words": ["ta", "tb"], "recommended_weight": 0.5}),
        ),
        entry("b", json!({})),
        entry("c", json!({"trigger_words": "tc"})),
    ];
    s.apply(catalogue(
        *generation,
        Ok(Catalogue {
            entries,
            skipped: 0,
        }),
    ));
    assert_eq!(s.browser.matches.len(), 3, "listed");
    s
}

/// The clip a copy asked for.
fn clip(cmds: &[Cmd]) -> &Clip {
    match cmds {
        [Cmd::Copy(clip)] => clip,
        _ => panic!("one copy: {cmds:?}"),
    }
}

#[test]
fn the_selected_model_is_copied_as_its_prompt_and_the_status_bar_says_how() {
    let mut s = listed();
    let (action, cmds) = press(&mut s, ch('p'));
    assert_eq!(action, Some(Action::CopyPrompt));
    let copied = clip(&cmds).clone();
    assert_eq!(copied, Clip::new("<lora:a:0.5> ta, tb", "prompt of a"));
    assert_eq!(notice(&s), None, "nothing claimed before it happened");
    s.apply(Msg::Copied {
        clip: copied,
        via: CopiedVia::Program("xclip".into()),
    });
    assert_eq!(notice(&s), Some("copied the prompt of a with xclip"));

    // No trigger words: the tag alone, the configured weight.
    s.browser.select(1);
    let (_, cmds) = press(&mut s, ch('p'));
    assert_eq!(clip(&cmds).text, "<lora:b:1>");
}

#[test]
fn marked_models_are_one_prompt_in_the_order_marked_until_esc_unmarks_them() {
    let mut s = listed();
    s.browser.select(2);
    press(&mut s, ch(' '));
    assert_eq!(notice(&s), Some("1 model marked · p copies the prompt"));
    s.browser.select(0);
    press(&mut s, ch(' '));
    assert_eq!(notice(&s), Some("2 models marked · p copies the prompt"));
    assert_eq!(s.browser.marked, ["c", "a"]);
    // The cursor moved on to `b`, which is not marked: the marked ones are copied.
    let (_, cmds) = press(&mut s, ch('p'));
    let copied = clip(&cmds).clone();
    assert_eq!(
        copied,
        Clip::new("<lora:c:1> tc, <lora:a:0.5> ta, tb", "prompt of 2 models")
    );
    // No clipboard program: OSC 52, said as only sent.
    let cmds = s.apply(Msg::Copied {
        clip: copied.clone(),
        via: CopiedVia::Terminal {
            tmux: false,
            failed: None,
        },
    });
    assert_eq!(
        cmds,
        [Cmd::CopyToTerminal {
            text: copied.text,
            tmux: false
        }]
    );
    assert_eq!(
        notice(&s),
        Some("sent the prompt of 2 models to the terminal's clipboard (OSC 52)")
    );
    // A filter hiding a marked model keeps it marked and copied.
    s.browser.query = "zzz".into();
    press(&mut s, key(KeyCode::Esc));
    assert_eq!(s.browser.marked.len(), 2, "Esc cleared the filter first");
    press(&mut s, key(KeyCode::Esc));
    assert_eq!(notice(&s), Some("no model marked"));
    assert!(s.browser.marked.is_empty());
    s.browser.select(2);
    let (_, cmds) = press(&mut s, ch('p'));
    assert_eq!(clip(&cmds).text, "<lora:c:1> tc");
}

#[test]
fn a_rebound_key_copies_and_is_the_one_named() {
    let mut s = listed();
    let keys = [(
        "copy_prompt".to_string(),
        vec!["ctrl-y".parse().expect("a key")],
    )]
    .into();
    s.keymap = Keymap::configured(&keys).expect("keymap");
    let contexts = s.contexts();
    assert_eq!(
        s.keymap.resolve(&contexts, &ctrl('y')),
        Some(Action::CopyPrompt)
    );
    assert_ne!(
        s.keymap.resolve(&contexts, &ch('p')),
        Some(Action::CopyPrompt)
    );
    s.update(Action::ToggleMark);
    assert_eq!(notice(&s), Some("1 model marked · ^Y copies the prompt"));
}
