//! A catalogue made ready to be shown, off the UI loop: for a million entries, sharing the
//! entries (a copy of their 64 MB array) and listing their categories take tenths of a
//! second, which the UI thread would spend not answering keys.

use super::search::SearchText;
use super::types::{Catalogue, LoraEntry};
use std::collections::HashSet;
use std::sync::Arc;

/// How many distinct categories a listing names at most (the category field offers them).
pub const MAX_CATEGORIES: usize = 256;

/// A catalogue as the browser holds it: the UI only swaps it in.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Listing {
    pub entries: Arc<[LoraEntry]>,
    /// The entries' text as the filter reads it, their names in one block when that pays
    /// ([`SearchText::indexed`]: a pass over a million entries, made here, not on the UI loop).
    pub text: Arc<SearchText>,
    /// Every entry's index, in order: the list shown while no filter narrows it.
    pub all: Arc<[u32]>,
    /// The first [`MAX_CATEGORIES`] distinct categories, in the order first listed.
    pub categories: Vec<String>,
    /// How many entries had to be skipped while decoding.
    pub skipped: usize,
}

/// How many entries are moved between two shrinks of the decoded array (1 MiB of entries).
const MOVED_BETWEEN_SHRINKS: usize = 16 * 1024;

/// The decoded entries moved into one shared block, the array they leave shrunk as they go: a
/// plain copy would hold both arrays at once (128 MB at a million entries, at the peak of a
/// reload, beside the list shown). A range mapped to one `pop` each is an iterator of known
/// length, so the shared block is allocated once, at its size.
fn shared(mut entries: Vec<LoraEntry>) -> Arc<[LoraEntry]> {
    entries.reverse();
    (0..entries.len())
        .map(|moved| {
            if moved % MOVED_BETWEEN_SHRINKS == 0 {
                entries.shrink_to_fit();
            }
            entries.pop().expect("as many entries as the range counts")
        })
        .collect()
}

impl From<Catalogue> for Listing {
    fn from(c: Catalogue) -> Self {
        let entries = shared(c.entries);
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
            text: Arc::new(SearchText::indexed(entries.clone())),
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
    fn a_long_list_keeps_its_order_across_shrinks() {
        let n = MOVED_BETWEEN_SHRINKS * 2 + 3;
        let entries: Vec<LoraEntry> = (0..n).map(|i| entry(&format!("m{i}"), None)).collect();
        let l = Listing::from(Catalogue {
            entries: entries.clone(),
            skipped: 0,
        });
        assert_eq!(&*l.entries, &entries[..]);
        assert_eq!(l.all.len(), n);
    }

    /// The listing carries the filter's text of its entries.
    #[test]
    fn the_text_is_of_the_listings_entries() {
        let l = Listing::from(Catalogue {
            entries: vec![entry("a", None), entry("b", Some("style"))],
            skipped: 0,
        });
        assert_eq!(l.text.len(), 2);
        assert_eq!((l.text.name(0), l.text.name(1)), ("a", "b"));
        assert!(!l.text.names_together(), "two names are not worth a block");
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
