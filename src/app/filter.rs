//! Local fuzzy filtering of catalogue names (nucleo-matcher), best match first.
//!
//! `FuzzyFilter` ranks a list in one go on the caller's thread: the CLI's `--filter` and the
//! view's highlights (a screenful of rows) use it. `Ranker` is what the dashboard's ranking
//! worker runs, keystroke after keystroke, over up to 100,000 names: it narrows the previous
//! ranking when the query only grew, reuses the one it made before when the query shrank back
//! to it, and splits what is left to rank over the machine's cores.

use nucleo_matcher::pattern::{AtomKind, CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use std::cmp::Reverse;
use std::num::NonZeroUsize;
use std::ops::Range;
use std::sync::{Arc, Weak};

/// One matching entry: its index in the input and its score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ranked {
    pub index: u32,
    pub score: u32,
}

impl Ranked {
    /// The order of a ranking: best score first, ties in input order.
    fn order(self) -> (Reverse<u32>, u32) {
        (Reverse(self.score), self.index)
    }
}

/// Reusable matcher; keeping it avoids re-allocating its scratch space on every keystroke.
pub struct FuzzyFilter {
    matcher: Matcher,
    buf: Vec<char>,
}

impl Default for FuzzyFilter {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for FuzzyFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FuzzyFilter")
    }
}

fn pattern(query: &str) -> Pattern {
    Pattern::new(
        query,
        CaseMatching::Smart,
        Normalization::Smart,
        AtomKind::Fuzzy,
    )
}

impl FuzzyFilter {
    pub fn new() -> Self {
        FuzzyFilter {
            matcher: Matcher::new(Config::DEFAULT),
            buf: Vec::new(),
        }
    }

    /// Ranks `names` against `query`: the matches, best first, ties in input order. An empty
    /// query matches everything in input order.
    pub fn rank<'a>(
        &mut self,
        query: &str,
        names: impl IntoIterator<Item = &'a str>,
    ) -> Vec<Ranked> {
        let names = names.into_iter();
        if query.trim().is_empty() {
            return names
                .enumerate()
                .map(|(i, _)| Ranked {
                    index: i as u32,
                    score: 0,
                })
                .collect();
        }
        let mut ranked = self.matches(
            &pattern(query),
            names.enumerate().map(|(i, name)| (i as u32, name)),
        );
        sort(&mut ranked);
        ranked
    }

    /// The `(index, name)` pairs that match `pattern`, in the order given.
    fn matches<'a>(
        &mut self,
        pattern: &Pattern,
        names: impl Iterator<Item = (u32, &'a str)>,
    ) -> Vec<Ranked> {
        names
            .filter_map(|(index, name)| {
                let hay = Utf32Str::new(name, &mut self.buf);
                pattern
                    .score(hay, &mut self.matcher)
                    .map(|score| Ranked { index, score })
            })
            .collect()
    }

    /// Character positions in `name` that match `query`, for highlighting; sorted, unique.
    pub fn indices(&mut self, query: &str, name: &str) -> Vec<u32> {
        if query.trim().is_empty() {
            return Vec::new();
        }
        let mut indices = Vec::new();
        let hay = Utf32Str::new(name, &mut self.buf);
        pattern(query).indices(hay, &mut self.matcher, &mut indices);
        indices.sort_unstable();
        indices.dedup();
        indices
    }
}

/// Into ranking order. Indices are unique, so the order is total and an unstable sort gives
/// the one result a stable sort would.
fn sort(ranked: &mut [Ranked]) {
    ranked.sort_unstable_by_key(|r| r.order());
}

/// Rankings kept for narrowing and for erasing back to them: one per character typed, each two
/// indices per match, so at most 16 × 8 bytes per name (12.8 MB over 100,000 names, when every
/// query matches almost everything; typing narrows, and most are far smaller). Erasing below
/// the oldest kept ranks again.
const CHAIN: usize = 16;

/// Fewer candidates than this are not worth a thread of their own: starting one costs tens of
/// µs, about what ranking this many takes.
const PER_THREAD: usize = 1024;

/// Ranks the dashboard's filter. Its answers are exactly `FuzzyFilter::rank`'s.
pub struct Ranker {
    /// The names `chain` was ranked over: a new catalogue starts a new chain. Weak, so a chain
    /// never keeps an old catalogue's names alive, and the allocation it points at is never
    /// reused by another catalogue while it is held.
    names: Weak<[Box<str>]>,
    /// Queries ranked lately; each extends the one before it.
    chain: Vec<Kept>,
    /// One matcher per thread that ranks.
    scratch: Vec<FuzzyFilter>,
}

