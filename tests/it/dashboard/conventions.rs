//! The terminal asked after the first frame about synchronized output (DEC mode 2026) and its
//! background colour: the frames after its answer are wrapped in `CSI ? 2026 h` … `l` and
//! drawn in the light palette on a light background; a silent terminal gets neither, and the
//! settings turn each off.

use crate::common::pty::{Answers, Session, command};
use std::time::{Duration, Instant};

const BEGIN: &[u8] = b"\x1b[?2026h";
const END: &[u8] = b"\x1b[?2026l";
/// The selected row's background in the light palette, and in the dark one, as written.
const LIGHT_SELECTED: &[u8] = b"48;2;200;220;245";
const DARK_SELECTED: &[u8] = b"48;2;30;45;70";
/// The focused border: cyan in the dark palette (the light one has no cyan at all).
const DARK_BORDER: &[u8] = b"[38;5;6;";

fn count(raw: &[u8], what: &[u8]) -> usize {
    raw.windows(what.len()).filter(|w| *w == what).count()
}

fn find(raw: &[u8], what: &[u8]) -> Option<usize> {
    raw.windows(what.len()).position(|w| w == what)
}

/// `--demo` with `config` in a terminal answering as `answers`: once the terminal was asked
/// (the log says so), a key moves the selection (one more frame), then it quits. The bytes
/// written.
fn run_demo(answers: Answers, config: &str, env: &[(&str, &str)]) -> Vec<u8> {
    let home = tempfile::tempdir().unwrap();
    let cfg = home.path().join("gendash.toml");
    std::fs::write(&cfg, config).unwrap();
    let cfg = cfg.to_string_lossy().into_owned();
    let log = home.path().join("gendash.log");
    let log_text = log.to_string_lossy().into_owned();
    let mut all = vec![
        ("GENDASH_CONFIG", cfg.as_str()),
        ("GENDASH_LOG_FILE", log_text.as_str()),
    ];
    all.extend_from_slice(env);
    let mut s = Session::spawn_answering(
        command(home.path(), &["-v", "--demo"], &all),
        120,
        36,
        answers,
    );
    s.wait_for("the first frame", Duration::from_secs(20), |t| {
        t.contains("320/320")
    });
    let until = Instant::now() + Duration::from_secs(15);
    while !std::fs::read_to_string(&log).is_ok_and(|l| l.contains("image previews"))
        && Instant::now() < until
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    let before = s.raw().len();
    s.send("j");
    let until = Instant::now() + Duration::from_secs(10);
    while s.raw().len() == before && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    // The frame is whole once the screen is quiet a moment.
    std::thread::sleep(Duration::from_millis(300));
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
    s.raw()
}

/// Every begin is followed by its end before the next begin; none left open.
fn assert_paired(raw: &[u8]) {
    let mut open = false;
    for (i, _) in raw.iter().enumerate() {
        if raw[i..].starts_with(BEGIN) {
            assert!(!open, "a synchronized update begun inside another at {i}");
            open = true;
        } else if raw[i..].starts_with(END) {
            assert!(open, "an end without a begin at {i}");
            open = false;
        }
    }
    assert!(!open, "the terminal was left inside a synchronized update");
}

#[test]
fn a_2026_terminal_on_white_gets_synchronized_frames_in_the_light_palette() {
    let raw = run_demo(Answers::SixelLightSync, "", &[]);
    assert_eq!(count(&raw, b"\x1b[?2026$p"), 1, "asked once");
    assert_eq!(count(&raw, b"\x1b]11;?\x1b\\"), 1, "asked once");
    assert!(count(&raw, BEGIN) >= 2, "the palette switch and the key");
    assert_paired(&raw);
    // The first frame, drawn before the answer, is dark; after it, light.
    let first_sync = find(&raw, BEGIN).unwrap();
    assert!(
        find(&raw[..first_sync], DARK_BORDER).is_some(),
        "the first frame is dark"
    );
    let after = &raw[first_sync..];
    assert!(find(after, LIGHT_SELECTED).is_some(), "the light palette");
    assert!(
        find(after, DARK_SELECTED).is_none() && find(after, DARK_BORDER).is_none(),
        "nothing dark after the switch"
    );
}

#[test]
fn a_silent_terminal_gets_no_synchronized_output_and_stays_dark() {
    let raw = run_demo(Answers::Never, "", &[]);
    assert_eq!(count(&raw, b"\x1b[?2026"), 0, "neither asked nor used");
    assert_eq!(count(&raw, b"\x1b]11;"), 0);
    assert!(find(&raw, DARK_SELECTED).is_some());
    assert!(find(&raw, LIGHT_SELECTED).is_none());
}

#[test]
fn the_switch_off_and_an_explicit_theme_or_no_color_are_obeyed() {
    let raw = run_demo(
        Answers::SixelLightSync,
        "synchronized_output = false\n",
        &[],
    );
    assert_eq!(count(&raw, b"\x1b[?2026"), 0, "not asked, not used");
    assert!(find(&raw, LIGHT_SELECTED).is_some(), "auto still follows");

    let raw = run_demo(Answers::SixelLightSync, "theme = \"dark\"\n", &[]);
    assert_eq!(
        count(&raw, b"\x1b]11;"),
        0,
        "an explicit theme asks nothing"
    );
    assert!(find(&raw, LIGHT_SELECTED).is_none());
    assert!(count(&raw, BEGIN) >= 1);
    assert_paired(&raw);

    let raw = run_demo(Answers::SixelLightSync, "", &[("NO_COLOR", "1")]);
    assert_eq!(count(&raw, b"\x1b]11;"), 0, "NO_COLOR asks nothing");
    assert!(find(&raw, LIGHT_SELECTED).is_none());
}
