//! The dashboard's views on `TestBackend`, as insta snapshots of the main states, plus checks
//! of styles (highlights, colours) that a text snapshot cannot show.

mod archive;
mod cadence;
mod catalogue_marks;
mod contrast;
mod doc_examples;
mod extra_fields;
mod fitting;
mod gallery;
mod looks;
mod model_picture;
mod news;
mod own_actions;
mod palette;
mod preview;
mod prompt_marks;
mod saved_views;
mod video;

use crate::common::{self, drawn as draw};
use gendash::api::recording::RequestRecord;
use gendash::api::types::default_failure_statuses;
use gendash::api::{ApiError, Catalogue, LoraEntry, TaskKind, TaskResult};
use gendash::app::action::Action;
use gendash::app::state::{Keymap, State, Theme, UiSettings};
use gendash::app::watch::{self, order};
use gendash::cmd::{CatalogueRequest, Cmd, RankJob, TaskKey};
use gendash::filter::Ranker;
use gendash::msg::Msg;
use gendash::store::config::ThemeName;
use gendash::store::watchlist::WatchEntry;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use serde_json::json;
use std::collections::BTreeMap;

const NOW: u64 = 1_800_000_000;

fn entry(model: &str, ty: &str, cate: &str) -> LoraEntry {
    let meta = json!({"source": format!("https://lora-hub.example.com/models/{model}"), "type": ty, "category": cate, "author": "ayaka", "rating": 4.5});
    LoraEntry::new(model, meta.as_object().unwrap())
}

fn catalogue() -> Catalogue {
    let names = [
        ("watercolor_v2", "sd", "style"),
        ("pixel_art_xl", "sdxl", "style"),
        ("water_tower", "sd", "concept"),
        ("ink_wash", "sd", "style"),
        ("cyber_samurai_xl", "sdxl", "character"),
        ("misty_forest", "sd", "background"),
    ];
    Catalogue {
        entries: names.iter().map(|(n, t, c)| entry(n, t, c)).collect(),
        skipped: 0,
    }
}

fn state(width: u16, height: u16, watch: Vec<WatchEntry>) -> State {
    let statuses = default_failure_statuses();
    let mut s = State::new(gendash::app::state::Init {
        service_url: "http://127.0.0.1:8787/".into(),
        categories: vec!["style".into()],
        watch,
        failure_statuses: statuses,
        settings: UiSettings {
            bell: true,
            desktop_notifications: true,
            no_color: false,
            poll_interval: 2,
        },
        now: NOW,
        ..gendash::app::state::Init::default()
    });
    s.update(Action::Resize { width, height });
    s
}

fn loaded(width: u16, height: u16, watch: Vec<WatchEntry>) -> State {
    let mut s = state(width, height, watch);
    s.start();
    s.apply(Msg::Catalogue {
        generation: s.browser.generation,
        result: Ok(catalogue().into()),
    });
    s
}

