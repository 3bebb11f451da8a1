//! A base16 scheme's (`theme_file`) colours made readable; `scheme_palette` (in `theme`) maps
//! them onto the named styles by base16's styling guide: base08
//! red for errors and failures, base0B green for what went well, base0D blue for borders and
//! links, base0A yellow for matches and running tasks, base09 orange for stalls, base0C cyan
//! for keys, base0E magenta for polls that fail, base03/base04 for what is dim, base02 the
//! selection's background, base05 the text, base00 the background (the terminal's, when it
//! uses the same scheme).
//!
//! Readability is not left to the scheme: every colour is made to read at 4.5:1 (WCAG) on
//! base00 and on the selection's background. The rule: base05 is moved towards white on a
//! dark base00 (black on a light one) until it reads on base00; the selection's background is
//! moved from base02 towards base00 until base05 and that extreme read on it; then each role's
//! colour is moved towards the extreme, in steps of 5 %, until it reads on both. A colour that
//! already reads is used as the scheme gives it. White (or black) reads at 4.5:1 or more on
//! any background at least one of them suits, so the steps always end.

use crate::store::config::Base16Colours;

type Rgb = (u8, u8, u8);

/// The contrast every pair drawn reaches.
pub const MIN_RATIO: f64 = 4.5;

/// WCAG 2 relative luminance.
fn luminance((r, g, b): Rgb) -> f64 {
    let lin = |v: u8| {
        let s = f64::from(v) / 255.0;
        if s <= 0.039_28 {
            s / 12.92
        } else {
            ((s + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

/// WCAG 2 contrast ratio of two colours.
pub fn ratio(a: Rgb, b: Rgb) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// `from` moved `step` twentieths of the way to `to`.
fn mix(from: Rgb, to: Rgb, step: u8) -> Rgb {
    let at = |a: u8, b: u8| {
        let (a, b) = (i32::from(a), i32::from(b));
        u8::try_from(a + (b - a) * i32::from(step) / 20).unwrap_or(u8::MAX)
    };
    (at(from.0, to.0), at(from.1, to.1), at(from.2, to.2))
}

/// `colour`, moved towards `to` no further than needed for `reads` (the last step is `to`).
fn towards(colour: Rgb, to: Rgb, reads: impl Fn(Rgb) -> bool) -> Rgb {
    (0..=20)
        .map(|step| mix(colour, to, step))
        .find(|&c| reads(c))
        .unwrap_or(to)
}

/// The scheme's colours as the palette uses them, each reading on base00 and the selection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Readable {
    /// base00: what everything is measured on.
    pub background: Rgb,
    /// The selection's background (base02, moved towards base00 when needed).
    pub selection: Rgb,
    /// base05, moved when needed.
    pub text: Rgb,
    /// base00 to base0F, base05 as `text`, each text colour reading on both backgrounds.
    pub colours: [Rgb; 16],
}

impl Readable {
    pub fn of(scheme: &Base16Colours) -> Readable {
        let background = scheme[0];
        let (white, black) = ((255, 255, 255), (0, 0, 0));
        let extreme = if ratio(white, background) >= ratio(black, background) {
            white
        } else {
            black
        };
        let on = |bg: Rgb| move |c: Rgb| ratio(c, bg) >= MIN_RATIO;
        let text = towards(scheme[5], extreme, on(background));
        let selection = towards(scheme[2], background, |s| on(s)(text) && on(s)(extreme));
        let mut colours = *scheme;
        for c in &mut colours[3..] {
            *c = towards(*c, extreme, |c| on(background)(c) && on(selection)(c));
        }
        colours[5] = text;
        Readable {
            background,
            selection,
            text,
            colours,
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// base16-default-dark's colours.
    pub(in crate::app::theme) const DEFAULT_DARK: Base16Colours = [
        (0x18, 0x18, 0x18),
        (0x28, 0x28, 0x28),
        (0x38, 0x38, 0x38),
        (0x58, 0x58, 0x58),
        (0xb8, 0xb8, 0xb8),
        (0xd8, 0xd8, 0xd8),
        (0xe8, 0xe8, 0xe8),
        (0xf8, 0xf8, 0xf8),
        (0xab, 0x46, 0x42),
        (0xdc, 0x96, 0x56),
        (0xf7, 0xca, 0x88),
        (0xa1, 0xb5, 0x6c),
        (0x86, 0xc1, 0xb9),
        (0x7c, 0xaf, 0xc2),
        (0xba, 0x8b, 0xaf),
        (0xa1, 0x69, 0x46),
    ];

    #[test]
    fn what_reads_is_kept_and_what_does_not_is_moved_until_it_reads() {
        let r = Readable::of(&DEFAULT_DARK);
        // Blue and green read on #181818 and #383838 as they are.
        assert_eq!(r.colours[0x0D], DEFAULT_DARK[0x0D]);
        assert_eq!(r.colours[0x0B], DEFAULT_DARK[0x0B]);
        assert_eq!(r.selection, DEFAULT_DARK[2]);
        // The comments' grey does not: lightened, no further than needed.
        let grey = r.colours[3];
        assert!(grey.0 > 0x58, "{grey:?}");
        assert!(ratio(grey, r.background) >= MIN_RATIO);
        assert!(ratio(mix(DEFAULT_DARK[3], (255, 255, 255), 1), r.background) < MIN_RATIO);
        // The red is moved too (3.0:1 on the selection).
        assert_ne!(r.colours[0x08], DEFAULT_DARK[0x08]);
        for (i, &c) in r.colours.iter().enumerate().skip(3) {
            for bg in [r.background, r.selection] {
                assert!(ratio(c, bg) >= MIN_RATIO, "base0{i:X} {c:?} on {bg:?}");
            }
        }
    }
}
