//! How gendash writes times, durations, ETAs and sizes, in the dashboard and the CLI alike:
//! one place, so the same quantity never reads two ways.

use std::time::Duration;

/// An age in seconds as a person says it: `just now`, `5 min ago`, `3h ago`, `2 days ago`.
pub fn age(secs: u64) -> String {
    match secs {
        0..60 => "just now".into(),
        60..3600 => format!("{} min ago", secs / 60),
        3600..86_400 => format!("{}h ago", secs / 3600),
        86_400..172_800 => "1 day ago".into(),
        _ => format!("{} days ago", secs / 86_400),
    }
}

/// "12s", "5m", "3h", "2d": short ages for the table.
pub fn age_label(since: u64, now: u64) -> String {
    let s = now.saturating_sub(since);
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86_400 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86_400),
    }
}

/// "4s": a countdown in whole seconds (a retry's wait), as the dashboard and the CLI say it.
pub fn countdown(seconds: u64) -> String {
    format!("{seconds}s")
}

/// "45s", "3m20s", "1h05m": a duration in the detail.
pub fn duration_label(seconds: u64) -> String {
    match seconds {
        0..60 => format!("{seconds}s"),
        60..3600 => format!("{}m{:02}s", seconds / 60, seconds % 60),
        _ => format!("{}h{:02}m", seconds / 3600, seconds % 3600 / 60),
    }
}

/// "~45s", "~3m", "~1h05m": an ETA as the table and the CLI show it.
pub fn format_eta(seconds: u64) -> String {
    let minutes = (seconds + 30) / 60;
    match (seconds, minutes) {
        (0..60, _) => format!("~{seconds}s"),
        (_, 0..60) => format!("~{minutes}m"),
        _ => format!("~{}h{:02}m", minutes / 60, minutes % 60),
    }
}

