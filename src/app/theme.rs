//! Colours and emphasis, in one place: a palette (`theme`) with `[styles]` on top. With
//! `NO_COLOR` set only bold, dim, italic, underline and reverse remain, whatever was configured.
//! A base16 scheme (`theme_file`) replaces the palette (`scheme`).

use crate::api::TaskState;
use crate::app::watch::Phase;
use crate::store::config::{Base16, Base16Colours, STYLE_NAMES, ThemeName};
use ratatui::style::{Color, Modifier, Style};
use std::collections::BTreeMap;

mod scheme;
pub use scheme::{MIN_RATIO, Readable, ratio};

/// The named styles, in `STYLE_NAMES`' order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Name {
    Border,
    BorderInactive,
    Title,
    Dim,
    Selected,
    Match,
    Error,
    Stalled,
    Link,
    Ok,
    Key,
    Running,
    Completed,
    Failed,
    Erroring,
}

const COUNT: usize = 15;

#[cfg(test)]
const ALL: [Name; COUNT] = [
    Name::Border,
    Name::BorderInactive,
    Name::Title,
    Name::Dim,
    Name::Selected,
    Name::Match,
    Name::Error,
    Name::Stalled,
    Name::Link,
    Name::Ok,
    Name::Key,
    Name::Running,
    Name::Completed,
    Name::Failed,
    Name::Erroring,
];

const fn fg(c: Color) -> Style {
    Style::new().fg(c)
}

const BOLD: Modifier = Modifier::BOLD;

/// A palette, one style per name in `ALL`'s order.
fn palette(theme: Option<ThemeName>) -> [Style; COUNT] {
    let plain = Style::new();
    match theme {
        // Every text colour reads at 4.5:1 or more (WCAG) on black and on the selected row's
        // blue, whose darkness leaves room for red and magenta: xterm's plain red, magenta and
        // blue, and its dark grey on that blue, do not (`tests/it/views/contrast.rs` measures it).
        Some(ThemeName::Dark | ThemeName::Auto) => [
            fg(Color::Cyan).add_modifier(BOLD),
            fg(Color::DarkGray),
            plain.add_modifier(BOLD),
            fg(Color::Indexed(247)),
            plain.bg(Color::Rgb(30, 45, 70)).add_modifier(BOLD),
            fg(Color::Yellow).add_modifier(BOLD | Modifier::UNDERLINED),
            fg(Color::Indexed(203)).add_modifier(BOLD),
            fg(Color::Indexed(209)).add_modifier(Modifier::ITALIC),
            fg(Color::Indexed(111)).add_modifier(Modifier::UNDERLINED),
            fg(Color::Green),
            fg(Color::Cyan).add_modifier(BOLD),
            fg(Color::Yellow),
            fg(Color::Green).add_modifier(BOLD),
            fg(Color::Indexed(203)).add_modifier(BOLD),
            fg(Color::Indexed(207)).add_modifier(BOLD),
        ],
        // Dark ink for a pale background: no yellow or cyan text, which vanish on white; each
        // colour dark enough for 4.5:1 on the selected row's pale blue too.
        Some(ThemeName::Light) => [
            fg(Color::Blue).add_modifier(BOLD),
            fg(Color::Rgb(110, 110, 110)),
            plain.add_modifier(BOLD),
            fg(Color::Rgb(90, 90, 90)),
            plain.bg(Color::Rgb(200, 220, 245)).add_modifier(BOLD),
            fg(Color::Rgb(170, 0, 130)).add_modifier(BOLD | Modifier::UNDERLINED),
            fg(Color::Rgb(190, 0, 0)).add_modifier(BOLD),
            fg(Color::Rgb(160, 60, 0)).add_modifier(Modifier::ITALIC),
            fg(Color::Blue).add_modifier(Modifier::UNDERLINED),
            fg(Color::Rgb(0, 105, 0)),
            fg(Color::Blue).add_modifier(BOLD),
            fg(Color::Rgb(130, 80, 0)),
            fg(Color::Rgb(0, 105, 0)).add_modifier(BOLD),
            fg(Color::Rgb(190, 0, 0)).add_modifier(BOLD),
            fg(Color::Rgb(140, 0, 160)).add_modifier(BOLD),
        ],
        // Bright colours, bold everywhere it matters, nothing grey. The selected row is
        // reversed: every bright colour on it becomes black on that colour, where a white bar
        // would put yellow text on white.
        Some(ThemeName::HighContrast) => [
            fg(Color::White).add_modifier(BOLD),
            fg(Color::Gray),
            plain.add_modifier(BOLD | Modifier::UNDERLINED),
            fg(Color::Gray),
            plain.add_modifier(BOLD | Modifier::REVERSED),
            fg(Color::Black).bg(Color::Yellow).add_modifier(BOLD),
            fg(Color::LightRed).add_modifier(BOLD),
            fg(Color::LightRed).add_modifier(BOLD | Modifier::ITALIC),
            fg(Color::LightCyan).add_modifier(Modifier::UNDERLINED),
            fg(Color::LightGreen).add_modifier(BOLD),
            fg(Color::LightYellow).add_modifier(BOLD),
            fg(Color::LightYellow).add_modifier(BOLD),
            fg(Color::LightGreen).add_modifier(BOLD),
            fg(Color::LightRed).add_modifier(BOLD),
            fg(Color::LightMagenta).add_modifier(BOLD),
        ],
        // `NO_COLOR`: emphasis only.
        None => [
            plain.add_modifier(BOLD),
            plain,
            plain.add_modifier(BOLD),
            plain.add_modifier(Modifier::DIM),
            plain.add_modifier(Modifier::REVERSED),
            plain.add_modifier(BOLD | Modifier::UNDERLINED),
            plain.add_modifier(BOLD),
            plain.add_modifier(Modifier::ITALIC),
            plain.add_modifier(Modifier::UNDERLINED),
            plain,
            plain.add_modifier(BOLD),
            plain,
            plain.add_modifier(BOLD),
            plain.add_modifier(BOLD),
            plain.add_modifier(BOLD),
        ],
    }
}

