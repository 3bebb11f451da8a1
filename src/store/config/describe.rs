//! `gendash config show`: every setting with where it came from (the token only as
//! `<redacted>`); and the manual's key list, both from the declaration in `schema.rs`.

use super::declare::Show;
use super::schema::{KEYS, Settings};
use std::fmt::Write as _;

impl Settings {
    /// The lines of `gendash config show`; the token appears only as `<redacted>`.
    pub fn describe(&self) -> Vec<String> {
        let src = |k: &str| {
            self.sources
                .get(k)
                .map_or_else(String::new, ToString::to_string)
        };
        let mut lines = vec![
            format!(
                "config file: {}{}",
                self.config_file.display(),
                if self.config_file_found {
                    ""
                } else {
                    " (not found)"
                }
            ),
            format!("profile: {}", self.profile.as_deref().unwrap_or("(none)")),
        ];
        for (k, v) in self.values() {
            lines.push(format!("{k:<22} = {v:<40}  # {}", src(k)));
        }
        lines
    }

    /// Every resolved key with its value as `config show` writes it (the token redacted), in
    /// the declaration's order: with no file, no variables and no flags, the defaults the
    /// manual lists.
    pub fn values(&self) -> Vec<(&'static str, String)> {
        KEYS.iter()
            .filter_map(|key| match key.show {
                Show::Line(show) => Some((key.name, show(self))),
                Show::On(_) => None,
            })
            .collect()
    }
}

/// The first line of the key list in docs/configuration.md.
pub const KEY_TABLE_BEGIN: &str = "<!-- config-keys:begin: generated from src/store/config/schema.rs; \
     regenerate with UPDATE_DOCS=1 cargo test --locked --lib config:: -->";
/// Its last line.
pub const KEY_TABLE_END: &str = "<!-- config-keys:end -->";

/// The manual's key list, a Markdown table: every key the file takes, its type, its default,
/// the flag and variable that set it, and what it does.
pub fn key_table() -> String {
    let defaults = Settings::defaults().values();
    let cell = |text: &str| text.replace('|', "\\|");
    let code = |text: &str| format!("`{}`", cell(text));
    let header =
        "| key | type | default | flag, environment | what it sets |\n|---|---|---|---|---|\n";
    let rows = KEYS.iter().map(|key| {
        let kind = if key.values.is_empty() {
            cell(key.kind)
        } else {
            let values: Vec<String> = key
                .values
                .iter()
                .map(|v| code(&format!("\"{v}\"")))
                .collect();
            format!("{}: {}", cell(key.kind), values.join(", "))
        };
        let shown = defaults
            .iter()
            .find(|(name, _)| *name == key.name)
            .map(|(_, v)| v.as_str());
        let default = match (key.default_doc, shown) {
            (Some(text), _) => cell(text),
            (None, Some(v)) if v.starts_with('(') => cell(v),
            (None, Some(v)) => code(v),
            (None, None) => "(not set)".to_string(),
        };
        let outside: Vec<String> = key.flag.iter().chain(&key.env).map(|n| code(n)).collect();
        let outside = if outside.is_empty() {
            "—".to_string()
        } else {
            outside.join(", ")
        };
        format!(
            "| {} | {kind} | {default} | {outside} | {} |\n",
            code(key.name),
            cell(key.about)
        )
    });
    std::iter::once(header.to_string()).chain(rows).collect()
}

/// The JSON Schema dialect of [`json_schema`]: draft-07, the one Taplo (Even Better TOML) and
/// most editors' TOML tooling support fully.
pub const JSON_SCHEMA_DIALECT: &str = "http://json-schema.org/draft-07/schema#";

/// `gendash config schema`: a JSON Schema of config.toml, from the declaration in `schema.rs`:
/// every key with its type, default, allowed values and the manual's line; unknown keys are
/// refused where the parser refuses them (everywhere: the top level, a profile, `[keys]`,
/// `[styles]`). A profile is the top level without `profiles`.
pub fn json_schema() -> serde_json::Value {
    use serde_json::{Map, Value, json};
    let defaults = Settings::defaults().values();
    let mut level = Map::new();
    let mut top = Map::new();
    for key in KEYS {
        let mut schema = value_schema(key.name, key.kind, key.values);
        if let Value::Object(fields) = &mut schema {
            let shown = defaults
                .iter()
                .find(|(name, _)| *name == key.name)
                .map(|(_, v)| v.as_str());
            let default = match key.default_doc {
                Some(_) => None,
                None => shown.and_then(|v| default_value(fields, v)),
            };
            let mut about = key.about.to_string();
            if let Some(doc) = key.default_doc.filter(|d| !d.starts_with('(')) {
                let _ = write!(about, " Default: {doc}.");
            }
            fields.insert("description".into(), Value::String(about));
            if let Some(d) = default {
                fields.insert("default".into(), d);
            }
        }
        if key.name == "profiles" {
            top.insert(key.name.into(), schema);
        } else {
            level.insert(key.name.into(), schema.clone());
            top.insert(key.name.into(), schema);
        }
    }
    json!({
        "$schema": JSON_SCHEMA_DIALECT,
        "title": "gendash config.toml",
        "description": "The configuration of gendash (`gendash config path` says where it is). \
            Generated by `gendash config schema`.",
        "type": "object",
        "properties": top,
        "additionalProperties": false,
        "definitions": {
            "level": {
                "description": "A profile: the top level's keys, except `profiles`.",
                "type": "object",
                "properties": level,
                "additionalProperties": false,
            },
        },
    })
}

