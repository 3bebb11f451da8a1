//! The watch list survives: writers killed mid-save, unreadable files, concurrent writers, and
//! disks that refuse the write.

use crate::common;

use common::clean_command;
use gendash::store::watchlist::{WatchEntry, WatchStore};
use gendash::testing::stress_lists;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use rand::{Rng, SeedableRng};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

#[test]
fn sigkill_at_random_moments_never_leaves_a_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("watchlist.json");
    let [old, new] = stress_lists();
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5eed);
    let mut saw = [false, false];
    for _ in 0..300 {
        let before = inode(&file);
        let mut child = common::gendash(dir.path())
            .env("GENDASH_TEST_STRESS_SAVE", &file)
            .env("GENDASH_TEST_STRESS_ROUNDS", "100000")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Kill only once the child is saving (every save renames a new inode into place), so
        // the kill lands mid-save however loaded the machine is.
        let started = std::time::Instant::now();
        while inode(&file) == before && started.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_micros(200));
        }
        std::thread::sleep(Duration::from_micros(rng.random_range(0..3_000)));
        kill(
            Pid::from_raw(i32::try_from(child.id()).unwrap()),
            Signal::SIGKILL,
        )
        .unwrap();
        child.wait().unwrap();
        if !file.exists() {
            continue; // killed before its first save
        }
        let bytes = std::fs::read(&file).unwrap();
        let loaded = WatchStore::new(&file).load().unwrap();
        assert!(
            loaded.set_aside.is_none(),
            "a partial file: {}",
            String::from_utf8_lossy(&bytes)
        );
        let got: Vec<WatchEntry> = loaded.entries;
        if got == old {
            saw[0] = true;
        } else if got == new {
            saw[1] = true;
        } else {
            panic!(
                "neither the whole old nor the whole new list: {} entries",
                got.len()
            );
        }
    }
    assert!(
        saw[0] && saw[1],
        "the kills landed between saves of both lists"
    );
    // The next save sweeps the temporary files that killed writers left.
    WatchStore::new(&file).update(|l| l.truncate(1)).unwrap();
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains(".tmp-")), "{names:?}");
}

fn inode(path: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| m.ino())
}

fn old_list(path: &Path) -> Vec<u8> {
    WatchStore::new(path)
        .update(|l| l.extend(stress_lists()[1].clone()))
        .unwrap();
    std::fs::read(path).unwrap()
}

#[test]
fn a_full_disk_gives_an_error_and_keeps_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gendash/watchlist.json");
    let before = old_list(&file);
    assert!(before.len() > 1024);
    // A file-size limit of 1 KiB makes the write fail part-way (EFBIG), like a full disk.
    let script = format!(
        "trap '' XFSZ; ulimit -f 1; exec '{}' watch add brand-new-task",
        env!("CARGO_BIN_EXE_gendash")
    );
    let out = clean_command("bash", dir.path())
        .args(["-c", &script])
        .env("GENDASH_DATA_DIR", dir.path().join("gendash"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot save (the previous list is kept)"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&file).unwrap(),
        before,
        "the old file is untouched"
    );
    let leftovers: Vec<_> = std::fs::read_dir(file.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_read_only_directory_gives_an_error_and_keeps_the_old_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("gendash");
    let file = data.join("watchlist.json");
    let before = old_list(&file);
    let lock = data.join("watchlist.json.lock");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o555)).unwrap();
    let mut cmd = if nix::unistd::geteuid().is_root() {
        // Root ignores permissions: run as nobody, who owns the lock file but not the directory.
        std::os::unix::fs::chown(&lock, Some(65534), Some(65534)).unwrap();
        let mut c = clean_command("setpriv", dir.path());
        c.args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            env!("CARGO_BIN_EXE_gendash"),
        ]);
        c
    } else {
        common::gendash(dir.path())
    };
    let out = cmd
        .args(["watch", "add", "brand-new-task"])
        .env("GENDASH_DATA_DIR", &data)
        .output()
        .unwrap();
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot save (the previous list is kept)") && err.contains("ermission denied"),
        "{err}"
    );
    assert_eq!(std::fs::read(&file).unwrap(), before);
}

#[test]
fn an_unreadable_list_is_set_aside_and_the_user_told() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("watchlist.json");
    for bad in [
        &b""[..],
        b"{\"version\":1,\"tasks\":[{\"task_id\":",
        b"\0\0\0\0\0\0\0\0",
        b"task-1\ntask-2\n",
    ] {
        std::fs::write(&file, bad).unwrap();
        let out = common::gendash(dir.path())
            .args(["watch", "add", "task-new"])
            .env("GENDASH_DATA_DIR", dir.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert!(
            err.contains("could not be read and was set aside as"),
            "{err}"
        );
        let aside = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.to_string_lossy().contains(".corrupt-"))
            .unwrap();
        assert_eq!(
            std::fs::read(&aside).unwrap(),
            bad,
            "set aside byte for byte"
        );
        std::fs::remove_file(aside).unwrap();
        let ids: Vec<String> = WatchStore::new(&file)
            .read()
            .unwrap()
            .into_iter()
            .map(|e| e.task_id)
            .collect();
        assert_eq!(ids, ["task-new"], "a new list, not the old bytes");
        std::fs::remove_file(&file).unwrap();
    }
}

/// The commands that only read (`watch list`, `stats`, `history`) report an unreadable watch
/// list or archive, naming it, exit 1, and leave it where it was, byte for byte.
#[test]
fn read_only_commands_report_unreadable_files_and_rename_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (list, archive) = (
        dir.path().join("watchlist.json"),
        dir.path().join("archive.sqlite3"),
    );
    let bad = b"{\"version\":1,\"tasks\":[{\"task_id\":";
    std::fs::write(&list, bad).unwrap();
    std::fs::write(
        &archive,
        b"not a database, not at all, but long enough to be read",
    )
    .unwrap();
    let archive_bytes = std::fs::read(&archive).unwrap();
    for (args, file) in [
        (&["watch", "list"][..], &list),
        (&["watch", "list", "--json"][..], &list),
        (&["stats"][..], &list),
        (&["history"][..], &archive),
    ] {
        let out = common::gendash(dir.path())
            .args(args)
            .env("GENDASH_DATA_DIR", dir.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains(&file.display().to_string()) && err.contains("left as it is"),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            names.iter().all(|n| !n.contains("corrupt")),
            "{args:?}: {names:?}"
        );
        assert_eq!(std::fs::read(&list).unwrap(), bad, "{args:?}");
        assert_eq!(std::fs::read(&archive).unwrap(), archive_bytes, "{args:?}");
    }
}
