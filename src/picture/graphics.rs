//! Which graphics protocol the terminal speaks, decided once per session.
//!
//! The environment is read first (`guess_from_env`, a pure function): most terminals that show
//! images say who they are there, and then nothing is asked. Only when it cannot tell is the
//! terminal asked, after the first frame is drawn (the dashboard reads the replies, and the
//! keys typed meanwhile, before the session's event reader starts), and then never for longer
//! than [`QUERY_BOUND`]: first the one question every terminal answers (primary device
//! attributes), and only if that answer came within the bound, the graphics questions.
//! A reply arriving after the bound to the first question is harmless — the event reader
//! recognises and drops device attributes — whereas a late reply to a graphics question would
//! reach it as keystrokes, which is why those are asked of prompt terminals only.

use super::answers::{self, Rgb, SyncMode, Wants};
use crate::store::config::ImagePreview;
use std::time::Duration;

/// The longest any question to the terminal may wait for its answer.
pub const QUERY_BOUND: Duration = Duration::from_millis(200);

/// The cell size assumed when the terminal does not say: about the 1:2 of most fonts. For
/// half-blocks only the ratio matters.
pub const DEFAULT_CELL: (u16, u16) = (10, 20);

/// A way to draw pixels in a terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphicsProtocol {
    Kitty,
    Sixel,
    Iterm2,
    /// Unicode half blocks coloured with 24-bit colour: every terminal, two pixels a cell.
    Halfblocks,
}

impl GraphicsProtocol {
    pub fn name(self) -> &'static str {
        match self {
            GraphicsProtocol::Kitty => "kitty",
            GraphicsProtocol::Sixel => "sixel",
            GraphicsProtocol::Iterm2 => "iterm2",
            GraphicsProtocol::Halfblocks => "halfblocks",
        }
    }
}

/// What the previews are drawn with; handed to the preview worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Graphics {
    pub protocol: GraphicsProtocol,
    /// A cell's size in pixels: `(width, height)`.
    pub cell: (u16, u16),
    /// Inside tmux: sequences are wrapped for its passthrough.
    pub tmux: bool,
}

impl Graphics {
    /// Half-blocks at the default cell size: what tests and a terminal that says nothing get.
    pub fn halfblocks() -> Self {
        Graphics {
            protocol: GraphicsProtocol::Halfblocks,
            cell: DEFAULT_CELL,
            tmux: false,
        }
    }
}

/// The outcome of [`detect`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detection {
    /// `None`: no previews in this session; `note` says why.
    pub graphics: Option<Graphics>,
    /// The cell size in pixels, if the kernel or the terminal told it.
    pub cell_pixels: Option<(u16, u16)>,
    /// One line on what was chosen and why, for the log; when `graphics` is `None`, the line
    /// the detail section shows in place of a picture.
    pub note: String,
    /// How many questions were put to the terminal (0, 1 or 2).
    pub queries: u8,
    /// Whether synchronized output is supported; `None`: not asked, or no answer.
    pub sync: Option<SyncMode>,
    /// The terminal's background colour; `None`: not asked, or no answer.
    pub background: Option<Rgb>,
}

/// What the environment tells before anything is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvGuess {
    /// The protocol, when the environment settles it.
    pub protocol: Option<GraphicsProtocol>,
    /// Whether asking the terminal is worthwhile and safe (it is never asked inside a
    /// multiplexer, which answers for itself, nor on a terminal known to show no images).
    pub may_ask: bool,
    pub tmux: bool,
    /// Why, in a few words.
    pub why: &'static str,
}

/// Programs in `TERM_PROGRAM` known to show iTerm2 inline images.
const ITERM2_PROGRAMS: [&str; 9] = [
    "iTerm",
    "WezTerm",
    "mintty",
    "vscode",
    "Tabby",
    "Hyper",
    "rio",
    "Bobcat",
    "WarpTerminal",
];

