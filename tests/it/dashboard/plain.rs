//! Plain mode as a screen reader or a log meets it: the real binary in a pseudo-terminal
//! against the reference service, every line command, one line per change, nothing on the
//! wire but text (and SGR colours only when asked), the terminal's mode left as it was.

use crate::common::{self, Served};
use common::pty::{Session, command};
use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

const DONE: &str = "demo-image-done";

/// What the program wrote, as text, line ends as written (`\r\n` in a terminal) made `\n`.
fn transcript(s: &Session) -> String {
    String::from_utf8_lossy(&s.raw()).replace("\r\n", "\n")
}

/// Waits until the transcript after byte `from` holds `text`; returns where it ends.
fn wait_after(s: &Session, from: usize, text: &str) -> usize {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(20) {
        let t = transcript(s);
        if let Some(at) = t.get(from..).and_then(|rest| rest.find(text)) {
            return from + at + text.len();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!(
        "timed out waiting for {text:?}; the output was:\n{}",
        transcript(s)
    );
}

/// Types `line` and Enter; returns where the transcript ended before it.
fn type_line(s: &mut Session, line: &str) -> usize {
    let at = transcript(s).len();
    s.send(&format!("{line}\r"));
    at
}

/// The plain mode on `setup` with `args` and `env` on top of the service's.
fn plain(setup: &Served, args: &[&str], env: &[(&str, &str)]) -> Session {
    let mut all = setup.env().to_vec();
    all.extend_from_slice(env);
    let s = Session::spawn(command(setup.path(), args, &all), 120, 40);
    wait_after(&s, 0, "type help for the commands");
    s
}

/// Every escape sequence in `raw` is SGR (`ESC [ digits;… m`); returns how many there are.
fn only_sgr(raw: &[u8]) -> usize {
    let mut count = 0;
    let mut i = 0;
    while let Some(at) = raw[i..].iter().position(|&b| b == 0x1b) {
        let seq = &raw[i + at..];
        let end = seq
            .iter()
            .skip(2)
            .position(|b| !(b.is_ascii_digit() || *b == b';'))
            .map(|p| p + 2);
        assert!(
            seq.get(1) == Some(&b'[') && end.is_some_and(|e| seq.get(e) == Some(&b'm')),
            "an escape sequence other than SGR: {:?}",
            String::from_utf8_lossy(&seq[..seq.len().min(16)])
        );
        count += 1;
        i += at + 1;
    }
    count
}

/// The pseudo-terminal's line discipline, as the program left it: canonical (line editing)
/// and echoing, as a terminal is before any program makes it raw.
fn assert_cooked(s: &Session) {
    let termios = format!("{:?}", s.master.get_termios().expect("the terminal's mode"));
    let local = termios
        .split("local_flags: LocalFlags(")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap_or_else(|| panic!("no local flags in {termios}"));
    let flags: Vec<&str> = local.split(" | ").collect();
    for flag in ["ICANON", "ECHO", "ISIG"] {
        assert!(flags.contains(&flag), "{flag} is off after quit: {local}");
    }
}

/// An opener that appends its arguments to `opened.log` in `home`.
fn recording_opener(home: &std::path::Path) -> (String, std::path::PathBuf) {
    let log = home.join("opened.log");
    let program = home.join("opener");
    std::fs::write(
        &program,
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done >> '{}'\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    (program.display().to_string(), log)
}

/// `help` prints every command, one per line.
fn help_lists_every_command(s: &mut Session) {
    let at = type_line(s, "help");
    for line in [
        "list — ",
        "add [--video] ID… — ",
        "rm ID — ",
        "open ID — ",
        "download ID — ",
        "filter [TEXT] — ",
        "models [FILTER] — ",
        "help — ",
        "quit — end gendash (so does Ctrl-D)",
    ] {
        wait_after(s, at, &format!("\n{line}"));
    }
}

/// Every command against the reference service: help, add (a task that then finishes, told
/// in exactly one line), list, filter, open, download, models, rm, a mistake, quit; the
/// output is text alone and the terminal is left cooked.
#[test]
fn every_line_command_works_and_each_change_is_one_line() {
    let setup = Served::with(common::QUICK_TO_DL, &[DONE]);
    let (opener, opener_log) = recording_opener(setup.path());
    let mut s = plain(&setup, &["--plain"], &[("GENDASH_OPENER", opener.as_str())]);
    wait_after(&s, 0, &format!("{DONE} completed 100%"));

    help_lists_every_command(&mut s);

    // One task: counted in the singular.
    let at = type_line(&mut s, "filter zzz");
    wait_after(&s, at, "filter \"zzz\": 0 of 1 task\n");
    let at = type_line(&mut s, "filter");
    wait_after(&s, at, "no filter: 1 task\n");

    // The line discipline echoes what is typed: the terminal is not raw.
    let at = type_line(&mut s, "add sim-3-x");
    wait_after(&s, at, "add sim-3-x\n");
    wait_after(&s, at, "added sim-3-x\n");
    let done = wait_after(&s, at, "sim-3-x completed 100%\n");
    // More answers come for the finished task: none of them is another line.
    std::thread::sleep(Duration::from_millis(800));
    let t = transcript(&s);
    assert_eq!(t.matches("sim-3-x completed").count(), 1, "{t}");
    assert!(!t[done..].contains("sim-3-x"), "{}", &t[done..]);

    let at = type_line(&mut s, "list");
    let end = wait_after(&s, at, "sim-3-x completed 100%\n");
    assert!(
        transcript(&s)[at..end].contains(&format!("\n{DONE} completed 100%\n")),
        "{}",
        &transcript(&s)[at..]
    );

    let at = type_line(&mut s, "filter sim");
    wait_after(&s, at, "filter \"sim\": 1 of 2 tasks\n");
    let at = type_line(&mut s, "list");
    let end = wait_after(&s, at, "sim-3-x completed 100%\n");
    let at_help = type_line(&mut s, "help");
    wait_after(&s, at_help, "quit — ");
    assert!(
        !transcript(&s)[end..at_help].contains(DONE),
        "the filter hides {DONE}: {}",
        &transcript(&s)[at..]
    );
    // A task the filter hides is still reached by its ID, and the filter stays.
    let at = type_line(&mut s, &format!("open {DONE}"));
    let url = format!("{}files/{DONE}.png", setup.base);
    wait_after(&s, at, &format!("opened {url}"));
    // "opened" says the opener started; its log line follows when it has run.
    let logged = || std::fs::read_to_string(&opener_log).unwrap_or_default();
    for _ in 0..500 {
        if logged().ends_with('\n') {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(logged(), format!("{url}\n"));
    let at = type_line(&mut s, "filter");
    wait_after(&s, at, "no filter: 2 tasks\n");

    let at = type_line(&mut s, &format!("download {DONE}"));
    wait_after(&s, at, &format!("{DONE} saved ~/dl/{DONE}.png\n"));
    assert!(setup.path().join(format!("dl/{DONE}.png")).is_file());
    // The file is there: the reducers ask, and the answer is a line too.
    let at = type_line(&mut s, &format!("download {DONE}"));
    wait_after(&s, at, &format!("/dl/{DONE}.png? (yes or no)\n"));
    let at = type_line(&mut s, "no");
    wait_after(&s, at, &format!("kept the file; {DONE} not downloaded\n"));

    let at = type_line(&mut s, "models water");
    let end = wait_after(&s, at, "models match \"water\"\n");
    wait_after(&s, end, "watercolor_v1.5 · sd · style\n");

    let at = type_line(&mut s, "rm sim-3-x");
    wait_after(&s, at, "removed sim-3-x — undo brings it back\n");
    let at = type_line(&mut s, "list");
    let end = wait_after(
        &s,
        at,
        &format!("{DONE} completed 100% · saved ~/dl/{DONE}.png\n"),
    );
    let at_help = type_line(&mut s, "help");
    wait_after(&s, at_help, "quit — ");
    assert!(
        !transcript(&s)[end..at_help].contains("sim-3-x"),
        "{}",
        &transcript(&s)[at..]
    );

    let at = type_line(&mut s, "undo");
    wait_after(&s, at, "restored sim-3-x\n");

    // The add dialog's checks are the reducers': a refused ID is one line, nothing added,
    // and what was typed is never written back raw.
    let at = type_line(&mut s, "add ..");
    wait_after(&s, at, "\nadd: `..` is not a valid task ID\n");
    let at = type_line(&mut s, "add ab\x1b[2Jcd");
    wait_after(&s, at, "holds control or invisible characters\n");
    assert!(
        !transcript(&s)[at..].contains("\nadded "),
        "{}",
        &transcript(&s)[at..]
    );

    let at = type_line(&mut s, "frobnicate");
    wait_after(
        &s,
        at,
        "\nunknown command \"frobnicate\": type help for the commands\n",
    );

    type_line(&mut s, "quit");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    let raw = s.raw();
    assert_eq!(only_sgr(&raw), 0, "no colour was asked for");
    assert!(!raw.contains(&0x1b));
    assert_cooked(&s);
}

/// The rebound-keys sweep in plain mode: with every action bound elsewhere in `[keys]`, no
/// line names a default key, nor a rebound one (plain mode takes commands, not keys): the
/// notice that names the undo key says the `undo` command instead.
#[test]
fn with_every_action_rebound_no_line_names_a_key() {
    let pairs = super::keys::rebound::rebound_pairs();
    let keys: Vec<String> = pairs
        .iter()
        .map(|(name, key)| format!("{name} = \"{key}\""))
        .collect();
    let keys = keys.join("\n");
    let setup = Served::with(&format!("{}[keys]\n{keys}\n", common::QUICK_TO_DL), &[DONE]);
    let mut s = plain(&setup, &["--plain"], &[]);
    wait_after(&s, 0, &format!("{DONE} completed 100%"));
    help_lists_every_command(&mut s);
    for (line, answer) in [
        ("list".to_string(), format!("{DONE} completed 100%\n")),
        (
            format!("download {DONE}"),
            format!("{DONE} saved ~/dl/{DONE}.png\n"),
        ),
        (format!("download {DONE}"), "? (yes or no)\n".to_string()),
        ("no".to_string(), "kept the file".to_string()),
        ("add sim-3-x".to_string(), "added sim-3-x\n".to_string()),
        (
            "rm sim-3-x".to_string(),
            "removed sim-3-x — undo brings it back\n".to_string(),
        ),
        ("undo".to_string(), "restored sim-3-x\n".to_string()),
        (
            "filter zzz".to_string(),
            "filter \"zzz\": 0 of 2 tasks\n".to_string(),
        ),
        ("filter".to_string(), "no filter: 2 tasks\n".to_string()),
        (
            "models water".to_string(),
            "models match \"water\"\n".to_string(),
        ),
        (
            "frobnicate".to_string(),
            "type help for the commands\n".to_string(),
        ),
    ] {
        let at = type_line(&mut s, &line);
        wait_after(&s, at, &answer);
    }
    type_line(&mut s, "quit");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    let t = transcript(&s);
    let labels = super::keys::rebound::default_labels();
    let named: Vec<String> = t
        .lines()
        .flat_map(|l| super::keys::rebound::default_keys_named(l, &labels))
        // The help's `yes / no` names two commands, the slash between them.
        .filter(|n| n != "`/ no`")
        .collect();
    assert!(named.is_empty(), "default keys named: {named:?} in\n{t}");
    // As words, not inside others: the temporary directory's random name (`.tmpEF1jRh`) may
    // hold `F1`.
    for rebound in ["Alt-", "alt-", "F1", "f1"] {
        assert!(!names_as_word(&t, rebound), "{rebound} in\n{t}");
    }
}

/// Whether `word` appears in `text` not run together with a letter or digit on a side where
/// the word itself ends in one (`Alt-` may be followed by its key).
fn names_as_word(text: &str, word: &str) -> bool {
    let joined = |edge: Option<char>, near: Option<char>| {
        edge.is_some_and(char::is_alphanumeric) && near.is_some_and(char::is_alphanumeric)
    };
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !joined(word.chars().next(), before) && !joined(word.chars().next_back(), after)
    })
}

/// `--color always` colours lines with SGR and nothing else; `NO_COLOR` wins over it.
#[test]
fn colours_are_sgr_only_when_asked_and_none_with_no_color() {
    let setup = Served::with(common::QUICK_TO_DL, &["fail-1-x", DONE]);
    let mut s = plain(&setup, &["--plain", "--color", "always"], &[]);
    wait_after(&s, 0, "fail-1-x failed at");
    wait_after(&s, 0, "\x1b[32mdemo-image-done completed 100%\x1b[0m");
    type_line(&mut s, "quit");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    assert!(only_sgr(&s.raw()) >= 4, "{}", transcript(&s));
    assert_cooked(&s);

    let mut s = plain(
        &setup,
        &["--plain", "--color", "always"],
        &[("NO_COLOR", "1")],
    );
    wait_after(&s, 0, "fail-1-x failed at");
    type_line(&mut s, "quit");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    assert!(!s.raw().contains(&0x1b), "{:?}", transcript(&s));
}

/// `TERM=dumb` and `GENDASH_PLAIN=1` select plain mode without the flag; Ctrl-D (the end of
/// the input) and Ctrl-C quit it; `--no-plain` and `GENDASH_PLAIN=0` keep the full screen.
#[test]
fn term_dumb_and_gendash_plain_select_it_and_ctrl_d_quits() {
    let setup = Served::with(common::QUICK_TO_DL, &[DONE]);
    // Ctrl-D ends the input (exit 0); Ctrl-C is the terminal's SIGINT (exit 130, as shells
    // report it).
    for (env, key, code) in [
        (("TERM", "dumb"), "\x04", 0),
        (("GENDASH_PLAIN", "1"), "\x03", 130),
    ] {
        let mut s = plain(&setup, &[], &[env]);
        wait_after(&s, 0, &format!("{DONE} completed 100%"));
        s.send(key);
        assert_eq!(s.wait_exit(Duration::from_secs(10)), code, "{env:?}");
        assert!(!s.raw().contains(&0x1b), "{env:?}: {:?}", transcript(&s));
        assert_cooked(&s);
    }
    let mut env = setup.env().to_vec();
    env.extend([("TERM", "xterm-256color"), ("GENDASH_PLAIN", "0")]);
    let mut s = Session::spawn(command(setup.path(), &[], &env), 120, 40);
    s.wait_text(DONE);
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
}

/// A `GENDASH_PLAIN` that says neither yes nor no is refused as a usage error, as is
/// `--plain` with a subcommand, rather than guessed at.
#[test]
fn a_gendash_plain_of_neither_1_nor_0_and_plain_with_a_subcommand_are_usage_errors() {
    let home = tempfile::tempdir().unwrap();
    let out = common::gendash(home.path())
        .env("GENDASH_PLAIN", "maybe")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(
            "GENDASH_PLAIN is `maybe`: it takes 1, true, yes, on (plain mode) or 0, false, no, off"
        ),
        "{out:?}"
    );
    let out = common::gendash(home.path())
        .args(["--plain", "keys"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--plain runs the dashboard"),
        "{out:?}"
    );
}

/// `open` where nothing can show a link (no display, no opener) copies it instead; with no
/// clipboard program either, plain mode says it did not copy it and why, with the link itself,
/// rather than claiming the OSC 52 it does not send.
#[test]
fn plain_mode_never_says_it_copied_what_it_did_not() {
    let setup = Served::with(common::QUICK_TO_DL, &[DONE]);
    // No opener and no display: `DISPLAY` and `WAYLAND_DISPLAY` are not in the clean
    // environment, so no clipboard program fits either.
    let mut s = plain(&setup, &["--plain"], &[("GENDASH_OPENER", "")]);
    wait_after(&s, 0, &format!("{DONE} completed 100%"));
    let at = type_line(&mut s, &format!("open {DONE}"));
    let url = format!("{}files/{DONE}.png", setup.base);
    let said = format!(
        "{url} · no display to open it on · not copied: no clipboard program (wl-copy, \
         xclip, xsel, pbcopy) is there, and plain mode sends no escape sequence (OSC 52)"
    );
    // As a 120-column terminal shows it: wrapped at spaces, nothing cut.
    wait_after(&s, at, &gendash::fit::wrap(&said, 120).join("\n"));
    type_line(&mut s, "quit");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    let t = transcript(&s);
    assert!(!t.contains("sent it") && !t.contains("copied it"), "{t}");
    assert!(!s.raw().contains(&0x1b), "no escape sequence: {t:?}");
}

/// `run NAME ID…` in plain mode: a script the config names as an `[[actions]]` entry writes
/// its task's ID to a file, and the end (exit status, last line) is a line; two tasks are
/// each run on and `rm` after it removes only its own task (the marks are put back); one that
/// asks first waits for `yes`; the archive's, an unknown action and an unknown ID are named.
#[test]
fn run_runs_your_action_on_the_tasks_and_says_how_it_ended() {
    const VIDEO: &str = "demo-video-done";
    let setup = Served::new();
    let log = setup.path().join("stamped.log");
    let script = setup.path().join("stamp");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\necho \"wrote $1\"\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let action = |name: &str, key: &str, scope: &str, more: &str| {
        format!(
            "[[actions]]\nname = \"{name}\"\nkey = \"{key}\"\nscope = \"{scope}\"\n\
             command = [\"{}\", \"{{task_id}}\"]\n{more}\n",
            script.display()
        )
    };
    setup.config(&format!(
        "{}[keys]\nlabel = \"ctrl-e\"\n\n{}{}{}{}",
        common::QUICK_TO_DL,
        action("stamp", "e", "watch", ""),
        action("careful", "f7", "watch", "confirm = true"),
        action("shelf", "f8", "archive", ""),
        action("tint", "f9", "browser", "").replace("{task_id}", "{model}"),
    ));
    setup.watch_add(&[DONE]);
    setup.watch_add(&["--video", VIDEO]);
    let mut s = plain(&setup, &["--plain"], &[]);
    wait_after(&s, 0, &format!("{DONE} completed 100%"));
    let stamped = || std::fs::read_to_string(&log).unwrap_or_default();

    let at = type_line(&mut s, "actions");
    wait_after(&s, at, "\nstamp · e · watch · ");
    wait_after(&s, at, "\ncareful · f7 · watch · ");

    let at = type_line(&mut s, &format!("run stamp {DONE}"));
    wait_after(&s, at, &format!("stamp on {DONE}: exit 0 · wrote {DONE}\n"));
    assert_eq!(stamped(), format!("{DONE}\n"));

    let at = type_line(&mut s, &format!("run stamp {VIDEO} {DONE}"));
    wait_after(
        &s,
        at,
        &format!("stamp on {VIDEO}: exit 0 · wrote {VIDEO}\n"),
    );
    wait_after(&s, at, &format!("stamp on {DONE}: exit 0 · wrote {DONE}\n"));
    let mut each: Vec<String> = stamped().lines().map(str::to_string).collect();
    each.sort();
    assert_eq!(each, [DONE, DONE, VIDEO], "each of the two once more");

    // Marked for the question, unmarked once it is answered.
    let at = type_line(&mut s, &format!("run careful {VIDEO} {DONE}"));
    let at = wait_after(
        &s,
        at,
        &format!("run careful on {DONE}, {VIDEO}? (yes or no)\n"),
    );
    assert_eq!(stamped().lines().count(), 3, "it waits for the answer");
    type_line(&mut s, "yes");
    wait_after(
        &s,
        at,
        &format!("careful on {VIDEO}: exit 0 · wrote {VIDEO}\n"),
    );
    assert_eq!(stamped().lines().count(), 5);

    let at = type_line(&mut s, "run nope x");
    wait_after(
        &s,
        at,
        "run: no action nope: the actions are stamp, careful, shelf, tint\n",
    );
    let at = type_line(&mut s, "run stamp sim-404");
    wait_after(
        &s,
        at,
        "run: not watching sim-404 (list shows the watched tasks)\n",
    );
    let at = type_line(&mut s, &format!("run shelf {DONE}"));
    wait_after(
        &s,
        at,
        "run: shelf runs in the archive, which plain mode does not show\n",
    );
    let at = type_line(&mut s, "run stamp");
    wait_after(
        &s,
        at,
        "run stamp needs task IDs: run stamp ID… (list shows them)\n",
    );
    assert_eq!(stamped().lines().count(), 5, "no mistake ran anything");

    // The marks of the run on two are gone: rm acts on its one task.
    let at = type_line(&mut s, &format!("rm {DONE}"));
    wait_after(&s, at, &format!("removed {DONE} — undo brings it back\n"));
    let at = type_line(&mut s, "list");
    wait_after(&s, at, &format!("\n{VIDEO} "));

    a_browser_action_takes_model_names(&mut s, &log);

    type_line(&mut s, "quit");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    assert_cooked(&s);
}

/// `run` with a browser action: it takes model names (here one the catalogue lists, and one
/// it does not).
fn a_browser_action_takes_model_names(s: &mut Session, log: &std::path::Path) {
    let at = type_line(s, "models water");
    wait_after(s, at, "watercolor_v1.5 · sd · style\n");
    let at = type_line(s, "run tint watercolor_v1.5");
    wait_after(
        s,
        at,
        "tint on watercolor_v1.5: exit 0 · wrote watercolor_v1.5\n",
    );
    assert_eq!(
        std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .last(),
        Some("watercolor_v1.5")
    );
    let at = type_line(s, "run tint no-such-model");
    wait_after(
        s,
        at,
        "run: no model no-such-model in the catalogue (models lists them)\n",
    );
}
