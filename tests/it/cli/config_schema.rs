//! `gendash config schema`: the JSON Schema of config.toml, generated from the declaration of
//! the keys, checked against the parser itself with a JSON Schema validator (`boon`): every
//! key the parser takes is in it, its enums are the parser's, the README's example validates,
//! and what the parser refuses (a wrong type, an unknown key) does not.

use crate::common;
use gendash::store::config::{self, ACTION_NAMES, KEYS, NAMES, STYLE_NAMES};
use serde_json::Value;
use std::path::Path;

fn schema() -> Value {
    config::json_schema()
}

/// Whether `toml_text`, read as TOML and seen as JSON, is valid under the schema.
fn valid(toml_text: &str) -> Result<(), String> {
    let doc: toml::Table = toml::from_str(toml_text).map_err(|e| e.to_string())?;
    let instance = serde_json::to_value(doc).unwrap();
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler
        .add_resource("gendash.schema.json", schema())
        .unwrap();
    let index = compiler
        .compile("gendash.schema.json", &mut schemas)
        .map_err(|e| format!("the schema itself: {e}"))
        .unwrap();
    schemas
        .validate(&instance, index)
        .map_err(|e| format!("{e:#}"))
}

/// What the parser says of `text`.
fn parses(text: &str) -> Result<(), String> {
    config::parse(text, Path::new("config.toml"))
        .map(drop)
        .map_err(|e| e.to_string())
}

/// The names an unknown-name error of the parser lists as expected (`expected one of …`).
fn expected_names(text: &str) -> Vec<String> {
    let e = parses(text).expect_err("an unknown name is refused");
    let known = e
        .split_once("expected one of")
        .unwrap_or_else(|| panic!("a list in {e}"))
        .1;
    let mut names: Vec<String> = known
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    names.sort();
    names
}

fn property_names(v: &Value) -> Vec<String> {
    let mut names: Vec<String> = v["properties"]
        .as_object()
        .unwrap_or_else(|| panic!("properties in {v}"))
        .keys()
        .cloned()
        .collect();
    names.sort();
    names
}

fn sorted(names: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = names.iter().map(|n| (*n).to_string()).collect();
    v.sort();
    v
}

#[test]
fn every_key_the_parser_takes_is_in_the_schema() {
    let s = schema();
    // The parser's own list (a round trip through an unknown key), at the top level and in a
    // profile, so a key the parser takes without the declaration fails here too.
    let top = expected_names("nope = 1");
    let profile = expected_names("[profiles.p]\nnope = 1");
    assert_eq!(top, sorted(NAMES), "the parser takes the declared keys");
    assert_eq!(property_names(&s), top);
    let level = &s["definitions"]["level"];
    let without_profiles: Vec<String> = top.iter().filter(|k| *k != "profiles").cloned().collect();
    assert_eq!(property_names(level), without_profiles);
    assert!(profile.iter().all(|k| top.contains(k)));
    for (table, names) in [("keys", ACTION_NAMES), ("styles", STYLE_NAMES)] {
        let parsed = expected_names(&format!("[{table}]\nnope = \"x\""));
        assert_eq!(parsed, sorted(names), "[{table}]");
        assert_eq!(property_names(&s["properties"][table]), parsed, "[{table}]");
    }
    for key in KEYS {
        let k = &s["properties"][key.name];
        assert_eq!(
            k["description"].as_str().map(|d| d.starts_with(key.about)),
            Some(true),
            "{}",
            key.name
        );
        assert!(
            k.get("type").is_some() || k.get("anyOf").is_some(),
            "{} (kind {:?}) has a type in the schema: {k}",
            key.name,
            key.kind
        );
    }
    // Unknown keys are refused where the parser refuses them.
    for place in [
        &s,
        level,
        &s["properties"]["keys"],
        &s["properties"]["styles"],
    ] {
        assert_eq!(place["additionalProperties"], false, "{place}");
    }
}

#[test]
fn each_enum_is_what_the_parser_accepts() {
    let s = schema();
    let mut enums = 0;
    for key in KEYS {
        let k = &s["properties"][key.name];
        let listed: Vec<&str> = k["enum"]
            .as_array()
            .map(|a| a.iter().map(|v| v.as_str().unwrap()).collect())
            .unwrap_or_default();
        assert_eq!(listed, key.values, "{}", key.name);
        for v in &listed {
            let line = format!("{} = \"{v}\"", key.name);
            assert_eq!(parses(&line), Ok(()), "{line}");
            assert_eq!(valid(&line), Ok(()), "{line}");
            enums += 1;
        }
        if !listed.is_empty() {
            let line = format!("{} = \"none-of-these\"", key.name);
            assert!(parses(&line).is_err(), "{line}");
            assert!(valid(&line).is_err(), "{line}");
        }
    }
    assert!(enums >= 10, "theme, notify, image_preview at least");
}

/// The README's example config, `#:schema` line included: the parser reads it, and it
/// validates.
#[test]
fn the_readmes_example_validates() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let block = readme
        .split("```toml\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("a toml block in README.md");
    assert!(block.starts_with("#:schema "), "{block}");
    assert_eq!(parses(block), Ok(()));
    assert_eq!(valid(block), Ok(()));
}

/// What the parser refuses, the schema refuses; what it takes, the schema takes.
#[test]
fn wrong_types_and_unknown_keys_do_not_validate() {
    for bad in [
        "bell = \"yes\"",
        "colour = 1",
        "poll_interval = \"fast\"",
        "poll_interval = 0.1",
        "max_concurrent_polls = 0",
        "failure_statuses = \"FAILED\"",
        "[keys]\nnot_an_action = \"x\"",
        "[keys]\nopen = []",
        "[styles]\nnot_a_style = \"red\"",
        "[profiles.a]\ncolour = 1",
        "[profiles.a.profiles.b]\nbell = true",
    ] {
        assert!(parses(bad).is_err(), "the parser refuses {bad}");
        assert!(valid(bad).is_err(), "the schema refuses {bad}");
    }
    for good in [
        "bell = false\npoll_interval = 1",
        "token_command = \"pass show gen\"",
        "token_command = [\"pass\", \"show\", \"gen\"]",
        "[keys]\nopen = [\"enter\", \"o\"]\nquit = \"x\"",
        "[profiles.staging]\nbase_url = \"http://127.0.0.1:8000\"\ntheme = \"light\"",
        "sidecar = true",
    ] {
        let good = good.replace("quit = \"x\"", "filter = \"x\"");
        assert_eq!(parses(&good), Ok(()), "{good}");
        assert_eq!(valid(&good), Ok(()), "{good}");
    }
}

/// Each default the schema gives is one the parser takes.
#[test]
fn the_defaults_are_valid_values() {
    let s = schema();
    let mut table = toml::Table::new();
    for (name, k) in s["properties"].as_object().unwrap() {
        if let Some(d) = k.get("default") {
            table.insert(name.clone(), toml::Value::try_from(d).unwrap());
        }
    }
    assert!(table.len() >= 15, "{table:?}");
    let text = toml::to_string(&table).unwrap();
    assert_eq!(parses(&text), Ok(()), "{text}");
    assert_eq!(valid(&text), Ok(()), "{text}");
}

/// `gendash config schema` prints it.
#[test]
fn the_command_prints_the_schema() {
    let home = tempfile::tempdir().unwrap();
    let out = common::gendash_ok(home.path(), &["config", "schema"]);
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed, schema());
    assert_eq!(printed["$schema"], config::JSON_SCHEMA_DIALECT);
}
