//! The watch pane's reducer: `auto_download`, `A`, favourites and the filter's operators (the
//! overwrite question `D` asks is in `app/confirm_tests.rs`).

use crate::app::test_support::*;
use crate::app::watch::end;

// ---- downloads: auto_download, A ------------------------------------------------------------

/// With `auto_download`, a task's file is fetched once when it completes; never again once
/// saved, also after a restart; a task that completed while gendash was closed is fetched at
/// start; a file already there is not replaced without asking (the row says so).
#[test]
fn auto_download_fetches_each_file_once() {
    let mut s = state();
    s.watch.auto_download = true;
    assert!(
        end::start_downloads(&mut s.watch).cmds.is_empty(),
        "nothing completed yet"
    );
    let cmds = finish(&mut s, "w-1", "COMPLETED", 100, true);
    assert_eq!(
        download_of(&cmds),
        Some(("w-1 COMPLETED".to_string(), false))
    );
    assert!(
        download_of(&finish(&mut s, "w-1", "COMPLETED", 100, true)).is_none(),
        "once"
    );
    let key = TaskKey::new(TaskKind::Image, "w-1");
    s.apply(Msg::Download {
        key: key.clone(),
        event: DownloadEvent::Saved("/dl/w-1.png".into()),
    });

    // The next start: saved files are not fetched again; one that completed meanwhile is.
    let mut saved = s.watch.rows[0].entry.clone();
    saved.saved = Some("/dl/w-1.png".into());
    let mut next = state_with(
        vec![saved, entry("done-2", Some(("COMPLETED", 100)))],
        ui(false, false),
    );
    next.watch.auto_download = true;
    let cmds = end::start_downloads(&mut next.watch).cmds;
    let done_2 = TaskKey::new(TaskKind::Image, "done-2");
    assert_eq!(cmds, [Cmd::Persist(PersistOp::Claim(done_2.clone()))]);
    let cmds = next.apply(Msg::Claimed {
        key: done_2,
        won: true,
    });
    assert_eq!(
        download_of(&cmds),
        Some(("done-2 COMPLETED".to_string(), false))
    );
    // A file already there: no question for a download nobody asked for; the row says it.
    next.apply(Msg::Download {
        key: TaskKey::new(TaskKind::Image, "done-2"),
        event: DownloadEvent::Exists("/dl/done-2.png".into()),
    });
    assert!(next.popup.is_none());
    assert!(matches!(
        &next.watch.rows[1].download,
        Some(DownloadView::Kept(p)) if p == "/dl/done-2.png"
    ));
}

/// `A` turns fetching by itself on or off for one task, saved with the list; turned on for a
/// completed task, it fetches at once.
#[test]
fn a_toggles_auto_download_for_the_selected_task() {
    let mut s = state_with(
        vec![entry("done-1", Some(("COMPLETED", 100)))],
        ui(false, false),
    );
    s.update(Action::FocusNext);
    let key = TaskKey::new(TaskKind::Image, "done-1");
    let cmds = s.update(Action::ToggleAutoDownload);
    assert_eq!(
        cmds[0],
        Cmd::Persist(PersistOp::AutoDownload(key.clone(), Some(true)))
    );
    assert_eq!(
        download_of(&cmds),
        Some(("done-1 COMPLETED".to_string(), false))
    );
    assert_eq!(
        notice(&s),
        Some("done-1: its file is downloaded when it completes")
    );
    let cmds = s.update(Action::ToggleAutoDownload);
    assert_eq!(
        cmds,
        [Cmd::Persist(PersistOp::AutoDownload(key, Some(false)))]
    );
    assert_eq!(notice(&s), Some("done-1: no automatic download"));
}

/// `f` marks the selected model (★, saved for the service), `F` lists favourites only.
#[test]
fn favourites_are_marked_saved_and_listed_alone() {
    let mut s = state();
    let entries = ["ink", "pixel_art", "water"]
        .map(|model| LoraEntry::new(model, &serde_json::Map::new()))
        .to_vec();
    s.apply(catalogue(
        0,
        Ok(Catalogue {
            entries,
            skipped: 0,
        }),
    ));
    s.update(Action::Down);
    let cmds = s.update(Action::ToggleFavourite);
    let expected: std::collections::BTreeSet<String> = ["pixel_art".to_string()].into();
    assert_eq!(cmds, [Cmd::RememberFavourites(expected.clone())]);
    assert_eq!(notice(&s), Some("★ pixel_art"));
    s.update(Action::OnlyFavourites);
    assert!(s.browser.only_favourites);
    assert_eq!(s.browser.matches.len(), 1);
    assert_eq!(
        s.browser.selected_entry().map(LoraEntry::model),
        Some("pixel_art")
    );
    // Unmarked while only favourites show: it leaves the list.
    let cmds = s.update(Action::ToggleFavourite);
    assert_eq!(
        cmds,
        [Cmd::RememberFavourites(std::collections::BTreeSet::new())]
    );
    assert!(s.browser.matches.is_empty());
    s.update(Action::OnlyFavourites);
    assert_eq!(s.browser.matches.len(), 3, "everything again");
    // A reload keeps the marks (they are names, not positions).
    s.browser.favourites = expected;
    s.update(Action::OnlyFavourites);
    let again = ["water", "pixel_art"]
        .map(|model| LoraEntry::new(model, &serde_json::Map::new()))
        .to_vec();
    let g = s.browser.generation;
    s.apply(catalogue(
        g,
        Ok(Catalogue {
            entries: again,
            skipped: 0,
        }),
    ));
    assert_eq!(
        s.browser
            .matches
            .iter()
            .map(|&i| s.browser.entries[i as usize].model())
            .collect::<Vec<_>>(),
        ["pixel_art"]
    );
}

