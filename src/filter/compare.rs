//! Comparisons in the filter language: `key:>V`, `key:>=V`, `key:<V`, `key:<=V`, `key:=V`.
//!
//! - V a number (`1000`, `4.5`, `1k`, `2.5M`, `1,234`): the field's value is read as a number,
//!   the first number in it (`1,234` and `1.2k` understood); a value with no number never
//!   matches.
//! - V a date (`YYYY-MM-DD`, `YYYY-MM`, `YYYY`, or `YYYY-MM-DDTHH:MM[:SS]`): the field's value
//!   must start with an ISO date (`2026-11-01`, `2026-11-01 14:03`, `2026-11-01T14:03:00Z`);
//!   both are compared at V's precision, so `>2026-11-01` is from the 2nd on and `<2026-01` is
//!   before January 2026. A bare year (`2026`) is a year against a value that starts with a
//!   date, and a number against any other.
//!
//! A comparison filters, it does not rank: it scores 0, like a negated term.

use std::cmp::Ordering;

/// The comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Lt,
    Le,
    Eq,
    Ge,
    Gt,
}

impl Op {
    fn holds(self, ord: Ordering) -> bool {
        match self {
            Op::Lt => ord == Ordering::Less,
            Op::Le => ord != Ordering::Greater,
            Op::Eq => ord == Ordering::Equal,
            Op::Ge => ord != Ordering::Less,
            Op::Gt => ord == Ordering::Greater,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Eq => "=",
            Op::Ge => ">=",
            Op::Gt => ">",
        }
    }
}

/// A date's parts, year first; missing parts are 0.
pub type DateParts = [u32; 6];

/// What the field's value is compared with.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    Number(f64),
    /// A date and how many of its parts count (1 year … 6 seconds). With `year_or_number`, a
    /// bare year that reads as that number against a value that does not start with a date.
    Date {
        parts: DateParts,
        precision: usize,
        year_or_number: bool,
    },
}

/// A comparison term's operator and operand.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub op: Op,
    pub operand: Operand,
}

impl Comparison {
    /// `>1000`, `<=2026-01`, `=4.5`…: `None` when the text is no comparison (no operator, or
    /// a value that is neither a number nor a date).
    pub fn parse(text: &str) -> Option<Comparison> {
        let (op, rest) = if let Some(r) = text.strip_prefix(">=") {
            (Op::Ge, r)
        } else if let Some(r) = text.strip_prefix("<=") {
            (Op::Le, r)
        } else if let Some(r) = text.strip_prefix('>') {
            (Op::Gt, r)
        } else if let Some(r) = text.strip_prefix('<') {
            (Op::Lt, r)
        } else if let Some(r) = text.strip_prefix('=') {
            (Op::Eq, r)
        } else {
            return None;
        };
        let rest = rest.trim();
        let operand = if let Some((parts, precision)) = date_prefix(rest, 1)
            .filter(|&(_, _, used)| used == rest.len())
            .map(|(p, n, _)| (p, n))
        {
            Operand::Date {
                parts,
                precision,
                year_or_number: precision == 1,
            }
        } else {
            let (n, used) = number_prefix(rest)?;
            if used != rest.len() {
                return None;
            }
            Operand::Number(n)
        };
        Some(Comparison { op, operand })
    }

    /// Whether a field's (or a name's) text satisfies the comparison.
    pub fn matches(&self, value: &str) -> bool {
        match &self.operand {
            Operand::Number(n) => first_number(value).is_some_and(|v| self.number(v, *n)),
            Operand::Date {
                parts,
                precision,
                year_or_number,
            } => match date_prefix(value.trim_start(), 2) {
                Some((have, _, _)) => {
                    let ord = have[..*precision].cmp(&parts[..*precision]);
                    self.op.holds(ord)
                }
                None if *year_or_number => {
                    first_number(value).is_some_and(|v| self.number(v, f64::from(parts[0])))
                }
                None => false,
            },
        }
    }

