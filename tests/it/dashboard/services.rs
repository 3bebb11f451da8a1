//! One watch list, several services: each task is polled at the service it was added for,
//! with that service's token, and a task whose service is not configured is never polled.

use crate::common;
use crate::common::recorder::in_front_of;
use common::pty::{Session, command};
use gendash::api::{Secret, TaskKind};
use gendash::server::Options;
use std::time::Duration;

/// Asks `svc` (with its own token) for `id`: a task the service never saw answers QUEUED at 0%,
/// so this tells whether the dashboard asked it before.
async fn status_at(svc: &gendash::server::Running, token: &str, id: &str) -> String {
    let client = common::client_with(&svc.base_url(), token, Duration::from_secs(5));
    let r = client.task_result(TaskKind::Image, id).await.unwrap();
    format!("{} {}", r.status, r.percent)
}

/// Two profiles, `alpha` and `beta`, each with its service's base URL and token.
fn write_profiles(home: &std::path::Path, alpha: &str, beta: &str) {
    common::write_config(
        home,
        &format!(
            "poll_interval = 0.2\nbell = false\ndesktop_notifications = false\n\n\
             [profiles.alpha]\nbase_url = \"{alpha}\"\ntoken = \"token-alpha\"\n\n\
             [profiles.beta]\nbase_url = \"{beta}\"\ntoken = \"token-beta\"\n",
        ),
    );
}

/// A home, and on a runtime of their own a reference service for each of `tokens`.
fn home_and_services(
    tokens: [&str; 3],
) -> (
    tempfile::TempDir,
    tokio::runtime::Runtime,
    [gendash::server::Running; 3],
) {
    let home = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let services = rt.block_on(async {
        [
            common::service_with(Options::new(Secret::new(tokens[0]))).await,
            common::service_with(Options::new(Secret::new(tokens[1]))).await,
            common::service_with(Options::new(Secret::new(tokens[2]))).await,
        ]
    });
    (home, rt, services)
}

/// Whether each of `ids` has a row on `screen` that says COMPLETED.
fn all_completed(screen: &str, ids: &[&str]) -> bool {
    ids.iter().all(|id| {
        screen
            .lines()
            .any(|l| l.contains(id) && l.contains("COMPLETED"))
    })
}

/// The row of an ID on `screen`; a test fails, showing the screen, where there is none.
fn row_in(screen: &str) -> impl Fn(&str) -> String + '_ {
    move |id| {
        screen
            .lines()
            .find(|l| l.contains(id))
            .unwrap_or_else(|| panic!("no row for {id} in\n{screen}"))
            .to_string()
    }
}

