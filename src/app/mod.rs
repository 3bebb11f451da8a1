//! The dashboard.

use crate::cli::{CliResult, Failure, Global};

pub async fn run(_global: &Global, _demo: bool) -> CliResult {
    Err(Failure::new(
        crate::exit::OTHER,
        "the dashboard is being built",
    ))
}