    /// Whether every value this comparison accepts is accepted by `other` too (for the
    /// ranker's narrowing: `>100` after `>10`). Numbers only, one direction at a time; when
    /// unsure, no.
    pub fn implies(&self, other: &Comparison) -> bool {
        let (Operand::Number(a), Operand::Number(b)) = (&self.operand, &other.operand) else {
            return self == other;
        };
        let (a, b) = (*a, *b);
        match (self.op, other.op) {
            // Everything this accepts is one value: the other's test of it.
            (Op::Eq, op) => a.partial_cmp(&b).is_some_and(|ord| op.holds(ord)),
            (Op::Gt, Op::Gt | Op::Ge) | (Op::Ge, Op::Ge) => a >= b,
            (Op::Ge, Op::Gt) => a > b,
            (Op::Lt, Op::Lt | Op::Le) | (Op::Le, Op::Le) => a <= b,
            (Op::Le, Op::Lt) => a < b,
            _ => false,
        }
    }

    fn number(&self, value: f64, operand: f64) -> bool {
        value
            .partial_cmp(&operand)
            .is_some_and(|ord| self.op.holds(ord))
    }

    /// `> 1000`, `>= 2026-01`, for the detail line.
    pub fn describe(&self) -> String {
        let operand = match &self.operand {
            Operand::Number(n) => format!("{n}"),
            Operand::Date {
                parts, precision, ..
            } => {
                let [y, mo, d, h, mi, s] = *parts;
                match precision {
                    1 => format!("{y:04}"),
                    2 => format!("{y:04}-{mo:02}"),
                    3 => format!("{y:04}-{mo:02}-{d:02}"),
                    5 => format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}"),
                    _ => format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}"),
                }
            }
        };
        format!("{} {operand}", self.op.as_str())
    }
}

/// Reads `n` ASCII digits at the start of `s`.
fn digits(s: &str, n: usize) -> Option<u32> {
    let head = s.get(..n)?;
    if !head.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    head.parse().ok()
}

/// An ISO date at the start of `s`, with at least `min` parts (1 = a year alone): its parts,
/// how many there are, and the bytes read. A part is taken only when followed by the next
/// separator and well formed; the year is not followed by another digit.
fn date_prefix(s: &str, min: usize) -> Option<(DateParts, usize, usize)> {
    let mut parts = [0u32; 6];
    parts[0] = digits(s, 4)?;
    if s.as_bytes().get(4).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let mut used = 4;
    let mut count = 1;
    // (separator(s) before the part, its width, its range)
    let steps: [(&[u8], u32, u32); 5] = [
        (b"-", 1, 12),
        (b"-", 1, 31),
        (b"T ", 0, 23),
        (b":", 0, 59),
        (b":", 0, 60),
    ];
    for (k, (seps, low, high)) in steps.iter().enumerate() {
        let Some(&sep) = s.as_bytes().get(used) else {
            break;
        };
        if !seps.contains(&sep) {
            break;
        }
        let Some(part) = digits(&s[used + 1..], 2) else {
            break;
        };
        if part < *low || part > *high || s.as_bytes().get(used + 3).is_some_and(u8::is_ascii_digit)
        {
            break;
        }
        // Hours need minutes: `2026-11-01T14` is a date then text.
        if k == 2 {
            let minutes = s.get(used + 3..).and_then(|r| r.strip_prefix(':'));
            if minutes.and_then(|m| digits(m, 2)).is_none() {
                break;
            }
        }
        parts[k + 1] = part;
        used += 3;
        count += 1;
    }
    if count == 4 {
        // An hour without its minutes: the date alone.
        parts[3] = 0;
        count = 3;
        used -= 3;
    }
    (count >= min).then_some((parts, count, used))
}

/// The multiplier of a suffix letter: `k`, `M`, `B`/`G` (either case).
fn suffix(c: char) -> Option<f64> {
    match c.to_ascii_lowercase() {
        'k' => Some(1e3),
        'm' => Some(1e6),
        'b' | 'g' => Some(1e9),
        _ => None,
    }
}

/// A number at the start of `s` (`-`, digits with `,` between groups of three, one `.`, then a
/// suffix letter not followed by a letter): its value and the bytes read.
fn number_prefix(s: &str) -> Option<(f64, usize)> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut text = String::new();
    if b.first() == Some(&b'-') {
        text.push('-');
        i = 1;
    }
    let start = i;
    let mut dot = false;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() {
            text.push(c as char);
            i += 1;
        } else if c == b','
            && i > start
            && !dot
            && b.get(i + 1..i + 4)
                .is_some_and(|g| g.iter().all(u8::is_ascii_digit))
            && !b.get(i + 4).is_some_and(u8::is_ascii_digit)
        {
            i += 1;
        } else if c == b'.' && !dot && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            dot = true;
            text.push('.');
            i += 1;
        } else {
            break;
        }
    }
    if i == start {
        return None;
    }
    let mut value: f64 = text.parse().ok()?;
    if let Some(c) = s[i..].chars().next()
        && let Some(m) = suffix(c)
        && !s[i + c.len_utf8()..]
            .chars()
            .next()
            .is_some_and(char::is_alphabetic)
    {
        value *= m;
        i += c.len_utf8();
    }
    Some((value, i))
}

