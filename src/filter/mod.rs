//! Local filtering of the catalogue (nucleo-matcher), best match first, in the query language
//! of [`query`]: fzf's extended syntax, `|` alternatives and `key:value` metadata terms.
//!
//! `FuzzyFilter` ranks a list in one go on the caller's thread: the CLI's `--filter` and the
//! view's highlights (a screenful of rows) use it. `Ranker` is what the dashboard's ranking
//! worker runs, keystroke after keystroke, over up to 100,000 entries: it narrows the previous
//! ranking when the new query can only match fewer entries, reuses the one it made before when
//! the query came back to it, and splits what is left to rank over the machine's cores.
//!
//! Scores: each group of alternatives scores its best matching term, and a query scores the sum
//! of its groups (for plain words, what nucleo's `Pattern` scores). A negated term scores 0, and
//! so does a comparison (`downloads:>1000`, `updated:>=2026-01`: see [`compare`]), which
//! filters without ranking. A `sort:` term then orders the matches by a field (numbers as
//! numbers, dates as dates, missing values last), stably, so ties stay best first; the ranker
//! sorts after narrowing, which works on the matches in input order whatever the sort.

pub mod compare;
#[cfg(test)]
pub(crate) mod forms_tests;
pub mod issue;
pub mod matching;
pub mod query;
pub mod texts;

use crate::api::SearchText;
use crate::api::search::{Fields, char_bit};
pub use issue::{Issue, Scope};
use nucleo_matcher::chars;
use nucleo_matcher::{Config, Matcher, Utf32Str};
pub use query::Query;
use query::{Target, Term};
use rayon::prelude::*;
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
    /// Scratch for a name, and for a field value, as the matcher reads them.
    buf: Vec<char>,
    field_buf: Vec<char>,
    /// The matchers of the threads `matching_among` splits a long list over, kept: a new
    /// matcher clears its scratch (hundreds of KB) before it matches anything.
    helpers: Vec<FuzzyFilter>,
    /// The rows `matching_among` still has to read, kept from one keystroke to the next.
    candidates: Vec<u64>,
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

/// Where a term reads its text, resolved once per ranking (not per entry).
#[derive(Debug, Clone, Copy)]
enum Source {
    Name,
    Column(usize),
    /// A key no entry has: the term matches nothing.
    Nowhere,
}

/// A query's groups with their terms' sources in one catalogue.
type Resolved<'q> = Vec<Vec<(&'q Term, Source)>>;

fn resolve<'q>(query: &'q Query, text: &SearchText) -> Resolved<'q> {
    resolve_by(query, |key| text.fields().column(key))
}

/// A query's groups with their terms' sources among a row's own `keys` (`rank_fields`).
fn resolve_keys<'q>(query: &'q Query, keys: &[&str]) -> Resolved<'q> {
    resolve_by(query, |key| keys.iter().position(|k| *k == key))
}

/// A query's groups, each field term's column found by `column` (none: it matches nothing).
fn resolve_by(query: &Query, column: impl Fn(&str) -> Option<usize>) -> Resolved<'_> {
    query
        .groups
        .iter()
        .map(|group| {
            group
                .iter()
                .map(|term| {
                    let source = match &term.target {
                        Target::Name => Source::Name,
                        Target::Field(key) => column(key).map_or(Source::Nowhere, Source::Column),
                    };
                    (term, source)
                })
                .collect()
        })
        .collect()
}

/// Per group whose every term reads names, each term's [`char_bit`]s: a name holding none of
/// its group's sets cannot match (a term's needle is found, fuzzily or not, only where each of
/// its characters is, in either case). A group with a term that may hold without them (a
/// negated one, a field, a comparison) says nothing and is left out.
fn needs(groups: &Resolved<'_>) -> Vec<Vec<u64>> {
    groups
        .iter()
        .filter_map(|group| {
            group
                .iter()
                .map(|&(term, source)| {
                    let on_name = matches!(source, Source::Name)
                        && term.compare.is_none()
                        && !term.atom.negative;
                    on_name.then(|| term.needle.iter().fold(0, |n, &c| n | char_bit(c)))
                })
                .collect()
        })
        .collect()
}

