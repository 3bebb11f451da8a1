//! Keys as the screen names them and as they act: every hint, notice, empty state and popup that
//! tells the user which key to press follows `[keys]` (`rebound`: with every action bound to an
//! unusual key, no screen names a default key any more); Esc, the help's and the request log's
//! search, zoom, marks and undo.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use gendash::api::types::default_failure_statuses;
use gendash::api::{ApiError, Catalogue, LoraEntry, TaskKind};
use gendash::app::action::Action;
use gendash::app::state::{Keymap, Popup, State, UiSettings};
use gendash::cmd::{CatalogueRequest, Cmd, PersistOp, PollCmd, TaskKey};
use gendash::msg::ArchiveReport;
use gendash::msg::{DownloadEvent, Msg};
use gendash::store::archive::ArchivedTask;
use gendash::store::config::ActionName;
use gendash::store::config::{ACTION_NAMES, KeyCombo};
use gendash::store::watchlist::{LastKnown, WatchEntry};
use gendash::testing::task_result as result;
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};

pub(super) mod rebound;

const NOW: u64 = 1_800_000_000;

fn entry(model: &str, cate: &str, extra: usize) -> LoraEntry {
    let mut meta = json!({
        "source": format!("https://lora-hub.example.com/models/{model}"),
        "type": "sd",
        "category": cate,
        "author": "ayaka",
    });
    for i in 0..extra {
        meta[format!("field_{i:02}")] = json!(format!("value number {i}"));
    }
    LoraEntry::new(model, meta.as_object().unwrap())
}

fn catalogue(extra: usize) -> Catalogue {
    Catalogue {
        entries: vec![
            entry("watercolor_v2", "style", extra),
            entry("misty_forest", "background", extra),
        ],
        skipped: 0,
    }
}

fn task(id: &str) -> WatchEntry {
    WatchEntry {
        task_id: id.into(),
        kind: TaskKind::Image,
        added_at: NOW - 95,
        last: None,
        service: None,
        saved: None,
        auto_download: None,
        claimed_by: None,
        polled_by: None,
        label: None,
        seen: None,
        trouble: None,
    }
}

/// A task in the archive, finished `ago` seconds before `NOW`, never saved.
fn archived(id: i64, task_id: &str, status: &str, ago: u64) -> ArchivedTask {
    let finished = NOW - ago;
    ArchivedTask {
        id,
        entry: WatchEntry {
            last: Some(LastKnown {
                status: status.into(),
                percent: 100,
                url_download: Some(format!("http://127.0.0.1:8787/files/{task_id}.png")),
                updated_at: finished,
                running_since: Some(finished - 60),
                finished_at: Some(finished),
                start_seen: true,
                history: Vec::new(),
                extra: None,
            }),
            ..task(task_id)
        },
        archived_at: finished,
    }
}

fn state(keymap: &Keymap, tasks: &[&str], width: u16, height: u16) -> State {
    let mut s = State::new(gendash::app::state::Init {
        service_url: "http://127.0.0.1:8787/".into(),
        categories: Vec::new(),
        watch: tasks.iter().map(|id| task(id)).collect(),
        failure_statuses: default_failure_statuses(),
        settings: UiSettings {
            bell: false,
            desktop_notifications: false,
            no_color: false,
            poll_interval: 2,
        },
        keymap: keymap.clone(),
        now: NOW,
        ..gendash::app::state::Init::default()
    });
    s.update(Action::Resize { width, height });
    s.start();
    s
}

fn loaded(keymap: &Keymap, tasks: &[&str], width: u16, height: u16, extra: usize) -> State {
    let mut s = state(keymap, tasks, width, height);
    s.apply(Msg::Catalogue {
        generation: s.browser.generation,
        result: Ok(catalogue(extra).into()),
    });
    s
}

fn poll(s: &mut State, id: &str, r: Result<gendash::api::TaskResult, ApiError>) {
    s.apply(Msg::Polled {
        key: TaskKey::new(TaskKind::Image, id),
        result: r,
        retry_in: None,
        next: None,
    });
}

/// The screen as lines of text.
fn screen(s: &State) -> Vec<String> {
    let a = s.areas.full;
    let t = crate::common::drawn(s);
    let buf = t.backend().buffer();
    (0..a.height)
        .map(|y| (0..a.width).map(|x| buf[(x, y)].symbol()).collect())
        .collect()
}

