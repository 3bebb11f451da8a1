//! Promises of the README that no other test held: which exit code wins, the empty request
//! body, `cate` in any case, one task ID at two services, the status history's length.

use crate::common::recorder::in_front_of;
use crate::common::{self, Fault, TOKEN, fault_server, response};
use common::pty::{Session, command};
use gendash::api::TaskKind;
use gendash::store::watchlist::WatchStore;
use std::time::Duration;

/// The reference service's answer for task `id` in `status` at `percent`.
fn task_body(id: &str, status: &str, percent: u8) -> String {
    serde_json::json!({
        "data": {"is_success": true, "data": {
            "task_id": id, "percent": percent, "status": status, "url_download": ""}},
        "errors": [], "error_description": ""
    })
    .to_string()
}

/// A service on which image task `failed` ended in `FAILED`, and `e401` and `e404` cannot be
/// asked about (401: authentication refused, exit 3; 404: lookup failed, exit 4).
async fn mixed_service() -> common::FaultServer {
    let json = |body: &str| response("200 OK", "application/json", "", body);
    fault_server(Fault::Routes(vec![
        (
            "/ai/image_generation/failed".into(),
            json(&task_body("failed", "FAILED", 100)),
        ),
        (
            "/ai/image_generation/e401".into(),
            response(
                "401 Unauthorized",
                "application/json",
                "WWW-Authenticate: Bearer\r\n",
                r#"{"errors": [{"code": 401, "message": "bad token"}], "error_description": "bad token"}"#,
            ),
        ),
    ]))
    .await
}

/// README, exit codes: "With several tasks, the first error's code wins over a failed task
/// (5)". `status` and `wait`, with a failed task and two errors in either order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_errors_exit_code_wins_over_a_failed_task() {
    let fs = mixed_service().await;
    let home = tempfile::tempdir().unwrap();
    let code = |args: &[&str]| {
        let out = common::gendash(home.path())
            .env("GENDASH_BASE_URL", fs.url().as_str())
            .env("GENDASH_TOKEN", TOKEN)
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let run = |args: &[&str]| tokio::task::block_in_place(|| code(args));
    // The failed task alone: 5.
    assert_eq!(run(&["status", "failed"]).0, Some(5));
    for cmd in [
        &["status"][..],
        &["wait", "--interval", "0.2", "--not-found-grace", "0"][..],
    ] {
        let with = |ids: &[&str]| {
            let mut args = cmd.to_vec();
            args.extend_from_slice(ids);
            run(&args)
        };
        let (c, err) = with(&["failed", "e401", "e404"]);
        assert_eq!(c, Some(3), "{cmd:?}: the first error, 401: {err}");
        let (c, err) = with(&["failed", "e404", "e401"]);
        assert_eq!(c, Some(4), "{cmd:?}: the first error, 404: {err}");
        let (c, err) = with(&["e404", "failed"]);
        assert_eq!(c, Some(4), "{cmd:?}: an error before the failure: {err}");
    }
}

/// README, decisions: "request bodies: none is sent (`Content-Length: 0`)". Every POST the
/// client sends (the catalogue, a lookup of each kind) as the wire saw it.
#[tokio::test]
async fn requests_carry_no_body_and_say_so() {
    let svc = common::service().await;
    let rec = in_front_of(svc.addr).await;
    let client = common::client(&rec.url());
    client.list_loras(None, Some("style")).await.unwrap();
    client
        .task_result(TaskKind::Image, "sim-1-a")
        .await
        .unwrap();
    client
        .task_result(TaskKind::Video, "sim-1-b")
        .await
        .unwrap();
    let seen = rec.seen();
    assert_eq!(seen.len(), 3, "{seen:?}");
    for r in &seen {
        assert_eq!(r.method, "POST", "{r:?}");
        assert_eq!(r.header("content-length"), Some("0"), "{r:?}");
        assert_eq!(r.header("transfer-encoding"), None, "{r:?}");
        assert!(r.body.is_empty(), "{r:?}");
    }
}

/// README, decisions: "allowed `cate` values: free text, matched case-insensitively by the
/// reference service". The client sends the category as given; the service answers the same
/// entries in any case.
#[tokio::test]
async fn cate_is_matched_in_any_case() {
    let svc = common::service().await;
    let rec = in_front_of(svc.addr).await;
    let client = common::client(&rec.url());
    let models = |cate: &'static str| {
        let client = client.clone();
        async move {
            let mut m: Vec<String> = client
                .list_loras(None, Some(cate))
                .await
                .unwrap()
                .entries
                .into_iter()
                .map(|e| e.model().to_string())
                .collect();
            m.sort();
            m
        }
    };
    let lower = models("style").await;
    assert!(!lower.is_empty());
    assert_eq!(models("STYLE").await, lower);
    assert_eq!(models("StYlE").await, lower);
    let all = models("nosuchcategory").await;
    assert!(all.is_empty(), "{all:?}");
    let asked: Vec<String> = rec.seen().into_iter().map(|r| r.path).collect();
    assert_eq!(
        asked[..3],
        [
            "/lora/?cate=style",
            "/lora/?cate=STYLE",
            "/lora/?cate=StYlE"
        ],
        "sent as given"
    );
}

