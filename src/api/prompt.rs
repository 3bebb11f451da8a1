//! A `LoRA` as prompt text: `prompt_template` (`<lora:{model}:{weight}> {trigger_words}`)
//! filled from a catalogue entry, the one builder behind the browser's copy-prompt key and
//! `gendash models --prompt`.
//!
//! A placeholder with no value (a field the entry lacks, or an empty one) takes the separators
//! that join it to the text before it (white space, `,` and `;`), or, at the start, those after
//! it; then runs of white space become one space and the ends lose their separators. So
//! `{a}, {b}` is `A` without b and `B` without a, never `A, ` or `, B`.

use crate::api::LoraEntry;
use crate::api::sanitize::{sanitize, sanitize_with_limit};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// The default template: the tag A1111, Civitai Browser+ and `InvokeAI` insert, and the words
/// that call the `LoRA` up.
pub const DEFAULT_TEMPLATE: &str = "<lora:{model}:{weight}> {trigger_words}";

/// `{weight}` where the entry recommends none (`lora_weight`'s default).
pub const DEFAULT_WEIGHT: f64 = 1.0;

/// Between the prompts of several models: prompts are comma-separated phrases, so one model's
/// last trigger word never runs into the next one's tag.
pub const JOIN: &str = ", ";

/// The placeholders a template may name: the model, its weight, and the metadata fields the
/// catalogues carry. Any other field is named `{meta.NAME}`, so a typo is still an error.
pub const PROMPT_PLACEHOLDERS: [&str; 14] = [
    "model",
    "weight",
    "trigger_words",
    "base_model",
    "version",
    "recommended_weight",
    "type",
    "category",
    "author",
    "source",
    "license",
    "downloads",
    "rating",
    "updated",
];

/// The prefix naming any metadata field: `{meta.sampler}`.
pub const META_PREFIX: &str = "meta.";

/// Longest template text kept, in characters.
const TEMPLATE_LIMIT: usize = 1024;

/// What joins a placeholder to its neighbours, dropped with it when it is empty.
fn is_separator(c: char) -> bool {
    c.is_whitespace() || c == ',' || c == ';'
}

/// Why a `prompt_template` is refused; the config's parser names the file, line and key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromptTemplateError {
    #[error("the prompt template is empty")]
    Empty,
    #[error("`{0}` has a `}}` without its `{{`")]
    Unopened(String),
    #[error("`{0}` has a `{{` without its `}}`")]
    Unclosed(String),
    #[error(
        "`{{{name}}}` is not a placeholder of prompt_template (known: {}; any other metadata \
         field: {{meta.NAME}})",
        PROMPT_PLACEHOLDERS.map(|p| format!("{{{p}}}")).join(", ")
    )]
    NoSuchPlaceholder { name: String },
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    /// Literal text, sanitised (no control character, line breaks made spaces).
    Text(String),
    /// `model`, `weight`, or a metadata field's name (without `meta.`).
    Field(String),
}

/// `prompt_template`, checked when read: every placeholder is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptTemplate {
    text: String,
    parts: Vec<Part>,
}

impl Default for PromptTemplate {
    fn default() -> Self {
        PromptTemplate::parse(DEFAULT_TEMPLATE).unwrap_or_else(|e| panic!("{e}"))
    }
}

