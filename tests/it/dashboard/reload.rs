//! The config reloaded as users meet it: the real binary in a pseudo-terminal against the
//! reference service, its config file edited while it runs, then `SIGHUP`, the terminal's
//! focus coming back (`ESC [ I`), or plain mode's `reload`. The new keys work, the status bar
//! says what changed; a file that does not read leaves the keys in force and names its line.

use crate::common::Served;
use crate::common::pty::{Session, command};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use std::time::Duration;

/// The palette test's start: `type` on Ctrl-T, the catalogue on screen.
fn dashboard(setup: &Served) -> Session {
    setup.config("[keys]\ntype = \"ctrl-t\"\n");
    let s = Session::spawn(command(setup.path(), &[], &setup.env()), 120, 36);
    s.wait_text("320/320");
    s.wait_text("type all");
    s
}

fn hang_up(s: &Session) {
    kill(Pid::from_raw(s.pid()), Signal::SIGHUP).unwrap();
}

/// Focus reports were asked for while it ran and are off after it: the last switch is `ESC
/// [ ? 1004 l`.
fn assert_focus_reports_off(s: &Session) {
    let raw = String::from_utf8_lossy(&s.raw()).into_owned();
    let on = raw.rfind("\x1b[?1004h").expect("focus reports asked for");
    let off = raw.rfind("\x1b[?1004l").expect("focus reports turned off");
    assert!(on < off, "the last switch turns focus reports off");
}

#[test]
fn sighup_reads_the_edited_config_and_the_new_key_works() {
    let setup = Served::new();
    let mut s = dashboard(&setup);
    setup.config("notify = \"off\"\n[keys]\ntype = \"ctrl-y\"\n");
    hang_up(&s);
    s.wait_text("config reloaded: keys, notify");
    // The old key does nothing any more; the new one cycles the type.
    s.send("\x14");
    s.send("\x19");
    s.wait_text("type sd");
    // Still running after the signal: the quit key ends it as ever.
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
    assert_focus_reports_off(&s);
}

#[test]
fn the_focus_coming_back_reads_the_file_only_once_it_changed() {
    let setup = Served::new();
    let mut s = dashboard(&setup);
    // Unchanged: nothing is read, nothing said (the key after it shows it was handled).
    s.send("\x1b[I");
    s.send("\x14");
    s.wait_text("type sd");
    assert!(!s.contents().contains("config"), "{}", s.contents());
    setup.config("[keys]\ntype = \"ctrl-y\"\n[styles]\ntitle = \"magenta\"\n");
    s.send("\x1b[O");
    s.send("\x1b[I");
    s.wait_text("config reloaded: keys, styles");
    s.send("\x19");
    s.wait_text("type sdxl");
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
    assert_focus_reports_off(&s);
}

#[test]
fn a_file_that_does_not_read_keeps_the_keys_and_names_its_line() {
    let setup = Served::new();
    let mut s = dashboard(&setup);
    setup.config("\n\npoll_interval = \"often\"\n[keys]\ntype = \"ctrl-y\"\n");
    hang_up(&s);
    s.wait_for("the refusal", Duration::from_secs(20), |t| {
        t.contains("config not reloaded") && t.contains("config.toml line 3, key `poll_interval`")
    });
    // The keys in force are the running config's.
    s.send("\x19");
    s.send("\x14");
    s.wait_text("type sd");
    // The request log keeps it.
    s.send("L");
    s.wait_for("the log's line", Duration::from_secs(10), |t| {
        t.lines()
            .any(|l| l.contains("CONFIG") && l.contains("config.toml"))
    });
    s.send("q");
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
}

#[test]
fn plain_mode_reloads_on_sighup_and_on_its_reload_command() {
    let setup = Served::new();
    setup.config("notify = \"each\"\n");
    let mut s = Session::spawn(command(setup.path(), &["--plain"], &setup.env()), 120, 40);
    s.wait_text("type help for the commands");
    setup.config("notify = \"failures\"\n");
    hang_up(&s);
    s.wait_text("config reloaded: notify");
    s.send("reload\r");
    s.wait_text("config unchanged");
    s.send("quit\r");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
}
