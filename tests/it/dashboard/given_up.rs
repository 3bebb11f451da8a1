//! Built-in keys a user's `[keys]` took are said on the status bar at start, as the keymap
//! names them (`gendash keys` lists them too).

use crate::common::{
    self,
    pty::{Session, command},
};
use std::time::Duration;

/// The docs' example, `undo = "ctrl-z"`, takes `suspend`'s key: the dashboard starts and its
/// status bar says so at 80 columns, whole.
#[test]
fn a_key_given_up_is_said_at_start() {
    let home = tempfile::tempdir().unwrap();
    common::write_config(home.path(), "[keys]\nundo = \"ctrl-z\"\n");
    let mut s = Session::spawn(command(home.path(), &["--demo"], &[]), 80, 24);
    s.wait_for(
        "the given-up key on the status bar",
        Duration::from_secs(20),
        |t| t.contains("[keys]: ctrl-z is undo's now; suspend has no key left"),
    );
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
}
