//! The catalogue's text as the local filter reads it: every model name, and every metadata field
//! as one column of text per key, so that matching a field over 100,000 entries reads borrowed
//! text and never allocates per entry and keystroke.
//!
//! It shares the catalogue's entries (no name is copied). The columns are built once per
//! catalogue, the first time a query has a field term: on the ranking worker, never on the UI
//! loop (about 0.3 s for 100,000 entries with a dozen fields each, release build).
//!
//! A column keeps its values end to end in one string, with one offset per entry (4 bytes): a
//! field an entry lacks is its empty text. Keys are kept lowercased, so `Author` and `author`
//! are one column (the first of the two in an entry wins).
//!
//! Every indexed catalogue ([`SearchText::indexed`], made off the UI loop with the listing) keeps
//! each name's letters and digits as a bit set, 8 bytes an entry read in order: a query's first
//! letter rules out most names without reading them. Over 100,000 entries the first keys of a
//! query ranked 2.5 to 6 times faster with it (`cargo bench --bench million_keys`, 2026-11-29),
//! for 0.8 MB. A catalogue of [`NAMES_TOGETHER_FROM`] entries or more also keeps its names end to
//! end in one block: a keystroke that narrows ranks a few hundred thousand names scattered among
//! a million entries' texts, and read there most of its time went in waiting for memory (three
//! to four times the CPU of the same names read in one block). A smaller catalogue's texts stay
//! in the cache.

use super::types::LoraEntry;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

#[derive(Debug, Default, PartialEq)]
pub struct SearchText {
    entries: Arc<[LoraEntry]>,
    fields: OnceLock<Fields>,
    /// The names in one block, when the catalogue is big enough for it to pay.
    names: Option<Names>,
    /// Each name's [`char_bit`]s, every bit for a name with a byte not ASCII, when indexed: a
    /// query's first letter rules out most names here, 8 bytes each read in order, without
    /// matching them.
    held: Option<Box<[u64]>>,
}

/// From how many entries a catalogue keeps its names in one block (about 2.7 MB at 100,000
/// names, 27 MB at a million: the text and 4 bytes of end each). At 100,000 the names lie among
/// 30 MB of entries' texts, and a query's first keys wait on memory: read from the block they
/// ranked 1.5 to 6 times faster (`w` 5.6 → 0.9 ms; `million_keys`), the keys' p95 on screen 4.4–4.5
/// → 2.2–2.4 ms, the 100k + 10k tasks peak RSS 73 → 74–76 MiB (`light.py --only rss,keys`, by
/// turns, 2026-11-29). Below, a ranking takes a millisecond or two without it.
pub const NAMES_TOGETHER_FROM: usize = 100_000;

/// Every entry's name, in the entries' order, end to end: what a ranking reads, without the
/// rest of each entry's text around it.
#[derive(Debug, Default, PartialEq)]
struct Names {
    text: Box<str>,
    /// Where each name ends in `text`; it starts where the previous one ended.
    ends: Box<[u32]>,
}

/// The bit of an ASCII letter (either case) or digit in a name's [`SearchText::held`] set; 0
/// for any other character.
pub fn char_bit(c: char) -> u64 {
    match c {
        'a'..='z' => 1 << (u32::from(c) - u32::from('a')),
        'A'..='Z' => 1 << (u32::from(c) - u32::from('A')),
        '0'..='9' => 1 << (26 + u32::from(c) - u32::from('0')),
        _ => 0,
    }
}

/// The `char_bit`s of `name`; every bit when it has a byte that is not ASCII (the matcher may
/// read `é` as `e`: nothing may be ruled out by it).
fn held(name: &str) -> u64 {
    if name.is_ascii() {
        name.bytes()
            .fold(0, |held, b| held | char_bit(char::from(b)))
    } else {
        u64::MAX
    }
}

impl Names {
    /// The names of `entries`; `None` when they would not fit 4 GiB.
    fn of(entries: &[LoraEntry]) -> Option<Self> {
        // Sized first from the lengths the entries keep, so the block is allocated once, at
        // its size (no doubling, no copy at the end).
        let total: usize = entries.iter().map(LoraEntry::model_len).sum();
        u32::try_from(total).ok()?;
        let mut text = String::with_capacity(total);
        let ends = entries
            .iter()
            .map(|e| {
                text.push_str(e.model());
                text.len() as u32
            })
            .collect();
        Some(Names {
            text: text.into_boxed_str(),
            ends,
        })
    }

    fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)? as usize;
        let start = match i.checked_sub(1) {
            Some(before) => self.ends[before] as usize,
            None => 0,
        };
        self.text.get(start..end)
    }
}

