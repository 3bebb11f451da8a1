//! The fields a service sends in a task's `data.data` beyond the spec's five (a queue
//! position, logs, a preview URL, …): kept sanitised, in the service's order, bounded, so a
//! service that adds fields is useful at once and a hostile one cannot make a task heavy.

use super::sanitize::{sanitize_json, sanitize_with_limit};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The spec's fields of a task result (2.2): everything else is an extra field.
pub const SPEC_FIELDS: [&str; 5] = [
    "task_id",
    "total_tasks",
    "percent",
    "status",
    "url_download",
];

/// Most extra fields kept per task; more are counted, not kept.
pub const MAX_FIELDS: usize = 16;
/// Longest field name kept, in characters (longer ones end in `…`).
pub const MAX_NAME_CHARS: usize = 64;
/// Longest string value kept, in characters (longer ones end in `…`).
pub const MAX_STRING_CHARS: usize = 300;
/// Longest nested value (array or object) kept, in bytes of compact JSON; a longer one is
/// kept as a note of its size.
pub const MAX_NESTED_BYTES: usize = 1024;
/// Most bytes of names and compact JSON kept per task: a field that would pass it is counted,
/// not kept. With the per-field bounds, a task's extra fields hold at most about 4.5 KiB.
pub const MAX_TOTAL_BYTES: usize = 4096;

/// One extra field: its sanitised name and its sanitised value as compact JSON.
#[derive(Debug, Clone, PartialEq)]
struct Field {
    name: Box<str>,
    json: Box<str>,
}

/// A task's extra fields, in the order the service sent them.
///
/// Held as compact JSON text rather than a `Value` tree: a kilobyte of `[0,0,…]` is a
/// kilobyte here, not sixteen. Written to disk (the watch list, the archive) as a JSON object.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExtraFields {
    fields: Vec<Field>,
    /// Fields the bounds left out (or whose value could not be read).
    omitted: u32,
}

impl ExtraFields {
    /// Adds the field `name` (as the service spelled it) with `value`: both sanitised,
    /// bounded; a name seen again replaces its value where it stands, as a JSON object would.
    pub fn push(&mut self, name: &str, value: &Value) {
        let name = sanitize_with_limit(name, MAX_NAME_CHARS);
        if name.trim().is_empty() {
            self.omit();
            return;
        }
        let json = compact(value);
        let total = self.total();
        let fits = |before: usize| total - before + json.len() <= MAX_TOTAL_BYTES;
        match self.fields.iter().position(|f| *f.name == *name) {
            Some(i) if fits(self.fields[i].json.len()) => self.fields[i].json = json.into(),
            Some(_) => self.omit(),
            None if self.fields.len() >= MAX_FIELDS
                || total + name.len() + json.len() > MAX_TOTAL_BYTES =>
            {
                self.omit();
            }
            None => self.fields.push(Field {
                name: name.into(),
                json: json.into(),
            }),
        }
    }

    /// Adds a field whose value is still JSON text (the fast reading's raw value); text that
    /// does not parse as a value is counted as left out.
    pub fn push_raw(&mut self, name: &str, raw: &str) {
        match serde_json::from_str::<Value>(raw) {
            Ok(v) => self.push(name, &v),
            Err(_) => self.omit(),
        }
    }

    fn omit(&mut self) {
        self.omitted = self.omitted.saturating_add(1);
    }

    fn total(&self) -> usize {
        self.fields
            .iter()
            .map(|f| f.name.len() + f.json.len())
            .sum()
    }

    /// `None` when there is nothing to show (the usual task), else these fields boxed: a
    /// task without extra fields costs a pointer.
    #[must_use]
    pub fn finish(self) -> Option<Box<ExtraFields>> {
        (!self.fields.is_empty() || self.omitted > 0).then(|| Box::new(self))
    }

    /// How many fields were left out by the bounds.
    pub fn omitted(&self) -> u32 {
        self.omitted
    }

    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// Each field's name and its value as one line of text: a string as itself, anything
    /// else as compact JSON (`3`, `null`, `["a","b"]`, `{"gpu":"A100"}`).
    pub fn shown(&self) -> impl Iterator<Item = (&str, std::borrow::Cow<'_, str>)> {
        self.fields.iter().map(|f| {
            let text = match serde_json::from_str::<String>(&f.json) {
                Ok(s) if f.json.starts_with('"') => std::borrow::Cow::Owned(s),
                _ => std::borrow::Cow::Borrowed(&*f.json),
            };
            (&*f.name, text)
        })
    }

    /// The fields as a JSON object, in their order.
    pub fn to_map(&self) -> Map<String, Value> {
        self.fields
            .iter()
            .map(|f| {
                let v = serde_json::from_str(&f.json).unwrap_or(Value::Null);
                (f.name.to_string(), v)
            })
            .collect()
    }
}

