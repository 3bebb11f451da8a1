//! One catalogue entry, kept compact: a million of them are the size of their values, not of
//! their JSON (see [`LoraEntry`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::sync::Arc;

/// Base-model type of a `LoRA`, the spec's `type` query parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoraType {
    Sd,
    Sdxl,
}

impl LoraType {
    pub fn as_str(self) -> &'static str {
        match self {
            LoraType::Sd => "sd",
            LoraType::Sdxl => "sdxl",
        }
    }
}

/// One `LoRA` catalogue entry (spec 2.1). The metadata keeps every field the service sent,
/// sanitised, in a compact form: its values as one compact JSON array, and its keys, in order,
/// with the type and category, in a [`Shape`] shared by every entry alike in these (a
/// catalogue's entries mostly share a few). The name, the values and, where the array's copy
/// of it is escaped, the source are one block of text, shared by the clones: an entry decoded
/// again unchanged in a reload is the earlier one (see [`Interner::sharing`]). So an entry is
/// 40 bytes and one block of its name and values: a catalogue of 1,000,000 entries takes a
/// little more than the size of its values, not of its JSON, nor several times that as a tree
/// of values, and a reload of it holds little more than one copy. The rest is parsed when one
/// entry's detail is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoraEntry {
    /// The name, the values' JSON array, then the source's text where the array's copy of it
    /// is escaped.
    text: Arc<str>,
    /// Where the name ends in `text` (the array starts).
    model_len: u32,
    /// Where the array ends in `text`.
    array_end: u32,
    /// `metadata.source` in `text`: where it starts (0: there is none) and its length.
    source: (u32, u32),
    shape: Arc<Shape>,
}

/// What entries share: the metadata's keys in order, its type and category.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Shape {
    keys: Box<[Box<str>]>,
    lora_type: Option<Box<str>>,
    category: Option<Box<str>>,
}

/// What one catalogue's entries share: their shapes, each kept once (bounded: past
/// `Interner::MAX` distinct ones, each new one is kept apart), and the entries of an earlier
/// list decoded again unchanged.
#[derive(Debug, Default)]
pub struct Interner {
    shapes: std::collections::HashMap<u64, Vec<Arc<Shape>>>,
    count: usize,
    earlier: Earlier,
    /// The text of the entry being made, kept for the next: an entry found in the earlier
    /// list allocates nothing.
    scratch: String,
}

/// An earlier list whose unchanged entries a decode shares.
#[derive(Debug, Default)]
struct Earlier {
    entries: Arc<[LoraEntry]>,
    /// Where the next entry is looked for first: a catalogue listed again, or narrowed to a
    /// type, mostly comes in the earlier order.
    next: usize,
    /// The entries' indexes sorted by name, made at the first entry not found near `next`.
    by_name: Option<Vec<u32>>,
}

impl Earlier {
    /// How far past `next` an entry is looked for before the index by name is made: a list
    /// narrowed to one type skips the other's entries, a few hundred at a time at most in a
    /// usual catalogue, and a scan that moves on is paid once per entry passed.
    const AHEAD: usize = 1024;

    /// The earlier entry identical to one of `text`, `model_len` and `shape`, looked for by
    /// name: the first of its name found near the last one found, else any of its name.
    fn find(&mut self, text: &str, model_len: usize, shape: &Shape) -> Option<&LoraEntry> {
        let entries = &self.entries;
        let name = &text[..model_len];
        let same = |e: &LoraEntry| &*e.text == text && *e.shape == *shape;
        // Near first; past a few, the index if there is one, else further ahead, then the
        // index made.
        let ahead = |n: usize| {
            (self.next..entries.len().min(self.next + n)).find(|&i| entries[i].model() == name)
        };
        let near = ahead(4).or_else(|| {
            ahead(if self.by_name.is_some() {
                0
            } else {
                Self::AHEAD
            })
        });
        let at = if let Some(i) = near {
            i
        } else {
            let by_name = self.by_name.get_or_insert_with(|| {
                let mut v: Vec<u32> =
                    (0..u32::try_from(entries.len()).unwrap_or(u32::MAX)).collect();
                v.sort_unstable_by(|&a, &b| {
                    entries[a as usize].model().cmp(entries[b as usize].model())
                });
                v
            });
            let first = by_name.partition_point(|&i| entries[i as usize].model() < name);
            // A name listed twice: any of its entries may be the same.
            by_name[first..]
                .iter()
                .map(|&i| i as usize)
                .take_while(|&i| entries[i].model() == name)
                .find(|&i| same(&entries[i]))?
        };
        self.next = at + 1;
        let found = &self.entries[at];
        same(found).then_some(found)
    }
}

