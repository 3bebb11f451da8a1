//! gendash: a terminal dashboard and CLI for a text-to-image / text-to-video Generation Service.
//!
//! The binary is a thin shell over this library so that tests and benchmarks drive the same code.

pub mod api;
pub mod app;
pub mod cli;
pub mod logging;
pub mod msg;
pub mod preview;
pub mod progress;
pub mod server;
pub mod store;
pub(crate) mod terminal;
pub mod testing;
pub mod ui;
pub mod workers;
