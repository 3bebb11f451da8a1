//! The reloader against a real file: read only when it changed, validated as at start, what
//! changed and what waits for a restart told to the App.

use super::*;
use crate::app::state::{Action, Init};
use crossterm::event::{KeyCode, KeyEvent};
use std::path::PathBuf;

struct Fixture {
    _dir: tempfile::TempDir,
    path: PathBuf,
    reloader: Reloader,
    state: State,
}

fn start(text: &str, demo_downloads: Option<PathBuf>) -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("config.toml");
    std::fs::write(&path, text).expect("write");
    let overrides = Overrides {
        config: Some(path.clone()),
        ..Overrides::default()
    };
    let mut settings = config::resolve(&overrides, &reload_env).expect("the first file reads");
    // As the demo's session keeps the user's hooks and download directory out.
    let adjust = demo_downloads.map(|dir| {
        let keep: Adjust = Box::new(move |s: &mut Settings| {
            s.on_complete = None;
            s.on_all_done = None;
            s.download_dir.clone_from(&dir);
        });
        keep
    });
    if let Some(adjust) = &adjust {
        adjust(&mut settings);
    }
    let (keymap, theme) = looks(&settings, false).expect("its keys");
    let reloader = Reloader::new(&settings, overrides, false, adjust);
    let state = State::new(Init {
        keymap,
        theme: Some(theme),
        ..Init::default()
    });
    Fixture {
        _dir: dir,
        path,
        reloader,
        state,
    }
}

fn key(s: &State, c: char) -> Option<Action> {
    s.keymap
        .resolve(&s.contexts(), &KeyEvent::from(KeyCode::Char(c)))
}

fn notice(s: &State) -> Option<&str> {
    s.notice.as_ref().map(|n| n.text.as_str())
}

#[test]
fn the_focus_reads_the_file_only_once_it_changed() {
    let mut f = start("poll_interval = 2\n", None);
    assert!(!f.reloader.changed_on_disk());
    assert!(f.reloader.on_focus(&mut f.state).is_empty());
    assert_eq!(notice(&f.state), None, "nothing read, nothing said");
    std::fs::write(&f.path, "poll_interval = 3\n[keys]\nquit = \"x\"\n").expect("write");
    assert!(f.reloader.changed_on_disk());
    let cmds = f.reloader.on_focus(&mut f.state);
    let [Cmd::Configure(new)] = cmds.as_slice() else {
        panic!("{cmds:?}")
    };
    assert_eq!(new.0.poll_interval, std::time::Duration::from_secs(3));
    assert_eq!(key(&f.state, 'x'), Some(Action::Quit));
    assert_eq!(
        notice(&f.state),
        Some("config reloaded: poll_interval, keys")
    );
    assert!(
        !f.reloader.changed_on_disk(),
        "read: the same file is not read again"
    );
}

#[test]
fn the_key_and_sighup_read_it_even_unchanged() {
    let mut f = start("bell = false\n", None);
    let mut cmds = vec![Cmd::ReloadConfig, Cmd::Bell];
    f.reloader.take_requests(&mut cmds, &mut f.state);
    assert_eq!(cmds, [Cmd::Bell], "taken out, nothing for the workers");
    assert_eq!(notice(&f.state), Some("config unchanged"));
}