/// A key as the dashboard gets it: resolved in the contexts in force, then handed over.
fn press(s: &mut State, code: KeyCode, modifiers: KeyModifiers) -> Vec<Cmd> {
    let key = KeyEvent::new(code, modifiers);
    match s.keymap.resolve(&s.contexts(), &key) {
        Some(action) => s.update(action),
        None => Vec::new(),
    }
}

fn char_key(s: &mut State, c: char) -> Vec<Cmd> {
    let shift = if c.is_uppercase() {
        KeyModifiers::SHIFT
    } else {
        KeyModifiers::NONE
    };
    press(s, KeyCode::Char(c), shift)
}

fn esc(s: &mut State) -> Vec<Cmd> {
    press(s, KeyCode::Esc, KeyModifiers::NONE)
}

fn text(s: &State) -> String {
    screen(s).join("\n")
}

/// Esc means the same in both panes: typing, it leaves the field and the filter stays; in the
/// pane, it clears the filter.
#[test]
fn esc_leaves_the_field_keeping_the_filter_then_clears_it_in_both_panes() {
    let mut s = loaded(&Keymap::default(), &["run-1", "clip-2"], 150, 30, 0);
    // The browser.
    char_key(&mut s, '/');
    for c in "water".chars() {
        char_key(&mut s, c);
    }
    esc(&mut s);
    assert_eq!(s.browser.editing, None, "the field is left");
    assert_eq!(s.browser.query, "water", "the filter stays");
    esc(&mut s);
    assert_eq!(s.browser.query, "", "Esc in the pane clears it");
    // The watch list, the same keys.
    press(&mut s, KeyCode::Tab, KeyModifiers::NONE);
    char_key(&mut s, '/');
    for c in "clip".chars() {
        char_key(&mut s, c);
    }
    esc(&mut s);
    assert!(!s.watch.editing, "the field is left");
    assert_eq!(s.watch.query, "clip", "the filter stays");
    assert_eq!(s.watch.order.len(), 1);
    assert!(text(&s).contains("/clip 1/2"), "{}", text(&s));
    esc(&mut s);
    assert_eq!(s.watch.query, "", "Esc in the pane clears it");
    assert_eq!(s.watch.order.len(), 2);
    // The help says so, for both.
    let help: Vec<String> = s
        .keymap
        .help_lines()
        .iter()
        .map(gendash::app::state::HelpLine::text)
        .collect();
    assert!(
        help.iter()
            .any(|l| l == "Esc leave the field; the filter or the search stays")
    );
    assert!(
        help.iter()
            .filter(|l| l.starts_with("Esc in the pane: clear the filter"))
            .count()
            == 2,
        "{help:?}"
    );
}

/// The help pages (PgUp/PgDn, Home/End) and searches (`/`, then `n` and `N`).
#[test]
fn the_help_pages_and_searches() {
    let mut s = loaded(&Keymap::default(), &[], 60, 20, 0);
    char_key(&mut s, '?');
    let scroll = |s: &State| match s.popup {
        Some(Popup::Help { scroll }) => scroll,
        _ => panic!("the help is open"),
    };
    let page = s.areas.help.height - 2;
    press(&mut s, KeyCode::PageDown, KeyModifiers::NONE);
    assert_eq!(scroll(&s), page);
    press(&mut s, KeyCode::PageUp, KeyModifiers::NONE);
    assert_eq!(scroll(&s), 0);
    char_key(&mut s, 'G');
    let end = scroll(&s);
    assert!(end > page, "{end}");
    assert!(text(&s).contains("↑ more"), "at the end");
    press(&mut s, KeyCode::Home, KeyModifiers::NONE);
    assert_eq!(scroll(&s), 0);
    press(&mut s, KeyCode::End, KeyModifiers::NONE);
    assert_eq!(scroll(&s), end);
    char_key(&mut s, 'g');

    // `/`: each keystroke goes to the first match; Enter keeps it for `n` and `N`.
    char_key(&mut s, '/');
    for c in "favourite".chars() {
        char_key(&mut s, c);
    }
    let lines: Vec<String> = s
        .keymap
        .help_lines()
        .iter()
        .map(gendash::app::state::HelpLine::text)
        .collect();
    let hits: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].to_lowercase().contains("favourite"))
        .collect();
    assert!(hits.len() >= 2, "{hits:?}");
    assert_eq!(s.search.at, Some(hits[0]));
    let shown = text(&s);
    assert!(
        shown.contains(&format!("/favourite▏ · {} matches", hits.len())),
        "{shown}"
    );
    assert!(
        shown.contains("mark or unmark the model as a"),
        "the match is on screen"
    );
    press(&mut s, KeyCode::Enter, KeyModifiers::NONE);
    assert!(!s.search.editing);
    char_key(&mut s, 'n');
    assert_eq!(s.search.at, Some(hits[1]));
    char_key(&mut s, 'N');
    assert_eq!(s.search.at, Some(hits[0]));
    char_key(&mut s, 'N');
    assert_eq!(s.search.at, hits.last().copied(), "round the start");
    // Typed keys went to the search, not to the help's bindings: it is still open.
    assert!(matches!(s.popup, Some(Popup::Help { .. })));
}

