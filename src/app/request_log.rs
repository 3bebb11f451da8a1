//! The request log's state: the last `KEEP` requests, oldest first, and the selection in the
//! pane that shows them (`L`). A new request moves the selection along when it was on the
//! newest, as `tail -f` does; otherwise the selected row stays put.

use super::action::Action;
use super::cursor::Cursor;
use super::effects::Effects;
use super::help::{Step, edit, find};
use super::popup::{Popup, Search};
use crate::api::Secret;
use crate::api::recording::RequestRecord;
use std::collections::VecDeque;

/// How many requests are kept.
pub const KEEP: usize = 500;

#[derive(Debug)]
pub struct RequestLog {
    pub entries: VecDeque<RequestRecord>,
    pub cursor: Cursor,
    /// The selection follows the newest request.
    pub follow: bool,
    /// The offset of the local time zone, for the times shown (UTC where unknown).
    pub utc_offset: time::UtcOffset,
    /// The demo service's throwaway token: shown in the curl line so a newcomer can paste it.
    /// Never set for a real service, whose token is never shown.
    pub demo_token: Option<Secret>,
}

impl Default for RequestLog {
    fn default() -> Self {
        RequestLog {
            entries: VecDeque::with_capacity(64),
            cursor: Cursor::default(),
            follow: true,
            utc_offset: time::UtcOffset::UTC,
            demo_token: None,
        }
    }
}

impl RequestLog {
    pub fn push(&mut self, record: RequestRecord) {
        if self.entries.len() == KEEP {
            self.entries.pop_front();
            if !self.follow {
                self.cursor.selected = self.cursor.selected.saturating_sub(1);
                self.cursor.offset = self.cursor.offset.saturating_sub(1);
            }
        }
        self.entries.push_back(record);
        if self.follow {
            self.bottom();
        }
    }

    /// `record` as a curl command line: with the demo's token in it, else reading
    /// `$GENDASH_TOKEN`.
    pub fn curl(&self, record: &RequestRecord) -> String {
        match &self.demo_token {
            Some(token) => record.curl_with_token(token),
            None => record.curl(),
        }
    }

    pub fn selected(&self) -> Option<&RequestRecord> {
        self.entries.get(self.cursor.selected)
    }

    pub fn move_by(&mut self, delta: isize) {
        self.cursor.move_by(self.entries.len(), delta);
        self.follow = self.cursor.selected + 1 >= self.entries.len();
    }

    pub fn top(&mut self) {
        self.cursor.select(self.entries.len(), 0);
        self.follow = self.entries.len() <= 1;
    }

    pub fn bottom(&mut self) {
        self.cursor
            .select(self.entries.len(), self.entries.len().saturating_sub(1));
        self.follow = true;
    }

    /// Rows on screen, from the pane's height.
    pub fn set_viewport(&mut self, rows: usize) {
        self.cursor.viewport = rows.max(1);
        self.cursor.scroll_into_view(self.entries.len());
    }
}

/// The request log's reducer: moving through it, searching, copying a request as `curl`,
/// closing it.
pub fn update(
    popup: &mut Option<Popup>,
    search: &mut Search,
    log: &mut RequestLog,
    action: &Action,
) -> Effects {
    let page = isize::try_from(log.cursor.viewport.max(1)).unwrap_or(isize::MAX);
    match action {
        Action::Search => *search = Search::editing(),
        Action::NextMatch(forward) => find_in_log(
            search,
            log,
            Step {
                forward: *forward,
                skip: 1,
            },
        ),
        Action::Up => log.move_by(-1),
        Action::Down => log.move_by(1),
        Action::PageUp => log.move_by(-page),
        Action::PageDown => log.move_by(page),
        Action::Top => log.top(),
        Action::Bottom => log.bottom(),
        Action::CopyCurl => {
            let curl = log.selected().map(|r| log.curl(r));
            return Effects::copy(curl, "request as a curl command");
        }
        Action::ToggleRequests | Action::Cancel => *popup = None,
        _ => {}
    }
    Effects::none()
}

/// Typing the log's search: each keystroke selects the first matching request from the
/// selected one.
pub fn search(search: &mut Search, log: &mut RequestLog, action: Action) -> Effects {
    if let Some(step) = edit(search, action) {
        find_in_log(search, log, step);
    }
    Effects::none()
}

/// Selects the request the search finds from the selected one.
fn find_in_log(search: &mut Search, log: &mut RequestLog, step: Step) {
    let lines: Vec<String> = log
        .entries
        .iter()
        .map(|r| {
            let status = r.status.map_or_else(|| "—".to_string(), |s| s.to_string());
            let error = r.error.as_deref().unwrap_or_default();
            format!("{} {status} {} {error}", r.method, r.url)
        })
        .collect();
    if let Some(at) = find(search, &lines, log.cursor.selected, step) {
        log.top();
        log.move_by(isize::try_from(at).unwrap_or(isize::MAX));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    fn record(n: u64) -> RequestRecord {
        RequestRecord {
            at: SystemTime::UNIX_EPOCH + Duration::from_secs(n),
            method: "POST",
            url: format!("http://127.0.0.1:1/ai/image_generation/t{n}"),
            authorized: true,
            status: Some(200),
            error: None,
            duration: Duration::from_millis(n),
            bytes: n,
            output: None,
        }
    }

    #[test]
    fn keeps_the_last_500_and_follows_the_newest_until_moved_away() {
        let mut log = RequestLog::default();
        log.set_viewport(10);
        for n in 0..600 {
            log.push(record(n));
        }
        assert_eq!(log.entries.len(), KEEP);
        assert_eq!(log.entries[0].bytes, 100);
        assert_eq!(log.selected().map(|r| r.bytes), Some(599));
        assert_eq!(log.cursor.offset, KEEP - 10);

        log.move_by(-3);
        assert!(!log.follow);
        assert_eq!(log.selected().map(|r| r.bytes), Some(596));
        // The same request stays selected while older ones fall off the front.
        log.push(record(600));
        assert_eq!(log.selected().map(|r| r.bytes), Some(596));
        log.move_by(100);
        assert!(log.follow);
        log.push(record(601));
        assert_eq!(log.selected().map(|r| r.bytes), Some(601));
        log.top();
        assert_eq!(log.selected().map(|r| r.bytes), Some(102));
        assert!(!log.follow);
    }
}