impl Default for Ranker {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Ranker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ranker")
            .field("chain", &self.chain.len())
            .field("threads", &self.scratch.len())
            .finish_non_exhaustive()
    }
}

/// Whether every name matching `longer` also matches `shorter`, so that `longer` can be ranked
/// over `shorter`'s matches only. Appending characters only adds to the last word or adds words,
/// and a fuzzy match of a word is a match of any of its prefixes. Two appends are not relied
/// on: after a trailing backslash a space is an escaped space inside the word (`a\` then `a\ `
/// looks for `a ` where it looked for `a\`), and a first capital switches smart case to
/// case-sensitive matching, where the subset holds only as far as the matcher's Unicode case
/// tables agree; either costs one ranking of everything.
fn narrows(shorter: &str, longer: &str) -> bool {
    let has_capital = |q: &str| q.chars().any(char::is_uppercase);
    longer.starts_with(shorter)
        && !shorter.ends_with('\\')
        && has_capital(shorter) == has_capital(longer)
}

/// A query's ranking, kept for the queries that extend it or erase back to it.
struct Kept {
    query: String,
    /// The answer: indices best first.
    ranked: Arc<[u32]>,
    /// The same indices in input order. A longer query is ranked over them in this order: the
    /// names are then read in the order they lie in memory, which measured up to 30 % faster
    /// than reading them in ranking order (over 100,000 names).
    in_order: Vec<u32>,
}

/// What is left to rank, in input order: every name, or the matches of a query the new one
/// extends.
#[derive(Clone, Copy)]
enum Candidates<'a> {
    All(usize),
    Within(&'a [u32]),
}

impl Candidates<'_> {
    fn len(self) -> usize {
        match self {
            Candidates::All(n) => n,
            Candidates::Within(m) => m.len(),
        }
    }
}

impl Ranker {
    pub fn new() -> Self {
        let threads = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
        Ranker {
            names: Weak::<[Box<str>; 0]>::new(),
            chain: Vec::new(),
            scratch: (0..threads).map(|_| FuzzyFilter::new()).collect(),
        }
    }

    /// Indices into `names` of the entries matching `query`, best first, ties in input order.
    pub fn rank(&mut self, query: &str, names: &Arc<[Box<str>]>) -> Arc<[u32]> {
        if !Weak::ptr_eq(&self.names, &Arc::downgrade(names)) {
            self.names = Arc::downgrade(names);
            self.chain.clear();
        }
        while self.chain.last().is_some_and(|k| !narrows(&k.query, query)) {
            self.chain.pop();
        }
        let candidates = match self.chain.last() {
            Some(k) if k.query == query => return k.ranked.clone(),
            Some(k) => Candidates::Within(&k.in_order),
            None => Candidates::All(names.len()),
        };
        let (in_order, ranked) = rank_split(&mut self.scratch, &pattern(query), names, candidates);
        let ranked: Arc<[u32]> = ranked.iter().map(|r| r.index).collect();
        if self.chain.len() == CHAIN {
            self.chain.remove(0);
        }
        self.chain.push(Kept {
            query: query.to_string(),
            ranked: ranked.clone(),
            in_order,
        });
        ranked
    }
}

/// Ranks the candidates in one contiguous part per thread, each part sorted on its thread, then
/// merges the sorted parts: the sort is spread over the cores as well as the matching. Returns
/// the matches in input order and in ranking order.
fn rank_split(
    scratch: &mut [FuzzyFilter],
    pattern: &Pattern,
    names: &[Box<str>],
    candidates: Candidates<'_>,
) -> (Vec<u32>, Vec<Ranked>) {
    let len = candidates.len();
    let parts = (len / PER_THREAD).clamp(1, scratch.len());
    let size = len.div_ceil(parts);
    let ranges = (0..parts).map(|p| (p * size).min(len)..((p + 1) * size).min(len));
    let part = |filter: &mut FuzzyFilter, range: Range<usize>| {
        let mut found = match candidates {
            Candidates::All(_) => filter.matches(pattern, range.map(|i| (i as u32, &*names[i]))),
            Candidates::Within(m) => {
                filter.matches(pattern, m[range].iter().map(|&i| (i, &*names[i as usize])))
            }
        };
        let in_order: Vec<u32> = found.iter().map(|r| r.index).collect();
        sort(&mut found);
        (in_order, found)
    };
    let mut scratch = scratch.iter_mut().zip(ranges);
    let Some((own, own_range)) = scratch.next() else {
        return (Vec::new(), Vec::new());
    };
    std::thread::scope(|s| {
        let others: Vec<_> = scratch
            .map(|(filter, range)| s.spawn(|| part(filter, range)))
            .collect();
        let (mut in_order, mut ranked) = part(own, own_range);
        // Joined in the order of the parts, so that their input orders simply concatenate.
        for other in others {
            let (more, sorted) = other
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            in_order.extend(more);
            ranked = merge(ranked, sorted);
        }
        (in_order, ranked)
    })
}