/// Types `text` key by key, each keystroke's ranking answered as the ranking worker does.
pub(crate) fn typed(s: &mut State, text: &str) {
    let mut ranker = Ranker::new();
    for c in text.chars() {
        for cmd in s.update(Action::Type(c)) {
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
}

fn task(id: &str, kind: TaskKind) -> WatchEntry {
    WatchEntry {
        task_id: id.into(),
        kind,
        added_at: NOW - 95,
        last: None,
        service: None,
        saved: None,
        auto_download: None,
        trouble: None,
        claimed_by: None,
        polled_by: None,
        label: None,
        seen: None,
    }
}

use gendash::testing::task_result as result;

/// A poll's answer as the poller reports it (a retry, when there is one, in 8 s).
fn poll(s: &mut State, id: &str, kind: TaskKind, r: Result<TaskResult, ApiError>) {
    let retry_in = r.is_err().then(|| std::time::Duration::from_secs(8));
    s.apply(Msg::Polled {
        key: TaskKey::new(kind, id),
        result: r,
        retry_in,
        next: None,
    });
}

fn watching() -> State {
    let tasks = vec![
        task("render-001", TaskKind::Image),
        task("clip-002", TaskKind::Video),
        task("render-003", TaskKind::Image),
        task("render-004", TaskKind::Image),
    ];
    let mut s = loaded(150, 24, tasks);
    s.now = NOW - 20;
    poll(
        &mut s,
        "render-001",
        TaskKind::Image,
        Ok(result("render-001", "IN_PROGRESS", 45)),
    );
    poll(
        &mut s,
        "clip-002",
        TaskKind::Video,
        Ok(result("clip-002", "COMPLETED", 100)),
    );
    poll(
        &mut s,
        "render-003",
        TaskKind::Image,
        Ok(result("render-003", "FAILED", 30)),
    );
    s.now = NOW;
    s.apply(Msg::Polled {
        key: TaskKey::new(TaskKind::Image, "render-004"),
        result: Err(ApiError::Http {
            status: 502,
            excerpt: "Bad Gateway".into(),
            retry_after: None,
        }),
        retry_in: Some(std::time::Duration::from_secs(8)),
        next: None,
    });
    s
}

#[test]
fn loading() {
    let mut s = state(100, 20, Vec::new());
    s.start();
    insta::assert_snapshot!(draw(&s).backend());
}

#[test]
fn loaded_catalogue() {
    insta::assert_snapshot!(draw(&loaded(100, 20, Vec::new())).backend());
}

#[test]
fn filtered_with_highlights() {
    let mut s = loaded(100, 20, Vec::new());
    s.update(Action::FocusFilter);
    typed(&mut s, "wtr");
    let t = draw(&s);
    insta::assert_snapshot!(t.backend());
    // The matched characters of the first row are highlighted, the others are not.
    let a = s.areas.browser_list;
    let buf = t.backend().buffer();
    let row: String = (a.x..a.x + 13)
        .map(|x| buf[(x, a.y)].symbol().to_string())
        .collect();
    assert_eq!(row, "water_tower  ");
    let hits: String = (0..11u16)
        .filter(|&x| {
            buf[(a.x + x, a.y)]
                .style()
                .add_modifier
                .contains(Modifier::UNDERLINED)
        })
        .map(|x| buf[(a.x + x, a.y)].symbol().to_string())
        .collect();
    assert_eq!(
        hits, "wtr",
        "exactly the matched characters are highlighted"
    );
}

/// A ranking still out when a frame is drawn (the event loop waits a frame for it): the rows
/// are the previous query's, and the title says so.
#[test]
fn a_ranking_still_out_is_marked() {
    let mut s = loaded(100, 20, Vec::new());
    s.update(Action::FocusFilter);
    typed(&mut s, "w");
    let cmds = s.update(Action::Type('t'));
    let text = |s: &State| {
        let t = draw(s);
        let buf = t.backend().buffer();
        let lines: Vec<String> = (0..buf.area.height)
            .map(|y| (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect())
            .collect();
        lines
    };
    let screen = text(&s);
    assert!(screen[0].contains(" · 3/6 · filtering… "), "{}", screen[0]);
    assert!(screen[1].contains("/wt▏"));
    let Some(Cmd::Rank(RankJob {
        generation,
        query,
        text: search,
    })) = cmds.into_iter().next()
    else {
        panic!("a ranking is asked for")
    };
    s.apply(Msg::Ranked {
        generation,
        matches: Ranker::new().rank(&query, &search),
    });
    let screen = text(&s);
    assert!(screen[0].contains(" · 2/6 "), "{}", screen[0]);
    assert!(!screen.concat().contains("filtering"));
}

/// Types `text` key by key and answers every request as the workers would: a ranking as the
/// ranking worker does, a reload (a `type:`/`cate:` term) with the catalogue's entries of that
/// type and category.
fn typed_settled(s: &mut State, text: &str) {
    let mut ranker = Ranker::new();
    for c in text.chars() {
        let mut cmds = s.update(Action::Type(c));
        while let Some(cmd) = cmds.pop() {
            match cmd {
                Cmd::Rank(RankJob {
                    generation,
                    query,
                    text,
                }) => {
                    let matches = ranker.rank(&query, &text);
                    cmds.extend(s.apply(Msg::Ranked {
                        generation,
                        matches,
                    }));
                }
                Cmd::FetchCatalogue(CatalogueRequest {
                    generation,
                    lora_type,
                    cate,
                    ..
                }) => {
                    let mut c = catalogue();
                    c.entries.retain(|e| {
                        lora_type.is_none_or(|t| e.lora_type() == Some(t.as_str()))
                            && cate.as_deref().is_none_or(|k| e.category() == Some(k))
                    });
                    cmds.extend(s.apply(Msg::Catalogue {
                        generation,
                        result: Ok(c.into()),
                    }));
                }
                _ => {}
            }
        }
    }
}

/// The line under the filter says what its terms do, cut to the pane's width; `type:` and
/// `cate:` reloaded the list (the title shows them), the rest matched locally.
#[test]
fn filter_detail_line_at_80_and_140() {
    let query = "^w | ^ink author:aya !tower rating:4 type:sd cate:style ";
    for (width, height) in [(80, 24), (140, 30)] {
        let mut s = loaded(width, height, Vec::new());
        s.update(Action::FocusFilter);
        typed_settled(&mut s, query);
        assert_eq!(
            s.browser.filter_detail.as_deref(),
            Some(
                "name ^w or name ^ink · author ~ aya · not name tower · rating ~ 4 · type sd · cate style"
            )
        );
        let shown: Vec<&str> = s
            .browser
            .matches
            .iter()
            .map(|&i| s.browser.entries[i as usize].model())
            .collect();
        assert_eq!(shown.len(), 2, "{shown:?}");
        assert!(shown.contains(&"watercolor_v2") && shown.contains(&"ink_wash"));
        insta::assert_snapshot!(format!("filter_detail_{width}"), draw(&s).backend());
    }
}

/// A field no model has is named on the detail line once the ranking built the fields, and a
/// comparison with no number once its term is finished.
#[test]
fn the_detail_line_names_what_the_filter_cannot_use() {
    let mut s = loaded(140, 30, Vec::new());
    s.update(Action::FocusFilter);
    typed_settled(&mut s, "nosuchfield:x author:>abc ^w");
    assert_eq!(
        s.browser.filter_detail.as_deref(),
        Some(
            "nosuchfield ~ x (no such field) · name ^w · author:>abc: not a number or a date; ignored"
        )
    );
    let screen = draw(&s).backend().to_string();
    assert!(
        screen.contains("nosuchfield ~ x (no such field) · name ^w · author:>abc"),
        "{screen}"
    );
}

/// The watch list's filter reads a task's dates in the dashboard's local time, as the archive
/// does, and its title names what the filter cannot use.
#[test]
fn the_watch_list_filters_on_local_dates_and_names_what_it_cannot_use() {
    let east = 7200;
    let mut s = State::new(gendash::app::state::Init {
        watch: vec![
            task("render-001", TaskKind::Image),
            task("clip-002", TaskKind::Video),
        ],
        failure_statuses: default_failure_statuses(),
        utc_offset: time::UtcOffset::from_whole_seconds(east).unwrap(),
        now: NOW,
        ..gendash::app::state::Init::default()
    });
    s.update(Action::Resize {
        width: 200,
        height: 30,
    });
    let added = |offset| gendash::fmt::local_minute(NOW - 95, offset);
    order::set_query(
        &mut s.watch,
        format!("added:=\"{}\" kind:video", added(east)),
        NOW,
    );
    assert_eq!(s.watch.order.len(), 1, "the local minute");
    order::set_query(&mut s.watch, format!("added:=\"{}\"", added(0)), NOW);
    assert!(s.watch.order.is_empty(), "not the UTC one");
    order::set_query(&mut s.watch, "render is:new".into(), NOW);
    let screen = draw(&s).backend().to_string();
    assert!(
        screen.contains("/render is:new 1/2 · is:new is the model browser's marks and favourites"),
        "{screen}"
    );
}

#[test]
fn no_match() {
    let mut s = loaded(100, 20, Vec::new());
    s.update(Action::FocusFilter);
    typed(&mut s, "zzzq");
    insta::assert_snapshot!(draw(&s).backend());
}

#[test]
fn catalogue_error() {
    let mut s = state(100, 20, Vec::new());
    s.start();
    let err = ApiError::Connect {
        origin: "http://127.0.0.1:8787".into(),
        detail: "Connection refused (os error 111)".into(),
    };
    s.apply(Msg::Catalogue {
        generation: s.browser.generation,
        result: Err(err),
    });
    insta::assert_snapshot!(draw(&s).backend());
}

/// The cached catalogue shown at start, until the fresh one arrives: its age in the title.
fn cached(width: u16) -> State {
    let mut s = state(width, 20, Vec::new());
    s.start();
    s.apply(Msg::CachedCatalogue {
        generation: s.browser.generation,
        cached: Some(gendash::store::catalogue_cache::Cached {
            catalogue: catalogue().into(),
            saved_at: NOW - 3 * 3600 - 120,
            filtered: false,
        }),
    });
    s
}

fn refused() -> ApiError {
    ApiError::Connect {
        origin: "http://127.0.0.1:8787".into(),
        detail: "Connection refused (os error 111)".into(),
    }
}

/// Offline, the type key pressed: what stands under `type sd`. The whole catalogue was the
/// copy shown; the worker then answers with `answer` for the new type, and the fetch fails.
fn offline_type_change(answer: impl FnOnce(u64) -> Msg) -> State {
    let mut s = cached(120);
    s.apply(Msg::Catalogue {
        generation: s.browser.generation,
        result: Err(refused()),
    });
    s.update(Action::CycleType);
    assert!(
        s.browser.entries.is_empty(),
        "the list of every type never stands under `type sd`"
    );
    let generation = s.browser.generation;
    s.apply(answer(generation));
    s.apply(Msg::Catalogue {
        generation,
        result: Err(refused()),
    });
    s
}

/// No copy for type sd, but the whole catalogue's: narrowed here, and the title says so.
#[test]
fn offline_type_change_narrows_the_whole_copy_here() {
    let s = offline_type_change(|generation| Msg::CachedCatalogue {
        generation,
        cached: Some(gendash::store::catalogue_cache::Cached {
            catalogue: catalogue()
                .narrowed(Some(gendash::api::LoraType::Sd), None)
                .into(),
            saved_at: NOW - 3 * 3600 - 120,
            filtered: true,
        }),
    });
    let t = draw(&s);
    let text = common::rendered_text(&s, 120, 20);
    assert!(
        text.contains("type sd · cate any · 4/4 · cached 3h ago · offline · filtered here"),
        "{text}"
    );
    assert!(!text.contains("sdxl"), "{text}");
    insta::assert_snapshot!(t.backend());
    // At 80 columns the title still says what the list is.
    let mut s = s;
    s.update(Action::Resize {
        width: 80,
        height: 24,
    });
    let text = common::rendered_text(&s, 80, 24);
    assert!(
        text.contains("type sd · cate any · 4/4 · cached 3h ago · offline · filtered here"),
        "{text}"
    );
}

/// No copy for type sd nor a broader one: an empty list that says so, never the old one.
#[test]
fn offline_type_change_without_a_cached_copy() {
    let s = offline_type_change(|generation| Msg::CachedCatalogue {
        generation,
        cached: None,
    });
    let text = common::rendered_text(&s, 120, 20);
    assert!(
        text.contains("no cached copy for type sd · offline"),
        "{text}"
    );
    assert!(text.contains("type sd · cate any · offline"), "{text}");
    assert!(!text.contains("watercolor_v2"), "{text}");
    insta::assert_snapshot!(draw(&s).backend());
}

/// A service that answers 404 where the catalogue should be is not `connected`: the status
/// bar says the base URL's path looks wrong and what was asked, once.
/// The status bar's row (it starts with the service's URL) as drawn at this size.
fn status_row(s: &State, width: u16, height: u16) -> String {
    let text = common::rendered_text(s, width, height);
    let cells: Vec<char> = text.chars().collect();
    cells
        .chunks(usize::from(width))
        .map(|r| r.iter().collect::<String>())
        .find(|r| r.starts_with(" http://127.0.0.1:8787"))
        .unwrap_or_else(|| panic!("a status bar: {text}"))
}

/// The status bar never says `trouble` and `reconnected` at once, in either order: health
/// is one state, drawn in one place, and `reconnected` gives way to `connected`.
#[test]
fn trouble_and_reconnected_are_never_on_the_status_bar_together() {
    let mut s = state(150, 20, vec![task("w-1", TaskKind::Image)]);
    s.start();
    let bar = |s: &State| status_row(s, 150, 20);
    let says = |b: &str| (b.contains("trouble"), b.contains("reconnected"));
    poll(&mut s, "w-1", TaskKind::Image, Err(refused()));
    assert_eq!(says(&bar(&s)), (true, false), "{}", bar(&s));
    poll(
        &mut s,
        "w-1",
        TaskKind::Image,
        Ok(result("w-1", "IN_PROGRESS", 50)),
    );
    assert_eq!(says(&bar(&s)), (false, true), "{}", bar(&s));
    s.apply(Msg::Tick(NOW + 1));
    s.apply(Msg::Catalogue {
        generation: s.browser.generation,
        result: Err(ApiError::Http {
            status: 503,
            excerpt: "Service Unavailable".into(),
            retry_after: None,
        }),
    });
    assert_eq!(says(&bar(&s)), (true, false), "{}", bar(&s));
    poll(
        &mut s,
        "w-1",
        TaskKind::Image,
        Ok(result("w-1", "IN_PROGRESS", 60)),
    );
    assert_eq!(says(&bar(&s)), (false, true), "{}", bar(&s));
    s.apply(Msg::Tick(NOW + 60));
    let b = bar(&s);
    assert!(b.contains("● connected") && !says(&b).1, "{b}");
}

#[test]
fn a_wrong_base_path_in_the_status_bar() {
    let mut s = state(150, 20, Vec::new());
    s.start();
    let asked = "POST http://127.0.0.1:8787/lora/ → 404: is the path prefix right?";
    s.apply(Msg::Catalogue {
        generation: s.browser.generation,
        result: Err(ApiError::WrongPath {
            method: "POST",
            url: "http://127.0.0.1:8787/lora/".into(),
            status: 404,
        }),
    });
    let status = &status_row(&s, 150, 20);
    assert!(
        status.contains(&format!("✖ the base URL's path looks wrong: {asked}")),
        "{status}"
    );
    assert!(!status.contains("connected"), "{status}");
    assert_eq!(status.matches(asked).count(), 1, "said once: {status}");
}

#[test]
fn cached_catalogue_while_loading() {
    insta::assert_snapshot!(draw(&cached(120)).backend());
}

/// The service cannot be reached: the cached copy stays, marked offline.
#[test]
fn cached_catalogue_offline() {
    let mut s = cached(120);
    s.apply(Msg::Catalogue {
        generation: s.browser.generation,
        result: Err(ApiError::Connect {
            origin: "http://127.0.0.1:8787".into(),
            detail: "Connection refused (os error 111)".into(),
        }),
    });
    insta::assert_snapshot!(draw(&s).backend());
}

#[test]
fn watch_list_with_each_state() {
    let mut s = watching();
    s.update(Action::FocusNext);
    let t = draw(&s);
    insta::assert_snapshot!(t.backend());
    let buf = t.backend().buffer();
    let a = s.areas.watch_rows;
    let status_colour = |row: u16| {
        let line: String = (a.x..a.x + a.width)
            .map(|x| buf[(x, a.y + row)].symbol().to_string())
            .collect();
        let col = line
            .find("IN_PROGRESS")
            .or_else(|| line.find("COMPLETED"))
            .or_else(|| line.find("FAILED"))
            .or_else(|| line.find("no answer"))
            .unwrap();
        buf[(a.x + col as u16, a.y + row)].style().fg
    };
    assert_eq!(status_colour(0), Some(Color::Yellow));
    assert_eq!(status_colour(1), Some(Color::Green));
    // xterm's 203 and 207: a red and a magenta that read on black and on the selected row.
    assert_eq!(status_colour(2), Some(Color::Indexed(203)));
    assert_eq!(
        status_colour(3),
        Some(Color::Indexed(207)),
        "a task whose polls fail stands out"
    );
}

#[test]
fn add_dialog() {
    let mut s = watching();
    s.update(Action::OpenAddDialog);
    s.update(Action::Paste("job-1, job-2\njob-3".into()));
    s.update(Action::ToggleKind);
    insta::assert_snapshot!(draw(&s).backend());
}

/// A long paste with a bad ID in it: the input shows its end, where the cursor is, and the
/// error has rows of its own below it, wrapped, however much was pasted.
#[test]
fn add_dialog_error_stays_in_view_under_long_input() {
    let mut s = watching();
    s.update(Action::Resize {
        width: 40,
        height: 24,
    });
    s.update(Action::OpenAddDialog);
    let ids: Vec<String> = (0..60).map(|i| format!("render-job-{i:03}")).collect();
    s.update(Action::Paste(format!("{} .. last-one", ids.join(" "))));
    s.update(Action::Submit);
    let t = draw(&s);
    insta::assert_snapshot!(t.backend());
    let text = crate::common::rendered_text(&s, s.areas.full.width, s.areas.full.height);
    assert!(text.contains("last-one"), "the end of the input is shown");
    assert!(text.contains("ID 61 of 62:"), "the error is shown");
}

#[test]
fn help_overlay() {
    let mut s = loaded(100, 40, Vec::new());
    s.update(Action::ToggleHelp);
    insta::assert_snapshot!(draw(&s).backend());
}

/// At 60x20 the help does not fit: its border says so and which lines are shown; scrolled as
/// far as it goes, its last line is on the overlay's last row. Its closing note, wider than
/// the overlay, wraps whole onto two rows (never cut with `…`).
#[test]
fn help_overlay_shows_that_it_scrolls_and_stops_at_its_end() {
    let mut s = loaded(60, 20, Vec::new());
    s.update(Action::ToggleHelp);
    insta::assert_snapshot!("help_overlay_60x20_top", draw(&s).backend());
    for _ in 0..200 {
        s.update(Action::Down);
    }
    let t = draw(&s);
    insta::assert_snapshot!("help_overlay_60x20_end", t.backend());
    let buf = t.backend().buffer();
    let help = s.areas.help;
    let row = |y: u16| -> String {
        (help.x..help.right())
            .map(|x| buf[(x, y)].symbol())
            .collect()
    };
    assert!(
        row(help.bottom() - 3).contains("Mouse: click")
            && row(help.bottom() - 2).contains("scrolls."),
        "the note wrapped, its last row on the last row: {}",
        row(help.bottom() - 2)
    );
    assert!(
        !row(help.bottom() - 3).contains('…'),
        "{}",
        row(help.bottom() - 3)
    );
    assert!(row(help.bottom() - 1).contains("↑ more"));
}

/// A search in the help scrolls to the line it found and draws that line, and only it, in the
/// selected style, whichever row of the overlay it is on.
#[test]
fn the_help_draws_the_line_its_search_found_selected() {
    let mut s = loaded(80, 20, Vec::new());
    s.update(Action::ToggleHelp);
    s.update(Action::Search);
    for c in "zoom".chars() {
        s.update(Action::Type(c));
    }
    let t = draw(&s);
    let buf = t.backend().buffer();
    let help = s.areas.help;
    let selected = s.theme.selected();
    let rows: Vec<(String, bool)> = (help.y + 1..help.bottom() - 1)
        .map(|y| {
            let text: String = (help.x + 1..help.right() - 1)
                .map(|x| buf[(x, y)].symbol())
                .collect();
            let marked = buf[(help.x + 3, y)].style().bg == selected.bg;
            (text, marked)
        })
        .collect();
    let marked: Vec<&String> = rows.iter().filter(|r| r.1).map(|r| &r.0).collect();
    assert_eq!(marked.len(), 1, "one line selected: {rows:#?}");
    assert!(marked[0].to_lowercase().contains("zoom"), "{marked:?}");
    assert!(
        !rows[0].0.contains("zoom") || rows[0].1,
        "the found line is the one selected: {rows:#?}"
    );
}

/// Below ~110 columns not every hint fits: the least important give way, and `? help` and
/// `q quit` stay at every width from 20 up, in each pane and with the filter applied.
#[test]
fn the_hint_line_keeps_help_and_quit_at_every_width() {
    let mut browser = watching();
    let mut watch = watching();
    watch.update(Action::FocusNext);
    for width in 20..=200u16 {
        for s in [&mut browser, &mut watch] {
            s.update(Action::Resize { width, height: 24 });
            let text = crate::common::rendered_text(s, width, 24);
            let hints: String = text.chars().skip(usize::from(width) * 23).collect();
            assert!(
                hints.contains("? help") && hints.contains("q quit"),
                "{width}: {hints:?}"
            );
        }
    }
    watch.update(Action::Resize {
        width: 80,
        height: 24,
    });
    insta::assert_snapshot!("watch_list_80x24", draw(&watch).backend());
}

#[test]
fn narrow_layout() {
    let s = {
        let mut s = watching();
        s.update(Action::Resize {
            width: 60,
            height: 30,
        });
        s
    };
    insta::assert_snapshot!(draw(&s).backend());
}

#[test]
fn no_color_uses_no_colours_whatever_the_theme_and_styles_say() {
    let mut styles = BTreeMap::new();
    styles.insert("selected".to_string(), Style::new().bg(Color::Blue));
    styles.insert("running".to_string(), Style::new().fg(Color::Indexed(208)));
    for theme in [ThemeName::Dark, ThemeName::Light, ThemeName::HighContrast] {
        let mut s = watching();
        s.theme = Theme::new(theme, &styles, true);
        let t = draw(&s);
        for cell in t.backend().buffer().content() {
            assert!(
                matches!(cell.fg, Color::Reset) && matches!(cell.bg, Color::Reset),
                "{theme:?}: {cell:?}"
            );
        }
    }
}

/// The screen's styles as a grid of letters, one per distinct style, with a legend: what a
/// text snapshot cannot show of a theme.
fn style_map(t: &Terminal<TestBackend>) -> String {
    use std::fmt::Write as _;
    let buffer = t.backend().buffer();
    let mut legend: Vec<Style> = Vec::new();
    let mut grid = String::new();
    for y in 0..buffer.area.height {
        for x in 0..buffer.area.width {
            let style = buffer[(x, y)].style();
            let i = legend.iter().position(|s| *s == style).unwrap_or_else(|| {
                legend.push(style);
                legend.len() - 1
            });
            let letter =
                b"-ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"[i.min(62)];
            grid.push(char::from(letter));
        }
        grid.push('\n');
    }
    let mut out = String::new();
    for (i, s) in legend.iter().enumerate() {
        let letter = b"-ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"[i.min(62)];
        let _ = writeln!(
            out,
            "{}: fg {:?}, bg {:?}, {:?}",
            char::from(letter),
            s.fg,
            s.bg,
            s.add_modifier
        );
    }
    out + "\n" + &grid
}

fn themed(theme: ThemeName) -> Terminal<TestBackend> {
    let mut s = watching();
    s.update(Action::Resize {
        width: 100,
        height: 24,
    });
    s.theme = Theme::new(theme, &BTreeMap::new(), false);
    draw(&s)
}

#[test]
fn light_theme() {
    insta::assert_snapshot!(style_map(&themed(ThemeName::Light)));
}

#[test]
fn high_contrast_theme() {
    insta::assert_snapshot!(style_map(&themed(ThemeName::HighContrast)));
}

/// `[styles]` replaces a named style wherever it is drawn: here the selected row's.
#[test]
fn a_configured_style_is_drawn() {
    let mut styles = BTreeMap::new();
    let orange = Style::new()
        .fg(Color::Indexed(208))
        .add_modifier(Modifier::ITALIC);
    styles.insert("selected".to_string(), orange);
    let mut s = watching();
    s.theme = Theme::new(ThemeName::Dark, &styles, false);
    let t = draw(&s);
    let buffer = t.backend().buffer();
    let row = (0..buffer.area.height)
        .find(|&y| {
            let text: String = (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol())
                .collect();
            text.contains("watercolor_v2")
        })
        .expect("the first model is on screen");
    assert!(
        (0..buffer.area.width).any(|x| buffer[(x, row)].fg == Color::Indexed(208)
            && buffer[(x, row)].modifier.contains(Modifier::ITALIC)),
        "the selected row is not drawn in the configured style"
    );
}

/// Rebound keys show in the hint line and the help overlay as they are bound.
#[test]
fn rebound_keys_show_in_the_hints_and_the_help() {
    let mut keys = BTreeMap::new();
    keys.insert("download".to_string(), vec!["ctrl-d".parse().unwrap()]);
    keys.insert("quit".to_string(), vec!["x".parse().unwrap()]);
    let mut s = watching();
    s.keymap = Keymap::configured(&keys).unwrap();
    s.update(Action::FocusNext);
    let text = crate::common::rendered_text(&s, 150, 24);
    let hints: String = text.chars().skip(150 * 23).collect();
    assert!(hints.contains("^D download"), "{hints}");
    assert!(
        hints.contains("x quit") && !hints.contains("q quit"),
        "{hints}"
    );
    s.update(Action::ToggleHelp);
    s.update(Action::Resize {
        width: 150,
        height: 80,
    });
    s.update(Action::PageDown);
    let help = crate::common::rendered_text(&s, 150, 80);
    assert!(help.contains("^D      download the file"), "{help}");
}

/// Every size from 0x0 to 250x80 (in four bands of widths, so the bands run in parallel; the
/// bands take about as much CPU each, ~2 s: a narrow width is drawn at every height, a wide one
/// at few, so 0 to 62 took twice the others and ran on alone at the run's end), with
/// the watch list, a popup and a filter on screen: the geometry the clicks use lies on the
/// screen at each size, and at the sizes of [`drawn_at`] the screen renders, the geometry is the
/// drawn screen's, and wherever there is room the panes and the popup are actually drawn.
const SWEEP_BANDS: [std::ops::RangeInclusive<u16>; 4] = [0..=40, 41..=98, 99..=177, 178..=250];

/// The bands are the widths 0 to 250, each once.
#[test]
fn the_size_bands_cover_every_width_once() {
    let widths: Vec<u16> = SWEEP_BANDS.iter().flat_map(Clone::clone).collect();
    assert_eq!(widths, (0..=250).collect::<Vec<u16>>());
}

#[test]
fn every_size_renders_without_panic_widths_0_to_40() {
    sizes_render(SWEEP_BANDS[0].clone());
}

#[test]
fn every_size_renders_without_panic_widths_41_to_98() {
    sizes_render(SWEEP_BANDS[1].clone());
}

#[test]
fn every_size_renders_without_panic_widths_99_to_177() {
    sizes_render(SWEEP_BANDS[2].clone());
}

#[test]
fn every_size_renders_without_panic_widths_178_to_250() {
    sizes_render(SWEEP_BANDS[3].clone());
}

fn sizes_render(widths: std::ops::RangeInclusive<u16>) {
    // Room for a band's vertical splits (every height, both states) until the next width uses
    // them again: with the default 500 they are pushed out first (a band 8.3 s instead of 7.3 s).
    ratatui::layout::Layout::init_cache(std::num::NonZeroUsize::new(4000).unwrap());
    let mut s = watching();
    s.update(Action::FocusFilter);
    typed(&mut s, "wat");
    s.update(Action::Cancel);
    let mut with_help = watching();
    with_help.update(Action::ToggleHelp);
    // One terminal for the whole band, its buffers resized in place: 40,000 fresh terminals
    // spent a third of the sweep allocating and faulting in their buffers.
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(0, 0)).expect("a test terminal");
    for width in widths {
        for height in 0..=80u16 {
            for (help, state) in [(false, &mut s), (true, &mut with_help)] {
                state.update(Action::Resize { width, height });
                let a = state.areas;
                assert_eq!(a.full, Rect::new(0, 0, width, height));
                for (name, r) in [
                    ("browser", a.browser),
                    ("filter", a.browser_filter),
                    ("list", a.browser_list),
                    ("detail", a.browser_detail),
                    ("watch", a.watch),
                    ("watch header", a.watch_header),
                    ("watch rows", a.watch_rows),
                    ("status", a.status),
                    ("hints", a.hints),
                    ("help", a.help),
                ] {
                    assert!(
                        r.area() == 0 || (r.right() <= width && r.bottom() <= height),
                        "{width}x{height}: the {name} area {r:?} is off screen"
                    );
                }
                if !drawn_at(width, height) {
                    continue;
                }
                let buffer = drawn_in(&mut terminal, state, width, height);
                // Now and then, the same screen as a terminal of its own draws.
                if (width + height) % 97 == 0 {
                    assert_eq!(
                        crate::common::buffer_text(buffer),
                        crate::common::rendered_text(state, width, height),
                        "{width}x{height}: drawn in the reused terminal"
                    );
                }
                // Each pane's title on its top border, and the rows below the watch pane's
                // header, where the geometry says they are.
                if width >= 60 && height >= 20 {
                    let top = |r: Rect| region_text(buffer, Rect { height: 1, ..r });
                    if help {
                        assert!(top(a.help).contains("Keys"), "{width}x{height}: no help");
                    } else {
                        assert!(
                            top(a.browser).contains("LoRA models")
                                && top(a.watch).contains("Watch list"),
                            "{width}x{height}: a pane is missing"
                        );
                        let rows = Rect {
                            height: a.watch_rows.height.min(4),
                            ..a.watch_rows
                        };
                        assert!(
                            region_text(buffer, rows).contains("render-001"),
                            "{width}x{height}: no watch rows"
                        );
                    }
                }
            }
        }
    }
}

/// The sizes the sweep draws at: every size up to 30 rows or 60 columns, where every row and
/// column is fought over and where panics from too little room live, and beyond that every
/// width at the heights of common terminals and every height at the widths where the layout
/// changes (the detail beside the list from 90 columns) or that are common (80, 220, 250). A
/// screen's cost grows with its area: the sizes left out (rows 31 to 80 at widths 61 to 250,
/// but for those) were two thirds of the sweep's cells and of its time; their geometry is still
/// checked.
fn drawn_at(width: u16, height: u16) -> bool {
    const WIDTHS: [u16; 11] = [80, 89, 90, 91, 100, 120, 150, 200, 219, 220, 250];
    const HEIGHTS: [u16; 7] = [31, 40, 45, 50, 60, 79, 80];
    height <= 30 || width <= 60 || WIDTHS.contains(&width) || HEIGHTS.contains(&height)
}

/// The text of the cells in `area`, row after row.
fn region_text(buffer: &ratatui::buffer::Buffer, area: Rect) -> String {
    let mut text = String::new();
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            text.push_str(buffer[(x, y)].symbol());
        }
    }
    text
}