/// The palette of `scheme`, one style per name in `ALL`'s order.
fn scheme_palette(scheme: &Base16Colours) -> [Style; COUNT] {
    let r = Readable::of(scheme);
    let c = |i: usize| {
        let (red, green, blue) = r.colours[i];
        Color::Rgb(red, green, blue)
    };
    let rgb = |(red, green, blue): (u8, u8, u8)| Color::Rgb(red, green, blue);
    [
        fg(c(0x0D)).add_modifier(BOLD),
        fg(c(0x03)),
        Style::new().add_modifier(BOLD),
        fg(c(0x04)),
        fg(rgb(r.text)).bg(rgb(r.selection)).add_modifier(BOLD),
        fg(c(0x0A)).add_modifier(BOLD | Modifier::UNDERLINED),
        fg(c(0x08)).add_modifier(BOLD),
        fg(c(0x09)).add_modifier(Modifier::ITALIC),
        fg(c(0x0D)).add_modifier(Modifier::UNDERLINED),
        fg(c(0x0B)),
        fg(c(0x0C)).add_modifier(BOLD),
        fg(c(0x0A)),
        fg(c(0x0B)).add_modifier(BOLD),
        fg(c(0x08)).add_modifier(BOLD),
        fg(c(0x0E)).add_modifier(BOLD),
    ]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    styles: [Style; COUNT],
    /// `theme = "auto"`, still dark: the light palette is taken when the terminal says its
    /// background is light, but not in the slots `[styles]` set (bit `1 << slot`).
    auto: Option<u16>,
    /// The terminal said its background is light (whatever the theme did with it).
    told_light: bool,
}

impl Default for Theme {
    fn default() -> Self {
        Theme::new(ThemeName::Dark, &BTreeMap::new(), false)
    }
}

impl Theme {
    /// The palette `name` with `styles` (by `STYLE_NAMES`) replacing its own; with
    /// `no_color` the emphasis-only palette, configured styles ignored.
    /// `auto` is the dark palette until [`Theme::follow_background`] is told of a light one.
    pub fn new(name: ThemeName, styles: &BTreeMap<String, Style>, no_color: bool) -> Theme {
        Theme::configured(name, None, styles, no_color)
    }

