//! Keys rebound in `[keys]`: with every action rebound, no screen (hints, help, popups, notices) names a default key, and the running dashboard names the keys in force.

use super::*;

/// Every action with a key no default uses, as `[keys]` writes it: `alt-a`, `alt-b`, …, then
/// function keys.
pub(in crate::dashboard) fn rebound_pairs() -> Vec<(&'static str, String)> {
    let pool = "abcdefghijklmnopqrstuvwxyz0123456789"
        .chars()
        .map(|c| format!("alt-{c}"))
        .chain((1..=12).map(|n| format!("f{n}")))
        .chain((1..=12).map(|n| format!("ctrl-f{n}")))
        .chain((1..=12).map(|n| format!("alt-f{n}")));
    // `view` names the keys `[views.NAME]` gives, and `[keys]` refuses it.
    let names: Vec<&str> = ACTION_NAMES
        .iter()
        .copied()
        .filter(|n| *n != "view")
        .collect();
    let pairs: Vec<(&str, String)> = names.iter().copied().zip(pool).collect();
    assert_eq!(pairs.len(), names.len(), "a key for every action");
    pairs
}

/// Every action bound to a key no default uses.
fn rebound_everything() -> Keymap {
    let keys: BTreeMap<String, Vec<KeyCombo>> = rebound_pairs()
        .into_iter()
        .map(|(name, key)| (name.to_string(), vec![key.parse().unwrap()]))
        .collect();
    Keymap::configured(&keys).unwrap()
}

/// How the default keymap writes its keys: each label whole (`n/Esc`) and each key of it.
pub(in crate::dashboard) fn default_labels() -> BTreeSet<String> {
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
pub(in crate::dashboard) fn default_keys_named(
    line: &str,
    labels: &BTreeSet<String>,
) -> Vec<String> {
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
    let file_there = || Msg::Download {
        key: TaskKey::new(TaskKind::Image, "done-4"),
        event: DownloadEvent::Exists("/dl/done-4.png".into()),
    };
    w.apply(file_there());
    shot("overwrite question", &w);
    w.update(Action::Cancel);
    shot("file kept", &w);
    // An automatic download that finds a file asks nothing: the row says which key replaces it.
    for r in w
        .watch
        .rows
        .iter_mut()
        .filter(|r| r.entry.task_id == "done-4")
    {
        r.end = gendash::app::watch::End::Ours(gendash::app::watch::Stage::Fetching { hook: None });
    }
    w.apply(file_there());
    shot("file found by an automatic download", &w);
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
    w.apply(Msg::Request(gendash::api::recording::RequestRecord {
        at: std::time::UNIX_EPOCH + std::time::Duration::from_secs(NOW),
        method: "POST",
        url: "http://127.0.0.1:8787/ai/image_generation/run-3".into(),
        authorized: true,
        status: Some(200),
        error: None,
        duration: std::time::Duration::from_millis(12),
        bytes: 120,
        output: None,
    }));
    w.update(Action::ToggleRequests);
    shot("request log", &w);
    w.update(Action::Search);
    shot("request log searching", &w);
    w.update(Action::Cancel);
    // The demo's throwaway token: the line offers the curl command to copy.
    w.requests.demo_token = Some(gendash::api::Secret::new("gd-demo-token"));
    shot("request log, the demo's token", &w);

    // The archive view: its list and detail (a file not saved names the download key), a
    // delete, its filter, and empty (the help over it is the help of the scenes above).
    let mut a = loaded(keymap, &[], 220, 40, 0);
    a.update(Action::FocusNext);
    a.update(Action::ToggleArchive);
    a.apply(Msg::Archive(ArchiveReport::listed(
        vec![
            archived(1, "arch-1", "COMPLETED", 60),
            archived(2, "arch-2", "FAILED", 3_600),
            archived(3, "arch-3", "COMPLETED", 86_400),
        ]
        .into(),
        0,
    )));
    shot("archive", &a);
    a.update(Action::Down);
    shot("archive, a failed task", &a);
    a.update(Action::Remove);
    shot("archive, a task deleted", &a);
    a.update(Action::FocusFilter);
    for c in "zzz".chars() {
        a.update(Action::Type(c));
    }
    shot("archive filter typed", &a);
    a.update(Action::Submit);
    shot("archive filter matching nothing", &a);
    let mut empty = loaded(keymap, &[], 220, 30, 0);
    empty.update(Action::FocusNext);
    empty.update(Action::ToggleArchive);
    empty.apply(Msg::Archive(ArchiveReport::listed(Vec::new().into(), 0)));
    shot("empty archive", &empty);
    out
}

/// The scenes do name keys: with the default keymap the check finds them (so it can fail).
#[test]
fn the_default_keys_are_named_on_the_scenes() {
    let labels = default_labels();
    let named: BTreeSet<String> = scenes(&Keymap::default())
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
        "`D downloads`",
        "`Esc/H/q goes`",
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
        format!("{} undoes", keymap.key(ActionName::Undo)),
        format!("{} adds task IDs", keymap.key(ActionName::Add)),
        format!("{} asks again", keymap.key(ActionName::PollNow)),
        format!("{} replaces it", keymap.key(ActionName::Download)),
        format!(
            "not saved ({} downloads it)",
            keymap.key(ActionName::Download)
        ),
        format!("{} closes", keymap.key(ActionName::CloseHelp)),
        format!("{} zooms", keymap.key(ActionName::Zoom)),
    ] {
        assert!(all.contains(&said), "{said:?} is said");
    }
}

/// The real binary with `[keys]` and a theme from the config file and the demo's tasks: the
/// notices, the empty state, the marks and the zoom follow the rebound keys.
#[test]
fn rebound_keys_are_named_by_the_running_dashboard() {
    use crate::common::pty::{Session, command};
    use std::time::Duration;
    let home = tempfile::tempdir().unwrap();
    crate::common::write_config(
        home.path(),
        "theme = \"light\"\n[keys]\nundo = \"U\"\nclear_filter = \"f2\"\nzoom = \"Z\"\n\
         mark = \"m\"\nremove = \"delete\"\n",
    );
    let mut s = Session::spawn(command(home.path(), &["--demo"], &[]), 150, 40);
    s.wait_text("320/320");
    s.wait_text("demo-video-done");
    s.send("\t");
    s.send("\x1b[3~"); // Delete
    s.wait_text("— U undoes");
    s.send("U");
    s.wait_text("restored");
    s.send("m");
    s.send("m");
    s.wait_text("2 marked");
    s.send("/");
    s.type_text("zzzz");
    s.send("\r");
    s.wait_text("No task matches the filter (F2 clears it).");
    s.send("\x1bOQ"); // F2
    s.wait_for("the filter to go", Duration::from_secs(10), |t| {
        !t.contains("No task matches") && t.contains("2 marked")
    });
    s.send("Z");
    s.wait_for(
        "the watch list over the screen",
        Duration::from_secs(10),
        |t| !t.contains("LoRA models") && t.contains("Watch list"),
    );
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
}
