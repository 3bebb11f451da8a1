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
mod help;
mod looks;
mod model_picture;
mod news;
mod own_actions;
mod palette;
mod preview;
mod prompt_marks;
mod request_log;
mod saved_views;
mod sizes;
mod themes;
mod video;
mod watch_pane;

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