impl Interner {
    const MAX: usize = 4096;

    /// An interner whose entries share those of `earlier` that are decoded again unchanged
    /// (the same name, values, keys, type and category): a reload of an unchanged catalogue
    /// allocates only the new list's array, not its text again.
    pub fn sharing(earlier: Arc<[LoraEntry]>) -> Self {
        Interner {
            earlier: Earlier {
                entries: earlier,
                ..Earlier::default()
            },
            ..Interner::default()
        }
    }

    /// The shape of `metadata`: found without allocating when it is already kept.
    fn shape(&mut self, metadata: &Map<String, Value>) -> Arc<Shape> {
        use std::hash::{Hash, Hasher};
        let field = |k: &str| metadata.get(k).and_then(Value::as_str);
        let (lora_type, category) = (field("type"), field("category"));
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for k in metadata.keys() {
            k.hash(&mut h);
        }
        (lora_type, category).hash(&mut h);
        let hash = h.finish();
        let same = |s: &Shape| {
            s.lora_type.as_deref() == lora_type
                && s.category.as_deref() == category
                && s.keys.len() == metadata.len()
                && s.keys.iter().zip(metadata.keys()).all(|(a, b)| **a == **b)
        };
        if let Some(found) = self
            .shapes
            .get(&hash)
            .and_then(|v| v.iter().find(|s| same(s)))
        {
            return found.clone();
        }
        let shape = Arc::new(Shape {
            keys: metadata.keys().map(|k| Box::from(k.as_str())).collect(),
            lora_type: lora_type.map(Box::from),
            category: category.map(Box::from),
        });
        if self.count < Self::MAX {
            self.count += 1;
            self.shapes.entry(hash).or_default().push(shape.clone());
        }
        shape
    }
}

impl LoraEntry {
    /// An entry from sanitised parts.
    pub fn new(model: impl Into<String>, metadata: &Map<String, Value>) -> Self {
        Self::interned(&model.into(), metadata, &mut Interner::default())
    }

