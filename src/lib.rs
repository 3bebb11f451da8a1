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

// The heap is the system allocator's: no `#[global_allocator]`. Measured side by side with
// mimalloc (with and without huge pages, and with its purge delay at 0), it held the least memory
// with the filter keystroke as quick; mimalloc's huge pages had doubled every dashboard's memory
// to shave a keystroke that was already far inside a frame. The figures: docs/decisions.md,
// "The heap".
