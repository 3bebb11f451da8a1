//! Which rows match, without ranking them: for lists shown in an order of their own (the
//! archive, sorted by when each task finished), where a score would be computed and thrown
//! away. The answer is the same set of rows `rank_fields` keeps (a property test says so); it
//! is found faster because fuzzy terms on ASCII text are decided by a subsequence scan instead
//! of nucleo's scoring, nothing is sorted, and a long list is split over the cores.
//!
//! Where the time goes (perf on the dashboard typing into 100,000 archived tasks,
//! `scripts/measure-archive.py`): reading each row's text, so the text is read where it lies
//! (no copies per row, dates formatted once per distinct minute by the caller) and a fuzzy term
//! is one pass over it.

use super::texts::{CharIndex, Table, Texts, Values};
use super::{FuzzyFilter, Query, Source, Term, resolve_keys, term_score, word_at};
use nucleo_matcher::Utf32Str;
use nucleo_matcher::pattern::AtomKind;
use std::num::NonZeroUsize;
use std::sync::OnceLock;

/// Fewer rows than this a core are matched on the caller's thread alone: a thread costs tens
/// of microseconds to start, about what matching this many names takes.
const SPLIT_FROM: usize = 8192;

impl FuzzyFilter {
    /// The indices of the rows that match `query`, ascending; rows as in `rank_fields` (a
    /// name, and the values of `keys`).
    pub fn matching_fields<'a>(
        &mut self,
        query: &str,
        keys: &[&str],
        rows: impl IntoIterator<Item = (&'a str, &'a [&'a str])>,
    ) -> Vec<u32> {
        let rows: Vec<(&str, &[&str])> = rows.into_iter().collect();
        let table = Table::new(
            Texts::new(rows.iter().map(|r| r.0)),
            (0..keys.len())
                .map(|c| Values::new(rows.iter().map(|r| r.1.get(c).copied().unwrap_or(""))))
                .collect(),
            Vec::new(),
        );
        let mut kept = Vec::new();
        self.matching_among(query, keys, &every_row(rows.len()), &table, &mut kept);
        rows_of(&kept).collect()
    }

    /// `matching_fields` for rows whose texts the caller made: `names[i]` and `values[i]`
    /// (the values of `keys`, in their order) are row `i`. The indices, ascending.
    pub fn matching_texts<S: AsRef<str>>(
        &mut self,
        query: &str,
        keys: &[&str],
        names: &[String],
        values: &[Vec<S>],
    ) -> Vec<usize> {
        let refs: Vec<Vec<&str>> = values
            .iter()
            .map(|v| v.iter().map(AsRef::as_ref).collect())
            .collect();
        self.matching_fields(
            query,
            keys,
            names
                .iter()
                .map(String::as_str)
                .zip(refs.iter().map(Vec::as_slice)),
        )
        .into_iter()
        .map(|i| i as usize)
        .collect()
    }

    /// Sets in `kept` the bits of those rows of `among` (a bit per row: bit `i % 64` of word
    /// `i / 64` is row `i`) that match `query`, the rows' text in `table` (its fields in the
    /// order of `keys`). Nothing is gathered or copied per row, nothing allocated when `kept`
    /// is as long as `among` already (a keystroke's fresh memory costs page faults), and a
    /// term on a field is decided once per distinct value; a long list is split over the
    /// machine's cores, each part writing its own words of `kept`.
    pub fn matching_among(
        &mut self,
        query: &str,
        keys: &[&str],
        among: &[u64],
        table: &Table,
        kept: &mut Vec<u64>,
    ) {
        let parsed = Query::parse(query);
        let groups: Vec<Vec<Prepared<'_>>> = resolve_keys(&parsed, keys)
            .into_iter()
            .map(|group| {
                group
                    .into_iter()
                    .map(|(term, source)| {
                        let ascii = ascii_needle(term);
                        let slots = indexed_slots(term, source, ascii.as_deref());
                        Prepared {
                            one: one_character(term, ascii.as_deref(), slots.as_deref()),
                            slots,
                            term,
                            source,
                            ascii,
                        }
                    })
                    .collect()
            })
            .collect();
        kept.clear();
        kept.resize(among.len(), 0);
        let mut candidates = std::mem::take(&mut self.candidates);
        let sure = rule_out(&groups, among, &table.chars, &mut candidates, kept);
        let among = &candidates[..];
        // By the rows left to read, not the list's length: a narrowed query has few.
        let left: usize = among.iter().map(|w| w.count_ones() as usize).sum();
        let threads = cores().min(left / SPLIT_FROM).max(1);
        if threads == 1 {
            self.keep_matching(&groups, &sure, among, 0, table, kept);
            self.candidates = candidates;
            return;
        }
        let per_thread = among.len().div_ceil(threads);
        let mut helpers = std::mem::take(&mut self.helpers);
        helpers.resize_with(threads - 1, FuzzyFilter::new);
        // On rayon's threads, which wait between rankings: a thread started for each was put
        // on its starter's core, the other idle, for the first 8 ms of a million names'
        // ranking (`perf record -a`, 2026-11-30).
        rayon::scope(|s| {
            let mut parts = among.chunks(per_thread).zip(kept.chunks_mut(per_thread));
            let (own, own_kept) = parts.next().unwrap_or_default();
            for (k, ((part, part_kept), helper)) in parts.zip(helpers.iter_mut()).enumerate() {
                let (groups, sure) = (&groups, &sure);
                let first = (k + 1) * per_thread;
                s.spawn(move |_| {
                    helper.keep_matching(groups, sure, part, first, table, part_kept);
                });
            }
            self.keep_matching(&groups, &sure, own, 0, table, own_kept);
        });
        self.helpers = helpers;
        self.candidates = candidates;
    }

    /// Sets the bits of `kept` for the rows of `among` that match (both from word `first` of
    /// the whole); `sure` holds, per group, the rows it is known to hold for.
    fn keep_matching(
        &mut self,
        groups: &[Vec<Prepared<'_>>],
        sure: &[Vec<u64>],
        among: &[u64],
        first: usize,
        table: &Table,
        kept: &mut [u64],
    ) {
        // Per term on a field, what it said of each distinct value: 0 not asked yet, 1 no,
        // 2 yes.
        let mut said: Vec<Vec<Vec<u8>>> = groups
            .iter()
            .map(|group| {
                group
                    .iter()
                    .map(|p| match p.source {
                        Source::Column(c) => {
                            vec![0; table.fields.get(c).map_or(0, Values::distinct)]
                        }
                        Source::Name | Source::Nowhere => Vec::new(),
                    })
                    .collect()
            })
            .collect();
        for (w, (&candidates, out)) in among.iter().zip(kept.iter_mut()).enumerate() {
            let mut rest = candidates;
            while rest != 0 {
                let bit = rest.trailing_zeros();
                rest &= rest - 1;
                let i = (first + w) * 64 + bit as usize;
                if self.all_groups_match(groups, sure, &mut said, table, i) {
                    *out |= 1 << bit;
                }
            }
        }
    }

    /// Every group has a term that holds for row `i`.
    fn all_groups_match(
        &mut self,
        groups: &[Vec<Prepared<'_>>],
        sure: &[Vec<u64>],
        said: &mut [Vec<Vec<u8>>],
        table: &Table,
        i: usize,
    ) -> bool {
        groups
            .iter()
            .zip(sure)
            .zip(said)
            .all(|((group, sure), said)| {
                has_row(sure, i as u32)
                    || group.iter().zip(said).any(|(p, said)| match p.source {
                        Source::Name => self.holds(p, table.names.bytes(i)),
                        Source::Column(c) => {
                            let Some((column, id)) =
                                table.fields.get(c).and_then(|f| Some((f, f.id(i)?)))
                            else {
                                return self.holds(p, &[]);
                            };
                            match said.get(id) {
                                Some(1) => false,
                                Some(2) => true,
                                _ => {
                                    let holds = self.holds(p, column.value(id));
                                    if let Some(slot) = said.get_mut(id) {
                                        *slot = 1 + u8::from(holds);
                                    }
                                    holds
                                }
                            }
                        }
                        Source::Nowhere => false,
                    })
            })
    }

    /// Whether one term holds for `text` (a negated term: whether its word is absent).
    fn holds(&mut self, p: &Prepared<'_>, text: &[u8]) -> bool {
        let term = p.term;
        if !term.word
            && term.compare.is_none()
            && let Some(needle) = &p.ascii
            && text.is_ascii()
        {
            // A row must match here exactly when the watch list's ranking keeps it, so the
            // kinds decided here are decided as nucleo decides them; the rarer ones (exact,
            // prefix, postfix, words) are left to nucleo.
            match term.atom.kind {
                AtomKind::Fuzzy => {
                    return subsequence(text, needle, term.ignore_case) != term.atom.negative;
                }
                AtomKind::Substring => {
                    return substring(text, needle, term.ignore_case) != term.atom.negative;
                }
                _ => {}
            }
        }
        let text = std::str::from_utf8(text).unwrap_or("");
        if let Some(compare) = &term.compare {
            return compare.matches(text) != term.atom.negative;
        }
        let FuzzyFilter { matcher, buf, .. } = self;
        let hay = Utf32Str::new(text, buf);
        if term.word {
            return word_at(term, hay).is_some() != term.atom.negative;
        }
        term_score(matcher, term, hay, None).is_some()
    }
}

/// A term with where it reads its text and, when its needle is ASCII, the needle's bytes (made
/// once per query, not per row).
struct Prepared<'q> {
    term: &'q Term,
    source: Source,
    ascii: Option<Box<[u8]>>,
    /// For a term on names, the `CharIndex` slots of its needle's characters: a row missing
    /// one cannot hold the needle.
    slots: Option<Box<[usize]>>,
    /// The term holds exactly for the ASCII rows its one character's index says hold it.
    one: bool,
}

/// Whether a term is one indexed character that holds exactly where the text has it: found
/// (not negated) by a fuzzy or substring match, as the index reads it (ignoring case, or a
/// character with no case).
fn one_character(term: &Term, ascii: Option<&[u8]>, slots: Option<&[usize]>) -> bool {
    let (Some(&[c]), Some(&[_])) = (ascii, slots) else {
        return false;
    };
    !term.atom.negative
        && !term.word
        && matches!(term.atom.kind, AtomKind::Fuzzy | AtomKind::Substring)
        && (term.ignore_case || !c.is_ascii_alphabetic())
}

/// The `CharIndex` slots of the characters of a term's needle, when the index can decide for
/// it: a term matched (not compared) against names, its needle ASCII.
fn indexed_slots(term: &Term, source: Source, ascii: Option<&[u8]>) -> Option<Box<[usize]>> {
    if !matches!(source, Source::Name) || term.compare.is_some() {
        return None;
    }
    let mut slots: Vec<usize> = ascii?
        .iter()
        .filter_map(|&b| CharIndex::slot(char::from(b)))
        .collect();
    slots.sort_unstable();
    slots.dedup();
    Some(slots.into())
}

/// Decides rows by the characters they hold: fills `candidates` with the rows of `among` that
/// may still match (each group has a term that may hold), sets in `kept` those known to match
/// (each group has a term known to hold), and returns, per group, the rows for which it is
/// known to hold (a negated term whose word a row cannot contain, a character a row has).
/// Whatever the index cannot decide is left for the rows' text to say.
fn rule_out(
    groups: &[Vec<Prepared<'_>>],
    among: &[u64],
    index: &CharIndex,
    candidates: &mut Vec<u64>,
    kept: &mut [u64],
) -> Vec<Vec<u64>> {
    candidates.clear();
    candidates.extend_from_slice(among);
    let mut sure: Vec<Vec<u64>> = groups.iter().map(|_| Vec::new()).collect();
    for (group, sure) in groups.iter().zip(&mut sure) {
        if group
            .iter()
            .any(|p| p.one || (p.slots.is_some() && p.term.atom.negative))
        {
            sure.resize(among.len(), 0);
        }
        for (w, candidates) in candidates.iter_mut().enumerate() {
            if *candidates == 0 {
                continue;
            }
            let (mut may, mut holds) = (0u64, 0u64);
            for p in group {
                let Some(slots) = &p.slots else {
                    may = u64::MAX;
                    continue;
                };
                let all_there = slots
                    .iter()
                    .fold(u64::MAX, |acc, &s| acc & index.word(s, w));
                if p.term.atom.negative {
                    may = u64::MAX;
                    holds |= !all_there;
                } else {
                    may |= all_there;
                    if p.one {
                        holds |= all_there & index.ascii(w);
                    }
                }
            }
            *candidates &= may;
            if let Some(word) = sure.get_mut(w) {
                *word = holds;
            }
        }
    }
    // The rows every group is known to hold for match: no text is read for them.
    for (w, (candidates, kept)) in candidates.iter_mut().zip(kept).enumerate() {
        let known = sure
            .iter()
            .fold(u64::MAX, |acc, s| acc & s.get(w).copied().unwrap_or(0));
        *kept |= *candidates & known;
        *candidates &= !known;
    }
    sure
}

/// The needle as bytes when it is ASCII (as the matcher compares it: lowercased when case is
/// ignored).
fn ascii_needle(term: &Term) -> Option<Box<[u8]>> {
    term.needle
        .iter()
        .map(|&c| u8::try_from(c).ok().filter(u8::is_ascii))
        .collect()
}

/// How many cores this process may use, asked once: the answer reads the cgroup's files.
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, NonZeroUsize::get))
}

