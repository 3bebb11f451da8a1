//! Every integration test in one binary, so the dependency tree is linked once. Each module
//! drives the product as users meet it: the API over loopback against the reference service,
//! the CLI and the dashboard as real processes (the dashboard in a pseudo-terminal), the views
//! on ratatui's `TestBackend`.
#![allow(clippy::unwrap_used)]

mod common;

mod architecture;
mod cli;
mod cli_seams;
mod conformance;
mod contract;
mod contrast;
mod degrade;
mod download;
mod durability;
mod e2e;
mod fuzz_corpora;
mod hardening;
mod keys;
mod local_date;
mod looks;
mod notices;
mod offline;
mod openapi;
mod opening;
mod preview;
mod promises;
mod properties;
mod request_log;
mod seen;
mod services;
mod signals;
mod terminal;
mod views;
mod watch_list;
mod wire;
