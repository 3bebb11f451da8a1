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

use super::types::LoraEntry;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

#[derive(Debug, Default, PartialEq)]
pub struct SearchText {
    entries: Arc<[LoraEntry]>,
    fields: OnceLock<Fields>,
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
        }
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
        self.entries.get(i).map_or("", |e| e.model())
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
