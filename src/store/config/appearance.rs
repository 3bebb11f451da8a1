//! The configuration's `[keys]`, `theme` and `[styles]`: key names, action names and style
//! names are checked while the file is parsed, so a mistake is reported with its line and key.
//! What the names do is the dashboard's business (`app::keymap`, `app::theme`); this is the
//! file's schema.

use crossterm::event::{KeyCode, KeyModifiers};
use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// Declares [`ActionName`] and [`ACTION_NAMES`] from one list: each variant with its name in
/// `[keys]`.
macro_rules! action_names {
    ($($variant:ident => $name:literal,)+) => {
        /// Every action `[keys]` can rebind, by its name in the file. One name may stand for
        /// bindings of several contexts that mean the same (`open` in the browser and in the
        /// watch list). The names are the file's schema, so they live here, below `app`, where
        /// the parser checks them; the keymap (`app::keymap`) binds each to its keys by this
        /// enum, so a misspelt name does not compile.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum ActionName {
            $($variant,)+
        }

        impl ActionName {
            /// Every action, in the order the keymap's table first binds them.
            pub const ALL: &'static [ActionName] = &[$(ActionName::$variant,)+];

            /// Its name in `[keys]`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ActionName::$variant => $name,)+
                }
            }
        }

        /// Every name `[keys]` takes, as [`ActionName::as_str`] says them.
        pub const ACTION_NAMES: &[&str] = &[$($name,)+];
    };
}

#[rustfmt::skip]
action_names! {
    Filter => "filter",
    Type => "type",
    Category => "category",
    Open => "open",
    OpenFile => "open_file",
    CopyUrl => "copy_url",
    CopyName => "copy_name",
    CopyPrompt => "copy_prompt",
    ClearFilter => "clear_filter",
    Reload => "reload",
    Favourite => "favourite",
    FavouritesOnly => "favourites_only",
    Download => "download",
    AutoDownload => "auto_download",
    Yes => "yes",
    No => "no",
    Remove => "remove",
    Undo => "undo",
    Sort => "sort",
    Details => "details",
    PollNow => "poll_now",
    Add => "add",
    SwitchPane => "switch_pane",
    Up => "up",
    Down => "down",
    PageUp => "page_up",
    PageDown => "page_down",
    Top => "top",
    Bottom => "bottom",
    Help => "help",
    Palette => "palette",
    Quit => "quit",
    Interrupt => "interrupt",
    Suspend => "suspend",
    Submit => "submit",
    PickPrevious => "pick_previous",
    PickNext => "pick_next",
    PickPageUp => "pick_page_up",
    PickPageDown => "pick_page_down",
    Backspace => "backspace",
    ClearInput => "clear_input",
    ImageVideo => "image_video",
    Cancel => "cancel",
    CloseHelp => "close_help",
    RequestLog => "request_log",
    CopyCurl => "copy_curl",
    CloseLog => "close_log",
    Mark => "mark",
    RemoveCompleted => "remove_completed",
    Zoom => "zoom",
    Search => "search",
    NextMatch => "next_match",
    PreviousMatch => "previous_match",
    NextUnseen => "next_unseen",
    Label => "label",
    LabelField => "label_field",
    ClearMarks => "clear_marks",
    SortDirection => "sort_direction",
    Archive => "archive",
    CloseArchive => "close_archive",
    WatchAgain => "watch_again",
    ReloadConfig => "reload_config",
    SaveView => "save_view",
    Views => "views",
    View => "view",
    Gallery => "gallery",
    Left => "left",
    Right => "right",
}

impl fmt::Display for ActionName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ActionName {
    type Err = UnknownAction;

    fn from_str(name: &str) -> Result<Self, UnknownAction> {
        ActionName::ALL
            .iter()
            .copied()
            .find(|a| a.as_str() == name)
            .ok_or_else(|| UnknownAction(name.to_string()))
    }
}

/// A name that is not one of [`ACTION_NAMES`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("keys.{0}: no such action")]
pub struct UnknownAction(pub String);