/// `state` rendered at `width`×`height` into `terminal`, resized and emptied first: the frame
/// as rendered, not flushed to the backend.
fn drawn_in<'t>(
    terminal: &'t mut ratatui::Terminal<ratatui::backend::TestBackend>,
    state: &gendash::app::state::State,
    width: u16,
    height: u16,
) -> &'t ratatui::buffer::Buffer {
    terminal
        .resize(Rect::new(0, 0, width, height))
        .expect("resizing a test terminal");
    // Resizing keeps the cells that fit; a fresh terminal's are empty.
    terminal.current_buffer_mut().reset();
    gendash::ui::render(state, &mut terminal.get_frame());
    terminal.current_buffer_mut()
}

#[test]
fn clicks_select_the_row_drawn_there_and_the_wheel_scrolls() {
    use gendash::app::state::Pane;
    let mut s = watching();
    let list = s.areas.browser_list;
    s.update(Action::Click {
        column: list.x + 2,
        row: list.y + 3,
    });
    assert!(s.is_focused(Pane::Browser));
    assert_eq!(s.browser.cursor.selected, 3);
    let t = draw(&s);
    let row: String = (list.x..list.x + 11)
        .map(|x| t.backend().buffer()[(x, list.y + 3)].symbol().to_string())
        .collect();
    assert_eq!(row, "ink_wash  s", "the clicked row is the selected entry");
    assert_eq!(s.browser.selected_entry().unwrap().model(), "ink_wash");

    let rows = s.areas.watch_rows;
    s.update(Action::Click {
        column: rows.x + 1,
        row: rows.y + 2,
    });
    assert!(s.is_focused(Pane::Watch));
    assert_eq!(s.watch.selected_row().unwrap().entry.task_id, "render-003");

    s.update(Action::Wheel {
        column: list.x + 1,
        row: list.y + 1,
        down: false,
    });
    assert_eq!(
        s.browser.cursor.selected, 0,
        "the wheel moves the pane under the pointer"
    );
    s.update(Action::Wheel {
        column: list.x + 1,
        row: list.y + 1,
        down: true,
    });
    assert_eq!(s.browser.cursor.selected, 3);
    assert!(s.is_focused(Pane::Watch), "scrolling does not steal focus");

    let filter = s.areas.browser_filter;
    s.update(Action::Click {
        column: filter.x + 1,
        row: filter.y,
    });
    assert_eq!(
        s.contexts(),
        [
            gendash::app::keymap::Context::TextInput,
            gendash::app::keymap::Context::Always
        ]
    );
}

