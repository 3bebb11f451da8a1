//! The watch pane with new tasks (`●`, `N new`), labels (a column where there is room, else
//! before the info), when the list should be done (`all done ~08:01+`) and a task slower
//! than usual; the label editor.

use super::*;
use gendash::app::state::Pane;
use gendash::store::watchlist::LastKnown;

fn known(status: &str, percent: u8, since: u64, finished: Option<u64>) -> LastKnown {
    LastKnown {
        status: status.into(),
        percent,
        updated_at: NOW - 5,
        running_since: Some(since),
        finished_at: finished,
        start_seen: true,
        ..LastKnown::default()
    }
}

/// Five image tasks that took 1 to 5 minutes, one running for an hour (slower than usual,
/// no ETA since the start), one with an ETA and a label, one finished and new with a label.
fn news(width: u16, height: u16) -> State {
    let mut tasks: Vec<WatchEntry> = (1..=5)
        .map(|n| WatchEntry {
            last: Some(known(
                "COMPLETED",
                100,
                NOW - 4000,
                Some(NOW - 4000 + n * 60),
            )),
            seen: Some(true),
            ..task(&format!("old-{n}"), TaskKind::Image)
        })
        .collect();
    tasks.push(WatchEntry {
        label: Some("sunset v2".into()),
        ..task("render-001", TaskKind::Image)
    });
    tasks.push(WatchEntry {
        label: Some("trailer".into()),
        last: Some(LastKnown {
            url_download: Some("http://127.0.0.1:8787/files/clip-002.mp4".into()),
            ..known("COMPLETED", 100, NOW - 600, Some(NOW - 60))
        }),
        seen: Some(false),
        ..task("clip-002", TaskKind::Video)
    });
    tasks.push(WatchEntry {
        last: Some(known("IN_PROGRESS", 50, NOW - 3600, None)),
        ..task("render-003", TaskKind::Image)
    });
    let mut s = loaded(width, height, tasks);
    for (ago, percent) in [(20, 10), (10, 20), (0, 30)] {
        s.now = NOW - ago;
        poll(
            &mut s,
            "render-001",
            TaskKind::Image,
            Ok(result("render-001", "IN_PROGRESS", percent)),
        );
    }
    s.now = NOW;
    // The slow one selected (not a key: keys look at the selected task).
    s.focus = Pane::Watch;
    s.watch.select(7);
    s
}

#[test]
fn new_tasks_labels_all_done_and_slow_at_80_and_220() {
    for (width, height) in [(80u16, 30u16), (220, 30)] {
        let s = news(width, height);
        let screen = draw(&s);
        let text = crate::common::rendered_text(&s, width, height);
        assert!(text.contains("1 new"), "{text}");
        assert!(text.contains("all done ~08:01+"), "{text}");
        assert!(text.contains("●clip-002"), "{text}");
        assert!(text.contains("slower than usual"), "{text}");
        insta::assert_snapshot!(format!("news_{width}"), screen.backend());
        // The file name stays a link where it is drawn, after the label when that has no
        // column of its own.
        let mut links = Vec::new();
        let mut t = ratatui::Terminal::new(TestBackend::new(width, height)).unwrap();
        t.draw(|f| links = gendash::ui::render(&s, f)).unwrap();
        let buf = t.backend().buffer();
        let link = links
            .iter()
            .find(|l| l.url.ends_with("clip-002.mp4"))
            .unwrap_or_else(|| panic!("no link at {width}: {links:?}"));
        let drawn: String = (link.x..link.x + link.width)
            .map(|x| buf[(x, link.y)].symbol().to_string())
            .collect();
        assert_eq!(drawn, "clip-002.mp4", "at {width}");
    }
}

#[test]
fn label_editor() {
    let mut s = news(80, 24);
    s.update(Action::EditLabel);
    for c in "slow one".chars() {
        s.update(Action::Type(c));
    }
    insta::assert_snapshot!(draw(&s).backend());
}

/// A crowded title keeps the whole list's ETA: the counts give way first, the least urgent
/// first (`…` says so), and every count shown is of tasks counted once.
#[test]
fn a_crowded_title_keeps_all_done_and_drops_counts_first() {
    for width in [56u16, 64, 72] {
        let mut s = news(width, 30);
        order::cycle_sort(&mut s.watch, NOW);
        let text = crate::common::rendered_text(&s, width, 30);
        let at = text
            .find("Watch list")
            .unwrap_or_else(|| panic!("no title at {width}: {text}"));
        let title = text[at..].split('┐').next().unwrap_or_default();
        assert!(title.contains("all done ~08:01+"), "{width}: {title}");
        assert!(title.contains("sort status"), "{width}: {title}");
        assert!(
            title.contains('…') && !title.contains("6 done"),
            "{width}: {title}"
        );
    }
}

/// A file already there when a task's file is fetched by itself is kept, which is no failure:
/// the row says so with the download key as the keymap names it, reason first so it survives
/// 80 columns, and the detail names the file.
#[test]
fn a_file_already_there_is_kept_and_the_row_names_the_key_that_replaces_it() {
    for rebound in [None, Some("f9")] {
        let mut s = news(80, 60);
        if let Some(key) = rebound {
            let mut keys = BTreeMap::new();
            keys.insert("download".to_string(), vec![key.parse().unwrap()]);
            s.keymap = Keymap::configured(&keys).unwrap();
        }
        let row = s
            .watch
            .rows
            .iter()
            .position(|r| r.entry.task_id == "clip-002")
            .unwrap();
        s.watch.rows[row].end =
            gendash::app::watch::End::Ours(gendash::app::watch::Stage::Fetching { hook: None });
        let key = TaskKey::new(TaskKind::Video, "clip-002");
        s.apply(Msg::Download {
            key,
            event: gendash::msg::DownloadEvent::Exists("/home/ann/gen/clip-002.mp4".into()),
        });
        assert!(s.popup.is_none(), "nobody asked for it: no question");
        let at = s.watch.order.iter().position(|&i| i == row).unwrap();
        s.watch.select(at);
        let name = rebound.map_or("D", |_| "F9");
        let chars: Vec<char> = crate::common::rendered_text(&s, 80, 60).chars().collect();
        let lines: Vec<String> = chars.chunks(80).map(|l| l.iter().collect()).collect();
        let line = lines.iter().find(|l| l.contains("clip-002")).unwrap();
        assert!(line.contains(&format!("kept · {name} replaces")), "{line}");
        assert!(!line.contains("failed"), "{line}");
        let text = lines.join("\n");
        assert!(
            text.contains(&format!(
                "kept, {name} replaces it: /home/ann/gen/clip-002.mp4"
            )),
            "{text}"
        );
    }
}

/// A download waiting for the preview's fetch of the same file says so on its row at once.
#[test]
fn a_download_behind_the_preview_says_so_on_its_row() {
    let mut s = news(80, 30);
    s.apply(Msg::Download {
        key: TaskKey::new(TaskKind::Video, "clip-002"),
        event: gendash::msg::DownloadEvent::WaitingForPreview,
    });
    let text = crate::common::rendered_text(&s, 80, 30);
    assert!(text.contains("waits for the preview"), "{text}");
}
