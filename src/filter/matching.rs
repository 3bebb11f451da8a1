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
        let all: Vec<u32> = (0..u32::try_from(rows.len()).unwrap_or(u32::MAX)).collect();
        self.matching_among(
            query,
            keys,
            &all,
            |i| rows[i as usize].0,
            |i, c| rows[i as usize].1.get(c).copied().unwrap_or(""),
        )
    }

    /// Those of `among` (row numbers, in the order kept) that match `query`: `name(i)` is row
    /// `i`'s name, `field(i, c)` its value of `keys[c]`. Nothing is gathered or copied per row;
    /// a long list is split over the machine's cores, as the ranking worker's `Ranker` does.
    pub fn matching_among<'a>(
        &mut self,
        query: &str,
        keys: &[&str],
        among: &[u32],
        name: impl Fn(u32) -> &'a str + Sync,
        field: impl Fn(u32, usize) -> &'a str + Sync,
    ) -> Vec<u32> {
        let parsed = Query::parse(query);
        let groups: Vec<Vec<Prepared<'_>>> = resolve_keys(&parsed, keys)
            .into_iter()
            .map(|group| {
                group
                    .into_iter()
                    .map(|(term, source)| Prepared {
                        term,
                        source,
                        ascii: ascii_needle(term),
                    })
                    .collect()
            })
            .collect();
        let threads = cores().min(among.len() / SPLIT_FROM).max(1);
        if threads == 1 {
            return self.keep_matching(&groups, among, &name, &field);
        }
        let per_thread = among.len().div_ceil(threads);
        std::thread::scope(|s| {
            let mut parts = among.chunks(per_thread);
            let own = parts.next().unwrap_or(&[]);
            let others: Vec<_> = parts
                .map(|part| {
                    let (groups, name, field) = (&groups, &name, &field);
                    s.spawn(move || FuzzyFilter::new().keep_matching(groups, part, name, field))
                })
                .collect();
            let mut out = self.keep_matching(&groups, own, &name, &field);
            // Joined in the order of the parts, so the kept order stays.
            for other in others {
                out.extend(
                    other
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                );
            }
            out
        })
    }

    fn keep_matching<'a>(
        &mut self,
        groups: &[Vec<Prepared<'_>>],
        among: &[u32],
        name: &impl Fn(u32) -> &'a str,
        field: &impl Fn(u32, usize) -> &'a str,
    ) -> Vec<u32> {
        among
            .iter()
            .copied()
            .filter(|&i| self.all_groups_match(groups, name(i), |c| field(i, c)))
            .collect()
    }

    /// Every group has a term that holds.
    fn all_groups_match<'f>(
        &mut self,
        groups: &[Vec<Prepared<'_>>],
        name: &'f str,
        field: impl Fn(usize) -> &'f str,
    ) -> bool {
        groups.iter().all(|group| {
            group.iter().any(|p| {
                let text = match p.source {
                    Source::Name => name,
                    Source::Column(c) => field(c),
                    Source::Nowhere => return false,
                };
                self.holds(p, text)
            })
        })
    }

    /// Whether one term holds for `text` (a negated term: whether its word is absent).
    fn holds(&mut self, p: &Prepared<'_>, text: &str) -> bool {
        let term = p.term;
        if let Some(compare) = &term.compare {
            return compare.matches(text) != term.atom.negative;
        }
        if !term.word
            && text.is_ascii()
            && let Some(needle) = &p.ascii
        {
            // Only fuzzy terms: nucleo's substring match misses some overlapping runs (`'--a`
            // in `--AA`), and a row must match here exactly when the watch list's ranking keeps
            // it, so the other kinds are left to nucleo.
            if term.atom.kind == AtomKind::Fuzzy {
                return subsequence(text.as_bytes(), needle, term.ignore_case)
                    != term.atom.negative;
            }
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
        ] {
            assert_eq!(
                FuzzyFilter::new().matching_fields(query, &["label"], rows.iter().copied()),
                ranked(query, &rows),
                "{query}"
            );
        }
    }

    /// A list long enough to be split over threads keeps the same rows, in the same order.
    #[test]
    fn a_long_list_split_over_threads_keeps_the_same_rows_in_order() {
        let names: Vec<String> = (0..3 * SPLIT_FROM + 7)
            .map(|i| format!("task-{i} {}", ["COMPLETED", "FAILED"][i % 2]))
            .collect();
        let labels: Vec<[&str; 1]> = (0..names.len())
            .map(|i| [["cat", "dog", ""][i % 3]])
            .collect();
        let rows = rows(&names, &labels);
        let among: Vec<u32> = (0..u32::try_from(rows.len()).expect("a test list fits"))
            .rev()
            .collect();
        for query in ["task-1", "fail", "!label:cat", "'-99"] {
            let mut expected = ranked(query, &rows);
            expected.reverse();
            let kept = FuzzyFilter::new().matching_among(
                query,
                &["label"],
                &among,
                |i| rows[i as usize].0,
                |i, c| rows[i as usize].1[c],
            );
            assert_eq!(kept, expected, "{query}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]
        /// Any query over any rows: the same rows as ranking keeps.
        #[test]
        fn keeps_exactly_what_ranking_keeps(
            names in proptest::collection::vec("[a-cA-C0-2 -]{0,12}", 0..12),
            query in "(!?(label:)?['^]?[a-cA-C0-2-]{1,3}\\$? ?){1,3}",
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