#[test]
fn a_file_that_does_not_read_leaves_the_config_in_force() {
    let mut f = start("[keys]\nquit = \"x\"\n", None);
    // A value of the wrong type: the parser names the line.
    std::fs::write(&f.path, "bell = true\npoll_interval = \"often\"\n").expect("write");
    assert!(f.reloader.reload(&mut f.state).is_empty());
    let error = f.state.last_error.clone().expect("an error");
    assert!(error.starts_with("config not reloaded: "), "{error}");
    assert!(error.contains(&f.path.display().to_string()), "{error}");
    assert!(error.contains("line 2"), "{error}");
    assert_eq!(key(&f.state, 'x'), Some(Action::Quit), "the keys in force");
    assert!(
        !f.reloader.changed_on_disk(),
        "a bad file is not read at every focus"
    );
    // `[keys]` that cannot be applied: the line named, as at start.
    std::fs::write(&f.path, "bell = true\n[keys]\nquit = \"w\"\nadd = \"w\"\n").expect("write");
    f.reloader.reload(&mut f.state);
    let error = f.state.last_error.clone().expect("an error");
    assert!(error.contains("(at lines 3 and 4)"), "{error}");
    assert_eq!(key(&f.state, 'x'), Some(Action::Quit));
    // Mended: taken, and the error goes.
    std::fs::write(&f.path, "[keys]\nquit = \"w\"\n").expect("write");
    f.reloader.reload(&mut f.state);
    assert_eq!(f.state.last_error, None);
    assert_eq!(key(&f.state, 'w'), Some(Action::Quit));
}

#[test]
fn what_a_restart_takes_is_said_until_then() {
    let mut f = start("base_url = \"http://127.0.0.1:1/\"\n", None);
    std::fs::write(
        &f.path,
        "base_url = \"http://127.0.0.1:2/\"\nnotify = \"off\"\n",
    )
    .expect("write");
    f.reloader.reload(&mut f.state);
    assert_eq!(
        notice(&f.state),
        Some("config reloaded: notify; a restart takes base_url")
    );
    f.reloader.reload(&mut f.state);
    assert_eq!(
        notice(&f.state),
        Some("config unchanged; a restart takes base_url")
    );
}

#[test]
fn the_demo_keeps_the_users_hooks_and_download_directory_out() {
    let downloads = tempfile::tempdir().expect("tempdir");
    let mut f = start("", Some(downloads.path().to_path_buf()));
    std::fs::write(
        &f.path,
        "on_complete = [\"touch\", \"{task_id}\"]\ndownload_dir = \"/srv\"\nbell = false\n",
    )
    .expect("write");
    let cmds = f.reloader.reload(&mut f.state);
    let [Cmd::Configure(new)] = cmds.as_slice() else {
        panic!("{cmds:?}")
    };
    assert_eq!(new.0.on_complete, None);
    assert_eq!(new.0.download_dir, downloads.path());
    assert_eq!(notice(&f.state), Some("config reloaded: bell"));
}

/// A scheme (`theme_file`) reloaded: taken when it reads; a scheme file that turned bad
/// (while the config did not change) leaves the running colours, naming the scheme's line.
#[test]
fn a_scheme_that_turned_bad_keeps_the_running_colours() {
    use std::fmt::Write as _;
    let dir = tempfile::tempdir().expect("tempdir");
    let scheme = dir.path().join("scheme.yaml");
    let colours = |base0d: &str| {
        let mut text = String::from("scheme: \"Test\"\n");
        for i in 0..16 {
            let hex = if i == 0x0D { base0d } else { "808080" };
            let hex = if i == 0 { "101010" } else { hex };
            writeln!(text, "base0{i:X}: \"{hex}\"").expect("written");
        }
        text
    };
    std::fs::write(&scheme, colours("7cafc2")).expect("write");
    let mut f = start("bell = false\n", None);
    std::fs::write(
        &f.path,
        format!("theme_file = {:?}\n", scheme.display().to_string()),
    )
    .expect("write");
    f.reloader.reload(&mut f.state);
    assert_eq!(f.state.last_error, None);
    let blue = f.state.theme.link();
    assert_eq!(blue.fg, Some(ratatui::style::Color::Rgb(0x7c, 0xaf, 0xc2)));
    std::fs::write(&scheme, colours("7cafc")).expect("write");
    assert!(f.reloader.reload(&mut f.state).is_empty());
    let error = f.state.last_error.clone().expect("an error");
    assert!(error.starts_with("config not reloaded: "), "{error}");
    assert!(
        error.contains(&format!("{} line 15: base0D", scheme.display())),
        "{error}"
    );
    assert_eq!(f.state.theme.link(), blue, "the running colours stay");
}