    /// An entry from sanitised parts, sharing what `interner` already holds.
    pub fn interned(model: &str, metadata: &Map<String, Value>, interner: &mut Interner) -> Self {
        let mut text = std::mem::take(&mut interner.scratch);
        text.clear();
        text.push_str(model);
        text.push('[');
        let mut source = None;
        for (i, (key, value)) in metadata.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            let at = text.len();
            // A JSON value always serialises.
            let _ = serde_json::to_writer(Utf8Sink(&mut text), value);
            if key == "source"
                && let Value::String(s) = value
            {
                // Unescaped, the text between the quotes is the source itself.
                source = Some((s, (text.len() - at == s.len() + 2).then_some(at + 1)));
            }
        }
        text.push(']');
        let array_end = text.len();
        let source = match source {
            Some((s, Some(at))) => (at, s.len()),
            Some((s, None)) => {
                text.push_str(s);
                (array_end, s.len())
            }
            None => (0, 0),
        };
        let shape = interner.shape(metadata);
        let entry = if let Some(found) = interner.earlier.find(&text, model.len(), &shape) {
            found.clone()
        } else {
            // Metadata over 4 GiB cannot arrive under any cap: the spans fit.
            let span = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
            LoraEntry {
                // A block of the text's exact size, not the scratch's capacity.
                text: Arc::from(text.as_str()),
                model_len: span(model.len()),
                array_end: span(array_end),
                source: (span(source.0), span(source.1)),
                shape,
            }
        };
        interner.scratch = text;
        entry
    }

    /// The model's name.
    pub fn model(&self) -> &str {
        self.text.get(..self.model_len as usize).unwrap_or("")
    }

    /// The length of the model's name in bytes, without reading its text.
    pub fn model_len(&self) -> usize {
        self.model_len as usize
    }

    /// Whether `self` and `other` are one entry shared, not two alike.
    pub fn shares(&self, other: &LoraEntry) -> bool {
        Arc::ptr_eq(&self.text, &other.text)
    }

    /// Every metadata field, in the order the service sent them.
    pub fn metadata(&self) -> Map<String, Value> {
        self.raw_metadata()
            .map(|(k, raw)| {
                (
                    k.to_string(),
                    serde_json::from_str(raw).unwrap_or(Value::Null),
                )
            })
            .collect()
    }

    /// One metadata field's value as JSON text, without building the whole map (the
    /// browser's detail looks up a picture field on every report).
    pub fn metadata_raw(&self, key: &str) -> Option<&str> {
        self.raw_metadata()
            .find(|(k, _)| *k == key)
            .map(|(_, raw)| raw)
    }

    /// Each metadata key with its value's JSON text, in order.
    fn raw_metadata(&self) -> impl Iterator<Item = (&str, &str)> {
        let inner = self
            .text
            .get(self.model_len as usize + 1..(self.array_end as usize).saturating_sub(1))
            .unwrap_or("");
        self.shape
            .keys
            .iter()
            .map(|k| &**k)
            .zip(top_level_items(inner))
    }

    /// Writes the entry as `{"model":…,"metadata":{…}}`, the metadata from its text as kept
    /// (`serde_json`'s own output, so valid JSON): no value is parsed or checked again, so a
    /// million entries are written about as fast as their bytes are copied.
    pub fn write_json(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        out.write_all(b"{\"model\":")?;
        serde_json::to_writer(&mut *out, self.model())?;
        out.write_all(b",\"metadata\":{")?;
        for (i, (key, raw)) in self.raw_metadata().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            serde_json::to_writer(&mut *out, key)?;
            out.write_all(b":")?;
            out.write_all(raw.as_bytes())?;
        }
        out.write_all(b"}}")
    }

    /// `metadata.source`, when it is a string.
    pub fn source(&self) -> Option<&str> {
        let (start, len) = (self.source.0 as usize, self.source.1 as usize);
        (start > 0).then(|| self.text.get(start..start + len))?
    }

    /// `metadata.type`, when it is a string.
    pub fn lora_type(&self) -> Option<&str> {
        self.shape.lora_type.as_deref()
    }

    /// `metadata.category`, when it is a string.
    pub fn category(&self) -> Option<&str> {
        self.shape.category.as_deref()
    }

    /// Whether the service lists this entry under `lora_type` and `cate` (`None`: any), as
    /// far as its metadata tells: `metadata.type` and `metadata.category`, matched without
    /// regard to case as the reference service matches them. An entry that does not say is
    /// not listed under a type or category: shown under a label, it could contradict it.
    pub fn listed_under(&self, lora_type: Option<LoraType>, cate: Option<&str>) -> bool {
        let same = |field: Option<&str>, wanted: &str| {
            field.is_some_and(|f| f.trim().eq_ignore_ascii_case(wanted.trim()))
        };
        lora_type.is_none_or(|t| same(self.lora_type(), t.as_str()))
            && cate
                .filter(|c| !c.trim().is_empty())
                .is_none_or(|c| same(self.category(), c))
    }
}

/// Writes `serde_json`'s output, always UTF-8, into a `String` without a copy in between.
struct Utf8Sink<'a>(&'a mut String);

impl std::io::Write for Utf8Sink<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = std::str::from_utf8(buf).map_err(std::io::Error::other)?;
        self.0.push_str(text);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The items of a JSON array's text without its brackets (`1,"a,b",[2,3]`), each as its text:
