//! `on_all_done` when the watch list holds tasks no dashboard can poll: one of a service that
//! is not configured, one of a profile whose client cannot be made (its `token_command`
//! fails). Their rows say `no service` and they do not keep the run going: with two
//! dashboards on one data directory, the finish of the last task that can run ends the run,
//! and `on_all_done` runs once.

use super::all_done::{RECORD, quit_all, recorded};
use crate::common;
use common::pty::{Session, command};
use gendash::api::TaskKind;
use gendash::store::watchlist::{WatchEntry, WatchStore};
use std::time::Duration;

#[test]
fn tasks_of_no_usable_service_do_not_keep_the_run_going() {
    let served = common::Served::new();
    let home = served.path();
    let all_done = home.join("all-done.jsonl");
    // Nothing answers on port 1; the profile's client is never made (its token cannot be read).
    let broken = "http://127.0.0.1:1/broken";
    common::write_config(
        home,
        &format!(
            "base_url = \"{}\"\ntoken = \"{}\"\npoll_interval = 0.2\nbell = false\n\
             image_preview = \"off\"\n\
             on_all_done = [\"python3\", \"-c\", \"{RECORD}\", \"{}\", \"{{count}}\"]\n\n\
             [profiles.broken]\nbase_url = \"{broken}\"\ntoken_command = [\"false\"]\n",
            served.base,
            common::TOKEN,
            all_done.display(),
        ),
    );
    common::gendash_ok(home, &["watch", "add", "sim-20-polled"]);
    let stray = |id: &str, service: &str| {
        let mut e = WatchEntry::new(id, TaskKind::Image);
        e.service = Some(service.into());
        e
    };
    WatchStore::new(home.join("data/gendash/watchlist.json"))
        .update(|l| {
            l.extend([
                stray("sim-20-unconfigured", "http://127.0.0.1:1/nowhere"),
                stray("sim-20-unusable", broken),
            ]);
        })
        .expect("the strays are written");
    let lines = || recorded(&all_done);
    let dashboard = || Session::spawn(command(home, &[], &[]), 150, 40);
    let mut sessions = [dashboard(), dashboard()];
    sessions[0].wait_for(
        "the two strays' rows to say no service",
        Duration::from_secs(30),
        |screen| {
            ["sim-20-unconfigured", "sim-20-unusable"].iter().all(|id| {
                screen
                    .lines()
                    .any(|l| l.contains(id) && l.contains("no service"))
            })
        },
    );
    sessions[0].wait_for("on_all_done", Duration::from_secs(60), |_| {
        !lines().is_empty()
    });
    // Time for a second run of it, were the other dashboard to end the run too (the file is
    // read every second).
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(lines(), ["[\"1\"]"], "on_all_done once, for the one task");
    quit_all(&mut sessions);
}
