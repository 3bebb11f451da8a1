//! The terminal's input made into events: while the graphics question is out (`drain`, on the
//! detection's thread) and for the rest of the session (`Tokenizer`, on the loop's thread:
//! `tty_input`).
//!
//! What is ours here is only taking our replies out (device attributes `CSI ? … c`, the cell
//! size `CSI 6 ; h ; w t`, the kitty graphics reply `APC G … ST`; a late one after the
//! question gave up is dropped too) and handing everything else on, in order. The keys
//! themselves are read by terminput's copy of crossterm's own parser, fed as crossterm's reader
//! feeds it (a byte more at a time until it makes an event or gives up), and converted to
//! crossterm's events: a key comes out as crossterm would have made it, neither lost nor taken
//! for a reply. Where that copy differs from crossterm 0.29, crossterm's way is kept: a lone
//! ESC with more input waiting starts a sequence, and ESC ESC is one Esc. Mouse reports in the
//! question's short window are dropped (nothing is laid out yet); focus changes pass
//! (docs/decisions.md).

use crossterm::event::{Event, KeyCode};

/// What the front of the input holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// Something the user did.
    Event(Event),
    /// A reply to one of our questions: device attributes (`CSI ? … c`), the cell size
    /// (`CSI 6 ; h ; w t`), the kitty graphics reply (`APC G … ST`), DECRQM's report
    /// (`CSI ? 2026 ; Ps $ y`), the background colour (`OSC 11 ; … ST`).
    Reply(Vec<u8>),
    /// Bytes that make no event here (a mouse report, another reply, what the parser refuses).
    Skip,
}

const ESC: u8 = 0x1b;

/// Reads one token off the front of `bytes`: the token and how many bytes it took, or, when
/// its end has not arrived yet, how long a start the parser found unfinished (0 when it was
/// not asked). `more`: more input is already waiting, so a lone ESC is the start of a sequence
/// rather than the Esc key (crossterm decides the same way). `unfinished`: the parser already
/// found the first that many bytes unfinished (the same bytes give the same answer), so a
/// long paste arriving read by read is parsed once, not once per read. `mouse`: mouse reports
/// are events, else skipped.
fn next_token(
    bytes: &[u8],
    more: bool,
    unfinished: usize,
    mouse: bool,
) -> Result<(Token, usize), usize> {
    if let Some(found) = ours(bytes, more) {
        return found.ok_or(0);
    }
    // A lone ESC never reaches the parser (it would call it Esc at once).
    let shortest = if bytes.first() == Some(&ESC) { 2 } else { 1 };
    let parsed = (shortest.max(unfinished + 1)..=bytes.len()).find_map(|len| {
        match terminput::Event::parse_from(&bytes[..len]) {
            Ok(None) => None,
            Ok(Some(event)) => match terminput_crossterm::to_crossterm(event) {
                // Focus changes pass: a focus-in reloads a changed config and polls what is on
                // screen, whenever it comes. A mouse report before the first layout is dropped.
                Ok(Event::Mouse(_)) if !mouse => Some((Token::Skip, len)),
                Ok(event) => Some((Token::Event(event), len)),
                Err(_) => Some((Token::Skip, len)),
            },
            Err(_) => Some((Token::Skip, len)),
        }
    });
    parsed.ok_or(bytes.len())
}

