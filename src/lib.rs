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
/// Test helpers and switches: only in test builds (`cargo test` turns the feature on through
/// the package's dev-dependency on itself), never in a release binary.
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod ui;
pub mod workers;
