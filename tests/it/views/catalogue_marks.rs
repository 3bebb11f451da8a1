//! The browser with the marks of what changed since the cached copy (`+` new, `~` changed, the
//! title's counts, what changed in the detail) and a sort by field, at 80 and 220 columns.

use super::{NOW, catalogue, entry, state};
use crate::common::drawn as draw;
use gendash::app::action::Action;
use gendash::app::state::State;
use gendash::cmd::{Cmd, RankJob};
use gendash::filter::Ranker;
use gendash::msg::Msg;
use gendash::store::catalogue_cache::Cached;

/// Answers the rankings among `cmds` as the ranking worker does.
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
            let diff = gendash::store::catalogue_cache::diff(&job.before, &job.after);
            let more = s.apply(Msg::Compared {
                generation: job.generation,
                diff,
            });
            settle(s, more);
        }
    }
}

/// The cached copy: the catalogue without `misty_forest`, `ink_wash` by another author, and a
/// model since withdrawn; then the fresh catalogue. `ink_wash` selected, sorted by rating.
fn marked(width: u16) -> State {
    let mut s = state(width, 24, Vec::new());
    s.start();
    let g = s.browser.generation;
    let mut old = catalogue();
    old.entries.retain(|e| e.model() != "misty_forest");
    for e in &mut old.entries {
        if e.model() == "ink_wash" {
            let meta = serde_json::json!({"source": "https://lora-hub.example.com/models/ink_wash",
                "type": "sd", "category": "style", "author": "kenji", "rating": 4.1});
            *e = gendash::api::LoraEntry::new("ink_wash", meta.as_object().unwrap());
        }
    }
    old.entries.push(entry("withdrawn_lora", "sd", "style"));
    let cmds = s.apply(Msg::CachedCatalogue {
        generation: g,
        cached: Some(Cached {
            catalogue: old.into(),
            saved_at: NOW - 3 * 3600,
            filtered: false,
        }),
    });
    settle(&mut s, cmds);
    let cmds = s.apply(Msg::Catalogue {
        generation: g,
        result: Ok(catalogue().into()),
    });
    settle(&mut s, cmds);
    for _ in 0..3 {
        let cmds = s.update(Action::CycleSort);
        settle(&mut s, cmds);
    }
    let at = s
        .browser
        .matches
        .iter()
        .position(|&i| s.browser.entries[i as usize].model() == "ink_wash")
        .unwrap();
    s.browser.select(at);
    s
}

#[test]
fn marks_at_80_columns() {
    let s = marked(80);
    let t = draw(&s);
    let text = crate::common::rendered_text(&s, s.areas.full.width, 24);
    assert!(
        text.contains(
            "┌ type all · cate any · 6/6 · 1 new · 1 changed · 1 gone · sorted by rating ↓ ─┐"
        ),
        "the pane's name goes first: {text}"
    );
    insta::assert_snapshot!(t.backend());
    // Narrower, the words of the counts and of the sort go too.
    let s = marked(60);
    let text = crate::common::rendered_text(&s, 60, 24);
    assert!(
        text.contains("┌ all · any · 6/6 · +1 ~1 −1 · rating ↓ ─"),
        "the short title: {text}"
    );
}

#[test]
fn marks_at_220_columns() {
    let s = marked(220);
    let t = draw(&s);
    let text = crate::common::rendered_text(&s, s.areas.full.width, 24);
    assert!(
        text.contains("1 new · 1 changed · 1 gone · sorted by rating ↓"),
        "{text}"
    );
    assert!(text.contains("~ author kenji → ayaka"), "{text}");
    assert!(text.contains("~ rating 4.1 → 4.5"), "{text}");
    insta::assert_snapshot!(t.backend());
}