/// The schema of one key's value, from its declared kind and values.
fn value_schema(name: &str, kind: &str, values: &[&str]) -> serde_json::Value {
    use super::appearance::{ACTION_NAMES, STYLE_NAMES};
    use serde_json::{Map, Value, json};
    let strings = json!({"type": "array", "items": {"type": "string"}});
    let named = |names: &[&str], each: &Value| {
        let properties: Map<String, Value> = names
            .iter()
            .map(|n| ((*n).to_string(), each.clone()))
            .collect();
        json!({"type": "object", "properties": properties, "additionalProperties": false})
    };
    // "(at least 0.2)" in the kind is the minimum.
    let minimum = kind
        .split_once("at least ")
        .and_then(|(_, rest)| rest.trim_end_matches(')').parse::<f64>().ok());
    let mut schema = match kind {
        "boolean" => json!({"type": "boolean"}),
        "URL" => json!({"type": "string", "format": "uri"}),
        "string" | "path" | "template" => json!({"type": "string"}),
        k if k.starts_with("array of strings, or a string") => {
            json!({"anyOf": [{"type": "string"}, strings]})
        }
        k if k.starts_with("array of strings") => strings,
        k if k.starts_with("integer") => json!({"type": "integer"}),
        k if k.starts_with("number") => json!({"type": "number"}),
        "table" if name == "keys" => named(
            ACTION_NAMES,
            &json!({
                "description": "A key name (`enter`, `ctrl-x`, `F5`) or a list of them.",
                "anyOf": [
                    {"type": "string"},
                    {"type": "array", "items": {"type": "string"}, "minItems": 1},
                ],
            }),
        ),
        "table" if name == "styles" => named(
            STYLE_NAMES,
            &json!({
                "description": "A colour, `on <colour>` and emphases (`bold`, `underlined`).",
                "type": "string",
            }),
        ),
        "tables" if name == "views" => json!({
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["pane"],
                "additionalProperties": false,
                "properties": {
                    "pane": {"enum": super::ViewPane::NAMES},
                    "filter": {"type": "string"},
                    "type": {"enum": ["sd", "sdxl", "all"]},
                    "category": {"type": "string"},
                    "key": {
                        "anyOf": [
                            {"type": "string"},
                            {"type": "array", "items": {"type": "string"}, "minItems": 1},
                        ],
                    },
                },
            },
        }),
        "array of tables" if name == "actions" => json!({
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "Its name in the help, the palette and `gendash run-action`."},
                    "key": {"type": "string", "description": "A key name (`u`, `ctrl-u`, `f5`)."},
                    "scope": {
                        "description": "Where it runs.",
                        "anyOf": [
                            {"type": "string", "enum": super::actions::Scope::NAMES},
                            {"type": "array", "items": {"type": "string", "enum": super::actions::Scope::NAMES}, "minItems": 1},
                        ],
                    },
                    "command": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "A program and its arguments, with placeholders."},
                    "confirm": {"type": "boolean", "default": false, "description": "Ask before running it."},
                },
                "required": ["name", "key", "scope", "command"],
                "additionalProperties": false,
            },
        }),
        "tables" => json!({
            "type": "object",
            "additionalProperties": {"$ref": "#/definitions/level"},
        }),
        _ => json!({}),
    };
    if let Value::Object(fields) = &mut schema {
        if let Some(m) = minimum {
            fields.insert("minimum".into(), json!(m));
        }
        if !values.is_empty() {
            fields.insert("enum".into(), json!(values));
        }
    }
    schema
}

/// A default as `config show` writes it, as a value of the key's schema; `None` for the
/// descriptions in parentheses (`(not set)`).
fn default_value(
    schema: &serde_json::Map<String, serde_json::Value>,
    shown: &str,
) -> Option<serde_json::Value> {
    use serde_json::{Value, json};
    if shown.starts_with('(') {
        return None;
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("boolean") => shown.parse::<bool>().ok().map(Value::Bool),
        Some("number") => shown
            .trim_end_matches('s')
            .parse::<f64>()
            .ok()
            .map(|n| json!(n)),
        Some("integer") => shown.parse::<u64>().ok().map(|n| json!(n)),
        Some("string") => Some(Value::String(shown.to_string())),
        Some("array") if shown.is_empty() => Some(json!([])),
        Some("array") => Some(json!(shown.split(", ").collect::<Vec<_>>())),
        _ => None,
    }
}
