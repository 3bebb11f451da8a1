//! The palette as users meet it: the real binary in a pseudo-terminal against the reference
//! service, `:` opens it, part of an action's name finds the action with its key as `[keys]`
//! binds it, Enter runs it in the browser beneath.

use crate::common::Served;
use crate::common::pty::{Session, command};
use std::time::Duration;

#[test]
fn colon_then_part_of_a_name_then_enter_runs_the_action_in_the_browser() {
    let setup = Served::new();
    setup.config("[keys]\ntype = \"ctrl-t\"\n");
    let mut s = Session::spawn(command(setup.home.path(), &[], &setup.env()), 120, 36);
    s.wait_text("320/320");
    s.wait_text("type all");

    s.send(":");
    s.wait_text("Actions");
    s.type_text("typ");
    // The action, with the key `[keys]` gave it, first among the matches.
    s.wait_for("the type action picked", Duration::from_secs(10), |t| {
        let mut rows = t.lines().skip_while(|l| !l.contains("> typ"));
        rows.nth(1)
            .is_some_and(|l| l.contains("^T") && l.contains(" type ") && l.contains("all → sd"))
    });
    s.send("\r");
    s.wait_for("the type changed", Duration::from_secs(10), |t| {
        t.contains("type sd") && !t.contains("Actions")
    });

    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
}
