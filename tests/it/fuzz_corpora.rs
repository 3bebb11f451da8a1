//! Replays the fuzz targets' corpora (`fuzz/corpus/<target>/`) through the same property
//! checks the fuzzers run, so every input a fuzzer ever kept is a regression test.

use std::path::Path;

fn replay(target: &str, check: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
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
    assert!(n >= 5, "{target}: the corpus has only {n} inputs");
}

#[test]
fn catalogue_corpus() {
    replay("catalogue", gendash::testing::fuzzing::catalogue);
}

#[test]
fn task_corpus() {
    replay("task", gendash::testing::fuzzing::task);
}

#[test]
fn config_corpus() {
    replay("config", gendash::testing::fuzzing::config);
}

#[test]
fn sanitizer_corpus() {
    replay("sanitizer", gendash::testing::fuzzing::sanitizer);
}

#[test]
fn url_corpus() {
    replay("url", gendash::testing::fuzzing::url);
}