/// The metadata as columns of text.
#[derive(Debug, Default, PartialEq)]
pub struct Fields {
    /// Lowercased metadata keys, in the order first seen; `columns[i]` holds `keys[i]`.
    keys: Box<[Box<str>]>,
    columns: Box<[Column]>,
}

#[derive(Debug, Default, PartialEq)]
struct Column {
    text: String,
    /// Where each entry's value ends in `text`; it starts where the previous one ended.
    ends: Vec<u32>,
}

impl Column {
    fn end(&mut self) {
        self.ends
            .push(u32::try_from(self.text.len()).unwrap_or(u32::MAX));
    }
}

/// A metadata value as one line of text: strings as they are, the items of a list joined with
/// `, ` (as the browser's detail shows them), nothing for `null`, other values as JSON.
fn push_text(out: &mut String, value: &Value) {
    match value {
        Value::String(s) => out.push_str(s),
        Value::Null => {}
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                match item {
                    Value::String(s) => out.push_str(s),
                    other => out.push_str(&other.to_string()),
                }
            }
        }
        other => out.push_str(&other.to_string()),
    }
}

impl Fields {
    fn new(entries: &[LoraEntry]) -> Self {
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut keys: Vec<Box<str>> = Vec::new();
        let mut columns: Vec<Column> = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            for (key, value) in &entry.metadata() {
                let key = key.to_lowercase();
                let at = *index.entry(key.clone()).or_insert_with(|| {
                    keys.push(key.into_boxed_str());
                    // Entries before this one lack the field: empty values.
                    columns.push(Column {
                        text: String::new(),
                        ends: vec![0; i],
                    });
                    columns.len() - 1
                });
                let column = &mut columns[at];
                if column.ends.len() > i {
                    continue; // the same key again, in another case
                }
                push_text(&mut column.text, value);
                column.end();
            }
            for column in &mut columns {
                if column.ends.len() == i {
                    column.end();
                }
            }
        }
        Fields {
            keys: keys.into(),
            columns: columns.into(),
        }
    }

    /// The lowercased metadata keys some entry has.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.keys.iter().map(|k| &**k)
    }

    /// The column of a metadata key (lowercase), if some entry has it.
    pub fn column(&self, key: &str) -> Option<usize> {
        self.keys.iter().position(|k| **k == *key)
    }

    /// Entry `entry`'s value in column `column`; empty when the entry lacks the field.
    pub fn value(&self, column: usize, entry: usize) -> &str {
        let Some(c) = self.columns.get(column) else {
            return "";
        };
        let end = c.ends.get(entry).map_or(0, |&e| e as usize);
        let start = match entry.checked_sub(1) {
            Some(before) => c.ends.get(before).map_or(0, |&e| e as usize),
            None => 0,
        };
        c.text.get(start..end).unwrap_or("")
    }
}

impl SearchText {
    /// The text of these entries, in their order; the columns come when first asked for.
    pub fn new(entries: Arc<[LoraEntry]>) -> Self {
        SearchText {
            entries,
            fields: OnceLock::new(),
            names: None,
            held: None,
        }
    }

    /// As `new`, with each name's [`char_bit`]s, and the names in one block when there are
    /// [`NAMES_TOGETHER_FROM`] entries or more: a pass over every entry (tens of ms at a
    /// million), so made off the UI loop.
    pub fn indexed(entries: Arc<[LoraEntry]>) -> Self {
        Self::names_together_from(entries, NAMES_TOGETHER_FROM)
    }

    /// As `indexed`, the names in one block from `from` entries.
    pub(crate) fn names_together_from(entries: Arc<[LoraEntry]>, from: usize) -> Self {
        let names = if entries.len() >= from {
            Names::of(&entries)
        } else {
            None
        };
        let held = entries.iter().map(|e| held(e.model())).collect();
        SearchText {
            names,
            held: Some(held),
            ..Self::new(entries)
        }
    }

    /// The [`char_bit`]s entry `i`'s name may hold: exactly its own where the text is indexed
    /// (every bit for one not all ASCII), else every bit (nothing known).
    pub fn held(&self, i: usize) -> u64 {
        self.held
            .as_ref()
            .and_then(|h| h.get(i).copied())
            .unwrap_or(u64::MAX)
    }

    /// Whether each name's [`char_bit`]s are kept (see [`SearchText::held`]).
    pub fn knows_held(&self) -> bool {
        self.held.is_some()
    }

    /// Whether the names are kept in one block (read in order, they need no read-ahead).
    pub fn names_together(&self) -> bool {
        self.names.is_some()
    }

