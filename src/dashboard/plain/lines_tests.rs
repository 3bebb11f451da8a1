use super::*;
use crate::api::TaskKind;
use crate::app::state::{Row, Watch};
use crate::app::watch::{Duties, End};
use crate::store::watchlist::LastKnown;

const STALL: u64 = 300;

/// A watched task `id` last seen `status` at `percent`, observed running since t=0.
fn row(id: &str, status: &str, percent: u8) -> Row {
    let mut entry = crate::app::watch::new_entry(id, TaskKind::Image, 0);
    entry.last = Some(LastKnown {
        status: status.into(),
        percent,
        ..LastKnown::default()
    });
    let watch = Watch::new(vec![entry], vec!["FAILED".into()]);
    let mut row = watch.rows[0].clone();
    row.progress.observe(0.0, 0);
    row.progress.observe(30.0, percent / 2);
    row.progress.observe(60.0, percent);
    row
}

fn texts(lines: &[Line]) -> Vec<&str> {
    lines.iter().map(|l| l.text.as_str()).collect()
}

#[test]
fn each_phase_reads_as_one_line() {
    let home = Some("/home/ann");
    let mut done = row("sim-3", "COMPLETED", 100);
    done.state = crate::api::TaskState::Completed;
    done.download = Some(DownloadView::Saved("/home/ann/gen/sim-3.png".into()));
    assert_eq!(
        status(&done, 60, STALL, home).text,
        "sim-3 completed 100% · saved ~/gen/sim-3.png"
    );
    let stalled = row("sim-7", "RUNNING", 45);
    assert_eq!(
        status(&stalled, 60 + 240, 120, home).text,
        "sim-7 stalled 4m at 45%"
    );
    let running = row("sim-5", "RUNNING", 40);
    assert!(
        status(&running, 61, STALL, home)
            .text
            .starts_with("sim-5 running 40% · ETA ~"),
        "{:?}",
        status(&running, 61, STALL, home)
    );
    let mut failed = row("fail-2", "FAILED", 30);
    failed.state = crate::api::TaskState::Failed;
    assert_eq!(
        status(&failed, 61, STALL, home),
        Line::bad("fail-2 failed at 30% (FAILED)")
    );
}

#[test]
fn a_running_task_is_told_once_per_step_and_its_finish_once() {
    let mut r = row("sim-5", "RUNNING", 40);
    let (first, seen) = changed(&r, None, 61, STALL, None);
    assert_eq!(first.len(), 1, "{first:?}");
    let mut seen = seen.expect("known");
    for percent in [41, 45, 49] {
        r.entry.last.as_mut().expect("known").percent = percent;
        let (out, _) = changed(&r, Some(&seen), 61, STALL, None);
        assert!(out.is_empty(), "{percent}%: {out:?}");
    }
    r.entry.last.as_mut().expect("known").percent = 52;
    let (out, next) = changed(&r, Some(&seen), 61, STALL, None);
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(out[0].text.starts_with("sim-5 running 52%"), "{out:?}");
    seen = next.expect("known");
    r.entry.last.as_mut().expect("known").percent = 100;
    r.state = crate::api::TaskState::Completed;
    let (out, next) = changed(&r, Some(&seen), 61, STALL, None);
    assert_eq!(texts(&out), ["sim-5 completed 100%"]);
    let (again, none) = changed(&r, next.as_ref(), 62, STALL, None);
    assert!(again.is_empty() && none.is_none(), "{again:?}");
}

#[test]
fn a_finish_whose_file_is_fetched_waits_for_it_and_is_one_line() {
    let mut r = row("sim-3", "RUNNING", 50);
    let (_, seen) = changed(&r, None, 61, STALL, None);
    let seen = seen.expect("known");
    r.state = crate::api::TaskState::Completed;
    r.entry.last.as_mut().expect("known").percent = 100;
    r.end = End::Claiming(Box::new(Duties {
        announce: None,
        download: true,
    }));
    let (out, next) = changed(&r, Some(&seen), 61, STALL, None);
    assert!(out.is_empty() && next.is_none(), "{out:?}");
    r.end = End::Ours(crate::app::watch::Stage::Done);
    r.download = Some(DownloadView::Saved("/home/ann/gen/sim-3.png".into()));
    let (out, _) = changed(&r, Some(&seen), 61, STALL, Some("/home/ann/"));
    assert_eq!(
        texts(&out),
        ["sim-3 completed 100% · saved ~/gen/sim-3.png"]
    );
}

#[test]
fn troubles_and_failed_downloads_are_lines_of_their_own() {
    let mut r = row("sim-4", "RUNNING", 20);
    let (_, seen) = changed(&r, None, 61, STALL, None);
    let seen = seen.expect("known");
    r.trouble = Some(crate::app::watch::PollTrouble {
        problem: crate::app::watch::Problem::Error("connection refused".into()),
        retries: 1,
        retry_at: None,
    });
    let (out, next) = changed(&r, Some(&seen), 61, STALL, None);
    assert_eq!(out, [Line::bad("sim-4 error: connection refused")]);
    let (again, _) = changed(&r, next.as_ref(), 61, STALL, None);
    assert!(again.is_empty(), "{again:?}");
    r.download = Some(DownloadView::Failed("disk full".into()));
    let (out, _) = changed(&r, next.as_ref(), 61, STALL, None);
    assert_eq!(texts(&out), ["sim-4 download failed: disk full"]);
}

#[test]
fn lines_are_sanitised_and_coloured_only_when_asked() {
    let line = Line::bad("x\x1b[2J\x1b]52;c;aGk=\x07 failed");
    let plain = render(&line, false, None);
    assert!(
        !plain.contains('\x1b') && !plain.contains('\x07'),
        "{plain:?}"
    );
    let coloured = render(&line, true, None);
    assert!(coloured.starts_with("\x1b[31m") && coloured.ends_with("\x1b[0m"));
    assert_eq!(coloured.matches('\x1b').count(), 2, "{coloured:?}");
    assert_eq!(render(&Line::plain("ok"), true, None), "ok");
}

/// At 80 columns a long line (a service's long status) wraps at spaces, every row within the
/// width and every word kept; piped (no width), it stays one line.
#[test]
fn lines_are_fitted_to_the_terminal_width() {
    let status = "the service says: ".to_string() + &["overloaded"; 30].join(" ");
    let line = Line::plain(format!("sim-4 failed: {status}"));
    let fitted = render(&line, false, Some(80));
    let rows: Vec<&str> = fitted.lines().collect();
    assert!(rows.len() > 1, "{fitted}");
    assert!(rows.iter().all(|r| crate::fit::width(r) <= 80), "{rows:?}");
    assert_eq!(rows.join(" "), line.text);
    assert_eq!(render(&line, false, None), line.text);
}

#[test]
fn home_is_written_as_a_tilde_only_for_its_own_files() {
    assert_eq!(
        home_relative("/home/ann/a.png", Some("/home/ann")),
        "~/a.png"
    );
    assert_eq!(
        home_relative("/home/annie/a.png", Some("/home/ann")),
        "/home/annie/a.png"
    );
    assert_eq!(home_relative("/tmp/a.png", None), "/tmp/a.png");
    assert_eq!(home_relative("/tmp/a.png", Some("/")), "/tmp/a.png");
}
