//! Task IDs on the command line as the add dialog takes them (`watch add` trims and refuses
//! an empty one, `watch rm` says what it removed and what it did not find), and the shell
//! completion of `--profile`.

use crate::common;
use gendash::store::watchlist::WatchStore;
use std::path::Path;

/// `gendash ARGS` in `home` with its data in `home/data`; exit code, stdout, stderr.
fn run(home: &Path, args: &[&str]) -> (i32, String, String) {
    let out = common::gendash(home)
        .env("GENDASH_DATA_DIR", home.join("data"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn watched(home: &Path) -> Vec<String> {
    WatchStore::new(home.join("data/watchlist.json"))
        .read()
        .unwrap()
        .into_iter()
        .map(|e| e.task_id)
        .collect()
}

#[test]
fn watch_add_trims_and_refuses_empty_ids_and_watch_rm_says_what_it_removed() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    for blank in [&[""][..], &["   "], &[" , ", "\t"]] {
        let mut args = vec!["watch", "add"];
        args.extend_from_slice(blank);
        let (code, out, err) = run(home, &args);
        assert_eq!((code, out.as_str()), (2, ""), "{blank:?}: {err}");
        assert!(err.contains("no task ID given"), "{blank:?}: {err}");
    }
    assert!(watched(home).is_empty(), "nothing stored");
    let (code, out, err) = run(home, &["watch", "add", "  sim-1 ", "sim-2,", " sim-1"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "added image tasks: sim-1, sim-2\n");
    assert_eq!(watched(home), ["sim-1", "sim-2"], "trimmed, each once");
    let (code, _, err) = run(home, &["watch", "add", "ok-1", ".."]);
    assert_eq!(code, 2);
    assert!(
        err.contains("ID 2 of 2: `..` is not a valid task ID"),
        "{err}"
    );
    assert_eq!(
        watched(home),
        ["sim-1", "sim-2"],
        "nothing of a refused batch"
    );

    let (code, out, err) = run(home, &["watch", "rm", " sim-1 ", "zz"]);
    assert_eq!((code, out.as_str()), (4, "removed: sim-1\n"), "{err}");
    assert!(err.contains("not in the watch list: zz"), "{err}");
    assert_eq!(watched(home), ["sim-2"]);
    let (code, out, err) = run(home, &["watch", "rm", " "]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert_eq!(watched(home), ["sim-2"]);
}

/// The bash completion script, sourced into bash as a user's shell does, offers the config
/// file's profiles after `--profile` (at the top and after a subcommand).
#[test]
fn completion_offers_the_configs_profiles_after_profile() {
    let home = tempfile::tempdir().unwrap();
    common::write_config(
        home.path(),
        "[profiles.alpha]\nbase_url = \"http://127.0.0.1:9\"\n[profiles.beta-2]\n",
    );
    let script = home.path().join("gendash.bash");
    let out = common::gendash(home.path())
        .args(["completions", "bash"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    std::fs::write(&script, &out.stdout).unwrap();
    for words in [
        "gendash --profile ''",
        "gendash watch list --profile ''",
        "gendash --profile b",
    ] {
        let probe = format!(
            "source '{}'; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
             _gendash gendash \"${{COMP_WORDS[COMP_CWORD]}}\" --profile; \
             printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            script.display()
        );
        let out = common::clean_command("bash", home.path())
            .args(["-c", &probe])
            .output()
            .unwrap();
        let offered = String::from_utf8(out.stdout).unwrap();
        let want = if words.ends_with(" b") {
            "beta-2\n"
        } else {
            "alpha\nbeta-2\n"
        };
        assert_eq!(
            offered,
            want,
            "{words}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The other shells' scripts name them too.
    for shell in ["zsh", "fish"] {
        let out = common::gendash(home.path())
            .args(["completions", shell])
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("alpha") && text.contains("beta-2"), "{shell}");
    }
}