    /// Names only, no metadata: every field is empty.
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let none = serde_json::Map::new();
        Self::new(
            names
                .into_iter()
                .map(|n| LoraEntry::new(n, &none))
                .collect(),
        )
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entry `i`'s name; empty past the end.
    pub fn name(&self, i: usize) -> &str {
        match &self.names {
            Some(names) => names.get(i).unwrap_or(""),
            None => self.entries.get(i).map_or("", |e| e.model()),
        }
    }

    /// The metadata columns, built on the first call (which may take a while: call it off the
    /// UI loop).
    pub fn fields(&self) -> &Fields {
        self.fields.get_or_init(|| Fields::new(&self.entries))
    }

    /// The metadata columns if they were built already: what the UI loop may look at.
    pub fn built_fields(&self) -> Option<&Fields> {
        self.fields.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(name: &str, meta: &Value) -> LoraEntry {
        LoraEntry::new(name, meta.as_object().expect("an object"))
    }

    /// Names kept in one block read as the entries' own: empty and multi-byte names, the first
    /// and the last, and nothing past the end.
    #[test]
    fn names_in_one_block_are_the_entries_names() {
        let none = json!({});
        let entries: Arc<[LoraEntry]> = ["", "ö-名", "a", "", "watercolor_v2_0", "z"]
            .iter()
            .map(|n| entry(n, &none))
            .collect();
        let together = SearchText::names_together_from(entries.clone(), 0);
        assert!(together.names_together());
        let plain = SearchText::new(entries.clone());
        assert!(!plain.names_together());
        for i in 0..=entries.len() {
            let want = entries.get(i).map_or("", LoraEntry::model);
            assert_eq!(together.name(i), want, "entry {i}");
            assert_eq!(plain.name(i), want, "entry {i}");
        }
        let bits = |s: &str| s.chars().fold(0, |b, c| b | char_bit(c));
        assert_eq!(
            together.held(4),
            bits("watercolorv20"),
            "its letters and digits"
        );
        assert_eq!(together.held(5), bits("Z"), "either case");
        assert_eq!(together.held(1), u64::MAX, "not ASCII: anything");
        assert_eq!(together.held(0), 0);
        assert_eq!(plain.held(4), u64::MAX, "nothing known");
        let below = SearchText::names_together_from(entries.clone(), entries.len() + 1);
        assert!(!below.names_together(), "not kept below the bound");
        assert_eq!(
            below.held(4),
            bits("watercolorv20"),
            "the letters are known below it"
        );
        assert_eq!(below.held(1), u64::MAX);
    }

    /// The block is kept from the 100,000 entries whose keystrokes have a target of their own;
    /// a smaller catalogue's names are not copied, their letters kept all the same.
    #[test]
    fn a_thousand_names_are_not_copied() {
        const { assert!(NAMES_TOGETHER_FROM == 100_000) };
        let names: Vec<String> = (0..1000).map(|i| format!("m{i}")).collect();
        let text = SearchText::indexed(
            names
                .iter()
                .map(|n| LoraEntry::new(n.as_str(), &serde_json::Map::new()))
                .collect(),
        );
        assert!(!text.names_together());
        assert!(
            text.knows_held(),
            "each name's letters are kept whatever the size"
        );
        assert_eq!(text.held(7), char_bit('m') | char_bit('7'));
    }

    #[test]
    fn columns_hold_each_entrys_value_and_empty_where_it_has_none() {
        let all = SearchText::new(Arc::new([
            entry("a", &json!({"author": "maker1", "rating": 4.5})),
            entry(
                "b",
                &json!({"License": "MIT", "trigger_words": ["x", "y z", 3]}),
            ),
            entry(
                "c",
                &json!({"author": "ö", "Author": "other", "base_model": null}),
            ),
        ]));
        assert_eq!(all.len(), 3);
        assert_eq!(all.name(1), "b");
        assert_eq!(all.name(9), "");
        assert!(all.built_fields().is_none(), "built when first asked for");
        let text = all.fields();
        assert!(all.built_fields().is_some());
        let author = text.column("author").expect("author");
        let values: Vec<_> = (0..3).map(|i| text.value(author, i)).collect();
        assert_eq!(values, ["maker1", "", "ö"]);
        let license = text.column("license").expect("keys are lowercased");
        assert_eq!(text.value(license, 0), "");
        assert_eq!(text.value(license, 1), "MIT");
        let words = text.column("trigger_words").expect("lists");
        assert_eq!(text.value(words, 1), "x, y z, 3");
        assert_eq!(
            text.value(text.column("rating").expect("numbers"), 0),
            "4.5"
        );
        assert_eq!(text.value(text.column("base_model").expect("null"), 2), "");
        assert_eq!(text.column("nope"), None);
        assert_eq!(text.value(99, 0), "");
        assert_eq!(
            text.keys().collect::<Vec<_>>(),
            ["author", "rating", "license", "trigger_words", "base_model"]
        );
    }
}