/// split at the commas outside strings and nested values.
fn top_level_items(inner: &str) -> impl Iterator<Item = &str> {
    let bytes = inner.as_bytes();
    let (mut start, mut at) = (0, 0);
    let (mut depth, mut in_string, mut escaped) = (0u32, false, false);
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        while at < bytes.len() {
            let b = bytes[at];
            at += 1;
            match (in_string, escaped, b) {
                (true, true, _) => escaped = false,
                (true, false, b'\\') => escaped = true,
                (true, false, b'"') | (false, _, b'"') => in_string = !in_string,
                (false, _, b'[' | b'{') => depth += 1,
                (false, _, b']' | b'}') => depth = depth.saturating_sub(1),
                (false, _, b',') if depth == 0 => {
                    let item = &inner[start..at - 1];
                    start = at;
                    return Some(item);
                }
                _ => {}
            }
        }
        let item = &inner[start..];
        start = bytes.len();
        Some(item)
    })
}

impl Serialize for LoraEntry {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("LoraEntry", 2)?;
        st.serialize_field("model", self.model())?;
        st.serialize_field("metadata", &RawMetadata(self))?;
        st.end()
    }
}

/// The metadata written from the values' text as it is kept, not parsed into values first:
/// writing a catalogue of 1,000,000 entries to the cache is then mostly copying.
struct RawMetadata<'a>(&'a LoraEntry);

impl Serialize for RawMetadata<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeMap};
        let mut map = s.serialize_map(Some(self.0.shape.keys.len()))?;
        for (key, raw) in self.0.raw_metadata() {
            let value: &serde_json::value::RawValue =
                serde_json::from_str(raw).map_err(S::Error::custom)?;
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_entry_keeps_its_metadata_whole_and_in_order_with_its_keys_shared() {
        let body = json!({"data": [
            {"model": "a", "metadata": {"source": "https://x.example/a", "type": "sd",
                "category": "style", "n": 1.5, "tags": ["x", "y"], "nested": {"k": null}}},
            {"model": "b", "metadata": {"source": "https://x.example/b", "type": "sd",
                "category": "style", "n": 2, "tags": [], "nested": {}}},
            {"model": "c", "metadata": {"category": "st\"yle", "source": "q\"uote\\d"}},
            {"model": "d", "metadata": {"source": 7}},
            {"model": "e", "metadata": {"a,]": "x,\\\",[", "b": [[1, {"c": ","}], "]"], "d": {}}},
            {"model": "f", "metadata": {}},
        ]});
        // As the decoder makes them: one interner for the catalogue.
        let mut interner = Interner::default();
        let sent = body["data"].as_array().expect("data");
        let entries: Vec<LoraEntry> = sent
            .iter()
            .map(|e| {
                let model = e["model"].as_str().expect("model");
                let metadata = e["metadata"].as_object().expect("metadata");
                LoraEntry::interned(model, metadata, &mut interner)
            })
            .collect();
        for (entry, sent) in entries.iter().zip(sent) {
            let metadata = Value::Object(entry.metadata());
            assert_eq!(metadata, sent["metadata"], "{}", entry.model());
            // In the order sent, and written back as sent (the cache's copy).
            assert_eq!(metadata.to_string(), sent["metadata"].to_string());
            assert_eq!(
                serde_json::to_string(entry).expect("json"),
                sent.to_string()
            );
            let mut written = Vec::new();
            entry.write_json(&mut written).expect("written");
            assert_eq!(String::from_utf8(written).expect("utf-8"), sent.to_string());
        }
        let [a, b, c, d, ..] = &entries[..] else {
            panic!("six entries")
        };
        assert_eq!(a.source(), Some("https://x.example/a"));
        assert_eq!(b.source(), Some("https://x.example/b"));
        assert_eq!(c.source(), Some("q\"uote\\d"));
        assert_eq!(d.source(), None);
        assert_eq!(c.category(), Some("st\"yle"));
        assert_eq!((a.lora_type(), a.category()), (Some("sd"), Some("style")));
        // One key list, type and category for the entries that share them.
        assert!(Arc::ptr_eq(&a.shape, &b.shape));
        assert!(!Arc::ptr_eq(&a.shape, &c.shape));
        assert_eq!(std::mem::size_of::<LoraEntry>(), 40);
    }
}

