//! When a watched task finishes: `on_complete` runs with the task's values as exact arguments
//! (no shell), and inside tmux the desktop notification is wrapped in tmux's passthrough.

use crate::common;
use common::pty::{Session, command};
use std::time::Duration;

#[test]
fn on_complete_runs_without_a_shell_and_tmux_gets_the_notice_passed_through() {
    let home = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let svc = rt.block_on(common::service());
    let base = svc.base_url().to_string();
    let record = home.path().join("hook.jsonl");
    let dir = home.path().join("config/gendash");
    std::fs::create_dir_all(&dir).unwrap();
    // The recording program appends its arguments, one JSON array a line.
    let program = "import json,sys; open(sys.argv[1],'a').write(json.dumps(sys.argv[2:])+chr(10))";
    std::fs::write(
        dir.join("config.toml"),
        format!(
            "poll_interval = 0.2\nbell = false\n\
             on_complete = [\"python3\", \"-c\", \"{program}\", \"{}\", \"{{task_id}} {{status}}\", \
             \"{{kind}}\", \"{{percent}}\", \"{{url}}\", \"[{{file}}]\", \"; rm -rf $(pwd) '\\\"\"]\n",
            record.display()
        ),
    )
    .unwrap();
    let out = common::gendash(home.path())
        .args(["--base-url", &base, "watch", "add", "sim-2-hooked"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let env = [
        ("GENDASH_TOKEN", common::TOKEN),
        ("GENDASH_BASE_URL", base.as_str()),
        ("TMUX", "/tmp/tmux-1000/default,4242,0"),
    ];
    let mut s = Session::spawn(command(home.path(), &[], &env), 150, 40);
    s.wait_for("the hook to have run", Duration::from_secs(20), |_| {
        std::fs::read_to_string(&record).is_ok_and(|t| t.ends_with('\n'))
    });
    let lines: Vec<Vec<String>> = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines,
        [vec![
            "sim-2-hooked COMPLETED".to_string(),
            "image".into(),
            "100".into(),
            format!("{}/files/sim-2-hooked.png", base.trim_end_matches('/')),
            "[]".into(),
            "; rm -rf $(pwd) '\"".into(),
        ]],
        "once, each argument exactly as configured"
    );
    let raw = s.raw();
    let wrapped = b"\x1bPtmux;\x1b\x1b]9;gendash: task completed: image sim-2-hooked";
    assert!(
        memchr::memmem::find(&raw, wrapped).is_some(),
        "the notification in tmux's passthrough: {}",
        String::from_utf8_lossy(&raw).escape_debug()
    );
    assert!(
        memchr::memmem::find(&raw, b"\x1b]9;gendash").is_none()
            || memchr::memmem::find(&raw, b"\x1b\x1b]9;gendash").is_some(),
        "never unwrapped inside tmux"
    );
    s.send("q");
    assert_eq!(s.wait_exit(Duration::from_secs(10)), 0);
    s.assert_restored();
    assert_eq!(
        std::fs::read_to_string(&record).unwrap().lines().count(),
        1,
        "not run again"
    );
}

#[test]
fn a_bad_on_complete_is_an_error_naming_the_line_and_key() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join("config/gendash");
    std::fs::create_dir_all(&dir).unwrap();
    for (value, says) in [
        (
            r#"["notify-send", "{task}"]"#,
            "`{task}` is not a placeholder",
        ),
        (r#"["notify-send", "{status"]"#, "without its `}`"),
        ("[]", "on_complete names no program"),
        (r#""notify-send {status}""#, "invalid type"),
    ] {
        std::fs::write(
            dir.join("config.toml"),
            format!("bell = false\non_complete = {value}\n"),
        )
        .unwrap();
        let out = common::gendash(home.path())
            .args(["config", "show"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{value}");
        assert!(
            err.contains("config.toml line 2") && err.contains(says),
            "{value}: {err}"
        );
    }
}
