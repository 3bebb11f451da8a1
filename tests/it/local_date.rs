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

/// The one file under `dir/<date>/`, and the date folder it is in.
fn saved_under_a_date(dir: &Path) -> Option<(String, String)> {
    let day = std::fs::read_dir(dir).ok()?.flatten().next()?;
    let file = std::fs::read_dir(day.path()).ok()?.flatten().next()?;
    Some((
        day.file_name().to_string_lossy().into_owned(),
        file.file_name().to_string_lossy().into_owned(),
    ))
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
    s.wait_for("the completed task's file", Duration::from_secs(20), |_| {
        saved_under_a_date(&dl).is_some()
    });
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    let (day, file) = saved_under_a_date(&dl).unwrap();
    assert_eq!(file, "sim-1-dated.png");
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
    let (day, file) = saved_under_a_date(&out).unwrap();
    assert_eq!(file, "demo-image-done.png");
    assert!(
        local.contains(&day),
        "saved under {day}, local dates {local:?}"
    );
}