/// A watch list with every state, at the README's 140x45: the detail section shows the
/// selected task without a key press; every state in the table; the links drawn are the file
/// names and the detail's full URL, at the cells where they are drawn.
#[test]
fn watch_details_and_states_at_140x45() {
    let ids = [
        ("sim-45-portrait-batch-with-a-long-name", "IN_PROGRESS"),
        ("clip-done", "COMPLETED"),
        ("render-gone", ""),
        ("render-stuck", "IN_PROGRESS"),
    ];
    let mut s = loaded(
        140,
        45,
        ids.iter()
            .map(|(id, _)| task(id, TaskKind::Image))
            .collect(),
    );
    s.watch.stall_after = 300;
    let poll = |s: &mut State, id: &str, r: Result<TaskResult, ApiError>| {
        s.apply(Msg::Polled {
            key: TaskKey::new(TaskKind::Image, id),
            result: r,
            retry_in: Some(std::time::Duration::from_secs(15)),
            next: None,
        });
    };
    let at = |s: &mut State, t: u64| {
        s.apply(Msg::Tick(NOW - 90 + t));
    };
    at(&mut s, 0);
    poll(
        &mut s,
        "render-stuck",
        Ok(result("render-stuck", "IN_PROGRESS", 40)),
    );
    for (t, p) in [(0, 10), (60, 20), (120, 30)] {
        at(&mut s, t);
        poll(&mut s, ids[0].0, Ok(result(ids[0].0, "IN_PROGRESS", p)));
    }
    at(&mut s, 130);
    poll(&mut s, "clip-done", Ok(result("clip-done", "QUEUED", 0)));
    at(&mut s, 200);
    poll(
        &mut s,
        "clip-done",
        Ok(result("clip-done", "COMPLETED", 100)),
    );
    poll(
        &mut s,
        "render-gone",
        Err(ApiError::Lookup {
            description: "task not found".into(),
        }),
    );
    at(&mut s, 400);
    poll(
        &mut s,
        "render-stuck",
        Ok(result("render-stuck", "IN_PROGRESS", 40)),
    );
    s.update(Action::FocusNext);
    s.update(Action::Down);
    let mut links = Vec::new();
    let a = s.areas.full;
    let mut t = Terminal::new(TestBackend::new(a.width, a.height)).unwrap();
    t.draw(|f| links = gendash::ui::render(&s, f)).unwrap();
    insta::assert_snapshot!(t.backend());
    let text = crate::common::rendered_text(&s, 140, 45);
    assert!(
        text.contains("1 stalled") && text.contains("1 not found"),
        "{text}"
    );
    assert!(
        text.contains("sim-45-portrait-batch-with-…"),
        "a long ID is cut at its end, where it is told apart"
    );
    let buf = t.backend().buffer();
    let drawn = |l: &gendash::ui::watch::Link| -> String {
        (l.x..l.x + l.width)
            .map(|x| buf[(x, l.y)].symbol().to_string())
            .collect()
    };
    let url = "http://127.0.0.1:8787/files/clip-done.png";
    assert!(!links.is_empty());
    assert!(links.iter().all(|l| l.url == url), "{links:?}");
    let texts: Vec<String> = links.iter().map(drawn).collect();
    assert_eq!(texts[0], "clip-done.png", "the row's file name: {texts:?}");
    assert_eq!(
        texts[1..].concat(),
        url,
        "the detail's URL, wrapped beside the picture, each line a link: {texts:?}"
    );
}