#[cfg(test)]
mod sharing_tests {
    use super::*;
    use crate::api::types::{Catalogue, decode_catalogue_from, decode_catalogue_with};
    use serde_json::json;

    fn body(entries: &[(&str, Value)]) -> String {
        let data: Vec<Value> = entries
            .iter()
            .map(|(m, meta)| json!({"model": m, "metadata": meta}))
            .collect();
        json!({ "data": data }).to_string()
    }

    fn sharing(body: &str, earlier: &Arc<[LoraEntry]>) -> Catalogue {
        decode_catalogue_with(
            body.as_bytes(),
            |_| true,
            Interner::sharing(earlier.clone()),
        )
        .expect("decoded")
    }

    #[test]
    fn a_reload_shares_the_unchanged_entries_and_shows_the_new_values_of_the_rest() {
        let meta = |source: &str, rating: f64| json!({"source": source, "rating": rating});
        let before = body(&[
            ("a", meta("https://x.example/a", 4.0)),
            ("b", meta("https://x.example/b", 3.0)),
            ("c", meta("https://x.example/c", 2.0)),
            ("twice", meta("https://x.example/t1", 1.0)),
            ("twice", meta("https://x.example/t2", 1.5)),
            ("typed", json!({"type": "sd", "category": "style"})),
        ]);
        let earlier: Arc<[LoraEntry]> = decode_catalogue_from(before.as_bytes())
            .expect("decoded")
            .entries
            .into();
        // Moved, changed, new, the second of a name listed twice, the same values under
        // other keys or another type.
        let after = body(&[
            ("c", meta("https://x.example/c", 2.0)),
            ("a", meta("https://x.example/a", 4.5)),
            ("new", meta("https://x.example/n", 5.0)),
            ("b", meta("https://x.example/b", 3.0)),
            ("twice", meta("https://x.example/t2", 1.5)),
            ("typed", json!({"type": "sdxl", "category": "style"})),
        ]);
        let fresh = sharing(&after, &earlier);
        // Each entry as a decode that shares nothing makes it: the new values where they
        // changed.
        let plain = decode_catalogue_from(after.as_bytes()).expect("decoded");
        assert_eq!(fresh, plain);
        assert_eq!(fresh.entries[1].metadata()["rating"], json!(4.5));
        assert_eq!(fresh.entries[5].lora_type(), Some("sdxl"));
        let shared: Vec<bool> = fresh
            .entries
            .iter()
            .map(|e| earlier.iter().any(|o| o.shares(e)))
            .collect();
        // The second of a name listed twice is looked for at the first, found near: not
        // shared, still right.
        assert_eq!(shared, [true, false, false, true, false, false]);
    }

    #[test]
    fn a_list_narrowed_or_reordered_far_from_the_earlier_order_still_shares() {
        let names: Vec<String> = (0..3000).map(|i| format!("m{i:04}")).collect();
        let all: Vec<(&str, Value)> = names
            .iter()
            .map(|n| {
                (
                    n.as_str(),
                    json!({"source": format!("https://x.example/{n}")}),
                )
            })
            .collect();
        let earlier: Arc<[LoraEntry]> = decode_catalogue_from(body(&all).as_bytes())
            .expect("decoded")
            .entries
            .into();
        // Every third entry (a type's), then ones far behind and far ahead of the last found.
        let picked: Vec<(&str, Value)> = (0..3000)
            .step_by(3)
            .chain([5, 2999, 1])
            .map(|i| all[i].clone())
            .collect();
        let fresh = sharing(&body(&picked), &earlier);
        assert_eq!(fresh.entries.len(), picked.len());
        for (entry, (name, _)) in fresh.entries.iter().zip(&picked) {
            assert_eq!(entry.model(), *name);
            assert!(earlier.iter().any(|o| o.shares(entry)), "{name}");
        }
    }
}
