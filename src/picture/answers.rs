//! The other two questions put to the terminal in the graphics detection's bounded exchange
//! (never before the first frame, never to a terminal that did not answer the device
//! attributes in time): does it support synchronized output (DEC mode 2026, asked with
//! DECRQM), and what is its background colour (OSC 11). Pure: parsing and what an answer
//! means; the asking is `graphics::detect_with`'s.

/// DECRQM for mode 2026: answered `CSI ? 2026 ; Ps $ y`.
pub const SYNC_QUERY: &[u8] = b"\x1b[?2026$p";
/// OSC 11 with `?`: answered `OSC 11 ; rgb:RRRR/GGGG/BBBB` ended by ST or BEL.
pub const BACKGROUND_QUERY: &[u8] = b"\x1b]11;?\x1b\\";

/// What besides the graphics protocol the exchange should find out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Wants {
    /// Ask whether synchronized output is supported (the `synchronized_output` setting).
    pub sync: bool,
    /// Ask for the background colour (`theme = "auto"` without `NO_COLOR`).
    pub background: bool,
}

impl Wants {
    /// The questions, in the order the replies are read.
    pub fn query(self) -> Vec<u8> {
        let mut q = Vec::new();
        if self.sync {
            q.extend_from_slice(SYNC_QUERY);
        }
        if self.background {
            q.extend_from_slice(BACKGROUND_QUERY);
        }
        q
    }

    pub fn any(self) -> bool {
        self.sync || self.background
    }
}

/// DECRQM's answer for mode 2026.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncMode {
    /// Known and settable (`Ps` 1 or 2): frames are wrapped.
    Supported,
    /// Not recognised (0) or permanently set or reset (3, 4): nothing to switch.
    Unsupported,
}

impl SyncMode {
    /// `Ps` of the DECRPM reply.
    pub fn of(ps: u16) -> SyncMode {
        if matches!(ps, 1 | 2) {
            SyncMode::Supported
        } else {
            SyncMode::Unsupported
        }
    }
}

/// A colour as the terminal reported it, scaled to 8 bits a channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// WCAG relative luminance, 0 (black) to 1 (white).
    pub fn luminance(self) -> f64 {
        let channel = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.039_28 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * channel(self.0) + 0.7152 * channel(self.1) + 0.0722 * channel(self.2)
    }

    /// A light background: dark text reads better on it than light text does, i.e. black's
    /// contrast with it beats white's (luminance above about 0.18, a mid grey).
    pub fn is_light(self) -> bool {
        let l = self.luminance();
        (l + 0.05) / 0.05 > 1.05 / (l + 0.05)
    }

    /// `#rrggbb`.
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

/// The body of an OSC 11 reply (what follows `ESC ]`, without its terminator): `11;rgb:R/G/B`
/// with 1 to 4 hex digits a channel (xterm's `XParseColor` forms), or `11;#rrggbb`.
pub fn parse_background(body: &[u8]) -> Option<Rgb> {
    let text = std::str::from_utf8(body).ok()?;
    let spec = text.strip_prefix("11;")?;
    if let Some(hex) = spec.strip_prefix('#') {
        if hex.len() != 6 {
            return None;
        }
        let byte = |i: usize| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok();
        return Some(Rgb(byte(0)?, byte(2)?, byte(4)?));
    }
    // `rgba:` (some terminals add alpha) reads the same for the first three channels.
    let channels = spec
        .strip_prefix("rgb:")
        .or_else(|| spec.strip_prefix("rgba:"))?;
    let mut parts = channels.split('/');
    let mut next = || -> Option<u8> {
        let part = parts.next()?;
        if part.is_empty() || part.len() > 4 || !part.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let value = u32::from_str_radix(part, 16).ok()?;
        // Scaled from `len` hex digits to 8 bits: `f` is 255, `ffff` is 255, `8000` is 128.
        let max = (1u32 << (4 * part.len())) - 1;
        u8::try_from((value * 255 + max / 2) / max).ok()
    };
    Some(Rgb(next()?, next()?, next()?))
}

/// The parameters of a `CSI ? … $ y` reply (without `?` and `$`): mode 2026's `Ps`.
pub fn parse_sync(params: &[u8]) -> Option<SyncMode> {
    let text = std::str::from_utf8(params).ok()?;
    let (mode, ps) = text.split_once(';')?;
    (mode == "2026").then_some(())?;
    Some(SyncMode::of(ps.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn background_answers_in_every_form_and_garbage_refused() {
        assert_eq!(
            parse_background(b"11;rgb:ffff/ffff/ffff"),
            Some(Rgb(255, 255, 255))
        );
        assert_eq!(
            parse_background(b"11;rgb:1e1e/1e1e/2e2e"),
            Some(Rgb(30, 30, 46))
        );
        assert_eq!(parse_background(b"11;rgb:f/8/0"), Some(Rgb(255, 136, 0)));
        assert_eq!(
            parse_background(b"11;rgb:80/80/80"),
            Some(Rgb(128, 128, 128))
        );
        assert_eq!(
            parse_background(b"11;rgba:0000/0000/0000/ffff"),
            Some(Rgb(0, 0, 0))
        );
        assert_eq!(parse_background(b"11;#fdf6e3"), Some(Rgb(253, 246, 227)));
        for garbage in [
            &b""[..],
            b"11;",
            b"11;?",
            b"10;rgb:ffff/ffff/ffff",
            b"11;rgb:ffff/ffff",
            b"11;rgb:fffff/0/0",
            b"11;rgb:zz/00/00",
            b"11;rgb://",
            b"11;#fff",
            b"11;rgb:\xff/0/0",
        ] {
            assert_eq!(parse_background(garbage), None, "{garbage:?}");
        }
    }

    #[test]
    fn light_and_dark_backgrounds_are_told_apart() {
        for light in [Rgb(255, 255, 255), Rgb(253, 246, 227), Rgb(200, 200, 200)] {
            assert!(light.is_light(), "{light:?}");
        }
        for dark in [
            Rgb(0, 0, 0),
            Rgb(30, 30, 46),
            Rgb(0, 43, 54),
            Rgb(100, 100, 100),
        ] {
            assert!(!dark.is_light(), "{dark:?}");
        }
    }

    #[test]
    fn sync_answers() {
        assert_eq!(parse_sync(b"2026;2"), Some(SyncMode::Supported));
        assert_eq!(parse_sync(b"2026;1"), Some(SyncMode::Supported));
        assert_eq!(parse_sync(b"2026;0"), Some(SyncMode::Unsupported));
        assert_eq!(parse_sync(b"2026;4"), Some(SyncMode::Unsupported));
        assert_eq!(parse_sync(b"2004;2"), None);
        assert_eq!(parse_sync(b"2026"), None);
        assert_eq!(parse_sync(b"2026;x"), None);
    }
}
