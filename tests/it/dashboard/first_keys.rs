//! The first frame waits for nothing the terminal says, and keys typed right at the start,
//! while the terminal is being asked about graphics, all arrive, in order, and never mixed
//! with its replies.

use crate::common::pty::{Answers, Session, command};
use std::time::Duration;

fn find(raw: &[u8], what: &[u8]) -> Option<usize> {
    memchr::memmem::find(raw, what)
}

/// Starts `--demo` with a log, in a terminal answering as `answers`, and types a filter at
/// once: `/` and the first letters before the program has even drawn, the rest a little
/// later, all within the 200 ms the question may wait for its answer.
fn type_at_start(answers: Answers) -> (Session, tempfile::TempDir) {
    let home = tempfile::tempdir().unwrap();
    let log = home.path().join("gendash.log");
    let log_text = log.to_string_lossy().into_owned();
    let env = [
        ("GENDASH_LOG_FILE", log_text.as_str()),
        // Says nothing about graphics: the terminal must be asked.
        ("TERM", "xterm-256color"),
    ];
    let mut s = Session::spawn_answering(
        command(home.path(), &["-v", "--demo"], &env),
        120,
        36,
        answers,
    );
    // `send` pauses 60 ms after each write.
    s.send("/wat");
    s.send("er");
    s.send("col");
    (s, home)
}

fn filtered(s: &Session) {
    // The answer, not the `filtering…` that comes before it.
    s.wait_for("the typed filter", Duration::from_secs(20), |t| {
        t.contains("/watercol")
            && t.contains("/320")
            && !t.contains("320/320")
            && !t.contains("filtering…")
    });
    let screen = s.contents();
    let first_row = screen.lines().nth(2).unwrap();
    assert!(first_row.contains("watercolor"), "{screen}");
}

fn quit(mut s: Session) {
    s.send("\x1b");
    s.send("\x1b");
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
}

#[test]
fn keys_typed_at_once_in_a_terminal_that_never_answers_all_arrive() {
    let (s, home) = type_at_start(Answers::Never);
    filtered(&s);
    let raw = s.raw();
    // The frame came first, then the question.
    let frame = find(&raw, b"LoRA models").expect("a frame");
    let asked = find(&raw, b"\x1b[c").expect("the device attributes asked");
    assert!(
        frame < asked,
        "the question went out before the first frame"
    );
    // The 200 ms the question waits start only once it is written, after the first frame: on
    // a busy machine the filter can be on screen sooner, so the log is waited for (bounded)
    // before quitting, which would otherwise end the wait unlogged.
    let log_file = home.path().join("gendash.log");
    let mut log = String::new();
    for _ in 0..200 {
        log = std::fs::read_to_string(&log_file).unwrap_or_default();
        if log.contains("did not answer within 200 ms") {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(log.contains("did not answer within 200 ms"), "{log}");
    quit(s);
}

#[test]
fn keys_typed_while_a_sixel_terminal_answers_are_kept_apart_from_its_replies() {
    let (s, home) = type_at_start(Answers::Sixel);
    filtered(&s);
    // Nothing of the replies reached the filter.
    let screen = s.contents();
    assert!(!screen.contains("62;4"), "{screen}");
    quit(s);
    let log = std::fs::read_to_string(home.path().join("gendash.log")).unwrap_or_default();
    assert!(log.contains("image previews: sixel"), "{log}");
}