/// What the front of `bytes` is when it is ours to decide (a reply, or an ESC read as
/// crossterm 0.29 reads it): `Some` of `next_token`'s answer; `None` for the parser to read.
#[allow(clippy::option_option)] // outer: ours or the parser's; inner: whole or still arriving
fn ours(bytes: &[u8], more: bool) -> Option<Option<(Token, usize)>> {
    let esc = || Token::Event(Event::Key(KeyCode::Esc.into()));
    let reply = |len: usize| (Token::Reply(bytes[..len].to_vec()), len);
    match bytes {
        [ESC] => Some((!more).then(|| (esc(), 1))),
        [ESC, ESC, ..] => Some(Some((esc(), 2))),
        // Alt+_ or a kitty reply's start (Alt+] or an OSC reply's): as for a lone ESC, more
        // input waiting decides.
        [ESC, b'_' | b']'] if more => Some(None),
        // The background colour (OSC 11), ended by BEL or ST; its start waits for the rest.
        [ESC, b']', rest @ ..] if more && b"11;".starts_with(rest) => Some(None),
        [ESC, b']', b'1', b'1', b';', body @ ..] => Some(
            body.iter()
                .enumerate()
                .find_map(|(i, b)| match b {
                    0x07 => Some(5 + i + 1),
                    &ESC if body.get(i + 1) == Some(&b'\\') => Some(5 + i + 2),
                    _ => None,
                })
                .map(reply),
        ),
        [ESC, b'_', b'G', body @ ..] => Some(
            body.windows(2)
                .position(|w| w == b"\x1b\\")
                .map(|end| reply(3 + end + 2)),
        ),
        [ESC, b'[', csi @ ..] => {
            let end = csi.iter().position(|b| (0x40..=0x7e).contains(b))?;
            let (params, last) = (&csi[..end], csi[end]);
            let len = 2 + end + 1;
            // Device attributes, DECRQM's report (`CSI ? 2026 ; Ps $ y`), the cell size.
            if params.starts_with(b"?") && (last == b'c' || last == b'y' && params.ends_with(b"$"))
                || params.starts_with(b"6;") && last == b't'
            {
                Some(Some(reply(len)))
            } else if params.starts_with(b"?") {
                // Some other reply (crossterm makes no event of a `CSI ?` either).
                Some(Some((Token::Skip, len)))
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Splits `pending` into tokens for as long as whole ones are there; what is left is the
/// start of a token still arriving. Mouse reports are skipped (the question's window).
pub fn drain(pending: &mut Vec<u8>, more: bool, each: impl FnMut(Token)) {
    take_whole(pending, more, 0, false, each);
}

/// The session's input, fed as it is read: each token handed on as soon as it is whole, the
/// start of one still arriving kept, mouse reports passed on.
#[derive(Debug, Default)]
pub struct Tokenizer {
    pending: Vec<u8>,
    /// How long a start of `pending` the parser found unfinished.
    unfinished: usize,
}

impl Tokenizer {
    /// Adds what was read; `more`: more input is already waiting (the read filled its buffer).
    pub fn feed(&mut self, bytes: &[u8], more: bool, each: impl FnMut(Token)) {
        self.pending.extend_from_slice(bytes);
        self.unfinished = take_whole(&mut self.pending, more, self.unfinished, true, each);
    }
}

/// The one loop under `drain` and `Tokenizer`: hands on every whole token at the front of
/// `pending` and removes it; returns how long a start of what is left the parser found
/// unfinished (`unfinished`: the same of `pending` as it came).
fn take_whole(
    pending: &mut Vec<u8>,
    more: bool,
    unfinished: usize,
    mouse: bool,
    mut each: impl FnMut(Token),
) -> usize {
    let mut used = 0;
    let left = loop {
        let known = if used == 0 { unfinished } else { 0 };
        match next_token(&pending[used..], more, known, mouse) {
            Ok((token, len)) => {
                used += len.max(1);
                each(token);
            }
            Err(left) => break left,
        }
    };
    pending.drain(..used);
    left
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyEvent, KeyModifiers};

    fn tokens(bytes: &[u8]) -> Vec<Token> {
        let mut pending = bytes.to_vec();
        let mut out = Vec::new();
        drain(&mut pending, false, |t| out.push(t));
        assert!(pending.is_empty(), "left over: {pending:?}");
        out
    }

    fn k(code: KeyCode, m: KeyModifiers) -> Token {
        Token::Event(Event::Key(KeyEvent::new(code, m)))
    }

    /// A focus-in while the terminal is being asked is the user's: it reaches the App (a
    /// changed config is read, what is on screen polled), not dropped with mouse reports.
    #[test]
    fn focus_changes_pass_and_mouse_reports_are_dropped() {
        assert_eq!(
            tokens(b"\x1b[O\x1b[<0;3;4Ma\x1b[I"),
            [
                Token::Event(Event::FocusLost),
                Token::Skip,
                k(KeyCode::Char('a'), KeyModifiers::NONE),
                Token::Event(Event::FocusGained),
            ]
        );
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
    fn keys_between_the_replies_arrive_as_crossterm_makes_them() {
        let none = KeyModifiers::NONE;
        // Arrows (both encodings), a modified key that looks like the cell size's start, Alt,
        // Shift-Tab, a control key, then ESC ESC: one Esc, as crossterm 0.29 has it.
        assert_eq!(
            tokens(b"\x1b[A\x1b[?62c\x1bOB\x1b[6;5~\x1b[6;18;9t\x1bx\x1b[Z\x03\x1b\x1b"),
            [
                k(KeyCode::Up, none),
                Token::Reply(b"\x1b[?62c".to_vec()),
                k(KeyCode::Down, none),
                k(KeyCode::PageDown, KeyModifiers::CONTROL),
                Token::Reply(b"\x1b[6;18;9t".to_vec()),
                k(KeyCode::Char('x'), KeyModifiers::ALT),
                k(KeyCode::BackTab, KeyModifiers::SHIFT),
                k(KeyCode::Char('c'), KeyModifiers::CONTROL),
                k(KeyCode::Esc, none),
            ]
        );
        // A paste as crossterm passes it (its CR kept), a mouse report dropped, another reply
        // dropped, Alt+_ that is no kitty reply, and a last ESC with nothing after it: Esc.
        assert_eq!(
            tokens("é\x1b[200~a\rq\x1b[201~\x1b[<0;3;4M\x1b[?1;2$y\x1b_x\x1b".as_bytes()),
            [
                k(KeyCode::Char('é'), none),
                Token::Event(Event::Paste("a\rq".into())),
                Token::Skip,
                Token::Reply(b"\x1b[?1;2$y".to_vec()),
                k(KeyCode::Char('_'), KeyModifiers::ALT),
                k(KeyCode::Char('x'), none),
                k(KeyCode::Esc, none),
            ]
        );
    }

    #[test]
    fn sync_and_background_replies_are_taken_out_between_keys() {
        let none = KeyModifiers::NONE;
        assert_eq!(
            tokens(b"a\x1b[?2026;2$yb\x1b]11;rgb:ffff/ffff/ffff\x1b\\c\x1b]11;rgb:0/0/0\x07"),
            [
                k(KeyCode::Char('a'), none),
                Token::Reply(b"\x1b[?2026;2$y".to_vec()),
                k(KeyCode::Char('b'), none),
                Token::Reply(b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\".to_vec()),
                k(KeyCode::Char('c'), none),
                Token::Reply(b"\x1b]11;rgb:0/0/0\x07".to_vec()),
            ]
        );
    }

    #[test]
    fn a_token_still_arriving_waits() {
        for partial in [
            &b"\x1b["[..],
            b"\x1b[?62;4",
            b"\x1b[6;20",
            b"\x1b_Gi=31;OK",
            b"\x1b_Gi=31;OK\x1b",
            b"\x1b]1",
            b"\x1b]11;",
            b"\x1b]11;rgb:ffff/ff",
            b"\x1b]11;rgb:ffff/ffff/ffff\x1b",
            b"\x1b[?2026;2$",
            b"\x1b[200~abc",
            b"\xc3",
        ] {
            let mut pending = partial.to_vec();
            drain(&mut pending, true, |t| panic!("{partial:?} gave {t:?}"));
            assert_eq!(pending, partial);
        }
        // A lone ESC (or ESC _) with more input waiting is a sequence's start; with nothing
        // more, the key.
        for (start, key) in [
            (&b"\x1b"[..], k(KeyCode::Esc, KeyModifiers::NONE)),
            (b"\x1b_", k(KeyCode::Char('_'), KeyModifiers::ALT)),
        ] {
            let mut pending = start.to_vec();
            drain(&mut pending, true, |t| panic!("{t:?}"));
            let mut got = Vec::new();
            drain(&mut pending, false, |t| got.push(t));
            assert_eq!(got, [key]);
        }
    }

    /// The session's input, read by read: a mouse report is an event; a paste and an arrow
    /// split across reads come out whole; a wait for a reply's end (ESC _ with more input
    /// waiting) is not taken for the parser's, so Alt+_ and the key after it both arrive.
    #[test]
    fn the_sessions_input_is_parsed_read_by_read() {
        use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
        let none = KeyModifiers::NONE;
        let mut tokens = Tokenizer::default();
        let mut got = Vec::new();
        let mut feed = |bytes: &[u8], more: bool| tokens.feed(bytes, more, |t| got.push(t));
        feed(b"\x1b[<0;3;4M", false);
        feed(b"\x1b[", false);
        feed(b"A", false);
        feed(b"\x1b[200~", true);
        let text = "é".repeat(1000);
        for piece in text.as_bytes().chunks(7) {
            feed(piece, true);
        }
        feed(b"\x1b[201~", false);
        feed(b"\x1b_", true);
        feed(b"x", false);
        assert_eq!(
            got,
            [
                Token::Event(Event::Mouse(MouseEvent {
                    kind: MouseEventKind::Down(MouseButton::Left),
                    column: 2,
                    row: 3,
                    modifiers: none,
                })),
                k(KeyCode::Up, none),
                Token::Event(Event::Paste(text)),
                k(KeyCode::Char('_'), KeyModifiers::ALT),
                k(KeyCode::Char('x'), none),
            ]
        );
    }
}
