//! What the user and the system see of settings and children: the config file's theme and
//! `[styles]` in the colours of the screen's cells, and a hook stopped for its time gone from
//! `/proc`.

use crate::common;
use common::pty::{Session, command};
use std::time::{Duration, Instant};

/// The row and column where `word` starts on the screen in a row that also holds `row_has`.
fn find(screen: &vt100::Screen, row_has: &str, word: &str) -> Option<(u16, u16)> {
    let (rows, cols) = screen.size();
    (0..rows).find_map(|r| {
        // One entry per column, so an index into it is a column.
        let cells: Vec<String> = (0..cols)
            .map(|c| {
                screen
                    .cell(r, c)
                    .map(|cell| cell.contents().to_string())
                    .unwrap_or_default()
            })
            .collect();
        let text: String = cells
            .iter()
            .map(|c| if c.is_empty() { " " } else { c.as_str() })
            .collect();
        if !text.contains(row_has) {
            return None;
        }
        (0..cols as usize)
            .find(|&c| {
                word.chars().enumerate().all(|(i, ch)| {
                    cells
                        .get(c + i)
                        .is_some_and(|s| s == ch.encode_utf8(&mut [0; 4]))
                })
            })
            .map(|c| (r, u16::try_from(c).unwrap()))
    })
}

/// The text colour of each cell of `word` (found in the row holding `row_has`).
fn colours(s: &Session, row_has: &str, word: &str) -> Vec<vt100::Color> {
    let guard = s.screen.lock().unwrap();
    let screen = guard.parser.screen();
    let (r, c) = find(screen, row_has, word)
        .unwrap_or_else(|| panic!("no {word} in a row with {row_has}:\n{}", screen.contents()));
    (0..u16::try_from(word.len()).unwrap())
        .map(|i| screen.cell(r, c + i).unwrap().fgcolor())
        .collect()
}

/// `theme = "light"` and a `[styles]` colour from the config file, as the running dashboard
/// draws them: a completed task's status in the colour `[styles]` set, a failed one's in the
/// light theme's red (not the dark default's 256-colour red).
#[test]
fn the_config_files_theme_and_styles_colour_the_screen() {
    let home = tempfile::tempdir().unwrap();
    common::write_config(
        home.path(),
        "theme = \"light\"\n\n[styles]\ncompleted = \"#123456\"\n",
    );
    let mut s = Session::spawn(command(home.path(), &["--demo"], &[]), 150, 40);
    s.wait_for(
        "the demo's finished and failed tasks",
        Duration::from_secs(20),
        |t| {
            t.lines()
                .any(|l| l.contains("demo-image-done") && l.contains("COMPLETED"))
                && t.lines()
                    .any(|l| l.contains("fail-0-rejected-prompt") && l.contains("FAILED"))
        },
    );
    let completed = colours(&s, "demo-image-done", "COMPLETED");
    assert!(
        completed
            .iter()
            .all(|c| *c == vt100::Color::Rgb(0x12, 0x34, 0x56)),
        "[styles] completed: {completed:?}"
    );
    let failed = colours(&s, "fail-0-rejected-prompt", "FAILED");
    assert!(
        failed.iter().all(|c| *c == vt100::Color::Rgb(190, 0, 0)),
        "the light theme's failed: {failed:?}"
    );
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
}

/// The state letter of `/proc/<pid>/stat`, or `None` when there is no such process.
fn proc_state(pid: i32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit(')').next()?.trim_start().chars().next()
}

/// An `on_complete` hook that outlives its time is stopped: once the hook's run reports it,
/// its process is gone (no `/proc/<pid>`, or a zombie not yet reaped, never still running).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_stopped_for_its_time_is_gone_from_proc() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let (tx, mut rx) = tokio::sync::mpsc::channel(4);
    let hooks = gendash::workers::hooks::spawn_limited(
        vec![
            "sh".into(),
            "-c".into(),
            "echo $$ > \"$1\"; exec sleep 60".into(),
            "hook".into(),
            pid_file.to_string_lossy().into_owned(),
        ],
        1,
        // Long enough for the shell to start and write its pid on a loaded machine.
        Duration::from_secs(5),
        tx,
    );
    let finished = gendash::cmd::Finished {
        task_id: "t-1".into(),
        kind: gendash::api::TaskKind::Image,
        status: "COMPLETED".into(),
        status_failed: false,
        percent: 100,
        url: None,
        file: None,
        no_file: None,
        label: None,
    };
    let run = hooks.run(finished);
    // The hook's own process (the shell, then `sleep` in its place), while it runs.
    let started = Instant::now();
    let pid: i32 = loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            break pid;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the hook never started"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert!(
        proc_state(pid).is_some_and(|s| s != 'Z'),
        "the hook runs at first"
    );
    run.await.unwrap();
    match rx.try_recv() {
        Ok(gendash::msg::Msg::HookFailed(why)) => {
            assert!(why.contains("was stopped"), "{why}");
        }
        _ => panic!("the stop was not reported"),
    }
    // The kill is sent as the run ends; the process is gone (or dead and not yet reaped)
    // within moments.
    let stopped = Instant::now();
    while proc_state(pid).is_some_and(|s| s != 'Z') {
        assert!(
            stopped.elapsed() < Duration::from_secs(5),
            "the hook's process {pid} still runs: {:?}",
            proc_state(pid)
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