/// A catalogue of three styled models, loaded into `s`.
fn load_three(s: &mut State) {
    let entries = ["water", "pixel_art", "ink"]
        .map(|model| LoraEntry::new(model, &serde_json::Map::new()))
        .to_vec();
    let g = s.browser.generation;
    s.apply(catalogue(
        g,
        Ok(Catalogue {
            entries,
            skipped: 0,
        }),
    ));
}

/// `type:sdxl` typed in the filter reloads exactly as pressing `t` until sdxl does: the same
/// request, the same title, the list loading; the term matches nothing locally.
#[test]
fn type_in_the_filter_reloads_as_the_type_key_does() {
    use crate::api::LoraType;
    let mut by_key = state();
    by_key.start();
    load_three(&mut by_key);
    press(&mut by_key, ch('t'));
    let (_, key_cmds) = press(&mut by_key, ch('t'));
    assert_eq!(fetched(&key_cmds), [(Some(LoraType::Sdxl), None)]);

    let mut by_filter = state();
    by_filter.start();
    load_three(&mut by_filter);
    press(&mut by_filter, ch('/'));
    let mut cmds = Vec::new();
    for c in "type:sdxl".chars() {
        cmds = press(&mut by_filter, ch(c)).1;
        assert!(fetched(&cmds).is_empty(), "not while the term is typed");
    }
    assert_eq!(by_filter.browser.lora_type, None);
    assert!(cmds.is_empty(), "type: alone ranks nothing: {cmds:?}");
    let (_, cmds) = press(&mut by_filter, ch(' '));
    assert_eq!(
        fetched(&cmds),
        fetched(&key_cmds),
        "the space finishes the term"
    );
    assert_eq!(by_filter.browser.lora_type, by_key.browser.lora_type);
    assert_eq!(by_filter.browser.load, by_key.browser.load);
    assert_eq!(
        by_filter.browser.filter_detail.as_deref(),
        Some("type sdxl")
    );
    // Typing on does not fetch again; Enter neither, the term being unchanged.
    assert!(fetched(&press(&mut by_filter, ch('i')).1).is_empty());
    assert!(fetched(&press(&mut by_filter, key(KeyCode::Enter)).1).is_empty());

    // An unfinished term is applied when Enter leaves the field; an invalid one never.
    let mut s = state();
    s.start();
    load_three(&mut s);
    press(&mut s, ch('/'));
    for c in "cate:anime".chars() {
        press(&mut s, ch(c));
    }
    let (_, cmds) = press(&mut s, key(KeyCode::Enter));
    assert_eq!(fetched(&cmds), [(None, Some("anime".into()))]);
    assert_eq!(s.browser.category, "anime");
    press(&mut s, ch('/'));
    for c in " type:xl".chars() {
        press(&mut s, ch(c));
    }
    let (_, cmds) = press(&mut s, key(KeyCode::Esc));
    assert!(fetched(&cmds).is_empty());
    assert_eq!(s.browser.lora_type, None);
    assert_eq!(
        s.browser.filter_detail.as_deref(),
        Some("type:xl is not a type (sd, sdxl or all); ignored · cate anime")
    );
}

/// The detail line comes with operators and goes with them; the list gives it a row.
#[test]
fn the_filter_detail_line_takes_a_row_only_when_shown() {
    let mut s = state();
    s.update(Action::Resize {
        width: 100,
        height: 30,
    });
    s.start();
    load_three(&mut s);
    let rows = s.areas.browser_list.height;
    press(&mut s, ch('/'));
    press(&mut s, ch('p'));
    assert_eq!(s.browser.filter_detail, None, "plain words need no detail");
    assert_eq!(s.areas.browser_list.height, rows);
    press(&mut s, ch('$'));
    assert_eq!(s.browser.filter_detail.as_deref(), Some("name p$"));
    assert_eq!(s.areas.browser_filter_detail.height, 1);
    assert_eq!(s.areas.browser_list.height, rows - 1);
    assert_eq!(s.browser.cursor.viewport, usize::from(rows - 1));
    press(&mut s, key(KeyCode::Backspace));
    assert_eq!(s.areas.browser_list.height, rows);
}

/// The last task's end taken on here waits for its download: `on_all_done` waits too, and
/// comes after that download and its `on_complete` (`Finished`), never before.
#[test]
fn on_all_done_waits_for_the_last_download_and_its_on_complete() {
    let mut s = state();
    s.watch.auto_download = true;
    let cmds = finish_unticked(&mut s, "w-1", "COMPLETED", 100, true);
    assert!(download_of(&cmds).is_some(), "{:?}", kinds(&cmds));
    assert!(
        !kinds(&cmds).contains(&"AllDone"),
        "the run ended, its download still runs: {:?}",
        kinds(&cmds)
    );
    let ticked = s.apply(Msg::Tick(s.now + 3));
    assert!(!kinds(&ticked).contains(&"AllDone"), "{:?}", kinds(&ticked));
    let cmds = s.apply(Msg::Download {
        key: TaskKey::new(TaskKind::Image, "w-1"),
        event: DownloadEvent::Saved("/dl/w-1.png".into()),
    });
    assert_eq!(
        kinds(&cmds),
        ["Persist(Saved)", "Finished", "AllDone"],
        "on_complete first, then on_all_done"
    );
    assert!(
        !kinds(&s.apply(Msg::Tick(s.now + 5))).contains(&"AllDone"),
        "once"
    );
}