/// The first number in a value: `133141`, `1,234 downloads`, `1.2k`, `v2` (2), `-3`.
pub fn first_number(value: &str) -> Option<f64> {
    let at = value.find(|c: char| c.is_ascii_digit())?;
    let at = if at > 0 && value.as_bytes()[at - 1] == b'-' {
        at - 1
    } else {
        at
    };
    number_prefix(&value[at..]).map(|(n, _)| n)
}

/// The date a value starts with (at least year and month): its parts, for sorting by date.
pub fn leading_date(value: &str) -> Option<DateParts> {
    date_prefix(value.trim_start(), 2).map(|(p, _, _)| p)
}

/// A value as a sort reads it: a date, else a number, else text (ignoring case); empty is
/// missing.
#[derive(Debug, Clone, PartialEq)]
enum SortKey {
    Date(DateParts),
    Number(f64),
    Text(String),
}

impl SortKey {
    fn of(value: &str, text_only: bool) -> Option<SortKey> {
        let value = value.trim();
        if value.is_empty() {
            return None;
        }
        if !text_only {
            if let Some(d) = leading_date(value) {
                return Some(SortKey::Date(d));
            }
            if let Some(n) = first_number(value) {
                return Some(SortKey::Number(n));
            }
        }
        Some(SortKey::Text(value.to_lowercase()))
    }

    fn rank(&self) -> u8 {
        match self {
            SortKey::Date(_) => 0,
            SortKey::Number(_) => 1,
            SortKey::Text(_) => 2,
        }
    }

