//! Opening and copying as users meet them, the real binary in a pseudo-terminal against the
//! reference service: `O` opens the file `A` saved with an opener that takes arguments; over
//! SSH (no display) a link is shown whole and copied instead of handed to `$BROWSER`; inside
//! tmux the copy is sent so tmux takes it; with a display, `xclip` gets the text first and the
//! status bar says so.

use crate::common::{self, Served};
use base64::Engine;
use common::pty::{Session, command};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

const TASK: &str = "demo-image-done";

/// A home with a fast config, the reference service, and one watched completed task.
fn setup() -> Served {
    Served::with(common::QUICK_TO_DL, &[TASK])
}

/// The dashboard on `setup` with `env` on top of the service's, the watch pane focused on the
/// task.
fn dashboard(setup: &Served, env: &[(&str, &str)]) -> Session {
    let mut all = setup.env().to_vec();
    all.extend_from_slice(env);
    let mut s = Session::spawn(command(setup.home.path(), &[], &all), 150, 40);
    s.wait_for("the task to complete", Duration::from_secs(20), |t| {
        t.lines()
            .any(|l| l.contains(TASK) && l.contains("COMPLETED"))
    });
    s.send("\t");
    s
}

/// The task's file URL at the service of `setup`.
fn url(setup: &Served) -> String {
    format!("{}files/{TASK}.png", setup.base)
}

/// A program that appends its arguments (and its standard input, if `stdin`) to a log.
pub(super) fn recorder(dir: &Path, name: &str, stdin: bool) -> (PathBuf, PathBuf) {
    let log = dir.join(format!("{name}.log"));
    let program = dir.join(name);
    let read = if stdin {
        "printf 'stdin=%s\\n' \"$(cat)\";"
    } else {
        ""
    };
    std::fs::write(
        &program,
        format!(
            "#!/bin/sh\n{{ echo \"argc=$#\"; for a in \"$@\"; do printf 'arg=%s\\n' \"$a\"; done; {read} }} >> '{}'\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    (program, log)
}

/// The texts of every OSC 52 sequence in `raw`, plain and inside tmux's passthrough.
fn osc52(raw: &[u8]) -> (Vec<String>, Vec<String>) {
    let text = String::from_utf8_lossy(raw);
    let decode = |b64: &str| {
        String::from_utf8(
            base64::engine::general_purpose::STANDARD
                .decode(b64)
                .unwrap(),
        )
        .unwrap()
    };
    let passthrough = "\x1bPtmux;\x1b\x1b]52;c;";
    let plain = text
        .replace(passthrough, "\x1bPtmux;")
        .split("\x1b]52;c;")
        .skip(1)
        .map(|r| decode(r.split('\x07').next().unwrap()))
        .collect();
    let wrapped = text
        .split(passthrough)
        .skip(1)
        .map(|r| decode(r.split('\x07').next().unwrap()))
        .collect();
    (plain, wrapped)
}

/// `A` saves the file; `O` hands its path to `GENDASH_OPENER`, a program with arguments,
/// split on white space and started without a shell; with the file gone, `O` says which key
/// downloads it again.
#[test]
fn o_opens_the_saved_file_with_an_opener_that_takes_arguments() {
    let setup = setup();
    let (viewer, log) = recorder(setup.home.path(), "viewer", false);
    let opener = format!("{} --new-window  --title gendash", viewer.display());
    let mut s = dashboard(&setup, &[("GENDASH_OPENER", opener.as_str())]);
    s.send("O");
    s.wait_text(&format!("no file saved for {TASK}: D downloads it"));
    s.send("A");
    let file = setup.home.path().join(format!("dl/{TASK}.png"));
    s.wait_for("the saved file", Duration::from_secs(20), |t| {
        file.exists() && t.contains(&format!("saved {}", file.display()))
    });
    s.send("O");
    s.wait_for("the viewer", Duration::from_secs(10), |t| {
        t.contains(&format!("opened {}", file.display()))
            && std::fs::read_to_string(&log)
                .is_ok_and(|l| l.ends_with(&format!("{}\n", file.display())))
    });
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        format!(
            "argc=4\narg=--new-window\narg=--title\narg=gendash\narg={}\n",
            file.display()
        )
    );
    std::fs::remove_file(&file).unwrap();
    s.send("O");
    s.wait_text(&format!(
        "{} is not there any more: D downloads it again",
        file.display()
    ));
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
    let gets = setup
        .svc
        .file_requests()
        .into_iter()
        .filter(|r| r.method == "GET")
        .count();
    assert_eq!(gets, 1, "A fetched the file once");
}

/// Over SSH inside tmux: no DISPLAY, so `$BROWSER` is not started; the URL is shown whole on
/// the status bar and copied with OSC 52, plain for tmux's `set-clipboard on` and wrapped in
/// its passthrough; the status bar says it was only sent.
#[test]
fn without_a_display_the_link_is_shown_whole_and_copied_through_tmux() {
    let setup = setup();
    let (browser, log) = recorder(setup.home.path(), "browser", false);
    let browser = format!("{} --new-tab", browser.display());
    let mut s = dashboard(
        &setup,
        &[
            ("GENDASH_OPENER", ""),
            ("BROWSER", browser.as_str()),
            ("TMUX", "/tmp/tmux-1000/default,4242,0"),
        ],
    );
    let url = url(&setup);
    s.send("o");
    s.wait_text(&format!(
        "{url} · no display to open it on · sent it to the terminal's clipboard through tmux (OSC 52)"
    ));
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    let (plain, wrapped) = osc52(&s.raw());
    assert_eq!(plain, std::slice::from_ref(&url));
    assert_eq!(wrapped, [url]);
    assert!(!log.exists(), "the browser was not started");
}

/// With a display, a clipboard program comes first: `xclip` on `PATH` gets the text on its
/// standard input, no OSC 52 is sent, and the status bar names the program; `$BROWSER` (with
/// its argument) opens the link.
#[test]
fn with_a_display_xclip_copies_and_browser_opens() {
    let setup = setup();
    let bin = setup.home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let (_, clip_log) = recorder(&bin, "xclip", true);
    let (browser, browser_log) = recorder(setup.home.path(), "browser", false);
    let browser = format!("{} --new-tab", browser.display());
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut s = dashboard(
        &setup,
        &[
            ("GENDASH_OPENER", ""),
            ("BROWSER", browser.as_str()),
            ("DISPLAY", ":99"),
            ("PATH", path.as_str()),
        ],
    );
    let url = url(&setup);
    s.send("y");
    s.wait_text("copied the download URL with xclip");
    assert_eq!(
        std::fs::read_to_string(&clip_log).unwrap(),
        format!("argc=2\narg=-selection\narg=clipboard\nstdin={url}\n")
    );
    s.send("o");
    s.wait_for("the browser", Duration::from_secs(10), |t| {
        t.contains(&format!("opened {url}"))
            && std::fs::read_to_string(&browser_log).is_ok_and(|l| l.ends_with(&format!("{url}\n")))
    });
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    assert_eq!(
        std::fs::read_to_string(&browser_log).unwrap(),
        format!("argc=2\narg=--new-tab\narg={url}\n")
    );
    let (plain, wrapped) = osc52(&s.raw());
    assert!(plain.is_empty() && wrapped.is_empty(), "{plain:?}");
}