/// The request log: `/` selects the first request whose method, status, URL or error holds the
/// text; `n` the next one; its own keys page it.
#[test]
fn the_request_log_searches_and_pages() {
    let mut s = loaded(&Keymap::default(), &[], 120, 20, 0);
    let record = |n: u64, status: Option<u16>, error: Option<&str>| {
        Msg::Request(gendash::api::recording::RequestRecord {
            at: std::time::UNIX_EPOCH + std::time::Duration::from_secs(NOW + n),
            method: "POST",
            url: format!("http://127.0.0.1:8787/ai/image_generation/task-{n}"),
            authorized: true,
            status,
            error: error.map(str::to_string),
            duration: std::time::Duration::from_millis(12),
            bytes: 120,
            output: None,
        })
    };
    for n in 0..40 {
        let status = if n % 10 == 3 { Some(502) } else { Some(200) };
        s.apply(record(n, status, None));
    }
    s.apply(record(40, None, Some("connection refused")));
    char_key(&mut s, 'L');
    assert_eq!(s.requests.cursor.selected, 40, "the newest");
    char_key(&mut s, 'g');
    assert_eq!(s.requests.cursor.selected, 0);
    press(&mut s, KeyCode::PageDown, KeyModifiers::NONE);
    assert_eq!(s.requests.cursor.selected, s.requests.cursor.viewport);
    char_key(&mut s, '/');
    for c in "502".chars() {
        char_key(&mut s, c);
    }
    let selected = |s: &State| s.requests.selected().map(|r| r.url.clone()).unwrap();
    assert!(selected(&s).ends_with("task-13"), "{}", selected(&s));
    assert!(text(&s).contains("/502▏ · 4 matches"), "{}", text(&s));
    press(&mut s, KeyCode::Enter, KeyModifiers::NONE);
    char_key(&mut s, 'n');
    assert!(selected(&s).ends_with("task-23"));
    char_key(&mut s, 'n');
    char_key(&mut s, 'n');
    assert!(selected(&s).ends_with("task-3"), "round the end");
    char_key(&mut s, '/');
    for c in "refused".chars() {
        char_key(&mut s, c);
    }
    assert!(selected(&s).ends_with("task-40"));
    esc(&mut s);
    assert!(
        matches!(s.popup, Some(Popup::Requests)),
        "Esc left the field only"
    );
    esc(&mut s);
    assert!(s.popup.is_none());
}

/// A category that matched nothing leaves the list empty; the picker still offers the
/// categories seen, so the way out is one key away.
#[test]
fn the_category_picker_offers_known_categories_after_an_empty_answer() {
    let mut s = loaded(&Keymap::default(), &[], 120, 24, 0);
    char_key(&mut s, 'c');
    for c in "nomatch".chars() {
        char_key(&mut s, c);
    }
    let cmds = press(&mut s, KeyCode::Enter, KeyModifiers::NONE);
    assert!(
        cmds.iter()
            .any(|c| matches!(c, Cmd::FetchCatalogue(CatalogueRequest { .. }))),
        "{cmds:?}"
    );
    s.apply(Msg::Catalogue {
        generation: s.browser.generation,
        result: Ok(Catalogue {
            entries: Vec::new(),
            skipped: 0,
        }
        .into()),
    });
    assert!(s.browser.entries.is_empty());
    char_key(&mut s, 'c');
    let shown = text(&s);
    assert!(shown.contains("↑/^P ↓/^N: style, background"), "{shown}");
    press(&mut s, KeyCode::Down, KeyModifiers::NONE);
    assert_eq!(s.browser.category_draft, "style");
    press(&mut s, KeyCode::Down, KeyModifiers::NONE);
    assert_eq!(s.browser.category_draft, "background");
}