/// Where fzf's `'word'` occurs in `hay` starting and ending at word boundaries (no letter or
/// digit on either side): its first character's position.
fn word_at(term: &Term, hay: Utf32Str<'_>) -> Option<u32> {
    let needle = &*term.needle;
    let len = hay.len() as u32;
    let n = needle.len() as u32;
    let same = |h: char, c: char| h == c || (term.ignore_case && chars::to_lower_case(h) == c);
    let boundary = |at: u32| !hay.get(at).is_alphanumeric();
    (0..=len.checked_sub(n)?).find(|&start| {
        (start == 0 || boundary(start - 1))
            && (start + n == len || boundary(start + n))
            && needle
                .iter()
                .enumerate()
                .all(|(k, &c)| same(hay.get(start + k as u32), c))
    })
}

/// A term's score against one text; `indices` gets the matched positions of positive terms.
fn term_score(
    matcher: &mut Matcher,
    term: &Term,
    hay: Utf32Str<'_>,
    indices: Option<&mut Vec<u32>>,
) -> Option<u16> {
    if term.word {
        let found = word_at(term, hay);
        if term.atom.negative {
            return found.is_none().then_some(0);
        }
        let start = found?;
        if let Some(indices) = indices {
            indices.extend(start..start + term.needle.len() as u32);
        }
        matcher.config.ignore_case = term.ignore_case;
        matcher.config.normalize = false;
        return matcher.substring_match(hay, term.atom.needle_text());
    }
    match indices {
        Some(indices) => term.atom.indices(hay, matcher, indices),
        None => term.atom.score(hay, matcher),
    }
}

impl FuzzyFilter {
    pub fn new() -> Self {
        FuzzyFilter {
            matcher: Matcher::new(Config::DEFAULT),
            buf: Vec::new(),
            field_buf: Vec::new(),
            helpers: Vec::new(),
            candidates: Vec::new(),
        }
    }

