//! The watch list's filter: the same fields as the archive's (`label:`, `status:`, `kind:`,
//! `service:`, `finished:`, `added:`, `saved:`, `id:`, dates as local `YYYY-MM-DD HH:MM`), read
//! off each row's entry as the archive reads an archived task's, so one query finds a task on
//! either list.

use super::{Row, Watch};
use crate::filter::query::Target;
use crate::filter::{FuzzyFilter, Issue, Query, Scope};
use crate::store::archive::{SEARCH_KEYS, SearchKey};
use std::borrow::Cow;

/// What the filter's problems name the watch list.
pub const SCOPE: Scope = Scope::tasks("the watch list", SEARCH_KEYS);

/// The watch list's matcher and the local time its dates are read in.
#[derive(Debug, Default)]
pub struct WatchFilter {
    matcher: FuzzyFilter,
    /// Seconds east of UTC: `finished:` and `added:` read as local minutes, as in the archive.
    pub utc_offset: i32,
}

impl WatchFilter {
    /// The indices of the rows that `query` matches, ascending.
    pub fn matching(&mut self, query: &str, rows: &[Row]) -> Vec<usize> {
        // Only the fields the query reads: formatting two dates per row for every poll's
        // reorder of 10,000 tasks would cost more than the matching.
        let parsed = Query::parse(query);
        let read: Vec<bool> = SEARCH_KEYS
            .iter()
            .map(|key| {
                let on = |t: &Target| matches!(t, Target::Field(k) if **k == **key);
                parsed.groups.iter().flatten().any(|t| on(&t.target))
            })
            .collect();
        let names: Vec<String> = rows.iter().map(name).collect();
        let values: Vec<Vec<Cow<'_, str>>> = rows
            .iter()
            .map(|r| {
                (SearchKey::ALL.iter().zip(&read))
                    .map(|(&key, &read)| {
                        if read {
                            value(r, key, self.utc_offset)
                        } else {
                            Cow::Borrowed("")
                        }
                    })
                    .collect()
            })
            .collect();
        self.matcher
            .matching_texts(query, SEARCH_KEYS, &names, &values)
    }
}

/// The text plain words match: the task ID, its status and its label (as the archive's).
fn name(r: &Row) -> String {
    let e = &r.entry;
    let status = e.last.as_ref().map_or("", |l| l.status.as_str());
    let label = e.label.as_deref().unwrap_or("");
    format!("{} {status} {label}", e.task_id)
}

/// A row's value of one of the archive's fields; a task not finished has no `finished:`.
fn value(r: &Row, key: SearchKey, utc_offset: i32) -> Cow<'_, str> {
    fn text(s: Option<&String>) -> Cow<'_, str> {
        Cow::Borrowed(s.map_or("", String::as_str))
    }
    let e = &r.entry;
    let minute = |at: u64| Cow::Owned(crate::fmt::local_minute(at, utc_offset));
    match key {
        SearchKey::Label => text(e.label.as_ref()),
        SearchKey::Status => Cow::Borrowed(e.last.as_ref().map_or("", |l| l.status.as_str())),
        SearchKey::Kind => Cow::Borrowed(e.kind.as_str()),
        SearchKey::Service => text(e.service.as_ref()),
        SearchKey::Finished => e
            .last
            .as_ref()
            .and_then(|l| l.finished_at)
            .map_or(Cow::Borrowed(""), minute),
        SearchKey::Added => minute(e.added_at),
        SearchKey::Saved => text(e.saved.as_ref()),
        SearchKey::Id => Cow::Borrowed(&e.task_id),
    }
}

