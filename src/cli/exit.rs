//! Process exit codes, documented in the README and in `--help`.

pub const OK: u8 = 0;
pub const OTHER: u8 = 1;
pub const USAGE: u8 = 2;
pub const AUTH: u8 = 3;
pub const NOT_FOUND: u8 = 4;
pub const TASK_FAILED: u8 = 5;
pub const TIMED_OUT: u8 = 6;

pub const HELP: &str = "Exit codes: 0 success; 1 other error; 2 usage; 3 authentication refused; \
4 task or resource not found / lookup failed; 5 a task ended in a failure status; 6 timed out.";

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
