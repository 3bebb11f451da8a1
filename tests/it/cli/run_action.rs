//! `gendash run-action NAME ID…`: one of the config's `[[actions]]` run headless against the
//! reference service (models) and the watch list (tasks), as a script meets it: a real program
//! that records what it was given, exit codes like the other commands', and `gendash keys`
//! refusing an action's key that clashes, naming the line.

use super::commands::{run_in, split};
use crate::common::{TOKEN, service, write_config};
use std::path::Path;

/// A program that appends its arguments and whether it saw the token, as a JSON line, to the
/// file it is given first; it prints a line and exits with `$EXIT` (0 when unset).
fn recorder(dir: &Path) -> (String, std::path::PathBuf) {
    let script = dir.join("record.py");
    let out = dir.join("runs.jsonl");
    std::fs::write(
        &script,
        "import json, os, sys\n\
         with open(sys.argv[1], 'a') as f:\n\
         \x20   f.write(json.dumps({'args': sys.argv[2:], 'token': any('SECRET' in v for v in os.environ.values())}) + '\\n')\n\
         print('recorded', len(sys.argv) - 2)\n\
         sys.exit(int(sys.argv[-1]) if sys.argv[-1].isdigit() else 0)\n",
    )
    .unwrap();
    let command = format!(
        "[\"python3\", \"{}\", \"{}\"",
        script.display(),
        out.display()
    );
    (command, out)
}

fn runs(out: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(out)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test]
async fn an_action_runs_on_models_of_the_service_without_the_token() {
    let svc = service().await;
    let home = tempfile::tempdir().unwrap();
    let (command, out) = recorder(home.path());
    write_config(
        home.path(),
        &format!(
            "[[actions]]\nname = \"note\"\nkey = \"ctrl-o\"\nscope = \"browser\"\n\
             command = {command}, \"{{model}}\", \"{{base_model}}\"]\n"
        ),
    );
    let output = run_in(
        home.path(),
        &svc.base_url(),
        TOKEN,
        &["run-action", "note", "tilt_shift_detailer"],
    )
    .await;
    let (code, stdout, err) = split(&output);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        stdout, "recorded 2\n",
        "the program's output passes through"
    );
    assert!(err.contains("note on tilt_shift_detailer: exit 0"), "{err}");
    assert_eq!(
        runs(&out),
        [serde_json::json!({"args": ["tilt_shift_detailer", "SD 1.5"], "token": false})]
    );

    // A model the catalogue lacks: exit 4; an action the config lacks: exit 2.
    let (code, _, err) = split(
        &run_in(
            home.path(),
            &svc.base_url(),
            TOKEN,
            &["run-action", "note", "no_such"],
        )
        .await,
    );
    assert_eq!(code, 4, "{err}");
    assert!(
        err.contains("not in the service's catalogue: no_such"),
        "{err}"
    );
    let (code, _, err) = split(
        &run_in(
            home.path(),
            &svc.base_url(),
            TOKEN,
            &["run-action", "nope", "x"],
        )
        .await,
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("no action named `nope` (known: note)"),
        "{err}"
    );
}

/// On the watch list: once per task (a task without the value skipped, said), or once with
/// every task; a program that fails makes the command fail.
#[tokio::test]
async fn an_action_runs_on_watched_tasks_each_or_all_at_once() {
    let svc = service().await;
    let home = tempfile::tempdir().unwrap();
    let (command, out) = recorder(home.path());
    write_config(
        home.path(),
        &format!(
            "[[actions]]\nname = \"tag\"\nkey = \"ctrl-t\"\nscope = \"watch\"\n\
             command = {command}, \"{{task_id}}\", \"{{label}}\"]\n\n\
             [[actions]]\nname = \"all\"\nkey = \"ctrl-a\"\nscope = [\"watch\", \"archive\"]\n\
             command = {command}, \"{{task_ids}}\", \"3\"]\n"
        ),
    );
    let base = svc.base_url();
    let gendash = |args: &'static [&'static str]| run_in(home.path(), &base, TOKEN, args);
    for add in [
        &["watch", "add", "--label", "sunset", "t-1"][..],
        &["watch", "add", "t-2"][..],
    ] {
        let (code, _, err) = split(&run_in(home.path(), &base, TOKEN, add).await);
        assert_eq!(code, 0, "{err}");
    }
    let (code, _, err) = split(&gendash(&["run-action", "tag", "t-1", "t-2"]).await);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("skipped t-2 ({label} is empty)"), "{err}");
    assert_eq!(runs(&out).len(), 1);
    assert_eq!(runs(&out)[0]["args"], serde_json::json!(["t-1", "sunset"]));

    let (code, _, err) = split(&gendash(&["run-action", "all", "t-1", "t-2"]).await);
    assert_eq!(code, 1, "the program exited 3: {err}");
    assert!(err.contains("all on t-1, t-2: exit 3"), "{err}");
    assert_eq!(
        runs(&out)[1]["args"],
        serde_json::json!(["t-1", "t-2", "3"])
    );
    let (code, _, err) = split(&gendash(&["run-action", "all", "t-9"]).await);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("not on the watch list: t-9"), "{err}");
}

/// An action's key bound already where it runs is refused, the action's line and the
/// `[keys]` line named; `gendash keys` lists an action that fits.
#[tokio::test]
async fn keys_refuses_a_clashing_action_naming_its_line_and_lists_one_that_fits() {
    let home = tempfile::tempdir().unwrap();
    let action = "[[actions]]\nname = \"up\"\nkey = \"x\"\nscope = \"watch\"\ncommand = [\"up\", \"{file}\"]\n";
    write_config(home.path(), &format!("[keys]\nmark = \"x\"\n\n{action}"));
    let base = url::Url::parse("http://127.0.0.1:9/").unwrap();
    let (code, _, err) = split(&run_in(home.path(), &base, TOKEN, &["keys"]).await);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("`x` of action `up` is bound to `mark` in the watch list")
            && err.contains("(at lines 2 and 6)"),
        "{err}"
    );
    write_config(home.path(), action);
    let (code, out, err) = split(&run_in(home.path(), &base, TOKEN, &["keys"]).await);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.lines()
            .any(|l| l.contains("up") && l.contains(" x ") && l.contains("up {file}")),
        "{out}"
    );
}
