//! The terminal's input while the graphics question is out, read before crossterm's event
//! reader starts (it would take the replies as keys, and drops the device attributes' numbers).
//! The bytes are split into the replies to our questions and everything else; everything else
//! becomes the same `Event`s crossterm's reader would make of it, in order, so a key typed
//! while the terminal is being asked is neither lost nor taken for a reply.
//!
//! Only the encodings a terminal sends without being asked for more are read: characters,
//! control keys, Alt as an ESC prefix, the cursor and editing keys and F1–F12 with their
//! modifiers, Shift-Tab, and bracketed paste. Mouse reports and focus changes in this short
//! window are dropped, as are sequences nobody asked for.

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// What the front of the input holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// Something the user did.
    Event(Event),
    /// A reply to one of our questions: device attributes (`CSI ? … c`), the cell size
    /// (`CSI 6 ; h ; w t`), the kitty graphics reply (`APC G … ST`).
    Reply(Vec<u8>),
    /// A sequence that means nothing here (a mouse report, an unknown reply).
    Skip,
}

/// The longest sequence kept waiting for its end; anything longer is dropped a byte at a time.
const LONGEST: usize = 4096;

/// Reads one token off the front of `bytes`: the token and how many bytes it took, or `None`
/// when its end has not arrived yet. `more`: more input is already waiting, so a lone ESC is
/// the start of a sequence rather than the Esc key (crossterm decides the same way).
pub fn next_token(bytes: &[u8], more: bool) -> Option<(Token, usize)> {
    let first = *bytes.first()?;
    if first != 0x1b {
        return char_at(bytes);
    }
    let Some(&second) = bytes.get(1) else {
        return (!more).then(|| (key_of(KeyCode::Esc, KeyModifiers::NONE), 1));
    };
    match second {
        b'[' => csi(bytes),
        b'O' => {
            let code = match *bytes.get(2)? {
                b'A' => KeyCode::Up,
                b'B' => KeyCode::Down,
                b'C' => KeyCode::Right,
                b'D' => KeyCode::Left,
                b'H' => KeyCode::Home,
                b'F' => KeyCode::End,
                f @ b'P'..=b'S' => KeyCode::F(1 + f - b'P'),
                _ => return Some((Token::Skip, 3)),
            };
            Some((key_of(code, KeyModifiers::NONE), 3))
        }
        // APC (the kitty reply), DCS, OSC, PM, SOS: strings ended by ST (OSC also by BEL).
        b'_' | b'P' | b']' | b'^' | b'X' => {
            let body = &bytes[2..];
            let end = (0..body.len()).find_map(|i| match body[i] {
                0x07 if second == b']' => Some(i + 1),
                0x1b if body.get(i + 1) == Some(&b'\\') => Some(i + 2),
                _ => None,
            });
            match end {
                Some(end) if second == b'_' => {
                    Some((Token::Reply(bytes[..2 + end].to_vec()), 2 + end))
                }
                Some(end) => Some((Token::Skip, 2 + end)),
                None if bytes.len() >= LONGEST => Some((Token::Skip, 1)),
                None => None,
            }
        }
        0x1b => Some((key_of(KeyCode::Esc, KeyModifiers::NONE), 2)),
        _ => {
            // ESC before a key: that key with Alt.
            let (token, len) = next_token(&bytes[1..], more)?;
            match token {
                Token::Event(Event::Key(mut k)) => {
                    k.modifiers |= KeyModifiers::ALT;
                    Some((Token::Event(Event::Key(k)), 1 + len))
                }
                other => Some((other, 1 + len)),
            }
        }
    }
}

