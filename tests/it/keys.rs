//! Keys as the screen names them: every hint, notice, empty state and popup that tells the user
//! which key to press follows `[keys]`. With every action bound to an unusual key, no screen
//! names a default key any more.

use gendash::api::types::default_failure_statuses;
use gendash::api::{ApiError, Catalogue, LoraEntry, TaskKind};
use gendash::app::action::Action;
use gendash::app::state::{Keymap, State, UiSettings};
use gendash::msg::{DownloadEvent, Msg, TaskKey};
use gendash::store::config::{ACTION_NAMES, KeyCombo};
use gendash::store::watchlist::WatchEntry;
use gendash::testing::task_result as result;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};

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
    }
}

fn state(keymap: &Keymap, tasks: &[&str], width: u16, height: u16) -> State {
    let mut s = State::new(
        "http://127.0.0.1:8787/",
        Vec::new(),
        tasks.iter().map(|id| task(id)).collect(),
        default_failure_statuses(),
        UiSettings {
            bell: false,
            desktop_notifications: false,
            no_color: false,
        },
        NOW,
    );
    s.keymap = keymap.clone();
    s.update(Action::Resize { width, height });
    s.start();
    s
}

fn loaded(keymap: &Keymap, tasks: &[&str], width: u16, height: u16, extra: usize) -> State {
    let mut s = state(keymap, tasks, width, height);
    s.apply(Msg::Catalogue {
        generation: s.browser.generation,
        result: Ok(catalogue(extra)),
    });
    s
}

fn poll(s: &mut State, id: &str, r: Result<gendash::api::TaskResult, ApiError>) {
    s.apply(Msg::Polled {
        key: TaskKey::new(TaskKind::Image, id),
        result: r,
        retry_in: None,
    });
}

/// The screen as lines of text.
fn screen(s: &State) -> Vec<String> {
    let a = s.areas.full;
    let mut t = Terminal::new(TestBackend::new(a.width, a.height)).unwrap();
    t.draw(|f| {
        gendash::ui::render(s, f);
    })
    .unwrap();
    let buf = t.backend().buffer();
    (0..a.height)
        .map(|y| (0..a.width).map(|x| buf[(x, y)].symbol()).collect())
        .collect()
}

/// Every action bound to a key no default uses: `alt-a`, `alt-b`, …, then function keys.
fn rebound_everything() -> Keymap {
    let pool = "abcdefghijklmnopqrstuvwxyz0123456789"
        .chars()
        .map(|c| format!("alt-{c}"))
        .chain((1..=12).map(|n| format!("f{n}")))
        .chain((1..=12).map(|n| format!("ctrl-f{n}")));
    let keys: BTreeMap<String, Vec<KeyCombo>> = ACTION_NAMES
        .iter()
        .zip(pool)
        .map(|(name, key)| ((*name).to_string(), vec![key.parse().unwrap()]))
        .collect();
    assert_eq!(keys.len(), ACTION_NAMES.len(), "a key for every action");
    Keymap::configured(&keys).unwrap()
}

/// How the default keymap writes its keys: each label whole (`n/Esc`) and each key of it.
fn default_labels() -> BTreeSet<String> {
    let mut labels = BTreeSet::new();
    for b in Keymap::default().bindings() {
        labels.insert(b.label.to_string());
        if b.label != "/" {
            labels.extend(
                b.label
                    .split('/')
                    .filter(|k| !k.is_empty())
                    .map(str::to_string),
            );
        }
    }
    labels
}

/// The words that follow a key where text names one: "u undoes", "/ to filter", "t type",
/// "y replace": a verb, `to`, or an action's hint word.
fn after_a_key(word: &str) -> bool {
    let verb = word.len() > 2 && word.ends_with('s') && word.chars().all(char::is_alphabetic);
    let hint = Keymap::default()
        .bindings()
        .iter()
        .filter_map(|b| b.hint)
        .any(|h| h.split(' ').next() == Some(word));
    verb || hint || word == "to"
}

/// Where a line names a default key: the key as a word of its own, followed by what it does.
/// Keys of more than one character (`Esc`, `PgUp`, `^U`) count wherever they stand alone.
fn default_keys_named(line: &str, labels: &BTreeSet<String>) -> Vec<String> {
    let trim = |w: &str| -> String {
        if w.chars().count() == 1 {
            return w.to_string();
        }
        w.trim_matches(|c| matches!(c, '(' | ')' | ',' | '.' | ';' | ':' | '·' | '…'))
            .to_string()
    };
    // Box-drawing characters (pane borders) separate words like spaces.
    let line: String = line
        .chars()
        .map(|c| {
            if ('\u{2500}'..='\u{257f}').contains(&c) {
                ' '
            } else {
                c
            }
        })
        .collect();
    let words: Vec<String> = line.split_whitespace().map(trim).collect();
    let mut found = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if !labels.contains(w) {
            continue;
        }
        let next = words.get(i + 1).map_or("", String::as_str);
        if w.chars().count() > 1 || after_a_key(next) {
            found.push(format!("`{w} {next}`"));
        }
    }
    found
}