/// `value` sanitised as compact JSON: a string cut to [`MAX_STRING_CHARS`], a nested value
/// longer than [`MAX_NESTED_BYTES`] replaced by a note of its size.
fn compact(value: &Value) -> String {
    match value {
        Value::String(s) => Value::String(sanitize_with_limit(s, MAX_STRING_CHARS)).to_string(),
        Value::Array(_) | Value::Object(_) => {
            let mut v = value.clone();
            sanitize_json(&mut v);
            let json = v.to_string();
            if json.len() <= MAX_NESTED_BYTES {
                json
            } else {
                let what = if v.is_array() {
                    "an array"
                } else {
                    "an object"
                };
                Value::String(format!("({what} of {} bytes, not kept)", json.len())).to_string()
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => value.to_string(),
    }
}

/// On disk: `{"fields": {name: value, …}, "omitted": N}` (`omitted` only when some were).
#[derive(Serialize, Deserialize)]
struct Stored {
    fields: Map<String, Value>,
    #[serde(default, skip_serializing_if = "is_zero")]
    omitted: u32,
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Serialize for ExtraFields {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Stored {
            fields: self.to_map(),
            omitted: self.omitted,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for ExtraFields {
    /// Read back through [`ExtraFields::push`], so a hand-edited file is held to the same
    /// bounds and sanitiser as an answer.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let stored = Stored::deserialize(d)?;
        let mut extra = ExtraFields {
            fields: Vec::new(),
            omitted: stored.omitted,
        };
        for (name, value) in &stored.fields {
            extra.push(name, value);
        }
        Ok(extra)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shown(e: &ExtraFields) -> Vec<(String, String)> {
        e.shown()
            .map(|(n, v)| (n.to_string(), v.into_owned()))
            .collect()
    }

    #[test]
    fn fields_keep_their_order_and_are_sanitised() {
        let mut e = ExtraFields::default();
        e.push("queue_position", &json!(3));
        e.push("logs", &json!(["\u{1b}[32mloaded\u{1b}[0m", "step 1"]));
        e.push("note\u{1b}]0;x\u{7}", &json!("a\u{202e}b\nc"));
        e.push("worker", &json!({"gpu": "A100", "n": null}));
        assert_eq!(
            shown(&e),
            [
                ("queue_position".into(), "3".into()),
                ("logs".into(), r#"["loaded","step 1"]"#.into()),
                ("note".into(), "ab c".into()),
                ("worker".into(), r#"{"gpu":"A100","n":null}"#.into()),
            ]
        );
    }

    #[test]
    fn bounds_hold_whatever_the_service_sends() {
        let mut e = ExtraFields::default();
        for i in 0..100 {
            e.push(&format!("f{i}"), &json!(i));
        }
        assert_eq!(e.fields.len(), MAX_FIELDS);
        assert_eq!(e.omitted(), 100 - MAX_FIELDS as u32);

        let mut e = ExtraFields::default();
        e.push("long", &json!("x".repeat(100_000)));
        e.push("deep", &json!(vec![0; 10_000]));
        e.push(&"n".repeat(1000), &json!(1));
        let s = shown(&e);
        assert_eq!(s[0].1.chars().count(), MAX_STRING_CHARS);
        assert!(s[0].1.ends_with('…'));
        assert_eq!(s[1].1, "(an array of 20001 bytes, not kept)");
        assert_eq!(s[2].0.chars().count(), MAX_NAME_CHARS);

        let mut e = ExtraFields::default();
        for i in 0..MAX_FIELDS {
            e.push(&format!("f{i}"), &json!("y".repeat(MAX_STRING_CHARS)));
        }
        assert!(e.total() <= MAX_TOTAL_BYTES, "{}", e.total());
        assert!(e.omitted() > 0);
    }

    #[test]
    fn a_repeated_name_replaces_its_value_in_place() {
        let mut e = ExtraFields::default();
        e.push("a", &json!(1));
        e.push("b", &json!(2));
        e.push("a", &json!(3));
        assert_eq!(
            shown(&e),
            [("a".into(), "3".into()), ("b".into(), "2".into())]
        );
    }

    #[test]
    fn disk_form_round_trips_and_is_bounded_again() {
        let mut e = ExtraFields::default();
        e.push("queue_position", &json!(2));
        e.push("logs", &json!(["a"]));
        let text = serde_json::to_string(&e).expect("writes");
        assert_eq!(text, r#"{"fields":{"queue_position":2,"logs":["a"]}}"#);
        let back: ExtraFields = serde_json::from_str(&text).expect("reads");
        assert_eq!(back, e);
        let edited = r#"{"fields":{"x\u001b[2J":"y"},"omitted":2}"#;
        let back: ExtraFields = serde_json::from_str(edited).expect("reads");
        assert_eq!(shown(&back), [("x".into(), "y".into())]);
        assert_eq!(back.omitted(), 2);
    }
}