    fn cmp(&self, other: &SortKey) -> Ordering {
        match (self, other) {
            (SortKey::Date(a), SortKey::Date(b)) => a.cmp(b),
            (SortKey::Number(a), SortKey::Number(b)) => a.total_cmp(b),
            (SortKey::Text(a), SortKey::Text(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

/// Orders `items` by the value `value` gives each (`None`: it has none): dates as dates,
/// numbers as numbers, text ignoring case (`text_only`: always text, for names); missing
/// values last in either direction. Stable: equal values keep their order (best match first).
pub fn order_by<'a, T: Copy>(
    items: &mut [T],
    descending: bool,
    text_only: bool,
    value: impl Fn(T) -> Option<&'a str>,
) {
    let mut keyed: Vec<(Option<SortKey>, T)> = items
        .iter()
        .map(|&t| (value(t).and_then(|v| SortKey::of(v, text_only)), t))
        .collect();
    keyed.sort_by(|(a, _), (b, _)| match (a, b) {
        // Dates, then numbers, then text, in either direction: a stray `n/a` among numbers
        // never comes first.
        (Some(a), Some(b)) if a.rank() != b.rank() => a.rank().cmp(&b.rank()),
        (Some(a), Some(b)) if descending => b.cmp(a),
        (Some(a), Some(b)) => a.cmp(b),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    });
    for (slot, (_, t)) in items.iter_mut().zip(keyed) {
        *slot = t;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(cmp: &str, value: &str) -> bool {
        Comparison::parse(cmp)
            .unwrap_or_else(|| panic!("{cmp} parses"))
            .matches(value)
    }

    #[test]
    fn numbers_with_groups_decimals_and_suffixes() {
        assert!(ok(">1000", "133141"));
        assert!(!ok(">1000", "999"));
        assert!(!ok(">1000", "1000"));
        assert!(ok(">=1000", "1000"));
        assert!(ok(">=4.5", "4.5"));
        assert!(!ok(">=4.5", "4.4"));
        assert!(ok("<4.5", "4.4"));
        assert!(ok("<=4.5", "4.5"));
        assert!(ok("=4.5", "4.5"));
        assert!(!ok("=4.5", "4.6"));
        assert!(ok(">1.2k", "1,234 downloads"), "1,234 is 1234 > 1200");
        assert!(!ok(">1.3k", "1,234"));
        assert!(ok("=1200", "1.2k"));
        assert!(ok(">=2.5M", "3M"));
        assert!(ok("<2.5m", "2,499,999"));
        assert!(ok(">1", "v2"), "the first number in it");
        assert!(!ok(">0", "none"), "no number never matches");
        assert!(!ok("<1", ""), "an empty value never matches");
        assert!(ok("<0", "-3"));
        assert!(!ok("=1", "1.2.3") && ok("=1.2", "1.2.3"));
        assert!(
            ok("=1", "1,23"),
            "a comma not before three digits ends the number"
        );
        assert!(ok("=12", "12kg"), "a suffix before a letter is no suffix");
    }

    #[test]
    fn dates_at_each_precision() {
        assert!(ok(">2026-01-01", "2026-07-14"));
        assert!(!ok(">2026-01-01", "2026-01-01"));
        assert!(!ok(">2026-01-01", "2025-12-31"));
        assert!(ok(">=2026-01-01", "2026-01-01"));
        assert!(ok(">=2026-01-01", "2026-01-01T00:00:00Z"));
        assert!(
            !ok(">2026-11-01", "2026-11-01 23:59"),
            "> a day is from the next day"
        );
        assert!(ok(">2026-11-01", "2026-11-02 00:00"));
        assert!(ok("<2026-01", "2025-12-31"));
        assert!(!ok("<2026-01", "2026-01-05"));
        assert!(ok("=2026-01", "2026-01-31"));
        assert!(ok("<=2026-01", "2026-01-31"));
        assert!(!ok("<=2026-01", "2026-02-01"));
        assert!(ok(">2025", "2026-01-01"));
        assert!(!ok(">2026", "2026-12-31"));
        assert!(ok("=2026", "2026-12-31"));
        assert!(ok(">2026-11-01T14:00", "2026-11-01T14:03:00Z"));
        assert!(!ok(">2026-11-01T14:03", "2026-11-01 14:03:59"));
        assert!(ok(">2026-11-01T14:03:00", "2026-11-01 14:03:59"));
        assert!(
            ok("<2026-11-01 14:03", "2026-11-01"),
            "missing time is midnight"
        );
        assert!(!ok(">2025-01-01", "yesterday"), "no date never matches");
        assert!(!ok(">2025-01-01", "20260101"));
        assert!(!ok(">2025-01-01", "123456"), "a number is no date");
        assert!(
            ok(">2000", "5000"),
            "a bare year is a number against a number"
        );
        assert!(!ok(">2000", "v1"));
    }

    #[test]
    fn what_is_no_comparison() {
        for text in [
            "1000",
            ">",
            ">abc",
            ">10 apples",
            "=2026-13",
            ">>1",
            "<1kk",
            ">1,2",
        ] {
            assert_eq!(Comparison::parse(text), None, "{text}");
        }
        assert_eq!(
            Comparison::parse(">=2026-11").map(|c| c.describe()),
            Some(">= 2026-11".into())
        );
        assert_eq!(
            Comparison::parse("<1.5k").map(|c| c.describe()),
            Some("< 1500".into())
        );
    }

    #[test]
    fn leading_dates_and_first_numbers() {
        assert_eq!(leading_date("2026-07-14"), Some([2026, 7, 14, 0, 0, 0]));
        assert_eq!(leading_date("2026-07"), Some([2026, 7, 0, 0, 0, 0]));
        assert_eq!(leading_date("2026"), None);
        assert_eq!(first_number("rated 4.5/5"), Some(4.5));
        assert_eq!(first_number("n/a"), None);
    }

    #[test]
    fn ordering_by_values_with_missing_last() {
        let values = ["4.5", "", "10", "n/a", "4.25", "2026-01-02"];
        let order = |descending, text_only| {
            let mut idx: Vec<usize> = (0..values.len()).collect();
            order_by(&mut idx, descending, text_only, |i| Some(values[i]));
            idx
        };
        // dates, then numbers, then text; missing last
        assert_eq!(order(false, false), [5, 4, 0, 2, 3, 1]);
        assert_eq!(
            order(true, false),
            [5, 2, 0, 4, 3, 1],
            "kinds and missing in the same place when descending"
        );
        assert_eq!(order(false, true), [2, 5, 4, 0, 3, 1], "names as text");
    }
}