/// The protocol the environment points to, if it does; pure, so every row of the table is a
/// unit test.
pub fn guess_from_env(env: &dyn Fn(&str) -> Option<String>) -> EnvGuess {
    let get = |k: &str| env(k).filter(|v| !v.is_empty());
    let term = get("TERM").unwrap_or_default();
    let program = get("TERM_PROGRAM").unwrap_or_default();
    let guess = |protocol, may_ask, tmux, why| EnvGuess {
        protocol,
        may_ask,
        tmux,
        why,
    };
    // A multiplexer answers queries itself and hides the outer terminal, whose own variables
    // (KITTY_WINDOW_ID, …) may be left over from where the session was started.
    if get("TMUX").is_some() || term.starts_with("tmux") || program == "tmux" {
        return guess(
            Some(GraphicsProtocol::Halfblocks),
            false,
            true,
            "inside tmux (set image_preview to force a protocol through its passthrough)",
        );
    }
    if term.starts_with("screen") || get("STY").is_some() {
        return guess(
            Some(GraphicsProtocol::Halfblocks),
            false,
            false,
            "inside GNU screen",
        );
    }
    if term.is_empty() || term == "dumb" {
        return guess(None, false, false, "TERM is unset or dumb");
    }
    if term == "linux" {
        return guess(
            Some(GraphicsProtocol::Halfblocks),
            false,
            false,
            "the Linux console",
        );
    }
    if get("KITTY_WINDOW_ID").is_some()
        || term == "xterm-kitty"
        || term == "xterm-ghostty"
        || program.eq_ignore_ascii_case("ghostty")
    {
        return guess(
            Some(GraphicsProtocol::Kitty),
            true,
            false,
            "kitty or ghostty",
        );
    }
    // WezTerm speaks sixel and kitty too, but its iTerm2 images are the most faithful.
    if get("WEZTERM_EXECUTABLE").is_some()
        || ITERM2_PROGRAMS.iter().any(|p| program.contains(p))
        || get("LC_TERMINAL").is_some_and(|t| t.contains("iTerm"))
    {
        return guess(
            Some(GraphicsProtocol::Iterm2),
            true,
            false,
            "a terminal with iTerm2 images",
        );
    }
    // Konsole's sixel and kitty support draw wrongly over text.
    if get("KONSOLE_VERSION").is_some() {
        return guess(Some(GraphicsProtocol::Halfblocks), false, false, "Konsole");
    }
    guess(None, true, false, "the terminal was asked")
}

/// Writes a query, then collects the reply until the predicate says it is complete or the
/// bound has passed.
pub type Ask<'a> =
    &'a mut dyn FnMut(&[u8], fn(&[u8]) -> bool, Duration) -> std::io::Result<Vec<u8>>;

/// The terminal as detection sees it; the real one is in `terminal.rs`, tests bring their own.
pub struct Tty<'a> {
    /// Both standard input and output are a terminal.
    pub is_terminal: bool,
    /// The cell size in pixels as the kernel reports it (`TIOCGWINSZ`), if it does.
    pub cell_pixels: Option<(u16, u16)>,
    /// Writes a query, then collects the reply until the predicate says it is complete or the
    /// bound has passed; what came, possibly nothing.
    pub ask: Ask<'a>,
}

/// Primary device attributes: every terminal answers `CSI ? … c`.
pub const DEVICE_ATTRIBUTES: &[u8] = b"\x1b[c";
/// Does the terminal speak the kitty graphics protocol? A 1x1 query image, never stored.
pub const KITTY_QUERY: &[u8] = b"\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\";
/// The cell size in pixels: answered `CSI 6 ; height ; width t`.
pub const CELL_SIZE_QUERY: &[u8] = b"\x1b[16t";

/// What the replies said.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Replies {
    /// The parameters of the device attributes, when they came.
    pub attributes: Option<Vec<u16>>,
    pub kitty: bool,
    pub cell: Option<(u16, u16)>,
    /// DECRQM's answer for synchronized output, when it came.
    pub sync: Option<SyncMode>,
    /// OSC 11's answer: the background colour, when it came.
    pub background: Option<Rgb>,
}

impl Replies {
    pub fn sixel(&self) -> bool {
        self.attributes.as_ref().is_some_and(|a| a.contains(&4))
    }
}

/// Whether the device attributes' reply is among `bytes`: it ends every exchange, since a
/// terminal answers in order.
pub fn has_attributes(bytes: &[u8]) -> bool {
    parse_replies(bytes).attributes.is_some()
}