/// One character or control byte, as crossterm reads it: the key and how many bytes it took.
fn char_at(bytes: &[u8]) -> Option<(Token, usize)> {
    let b = bytes[0];
    let none = KeyModifiers::NONE;
    let control = |c: u8| key_of(KeyCode::Char(char::from(c)), KeyModifiers::CONTROL);
    let token = match b {
        b'\r' => key_of(KeyCode::Enter, none),
        b'\t' => key_of(KeyCode::Tab, none),
        0x7f => key_of(KeyCode::Backspace, none),
        0x01..=0x1a => control(b - 0x1 + b'a'),
        0x1c..=0x1f => control(b - 0x1c + b'4'),
        0 => control(b' '),
        _ => {
            let len = match b {
                0x00..=0x7f => 1,
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf7 => 4,
                _ => return Some((Token::Skip, 1)),
            };
            let chunk = bytes.get(..len)?;
            return Some(
                match std::str::from_utf8(chunk)
                    .ok()
                    .and_then(|s| s.chars().next())
                {
                    // Upper case comes with Shift, as crossterm has it.
                    Some(c) if c.is_uppercase() => {
                        (key_of(KeyCode::Char(c), KeyModifiers::SHIFT), len)
                    }
                    Some(c) => (key_of(KeyCode::Char(c), none), len),
                    None => (Token::Skip, 1),
                },
            );
        }
    };
    Some((token, 1))
}

fn key_of(code: KeyCode, modifiers: KeyModifiers) -> Token {
    Token::Event(Event::Key(KeyEvent::new_with_kind(
        code,
        modifiers,
        KeyEventKind::Press,
    )))
}

/// A modifier parameter (`1 + bits`) as crossterm reads it.
fn modifiers(param: Option<u16>) -> KeyModifiers {
    let bits = param.unwrap_or(1).saturating_sub(1);
    let mut m = KeyModifiers::NONE;
    for (bit, flag) in [
        (1, KeyModifiers::SHIFT),
        (2, KeyModifiers::ALT),
        (4, KeyModifiers::CONTROL),
        (8, KeyModifiers::SUPER),
    ] {
        if bits & bit != 0 {
            m |= flag;
        }
    }
    m
}

const PASTE_START: &[u8] = b"\x1b[200~";
const PASTE_END: &[u8] = b"\x1b[201~";

fn csi(bytes: &[u8]) -> Option<(Token, usize)> {
    if bytes.starts_with(PASTE_START) {
        let body = &bytes[PASTE_START.len()..];
        let end = body.windows(PASTE_END.len()).position(|w| w == PASTE_END)?;
        let text = String::from_utf8_lossy(&body[..end]).replace('\r', "\n");
        return Some((
            Token::Event(Event::Paste(text)),
            PASTE_START.len() + end + PASTE_END.len(),
        ));
    }
    // Parameters and intermediates, then a final byte in @..~.
    let rest = &bytes[2..];
    let Some(end) = rest.iter().position(|b| (0x40..=0x7e).contains(b)) else {
        return (bytes.len() >= LONGEST).then_some((Token::Skip, 1));
    };
    let len = 2 + end + 1;
    let (params, fin) = (&rest[..end], rest[end]);
    if params.first() == Some(&b'?') && fin == b'c' || fin == b't' && params.starts_with(b"6;") {
        return Some((Token::Reply(bytes[..len].to_vec()), len));
    }
    if params.iter().any(|b| !matches!(b, b'0'..=b'9' | b';')) {
        return Some((Token::Skip, len));
    }
    let numbers: Vec<Option<u16>> = params
        .split(|b| *b == b';')
        .map(|p| std::str::from_utf8(p).ok()?.parse().ok())
        .collect();
    let first = numbers.first().copied().flatten();
    let m = modifiers(numbers.get(1).copied().flatten());
    let code = match fin {
        b'A' => KeyCode::Up,
        b'B' => KeyCode::Down,
        b'C' => KeyCode::Right,
        b'D' => KeyCode::Left,
        b'H' => KeyCode::Home,
        b'F' => KeyCode::End,
        b'P' => KeyCode::F(1),
        b'Q' => KeyCode::F(2),
        b'S' => KeyCode::F(4),
        b'Z' => return Some((key_of(KeyCode::BackTab, KeyModifiers::SHIFT), len)),
        b'~' => match first {
            Some(1 | 7) => KeyCode::Home,
            Some(2) => KeyCode::Insert,
            Some(3) => KeyCode::Delete,
            Some(4 | 8) => KeyCode::End,
            Some(5) => KeyCode::PageUp,
            Some(6) => KeyCode::PageDown,
            Some(v @ 11..=15) => KeyCode::F(u8::try_from(v - 10).unwrap_or(1)),
            Some(v @ 17..=21) => KeyCode::F(u8::try_from(v - 11).unwrap_or(1)),
            Some(v @ 23..=24) => KeyCode::F(u8::try_from(v - 12).unwrap_or(1)),
            _ => return Some((Token::Skip, len)),
        },
        _ => return Some((Token::Skip, len)),
    };
    Some((key_of(code, m), len))
}

