//! Saved views at 80 and 220 columns: the browser's title names the view in use, the list of
//! the pane's views shows each with its own key and what it sets, and the watch list's title
//! names its view.

use super::{Action, Cmd, Msg, RankJob, Ranker, draw, loaded, task};
use gendash::api::TaskKind;
use gendash::app::state::{Keymap, State, Views};
use gendash::store::config::{ConfiguredView, ViewPane, ViewSpec};
use gendash::store::views_file::ViewsFile;
use std::collections::BTreeMap;

/// Answers the rankings among `cmds` as the ranking worker does.
fn ranked(s: &mut State, cmds: Vec<Cmd>) {
    let mut ranker = Ranker::new();
    for cmd in cmds {
        if let Cmd::Rank(RankJob {
            generation,
            query,
            text,
        }) = cmd
        {
            let matches = ranker.rank(&query, &text);
            s.apply(Msg::Ranked {
                generation,
                matches,
            });
        }
    }
}

fn view(pane: ViewPane, filter: &str, keys: &str) -> ConfiguredView {
    ConfiguredView {
        spec: ViewSpec {
            pane,
            filter: filter.into(),
            lora_type: None,
            category: String::new(),
        },
        keys: keys
            .split_whitespace()
            .map(|k| k.parse().expect("key"))
            .collect(),
    }
}

/// Three views of the browser (two of the config, one with a key; one saved here) and one of
/// the watch list, as the dashboard makes them.
fn with_views(width: u16, height: u16) -> State {
    let mut s = loaded(
        width,
        height,
        vec![
            task("render-001", TaskKind::Image),
            task("clip-002", TaskKind::Video),
        ],
    );
    let configured: BTreeMap<String, ConfiguredView> = [
        (
            "water".to_string(),
            view(ViewPane::Browser, "wat sort:name", "F5"),
        ),
        (
            "by rating".to_string(),
            view(ViewPane::Browser, "sort:-rating", ""),
        ),
        ("videos".to_string(), view(ViewPane::Watch, "clip", "")),
    ]
    .into();
    let mut file = ViewsFile::default();
    file.saved.insert(
        "inks".into(),
        ViewSpec {
            pane: ViewPane::Browser,
            filter: "ink".into(),
            lora_type: None,
            category: "style".into(),
        },
    );
    s.keymap = Keymap::default().with_views(&configured).expect("no clash");
    *s.views = Views::new(&configured, &file);
    s
}

/// The rows of the screen, as text.
fn rows(t: &ratatui::Terminal<ratatui::backend::TestBackend>) -> Vec<String> {
    let buf = t.backend().buffer();
    (0..buf.area.height)
        .map(|y| (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect())
        .collect()
}

#[test]
fn the_title_names_the_view_in_use_and_the_list_shows_each_views_key_at_80_and_220() {
    for (width, height, name) in [
        (80, 24, "saved_views_80x24"),
        (220, 50, "saved_views_220x50"),
    ] {
        let mut s = with_views(width, height);
        let cmds = s.update(Action::ApplyView("water".into()));
        ranked(&mut s, cmds);
        assert_eq!(s.browser.query, "wat");
        let t = draw(&s);
        let screen = rows(&t);
        assert!(
            screen[s.areas.browser.y as usize].contains("view water"),
            "the title: {}",
            screen[s.areas.browser.y as usize]
        );
        assert!(
            screen.iter().any(|r| r.contains("water_tower")),
            "the filter's matches are listed"
        );
        s.update(Action::OpenViews);
        let t = draw(&s);
        insta::assert_snapshot!(name, t.backend());
        let screen = rows(&t);
        let top = screen
            .iter()
            .position(|r| r.contains("Views of the model browser"))
            .unwrap_or_else(|| panic!("the list in {screen:#?}"));
        let list = &screen[top + 1..];
        let line = |view: &str| {
            list.iter()
                .find(|r| r.contains(&format!(" {view} ")))
                .unwrap_or_else(|| panic!("{view} in {screen:#?}"))
                .clone()
        };
        assert!(line("water").contains("F5 "), "its key: {}", line("water"));
        assert!(line("water").contains("wat sort:name"), "{}", line("water"));
        assert!(line("water").contains("(config)"), "{}", line("water"));
        assert!(
            line("inks").contains("ink · cate style"),
            "{}",
            line("inks")
        );
        assert!(
            !line("inks").contains("(config)"),
            "saved here: {}",
            line("inks")
        );
        assert!(
            !list.iter().any(|r| r.contains(" videos ")),
            "the watch list's view is not the browser's"
        );
    }
}

#[test]
fn editing_the_filter_away_from_the_view_clears_its_name_from_the_title() {
    let mut s = with_views(80, 24);
    let cmds = s.update(Action::ApplyView("water".into()));
    ranked(&mut s, cmds);
    s.update(Action::FocusFilter);
    super::typed(&mut s, "e");
    let t = draw(&s);
    let screen = rows(&t);
    assert!(
        !screen[s.areas.browser.y as usize].contains("view water"),
        "{}",
        screen[s.areas.browser.y as usize]
    );
}

#[test]
fn the_watch_lists_title_names_its_view() {
    let mut s = with_views(80, 24);
    s.update(Action::FocusNext);
    s.update(Action::ApplyView("videos".into()));
    let t = draw(&s);
    let screen = rows(&t);
    let title = &screen[s.areas.watch.y as usize];
    assert!(title.contains("view videos"), "{title}");
    assert!(title.contains("/clip 1/2"), "{title}");
}

#[test]
fn the_name_prompt_says_what_it_saves_and_why_a_name_is_refused() {
    let mut s = with_views(80, 24);
    s.update(Action::FocusFilter);
    super::typed(&mut s, "ink");
    s.update(Action::Submit);
    s.update(Action::SaveView);
    let t = draw(&s);
    let screen = rows(&t);
    let top = screen
        .iter()
        .position(|r| r.contains("Save the view of the model browser"))
        .unwrap_or_else(|| panic!("the prompt in {screen:#?}"));
    assert!(
        screen[top + 2].contains("│ink ") || screen[top + 2].contains("│ink│"),
        "what it saves, under the name: {}",
        screen[top + 2]
    );
    for c in "water".chars() {
        s.update(Action::Type(c));
    }
    s.update(Action::Submit);
    let t = draw(&s);
    insta::assert_snapshot!("saved_views_prompt_refused_80x24", t.backend());
    assert!(
        rows(&t)
            .iter()
            .any(|r| r.contains("water is a view of the config file")),
        "the refusal is shown"
    );
}