/// What the filter ignores or cannot match in the watch list (`is:new`, `nosuchfield:x`,
/// `finished:>abc`), for the pane's title; a term still being typed is not told yet.
pub fn issues(watch: &Watch) -> Vec<Issue> {
    Query::parse(&watch.query).told(&SCOPE, |_| None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::TaskKind;
    use crate::app::watch::order;
    use crate::filter::forms_tests::{FORMS, MOMENTS, NAMES};
    use crate::store::watchlist::{LastKnown, WatchEntry};

    /// Seconds since the epoch of a local `YYYY-MM-DD HH:MM` at `offset` seconds east of UTC.
    fn at(minute: &str, offset: i32) -> u64 {
        let n = |r: std::ops::Range<usize>| minute[r].parse::<u8>().expect("digits");
        let year = minute[..4].parse().expect("a year");
        let month = time::Month::try_from(n(5..7)).expect("a month");
        let date = time::Date::from_calendar_date(year, month, n(8..10)).expect("a date");
        let local = date.with_hms(n(11..13), n(14..16), 0).expect("a time");
        let offset = time::UtcOffset::from_whole_seconds(offset).expect("an offset");
        u64::try_from(local.assume_offset(offset).unix_timestamp()).expect("after 1970")
    }

    /// The rows `query` keeps, by task ID, in the list's order.
    fn kept(w: &mut Watch, query: &str) -> Vec<String> {
        order::set_query(w, query.to_string(), 0);
        w.order
            .iter()
            .map(|&i| w.rows[i].entry.task_id.clone())
            .collect()
    }

    /// Five tasks finished at `MOMENTS` (the last still running), each with the archive's
    /// other fields set, in a list whose dates are read two hours east of UTC.
    fn watch() -> Watch {
        const OFFSET: i32 = 2 * 3600;
        let entries = NAMES
            .iter()
            .zip(MOMENTS)
            .enumerate()
            .map(|(i, (name, moment))| {
                let kind = if i % 2 == 0 {
                    TaskKind::Image
                } else {
                    TaskKind::Video
                };
                let finished = (!moment.is_empty()).then(|| at(moment, OFFSET));
                WatchEntry {
                    last: Some(LastKnown {
                        status: if finished.is_some() {
                            "COMPLETED"
                        } else {
                            "RUNNING"
                        }
                        .into(),
                        finished_at: finished,
                        ..LastKnown::default()
                    }),
                    label: Some(format!("label {name}")),
                    service: Some(format!("http://svc-{}:1", i % 2)),
                    added_at: at("2026-11-01 08:00", OFFSET),
                    ..WatchEntry::new(*name, kind)
                }
            })
            .collect();
        let mut w = Watch::new(entries, crate::api::types::default_failure_statuses());
        w.matcher.utc_offset = OFFSET;
        w
    }

    #[test]
    fn every_date_form_in_the_watch_list() {
        let mut w = watch();
        for &(query, want) in FORMS {
            assert_eq!(kept(&mut w, query), want, "{query}");
        }
    }

    #[test]
    fn the_watch_list_knows_the_archives_fields() {
        let mut w = watch();
        assert_eq!(kept(&mut w, "status:running"), ["e"]);
        assert_eq!(kept(&mut w, "kind:video"), ["b", "d"]);
        assert_eq!(kept(&mut w, "label:\"label c\""), ["c"]);
        assert_eq!(kept(&mut w, "service:'svc-1"), ["b", "d"]);
        assert_eq!(kept(&mut w, "!service:svc-1 kind:image"), ["a", "c", "e"]);
        assert_eq!(kept(&mut w, "added:<=2026-11-01 id:^d"), ["d"]);
        assert_eq!(kept(&mut w, "finished:2026-11-27"), ["a"]);
        assert!(issues(&w).is_empty());
    }

    #[test]
    fn what_the_watch_list_cannot_use_is_named() {
        let mut w = watch();
        let told = |w: &mut Watch, q: &str| -> Vec<String> {
            order::set_query(w, q.to_string(), 0);
            issues(w).iter().map(ToString::to_string).collect()
        };
        assert_eq!(
            told(&mut w, "is:new nosuchfield:x "),
            [
                "nosuchfield: no such field (fields: label, status, kind, service, finished, \
                 added, saved, id)",
                "is:new is the model browser's marks and favourites; the watch list has none"
            ]
        );
        assert_eq!(
            told(&mut w, "finished:>abc x"),
            ["finished:>abc: not a number or a date"]
        );
        assert!(
            told(&mut w, "finished:>2026-11-2").is_empty(),
            "a date still being typed"
        );
        assert_eq!(
            told(&mut w, "type:sd"),
            ["type:sd is the catalogue's filter; the watch list has none"]
        );
    }
}
