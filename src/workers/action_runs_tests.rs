use super::*;
use crate::store::config::{Fill, OwnAction, Scope, expand};

/// A row of a test: its task ID and its file.
struct Task(&'static str, &'static str);

impl Fill for Task {
    fn called(&self) -> String {
        self.0.to_string()
    }
    fn value(&self, placeholder: &str) -> Option<String> {
        match placeholder {
            "task_id" => Some(self.0.to_string()),
            "file" => Some(self.1.to_string()),
            _ => None,
        }
    }
}

/// A program that records its arguments, one JSON list per run, in `out`.
fn recorder(out: &std::path::Path) -> Vec<String> {
    vec![
        "python3".into(),
        "-c".into(),
        "import json,sys; open(sys.argv[1],'a').write(json.dumps(sys.argv[2:])+'\\n'); \
         print('working'); print('wrote', len(sys.argv) - 2, 'arguments')"
            .into(),
        out.to_string_lossy().into_owned(),
    ]
}

fn action(command: Vec<String>) -> OwnAction {
    OwnAction {
        name: "record".into(),
        key: "u".parse().expect("key"),
        scopes: vec![Scope::Watch],
        command,
        confirm: false,
    }
}

fn recorded(out: &std::path::Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(out)
        .expect("recorded")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

/// A real program gets the filled arguments exactly: once per row, or once with every row;
/// a row whose placeholder is empty is not run; each end is told with its exit code and last
/// line, and recorded in the request log.
#[tokio::test]
async fn a_real_program_runs_once_per_row_or_once_with_all() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("args.jsonl");
    let rows = [
        Task("t-1", "/d/one.png"),
        Task("t-2", ""),
        Task("t-3", "/d/a b; $(id).png"),
    ];
    let mut each = recorder(&out);
    each.extend(["{task_id}".into(), "--in={file}".into()]);
    let mut all = recorder(&out);
    all.extend(["{files}".into(), "--".into()]);
    let (tx, mut rx) = mpsc::channel(16);
    let actions = spawn(Duration::from_secs(20), tx);
    for (id, command) in [(1, each), (2, all)] {
        let filled = expand(&action(command), Scope::Watch, &rows);
        assert_eq!(
            filled.skipped_text().as_deref(),
            Some("skipped t-2 ({file} is empty)")
        );
        actions
            .run(ActionRun {
                id,
                name: "record".into(),
                runs: filled.runs,
            })
            .await
            .expect("ran");
    }
    assert_eq!(
        recorded(&out),
        [
            vec!["t-1", "--in=/d/one.png"],
            vec!["t-3", "--in=/d/a b; $(id).png"],
            vec!["/d/one.png", "/d/a b; $(id).png", "--"],
        ]
    );
    let mut ends = Vec::new();
    let mut runs = Vec::new();
    while let Ok(msg) = rx.try_recv() {
        match msg {
            Msg::ActionEnded(e) => ends.push(e),
            Msg::Request(r) => runs.push(r),
            _ => {}
        }
    }
    let told: Vec<(u64, Vec<String>, bool)> = ends
        .iter()
        .map(|e| (e.id, e.rows.clone(), e.last))
        .collect();
    assert_eq!(
        told,
        [
            (1, vec!["t-1".to_string()], false),
            (1, vec!["t-3".to_string()], true),
            (2, vec!["t-1".to_string(), "t-3".into()], true),
        ]
    );
    assert_eq!(
        ends[2].outcome,
        Ok((Some(0), Some("wrote 3 arguments".to_string())))
    );
    assert_eq!(runs.len(), 3);
    assert_eq!(runs[0].method, "RUN");
    assert_eq!(runs[0].status, Some(0));
    assert!(
        runs[0].url.ends_with(" t-1 '--in=/d/one.png'"),
        "{}",
        runs[0].url
    );
    assert_eq!(runs[0].curl(), runs[0].url, "copied as the command line");
}

/// A failing program's exit code and last line are told; the request log's row is an error.
#[tokio::test]
async fn a_failure_tells_its_exit_code_and_last_line() {
    let args: Vec<String> = [
        "sh",
        "-c",
        "echo half done; echo 'no space left' >&2; exit 3",
    ]
    .map(String::from)
    .to_vec();
    let (ended, record) = run_one("x", &args, Duration::from_secs(20)).await;
    assert_eq!(ended, Ok((Some(3), Some("half done".to_string()))));
    assert_eq!(record.status, Some(3));
    assert_eq!(record.error.as_deref(), Some("half done"));
    let missing = vec!["/nonexistent/gendash-action".to_string()];
    let (ended, _) = run_one("x", &missing, Duration::from_secs(20)).await;
    assert!(
        ended
            .as_ref()
            .is_err_and(|e| e.starts_with("cannot run /nonexistent/gendash-action")),
        "{ended:?}"
    );
}

/// The request log's row keeps the last lines of what the program wrote, sanitised, stdout's
/// before stderr's, empty lines left out.
#[tokio::test]
async fn the_request_logs_row_keeps_the_last_lines_of_the_output() {
    let args: Vec<String> = [
        "sh",
        "-c",
        "printf 'one\\ntwo\\n\\nthree\\n'; printf 'warn \\033[31mred\\n' >&2",
    ]
    .map(String::from)
    .to_vec();
    let (_, record) = run_one("x", &args, Duration::from_secs(20)).await;
    assert_eq!(record.output.as_deref(), Some("two ⏎ three ⏎ warn red"));
    let quiet = ["true".to_string()];
    let (_, record) = run_one("x", &quiet, Duration::from_secs(20)).await;
    assert_eq!(record.output, None, "nothing written");
}

/// `action_timeout` ends the program and what it started (its process group).
#[tokio::test]
async fn the_time_limit_stops_the_program_and_its_children() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pid_file = dir.path().join("child.pid");
    let args: Vec<String> = vec![
        "sh".into(),
        "-c".into(),
        "sleep 30 & echo $! > \"$0\"; wait".into(),
        pid_file.to_string_lossy().into_owned(),
    ];
    let started = Instant::now();
    let (ended, record) = run_one("slow", &args, Duration::from_millis(300)).await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(
        ended,
        Err("sh took longer than 0s and was stopped".to_string())
    );
    assert!(record.error.is_some());
    let child = std::fs::read_to_string(&pid_file).expect("pid");
    let proc = std::path::PathBuf::from(format!("/proc/{}", child.trim()));
    // Killed with its group; gone once reaped (by init), within a bound.
    let mut gone = false;
    for _ in 0..50 {
        let state = std::fs::read_to_string(proc.join("stat")).unwrap_or_default();
        if state.is_empty() || state.contains(") Z ") {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(gone, "the program's child outlived the time limit");
}

/// The token never reaches the program's environment; the rest of it does.
#[tokio::test]
async fn the_program_never_gets_the_token() {
    let args: Vec<String> = ["sh", "-c", "env"].map(String::from).to_vec();
    let ran = program::run_with(
        &args,
        Duration::from_secs(20),
        &[
            ("GENDASH_TOKEN", "sekrit-token"),
            ("ACTION_TEST_KEPT", "yes"),
        ],
    )
    .await
    .expect("ran");
    let env = String::from_utf8_lossy(&ran.stdout);
    assert!(env.contains("ACTION_TEST_KEPT=yes"), "{env}");
    assert!(!env.contains("sekrit-token"), "{env}");
}
