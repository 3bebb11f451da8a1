//! `gendash config show`: every setting with where it came from (the token only as
//! `<redacted>`); and the manual's key list, both from the declaration in `schema.rs`.

use super::declare::Show;
use super::schema::{KEYS, Settings};

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
