//! The local clock's offset from UTC, read once while the program has one thread (reading the
//! environment's time zone while another thread may change it is unsound, and the `time` crate
//! may refuse it then),
//! and what is said with it: the request log's times and the `{date}` of the download
//! template, in the dashboard and the CLI alike.

use std::sync::OnceLock;

static LOCAL_OFFSET: OnceLock<time::UtcOffset> = OnceLock::new();

/// Reads the local time zone's offset. Call it first thing in `main`, before any thread starts.
pub fn remember_local_offset() {
    if let Ok(offset) = time::UtcOffset::current_local_offset() {
        let _ = LOCAL_OFFSET.set(offset);
    }
}

/// The offset `remember_local_offset` read, else UTC.
pub fn local_offset() -> time::UtcOffset {
    LOCAL_OFFSET.get().copied().unwrap_or(time::UtcOffset::UTC)
}

/// Today's date for `{date}`, `YYYY-MM-DD`, at the local offset (UTC where it is unknown).
pub fn today() -> String {
    date_at(time::OffsetDateTime::now_utc(), local_offset())
}

fn date_at(now: time::OffsetDateTime, offset: time::UtcOffset) -> String {
    let fmt = time::macros::format_description!("[year]-[month]-[day]");
    now.to_offset(offset).format(&fmt).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_date_is_the_local_one() {
        // 23:30 UTC on 1 March is already 2 March at +01:00, still 1 March at -05:00.
        let now = time::macros::datetime!(2026-03-01 23:30 UTC);
        assert_eq!(date_at(now, time::macros::offset!(+1)), "2026-03-02");
        assert_eq!(date_at(now, time::macros::offset!(-5)), "2026-03-01");
        assert_eq!(date_at(now, time::UtcOffset::UTC), "2026-03-01");
    }
}