impl PromptTemplate {
    pub fn parse(text: &str) -> Result<Self, PromptTemplateError> {
        let given = || text.to_string();
        if text.trim().is_empty() {
            return Err(PromptTemplateError::Empty);
        }
        let mut parts = Vec::new();
        let mut rest = text;
        while let Some(at) = rest.find(['{', '}']) {
            if rest[at..].starts_with('}') {
                return Err(PromptTemplateError::Unopened(given()));
            }
            let after = &rest[at + 1..];
            let end = after
                .find('}')
                .ok_or_else(|| PromptTemplateError::Unclosed(given()))?;
            let name = after[..end].trim();
            let field = match name.strip_prefix(META_PREFIX) {
                Some(field) if !field.is_empty() && !field.contains('{') => field,
                None if PROMPT_PLACEHOLDERS.contains(&name) => name,
                _ => return Err(PromptTemplateError::NoSuchPlaceholder { name: name.into() }),
            };
            parts.push(Part::Text(sanitize_with_limit(&rest[..at], TEMPLATE_LIMIT)));
            parts.push(Part::Field(field.to_string()));
            rest = &after[end + 1..];
        }
        parts.push(Part::Text(sanitize_with_limit(rest, TEMPLATE_LIMIT)));
        Ok(PromptTemplate {
            text: text.to_string(),
            parts,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The prompt for one entry; `weight` is `{weight}` where the entry recommends none.
    pub fn expand(&self, entry: &LoraEntry, weight: f64) -> String {
        let value = |name: &str| field(entry, name, weight);
        let mut out = String::new();
        // A placeholder at the start was empty: the text after it loses its separators.
        let mut strip_next = false;
        for part in &self.parts {
            match part {
                Part::Text(text) => {
                    let text = if strip_next {
                        text.trim_start_matches(is_separator)
                    } else {
                        text
                    };
                    strip_next &= text.is_empty();
                    out.push_str(text);
                }
                Part::Field(name) => {
                    let v = value(name);
                    if !v.is_empty() {
                        out.push_str(&v);
                        strip_next = false;
                    } else if out.trim_matches(is_separator).is_empty() {
                        out.clear();
                        strip_next = true;
                    } else {
                        out.truncate(out.trim_end_matches(is_separator).len());
                    }
                }
            }
        }
        out.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .trim_matches(is_separator)
            .to_string()
    }
}

/// The value of placeholder `name` (`model`, `weight` or a metadata field's name, without
/// `meta.`) for `entry`, sanitised and trimmed; empty where it has none. The templates' and the
/// browser's actions' one way to read an entry.
pub fn field(entry: &LoraEntry, name: &str, weight: f64) -> String {
    let metadata = entry.metadata();
    let text = match name {
        "model" => entry.model().to_owned(),
        "weight" => weight_text(
            metadata
                .get("recommended_weight")
                .and_then(number)
                .unwrap_or(weight),
        ),
        field => metadata.get(field).map(value_text).unwrap_or_default(),
    };
    sanitize(&text).trim().to_string()
}

/// The prompt for several entries: each model's once (the first time it comes), joined by
/// [`JOIN`]; an entry whose prompt is empty adds nothing.
pub fn prompt<'a>(
    template: &PromptTemplate,
    entries: impl IntoIterator<Item = &'a LoraEntry>,
    weight: f64,
) -> String {
    let mut seen = std::collections::HashSet::new();
    entries
        .into_iter()
        .filter(|e| seen.insert(e.model()))
        .map(|e| template.expand(e, weight))
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(JOIN)
}

/// A weight as a number (`0.8`), or a string that is one; `None` for anything else.
fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
    .filter(|w: &f64| w.is_finite())
}

/// `0.8`, `1`: the shortest text that reads back as the same number.
fn weight_text(weight: f64) -> String {
    weight.to_string()
}

/// A metadata value as prompt text: a string as it is, a number or a boolean written out, a
/// list's items joined by `, `; nothing for null and objects.
fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Array(items) => items
            .iter()
            .map(|v| sanitize(&value_text(v)).trim().to_string())
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(", "),
        Value::Null | Value::Object(_) => String::new(),
    }
}

/// `prompt_template` in the config, checked when read so an error names the line.
impl<'de> Deserialize<'de> for PromptTemplate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        PromptTemplate::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// `lora_weight` in the config: a finite number (A1111 takes negative weights too).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoraWeight(pub f64);

impl<'de> Deserialize<'de> for LoraWeight {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = f64::deserialize(d)?;
        if w.is_finite() {
            Ok(LoraWeight(w))
        } else {
            Err(serde::de::Error::custom(format!(
                "{w} is not a weight: give a number such as 0.8"
            )))
        }
    }
}

/// What builds the prompts: the config's template and weight.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptSettings {
    pub template: PromptTemplate,
    /// `{weight}` where the entry recommends none.
    pub weight: f64,
}

impl Default for PromptSettings {
    fn default() -> Self {
        PromptSettings {
            template: PromptTemplate::default(),
            weight: DEFAULT_WEIGHT,
        }
    }
}

impl PromptSettings {
    /// The prompt for `entries` (see [`prompt`]).
    pub fn prompt<'a>(&self, entries: impl IntoIterator<Item = &'a LoraEntry>) -> String {
        prompt(&self.template, entries, self.weight)
    }
}

#[cfg(test)]
mod tests;