/// Reads the replies out of whatever the terminal sent; anything else is ignored.
pub fn parse_replies(bytes: &[u8]) -> Replies {
    let mut replies = Replies::default();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != 0x1b {
            i += 1;
            continue;
        }
        let rest = &bytes[i + 1..];
        if let Some(body) = rest.strip_prefix(b"[") {
            // CSI: parameters and intermediates up to a final byte in @..~.
            let Some(end) = body.iter().position(|b| (0x40..=0x7e).contains(b)) else {
                break;
            };
            let (params, fin) = (&body[..end], body[end]);
            match (params.first(), fin) {
                (Some(b'?'), b'c') => replies.attributes = Some(numbers(&params[1..])),
                (Some(b'?'), b'y') => {
                    if let Some(p) = params[1..].strip_suffix(b"$") {
                        replies.sync = answers::parse_sync(p).or(replies.sync);
                    }
                }
                (_, b't') => {
                    if let [6, h, w] = numbers(params)[..]
                        && h > 0
                        && w > 0
                    {
                        replies.cell = Some((w, h));
                    }
                }
                _ => {}
            }
            i += 2 + end;
        } else if let Some(body) = rest.strip_prefix(b"_") {
            // APC, ended by ST (ESC \): the kitty graphics reply.
            let end = body
                .windows(2)
                .position(|w| w == b"\x1b\\")
                .unwrap_or(body.len());
            let apc = &body[..end];
            if apc.starts_with(b"Gi=31") && apc.ends_with(b";OK") {
                replies.kitty = true;
            }
            i += 2 + end;
        } else if let Some(body) = rest.strip_prefix(b"]") {
            // OSC, ended by BEL or ST: the background colour.
            let Some((end, terminator)) = osc_end(body) else {
                break;
            };
            replies.background = answers::parse_background(&body[..end]).or(replies.background);
            i += 2 + end + terminator;
        } else {
            i += 1;
        }
    }
    replies
}

/// Where an OSC body ends and how long its terminator is (BEL, or ST: `ESC \`).
fn osc_end(body: &[u8]) -> Option<(usize, usize)> {
    body.iter().enumerate().find_map(|(i, b)| match b {
        0x07 => Some((i, 1)),
        0x1b if body.get(i + 1) == Some(&b'\\') => Some((i, 2)),
        _ => None,
    })
}

fn numbers(params: &[u8]) -> Vec<u16> {
    params
        .split(|b| *b == b';')
        .filter_map(|p| std::str::from_utf8(p).ok()?.parse().ok())
        .collect()
}

/// Chooses how previews are drawn, asking the terminal only as the module's notes allow.
/// Called once, with raw mode on; whatever reads the replies must keep the keys typed
/// meanwhile (the dashboard's `terminal::detect_in_background`).
pub fn detect(
    setting: ImagePreview,
    no_color: bool,
    env: &dyn Fn(&str) -> Option<String>,
    tty: &mut Tty<'_>,
) -> Detection {
    detect_with(setting, no_color, Wants::default(), env, tty)
}

/// The protocol `image_preview` names, if it names one.
fn forced(setting: ImagePreview) -> Option<GraphicsProtocol> {
    match setting {
        ImagePreview::Off | ImagePreview::Auto => None,
        ImagePreview::Kitty => Some(GraphicsProtocol::Kitty),
        ImagePreview::Sixel => Some(GraphicsProtocol::Sixel),
        ImagePreview::Iterm2 => Some(GraphicsProtocol::Iterm2),
        ImagePreview::Halfblocks => Some(GraphicsProtocol::Halfblocks),
    }
}

/// The exchange's one question when the graphics needed none: the cell size if `wants_cell`,
/// and `more`; an `unknown` terminal is asked the device attributes alone first, and `more`
/// only if they came in time. How many questions, and what came.
fn ask_last(
    tty: &mut Tty<'_>,
    wants_cell: bool,
    unknown: bool,
    mut more: Vec<u8>,
) -> (u8, Replies) {
    let mut queries = 0;
    let mut query = Vec::new();
    if wants_cell {
        query.extend_from_slice(CELL_SIZE_QUERY);
    }
    if unknown && !more.is_empty() {
        queries += 1;
        let first = (tty.ask)(DEVICE_ATTRIBUTES, has_attributes, QUERY_BOUND).unwrap_or_default();
        if !has_attributes(&first) {
            more.clear();
        }
    }
    query.append(&mut more);
    if query.is_empty() {
        return (queries, Replies::default());
    }
    queries += 1;
    query.extend_from_slice(DEVICE_ATTRIBUTES);
    let replies =
        parse_replies(&(tty.ask)(&query, has_attributes, QUERY_BOUND).unwrap_or_default());
    (queries, replies)
}

