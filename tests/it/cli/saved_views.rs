//! `[views.NAME]` as the command line meets it: a view's pane, filter or key that cannot be
//! used is refused by every command that reads the settings, naming the line; a good view's
//! key is listed by `gendash keys` with the rest.

use super::commands::{finished, split};
use crate::common::{self, write_config};
use std::path::Path;

async fn run_home(home: &Path, args: &[&str]) -> (u8, String, String) {
    let mut cmd = common::gendash_async(home);
    cmd.args(args);
    split(&finished(cmd).await)
}

#[tokio::test]
async fn a_view_that_cannot_be_used_is_refused_naming_its_line() {
    for (config, wanted) in [
        (
            "bell = false\n[views.odd]\npane = \"watch\"\nfilter = \"nosuchfield:x\"\n",
            "config.toml: views.odd.filter: nosuchfield: no such field",
        ),
        (
            "[views.sorted]\npane = \"archive\"\nfilter = \"sort:rating\"\n",
            "views.sorted.filter: sort:rating is not an order of the archive",
        ),
        (
            "[views.f]\npane = \"watch\"\n\nkey = \"u\"\n",
            "views.f.key: `u` is already `undo`'s (watch list); choose another key for the view (at line 4)",
        ),
        ("[views.m]\npane = \"models\"\n", "config.toml line 2"),
        (
            "[views.t]\npane = \"watch\"\ntype = \"sdxl\"\n",
            "views.t.type: only a browser view has a type (pane is watch)",
        ),
    ] {
        let home = tempfile::tempdir().unwrap();
        write_config(home.path(), config);
        for args in [&["keys"][..], &["config", "show"]] {
            let (code, _, err) = run_home(home.path(), args).await;
            assert_eq!(code, 1, "{config}: {err}");
            assert!(
                err.contains(wanted),
                "{config}\n  got: {err}\n  wanted: {wanted}"
            );
        }
    }
    // The filter's line is named.
    let home = tempfile::tempdir().unwrap();
    write_config(
        home.path(),
        "bell = false\n[views.odd]\npane = \"watch\"\nfilter = \"nosuchfield:x\"\n",
    );
    let (_, _, err) = run_home(home.path(), &["keys"]).await;
    assert!(err.trim_end().ends_with("(at line 4)"), "{err}");
}

#[tokio::test]
async fn gendash_keys_lists_a_views_own_key() {
    let home = tempfile::tempdir().unwrap();
    write_config(
        home.path(),
        "[views.failed]\npane = \"watch\"\nfilter = \"status:failed sort:status\"\nkey = \"F5\"\n",
    );
    let (code, out, err) = run_home(home.path(), &["keys"]).await;
    assert_eq!(code, 0, "{err}");
    let line = out
        .lines()
        .find(|l| l.contains("view failed"))
        .unwrap_or_else(|| panic!("the view's key in {out}"));
    assert!(line.contains("f5"), "{line}");
    assert!(line.contains("status:failed sort:status"), "{line}");
}