#[test]
fn each_task_is_polled_only_at_its_own_service() {
    let (home, rt, [alpha, beta, other]) =
        home_and_services(["token-alpha", "token-beta", "token-other"]);
    let base = |s: &gendash::server::Running| s.base_url().to_string();
    write_profiles(home.path(), &base(&alpha), &base(&beta));
    let gendash = |args: &[&str]| {
        let out = common::gendash(home.path()).args(args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // Saved before entries remembered their service: it adopts the dashboard's.
    assert_eq!(gendash(&["watch", "add", "sim-2-legacy"]).0, Some(0));
    assert_eq!(
        gendash(&["--profile", "alpha", "watch", "add", "sim-2-one"]).0,
        Some(0)
    );
    assert_eq!(
        gendash(&["--profile", "beta", "watch", "add", "sim-2-two"]).0,
        Some(0)
    );
    // The service nobody configured, behind a recorder that counts what reaches it.
    let stray = rt.block_on(in_front_of(other.addr));
    let other_url = stray.base();
    assert_eq!(
        gendash(&["--base-url", &other_url, "watch", "add", "sim-2-three"]).0,
        Some(0)
    );

    let stray_before = stray.count();
    let mut s = Session::spawn(command(home.path(), &["--profile", "alpha"], &[]), 150, 40);
    s.wait_for(
        "every task of a configured service to complete",
        Duration::from_secs(30),
        |t| all_completed(t, &["sim-2-legacy", "sim-2-one", "sim-2-two"]),
    );
    // Not one request, so not one token, reached the service nobody configured (seen on the
    // wire, not inferred from that service's own state).
    let reached = &stray.seen()[stray_before..];
    assert!(
        reached.is_empty(),
        "an unconfigured service was asked: {reached:?}"
    );
    assert_eq!(stray.authorizations(), 0, "{:?}", stray.seen());
    let screen = s.contents();
    let row = row_in(&screen);
    assert!(screen.contains("SERVICE"), "{screen}");
    assert!(row("sim-2-legacy").contains(" alpha "), "{screen}");
    assert!(row("sim-2-one").contains(" alpha "), "{screen}");
    assert!(row("sim-2-two").contains(" beta "), "{screen}");
    let other_row = row("sim-2-three");
    assert!(other_row.contains("no service"), "{screen}");
    assert!(
        other_row.contains(&stray.addr.port().to_string()),
        "{screen}"
    );
    assert!(
        screen.contains("1 no service"),
        "counted in the title:\n{screen}"
    );
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();

    rt.block_on(each_service_saw_only_its_own(&alpha, &beta, &other));
    the_cli_shows_and_removes_by_service(&gendash, &base(&alpha), stray.addr.port());
}

type Run<'a> = &'a dyn Fn(&[&str]) -> (Option<i32>, String, String);

/// After the dashboard: the saved services as `watch list` shows them, and `watch rm` by service.
fn the_cli_shows_and_removes_by_service(gendash: Run<'_>, alpha: &str, other_port: u16) {
    // The legacy entry now remembers the service it was polled at.
    let (code, out, _) = gendash(&["watch", "list", "--json"]);
    assert_eq!(code, Some(0));
    let list: serde_json::Value = serde_json::from_str(&out).unwrap();
    let service_of = |id: &str| {
        let e = list
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["task_id"] == id)
            .unwrap();
        (
            e["service"].as_str().unwrap().to_string(),
            e["service_name"].as_str().unwrap().to_string(),
        )
    };
    let alpha_url = alpha.trim_end_matches('/').to_string();
    assert_eq!(
        service_of("sim-2-legacy"),
        (alpha_url.clone(), "alpha".into())
    );
    assert_eq!(service_of("sim-2-one"), (alpha_url, "alpha".into()));
    assert_eq!(service_of("sim-2-two").1, "beta");
    assert_eq!(
        service_of("sim-2-three").1,
        format!("127.0.0.1:{other_port}")
    );
    let (_, text, _) = gendash(&["watch", "list"]);
    assert!(
        text.lines()
            .any(|l| l.contains("sim-2-two") && l.ends_with("beta")),
        "{text}"
    );

    // `watch rm` removes the tasks of the service in force, and names the other's.
    let (code, _, err) = gendash(&["--profile", "alpha", "watch", "rm", "sim-2-two"]);
    assert_ne!(code, Some(0));
    assert!(err.contains("sim-2-two (watched for beta)"), "{err}");
    assert_eq!(
        gendash(&["--profile", "beta", "watch", "rm", "sim-2-two"]).0,
        Some(0)
    );
    let (_, text, _) = gendash(&["watch", "list"]);
    assert!(!text.contains("sim-2-two"), "{text}");
}

/// Each service saw its own tasks through to the end, and no other's.
async fn each_service_saw_only_its_own(
    alpha: &gendash::server::Running,
    beta: &gendash::server::Running,
    other: &gendash::server::Running,
) {
    // Each service saw its own tasks through to the end, and no other's.
    assert_eq!(
        status_at(alpha, "token-alpha", "sim-2-one").await,
        "COMPLETED 100"
    );
    assert_eq!(
        status_at(alpha, "token-alpha", "sim-2-legacy").await,
        "COMPLETED 100"
    );
    assert_eq!(
        status_at(beta, "token-beta", "sim-2-two").await,
        "COMPLETED 100"
    );
    for id in ["sim-2-two", "sim-2-three"] {
        assert_eq!(
            status_at(alpha, "token-alpha", id).await,
            "QUEUED 0",
            "{id} at alpha"
        );
    }
    for id in ["sim-2-one", "sim-2-legacy", "sim-2-three"] {
        assert_eq!(
            status_at(beta, "token-beta", id).await,
            "QUEUED 0",
            "{id} at beta"
        );
    }
    assert_eq!(
        status_at(other, "token-other", "sim-2-three").await,
        "QUEUED 0",
        "an unconfigured service is never asked"
    );
}

/// The config file's own `base_url` and token stay a configured service when a profile is in
/// force: a task added without `--profile` is polled, and its file downloaded by
/// `auto_download`, at the top level's service with the top level's token; the profile's
/// task at the profile's. Only a base URL that neither names is `no service`.
#[test]
fn the_top_level_service_is_polled_with_its_own_token_under_a_profile() {
    let (home, rt, [top, alpha, other]) =
        home_and_services(["token-top", "token-alpha", "token-other"]);
    let base = |s: &gendash::server::Running| s.base_url().to_string();
    common::write_config(
        home.path(),
        &format!(
            "base_url = \"{}\"\ntoken = \"token-top\"\npoll_interval = 0.2\nbell = false\n\
             desktop_notifications = false\nauto_download = true\ndownload_dir = \"~/dl\"\nimage_preview = \"off\"\n\n\
             [profiles.alpha]\nbase_url = \"{}\"\ntoken = \"token-alpha\"\n",
            base(&top),
            base(&alpha)
        ),
    );
    let add = |args: &[&str]| {
        common::gendash_ok(home.path(), args);
    };
    add(&["watch", "add", "sim-2-top"]);
    add(&["--profile", "alpha", "watch", "add", "sim-2-alpha"]);
    add(&["--base-url", &base(&other), "watch", "add", "sim-2-stray"]);

    let mut s = Session::spawn(command(home.path(), &["--profile", "alpha"], &[]), 150, 40);
    let saved = home.path().join("dl/sim-2-top.png");
    s.wait_for(
        "both configured services' tasks complete, the top level's file saved",
        Duration::from_secs(30),
        |t| saved.exists() && all_completed(t, &["sim-2-top", "sim-2-alpha"]),
    );
    let screen = s.contents();
    let row = row_in(&screen);
    let top_name = format!("127.0.0.1:{}", top.addr.port());
    assert!(row("sim-2-top").contains(&top_name), "{screen}");
    assert!(!row("sim-2-top").contains("no service"), "{screen}");
    assert!(row("sim-2-alpha").contains(" alpha "), "{screen}");
    assert!(row("sim-2-stray").contains("no service"), "{screen}");
    assert!(screen.contains("1 no service"), "{screen}");
    assert!(!screen.contains("unusable"), "{screen}");
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);

    top_level_tasks_went_to_the_top_level(&rt, [&top, &alpha, &other]);
    let out = common::gendash(home.path())
        .args(["--profile", "alpha", "watch", "list", "--json"])
        .output()
        .unwrap();
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let top_entry = list
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["task_id"] == "sim-2-top")
        .unwrap();
    assert_eq!(top_entry["service_name"], top_name.as_str());
}

/// Each service saw only its own tasks, and the top level's file was fetched from it once.
fn top_level_tasks_went_to_the_top_level(
    rt: &tokio::runtime::Runtime,
    [top, alpha, other]: [&gendash::server::Running; 3],
) {
    rt.block_on(async {
        assert_eq!(
            status_at(top, "token-top", "sim-2-top").await,
            "COMPLETED 100",
            "polled at the top level's service, with its token"
        );
        assert_eq!(
            status_at(alpha, "token-alpha", "sim-2-top").await,
            "QUEUED 0"
        );
        assert_eq!(
            status_at(other, "token-other", "sim-2-stray").await,
            "QUEUED 0"
        );
    });
    let gets: Vec<_> = top
        .file_requests()
        .into_iter()
        .filter(|r| r.method == "GET" && r.name == "sim-2-top.png")
        .collect();
    assert_eq!(
        gets.len(),
        1,
        "one download, at the top level's service: {gets:?}"
    );
    assert_eq!(gets[0].status, 200);
    assert!(
        alpha
            .file_requests()
            .iter()
            .all(|r| r.name == "sim-2-alpha.png"),
        "nothing of the top level's asked of the profile's: {:?}",
        alpha.file_requests()
    );
}