    /// Ranks `names` against `query`: the matches, best first, ties in input order. An empty
    /// query matches everything in input order. Names only: a field term matches nothing.
    pub fn rank<'a>(
        &mut self,
        query: &str,
        names: impl IntoIterator<Item = &'a str>,
    ) -> Vec<Ranked> {
        let parsed = Query::parse(query);
        let none = SearchText::default();
        let groups = resolve(&parsed, &none);
        let mut ranked: Vec<Ranked> = names
            .into_iter()
            .enumerate()
            .filter_map(|(i, name)| {
                self.score(&groups, name, None, i).map(|score| Ranked {
                    index: i as u32,
                    score,
                })
            })
            .collect();
        sort(&mut ranked);
        ranked
    }

    /// Ranks the entries of `text` against `query`, names and metadata fields; as `rank`.
    pub fn rank_text(&mut self, query: &str, text: &SearchText) -> Vec<Ranked> {
        let parsed = Query::parse(query);
        let every = Through::Span {
            first: 0,
            count: text.len(),
        };
        let mut ranked = self.matches(&resolve(&parsed, text), text, every);
        sort(&mut ranked);
        if let Some(by) = &parsed.sort {
            order_text(&mut ranked, by, text, |r| r.index);
        }
        ranked
    }

    /// Ranks rows that each have a name and a few fields of their own (`keys[c]` names each
    /// row's `c`th value), as `rank`, with `key:value` terms on those fields: the watch list's
    /// filter, where `label:` matches a task's label. A key not among `keys` matches nothing.
    pub fn rank_fields<'a>(
        &mut self,
        query: &str,
        keys: &[&str],
        rows: impl IntoIterator<Item = (&'a str, &'a [&'a str])>,
    ) -> Vec<Ranked> {
        let parsed = Query::parse(query);
        let groups = resolve_keys(&parsed, keys);
        let rows: Vec<(&str, &[&str])> = rows.into_iter().collect();
        let mut ranked: Vec<Ranked> = rows
            .iter()
            .enumerate()
            .filter_map(|(i, (name, values))| {
                self.score_by(&groups, name, |c| values.get(c).copied().unwrap_or(""))
                    .map(|score| Ranked {
                        index: i as u32,
                        score,
                    })
            })
            .collect();
        sort(&mut ranked);
        if let Some(by) = &parsed.sort {
            let column = match &by.target {
                Target::Name => None,
                Target::Field(key) => Some(keys.iter().position(|k| **k == **key)),
            };
            compare::order_by(&mut ranked, by.descending, column.is_none(), |r| {
                let (name, values) = rows.get(r.index as usize)?;
                match column {
                    None => Some(*name),
                    Some(c) => values.get(c?).copied(),
                }
            });
        }
        ranked
    }

    /// Entry `i`'s score: every group must have a matching term, each scoring its best.
    #[inline]
    fn score(
        &mut self,
        groups: &Resolved<'_>,
        name: &str,
        fields: Option<&Fields>,
        i: usize,
    ) -> Option<u32> {
        self.score_by(groups, name, |c| fields.map_or("", |f| f.value(c, i)))
    }

    /// A score as `score`, each field's value given by `field` (its column).
    #[inline]
    fn score_by<'f>(
        &mut self,
        groups: &Resolved<'_>,
        name: &str,
        field: impl Fn(usize) -> &'f str,
    ) -> Option<u32> {
        let FuzzyFilter {
            matcher,
            buf,
            field_buf,
            ..
        } = self;
        let name_text = name;
        let name = Utf32Str::new(name, buf);
        let mut total = 0u32;
        for group in groups {
            let mut best = None;
            for &(term, source) in group {
                if let Some(compare) = &term.compare {
                    // Filters, does not rank: 0 when it holds (a negated one when it does not).
                    let text = match source {
                        Source::Name => Some(name_text),
                        Source::Column(c) => Some(field(c)),
                        Source::Nowhere => None,
                    };
                    let score =
                        text.and_then(|t| (compare.matches(t) != term.atom.negative).then_some(0));
                    best = best.max(score);
                    continue;
                }
                let score = match source {
                    Source::Name => term_score(matcher, term, name, None),
                    Source::Column(c) => {
                        term_score(matcher, term, Utf32Str::new(field(c), field_buf), None)
                    }
                    Source::Nowhere => None,
                };
                best = best.max(score);
            }
            total += u32::from(best?);
        }
        Some(total)
    }

    /// The entries of `through` that match, in that order.
    fn matches(
        &mut self,
        groups: &Resolved<'_>,
        text: &SearchText,
        through: Through<'_>,
    ) -> Vec<Ranked> {
        // Built by `resolve` when a term reads a field.
        let fields = text.built_fields();
        // Names kept in one block are read in order, as the processor fetches them ahead.
        let ahead = if text.names_together() { 0 } else { AHEAD };
        let needs = if text.knows_held() {
            needs(groups)
        } else {
            Vec::new()
        };
        let count = through.len();
        let mut found = Vec::new();
        // A `while`, not `for k in 0..count`: at the crate's opt-level ("s") the range's `next`
        // and the entry's lookup were calls, a fifth of a one-letter query's time over a
        // million names (`million_keys`, `perf`).
        let mut k = 0;
        while k < count {
            // The entries are mostly not in the cache, nor in order once narrowed: reading the
            // one `AHEAD` places on starts its fetch while this one is matched, not after
            // (a quarter less CPU over a million names; reading its name's first byte as well
            // was slower).
            if ahead > 0 && k + ahead < count {
                std::hint::black_box(text.name(through.at(k + ahead) as usize).len());
            }
            let index = through.at(k);
            k += 1;
            let i = index as usize;
            if !needs.is_empty() {
                let held = text.held(i);
                if !needs.iter().all(|g| g.iter().any(|&n| n & !held == 0)) {
                    continue;
                }
            }
            if let Some(score) = self.score(groups, text.name(i), fields, i) {
                found.push(Ranked { index, score });
            }
        }
        found
    }

    /// Character positions in `name` that the query's name terms match, for highlighting;
    /// sorted, unique. Negated terms and fields highlight nothing.
    pub fn indices(&mut self, query: &str, name: &str) -> Vec<u32> {
        self.indices_of(&Query::parse(query), name)
    }

    /// As `indices`, for a query parsed once for many names (a screenful of rows).
    pub fn indices_of(&mut self, parsed: &Query, name: &str) -> Vec<u32> {
        let mut indices = Vec::new();
        let hay = Utf32Str::new(name, &mut self.buf);
        for term in parsed.groups.iter().flatten() {
            if term.target == Target::Name && !term.atom.negative && term.compare.is_none() {
                // An alternative that does not match highlights nothing.
                let mut found = Vec::new();
                if term_score(&mut self.matcher, term, hay, Some(&mut found)).is_some() {
                    indices.extend(found);
                }
            }
        }
        indices.sort_unstable();
        indices.dedup();
        indices
    }
}

