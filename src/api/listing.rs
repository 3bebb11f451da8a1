//! A catalogue made ready to be shown, off the UI loop: for a million entries, sharing the
//! entries (a copy of their 64 MB array) and listing their categories take tenths of a
//! second, which the UI thread would spend not answering keys.

use super::types::{Catalogue, LoraEntry};
use std::collections::HashSet;
use std::sync::Arc;

/// How many distinct categories a listing names at most (the category field offers them).
pub const MAX_CATEGORIES: usize = 256;

/// A catalogue as the browser holds it: the UI only swaps it in.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Listing {
    pub entries: Arc<[LoraEntry]>,
    /// Every entry's index, in order: the list shown while no filter narrows it.
    pub all: Arc<[u32]>,
    /// The first [`MAX_CATEGORIES`] distinct categories, in the order first listed.
    pub categories: Vec<String>,
    /// How many entries had to be skipped while decoding.
    pub skipped: usize,
}

impl From<Catalogue> for Listing {
    fn from(c: Catalogue) -> Self {
        let entries: Arc<[LoraEntry]> = c.entries.into();
        let all = (0..u32::try_from(entries.len()).unwrap_or(u32::MAX)).collect();
        let mut seen = HashSet::new();
        let mut categories = Vec::new();
        let mut last = None;
        for cate in entries.iter().filter_map(LoraEntry::category) {
            // Neighbours mostly share a category: most entries cost one comparison.
            if last == Some(cate) {
                continue;
            }
            last = Some(cate);
            if seen.insert(cate) {
                categories.push(cate.to_string());
                if categories.len() == MAX_CATEGORIES {
                    break;
                }
            }
        }
        Listing {
            entries,
            all,
            categories,
            skipped: c.skipped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(model: &str, cate: Option<&str>) -> LoraEntry {
        let meta = match cate {
            Some(c) => json!({"category": c}),
            None => json!({}),
        };
        LoraEntry::new(model, meta.as_object().expect("object"))
    }

    #[test]
    fn keeps_entries_indexes_and_first_distinct_categories() {
        let c = Catalogue {
            entries: vec![
                entry("a", Some("style")),
                entry("b", Some("style")),
                entry("c", None),
                entry("d", Some("anime")),
                entry("e", Some("style")),
            ],
            skipped: 2,
        };
        let l = Listing::from(c.clone());
        assert_eq!(&*l.entries, &c.entries[..]);
        assert_eq!(&*l.all, &[0, 1, 2, 3, 4]);
        assert_eq!(l.categories, ["style", "anime"]);
        assert_eq!(l.skipped, 2);
    }

    #[test]
    fn names_at_most_the_bound_of_categories() {
        let entries = (0..MAX_CATEGORIES + 10)
            .map(|i| entry(&format!("m{i}"), Some(&format!("c{i}"))))
            .collect();
        let l = Listing::from(Catalogue {
            entries,
            skipped: 0,
        });
        assert_eq!(l.categories.len(), MAX_CATEGORIES);
        assert_eq!(l.categories.last().map(String::as_str), Some("c255"));
    }
}
