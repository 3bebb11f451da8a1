//! `gendash wait`: each change reported, the ETA in JSON events, a stalled task, and retries through errors and `Retry-After`.

use super::*;

#[tokio::test]
async fn wait_reports_each_change_and_ends_with_the_right_code() {
    let svc = service().await;
    let base = svc.base_url();
    let (code, out, err) = run(&base, &["wait", "--json", "--interval", "0.2", "sim-3-a"]).await;
    assert_eq!(code, 0, "{err}");
    let events = json_lines(&out);
    let seen: Vec<(String, u64)> = events
        .iter()
        .map(|e| {
            (
                e["status"].as_str().unwrap().to_string(),
                e["percent"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("QUEUED".into(), 0),
            ("IN_PROGRESS".into(), 33),
            ("IN_PROGRESS".into(), 66),
            ("COMPLETED".into(), 100)
        ]
    );
    assert_eq!(events[3]["state"], "completed");
    assert!(
        events[3]["url_download"]
            .as_str()
            .unwrap()
            .ends_with("sim-3-a.png")
    );

    let (code, out, _) = run(&base, &["wait", "--interval", "0.2", "sim-2-b", "fail-2-c"]).await;
    assert_eq!(code, 5, "{out}");
    assert!(out.contains("FAILED") && out.contains("COMPLETED"), "{out}");

    let (code, out, _) = run(
        &base,
        &[
            "wait",
            "--json",
            "--interval",
            "0.2",
            "--timeout",
            "0.3",
            "hold-forever",
        ],
    )
    .await;
    assert_eq!(code, 6);
    assert!(out.contains(r#""event":"timeout""#), "{out}");

    let (code, _, _) = run(
        &base,
        &[
            "wait",
            "--interval",
            "0.2",
            "--not-found-grace",
            "0",
            "unknown-task",
        ],
    )
    .await;
    assert_eq!(code, 4);
}

#[tokio::test]
async fn wait_json_events_carry_the_eta_once_progress_moved_twice() {
    let svc = service().await;
    let (code, out, err) = run(
        &svc.base_url(),
        &["wait", "--json", "--interval", "0.2", "sim-5-e"],
    )
    .await;
    assert_eq!(code, 0, "{err}");
    let events = json_lines(&out);
    let (finished, running) = events.split_last().unwrap();
    assert_eq!(finished["state"], "completed", "{out}");
    assert!(finished.get("eta_seconds").is_none(), "{out}");
    let percents: Vec<u64> = running
        .iter()
        .map(|e| e["percent"].as_u64().unwrap())
        .collect();
    assert_eq!(percents, [0, 20, 40, 60, 80], "{out}");
    for (i, e) in running.iter().enumerate() {
        assert_eq!(e["state"], "running", "{out}");
        assert_eq!(e["stalled"], false, "{out}");
        // 0 % is the first sample, 20 % the first move: no ETA until the second.
        if i < 2 {
            assert!(e["eta_seconds"].is_null(), "{out}");
        } else {
            assert!(e["eta_seconds"].is_u64(), "{out}");
        }
    }
}

/// Starts `gendash ARGS` against `base` and returns its stdout's lines until one satisfies
/// `wanted` (included), or panics with what it read when the deadline passes first.
async fn lines_until(
    home: &Path,
    base: &Url,
    args: &[&str],
    wanted: impl Fn(&str) -> bool,
) -> Vec<String> {
    let mut child = common::gendash_async(home)
        .env("GENDASH_BASE_URL", base.as_str())
        .env("GENDASH_TOKEN", TOKEN)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    let found = tokio::time::timeout(std::time::Duration::from_secs(20), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            seen.push(line);
            if wanted(seen.last().unwrap()) {
                return true;
            }
        }
        false
    })
    .await;
    child.kill().await.unwrap();
    assert!(matches!(found, Ok(true)), "{seen:#?}");
    seen
}

#[tokio::test]
async fn wait_reports_a_task_that_does_not_move_as_stalled() {
    // `hold-…` stays at 50 % forever; a one-second threshold (the flag, or the config key)
    // makes it stalled within about a second. `--timeout` only bounds a stray process.
    let svc = service().await;
    let base = svc.base_url();
    let (json_home, plain_home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let config = plain_home.path().join("config/gendash/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "stall_after = 1\n").unwrap();
    let json_args = [
        "wait",
        "--json",
        "--interval",
        "0.2",
        "--stall-after",
        "1",
        "--timeout",
        "30",
        "hold-json",
    ];
    let plain_args = ["wait", "--interval", "0.2", "--timeout", "30", "hold-plain"];
    let (events, plain) = tokio::join!(
        lines_until(json_home.path(), &base, &json_args, |l| l
            .contains(r#""stalled":true"#)),
        lines_until(plain_home.path(), &base, &plain_args, |l| l
            .contains("stalled")),
    );

    let events: Vec<Value> = events
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        events.len(),
        2,
        "one event when seen, one when stalled: {events:#?}"
    );
    for (e, stalled) in events.iter().zip([false, true]) {
        assert_eq!(e["state"], "running");
        assert_eq!(e["percent"], 50);
        assert_eq!(e["stalled"], stalled);
        assert!(e["eta_seconds"].is_null(), "never moved: {e}");
    }

    assert_eq!(plain.len(), 2, "{plain:#?}");
    assert!(
        plain[0].contains("hold-plain") && plain[0].ends_with("50%  -"),
        "{plain:#?}"
    );
    let stall = &plain[1];
    assert!(
        stall.starts_with("hold-plain stalled at 50% (no progress for ") && stall.ends_with("s)"),
        "{stall}"
    );
}

#[tokio::test]
async fn wait_retries_through_errors_and_honours_retry_after() {
    // A service that is always busy: wait keeps retrying until its timeout.
    let raw = response(
        "503 Service Unavailable",
        "text/plain",
        "Retry-After: 1\r\n",
        "busy",
    );
    let fs = fault_server(Fault::Raw(raw)).await;
    let (code, out, _) = run(
        &fs.url(),
        &["wait", "--json", "--interval", "0.2", "--timeout", "4", "t"],
    )
    .await;
    assert_eq!(code, 6);
    let errors: Vec<Value> = json_lines(&out)
        .into_iter()
        .filter(|e| e.get("error").is_some())
        .collect();
    // A second apart at least (Retry-After: 1), so at most five in four seconds; at least
    // two even on a loaded machine.
    assert!(errors.len() >= 2 && errors.len() <= 5, "{out}");
    assert!(
        errors
            .iter()
            .all(|e| e["retry_in_ms"].as_u64().unwrap() >= 1000),
        "{out}"
    );
}