/// Orders a ranking of `text`'s entries by a `sort:` term's field (`index` reads an item's
/// entry); the columns are built if they were not.
fn order_text<T: Copy>(
    items: &mut [T],
    by: &query::SortBy,
    text: &SearchText,
    index: impl Fn(T) -> u32,
) {
    match &by.target {
        Target::Name => compare::order_by(items, by.descending, true, |t| {
            Some(text.name(index(t) as usize))
        }),
        Target::Field(key) => {
            let fields = text.fields();
            let Some(column) = fields.column(key) else {
                return;
            };
            compare::order_by(items, by.descending, false, |t| {
                Some(fields.value(column, index(t) as usize))
            });
        }
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

/// Candidates fewer than this are ranked on one thread (`rank_split`), in a few hundred µs at
/// most: `Ranker::rank_if_cheap` ranks them.
const CHEAP: usize = 2 * PER_THREAD;

/// How far ahead of the entry being matched its name is read (see `FuzzyFilter::matches`).
const AHEAD: usize = 32;

/// Ranks the dashboard's filter. Its answers are exactly `FuzzyFilter::rank_text`'s.
pub struct Ranker {
    /// The catalogue `chain` was ranked over: a new catalogue starts a new chain. Weak, so a
    /// chain never keeps an old catalogue alive, and the allocation it points at is never
    /// reused by another catalogue while it is held.
    text: Weak<SearchText>,
    /// Queries ranked lately; each matches no more than the one before it.
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

/// A query's ranking, kept for the queries that narrow it or come back to it.
struct Kept {
    query: String,
    /// Its terms, to decide whether a new query narrows it ([`Query::narrows`]: typing more
    /// of a word or adding a word, `!x` or an operator narrows; adding an alternative with
    /// `|`, or more of a negated word, does not).
    parsed: Query,
    /// The answer: indices best first.
    ranked: Arc<[u32]>,
    /// The same indices in input order. A narrower query is ranked over them in this order:
    /// the names are then read in the order they lie in memory, which measured up to 30 %
    /// faster than reading them in ranking order (over 100,000 names).
    in_order: Vec<u32>,
}

/// The entries one matcher goes through, in input order: a span of them, or those listed.
#[derive(Clone, Copy)]
enum Through<'a> {
    Span { first: usize, count: usize },
    Listed(&'a [u32]),
}

impl Through<'_> {
    fn len(self) -> usize {
        match self {
            Through::Span { count, .. } => count,
            Through::Listed(m) => m.len(),
        }
    }

    /// The `k`th entry's index.
    #[inline]
    fn at(self, k: usize) -> u32 {
        match self {
            Through::Span { first, .. } => (first + k) as u32,
            Through::Listed(m) => m[k],
        }
    }
}

/// What is left to rank, in input order: every entry, or the matches of a query the new one
/// narrows.
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
        Self::with_threads(std::thread::available_parallelism().map_or(1, NonZeroUsize::get))
    }

    /// A ranker that splits a long list over at most `threads` threads.
    fn with_threads(threads: usize) -> Self {
        Ranker {
            text: Weak::new(),
            chain: Vec::new(),
            scratch: (0..threads.max(1)).map(|_| FuzzyFilter::new()).collect(),
        }
    }

    /// Indices into `text` of the entries matching `query`, best first, ties in input order.
    pub fn rank(&mut self, query: &str, text: &Arc<SearchText>) -> Arc<[u32]> {
        if !Weak::ptr_eq(&self.text, &Arc::downgrade(text)) {
            self.text = Arc::downgrade(text);
            self.chain.clear();
        }
        if let Some(k) = self.chain.iter().rev().find(|k| k.query == query) {
            return k.ranked.clone();
        }
        self.rank_parsed(query, Query::parse(query), text)
    }

    /// `rank` of a query not ranked lately, parsed once by the caller.
    fn rank_parsed(&mut self, query: &str, parsed: Query, text: &Arc<SearchText>) -> Arc<[u32]> {
        while self
            .chain
            .last()
            .is_some_and(|k| !parsed.narrows(&k.parsed))
        {
            self.chain.pop();
        }
        let candidates = match self.chain.last() {
            Some(k) => Candidates::Within(&k.in_order),
            None => Candidates::All(text.len()),
        };
        let groups = resolve(&parsed, text);
        let (in_order, mut ranked) = rank_split(&mut self.scratch, &groups, text, candidates);
        if let Some(by) = &parsed.sort {
            // The order only: narrowing reads `in_order`, whatever the sort.
            order_text(&mut ranked, by, text, |i| i);
        }
        let ranked: Arc<[u32]> = ranked.into();
        if self.chain.len() == CHAIN {
            self.chain.remove(0);
        }
        self.chain.push(Kept {
            query: query.to_string(),
            parsed,
            ranked: ranked.clone(),
            in_order,
        });
        ranked
    }

    /// `rank`'s answer when it costs little: the query was ranked lately, or it narrows a
    /// kept ranking of fewer matches than two threads would share (at most a few hundred µs,
    /// no thread started), without building the metadata columns. `None` (nothing done) when
    /// it would cost more.
    pub fn rank_if_cheap(&mut self, query: &str, text: &Arc<SearchText>) -> Option<Arc<[u32]>> {
        if !Weak::ptr_eq(&self.text, &Arc::downgrade(text)) {
            return None;
        }
        if let Some(k) = self.chain.iter().rev().find(|k| k.query == query) {
            return Some(k.ranked.clone());
        }
        let parsed = Query::parse(query);
        if reads_fields(&parsed) && text.built_fields().is_none() {
            return None;
        }
        // The ranking `rank` would narrow: the latest kept one the query narrows.
        let narrowed = self
            .chain
            .iter()
            .rev()
            .find(|k| parsed.narrows(&k.parsed))?;
        // The text is the kept rankings' (checked above) and the query none of theirs.
        (narrowed.in_order.len() < CHEAP).then(|| self.rank_parsed(query, parsed, text))
    }
}