/// README, decisions: "the same task ID at two services: one entry (…) and the first service
/// it was added for keeps it". Added at `first`, then at `second`: one entry in the file, for
/// `first`; the dashboard polls it there with that service's token and never asks `second`.
#[test]
fn one_task_id_at_two_services_is_one_entry_kept_by_the_first() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (svc_a, svc_b) = rt.block_on(async {
        (
            common::service().await,
            common::service_with(gendash::server::Options::new(gendash::api::Secret::new(
                "token-b",
            )))
            .await,
        )
    });
    let (first, second) =
        rt.block_on(async { (in_front_of(svc_a.addr).await, in_front_of(svc_b.addr).await) });
    let home = tempfile::tempdir().unwrap();
    common::write_config(
        home.path(),
        &format!(
            "base_url = \"{}\"\ntoken = \"{TOKEN}\"\npoll_interval = 0.2\nbell = false\n\
             desktop_notifications = false\nimage_preview = \"off\"\n\n\
             [profiles.b]\nbase_url = \"{}\"\ntoken = \"token-b\"\n",
            first.base(),
            second.base()
        ),
    );
    common::gendash_ok(home.path(), &["watch", "add", "sim-1-twice"]);
    let again = common::gendash(home.path())
        .args(["--profile", "b", "watch", "add", "sim-1-twice"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&again.stderr).into_owned()
        + &String::from_utf8_lossy(&again.stdout);
    assert!(
        said.contains("already watched: sim-1-twice"),
        "says so: {said}"
    );
    let list = common::gendash_ok(home.path(), &["watch", "list", "--json"]);
    let list: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    let entries: Vec<_> = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["task_id"] == "sim-1-twice")
        .collect();
    assert_eq!(entries.len(), 1, "{list}");
    assert_eq!(
        entries[0]["service"].as_str().unwrap(),
        first.base().trim_end_matches('/')
    );

    let second_before = second.count();
    let mut s = Session::spawn(command(home.path(), &["--profile", "b"], &[]), 150, 40);
    s.wait_for("the task completed", Duration::from_secs(30), |t| {
        t.lines()
            .any(|l| l.contains("sim-1-twice") && l.contains("COMPLETED"))
    });
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    let polls: Vec<_> = first
        .seen()
        .into_iter()
        .filter(|r| r.path == "/ai/image_generation/sim-1-twice")
        .collect();
    assert!(!polls.is_empty());
    for r in &polls {
        assert_eq!(
            r.header("authorization"),
            Some(format!("Bearer {TOKEN}").as_str())
        );
    }
    assert!(
        second.seen()[second_before..]
            .iter()
            .all(|r| !r.path.contains("sim-1-twice")),
        "the second service was asked about it: {:?}",
        second.seen()
    );
}

/// README, the watch list's details: "the status history (each transition at its local clock
/// time, the last 20 kept in the watch list file)". A task that changes its status 22 times:
/// the file keeps the last 20, in order.
#[test]
fn the_status_history_keeps_the_last_twenty() {
    const CHANGES: usize = 22;
    let rt = tokio::runtime::Runtime::new().unwrap();
    let svc = rt.block_on(common::service());
    let statuses: Vec<String> = (1..CHANGES)
        .map(|n| format!("STEP-{n:02}"))
        .chain(["COMPLETED".to_string()])
        .collect();
    // One answer per connection (each one closed after it), in turn; the last again after.
    let answers: Vec<String> = statuses
        .iter()
        .enumerate()
        .map(|(n, s)| {
            let percent = u8::try_from(100 * (n + 1) / CHANGES).unwrap();
            response(
                "200 OK",
                "application/json",
                "",
                &task_body("sim-x-steps", s, percent),
            )
        })
        .collect();
    let steps = rt.block_on(fault_server(Fault::Sequence(answers)));
    let home = tempfile::tempdir().unwrap();
    common::write_config(
        home.path(),
        &format!(
            "base_url = \"{}\"\ntoken = \"{TOKEN}\"\npoll_interval = 0.2\nbell = false\n\
             desktop_notifications = false\nimage_preview = \"off\"\n\n\
             [profiles.steps]\nbase_url = \"{}\"\ntoken = \"token-steps\"\n",
            svc.base_url(),
            steps.url()
        ),
    );
    common::gendash_ok(
        home.path(),
        &["--profile", "steps", "watch", "add", "sim-x-steps"],
    );
    let before = steps.requests.lock().unwrap().len();
    let mut s = Session::spawn(command(home.path(), &[], &[]), 150, 40);
    s.wait_for("the task completed", Duration::from_secs(30), |t| {
        t.lines()
            .any(|l| l.contains("sim-x-steps") && l.contains("COMPLETED"))
    });
    assert!(
        steps.requests.lock().unwrap().len() - before > 20,
        "the dashboard saw more than 20 statuses"
    );
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    // As the file holds it.
    let loaded = WatchStore::new(home.path().join("data/gendash/watchlist.json"))
        .load()
        .unwrap();
    let entry = loaded
        .entries
        .iter()
        .find(|e| e.task_id == "sim-x-steps")
        .unwrap();
    let history: Vec<&str> = entry
        .last
        .as_ref()
        .unwrap()
        .history
        .iter()
        .map(|t| t.status.as_str())
        .collect();
    let want: Vec<&str> = statuses[CHANGES - 20..]
        .iter()
        .map(String::as_str)
        .collect();
    assert_eq!(history, want, "the last 20, oldest first");
}