/// [`detect`], and in the same exchange what `wants` asks (synchronized output, the
/// background colour): those questions ride with the last graphics question, before its
/// closing device attributes, so the exchange stays at most two questions, each bounded. They
/// are put only to a terminal that answers promptly: one the environment names, tmux (which
/// answers for itself), or one whose device attributes came within the bound.
pub fn detect_with(
    setting: ImagePreview,
    no_color: bool,
    wants: Wants,
    env: &dyn Fn(&str) -> Option<String>,
    tty: &mut Tty<'_>,
) -> Detection {
    let guess = guess_from_env(env);
    // Not on the Linux console or in GNU screen, whose parsers may print an unknown sequence.
    let mut more = if tty.is_terminal && (guess.may_ask || guess.tmux) {
        wants.query()
    } else {
        Vec::new()
    };
    let mut queries = 0u8;
    let mut extra = Replies::default();
    let forced = forced(setting);
    let off = setting == ImagePreview::Off;
    let mut cell = tty.cell_pixels;
    let mut why = guess.why;
    // An unknown terminal is asked the one question every terminal answers first.
    let unknown = guess.protocol.is_none() && !guess.tmux;
    let protocol = if let Some(p) = forced {
        why = "image_preview";
        p
    } else if let Some(p) = guess.protocol {
        p
    } else if !tty.is_terminal {
        why = "not a terminal";
        GraphicsProtocol::Halfblocks
    } else if !guess.may_ask || (off && more.is_empty()) {
        GraphicsProtocol::Halfblocks
    } else {
        queries += 1;
        let first = (tty.ask)(DEVICE_ATTRIBUTES, has_attributes, QUERY_BOUND).unwrap_or_default();
        let first = parse_replies(&first);
        if first.attributes.is_none() {
            why = "the terminal did not answer within 200 ms";
            // A late answer to anything else would reach the event reader as keys.
            more.clear();
            GraphicsProtocol::Halfblocks
        } else {
            let mut query = Vec::new();
            if !first.sixel() && !off {
                query.extend_from_slice(KITTY_QUERY);
            }
            if cell.is_none() && !off {
                query.extend_from_slice(CELL_SIZE_QUERY);
            }
            query.append(&mut more);
            let second = if query.is_empty() {
                Replies::default()
            } else {
                queries += 1;
                query.extend_from_slice(DEVICE_ATTRIBUTES);
                parse_replies(&(tty.ask)(&query, has_attributes, QUERY_BOUND).unwrap_or_default())
            };
            cell = cell.or(second.cell);
            extra = second.clone();
            if second.kitty {
                GraphicsProtocol::Kitty
            } else if first.sixel() {
                GraphicsProtocol::Sixel
            } else {
                why = "the terminal shows no graphics protocol";
                GraphicsProtocol::Halfblocks
            }
        }
    };
    // A pixel protocol sizes the picture by the cell size: ask for it when the kernel did not
    // tell, if asking is safe here; the other questions come along, or are asked alone.
    let wants_cell = !off
        && protocol != GraphicsProtocol::Halfblocks
        && cell.is_none()
        && tty.is_terminal
        && guess.may_ask;
    if queries == 0 && tty.is_terminal && (wants_cell || !more.is_empty()) {
        let (asked, replies) = ask_last(tty, wants_cell, unknown, more);
        queries += asked;
        cell = cell.or(replies.cell);
        extra = replies;
    }
    let (graphics, note) = if off {
        (
            None,
            "image previews are off (image_preview = \"off\")".into(),
        )
    } else if protocol == GraphicsProtocol::Halfblocks && no_color {
        let note = "no image preview: NO_COLOR is set and half-blocks are colour \
             (image_preview = \"kitty\", \"sixel\" or \"iterm2\" if the terminal shows images)";
        (None, note.into())
    } else {
        let graphics = Graphics {
            protocol,
            cell: match protocol {
                GraphicsProtocol::Halfblocks => DEFAULT_CELL,
                _ => cell.unwrap_or(DEFAULT_CELL),
            },
            tmux: guess.tmux,
        };
        let note = format!("image previews: {} ({why})", protocol.name());
        (Some(graphics), note)
    };
    Detection {
        graphics,
        cell_pixels: cell,
        note,
        queries,
        sync: extra.sync,
        background: extra.background,
    }
}

#[cfg(test)]
mod tests;