/// Rows `0..n` as a set: a bit each, bit `i % 64` of word `i / 64`.
pub fn every_row(n: usize) -> Vec<u64> {
    let mut words = vec![u64::MAX; n / 64];
    if !n.is_multiple_of(64) {
        words.push((1 << (n % 64)) - 1);
    }
    words
}

/// The rows of a set (as `every_row` makes them), ascending.
pub fn rows_of(set: &[u64]) -> impl Iterator<Item = u32> + '_ {
    set.iter().enumerate().flat_map(|(w, &word)| {
        let first = u32::try_from(w * 64).unwrap_or(u32::MAX);
        std::iter::successors(Some(word), |&rest| Some(rest & rest.wrapping_sub(1)))
            .take_while(|&rest| rest != 0)
            .map(move |rest| first + rest.trailing_zeros())
    })
}

/// Whether row `i` is in `set` (as `every_row` makes them).
pub fn has_row(set: &[u64], i: u32) -> bool {
    set.get(i as usize / 64)
        .is_some_and(|word| word & (1 << (i % 64)) != 0)
}

/// Whether nucleo's substring match (`'term`, and `!term`'s test) finds `needle` in `hay`,
/// both ASCII, `needle` lowercased when case is ignored. Decided as nucleo 0.3 decides it,
/// including where it is stricter than "occurs, ignoring case": when case is ignored and the
/// needle's first letter comes after two or more other characters, only an occurrence in the
/// needle's own case, not too near the end, counts (`'--a` is not found in `--AA`, nor `'--ba`
/// in `--baA`).
fn substring(hay: &[u8], needle: &[u8], ignore_case: bool) -> bool {
    if needle.len() > hay.len() {
        return false;
    }
    if needle.is_empty() {
        return true;
    }
    let same = |window: &[u8]| {
        if ignore_case {
            window.eq_ignore_ascii_case(needle)
        } else {
            window == needle
        }
    };
    // The whole text or one character: compared as nucleo's exact and one-character matches do.
    if needle.len() == hay.len() || needle.len() == 1 {
        return hay.windows(needle.len()).any(same);
    }
    if !ignore_case {
        return memchr::memmem::find(hay, needle).is_some();
    }
    match needle.iter().position(u8::is_ascii_lowercase) {
        Some(0 | 1) => hay.windows(needle.len()).any(same),
        // nucleo looks for the needle as it is, in the text less its last `needle.len() -
        // first` bytes, and stops there when it finds none.
        Some(first) => {
            memchr::memmem::find(&hay[..hay.len() - needle.len() + first], needle).is_some()
        }
        None => memchr::memmem::find(hay, needle).is_some(),
    }
}