/// Splits `pending` into tokens for as long as whole ones are there; what is left is the
/// start of a token still arriving.
pub fn drain(pending: &mut Vec<u8>, more: bool, mut each: impl FnMut(Token)) {
    let mut taken = 0;
    while let Some((token, len)) = next_token(&pending[taken..], more) {
        taken += len.max(1);
        each(token);
    }
    pending.drain(..taken);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(bytes: &[u8]) -> Vec<Token> {
        let mut pending = bytes.to_vec();
        let mut out = Vec::new();
        drain(&mut pending, false, |t| out.push(t));
        assert!(pending.is_empty(), "left over: {pending:?}");
        out
    }

    fn k(code: KeyCode, m: KeyModifiers) -> Token {
        key_of(code, m)
    }

    #[test]
    fn keys_and_replies_come_apart_in_order() {
        let none = KeyModifiers::NONE;
        assert_eq!(
            tokens(b"/ab\x1b[?62;4;22cC\x1b[6;20;10t\r\x1b_Gi=31;OK\x1b\\\x7f"),
            [
                k(KeyCode::Char('/'), none),
                k(KeyCode::Char('a'), none),
                k(KeyCode::Char('b'), none),
                Token::Reply(b"\x1b[?62;4;22c".to_vec()),
                k(KeyCode::Char('C'), KeyModifiers::SHIFT),
                Token::Reply(b"\x1b[6;20;10t".to_vec()),
                k(KeyCode::Enter, none),
                Token::Reply(b"\x1b_Gi=31;OK\x1b\\".to_vec()),
                k(KeyCode::Backspace, none),
            ]
        );
    }

    #[test]
    fn special_keys_read_as_crossterm_reads_them() {
        let none = KeyModifiers::NONE;
        assert_eq!(
            tokens(b"\x1b[A\x1bOB\x1b[1;5C\x1b[5~\x1b[3;2~\x1b[15~\x1b[Z\t\x03\x1bx\x1b\x1b"),
            [
                k(KeyCode::Up, none),
                k(KeyCode::Down, none),
                k(KeyCode::Right, KeyModifiers::CONTROL),
                k(KeyCode::PageUp, none),
                k(KeyCode::Delete, KeyModifiers::SHIFT),
                k(KeyCode::F(5), none),
                k(KeyCode::BackTab, KeyModifiers::SHIFT),
                k(KeyCode::Tab, none),
                k(KeyCode::Char('c'), KeyModifiers::CONTROL),
                k(KeyCode::Char('x'), KeyModifiers::ALT),
                k(KeyCode::Esc, none),
            ]
        );
        assert_eq!(
            tokens("é\x1b[200~a\rb\x1b[201~\x1b[<0;3;4M\x1b".as_bytes()),
            [
                k(KeyCode::Char('é'), none),
                Token::Event(Event::Paste("a\nb".into())),
                Token::Skip,
                k(KeyCode::Esc, none),
            ]
        );
    }

    #[test]
    fn a_token_still_arriving_waits() {
        for partial in [
            &b"\x1b["[..],
            b"\x1b[?62;4",
            b"\x1b_Gi=31;OK",
            b"\x1b[200~abc",
            b"\xc3",
        ] {
            let mut pending = partial.to_vec();
            drain(&mut pending, true, |t| panic!("{partial:?} gave {t:?}"));
            assert_eq!(pending, partial);
        }
        // A lone ESC with more input waiting is a sequence's start; with nothing more, Esc.
        let mut pending = b"\x1b".to_vec();
        drain(&mut pending, true, |t| panic!("{t:?}"));
        let mut got = Vec::new();
        drain(&mut pending, false, |t| got.push(t));
        assert_eq!(got, [k(KeyCode::Esc, KeyModifiers::NONE)]);
    }
}
