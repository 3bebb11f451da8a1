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
