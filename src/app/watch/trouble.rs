//! A row's poll trouble: what went wrong the last times its task was asked about, how many
//! times in a row, and when it is asked again. One value, so an answer clears all of it.

use super::{PollTrouble, Problem};
use crate::store::watchlist::{Trouble, TroubleKind};

impl PollTrouble {
    /// The trouble the last session saw, as the file kept it.
    pub fn kept(trouble: &Trouble) -> Self {
        let text = trouble.text.clone();
        PollTrouble {
            problem: match trouble.kind {
                TroubleKind::Error => Problem::Error(text),
                TroubleKind::NotFound => Problem::NotFound {
                    description: text,
                    error: None,
                },
            },
            retries: 0,
            retry_at: None,
        }
    }

    /// The last attempt's error, if asking failed.
    pub fn error(&self) -> Option<&str> {
        match &self.problem {
            Problem::Error(e) => Some(e),
            Problem::NotFound { error, .. } => error.as_deref(),
        }
    }

    /// The service's description, when it said it does not know the task.
    pub fn not_found(&self) -> Option<&str> {
        match &self.problem {
            Problem::NotFound { description, .. } => Some(description),
            Problem::Error(_) => None,
        }
    }
}

/// The trouble after one more failed attempt: `problem` is what this attempt found (an
/// error keeps what the service said of the task before).
pub fn after(before: Option<&PollTrouble>, found: Problem, retry_at: Option<u64>) -> PollTrouble {
    let problem = match (before.map(|t| &t.problem), found) {
        (Some(Problem::NotFound { description, .. }), Problem::Error(e)) => Problem::NotFound {
            description: description.clone(),
            error: Some(e),
        },
        (_, found) => found,
    };
    PollTrouble {
        problem,
        retries: before.map_or(0, |t| t.retries) + 1,
        retry_at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error after "not found" keeps the description; "not found" again forgets the error;
    /// retries count up.
    #[test]
    fn an_error_keeps_what_the_service_said() {
        let gone = after(
            None,
            Problem::NotFound {
                description: "no such task".into(),
                error: None,
            },
            Some(5),
        );
        let failed = after(Some(&gone), Problem::Error("HTTP 502".into()), Some(9));
        assert_eq!(failed.not_found(), Some("no such task"));
        assert_eq!(failed.error(), Some("HTTP 502"));
        assert_eq!((failed.retries, failed.retry_at), (2, Some(9)));
        let again = after(
            Some(&failed),
            Problem::NotFound {
                description: "no such task".into(),
                error: None,
            },
            None,
        );
        assert_eq!(again.error(), None);
        assert_eq!(again.retries, 3);
    }
}
