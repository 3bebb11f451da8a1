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