/// Every style `[styles]` can set.
pub const STYLE_NAMES: &[&str] = &[
    "border",
    "border_inactive",
    "title",
    "dim",
    "selected",
    "match",
    "error",
    "stalled",
    "link",
    "ok",
    "key",
    "running",
    "completed",
    "failed",
    "erroring",
];

/// One key with its modifiers, as the file writes it: `x`, `G`, `?`, `enter`, `ctrl-d`,
/// `alt-left`, `f5`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyCombo {
    pub code: KeyCode,
    pub modifiers: KeyModifiers,
}

impl KeyCombo {
    pub const fn new(code: KeyCode, modifiers: KeyModifiers) -> Self {
        KeyCombo { code, modifiers }
    }
}

/// Why a key name in `[keys]` is not one key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyNameError {
    #[error(
        "`{0}` is not a key: write a letter, digit or sign, or enter, esc, tab, backtab, space, \
         backspace, delete, up, down, left, right, home, end, pageup, pagedown or f1–f12, with \
         ctrl-, alt- or shift- before it"
    )]
    Unknown(String),
    #[error("`{0}` is several keys at once; bind one key (with ctrl-, alt- or shift-)")]
    Several(String),
}

impl FromStr for KeyCombo {
    type Err = KeyNameError;

    fn from_str(text: &str) -> Result<Self, KeyNameError> {
        let unknown = || KeyNameError::Unknown(text.to_string());
        let mut chars = text.chars();
        // One character stands for itself, in its case: `G` is shift-g (the parser below
        // would lower it).
        if let (Some(c), None) = (chars.next(), chars.next()) {
            if c.is_control() || c.is_whitespace() {
                return Err(unknown());
            }
            let modifiers = if c.is_uppercase() {
                KeyModifiers::SHIFT
            } else {
                KeyModifiers::NONE
            };
            return Ok(KeyCombo::new(KeyCode::Char(c), modifiers));
        }
        let combo = crokey::parse(text).map_err(|_| unknown())?;
        let crokey::OneToThree::One(code) = combo.codes else {
            return Err(KeyNameError::Several(text.to_string()));
        };
        if combo.modifiers.contains(KeyModifiers::SUPER) || matches!(code, KeyCode::F(n) if n > 12)
        {
            return Err(unknown());
        }
        Ok(KeyCombo::new(code, combo.modifiers))
    }
}

impl fmt::Display for KeyCombo {
    /// The name the file would use for it, so `gendash keys` can be pasted back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.modifiers;
        if m.contains(KeyModifiers::CONTROL) {
            f.write_str("ctrl-")?;
        }
        if m.contains(KeyModifiers::ALT) {
            f.write_str("alt-")?;
        }
        let shift_shown = matches!(self.code, KeyCode::Char(_) | KeyCode::BackTab);
        if m.contains(KeyModifiers::SHIFT) && !shift_shown {
            f.write_str("shift-")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::F(n) => write!(f, "f{n}"),
            code => f.write_str(match code {
                KeyCode::Enter => "enter",
                KeyCode::Esc => "esc",
                KeyCode::Tab => "tab",
                KeyCode::BackTab => "backtab",
                KeyCode::Backspace => "backspace",
                KeyCode::Delete => "delete",
                KeyCode::Insert => "insert",
                KeyCode::Up => "up",
                KeyCode::Down => "down",
                KeyCode::Left => "left",
                KeyCode::Right => "right",
                KeyCode::Home => "home",
                KeyCode::End => "end",
                KeyCode::PageUp => "pageup",
                KeyCode::PageDown => "pagedown",
                _ => "?",
            }),
        }
    }
}

/// The keys of one `[keys]` entry: one name or a list of them, at least one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyList(pub Vec<KeyCombo>);

impl<'de> Deserialize<'de> for KeyList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = KeyList;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key name or a list of key names")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<KeyList, E> {
                v.parse().map(|k| KeyList(vec![k])).map_err(E::custom)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<KeyList, A::Error> {
                let mut keys = Vec::new();
                while let Some(name) = seq.next_element::<String>()? {
                    let key: KeyCombo = name.parse().map_err(de::Error::custom)?;
                    if !keys.contains(&key) {
                        keys.push(key);
                    }
                }
                if keys.is_empty() {
                    return Err(de::Error::custom(
                        "an empty list would leave the action without a key",
                    ));
                }
                Ok(KeyList(keys))
            }
        }
        d.deserialize_any(V)
    }
}

