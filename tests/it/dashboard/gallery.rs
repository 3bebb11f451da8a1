//! The gallery (`P`) in the real binary against the reference service: a sixel terminal gets
//! its tiles as sixel pictures (made once, kept beside the previews); a silent terminal in
//! tmux gets half-block tiles, and a key is answered while a tile's picture is still coming.

use crate::common::pty::{Answers, Session, command};
use crate::common::{self, Served};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const CONFIG: &str = "poll_interval = 0.2\nbell = false\ndesktop_notifications = false\n";

/// The thumbnails kept under `home` (beside the preview cache).
fn thumbnails(home: &Path) -> Vec<PathBuf> {
    common::files_under(home)
        .into_iter()
        .filter(|p| {
            p.parent().is_some_and(|d| d.ends_with("thumbnails"))
                && p.extension().is_some_and(|e| e == "png")
        })
        .collect()
}

fn count(raw: &[u8], what: &[u8]) -> usize {
    raw.windows(what.len()).filter(|w| *w == what).count()
}

fn done(s: &Session, ids: &[&str]) {
    s.wait_for("every task to complete", Duration::from_secs(30), |t| {
        ids.iter()
            .all(|id| t.lines().any(|l| l.contains(id) && l.contains("COMPLETED")))
    });
}

#[test]
fn a_sixel_terminal_gets_its_tiles_as_sixel_pictures_made_once() {
    let ids = ["sim-1-a", "sim-1-b", "sim-1-c"];
    let served = Served::with(CONFIG, &ids);
    let mut s = Session::spawn_answering(
        command(served.path(), &[], &served.env()),
        80,
        24,
        Answers::Sixel,
    );
    done(&s, &ids);
    s.send("\t");
    s.send("P");
    s.wait_text("Gallery · 3 results");
    let opened = s.raw().len();
    s.wait_for("three thumbnails kept", Duration::from_secs(20), |_| {
        thumbnails(served.path()).len() == 3
    });
    // Each tile is a sixel picture: DCS … q (after the preview's own).
    let until = Instant::now() + Duration::from_secs(10);
    while count(&s.raw()[opened..], b"\x1bP") < 3 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    let raw = s.raw();
    assert!(
        count(&raw[opened..], b"\x1bP") >= 3,
        "sixel pictures for the tiles: {}",
        count(&raw[opened..], b"\x1bP")
    );
    let kept: Vec<_> = thumbnails(served.path())
        .iter()
        .map(|p| std::fs::metadata(p).and_then(|m| m.modified()).unwrap())
        .collect();
    // Back to the list and to the gallery again: read from the disk, not made again; the
    // file each was made from was fetched once (the preview's fetch of it included).
    s.send("P");
    s.wait_for("the list", Duration::from_secs(10), |t| {
        !t.contains("Gallery ·")
    });
    s.send("P");
    s.wait_text("Gallery · 3 results");
    std::thread::sleep(Duration::from_millis(500));
    let again: Vec<_> = thumbnails(served.path())
        .iter()
        .map(|p| std::fs::metadata(p).and_then(|m| m.modified()).unwrap())
        .collect();
    assert_eq!(kept, again, "the thumbnails were not made again");
    let asked = served.svc.file_requests();
    for id in ids {
        let name = format!("{id}.png");
        let fetched = asked
            .iter()
            .filter(|r| r.name == name && r.method == "GET")
            .count();
        assert_eq!(fetched, 1, "{name} fetched {fetched} times");
    }
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
}

#[test]
fn a_silent_terminal_in_tmux_gets_half_blocks_and_a_key_is_answered_while_they_come() {
    // The first tile's file takes 4 s to serve.
    let ids = ["sim-1-pic-slowfile4000-a", "sim-1-b", "sim-1-c", "sim-1-d"];
    let served = Served::with(CONFIG, &ids);
    let mut env = served.env().to_vec();
    env.push(("TMUX", "/tmp/tmux-1000/default,1,0"));
    env.push(("TERM", "screen-256color"));
    let mut s =
        Session::spawn_answering(command(served.path(), &[], &env), 220, 50, Answers::Never);
    done(&s, &ids);
    s.send("\t");
    s.send("P");
    s.wait_text("Gallery · 4 results");
    // Half-blocks in the tiles' rows (above the first row of captions), not the detail's.
    s.wait_for("half-block tiles", Duration::from_secs(20), |t| {
        let lines: Vec<&str> = t.lines().collect();
        lines
            .iter()
            .position(|l| l.contains("sim-1-b"))
            .is_some_and(|captions| {
                lines[..captions]
                    .iter()
                    .rev()
                    .take(12)
                    .any(|l| l.contains('▀') || l.contains('▄'))
            })
    });
    assert!(
        s.contents().contains("loading…") && thumbnails(served.path()).len() < 4,
        "the slow file's tile is still coming: {}",
        s.contents()
    );
    // A key while it comes: the help opens at once, before the slow tile's thumbnail is made.
    let asked = Instant::now();
    s.send("?");
    s.wait_for("the help", Duration::from_secs(3), |t| {
        t.contains("show this help")
    });
    let answered = asked.elapsed();
    eprintln!("a key while thumbnails load was answered in {answered:?}");
    assert!(
        thumbnails(served.path()).len() < 4,
        "the key was answered before the slow tile came"
    );
    s.send("\x1b");
    s.wait_for("the slow tile's picture", Duration::from_secs(20), |t| {
        !t.contains("loading…")
    });
    assert_eq!(thumbnails(served.path()).len(), 4);
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
}

/// Plain mode's `gallery`: the same tiles as text, one a line: ID (and label), what it is, the
/// file (saved, with its size, or the URL it would come from).
#[test]
fn plain_gallery_lists_the_tiles_as_text() {
    let served = Served::with(common::QUICK_TO_DL, &["demo-image-done", "sim-1-x"]);
    let s = &mut Session::spawn(command(served.path(), &["--plain"], &served.env()), 160, 40);
    let text = |s: &Session| String::from_utf8_lossy(&s.raw()).replace("\r\n", "\n");
    let wait = |s: &Session, what: &str| {
        let until = Instant::now() + Duration::from_secs(20);
        while !text(s).contains(what) {
            assert!(Instant::now() < until, "no {what:?} in:\n{}", text(s));
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    wait(s, "sim-1-x completed 100%");
    wait(s, "demo-image-done completed 100%");
    s.send("download demo-image-done\r");
    wait(s, "demo-image-done saved ~/dl/demo-image-done.png\n");
    s.send("gallery\r");
    let size = std::fs::metadata(served.path().join("dl/demo-image-done.png"))
        .map(|m| gendash::fmt::human_bytes(m.len()))
        .unwrap();
    wait(
        s,
        &format!("demo-image-done · image · done · ~/dl/demo-image-done.png · {size}\n"),
    );
    wait(
        s,
        &format!(
            "sim-1-x · image · done · not saved · {}files/sim-1-x.png\n",
            served.base
        ),
    );
    // The list's filter is the gallery's.
    s.send("filter sim\r");
    wait(s, "filter \"sim\"");
    let from = text(s).len();
    s.send("gallery\r");
    wait(s, "sim-1-x · image · done · not saved");
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !text(s)[from..].contains("demo-image-done ·"),
        "{}",
        &text(s)[from..]
    );
    s.send("quit\r");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
}
