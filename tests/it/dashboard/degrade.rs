//! The dashboard degrades, never dies: with the service answering garbage, hanging or gone, it
//! keeps running, says what is wrong in the status bar and the rows, and recovers by itself.

use crate::common;

use common::Mode;
use common::pty::{Session, command};
use gendash::api::TaskKind;
use gendash::store::watchlist::{WatchEntry, WatchStore};
use std::time::Duration;

fn home_with_list() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    WatchStore::new(home.path().join("data/gendash/watchlist.json"))
        .update(|l| l.push(WatchEntry::new("hold-x", TaskKind::Image)))
        .unwrap();
    let dir = home.path().join("config/gendash");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.toml"), "poll_interval = 0.2\n").unwrap();
    home
}

/// The reference service behind a switchable proxy, and a dashboard on it.
struct Rig {
    _rt: tokio::runtime::Runtime,
    _svc: gendash::server::Running,
    proxy: common::Proxy,
    _home: tempfile::TempDir,
    dashboard: Session,
}

fn rig(start_in: Mode, extra_env: &[(&str, &str)]) -> Rig {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let svc = rt.block_on(common::service());
    let proxy = rt.block_on(common::proxy(svc.addr));
    proxy.set(start_in);
    let home = home_with_list();
    let base = proxy.url().to_string();
    let mut env = vec![
        ("GENDASH_BASE_URL", base.as_str()),
        ("GENDASH_TOKEN", common::TOKEN),
    ];
    env.extend_from_slice(extra_env);
    let dashboard = Session::spawn(command(home.path(), &[], &env), 150, 30);
    Rig {
        _rt: rt,
        _svc: svc,
        proxy,
        _home: home,
        dashboard,
    }
}

fn row_is_healthy(screen: &str) -> bool {
    screen
        .lines()
        .any(|l| l.contains("hold-x") && l.contains("IN_PROGRESS") && !l.contains('⚠'))
}

/// The service answers again and the dashboard says so: `reconnected` (for five seconds, then
/// `connected`, which views' tests follow), no trouble, the row healthy.
fn recovered(screen: &str) -> bool {
    (screen.contains("● reconnected") || screen.contains("● connected"))
        && !screen.contains("✖ trouble")
        && row_is_healthy(screen)
}

#[test]
fn garbage_slowness_and_outage_are_reported_then_recovered_from() {
    // The shortest request_timeout there is (a second), so the slow answer times out soon.
    let mut rig = rig(Mode::Forward, &[("GENDASH_REQUEST_TIMEOUT", "1")]);
    let (proxy, d) = (&rig.proxy, &mut rig.dashboard);
    d.wait_text("320/320");
    d.wait_for(
        "the task to be polled",
        Duration::from_secs(10),
        row_is_healthy,
    );
    d.wait_text("● connected");

    for (mode, says) in [
        (Mode::Garbage, "response not understood"),
        (Mode::Slow, "timed out"),
        (Mode::Down, "broke"),
    ] {
        proxy.set(mode);
        d.wait_for(says, Duration::from_secs(20), |t| {
            t.contains("✖ trouble")
                && t.contains(says)
                && t.lines().any(|l| l.contains("hold-x") && l.contains('⚠'))
        });
        assert!(d.child.try_wait().unwrap().is_none(), "still running");
        // Back after each: each recovery is its own and waits out a first failure's short
        // backoff (a second or two), not the backoff that three faults in a row build up.
        proxy.set(Mode::Forward);
        d.wait_for(
            &format!("recovery from {mode:?}"),
            Duration::from_secs(40),
            recovered,
        );
    }
    d.send("q");
    assert_eq!(d.wait_exit(Duration::from_secs(10)), 0);
    d.assert_restored();
}

#[test]
fn a_catalogue_that_failed_to_load_loads_once_the_service_is_back() {
    let mut rig = rig(Mode::Down, &[]);
    let (proxy, d) = (&rig.proxy, &mut rig.dashboard);
    d.wait_for("the load failure", Duration::from_secs(20), |t| {
        t.contains("Cannot load the catalogue") && t.contains("✖ trouble")
    });
    // Still usable meanwhile: the help opens and closes.
    d.send("?");
    d.wait_text("Keys · Esc/? closes");
    d.send("\x1b");
    proxy.set(Mode::Forward);
    d.wait_for(
        "the catalogue to load by itself",
        Duration::from_secs(40),
        |t| t.contains("320/320") && (t.contains("● reconnected") || t.contains("● connected")),
    );
    d.send("q");
    assert_eq!(d.wait_exit(Duration::from_secs(10)), 0);
}
