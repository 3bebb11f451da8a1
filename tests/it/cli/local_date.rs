//! `{date}` in `download_template` is the local date, in the dashboard and in `gendash download`
//! alike: both take it from the one clock (`gendash::clock`), whose local offset is read once,
//! before any thread starts.

use crate::common::{self, pty::Session, pty::command};
use std::path::Path;
use std::time::Duration;

/// A `TZ` whose date differs from UTC's right now (+14 h in the UTC afternoon, -12 h in the
/// morning), and the dates it gives around now: the test may straddle a midnight.
fn zone_other_than_utc() -> (&'static str, Vec<String>) {
    let now = time::OffsetDateTime::now_utc();
    let (tz, hours) = if now.hour() >= 12 {
        ("XXX-14", 14)
    } else {
        ("XXX+12", -12)
    };
    let offset = time::UtcOffset::from_hms(hours, 0, 0).unwrap();
    let fmt = time::macros::format_description!("[year]-[month]-[day]");
    let dates = [now, now + Duration::from_secs(120)]
        .iter()
        .map(|t| t.to_offset(offset).format(&fmt).unwrap())
        .collect();
    (tz, dates)
}

fn utc_today() -> String {
    let fmt = time::macros::format_description!("[year]-[month]-[day]");
    time::OffsetDateTime::now_utc().format(&fmt).unwrap()
}

/// The date folder under `dir` that holds `name` (the download is whole: renamed from its
/// `.part`), and every entry under `dir` as `date/file`.
fn saved_under_a_date(dir: &Path, name: &str) -> (Option<String>, Vec<String>) {
    let mut all = Vec::new();
    let mut found = None;
    for day in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let day_name = day.file_name().to_string_lossy().into_owned();
        for file in std::fs::read_dir(day.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let file_name = file.file_name().to_string_lossy().into_owned();
            if file_name == name {
                found = Some(day_name.clone());
            }
            all.push(format!("{day_name}/{file_name}"));
        }
    }
    (found, all)
}

#[test]
fn the_dashboard_saves_under_the_local_date() {
    let (tz, local) = zone_other_than_utc();
    assert!(
        !local.contains(&utc_today()),
        "{tz} must not give UTC's date"
    );
    let served = common::Served::with(
        "poll_interval = 0.2\nbell = false\ndesktop_notifications = false\n\
         auto_download = true\ndownload_dir = \"~/dl\"\n\
         download_template = \"{date}/{task_id}.{ext}\"\n",
        &["sim-1-dated"],
    );
    let dl = served.path().join("dl");
    let mut env = served.env().to_vec();
    env.push(("TZ", tz));
    let mut s = Session::spawn(command(served.path(), &[], &env), 120, 30);
    // The row's file name: the download is done, its `.part` files gone with it.
    s.wait_for("the completed task's file", Duration::from_secs(20), |t| {
        saved_under_a_date(&dl, "sim-1-dated.png").0.is_some() && t.contains("sim-1-dated.png")
    });
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    let (day, all) = saved_under_a_date(&dl, "sim-1-dated.png");
    assert_eq!(all.len(), 1, "{all:?}");
    let day = day.unwrap();
    assert!(
        local.contains(&day),
        "saved under {day}, local dates {local:?}"
    );
}

#[test]
fn gendash_download_saves_under_the_local_date() {
    let (tz, local) = zone_other_than_utc();
    let served = common::Served::new();
    served.config("download_template = \"{date}/{task_id}.{ext}\"\n");
    let out = served.path().join("out");
    let o = common::gendash(served.path())
        .env("TZ", tz)
        .env("GENDASH_TOKEN", common::TOKEN)
        .args(["--base-url", &served.base, "download", "--output-dir"])
        .arg(&out)
        .arg("demo-image-done")
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let (day, all) = saved_under_a_date(&out, "demo-image-done.png");
    let day = day.unwrap_or_else(|| panic!("no demo-image-done.png under a date: {all:?}"));
    assert!(
        local.contains(&day),
        "saved under {day}, local dates {local:?}"
    );
}