/// Whether ranking `query` reads a metadata column (a field term, or a sort by a field).
fn reads_fields(query: &Query) -> bool {
    let field = |t: &Target| matches!(t, Target::Field(_));
    query.groups.iter().flatten().any(|t| field(&t.target))
        || query.sort.as_ref().is_some_and(|s| field(&s.target))
}

/// One thread's part of a ranking: its matches' indices in input order, and the matches in
/// ranking order.
struct Part {
    in_order: Vec<u32>,
    ranked: Vec<Ranked>,
}

/// Matches the candidates in one contiguous part per thread, each thread putting its matches
/// into ranking order (`by_score`), then merges the parts (`merge`). Returns the matches in
/// input order and the ranking (indices, best first).
///
/// Each thread orders its own part: ordered after the join, by the thread that joins, the
/// matches of a million names' first key (315,000) took 3.5 ms more, most of it reading what
/// the other core wrote (`million_keys`, 2026-11-30).
fn rank_split(
    scratch: &mut [FuzzyFilter],
    groups: &Resolved<'_>,
    text: &SearchText,
    candidates: Candidates<'_>,
) -> (Vec<u32>, Vec<u32>) {
    let len = candidates.len();
    let parts = (len / PER_THREAD).clamp(1, scratch.len());
    let size = len.div_ceil(parts);
    let ranges = (0..parts).map(|p| (p * size).min(len)..((p + 1) * size).min(len));
    let part = |filter: &mut FuzzyFilter, range: Range<usize>| {
        let through = match candidates {
            Candidates::All(_) => Through::Span {
                first: range.start,
                count: range.len(),
            },
            Candidates::Within(m) => Through::Listed(&m[range]),
        };
        let found = filter.matches(groups, text, through);
        Part {
            ranked: by_score(&found),
            in_order: found.into_iter().map(|r| r.index).collect(),
        }
    };
    // On rayon's threads, which wait between rankings: a thread started for each was put on
    // its starter's core, the other idle, for the first 8 ms of a million names' first key
    // (`perf record -a`, 2026-11-30). In the order of the parts, so that their input orders
    // simply concatenate.
    let parts: Vec<Part> = match scratch {
        // One part is ranked where it is asked (the cheap rankings, on the UI loop), never
        // waiting for another thread to wake.
        [one, ..] if parts == 1 => vec![part(one, 0..len)],
        _ => scratch[..parts]
            .par_iter_mut()
            .zip(ranges.collect::<Vec<_>>())
            .map(|(filter, range)| part(filter, range))
            .collect(),
    };
    let ranked = merge(&parts.iter().map(|p| &p.ranked[..]).collect::<Vec<_>>());
    let mut parts = parts.into_iter().map(|p| p.in_order);
    let mut in_order = parts.next().unwrap_or_default();
    for rest in parts {
        in_order.extend_from_slice(&rest);
    }
    (in_order, ranked)
}

