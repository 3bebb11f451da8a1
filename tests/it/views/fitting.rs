//! No text is cut without `…`, at any width: every pane and popup, and the archive view, drawn
//! at widths 1 to 220 with texts far longer than any row, and each cut piece of them checked
//! for its mark. And the status bar's notice keeps its subject, and counts agree with their
//! nouns.

use super::{NOW, entry, loaded, poll, task};
use crate::common;
use gendash::api::{Catalogue, TaskKind};
use gendash::app::action::Action;
use gendash::app::layout::centered;
use gendash::app::state::{Confirm, Notice, Popup, State, Then};
use gendash::cmd::TaskKey;
use gendash::msg::{ArchiveReport, Msg};
use gendash::store::archive::ArchivedTask;
use gendash::store::watchlist::LastKnown;
use ratatui::layout::Rect;

/// A long text with no space to break at: `body` repeated, then `end`, so any piece of it on
/// screen is known, and whether it is the end.
struct Long {
    body: char,
    end: char,
}

impl Long {
    fn text(&self, n: usize) -> String {
        let mut t: String = std::iter::repeat_n(self.body, n).collect();
        t.push(self.end);
        t
    }
}

const ID: Long = Long {
    body: 'ж',
    end: 'Ж',
};
const LABEL: Long = Long {
    body: 'л',
    end: 'Л',
};
const MODEL: Long = Long {
    body: 'м',
    end: 'М',
};
const NOTICE: Long = Long {
    body: 'н',
    end: 'Н',
};
const ERROR: Long = Long {
    body: 'ф',
    end: 'Ф',
};
const URL: Long = Long {
    body: 'у',
    end: 'У',
};

/// The dashboard holding a long task ID with a long label, a long model name, a long notice
/// and a long last error.
fn crowded() -> State {
    let id = ID.text(70);
    let mut long = task(&id, TaskKind::Image);
    long.label = Some(LABEL.text(60));
    let mut s = loaded(150, 40, vec![long, task("render-001", TaskKind::Image)]);
    s.apply(Msg::Catalogue {
        generation: s.browser.generation,
        result: Ok(Catalogue {
            entries: vec![
                entry(&MODEL.text(90), "sd", "style"),
                entry("ink_wash", "sd", "style"),
            ],
            skipped: 0,
        }
        .into()),
    });
    poll(
        &mut s,
        &id,
        TaskKind::Image,
        Ok(gendash::testing::task_result(&id, "IN_PROGRESS", 45)),
    );
    s.last_error = Some(ERROR.text(120));
    s.notice = Some(Notice {
        text: NOTICE.text(100),
        until: NOW + 60,
        whole: false,
    });
    s
}

/// The crowded dashboard in the archive view, its one task with a long ID, label and URL.
fn archive() -> State {
    let mut s = crowded();
    let mut long = task(&ID.text(70), TaskKind::Image);
    long.label = Some(LABEL.text(60));
    long.last = Some(LastKnown {
        status: "COMPLETED".into(),
        percent: 100,
        url_download: Some(format!("http://127.0.0.1:8787/files/{}", URL.text(80))),
        updated_at: NOW - 60,
        running_since: Some(NOW - 90),
        finished_at: Some(NOW - 60),
        start_seen: true,
        history: Vec::new(),
        extra: None,
    });
    s.update(Action::ToggleArchive);
    let archived = ArchivedTask {
        id: 1,
        entry: long,
        archived_at: NOW - 30,
    };
    s.apply(Msg::Archive(ArchiveReport::listed(
        vec![archived].into(),
        0,
    )));
    s
}

/// Where a screen's text is: the whole screen, or the popup's rectangle (what it covers is
/// hidden, not cut).
type Region = fn(&State) -> Rect;

/// The screens to check: the panes, the watch pane focused, help, the add dialog with an
/// error, a question, the request log, the archive view.
fn screens() -> Vec<(&'static str, State, Region)> {
    let full: Region = |s| s.areas.full;
    let panes = crowded();
    let mut watch = crowded();
    watch.update(Action::FocusNext);
    let mut help = crowded();
    help.update(Action::ToggleHelp);
    let mut add = crowded();
    add.update(Action::OpenAddDialog);
    add.update(Action::Paste(format!("{} {}", ID.text(200), "a\u{7}b")));
    add.update(Action::Submit);
    let mut confirm = crowded();
    confirm.popup = Some(Popup::Confirm(Confirm {
        question: format!("replace {}?", ID.text(150)),
        then: Then::Replace(TaskKey::new(TaskKind::Image, ID.text(70))),
    }));
    let mut log = crowded();
    log.update(Action::ToggleRequests);
    let mut palette = crowded();
    palette.update(Action::OpenPalette);
    vec![
        ("panes", panes, full),
        ("watch", watch, full),
        ("help", help, |s| s.areas.help),
        ("add", add, |s| centered(s.areas.full, 64, 11)),
        ("confirm", confirm, |s| centered(s.areas.full, 72, 6)),
        ("requests", log, |s| s.areas.requests),
        ("palette", palette, |s| s.areas.help),
        ("archive", archive(), full),
    ]
}