/// Two rankings as one, in ranking order.
fn merge(a: Vec<Ranked>, b: Vec<Ranked>) -> Vec<Ranked> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
        let next = if x.order() <= y.order() {
            a.next()
        } else {
            b.next()
        };
        out.extend(next);
    }
    out.extend(a);
    out.extend(b);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_first_and_highlights() {
        let names = ["watercolor_v2", "pixel_art", "water_tower", "ink_wash_xl"];
        let mut f = FuzzyFilter::new();
        let ranked = f.rank("water", names);
        let got: Vec<_> = ranked.iter().map(|r| names[r.index as usize]).collect();
        assert_eq!(got.len(), 2);
        assert!(got.contains(&"watercolor_v2") && got.contains(&"water_tower"));
        assert_eq!(f.indices("pxa", "pixel_art"), vec![0, 2, 6]);
        assert!(f.rank("zzzz", names).is_empty());
        assert_eq!(f.rank("", names).len(), 4);
    }

    fn full(names: &[Box<str>], query: &str) -> Vec<u32> {
        FuzzyFilter::new()
            .rank(query, names.iter().map(|n| &**n))
            .iter()
            .map(|r| r.index)
            .collect()
    }

    /// Each step of a session is answered exactly as a ranking from scratch would be, whether
    /// it narrows, reuses, or starts over.
    #[test]
    fn a_typing_session_ranks_as_from_scratch() {
        let names: Arc<[Box<str>]> = [
            "watercolor_v2",
            "Water_Tower",
            "ink_wash",
            "a b",
            "a\\b",
            "wat\\er",
            "café_noir",
            "CAFE_bright",
            "pixel_art",
            "WATERcolor",
        ]
        .into_iter()
        .map(Box::from)
        .collect();
        let mut r = Ranker::new();
        for query in [
            "w", "wa", "wat", "wate", "wat", "wa", "waT", "wat", "wat\\", "wat\\ ", "wat\\e", "a",
            "a\\", "a\\ ", "a\\ b", "a ", "a b", "caf", "café", "cafe", "C", "CA", "CAf", "wat",
            "wat", "zz", "zzw", "",
        ] {
            assert_eq!(&*r.rank(query, &names), full(&names, query), "{query:?}");
        }
    }

    /// A new catalogue is never ranked with an old catalogue's rankings, even under the same
    /// query.
    #[test]
    fn a_new_catalogue_starts_over() {
        let old: Arc<[Box<str>]> = ["ab", "ba"].into_iter().map(Box::from).collect();
        let new: Arc<[Box<str>]> = ["xx", "ab"].into_iter().map(Box::from).collect();
        let mut r = Ranker::new();
        assert_eq!(&*r.rank("ab", &old), [0]);
        assert_eq!(&*r.rank("ab", &new), [1]);
        assert_eq!(&*r.rank("abc", &new), [0u32; 0]);
    }

    /// Over more names than one thread ranks, the parts are merged into one ranking order.
    #[test]
    fn ranking_in_parts_keeps_the_order() {
        let names: Arc<[Box<str>]> = (0..6 * PER_THREAD)
            .map(|i| format!("model_{}_{}", i % 7, i % 13).into_boxed_str())
            .collect();
        let mut r = Ranker::new();
        for query in ["m1", "m12", "m", "_3_", "model_6_12"] {
            assert_eq!(&*r.rank(query, &names), full(&names, query), "{query:?}");
        }
    }

    #[test]
    fn merge_interleaves_by_score_then_index() {
        let r = |index, score| Ranked { index, score };
        assert_eq!(
            merge(vec![r(0, 9), r(4, 5), r(1, 1)], vec![r(3, 9), r(2, 5)]),
            [r(0, 9), r(3, 9), r(2, 5), r(4, 5), r(1, 1)]
        );
    }
}