/// The watch pane with tasks of three services (the current one, a profile's, one not
/// configured) at the widths people use: the SERVICE column, the states, the detail.
#[test]
fn watch_pane_across_services_at_80_100_140() {
    let current = "http://127.0.0.1:8787";
    let staging = "https://staging.example.com/api";
    let gone = "https://old.example.net";
    let on = |id: &str, kind: TaskKind, service: &str| WatchEntry {
        service: Some(service.into()),
        saved: None,
        auto_download: None,
        claimed_by: None,
        polled_by: None,
        label: None,
        seen: None,
        ..task(id, kind)
    };
    for (width, height) in [(80, 24), (100, 30), (140, 45)] {
        let mut s = loaded(
            width,
            height,
            vec![
                on("render-001", TaskKind::Image, current),
                on("clip-002", TaskKind::Video, staging),
                on("render-003", TaskKind::Image, gone),
                on("render-004", TaskKind::Image, staging),
            ],
        );
        let mut services = gendash::app::services::Services::single(current);
        services.names.insert(current.into(), "local".into());
        services.names.insert(staging.into(), "staging".into());
        let _ = watch::service::set(&mut s.watch, services);
        for (t, p) in [(0, 10), (30, 40)] {
            s.apply(Msg::Tick(NOW - 60 + t));
            poll(
                &mut s,
                "render-001",
                TaskKind::Image,
                Ok(result("render-001", "IN_PROGRESS", p)),
            );
        }
        s.apply(Msg::Tick(NOW));
        poll(
            &mut s,
            "clip-002",
            TaskKind::Video,
            Ok(result("clip-002", "COMPLETED", 100)),
        );
        poll(
            &mut s,
            "render-004",
            TaskKind::Image,
            Err(ApiError::Http {
                status: 503,
                excerpt: "Service Unavailable".into(),
                retry_after: None,
            }),
        );
        s.update(Action::FocusNext);
        s.update(Action::Down);
        s.update(Action::Down);
        let t = draw(&s);
        insta::assert_snapshot!(format!("watch_services_{width}x{height}"), t.backend());
        let text = crate::common::rendered_text(&s, width, height);
        assert!(text.contains("no service"), "{width}: {text}");
        if width >= 100 {
            assert!(
                text.contains("SERVICE") && text.contains("staging"),
                "{width}: {text}"
            );
        }
    }
}