/// Every screen and state that names a key, with `keymap` in force: `(what, its lines)`.
// A list of scenes: splitting it would only scatter them.
#[allow(clippy::too_many_lines)]
fn scenes(keymap: &Keymap) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut shot = |what: &str, s: &State| out.push((what.to_string(), screen(s)));

    // The browser: the filter line's hint, the empty states, favourites, the category field.
    // Wide enough for the status bar's notices.
    let mut s = loaded(keymap, &[], 220, 30, 0);
    shot("browser", &s);
    s.update(Action::OnlyFavourites);
    shot("only favourites, none yet", &s);
    s.update(Action::OnlyFavourites);
    s.update(Action::EditCategory);
    shot("category field", &s);
    s.update(Action::Cancel);
    let mut failed = state(keymap, &[], 220, 30);
    failed.apply(Msg::Catalogue {
        generation: failed.browser.generation,
        result: Err(ApiError::Http {
            status: 500,
            excerpt: "boom".into(),
            retry_after: None,
        }),
    });
    shot("catalogue failed", &failed);
    // A detail with more fields than rows says so and names the zoom key.
    let mut long = loaded(keymap, &[], 80, 24, 30);
    shot("browser detail cut short", &long);
    long.update(Action::Zoom);
    shot("browser zoomed", &long);

    // The watch list, empty: how to add, and the notice of a key about no task.
    let mut empty = loaded(keymap, &[], 220, 30, 0);
    empty.update(Action::FocusNext);
    shot("empty watch list", &empty);
    empty.update(Action::Download);
    shot("download with no task", &empty);

    // Tasks: not found, an error with no retry planned, auto-download, a filter, a removal.
    let mut w = loaded(keymap, &["gone-1", "err-2", "run-3", "done-4"], 220, 45, 0);
    w.update(Action::FocusNext);
    w.watch.auto_download = true;
    poll(
        &mut w,
        "gone-1",
        Err(ApiError::Lookup {
            description: "task not found".into(),
        }),
    );
    poll(
        &mut w,
        "err-2",
        Err(ApiError::Http {
            status: 503,
            excerpt: "busy".into(),
            retry_after: None,
        }),
    );
    poll(&mut w, "run-3", Ok(result("run-3", "IN_PROGRESS", 40)));
    poll(&mut w, "done-4", Ok(result("done-4", "COMPLETED", 100)));
    shot("watch list, first task", &w);
    w.update(Action::Down);
    shot("watch list, erroring task", &w);
    w.update(Action::Down);
    shot("watch list, auto-download on", &w);
    w.update(Action::Down);
    // A file already there: the question, then the row after keeping it.
    w.apply(Msg::Download {
        key: TaskKey::new(TaskKind::Image, "done-4"),
        event: DownloadEvent::Exists("/dl/done-4.png".into()),
    });
    shot("overwrite question", &w);
    w.update(Action::Cancel);
    shot("file kept", &w);
    w.update(Action::RemoveCompleted);
    shot("remove completed question", &w);
    w.update(Action::Cancel);
    w.update(Action::Top);
    w.update(Action::Remove);
    shot("removed", &w);
    w.update(Action::FocusFilter);
    for c in "zzz".chars() {
        w.update(Action::Type(c));
    }
    shot("watch filter typed", &w);
    w.update(Action::Submit);
    shot("watch filter matching nothing", &w);

    // Popups: the add dialog, the help from top to end and searched, the request log.
    w.update(Action::OpenAddDialog);
    shot("add dialog", &w);
    w.update(Action::Cancel);
    w.update(Action::ToggleHelp);
    for step in 0..60 {
        shot(&format!("help, {step} down"), &w);
        w.update(Action::Down);
    }
    w.update(Action::Search);
    for c in "zoom".chars() {
        w.update(Action::Type(c));
    }
    shot("help searched", &w);
    w.update(Action::Submit);
    w.update(Action::ToggleHelp);
    w.apply(Msg::Request(gendash::api::requests::RequestRecord {
        at: std::time::UNIX_EPOCH + std::time::Duration::from_secs(NOW),
        method: "POST",
        url: "http://127.0.0.1:8787/ai/image_generation/run-3".into(),
        authorized: true,
        status: Some(200),
        error: None,
        duration: std::time::Duration::from_millis(12),
        bytes: 120,
    }));
    w.update(Action::ToggleRequests);
    shot("request log", &w);
    w.update(Action::Search);
    shot("request log searching", &w);
    out
}

/// The scenes do name keys: with the default keymap the check finds them (so it can fail).
#[test]
fn the_default_keys_are_named_on_the_scenes() {
    let labels = default_labels();
    let named: Vec<String> = scenes(&Keymap::default())
        .iter()
        .flat_map(|(_, lines)| lines.iter())
        .flat_map(|l| default_keys_named(l, &labels))
        .collect();
    for expected in [
        "`u undoes`",
        "`a adds`",
        "`R asks`",
        "`r reloads`",
        "`/ to`",
        "`t type`",
        "`f marks`",
        "`Esc/? closes`",
        "`D replaces`",
        "`A turns`",
        "`z zooms`",
        "`y copies`",
    ] {
        assert!(
            named.iter().any(|n| n == expected),
            "{expected} in {named:?}"
        );
    }
}

/// `[keys]` binds every action elsewhere: no screen names a default key any more, and the
/// rebound keys are named instead.
#[test]
fn with_every_action_rebound_no_screen_names_a_default_key() {
    let keymap = rebound_everything();
    let labels = default_labels();
    let scenes = scenes(&keymap);
    let mut wrong = Vec::new();
    for (what, lines) in &scenes {
        for line in lines {
            let named = default_keys_named(line, &labels);
            if !named.is_empty() {
                wrong.push(format!("{what}: {named:?} in {:?}", line.trim()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "default keys named:\n{}",
        wrong.join("\n")
    );
    let all: String = scenes
        .iter()
        .flat_map(|(_, l)| l.iter())
        .cloned()
        .collect::<Vec<_>>()
        .join("\n");
    for said in [
        format!("{} undoes", keymap.key("undo")),
        format!("{} adds task IDs", keymap.key("add")),
        format!("{} asks again", keymap.key("poll_now")),
        format!("{} replaces it", keymap.key("download")),
        format!("{} closes", keymap.key("close_help")),
        format!("{} zooms", keymap.key("zoom")),
    ] {
        assert!(all.contains(&said), "{said:?} is said");
    }
}