/// A key that must be one of the names.
struct Name(&'static [&'static str]);

impl<'de> de::DeserializeSeed<'de> for Name {
    type Value = String;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        let key = String::deserialize(d)?;
        if self.0.contains(&key.as_str()) {
            Ok(key)
        } else {
            Err(de::Error::unknown_field(&key, self.0))
        }
    }
}

/// A table whose keys must be among `names`; anything else is an error naming the key.
fn named_table<'de, D, T>(
    d: D,
    names: &'static [&'static str],
    what: &'static str,
) -> Result<BTreeMap<String, T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct V<T> {
        names: &'static [&'static str],
        what: &'static str,
        value: std::marker::PhantomData<T>,
    }
    impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
        type Value = BTreeMap<String, T>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "a table of {}", self.what)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            // Checked as the key is read, so the error points at the key's line.
            while let Some(key) = map.next_key_seed(Name(self.names))? {
                let value = map.next_value()?;
                out.insert(key, value);
            }
            Ok(out)
        }
    }
    d.deserialize_map(V {
        names,
        what,
        value: std::marker::PhantomData,
    })
}

/// `[keys]`: action name → its keys, replacing the built-in ones.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KeysTable(pub BTreeMap<String, KeyList>);

impl<'de> Deserialize<'de> for KeysTable {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        named_table(d, ACTION_NAMES, "actions and their keys").map(KeysTable)
    }
}

/// `[styles]`: style name → its style, replacing the theme's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StylesTable(pub BTreeMap<String, StyleSpec>);

impl<'de> Deserialize<'de> for StylesTable {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        named_table(d, STYLE_NAMES, "styles").map(StylesTable)
    }
}

/// The built-in palettes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThemeName {
    /// Dark, or light once the terminal says its background is light.
    #[default]
    Auto,
    Dark,
    Light,
    HighContrast,
}

impl ThemeName {
    /// The names the file takes, as [`ThemeName::name`] says them.
    pub const NAMES: [&'static str; 4] = ["auto", "dark", "light", "high-contrast"];

    pub fn name(self) -> &'static str {
        match self {
            ThemeName::Auto => "auto",
            ThemeName::Dark => "dark",
            ThemeName::Light => "light",
            ThemeName::HighContrast => "high-contrast",
        }
    }
}

/// One style as the file writes it: words separated by spaces, a colour for the text,
/// `on <colour>` for the background, and `bold`, `italic`, `underline`, `dim`, `reversed`.
/// A colour is a name (`yellow`, `lightblue`, `darkgray`), `#rrggbb` or a 256-colour index.
/// `"yellow bold"`, `"on #28405a bold"`, `"208 underline"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StyleSpec(pub Style);

/// Why a `[styles]` value is not a style.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StyleError {
    #[error(
        "`{0}` is not a colour or an emphasis: use a colour name (red, lightblue, darkgray…), \
         #rrggbb, a number 0–255, `on <colour>` for the background, or bold, italic, \
         underline, dim, reversed"
    )]
    NotAColour(String),
    #[error("`{0}`: `on` needs a colour after it")]
    OnWithoutColour(String),
    #[error("`{0}` names two text colours; write `on <colour>` for the background")]
    TwoColours(String),
    #[error("`{0}` sets nothing: give a colour, `on <colour>` or an emphasis")]
    Nothing(String),
}

impl FromStr for StyleSpec {
    type Err = StyleError;

