//! The catalogue the reference service serves: embedded from `assets/` or read from a file.
//! Entries carry `type` and `cate` for filtering; only `model` and `metadata` are served.

use serde::Deserialize;
use serde_json::{Map, Value};

pub const EMBEDDED: &[u8] = include_bytes!("../../assets/catalogue.json");

#[derive(Debug, Clone, Deserialize)]
pub struct ServedEntry {
    pub model: String,
    #[serde(rename = "type", default)]
    pub lora_type: Option<String>,
    #[serde(default)]
    pub cate: Option<String>,
    #[serde(default)]
    pub metadata: Map<String, Value>,
}

/// Parses a catalogue file: a JSON array of `{model, type, cate, metadata}`.
pub fn parse(bytes: &[u8]) -> Result<Vec<ServedEntry>, String> {
    serde_json::from_slice(bytes)
        .map_err(|e| format!("catalogue is not a JSON array of entries: {e}"))
}

pub fn embedded() -> Vec<ServedEntry> {
    // The embedded file is checked by a unit test, so this cannot fail in a build that passed.
    parse(EMBEDDED).unwrap_or_default()
}

/// An entry as served: `{"model", "metadata"}` only, as JSON text (made once, at start).
pub fn wire(e: &ServedEntry) -> Box<str> {
    serde_json::json!({"model": e.model, "metadata": e.metadata})
        .to_string()
        .into_boxed_str()
}

/// The positions of the entries matching the spec's filters.
pub fn matching<'a>(
    entries: &'a [ServedEntry],
    lora_type: Option<&'a str>,
    cate: Option<&'a str>,
) -> impl Iterator<Item = usize> + 'a {
    entries
        .iter()
        .enumerate()
        .filter(move |(_, e)| {
            lora_type.is_none_or(|t| {
                e.lora_type
                    .as_deref()
                    .is_some_and(|et| et.eq_ignore_ascii_case(t))
            })
        })
        .filter(move |(_, e)| {
            cate.is_none_or(|c| {
                e.cate
                    .as_deref()
                    .is_some_and(|ec| ec.eq_ignore_ascii_case(c))
            })
        })
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_catalogue_is_rich_enough() {
        let entries = parse(EMBEDDED).expect("embedded catalogue parses");
        assert!(entries.len() >= 200);
        let sd = matching(&entries, Some("sd"), None).count();
        let sdxl = matching(&entries, Some("sdxl"), None).count();
        assert!(sd > 50 && sdxl > 50 && sd + sdxl == entries.len());
        let cats: std::collections::BTreeSet<_> =
            entries.iter().filter_map(|e| e.cate.clone()).collect();
        assert!(cats.len() >= 5);
        assert!(entries.iter().all(|e| {
            e.metadata
                .get("source")
                .and_then(Value::as_str)
                .is_some_and(|s| s.starts_with("https://"))
        }));
        assert!(entries.iter().all(|e| e.metadata.len() >= 4));
    }

    /// A newcomer filtering the demo on `xl$` expects SDXL models, and `type:sdxl` the `_xl`
    /// ones: the name, the served type and the metadata never disagree.
    #[test]
    fn embedded_xl_models_are_sdxl_and_the_metadata_agrees() {
        for e in parse(EMBEDDED).expect("embedded catalogue parses") {
            let ty = e.lora_type.as_deref().unwrap_or_default();
            if e.model.ends_with("_xl") {
                assert_eq!(ty, "sdxl", "{} is named as an SDXL model", e.model);
            }
            let meta = |k: &str| {
                e.metadata
                    .get(k)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
            };
            assert_eq!(meta("type"), ty, "{}: metadata.type", e.model);
            assert_eq!(meta("category"), e.cate.as_deref().unwrap_or_default());
            let base = meta("base_model");
            let sdxl_base = matches!(base, "SDXL 1.0" | "Pony" | "Illustrious");
            assert_eq!(sdxl_base, ty == "sdxl", "{}: base_model {base}", e.model);
        }
    }
}