/// A finished image task's picture beside the detail's text, as the preview worker sends it;
/// a video says in a line of the text that previews are for images.
#[test]
fn the_detail_shows_the_picture_of_a_finished_image() {
    use gendash::cmd::PreviewSource;
    use gendash::msg::PreviewReport;
    use gendash::picture::{Graphics, Picture, PreviewView};
    let mut s = loaded(
        140,
        45,
        vec![
            task("pic-done", TaskKind::Image),
            task("clip-done", TaskKind::Video),
        ],
    );
    poll(
        &mut s,
        "clip-done",
        TaskKind::Video,
        Ok(result("clip-done", "COMPLETED", 100)),
    );
    // The selected task finishes: its picture is asked for.
    let cmds = s.apply(Msg::Polled {
        key: TaskKey::new(TaskKind::Image, "pic-done"),
        result: Ok(result("pic-done", "COMPLETED", 100)),
        retry_in: None,
        next: None,
    });
    s.update(Action::FocusNext);
    let Some(Cmd::Preview(request)) = cmds.iter().find(|c| matches!(c, Cmd::Preview(_))) else {
        panic!("the selected finished task's picture is asked for: {cmds:?}")
    };
    assert_eq!(
        request.source,
        PreviewSource::Url("http://127.0.0.1:8787/files/pic-done.png".into())
    );
    let area = s.areas.watch_preview;
    assert_eq!(request.area, area.as_size());
    let image = gendash::picture::decode::encode(
        &preview::decoded(&preview::quadrants(32, 32)),
        &Graphics::halfblocks(),
        area.as_size(),
        1,
    )
    .unwrap();
    s.apply(Msg::Preview(PreviewReport {
        key: request.key.clone(),
        area: request.area,
        result: Ok(Picture::Image(image)),
    }));
    assert!(matches!(s.preview.view(), Some(PreviewView::Ready(_))));
    let t = draw(&s);
    insta::assert_snapshot!(t.backend());
    let top_left = &t.backend().buffer()[(area.x + 1, area.y + 1)];
    assert_eq!(
        top_left.fg,
        ratatui::style::Color::Rgb(255, 0, 0),
        "the red quadrant"
    );

    let cmds = s.update(Action::Down);
    let Some(Cmd::Preview(request)) = cmds.iter().find(|c| matches!(c, Cmd::Preview(_))) else {
        panic!("the video's file is asked about too: {cmds:?}")
    };
    s.apply(Msg::Preview(PreviewReport {
        key: request.key.clone(),
        area: request.area,
        result: Ok(Picture::Video(gendash::picture::video::VideoPreview {
            bytes: Some(3_900),
            duration: None,
            frame: gendash::picture::video::Frame::Missing(
                gendash::picture::video::VideoFrameError::NoFfmpeg.to_string(),
            ),
        })),
    }));
    let text = crate::common::rendered_text(&s, 140, 45);
    assert!(
        text.contains("preview   video · 3.9 kB: no ffmpeg on PATH: install ffmpeg"),
        "{text}"
    );
}

