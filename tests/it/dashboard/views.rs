//! Saved views as users meet them: the real binary in a pseudo-terminal against the reference
//! service, with the save-view key rebound. A filter typed and a sort chosen are saved as a
//! view; after a quit and a new start the filter, the sort and the view are back; a view of
//! the config applied by its own key changes the list on screen.

use crate::common::Served;
use crate::common::pty::{Session, command};
use std::time::Duration;

const CONFIG: &str = "[keys]\nsave_view = \"ctrl-s\"\n\n[views.pixels]\npane = \"browser\"\nfilter = \"^pixel\"\nkey = \"ctrl-g\"\n";

#[test]
fn a_saved_view_and_the_sort_come_back_after_a_restart_and_a_views_key_applies_it() {
    let setup = Served::new();
    setup.config(CONFIG);
    let mut s = Session::spawn(command(setup.home.path(), &[], &setup.env()), 120, 36);
    s.wait_text("320/320");

    s.send("/");
    s.type_text("^tilt");
    s.send("\r");
    s.wait_text("6/320");
    s.send("s");
    s.send("s");
    s.wait_text("sorted by downloads ↓");
    s.send("\x13");
    s.wait_text("Save the view of the model browser");
    s.type_text("mine");
    s.send("\r");
    s.wait_text("view mine");
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();

    // A new session: the filter, the sort and the view in use are back.
    let mut s = Session::spawn(command(setup.home.path(), &[], &setup.env()), 120, 36);
    s.wait_for(
        "the view, its filter and sort back",
        Duration::from_secs(20),
        |t| t.contains("view mine") && t.contains("6/320") && t.contains("sorted by downloads ↓"),
    );
    // The config's view by its own key: the list on screen changes.
    s.send("\x07");
    s.wait_for("the pixel models listed", Duration::from_secs(10), |t| {
        t.contains("view pixels")
            && t.contains("4/320")
            && t.contains("pixel_art_xl")
            && !t.contains("tilt_shift")
    });
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
}

/// What plain mode wrote, line ends made `\n`.
fn transcript(s: &Session) -> String {
    String::from_utf8_lossy(&s.raw()).replace("\r\n", "\n")
}

/// Waits until the transcript after byte `from` holds `text`; where it ends.
fn wait_after(s: &Session, from: usize, text: &str) -> usize {
    let start = std::time::Instant::now();
    while start.elapsed() < Duration::from_secs(20) {
        let t = transcript(s);
        if let Some(at) = t.get(from..).and_then(|rest| rest.find(text)) {
            return from + at + text.len();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("timed out waiting for {text:?}:\n{}", transcript(s));
}

#[test]
fn plain_mode_lists_the_views_and_applies_one_by_name() {
    let setup = Served::with(
        "[views.done]\npane = \"watch\"\nfilter = \"done sort:id\"\n",
        &["demo-image-done", "other-1"],
    );
    let mut s = Session::spawn(command(setup.path(), &["--plain"], &setup.env()), 120, 40);
    let at = wait_after(&s, 0, "type help for the commands");
    s.send("views\r");
    let at = wait_after(&s, at, "done · watch · done sort:id (config)");
    s.send("view done\r");
    let at = wait_after(&s, at, "view done: 1 of 2 tasks");
    s.send("list\r");
    let listed = wait_after(&s, at, "demo-image-done");
    assert!(
        !transcript(&s)[at..listed].contains("other-1"),
        "the view's filter lists only the done task"
    );
    s.send("view nope\r");
    wait_after(&s, listed, "no view nope: views lists them");
    s.send("quit\r");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
}