/// `1,234,567`: a whole number with its thousands grouped, as every count is said.
pub fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1 model`, `0 models`, `1,234 tasks`, `3 matches`, `2 entries`: a count with its noun in
/// the right number, the one way the dashboard and the CLI say how many. `noun` is the
/// singular; the plural is made by the regular English rule ([`plural`]).
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {}", grouped(n), plural(noun))
    }
}

/// The regular plural of an English noun: `tasks`, `matches`, `boxes`, `entries` (but `days`).
pub fn plural(noun: &str) -> String {
    let consonant_y = noun.strip_suffix('y').filter(|stem| {
        stem.chars()
            .last()
            .is_some_and(|c| !"aeiou".contains(c.to_ascii_lowercase()))
    });
    if let Some(stem) = consonant_y {
        format!("{stem}ies")
    } else if ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|end| noun.ends_with(end))
    {
        format!("{noun}es")
    } else {
        format!("{noun}s")
    }
}

/// `532 bytes`, `48.2 kB`, `3.4 MB`, `20 MB`: decimal units, as file sizes are usually given.
pub fn human_bytes(n: u64) -> String {
    if n < 1000 {
        return count(usize::try_from(n).unwrap_or(usize::MAX), "byte");
    }
    let (value, unit) = if n < 1_000_000 {
        (n as f64 / 1e3, "kB")
    } else if n < 1_000_000_000 {
        (n as f64 / 1e6, "MB")
    } else {
        (n as f64 / 1e9, "GB")
    };
    let text = format!("{value:.1}");
    format!("{} {unit}", text.trim_end_matches(".0"))
}

/// `1.2 kB`, `340 B`, `5.0 MB`: decimal units, as HTTP tools print sizes.
pub fn size_short(bytes: u64) -> String {
    #[allow(clippy::cast_precision_loss)] // a size on screen needs no more than 3 digits
    let b = bytes as f64;
    match bytes {
        0..1_000 => format!("{bytes} B"),
        1_000..1_000_000 => format!("{:.1} kB", b / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} MB", b / 1e6),
        _ => format!("{:.1} GB", b / 1e9),
    }
}

/// `12 ms`, `1.4 s`.
pub fn took(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{} ms", d.as_millis())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// `5m ago`.
pub fn ago(t: u64, now: u64) -> String {
    format!("{} ago", age_label(t, now))
}

/// A moment at `offset` from UTC.
fn local(t: u64, offset: time::UtcOffset) -> time::OffsetDateTime {
    time::OffsetDateTime::from_unix_timestamp(i64::try_from(t).unwrap_or(0))
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH)
        .to_offset(offset)
}

/// A moment as the local clock showed it: `14:05:09`, with the date when it was not today.
pub fn wall_time(t: u64, now: u64, offset: time::UtcOffset) -> String {
    let (then, today) = (local(t, offset), local(now, offset));
    let hms = format!(
        "{:02}:{:02}:{:02}",
        then.hour(),
        then.minute(),
        then.second()
    );
    if then.date() == today.date() {
        hms
    } else {
        format!("{} {hms}", then.date())
    }
}

/// A moment on the local clock to the minute: `14:32`, with the day when it is not today
/// (`Nov 26 09:10`).
pub fn clock_minute(t: u64, now: u64, offset: time::UtcOffset) -> String {
    let (then, today) = (local(t, offset), local(now, offset));
    let hm = format!("{:02}:{:02}", then.hour(), then.minute());
    if then.date() == today.date() {
        hm
    } else {
        let month = format!("{}", then.month());
        format!("{} {} {hm}", &month[..3.min(month.len())], then.day())
    }
}

/// `YYYY-MM-DD HH:MM` at `utc_offset_seconds` from UTC: the archive's dates, as its list and
/// `gendash history` show them and as its filter's date fields read them.
pub fn local_minute(t: u64, utc_offset_seconds: i32) -> String {
    let offset =
        time::UtcOffset::from_whole_seconds(utc_offset_seconds).unwrap_or(time::UtcOffset::UTC);
    let at = local(t, offset);
    let (year, month, day) = at.to_calendar_date();
    format!(
        "{year:04}-{:02}-{day:02} {:02}:{:02}",
        u8::from(month),
        at.hour(),
        at.minute()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eta_labels() {
        assert_eq!(format_eta(0), "~0s");
        assert_eq!(format_eta(45), "~45s");
        assert_eq!(format_eta(59), "~59s");
        assert_eq!(format_eta(60), "~1m");
        assert_eq!(format_eta(170), "~3m");
        assert_eq!(format_eta(3599), "~1h00m");
        assert_eq!(format_eta(3900), "~1h05m");
        assert_eq!(format_eta(100 * 3600), "~100h00m");
    }

    #[test]
    fn counts_agree_in_number_and_group_thousands() {
        assert_eq!(count(0, "model"), "0 models");
        assert_eq!(count(1, "model"), "1 model");
        assert_eq!(count(2, "task"), "2 tasks");
        assert_eq!(count(1_234, "task"), "1,234 tasks");
        assert_eq!(count(3, "match"), "3 matches");
        assert_eq!(count(2, "entry"), "2 entries");
        assert_eq!(count(2, "day"), "2 days");
        assert_eq!(count(1, "entry"), "1 entry");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000), "1,000");
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(grouped(0), "0");
    }

    #[test]
    fn countdowns_are_whole_seconds() {
        assert_eq!(countdown(0), "0s");
        assert_eq!(countdown(300), "300s");
    }

    #[test]
    fn sizes() {
        assert_eq!(human_bytes(532), "532 bytes");
        assert_eq!(human_bytes(1), "1 byte");
        assert_eq!(human_bytes(48_200), "48.2 kB");
        assert_eq!(human_bytes(3_400_000), "3.4 MB");
        assert_eq!(human_bytes(20_000_000), "20 MB");
    }

    #[test]
    fn ages() {
        assert_eq!(age_label(100, 100), "0s");
        assert_eq!(age_label(100, 159), "59s");
        assert_eq!(age_label(0, 3599), "59m");
        assert_eq!(age_label(0, 7200), "2h");
        assert_eq!(age_label(0, 200_000), "2d");
        assert_eq!(age_label(500, 100), "0s");
    }

    #[test]
    fn ages_read_as_a_person_says_them() {
        for (secs, said) in [
            (0, "just now"),
            (59, "just now"),
            (60, "1 min ago"),
            (5 * 60 + 30, "5 min ago"),
            (3 * 3600 + 59, "3h ago"),
            (86_399, "23h ago"),
            (86_400, "1 day ago"),
            (2 * 86_400, "2 days ago"),
        ] {
            assert_eq!(age(secs), said, "{secs}s");
        }
    }

    #[test]
    fn request_log_sizes_and_durations_read_short() {
        assert_eq!(size_short(340), "340 B");
        assert_eq!(size_short(1_234), "1.2 kB");
        assert_eq!(size_short(5_000_000), "5.0 MB");
        assert_eq!(took(Duration::from_millis(12)), "12 ms");
        assert_eq!(took(Duration::from_millis(1_450)), "1.4 s");
    }
}
