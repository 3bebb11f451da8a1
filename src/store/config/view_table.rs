//! `[views.NAME]`: a pane's filter (the filter language, `sort:` terms included) and, for the
//! browser, its type and category, under a name and maybe a key. The pane, the type and the
//! name are checked here, as the file is parsed, so their errors name the line; the filter and
//! the key are checked where the filter language and the keymap live (`app::views`), naming
//! the line through `Settings::views_lines`. The saved views of the data directory
//! (`store::views_file`) are the same [`ViewSpec`] without a key.

use super::appearance::{KeyCombo, KeyList};
use crate::api::LoraType;
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;

/// The longest view name, in characters: it stands in a pane's title.
pub const MAX_VIEW_NAME: usize = 32;

/// The pane a view is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ViewPane {
    Browser,
    Watch,
    Archive,
}

impl ViewPane {
    pub const ALL: [ViewPane; 3] = [ViewPane::Browser, ViewPane::Watch, ViewPane::Archive];
    pub const NAMES: [&'static str; 3] = ["browser", "watch", "archive"];

    pub fn name(self) -> &'static str {
        Self::NAMES[self.index()]
    }

    /// Its place in [`ViewPane::ALL`].
    pub fn index(self) -> usize {
        match self {
            ViewPane::Browser => 0,
            ViewPane::Watch => 1,
            ViewPane::Archive => 2,
        }
    }
}

/// What a view sets: the pane's filter (its `sort:` term sets the pane's sort) and, for the
/// browser, the type (`None`: every type) and the category (empty: every one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewSpec {
    pub pane: ViewPane,
    #[serde(default)]
    pub filter: String,
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub lora_type: Option<LoraType>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub category: String,
}

/// A view of the config: what it sets, and the keys that apply it (none: the list only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfiguredView {
    pub spec: ViewSpec,
    pub keys: Vec<KeyCombo>,
}

/// Why a view name is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ViewNameError {
    #[error("a view needs a name")]
    Empty,
    #[error("a view name is at most {MAX_VIEW_NAME} characters")]
    TooLong,
    #[error("a view name is letters, digits, spaces and - _ . only")]
    Characters,
}

/// A name as it stands in a title: trimmed, at most [`MAX_VIEW_NAME`] characters, letters,
/// digits, spaces and `-_.` (nothing a terminal would obey, nothing that needs quoting in the
/// config's `[views.NAME]` beyond what TOML quotes anyway).
pub fn check_view_name(name: &str) -> Result<String, ViewNameError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(ViewNameError::Empty);
    }
    if name.chars().count() > MAX_VIEW_NAME {
        return Err(ViewNameError::TooLong);
    }
    if !name
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.'))
    {
        return Err(ViewNameError::Characters);
    }
    Ok(name.to_string())
}

/// One `[views.NAME]` table as the file writes it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    pane: ViewPane,
    #[serde(default)]
    filter: String,
    #[serde(default, rename = "type")]
    lora_type: Option<String>,
    #[serde(default)]
    category: Option<String>,
    #[serde(default)]
    key: Option<KeyList>,
}

/// `[views]`: name → view.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ViewsTable(pub BTreeMap<String, ConfiguredView>);

impl<'de> Deserialize<'de> for ViewsTable {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let raw = BTreeMap::<String, Entry>::deserialize(d)?;
        let mut views = BTreeMap::new();
        for (name, e) in raw {
            let checked = check_view_name(&name)
                .map_err(|why| D::Error::custom(format!("views.{name}: {why}")))?;
            let browser_only = |key: &str| {
                D::Error::custom(format!(
                    "views.{name}.{key}: only a browser view has a {key} (pane is {})",
                    e.pane.name()
                ))
            };
            let lora_type = match e.lora_type.as_deref().map(str::trim) {
                None | Some("all" | "") => None,
                Some(_) if e.pane != ViewPane::Browser => return Err(browser_only("type")),
                Some("sd") => Some(LoraType::Sd),
                Some("sdxl") => Some(LoraType::Sdxl),
                Some(other) => {
                    return Err(D::Error::custom(format!(
                        "views.{name}.type: `{other}` is not one of \"sd\", \"sdxl\", \"all\""
                    )));
                }
            };
            let category = e.category.unwrap_or_default().trim().to_string();
            if !category.is_empty() && e.pane != ViewPane::Browser {
                return Err(browser_only("category"));
            }
            let spec = ViewSpec {
                pane: e.pane,
                filter: crate::api::sanitize::sanitize_with_limit(e.filter.trim(), 1000),
                lora_type,
                category: crate::api::sanitize::sanitize_with_limit(&category, 100),
            };
            let keys = e.key.map(|k| k.0).unwrap_or_default();
            views.insert(checked, ConfiguredView { spec, keys });
        }
        Ok(ViewsTable(views))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_short_plain_words() {
        assert_eq!(
            check_view_name("  failed today "),
            Ok("failed today".into())
        );
        assert_eq!(check_view_name(" "), Err(ViewNameError::Empty));
        assert_eq!(
            check_view_name(&"x".repeat(33)),
            Err(ViewNameError::TooLong)
        );
        assert_eq!(
            check_view_name("a\u{1b}[2J"),
            Err(ViewNameError::Characters)
        );
    }
}
