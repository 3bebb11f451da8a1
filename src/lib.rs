//! gendash: a terminal dashboard and CLI for a text-to-image / text-to-video Generation Service.
//!
//! The binary is a thin shell over this library so that tests and benchmarks drive the same code.

pub mod api;
pub mod app;
pub mod cli;
pub mod clock;
pub mod cmd;
pub mod dashboard;
pub mod eta;
pub mod filter;
pub mod fit;
pub mod fmt;
pub mod logging;
pub mod msg;
pub mod picture;
pub mod server;
pub mod store;
/// Test helpers and switches: in builds with debug assertions (the dev and test profiles, so
/// `cargo test` has them with no flag) or with the `testing` feature (the fuzz targets, a
/// `--release` test run), never in a release binary.
#[cfg(any(test, debug_assertions, feature = "testing"))]
pub mod testing;
pub mod ui;
pub mod workers;

/// mimalloc, not the system allocator, for every binary of the crate: the dashboard, and the
/// examples and tests that time and drive it. After a pause between keystrokes, each 4 KiB page
/// a frame touches again costs a page walk; mimalloc keeps the heap in few regions advised for
/// huge pages, which took a frame after 100 ms idle from 2.0 to 0.4 ms (median) on the 2-core
/// VM of docs/performance.md. What it costs in memory, and `MIMALLOC_ALLOW_THP=0` that trades
/// it back: docs/decisions.md, "The heap". The fuzz targets keep the system allocator, which
/// their address sanitizer watches.
#[cfg(not(fuzzing))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