/// `needle`'s bytes occur in `hay` in order (fzf's fuzzy match), `needle` lowercased when
/// case is ignored. One pass over `hay`, a byte at a time: names are a few dozen bytes, where
/// a `memchr` call per needle byte costs more than the bytes it skips.
fn subsequence(hay: &[u8], needle: &[u8], ignore_case: bool) -> bool {
    let mut want = needle.iter();
    let Some(mut next) = want.next() else {
        return true;
    };
    for &b in hay {
        let b = if ignore_case {
            b.to_ascii_lowercase()
        } else {
            b
        };
        if b == *next {
            match want.next() {
                Some(n) => next = n,
                None => return true,
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rows<'a>(names: &'a [String], labels: &'a [[&'a str; 1]]) -> Vec<(&'a str, &'a [&'a str])> {
        names
            .iter()
            .map(String::as_str)
            .zip(labels.iter().map(|l| &l[..]))
            .collect()
    }

    /// The rows `rank_fields` keeps, in the list's order.
    fn ranked(query: &str, rows: &[(&str, &[&str])]) -> Vec<u32> {
        let mut kept: Vec<u32> = FuzzyFilter::new()
            .rank_fields(query, &["label"], rows.iter().copied())
            .into_iter()
            .map(|r| r.index)
            .collect();
        kept.sort_unstable();
        kept
    }

    #[test]
    fn keeps_what_ranking_keeps_for_each_kind_of_term() {
        let names: Vec<String> = [
            "sim-3 COMPLETED sunset",
            "sim-30 FAILED Sunset Harbor",
            "fill-99 COMPLETED cat",
            "vidéo-1 COMPLETED neon",
            "a-b-c COMPLETED",
        ]
        .map(String::from)
        .to_vec();
        let labels = [["sunset"], ["Sunset Harbor"], ["cat"], ["neon"], [""]];
        let rows = rows(&names, &labels);
        for query in [
            "sim",
            "s3",
            "'sunset",
            "Sunset",
            "^sim",
            "cat$",
            "!failed",
            "!'sim",
            "label:harbor",
            "!label:sunset",
            "sim | cat",
            "vid",
            "video",
            "'ab",
            "'b-c",
            "'word' COMPLETED",
            "",
            "C",
            "S",
        ] {
            assert_eq!(
                FuzzyFilter::new().matching_fields(query, &["label"], rows.iter().copied()),
                ranked(query, &rows),
                "{query}"
            );
        }
    }

    /// A list long enough to be split over threads keeps the same rows, of those asked about
    /// only, and a term on a field is decided once per value yet for every row.
    #[test]
    fn a_long_list_split_over_threads_keeps_the_same_rows() {
        let names: Vec<String> = (0..3 * SPLIT_FROM + 7)
            .map(|i| format!("task-{i} {}", ["COMPLETED", "FAILED"][i % 2]))
            .collect();
        let labels: Vec<[&str; 1]> = (0..names.len())
            .map(|i| [["cat", "dog", ""][i % 3]])
            .collect();
        let rows = rows(&names, &labels);
        let table = Table::new(
            Texts::new(names.iter().map(String::as_str)),
            vec![Values::new(labels.iter().map(|l| l[0]))],
            Vec::new(),
        );
        // Every row but those whose number ends in 5.
        let mut among = every_row(rows.len());
        for i in (5..rows.len()).step_by(10) {
            among[i / 64] &= !(1 << (i % 64));
        }
        let mut filter = FuzzyFilter::new();
        let mut kept = Vec::new();
        for query in ["task-1", "fail", "!label:cat", "label:dog", "'-99"] {
            let expected: Vec<u32> = ranked(query, &rows)
                .into_iter()
                .filter(|&i| i % 10 != 5)
                .collect();
            assert!(
                expected.len() > 50,
                "{query} keeps some: {}",
                expected.len()
            );
            filter.matching_among(query, &["label"], &among, &table, &mut kept);
            assert_eq!(rows_of(&kept).collect::<Vec<_>>(), expected, "{query}");
        }
    }

    #[test]
    fn row_sets_hold_their_rows() {
        for n in [0u32, 1, 63, 64, 65, 200] {
            let all = every_row(n as usize);
            assert_eq!(all.len(), (n as usize).div_ceil(64));
            let rows: Vec<u32> = rows_of(&all).collect();
            assert_eq!(rows, (0..n).collect::<Vec<_>>());
            assert!(n == 0 || has_row(&all, n - 1));
            assert!(!has_row(&all, n), "{n} is past the end");
        }
    }

    #[test]
    fn substring_is_as_strict_as_nucleo_after_two_other_characters() {
        assert!(!substring(b"--AA", b"--a", true));
        assert!(substring(b"--aA", b"--a", true));
        assert!(
            substring(b"x-AA", b"-a", true),
            "the first letter second: any case"
        );
        assert!(
            substring(b"--AA", b"--aa", true),
            "the whole text: any case"
        );
        assert!(!substring(b"--baA", b"--ba", true), "too near the end");
        assert!(substring(b"--baAAA", b"--ba", true));
    }

    /// nucleo's own substring match, for `substring` to agree with.
    fn nucleo_substring(hay: &str, needle: &str, ignore_case: bool) -> bool {
        let mut matcher = nucleo_matcher::Matcher::new(nucleo_matcher::Config::DEFAULT);
        matcher.config.ignore_case = ignore_case;
        let (mut h, mut n) = (Vec::new(), Vec::new());
        matcher
            .substring_match(Utf32Str::new(hay, &mut h), Utf32Str::new(needle, &mut n))
            .is_some()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]
        /// The ASCII substring test finds what nucleo's substring match finds, quirks and all.
        #[test]
        fn substring_agrees_with_nucleo(
            // Few characters, so that the needle often occurs in another case.
            hay in "[abAB -]{0,8}",
            needle in "[ab -]{0,4}",
            ignore_case in any::<bool>(),
        ) {
            prop_assert_eq!(
                substring(hay.as_bytes(), needle.as_bytes(), ignore_case),
                nucleo_substring(&hay, &needle, ignore_case),
                "{:?} in {:?}", needle, hay
            );
        }

        /// Any query over any rows: the same rows as ranking keeps. The characters include
        /// some the index leaves out (`#`) and non-ASCII ones the matcher reads as ASCII (`é`
        /// as `e`, `Å` as `a`), and queries include alternatives (`|`).
        #[test]
        fn keeps_exactly_what_ranking_keeps(
            names in proptest::collection::vec("[a-cA-Ceé0-2 #Å-]{0,12}", 0..12),
            query in "(!?(label:)?['^]?[a-cA-Ce0-2#-]{1,3}\\$? ?(\\| )?){1,3}",
        ) {
            let labels: Vec<[&str; 1]> = names.iter().map(|n| [n.as_str()]).collect();
            let rows = rows(&names, &labels);
            prop_assert_eq!(
                FuzzyFilter::new().matching_fields(&query, &["label"], rows.iter().copied()),
                ranked(&query, &rows)
            );
        }
    }
}