/// Scores spread wider than this many times the matches are ranked by a comparison sort; a
/// query's scores usually span a few hundred values.
const SPREAD: usize = 4;

/// `found` (in input order, as matched) in ranking order: best score first, ties in input
/// order. A stable counting sort by score, linear in the matches: typing a query over 300,000
/// names, it takes about 6 M instructions where the comparison sort and merge it replaced took
/// about 44 M (callgrind). Its order is the one `sort` gives (`by_score_is_the_sort` holds it
/// to that).
fn by_score(found: &[Ranked]) -> Vec<Ranked> {
    let Some(first) = found.first() else {
        return Vec::new();
    };
    // One pass for both bounds, with plain comparisons: at the crate's opt-level ("s"),
    // `Iterator::min` called a closure for each match, and even `Ord::min` was a call.
    let (mut low, mut high) = (first.score, first.score);
    for r in found {
        if r.score < low {
            low = r.score;
        }
        if r.score > high {
            high = r.score;
        }
    }
    let spread = (high - low) as usize + 1;
    if spread > SPREAD * found.len() {
        let mut sorted = found.to_vec();
        sort(&mut sorted);
        return sorted;
    }
    // `starts[b]`: where the matches scoring `high - b` go, the best first.
    let mut starts = vec![0u32; spread];
    for r in found {
        starts[(high - r.score) as usize] += 1;
    }
    let mut at = 0;
    for start in &mut starts {
        let count = *start;
        *start = at;
        at += count;
    }
    let mut ranked = vec![Ranked { index: 0, score: 0 }; found.len()];
    for r in found {
        let bucket = &mut starts[(high - r.score) as usize];
        ranked[*bucket as usize] = *r;
        *bucket += 1;
    }
    ranked
}

/// The indices of `parts`' matches as one ranking: best score first, ties in input order.
/// Each part is in ranking order, and every entry of a part comes (in input order) before
/// those of the parts after it: so at each score, from the best, the parts' runs of it are
/// taken in turn, each a copy in order (a query's scores take a few hundred values).
fn merge(parts: &[&[Ranked]]) -> Vec<u32> {
    let mut ranked = Vec::with_capacity(parts.iter().map(|p| p.len()).sum());
    let mut at = vec![0usize; parts.len()];
    loop {
        let best = parts
            .iter()
            .zip(&at)
            .filter_map(|(part, &k)| part.get(k))
            .map(|r| r.score)
            .max();
        let Some(best) = best else {
            return ranked;
        };
        for (part, k) in parts.iter().zip(&mut at) {
            // A plain loop, as in `by_score`.
            while *k < part.len() && part[*k].score == best {
                ranked.push(part[*k].index);
                *k += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests;