    /// As [`Theme::new`], with `theme_file`'s scheme, when set, as the palette in place of
    /// `name`'s (and no following of the background: the scheme is what the user chose).
    pub fn configured(
        name: ThemeName,
        scheme: Option<&Base16>,
        styles: &BTreeMap<String, Style>,
        no_color: bool,
    ) -> Theme {
        if no_color {
            return Theme {
                styles: palette(None),
                auto: None,
                told_light: false,
            };
        }
        let mut out = match scheme {
            Some(scheme) => scheme_palette(&scheme.colours),
            None => palette(Some(name)),
        };
        let mut configured = 0u16;
        for (key, style) in styles {
            if let Some(i) = STYLE_NAMES.iter().position(|n| n == key) {
                out[i] = *style;
                configured |= 1 << i;
            }
        }
        Theme {
            styles: out,
            auto: (name == ThemeName::Auto && scheme.is_none()).then_some(configured),
            told_light: false,
        }
    }

    /// The terminal told its background (`light` or not): an `auto` theme takes the light
    /// palette on a light one; any other theme stays as it is. Whether anything changed.
    pub fn follow_background(&mut self, light: bool) -> bool {
        self.told_light |= light;
        match self.auto.take() {
            Some(configured) if light => {
                let light = palette(Some(ThemeName::Light));
                for (i, slot) in self.styles.iter_mut().enumerate() {
                    if configured & (1 << i) == 0 {
                        *slot = light[i];
                    }
                }
                true
            }
            _ => false,
        }
    }

    /// Whether the terminal said its background is light.
    pub fn told_light(&self) -> bool {
        self.told_light
    }

    fn get(&self, name: Name) -> Style {
        self.styles[name as usize]
    }

    pub fn border(&self, focused: bool) -> Style {
        self.get(if focused {
            Name::Border
        } else {
            Name::BorderInactive
        })
    }
    pub fn title(&self) -> Style {
        self.get(Name::Title)
    }
    pub fn dim(&self) -> Style {
        self.get(Name::Dim)
    }
    pub fn selected(&self) -> Style {
        self.get(Name::Selected)
    }
    pub fn matched(&self) -> Style {
        self.get(Name::Match)
    }
    pub fn error(&self) -> Style {
        self.get(Name::Error)
    }
    /// A running task whose percent has not moved for a while.
    pub fn stalled(&self) -> Style {
        self.get(Name::Stalled)
    }
    /// A link (OSC 8 where the terminal supports it).
    pub fn link(&self) -> Style {
        self.get(Name::Link)
    }
    pub fn ok(&self) -> Style {
        self.get(Name::Ok)
    }
    pub fn key(&self) -> Style {
        self.get(Name::Key)
    }
    /// How a task in `phase` is drawn; a task whose polls fail stands out, whatever was known
    /// of it before.
    pub fn phase(&self, phase: Phase, erroring: bool) -> Style {
        if erroring {
            return self.state(TaskState::Running, true);
        }
        match phase {
            Phase::NotFound | Phase::NoService => self.error(),
            Phase::Stalled => self.stalled(),
            Phase::NotPolled => self.dim(),
            Phase::Running => self.state(TaskState::Running, false),
            Phase::Completed => self.state(TaskState::Completed, false),
            Phase::Failed => self.state(TaskState::Failed, false),
        }
    }

