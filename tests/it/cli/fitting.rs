//! Text fitted to its room on the command line: `--help` as plain words, a `watch list` column
//! that one long cell does not widen, `wait`'s bars within the terminal's width.

use crate::common;
use common::{TOKEN, service};
use gendash::api::TaskKind;
use gendash::store::watchlist::{LastKnown, WatchEntry, WatchStore};

/// Every command's path in the tree clap builds (`[]`, `["watch"]`, `["watch", "add"]`, …).
fn command_paths() -> Vec<Vec<String>> {
    fn walk(cmd: &clap::Command, at: &[String], out: &mut Vec<Vec<String>>) {
        out.push(at.to_vec());
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let mut path = at.to_vec();
            path.push(sub.get_name().to_string());
            walk(sub, &path, out);
        }
    }
    let mut out = Vec::new();
    walk(
        &<gendash::cli::Cli as clap::CommandFactory>::command(),
        &[],
        &mut out,
    );
    out
}

/// `--help` and `-h` of every command speak plain words: no markdown backtick from a doc
/// comment reaches the terminal.
#[test]
fn help_shows_no_markdown() {
    let home = tempfile::tempdir().unwrap();
    let paths = command_paths();
    assert!(
        paths.iter().any(|p| p == &["watch", "add"]) && paths.len() > 15,
        "{paths:?}"
    );
    for path in paths {
        for flag in ["--help", "-h"] {
            let out = common::gendash(home.path())
                .args(&path)
                .arg(flag)
                .output()
                .unwrap();
            let text = String::from_utf8(out.stdout).unwrap();
            assert_eq!(out.status.code(), Some(0), "{path:?} {flag}");
            assert!(text.contains("Usage:"), "{path:?} {flag}: {text}");
            if let Some(line) = text.lines().find(|l| l.contains('`')) {
                panic!("gendash {} {flag}: {line:?}", path.join(" "));
            }
        }
    }
}

/// A service's 2,048-character status widens no line of `watch list`: its own cell is cut
/// with `…`, and the other lines keep their width.
#[test]
fn a_long_status_does_not_widen_the_watch_list() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("data/gendash/watchlist.json");
    let long = format!("RENDERING_{}", "X".repeat(2_038));
    WatchStore::new(&file)
        .update(|list| {
            for (id, status) in [("sim-1", "COMPLETED"), ("odd-2", long.as_str())] {
                let mut e = WatchEntry::new(id.to_string(), TaskKind::Image);
                e.last = Some(LastKnown {
                    status: status.to_string(),
                    percent: 40,
                    ..LastKnown::default()
                });
                list.push(e);
            }
        })
        .unwrap();
    let out = common::gendash(home.path())
        .args(["--base-url", "http://127.0.0.1:9", "watch", "list"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    let line = |id: &str| text.lines().find(|l| l.contains(id)).unwrap().to_string();
    let (short, odd) = (line("sim-1"), line("odd-2"));
    assert!(odd.contains("RENDERING_XXX") && odd.contains('…'), "{odd}");
    assert!(
        odd.chars().count() < 100 && short.chars().count() < 100,
        "{text}"
    );
    // The columns after the status still line up.
    let column = |line: &str| line.split("40%").next().map(gendash::fit::width);
    assert_eq!(column(&odd), column(&short), "{text}");
}

/// On a 120-column terminal, `wait`'s bars stay one line each, whatever their message: the
/// message is cut with `…` to the room the ID and the bar leave.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_bars_stay_on_their_line_at_120_columns() {
    use common::pty::{Session, command};
    let svc = service().await;
    let base = svc.base_url();
    let home = tempfile::tempdir().unwrap();
    // A long ID leaves the message 38 columns; an unknown ID's message is 50.
    let ids = ["hold-a-task-id-that-is-forty-columns-xxx", "nosuch-1"];
    let mut args = vec!["wait", "--interval", "0.2", "--timeout", "3"];
    args.extend(ids);
    let env = [
        ("GENDASH_BASE_URL", base.as_str()),
        ("GENDASH_TOKEN", TOKEN),
    ];
    let screen = tokio::task::block_in_place(|| {
        let mut s = Session::spawn(command(home.path(), &args, &env), 120, 20);
        let exit = s.wait_exit(std::time::Duration::from_secs(30));
        assert_eq!(exit, 6, "{}", s.contents());
        let screen = s.screen.lock().unwrap();
        screen
            .parser
            .screen()
            .rows(0, 120)
            .collect::<Vec<_>>()
            .join("\n")
    });
    let rows: Vec<&str> = screen.lines().filter(|l| !l.trim().is_empty()).collect();
    for row in &rows {
        assert!(
            ids.iter().any(|id| row.starts_with(id)) || row.starts_with("gendash: "),
            "a wrapped line: {row:?}\n{screen}"
        );
        assert!(row.trim_end().chars().count() < 120, "{row:?}\n{screen}");
    }
    let unknown = rows.iter().find(|r| r.starts_with("nosuch-1")).unwrap();
    assert!(
        unknown.contains("not found yet") && unknown.contains('…'),
        "{screen}"
    );
    assert!(unknown.contains("(gave up waiting)"), "{screen}");
}