/// Each row's run of a long text's body ends at the text's end, at `…`, or goes on on the next
/// row (wrapped, or `↓ n more rows` there): a run that stops anywhere else was cut without the
/// mark.
fn unmarked_cuts(rows: &[Vec<char>]) -> Vec<String> {
    let mut found = Vec::new();
    for (y, row) in rows.iter().enumerate() {
        for long in [&ID, &LABEL, &MODEL, &NOTICE, &ERROR, &URL] {
            let mut x = 0;
            while x < row.len() {
                if row[x] != long.body {
                    x += 1;
                    continue;
                }
                while x < row.len() && row[x] == long.body {
                    x += 1;
                }
                let next = row.get(x).copied();
                // Wrapped on, or the rows below given up to `↓ n more rows`.
                let wraps = rows
                    .get(y + 1)
                    .is_some_and(|r| [long.body, long.end, '↓'].iter().any(|c| r.contains(c)));
                if next != Some(long.end) && next != Some('…') && !wraps {
                    found.push(format!(
                        "row {y}: {:?} cut before {next:?}",
                        row.iter().collect::<String>()
                    ));
                }
            }
        }
    }
    found
}

#[test]
fn no_text_is_cut_without_the_mark_at_any_width() {
    let mut screens = screens();
    // The screens share the layouts' cache at each size (the panes split alike), so each size
    // is drawn for every screen before the next: screen by screen, every size missed it.
    // One terminal, its buffers resized in place, as in the size sweep (`sizes::drawn_in`), which
    // checks that it draws what a terminal of its own does.
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(0, 0)).expect("a test terminal");
    for height in [12u16, 24, 45] {
        for width in 1..=220u16 {
            for (name, state, region) in &mut screens {
                state.update(Action::Resize { width, height });
                let text = common::buffer_text(super::sizes::drawn_in(
                    &mut terminal,
                    state,
                    width,
                    height,
                ));
                let cells: Vec<char> = text.chars().collect();
                let r = region(state);
                let rows: Vec<Vec<char>> = cells
                    .chunks(usize::from(width))
                    .skip(usize::from(r.y))
                    .take(usize::from(r.height))
                    .map(|row| row[usize::from(r.x)..usize::from(r.right())].to_vec())
                    .collect();
                let cuts = unmarked_cuts(&rows);
                assert!(
                    cuts.is_empty(),
                    "{name} at {width}x{height}: {cuts:#?}\n{}",
                    rows.iter()
                        .map(|r| r.iter().collect::<String>())
                        .collect::<Vec<_>>()
                        .join("\n")
                );
            }
        }
    }
}

/// The status bar's notice keeps its subject, its first words: where the bar is too narrow for
/// everything, the service's address and health give way first, then the notice is cut at its
/// end. Counts agree with their nouns (`1 model`, never `1 models`).
#[test]
fn the_notice_keeps_its_subject_and_counts_their_number() {
    let mut s = loaded(150, 20, vec![task("w-1", TaskKind::Image)]);
    s.apply(Msg::Catalogue {
        generation: s.browser.generation,
        result: Ok(Catalogue {
            entries: vec![entry("ink_wash", "sd", "style")],
            skipped: 0,
        }
        .into()),
    });
    s.last_error = Some("HTTP 502: Bad Gateway from the service's gateway".into());
    let notice = "removed sim-3 from the watch list (u undoes)";
    s.notice = Some(Notice {
        text: notice.into(),
        until: NOW + 60,
        whole: false,
    });
    for width in 20..=220u16 {
        s.update(Action::Resize { width, height: 20 });
        let text = common::rendered_text(&s, width, 20);
        let cells: Vec<char> = text.chars().collect();
        let bar: String = cells[usize::from(width) * 18..usize::from(width) * 19]
            .iter()
            .collect();
        let shown = bar.trim_end();
        if gendash::fit::width(notice) + 2 <= usize::from(width) {
            assert!(shown.contains(notice), "{width}: {shown:?}");
        } else {
            assert!(
                shown.starts_with(" removed sim-3") && shown.ends_with('…'),
                "{width}: {shown:?}"
            );
        }
        if width >= 200 {
            assert!(shown.contains("│ 1 model │ 1 task"), "{width}: {shown:?}");
        }
    }
}