    pub fn state(&self, s: TaskState, erroring: bool) -> Style {
        if erroring {
            return self.get(Name::Erroring);
        }
        self.get(match s {
            TaskState::Running => Name::Running,
            TaskState::Completed => Name::Completed,
            TaskState::Failed => Name::Failed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_style_name_has_a_slot_in_its_order() {
        assert_eq!(STYLE_NAMES.len(), COUNT);
        for (i, name) in ALL.iter().enumerate() {
            assert_eq!(*name as usize, i);
            let snake: String = format!("{name:?}")
                .chars()
                .enumerate()
                .flat_map(|(j, c)| {
                    let sep = (j > 0 && c.is_uppercase()).then_some('_');
                    sep.into_iter().chain(c.to_lowercase())
                })
                .collect();
            assert_eq!(STYLE_NAMES[i], snake);
        }
    }

    #[test]
    fn configured_styles_replace_the_palettes_and_no_color_wins() {
        let mut styles = BTreeMap::new();
        styles.insert("selected".to_string(), fg(Color::Indexed(208)));
        styles.insert("failed".to_string(), fg(Color::Rgb(1, 2, 3)));
        let t = Theme::new(ThemeName::Light, &styles, false);
        assert_eq!(t.selected(), fg(Color::Indexed(208)));
        assert_eq!(t.state(TaskState::Failed, false), fg(Color::Rgb(1, 2, 3)));
        assert_eq!(t.key(), fg(Color::Blue).add_modifier(BOLD));
        let mono = Theme::new(ThemeName::HighContrast, &styles, true);
        for name in ALL {
            let s = mono.get(name);
            assert_eq!((s.fg, s.bg), (None, None), "{name:?} has a colour");
        }
        assert_eq!(
            mono.selected(),
            Style::new().add_modifier(Modifier::REVERSED)
        );
        // The three palettes differ where it shows.
        let dark = Theme::default();
        let light = Theme::new(ThemeName::Light, &BTreeMap::new(), false);
        let high = Theme::new(ThemeName::HighContrast, &BTreeMap::new(), false);
        assert_ne!(dark.selected(), light.selected());
        assert_ne!(dark.matched(), high.matched());
    }

    #[test]
    fn auto_is_dark_until_a_light_background_is_told_and_explicit_themes_stay() {
        let mut styles = BTreeMap::new();
        styles.insert("failed".to_string(), fg(Color::Rgb(1, 2, 3)));
        let dark = Theme::new(ThemeName::Dark, &styles, false);
        let light = Theme::new(ThemeName::Light, &styles, false);
        let mut auto = Theme::new(ThemeName::Auto, &styles, false);
        assert_eq!(auto.styles, dark.styles);
        assert!(!auto.follow_background(false));
        assert_eq!(auto.styles, dark.styles);
        let mut auto = Theme::new(ThemeName::Auto, &styles, false);
        assert!(auto.follow_background(true));
        assert_eq!(
            auto.styles, light.styles,
            "[styles] kept on the light palette"
        );
        let mut explicit = dark;
        assert!(!explicit.follow_background(true));
        let mut mono = Theme::new(ThemeName::Auto, &styles, true);
        assert!(!mono.follow_background(true), "NO_COLOR wins");
    }

    #[test]
    fn a_scheme_is_the_palette_under_styles_and_no_color() {
        let scheme = Base16 {
            path: "default-dark.yaml".into(),
            name: "Default Dark".into(),
            colours: scheme::tests::DEFAULT_DARK,
        };
        let plain = BTreeMap::new();
        let t = Theme::configured(ThemeName::Light, Some(&scheme), &plain, false);
        assert_eq!(t.link().fg, Some(Color::Rgb(0x7c, 0xaf, 0xc2)), "base0D");
        assert_eq!(
            t.selected().bg,
            Some(Color::Rgb(0x38, 0x38, 0x38)),
            "base02"
        );
        // Not switched to the light palette by the terminal: the scheme is the user's choice.
        let mut auto = Theme::configured(ThemeName::Auto, Some(&scheme), &plain, false);
        assert!(!auto.follow_background(true));
        let mut styles = BTreeMap::new();
        styles.insert("link".to_string(), fg(Color::Indexed(208)));
        let t = Theme::configured(ThemeName::Dark, Some(&scheme), &styles, false);
        assert_eq!(t.link(), fg(Color::Indexed(208)), "[styles] wins");
        let mono = Theme::configured(ThemeName::Dark, Some(&scheme), &styles, true);
        assert_eq!(
            (mono.link().fg, mono.selected().bg),
            (None, None),
            "NO_COLOR wins"
        );
    }
}