/// Rows the detail section draws for the selected model: the lines between its title and the
/// pane's bottom border.
fn detail_rows(s: &State) -> Vec<String> {
    let a = s.areas.browser_detail;
    screen(s)[usize::from(a.y + 1)..usize::from(a.bottom())]
        .iter()
        .map(|l| {
            l.chars()
                .skip(usize::from(a.x))
                .take(usize::from(a.width))
                .collect::<String>()
                .trim_matches(|c: char| c == '│' || c.is_whitespace())
                .to_string()
        })
        .collect()
}

/// Every metadata field is shown, or the last row says how many rows are below and which key
/// zooms; zoomed on a tall enough screen, every field is there.
#[test]
fn the_browser_detail_shows_every_field_or_says_how_many_rows_are_below() {
    let extra = 30;
    for (width, height) in [(80, 24), (100, 30), (150, 40)] {
        let s = loaded(&Keymap::default(), &[], width, height, extra);
        let rows = detail_rows(&s);
        let last = rows.last().unwrap();
        let below: usize = last
            .strip_prefix("↓ ")
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{width}x{height}: a mark on the last row: {rows:?}"));
        assert!(last.ends_with("z zooms"), "{last}");
        // The rows shown and those below are all there are: as many as the same width shows
        // zoomed on a screen tall enough for all.
        let mut tall = loaded(&Keymap::default(), &[], width, 200, extra);
        char_key(&mut tall, 'z');
        let all = detail_rows(&tall);
        let count = all.iter().take_while(|r| !r.is_empty()).count();
        assert_eq!(rows.len() - 1 + below, count, "{width}x{height}");
        assert_eq!(rows[..rows.len() - 1], all[..rows.len() - 1]);
    }
    let mut s = loaded(&Keymap::default(), &[], 100, 80, extra);
    char_key(&mut s, 'z');
    let rows = detail_rows(&s);
    assert!(rows.iter().all(|r| !r.starts_with('↓')), "{rows:?}");
    for i in 0..extra {
        let field = format!("field_{i:02} value number {i}");
        assert!(rows.contains(&field), "{field} in {rows:?}");
    }
}

/// `z` zooms the focused pane over the screen and back; at 80x24 the zoomed watch list has
/// room for the task's details.
#[test]
fn zoom_gives_the_focused_pane_the_screen_and_the_task_detail_room() {
    let mut s = loaded(&Keymap::default(), &["done-1", "run-2"], 80, 24, 0);
    poll(&mut s, "done-1", Ok(result("done-1", "COMPLETED", 100)));
    press(&mut s, KeyCode::Tab, KeyModifiers::NONE);
    let before = s.areas;
    assert_eq!(
        before.watch_detail.height, 0,
        "no room for the details at 80x24"
    );
    char_key(&mut s, 'z');
    assert_eq!(s.areas.browser.area(), 0, "the browser gives its room");
    assert_eq!(s.areas.watch.height, 22);
    assert!(
        s.areas.watch_detail.height >= 10,
        "{:?}",
        s.areas.watch_detail
    );
    let shown = text(&s);
    for said in [
        "task      done-1",
        "status    COMPLETED",
        "url       http://127.0.0.1:8787/files/done-1.png",
        "history",
    ] {
        assert!(shown.contains(said), "{said} in\n{shown}");
    }
    assert!(!shown.contains("LoRA models"));
    // Tab while zoomed zooms the other pane; `z` again gives both back.
    press(&mut s, KeyCode::Tab, KeyModifiers::NONE);
    assert_eq!(s.areas.watch.area(), 0);
    assert!(text(&s).contains("LoRA models"));
    char_key(&mut s, 'z');
    assert_eq!(s.areas, before);
}

fn ids(cmds: &[Cmd], pick: impl Fn(&Cmd) -> Option<&TaskKey>) -> Vec<String> {
    cmds.iter().filter_map(pick).map(|k| k.id.clone()).collect()
}

