//! Process exit codes, documented in docs/cli.md and in `--help`.

pub const OK: u8 = 0;
pub const OTHER: u8 = 1;
pub const USAGE: u8 = 2;
pub const AUTH: u8 = 3;
pub const NOT_FOUND: u8 = 4;
pub const TASK_FAILED: u8 = 5;
pub const TIMED_OUT: u8 = 6;
/// `status`: a task is neither completed nor failed yet, so a script can tell "not yet" from
/// "done" without reading the output.
pub const RUNNING: u8 = 7;

/// Every code with what it means, for `--help`, the manual and docs/cli.md.
pub const TABLE: [(u8, &str); 8] = [
    (OK, "success"),
    (
        OTHER,
        "other error (cannot connect, bad configuration, file exists, …)",
    ),
    (USAGE, "usage (unknown flag, bad value)"),
    (AUTH, "authentication refused (HTTP 401/403)"),
    (NOT_FOUND, "task or resource not found / lookup failed"),
    (TASK_FAILED, "a task ended in a failure status"),
    (
        TIMED_OUT,
        "timed out (wait --timeout, or a request timeout)",
    ),
    (
        RUNNING,
        "status: a task is still running (queued or in progress)",
    ),
];

/// The line of `--help` that lists the codes: "Exit codes: 0 success; 1 other error; …".
pub fn help() -> String {
    let codes: Vec<String> = TABLE
        .iter()
        .map(|(code, meaning)| format!("{code} {meaning}"))
        .collect();
    format!("Exit codes: {}.", codes.join("; "))
}

/// The exit code for a failed service call.
pub fn for_api_error(e: &crate::api::ApiError) -> u8 {
    use crate::api::ApiError;
    match e {
        ApiError::Auth { .. } => AUTH,
        ApiError::Lookup { .. }
        | ApiError::Http { status: 404, .. }
        | ApiError::WrongPath { .. } => NOT_FOUND,
        ApiError::Timeout { .. } => TIMED_OUT,
        _ => OTHER,
    }
}
