//! The copy-prompt key as users meet it: the real binary in a pseudo-terminal against the
//! reference service's demo catalogue, the key rebound in `[keys]`, a clipboard program on
//! `PATH` that records what it was given; the status bar, the marks and the help say it.

use super::opening::recorder;
use crate::common::{self, Served};
use common::pty::{Session, command};
use std::time::Duration;

/// Filters the browser down to the one model `name` and waits for it.
fn only(s: &mut Session, name: &str) {
    s.send("/");
    s.send("\x15"); // ctrl-u: a filter typed before goes
    s.type_text(&format!("^{name}$"));
    s.send("\r");
    s.wait_for(name, Duration::from_secs(10), |t| {
        t.contains(" 1/320") && t.lines().any(|l| l.contains(name) && !l.contains('^'))
    });
}

#[test]
fn a_rebound_key_copies_the_model_then_the_marked_ones_as_one_prompt() {
    let setup = Served::new();
    setup.config(&format!(
        "{}[keys]\ncopy_prompt = \"ctrl-y\"\n",
        common::QUICK_TO_DL
    ));
    let bin = setup.home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let (_, clip_log) = recorder(&bin, "xclip", true);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut env = setup.env().to_vec();
    env.extend_from_slice(&[("DISPLAY", ":99"), ("PATH", path.as_str())]);
    let mut s = Session::spawn(command(setup.home.path(), &[], &env), 150, 40);
    s.wait_text("320/320");

    only(&mut s, "tilt_shift_detailer");
    s.send("\x19"); // ctrl-y
    s.wait_text("copied the prompt of tilt_shift_detailer with xclip");
    let first = "<lora:tilt_shift_detailer:0.53> tilt, shift";
    assert_eq!(
        std::fs::read_to_string(&clip_log).unwrap(),
        format!("argc=2\narg=-selection\narg=clipboard\nstdin={first}\n")
    );

    // Marked, each says the key in force; the marked models are one prompt.
    s.send(" ");
    s.wait_text("1 model marked · ^Y copies the prompt");
    only(&mut s, "ukiyo-e_v2_xl");
    s.send(" ");
    s.wait_text("2 models marked · ^Y copies the prompt");
    s.wait_for(
        "the tick and the title's count",
        Duration::from_secs(10),
        |t| t.contains("✓ ukiyo-e_v2_xl") && t.contains("2 marked"),
    );
    s.send("\x19");
    s.wait_text("copied the prompt of 2 models with xclip");
    let both = format!("{first}, <lora:ukiyo-e_v2_xl:0.82> ukiyo-e, v2");
    let log = std::fs::read_to_string(&clip_log).unwrap();
    assert!(
        log.ends_with(&format!("stdin={both}\n")),
        "the second copy: {log}"
    );

    // `p` is no longer the key; the help names the one that is.
    s.send("p");
    s.send("?");
    s.wait_for("the help's row", Duration::from_secs(10), |t| {
        t.lines()
            .any(|l| l.contains("^Y") && l.contains("as prompt text"))
    });
    assert_eq!(
        std::fs::read_to_string(&clip_log)
            .unwrap()
            .matches("stdin=")
            .count(),
        2,
        "p copied nothing"
    );
    s.send("\x1b");
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
}