/// `space` marks rows (the title counts them); remove, download and `A` act on every marked
/// row; `C` removes every completed task after one question, and one undo brings them back.
#[test]
fn marked_rows_are_removed_downloaded_and_auto_downloaded_together() {
    let tasks = ["done-1", "run-2", "done-3", "done-4", "run-5"];
    let mut s = loaded(&Keymap::default(), &tasks, 150, 30, 0);
    for id in tasks {
        let status = if id.starts_with("done") {
            "COMPLETED"
        } else {
            "IN_PROGRESS"
        };
        poll(&mut s, id, Ok(result(id, status, 50)));
    }
    press(&mut s, KeyCode::Tab, KeyModifiers::NONE);
    // Marks done-1 and run-2 (space moves down), skips done-3, marks done-4.
    char_key(&mut s, ' ');
    char_key(&mut s, ' ');
    char_key(&mut s, 'j');
    char_key(&mut s, ' ');
    assert!(text(&s).contains("3 marked"), "{}", text(&s));
    let marked_rows: Vec<String> = screen(&s).into_iter().filter(|l| l.contains('✓')).collect();
    assert_eq!(marked_rows.len(), 3, "{marked_rows:?}");

    // D: every marked task with a file; the one without is named.
    let cmds = char_key(&mut s, 'D');
    let fetched = ids(&cmds, |c| match c {
        Cmd::Download(job) => Some(&job.key),
        _ => None,
    });
    assert_eq!(fetched, ["done-1", "done-4"]);
    assert!(
        s.notice
            .as_ref()
            .unwrap()
            .text
            .contains("none yet for run-2"),
        "{:?}",
        s.notice
    );
    // A: on for all three, saved for each.
    let cmds = char_key(&mut s, 'A');
    let saved: Vec<(String, Option<bool>)> = cmds
        .iter()
        .filter_map(|c| match c {
            Cmd::Persist(PersistOp::AutoDownload(k, on)) => Some((k.id.clone(), *on)),
            _ => None,
        })
        .collect();
    assert_eq!(
        saved,
        [
            ("done-1".to_string(), Some(true)),
            ("run-2".to_string(), Some(true)),
            ("done-4".to_string(), Some(true))
        ]
    );
    // d: the three go, in one step of undo.
    let cmds = char_key(&mut s, 'd');
    let gone = ids(&cmds, |c| match c {
        Cmd::Poll(PollCmd::Unwatch(k)) => Some(k),
        _ => None,
    });
    assert_eq!(gone, ["done-1", "run-2", "done-4"]);
    assert!(
        cmds.contains(&Cmd::Persist(PersistOp::Remove(vec![
            TaskKey::new(TaskKind::Image, "done-1"),
            TaskKey::new(TaskKind::Image, "run-2"),
            TaskKey::new(TaskKind::Image, "done-4"),
        ]))),
        "one write for the three"
    );
    assert!(s.watch.marked.is_empty());
    assert_eq!(
        s.notice.as_ref().unwrap().text,
        "removed 3 tasks — u undoes"
    );
    char_key(&mut s, 'u');
    let order: Vec<&str> = s
        .watch
        .rows
        .iter()
        .map(|r| r.entry.task_id.as_str())
        .collect();
    assert_eq!(order, tasks, "each back at its place");

    // C asks once; n keeps them all; y removes every completed one; u brings them back.
    char_key(&mut s, 'C');
    assert!(matches!(s.popup, Some(Popup::RemoveCompleted { count: 3 })));
    assert!(text(&s).contains("remove 3 completed tasks from the watch list? (u undoes)"));
    char_key(&mut s, 'n');
    assert_eq!(s.watch.rows.len(), 5);
    char_key(&mut s, 'C');
    let cmds = char_key(&mut s, 'y');
    let gone = ids(&cmds, |c| match c {
        Cmd::Poll(PollCmd::Unwatch(k)) => Some(k),
        _ => None,
    });
    assert_eq!(gone, ["done-1", "done-3", "done-4"]);
    char_key(&mut s, 'u');
    assert_eq!(s.watch.rows.len(), 5, "one undo brings all three back");
}

/// Undo is a stack: 25 removals, one at a time, come back with 25 undos, the last first.
#[test]
fn undo_is_a_stack_of_at_least_twenty_steps() {
    let tasks: Vec<String> = (0..25).map(|i| format!("t-{i:02}")).collect();
    let refs: Vec<&str> = tasks.iter().map(String::as_str).collect();
    let mut s = loaded(&Keymap::default(), &refs, 150, 40, 0);
    press(&mut s, KeyCode::Tab, KeyModifiers::NONE);
    for _ in 0..25 {
        char_key(&mut s, 'd');
    }
    assert!(s.watch.rows.is_empty());
    for n in 1..=25 {
        char_key(&mut s, 'u');
        assert_eq!(s.watch.rows.len(), n);
    }
    let order: Vec<&str> = s
        .watch
        .rows
        .iter()
        .map(|r| r.entry.task_id.as_str())
        .collect();
    assert_eq!(order, refs);
    char_key(&mut s, 'u');
    assert_eq!(s.notice.as_ref().unwrap().text, "nothing to undo");
}