fn record(secs: u64, url: &str, status: Option<u16>, error: Option<&str>) -> RequestRecord {
    RequestRecord {
        at: std::time::UNIX_EPOCH + std::time::Duration::from_secs(NOW + secs),
        method: if url.contains("/files/") {
            "GET"
        } else {
            "POST"
        },
        url: url.to_string(),
        authorized: !url.contains("cdn"),
        status,
        error: error.map(str::to_string),
        duration: std::time::Duration::from_millis(secs * 37 % 1_900),
        bytes: secs * 1_234,
        output: None,
    }
}

/// `L`: the log over the panes, the status bar and the log's keys below it; `y` copies the
/// selected request as curl, `k` moves to an older one.
#[test]
fn request_log() {
    let mut s = watching();
    s.update(Action::Resize {
        width: 120,
        height: 20,
    });
    let base = "http://127.0.0.1:8787";
    s.apply(Msg::Request(record(
        1,
        &format!("{base}/lora/?type=sd"),
        Some(200),
        None,
    )));
    s.apply(Msg::Request(record(
        3,
        &format!("{base}/ai/image_generation/render-001"),
        Some(200),
        None,
    )));
    s.apply(Msg::Request(record(
        4,
        &format!("{base}/ai/image_generation/render-004"),
        Some(502),
        None,
    )));
    s.apply(Msg::Request(record(
        9,
        "https://cdn.example/files/clip-002.mp4",
        None,
        Some("connection to https://cdn.example timed out"),
    )));
    s.update(Action::ToggleRequests);
    insta::assert_snapshot!(draw(&s).backend());

    let cmds = s.update(Action::CopyCurl);
    assert_eq!(
        cmds,
        vec![Cmd::Copy(gendash::cmd::Clip::new(
            "curl https://cdn.example/files/clip-002.mp4",
            "request as a curl command"
        ))]
    );
    s.update(Action::Up);
    let cmds = s.update(Action::CopyCurl);
    assert_eq!(
        cmds,
        vec![Cmd::Copy(gendash::cmd::Clip::new(
            format!(
                "curl -X POST -H \"Authorization: Bearer $GENDASH_TOKEN\" {base}/ai/image_generation/render-004"
            ),
            "request as a curl command"
        ))]
    );
    // Records that arrive while the selection is on an older one leave it there.
    s.apply(Msg::Request(record(
        12,
        &format!("{base}/ai/image_generation/render-001"),
        Some(200),
        None,
    )));
    assert_eq!(s.requests.selected().map(|r| r.status), Some(Some(502)));
    s.update(Action::ToggleRequests);
    assert!(s.popup.is_none());
}

/// The status bar at 80 columns says a thousand tasks and each state's count grouped alike:
/// `1,000 tasks (1,000 running)`, not `(1000 running)`.
#[test]
fn the_status_bar_groups_its_bracketed_counts() {
    let tasks: Vec<WatchEntry> = (0..1000)
        .map(|i| {
            let mut e = task(&format!("r-{i:04}"), TaskKind::Image);
            e.last = Some(gendash::store::watchlist::LastKnown {
                status: "IN_PROGRESS".into(),
                percent: 10,
                updated_at: NOW - 5,
                ..Default::default()
            });
            e
        })
        .collect();
    let s = loaded(80, 24, tasks);
    let text = crate::common::rendered_text(&s, 80, 24);
    let bar: String = text.chars().skip(80 * 22).take(80).collect();
    assert!(bar.contains("1,000 tasks (1,000 "), "{bar}");
}
