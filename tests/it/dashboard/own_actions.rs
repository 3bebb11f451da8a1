//! The user's own actions as users meet them: the real binary in a pseudo-terminal against the
//! reference service, an `[[actions]]` entry on a key `[keys]` freed (`e`, the label's, moved
//! to ctrl-e), pressed on a finished task: the program's file is on disk and its exit status
//! and last line on the status bar; the palette lists it with its key and command line and
//! Enter runs it again.

use crate::common::{self, Served};
use common::pty::{Session, command};
use std::time::Duration;

const TASK: &str = "demo-image-done";

#[test]
fn the_key_runs_the_program_and_its_exit_is_told_and_the_palette_runs_it_again() {
    let setup = Served::new();
    let stamped = setup.path().join(format!("stamped-{TASK}.txt"));
    let out = setup.path().join("stamped-{task_id}.txt");
    setup.config(&format!(
        "{}[keys]\nlabel = \"ctrl-e\"\n\n[[actions]]\nname = \"stamp\"\nkey = \"e\"\n\
         scope = \"watch\"\ncommand = [\"sh\", \"-c\", \"echo \\\"$1 done\\\" >> \\\"$0\\\"; echo wrote \\\"$1\\\"\", \"{}\", \"{{task_id}}\"]\n",
        common::QUICK_TO_DL,
        out.display()
    ));
    setup.watch_add(&[TASK]);
    let mut s = Session::spawn(command(setup.home.path(), &[], &setup.env()), 150, 40);
    s.wait_for("the task to complete", Duration::from_secs(20), |t| {
        t.lines()
            .any(|l| l.contains(TASK) && l.contains("COMPLETED"))
    });
    s.send("\t");
    s.send("e");
    s.wait_text(&format!("stamp on {TASK}: exit 0 · wrote {TASK}"));
    assert_eq!(
        std::fs::read_to_string(&stamped).expect("the program wrote"),
        format!("{TASK} done\n")
    );

    s.send(":");
    s.wait_text("Actions");
    s.type_text("stamp");
    s.wait_for("the action listed", Duration::from_secs(10), |t| {
        let mut rows = t.lines().skip_while(|l| !l.contains("> stamp"));
        rows.nth(1)
            .is_some_and(|l| l.contains("│e stamp") && l.contains("sh -c echo"))
    });
    s.send("\r");
    s.wait_for("the second run", Duration::from_secs(10), |_| {
        std::fs::read_to_string(&stamped).is_ok_and(|t| t.lines().count() == 2)
    });
    s.wait_text(&format!("stamp on {TASK}: exit 0"));
    // The request log: the run's row, newest first, with what the program wrote.
    s.send("L");
    s.wait_text(&format!("output: wrote {TASK}"));
    s.send("\x1b");
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
}
