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

impl ServedEntry {
    /// The type the service filters on: `type`, else `metadata.type`.
    pub fn type_listed(&self) -> Option<&str> {
        self.lora_type.as_deref().or_else(|| meta_str(self, "type"))
    }

    /// The category the service filters on: `cate`, else `metadata.category`.
    pub fn cate_listed(&self) -> Option<&str> {
        self.cate.as_deref().or_else(|| meta_str(self, "category"))
    }
}

fn meta_str<'a>(e: &'a ServedEntry, key: &str) -> Option<&'a str> {
    e.metadata.get(key).and_then(Value::as_str)
}

/// Why a catalogue file is refused.
#[derive(Debug, thiserror::Error)]
pub enum CatalogueError {
    #[error("catalogue is not a JSON array of entries: {0}")]
    NotEntries(#[from] serde_json::Error),
    #[error(
        "model `{model}`: {field} `{listed}` disagrees with metadata.{meta} `{said}`; make them \
         the same or leave one out"
    )]
    Disagrees {
        model: String,
        field: &'static str,
        listed: String,
        meta: &'static str,
        said: String,
    },
}

/// Parses a catalogue file: a JSON array of `{model, type, cate, metadata}`. An entry whose
/// `type` or `cate` disagrees with its `metadata.type` or `metadata.category` is refused: a
/// client narrowing a cached list by the metadata it was served must find what the service
/// would list.
pub fn parse(bytes: &[u8]) -> Result<Vec<ServedEntry>, CatalogueError> {
    let entries: Vec<ServedEntry> = serde_json::from_slice(bytes)?;
    for e in &entries {
        for (field, listed, meta) in [
            ("type", e.lora_type.as_deref(), "type"),
            ("cate", e.cate.as_deref(), "category"),
        ] {
            if let (Some(listed), Some(said)) = (listed, meta_str(e, meta))
                && !listed.eq_ignore_ascii_case(said)
            {
                return Err(CatalogueError::Disagrees {
                    model: e.model.clone(),
                    field,
                    listed: listed.to_string(),
                    meta,
                    said: said.to_string(),
                });
            }
        }
    }
    Ok(entries)
}

pub fn embedded() -> Vec<ServedEntry> {
    // The embedded file is checked by a unit test, so this cannot fail in a build that passed.
    let mut entries = parse(EMBEDDED).unwrap_or_default();
    // Some entries name a sample picture, as catalogues with previews do.
    for (i, e) in entries
        .iter_mut()
        .enumerate()
        .skip(4)
        .step_by(super::samples::EVERY)
    {
        let url = super::samples::relative_url(i / super::samples::EVERY);
        e.metadata.insert("preview".into(), Value::String(url));
    }
    entries
}

/// An entry as served: `{"model", "metadata"}` only, as JSON text (made once, at start). The
/// metadata says the type and category the entry is listed under, so a client can narrow a
/// broader list exactly as the service would.
pub fn wire(e: &ServedEntry) -> Box<str> {
    let mut metadata = e.metadata.clone();
    for (key, listed) in [("type", e.type_listed()), ("category", e.cate_listed())] {
        if let Some(v) = listed
            && !metadata.contains_key(key)
        {
            metadata.insert(key.into(), Value::String(v.into()));
        }
    }
    serde_json::json!({"model": e.model, "metadata": metadata})
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
            lora_type.is_none_or(|t| e.type_listed().is_some_and(|et| et.eq_ignore_ascii_case(t)))
        })
        .filter(move |(_, e)| {
            cate.is_none_or(|c| e.cate_listed().is_some_and(|ec| ec.eq_ignore_ascii_case(c)))
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

    /// What the service filters on is what it serves: an entry's `type`/`cate` reach the
    /// metadata when it has none, one from the metadata alone is filtered on too, and a file
    /// where the two disagree is refused, naming the model.
    #[test]
    fn the_served_metadata_says_what_the_filter_uses() {
        let entries = parse(
            br#"[{"model": "top", "type": "sd", "cate": "style", "metadata": {"source": "https://x"}},
                 {"model": "meta", "metadata": {"type": "SDXL", "category": "poses"}}]"#,
        )
        .expect("parses");
        let served: Value = serde_json::from_str(&wire(&entries[0])).expect("json");
        assert_eq!(served["metadata"]["type"], "sd");
        assert_eq!(served["metadata"]["category"], "style");
        let names = |t, c| -> Vec<&str> {
            matching(&entries, t, c)
                .map(|i| entries[i].model.as_str())
                .collect()
        };
        assert_eq!(names(Some("sdxl"), None), ["meta"]);
        assert_eq!(names(None, Some("poses")), ["meta"]);
        assert_eq!(names(Some("sd"), Some("style")), ["top"]);
        let refused = parse(br#"[{"model": "liar", "type": "sd", "metadata": {"type": "sdxl"}}]"#)
            .expect_err("disagrees")
            .to_string();
        assert!(
            refused.contains("model `liar`") && refused.contains("metadata.type `sdxl`"),
            "{refused}"
        );
    }
}