    fn from_str(text: &str) -> Result<Self, StyleError> {
        let colour = |word: &str| {
            Color::from_str(word).map_err(|_| StyleError::NotAColour(word.to_string()))
        };
        let mut style = Style::new();
        let mut words = text.split_whitespace();
        let mut fg_set = false;
        while let Some(word) = words.next() {
            let lower = word.to_ascii_lowercase();
            let modifier = match lower.as_str() {
                "bold" => Some(Modifier::BOLD),
                "italic" => Some(Modifier::ITALIC),
                "underline" | "underlined" => Some(Modifier::UNDERLINED),
                "dim" => Some(Modifier::DIM),
                "reversed" | "reverse" => Some(Modifier::REVERSED),
                _ => None,
            };
            if let Some(m) = modifier {
                style = style.add_modifier(m);
            } else if lower == "on" {
                let bg = words
                    .next()
                    .ok_or_else(|| StyleError::OnWithoutColour(text.to_string()))?;
                style = style.bg(colour(bg)?);
            } else if fg_set {
                return Err(StyleError::TwoColours(text.to_string()));
            } else {
                style = style.fg(colour(word)?);
                fg_set = true;
            }
        }
        if style == Style::new() {
            return Err(StyleError::Nothing(text.to_string()));
        }
        Ok(StyleSpec(style))
    }
}

impl<'de> Deserialize<'de> for StyleSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(text: &str) -> Result<KeyCombo, KeyNameError> {
        text.parse()
    }

    #[test]
    fn key_names_parse_as_the_issue_lists_them() {
        use KeyCode::{BackTab, Backspace, Char, Delete, Down, End, Enter, Esc, F, Home};
        use KeyCode::{Left, PageDown, PageUp, Right, Tab, Up};
        let none = KeyModifiers::NONE;
        for (text, code) in [
            ("x", Char('x')),
            ("7", Char('7')),
            ("?", Char('?')),
            ("enter", Enter),
            ("esc", Esc),
            ("tab", Tab),
            ("space", Char(' ')),
            ("backspace", Backspace),
            ("delete", Delete),
            ("up", Up),
            ("down", Down),
            ("left", Left),
            ("right", Right),
            ("home", Home),
            ("end", End),
            ("pageup", PageUp),
            ("pagedown", PageDown),
            ("f1", F(1)),
            ("F12", F(12)),
            ("Enter", Enter),
        ] {
            assert_eq!(key(text), Ok(KeyCombo::new(code, none)), "{text}");
        }
        assert_eq!(
            key("backtab"),
            Ok(KeyCombo::new(BackTab, KeyModifiers::SHIFT))
        );
        assert_eq!(key("G"), Ok(KeyCombo::new(Char('G'), KeyModifiers::SHIFT)));
        assert_eq!(
            key("ctrl-d"),
            Ok(KeyCombo::new(Char('d'), KeyModifiers::CONTROL))
        );
        assert_eq!(
            key("alt-shift-left"),
            Ok(KeyCombo::new(Left, KeyModifiers::ALT | KeyModifiers::SHIFT))
        );
        for bad in ["", "enterr", "ctrl-", "f13", "a-b", "cmd-x", " "] {
            let e = key(bad).expect_err(bad).to_string();
            assert!(e.contains(&format!("`{bad}`")), "{e}");
        }
    }

    #[test]
    fn key_names_print_as_the_file_writes_them() {
        for text in [
            "x", "G", "?", "enter", "ctrl-d", "alt-left", "shift-up", "f5", "space", "backtab",
            "pagedown",
        ] {
            assert_eq!(key(text).map(|k| k.to_string()), Ok(text.to_string()));
        }
    }

    #[test]
    fn styles_parse_colours_backgrounds_and_emphasis() {
        let s = |t: &str| t.parse::<StyleSpec>().map(|s| s.0);
        assert_eq!(
            s("yellow bold"),
            Ok(Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD))
        );
        assert_eq!(
            s("on #28405a italic underline"),
            Ok(Style::new()
                .bg(Color::Rgb(0x28, 0x40, 0x5a))
                .add_modifier(Modifier::ITALIC | Modifier::UNDERLINED))
        );
        assert_eq!(s("208"), Ok(Style::new().fg(Color::Indexed(208))));
        assert_eq!(s("LightBlue"), Ok(Style::new().fg(Color::LightBlue)));
        for (bad, says) in [
            ("purplish", "`purplish` is not a colour"),
            ("red blue", "two text colours"),
            ("bold on", "needs a colour"),
            ("", "sets nothing"),
            ("#12345g", "not a colour"),
        ] {
            let e = s(bad).expect_err(bad).to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }
}
