//! Local fuzzy filtering of catalogue names (nucleo-matcher), best match first.

use nucleo_matcher::pattern::{AtomKind, CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

/// One matching entry: its index in the input and its score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ranked {
    pub index: u32,
    pub score: u32,
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
        let pattern = pattern(query);
        let mut out: Vec<Ranked> = names
            .enumerate()
            .filter_map(|(i, name)| {
                let hay = Utf32Str::new(name, &mut self.buf);
                pattern.score(hay, &mut self.matcher).map(|score| Ranked {
                    index: i as u32,
                    score,
                })
            })
            .collect();
        out.sort_by(|a, b| b.score.cmp(&a.score).then(a.index.cmp(&b.index)));
        out
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
}
