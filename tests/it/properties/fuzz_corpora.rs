//! Replays what the repository keeps of the fuzz targets' inputs through the same property
//! checks the fuzzers run: the named seeds (`fuzz/seeds/<target>/`) and every input that once
//! found a bug (`fuzz/regressions/<target>/`, each listed with what it found in
//! `fuzz/regressions/README.md`). The bulk working corpus stays out of the repository
//! (`fuzz/corpus/`, ignored; the README says how to regenerate it).

use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// Runs every file of `dir` through `check`; returns how many there were.
fn replay_dir(target: &str, dir: &Path, check: fn(&[u8])) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut n = 0;
    for entry in entries {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        let outcome = std::panic::catch_unwind(|| check(&data));
        assert!(
            outcome.is_ok(),
            "{target}: {} breaks a property",
            path.display()
        );
        n += 1;
    }
    n
}

fn replay(target: &str, check: fn(&[u8])) {
    let seeds = replay_dir(target, &fuzz_dir().join("seeds").join(target), check);
    assert!(seeds >= 3, "{target}: only {seeds} seeds");
    replay_dir(target, &fuzz_dir().join("regressions").join(target), check);
}

#[test]
fn catalogue_inputs() {
    replay("catalogue", gendash::testing::fuzzing::catalogue);
}

#[test]
fn task_inputs() {
    replay("task", gendash::testing::fuzzing::task);
}

#[test]
fn config_inputs() {
    replay("config", gendash::testing::fuzzing::config);
}

#[test]
fn sanitizer_inputs() {
    replay("sanitizer", gendash::testing::fuzzing::sanitizer);
}

#[test]
fn url_inputs() {
    replay("url", gendash::testing::fuzzing::url);
}

#[test]
fn every_regression_says_what_it_found() {
    let dir = fuzz_dir().join("regressions");
    let index = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let mut n = 0;
    for target in std::fs::read_dir(&dir).unwrap() {
        let target = target.unwrap().path();
        if !target.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&target).unwrap() {
            let file = file.unwrap().path();
            let name = format!(
                "{}/{}",
                target.file_name().unwrap().to_string_lossy(),
                file.file_name().unwrap().to_string_lossy()
            );
            let line = index.lines().find(|l| l.contains(&format!("`{name}` — ")));
            assert!(
                line.is_some_and(|l| l.len() > name.len() + 12),
                "fuzz/regressions/README.md has no line saying what {name} found"
            );
            n += 1;
        }
    }
    assert!(n >= 1, "the regression that the fuzzer found is kept");
}
