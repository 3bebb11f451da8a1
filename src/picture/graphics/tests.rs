use super::*;

fn env_of<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |k| {
        pairs
            .iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| (*v).to_string())
    }
}

/// (environment, protocol, may ask, tmux)
type Row = (
    &'static [(&'static str, &'static str)],
    Option<GraphicsProtocol>,
    bool,
    bool,
);

use GraphicsProtocol::{Halfblocks, Iterm2, Kitty};

const ENV_TABLE: &[Row] = &[
    // (environment, protocol, may ask, tmux)
    (&[("TERM", "xterm-256color")], None, true, false),
    (&[("TERM", "foot")], None, true, false),
    (&[("TERM", "xterm-kitty")], Some(Kitty), true, false),
    (
        &[("TERM", "xterm-256color"), ("KITTY_WINDOW_ID", "3")],
        Some(Kitty),
        true,
        false,
    ),
    (&[("TERM", "xterm-ghostty")], Some(Kitty), true, false),
    (
        &[("TERM", "xterm-256color"), ("TERM_PROGRAM", "ghostty")],
        Some(Kitty),
        true,
        false,
    ),
    (
        &[
            ("TERM", "xterm-256color"),
            ("WEZTERM_EXECUTABLE", "/usr/bin/wezterm-gui"),
        ],
        Some(Iterm2),
        true,
        false,
    ),
    (
        &[("TERM", "xterm-256color"), ("TERM_PROGRAM", "iTerm.app")],
        Some(Iterm2),
        true,
        false,
    ),
    (
        &[("TERM", "xterm-256color"), ("TERM_PROGRAM", "WezTerm")],
        Some(Iterm2),
        true,
        false,
    ),
    (
        &[("TERM", "xterm-256color"), ("TERM_PROGRAM", "vscode")],
        Some(Iterm2),
        true,
        false,
    ),
    (
        &[("TERM", "xterm-256color"), ("LC_TERMINAL", "iTerm2")],
        Some(Iterm2),
        true,
        false,
    ),
    (
        &[("TERM", "xterm-256color"), ("KONSOLE_VERSION", "230804")],
        Some(Halfblocks),
        false,
        false,
    ),
    // tmux hides the outer terminal: its leftover variables do not count.
    (
        &[
            ("TERM", "tmux-256color"),
            ("TMUX", "/tmp/tmux-0/default,1,0"),
            ("KITTY_WINDOW_ID", "1"),
        ],
        Some(Halfblocks),
        false,
        true,
    ),
    (
        &[
            ("TERM", "screen-256color"),
            ("TMUX", "/tmp/tmux-0/default,1,0"),
        ],
        Some(Halfblocks),
        false,
        true,
    ),
    (
        &[("TERM", "xterm-256color"), ("TERM_PROGRAM", "tmux")],
        Some(Halfblocks),
        false,
        true,
    ),
    (
        &[("TERM", "screen.xterm-256color")],
        Some(Halfblocks),
        false,
        false,
    ),
    (&[("TERM", "linux")], Some(Halfblocks), false, false),
    (&[("TERM", "dumb")], None, false, false),
    (&[], None, false, false),
    (&[("TERM", "")], None, false, false),
];

#[test]
fn the_environment_is_read_first() {
    let table = ENV_TABLE;
    for (pairs, protocol, may_ask, tmux) in table {
        let g = guess_from_env(&env_of(pairs));
        assert_eq!(
            (g.protocol, g.may_ask, g.tmux),
            (*protocol, *may_ask, *tmux),
            "{pairs:?}: {g:?}"
        );
    }
}

#[test]
fn replies_are_read_out_of_noise() {
    let r = parse_replies(b"x\x1b_Gi=31;OK\x1b\\\x1b[6;18;9t\x1b[?62;4;22c");
    assert_eq!(
        r,
        Replies {
            attributes: Some(vec![62, 4, 22]),
            kitty: true,
            cell: Some((9, 18)),
            ..Replies::default()
        }
    );
    assert!(r.sixel());
    let r = parse_replies(b"\x1b_Gi=31;ENOTSUPPORTED:x\x1b\\\x1b[?1;2c");
    assert!(!r.kitty && !r.sixel() && r.attributes.is_some());
    assert!(!has_attributes(b"\x1b[?1;2"));
    assert!(!has_attributes(b"\x1b[6;18;9t"));
    assert_eq!(parse_replies(b"\x1b[6;0;0t").cell, None);
    assert_eq!(parse_replies(b"\x1b\x1b[").attributes, None);
}

/// A scripted terminal: the replies to each query in turn, and what was asked.
struct Scripted {
    replies: Vec<&'static [u8]>,
    asked: Vec<Vec<u8>>,
    bounds: Vec<Duration>,
}

fn run(
    setting: ImagePreview,
    no_color: bool,
    env: &[(&str, &str)],
    is_terminal: bool,
    cell_pixels: Option<(u16, u16)>,
    replies: Vec<&'static [u8]>,
) -> (Detection, Scripted) {
    run_wanting(
        Wants::default(),
        setting,
        no_color,
        env,
        is_terminal,
        cell_pixels,
        replies,
    )
}

fn run_wanting(
    wants: Wants,
    setting: ImagePreview,
    no_color: bool,
    env: &[(&str, &str)],
    is_terminal: bool,
    cell_pixels: Option<(u16, u16)>,
    replies: Vec<&'static [u8]>,
) -> (Detection, Scripted) {
    let mut script = Scripted {
        replies,
        asked: Vec::new(),
        bounds: Vec::new(),
    };
    let mut ask = |q: &[u8], _: fn(&[u8]) -> bool, bound: Duration| {
        script.asked.push(q.to_vec());
        script.bounds.push(bound);
        Ok(if script.replies.is_empty() {
            Vec::new()
        } else {
            script.replies.remove(0).to_vec()
        })
    };
    let d = detect_with(
        setting,
        no_color,
        wants,
        &env_of(env),
        &mut Tty {
            is_terminal,
            cell_pixels,
            ask: &mut ask,
        },
    );
    (d, script)
}

const XTERM: &[(&str, &str)] = &[("TERM", "xterm-256color")];

#[test]
fn a_silent_terminal_is_asked_once_then_never_again() {
    let (d, s) = run(ImagePreview::Auto, false, XTERM, true, None, vec![]);
    assert_eq!(s.asked, [DEVICE_ATTRIBUTES.to_vec()]);
    assert_eq!(d.queries, 1);
    assert!(s.bounds.iter().all(|b| *b <= Duration::from_millis(200)));
    assert_eq!(d.graphics, Some(Graphics::halfblocks()));
    assert!(d.note.contains("did not answer"), "{}", d.note);
}

#[test]
fn nothing_is_asked_off_a_terminal_or_when_the_environment_tells() {
    let (d, s) = run(ImagePreview::Auto, false, XTERM, false, None, vec![]);
    assert!(s.asked.is_empty());
    assert_eq!(
        d.graphics.map(|g| g.protocol),
        Some(GraphicsProtocol::Halfblocks)
    );
    let kitty = &[("TERM", "xterm-kitty")];
    let (d, s) = run(
        ImagePreview::Auto,
        false,
        kitty,
        true,
        Some((9, 18)),
        vec![],
    );
    assert!(s.asked.is_empty());
    assert_eq!(
        d.graphics,
        Some(Graphics {
            protocol: GraphicsProtocol::Kitty,
            cell: (9, 18),
            tmux: false
        })
    );
    let tmux = &[("TERM", "tmux-256color"), ("TMUX", "x")];
    let (d, s) = run(ImagePreview::Auto, false, tmux, true, None, vec![]);
    assert!(s.asked.is_empty());
    assert_eq!(
        d.graphics.map(|g| (g.protocol, g.tmux)),
        Some((GraphicsProtocol::Halfblocks, true))
    );
    let (d, s) = run(ImagePreview::Off, false, XTERM, true, None, vec![]);
    assert!(s.asked.is_empty() && d.graphics.is_none());
    assert!(d.note.contains("off"));
}

#[test]
fn a_prompt_terminal_is_asked_about_graphics() {
    // Sixel in the device attributes: no kitty question, only the cell size.
    let (d, s) = run(
        ImagePreview::Auto,
        false,
        XTERM,
        true,
        None,
        vec![b"\x1b[?62;4;22c", b"\x1b[6;20;10t\x1b[?62;4;22c"],
    );
    assert_eq!(s.asked.len(), 2);
    assert_eq!(s.asked[1], b"\x1b[16t\x1b[c");
    assert_eq!(
        d.graphics.map(|g| (g.protocol, g.cell)),
        Some((GraphicsProtocol::Sixel, (10, 20)))
    );
    assert_eq!(d.cell_pixels, Some((10, 20)));
    // No sixel: the kitty question; the kernel already told the cell size.
    let (d, s) = run(
        ImagePreview::Auto,
        false,
        XTERM,
        true,
        Some((8, 16)),
        vec![b"\x1b[?62;22c", b"\x1b_Gi=31;OK\x1b\\\x1b[?62;22c"],
    );
    assert_eq!(s.asked[1], [KITTY_QUERY, DEVICE_ATTRIBUTES].concat());
    assert_eq!(
        d.graphics.map(|g| (g.protocol, g.cell)),
        Some((GraphicsProtocol::Kitty, (8, 16)))
    );
    // Neither: half-blocks.
    let (d, _) = run(
        ImagePreview::Auto,
        false,
        XTERM,
        true,
        Some((8, 16)),
        vec![b"\x1b[?1;2c", b"\x1b[?1;2c"],
    );
    assert_eq!(d.graphics, Some(Graphics::halfblocks()));
}

#[test]
fn no_color_turns_half_blocks_off_but_not_pictures() {
    let (d, _) = run(ImagePreview::Auto, true, XTERM, true, None, vec![]);
    assert_eq!(d.graphics, None);
    assert!(d.note.contains("NO_COLOR"), "{}", d.note);
    assert!(!d.note.contains('\n'));
    let (d, _) = run(ImagePreview::Halfblocks, true, XTERM, true, None, vec![]);
    assert_eq!(d.graphics, None);
    let (d, s) = run(
        ImagePreview::Sixel,
        true,
        XTERM,
        true,
        Some((9, 18)),
        vec![],
    );
    assert!(s.asked.is_empty());
    assert_eq!(
        d.graphics.map(|g| g.protocol),
        Some(GraphicsProtocol::Sixel)
    );
}

#[test]
fn a_forced_protocol_asks_only_for_the_missing_cell_size() {
    let (d, s) = run(
        ImagePreview::Iterm2,
        false,
        XTERM,
        true,
        None,
        vec![b"\x1b[6;16;8t\x1b[?1;2c"],
    );
    assert_eq!(s.asked, [[CELL_SIZE_QUERY, DEVICE_ATTRIBUTES].concat()]);
    assert_eq!(
        d.graphics.map(|g| (g.protocol, g.cell)),
        Some((GraphicsProtocol::Iterm2, (8, 16)))
    );
    // In tmux nothing is asked; the default cell size stands in.
    let tmux = &[("TERM", "tmux-256color"), ("TMUX", "x")];
    let (d, s) = run(ImagePreview::Kitty, false, tmux, true, None, vec![]);
    assert!(s.asked.is_empty());
    assert_eq!(
        d.graphics,
        Some(Graphics {
            protocol: GraphicsProtocol::Kitty,
            cell: DEFAULT_CELL,
            tmux: true
        })
    );
}

const BOTH: Wants = Wants {
    sync: true,
    background: true,
};
const LIGHT_AND_SYNC: &[u8] =
    b"\x1b[6;20;10t\x1b[?2026;2$y\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62;4;22c";

#[test]
fn sync_and_background_ride_with_the_second_question() {
    let (d, s) = run_wanting(
        BOTH,
        ImagePreview::Auto,
        false,
        XTERM,
        true,
        None,
        vec![b"\x1b[?62;4;22c", LIGHT_AND_SYNC],
    );
    assert_eq!(s.asked.len(), 2, "still at most two questions");
    assert_eq!(
        s.asked[1],
        [
            CELL_SIZE_QUERY,
            answers::SYNC_QUERY,
            answers::BACKGROUND_QUERY,
            DEVICE_ATTRIBUTES
        ]
        .concat()
    );
    assert_eq!(d.sync, Some(SyncMode::Supported));
    assert_eq!(d.background, Some(Rgb(255, 255, 255)));
    assert_eq!(
        d.graphics.map(|g| g.protocol),
        Some(GraphicsProtocol::Sixel)
    );
}

#[test]
fn a_silent_terminal_is_asked_nothing_more_and_partial_answers_count_for_nothing() {
    let (d, s) = run_wanting(BOTH, ImagePreview::Auto, false, XTERM, true, None, vec![]);
    assert_eq!(s.asked, [DEVICE_ATTRIBUTES.to_vec()]);
    assert_eq!((d.sync, d.background), (None, None));
    // The same with previews off or forced: asked nothing after the silence.
    for setting in [ImagePreview::Off, ImagePreview::Sixel] {
        let (d, s) = run_wanting(BOTH, setting, false, XTERM, true, Some((8, 16)), vec![]);
        assert_eq!(s.asked, [DEVICE_ATTRIBUTES.to_vec()], "{setting:?}");
        assert_eq!((d.sync, d.background), (None, None));
    }
    // The second answer cut off inside the colour (the bound passed): nothing of it.
    let (d, _) = run_wanting(
        BOTH,
        ImagePreview::Auto,
        false,
        XTERM,
        true,
        Some((8, 16)),
        vec![b"\x1b[?62;4;22c", b"\x1b[?2026;0$y\x1b]11;rgb:ffff/ff"],
    );
    assert_eq!(d.sync, Some(SyncMode::Unsupported));
    assert_eq!(d.background, None);
    // Garbage where the answers should be.
    let (d, _) = run_wanting(
        BOTH,
        ImagePreview::Auto,
        false,
        XTERM,
        true,
        Some((8, 16)),
        vec![
            b"\x1b[?62;4;22c",
            b"\x1b[?2026$y\x1b]11;nonsense\x07\x1b[?62;4;22c",
        ],
    );
    assert_eq!((d.sync, d.background), (None, None));
}

#[test]
fn with_previews_off_or_known_the_terminal_is_still_asked_once_it_proved_prompt() {
    // Previews off on an unknown terminal: device attributes first, then the rest.
    let (d, s) = run_wanting(
        BOTH,
        ImagePreview::Off,
        false,
        XTERM,
        true,
        None,
        vec![b"\x1b[?62;4;22c", LIGHT_AND_SYNC],
    );
    assert_eq!(s.asked.len(), 2);
    assert_eq!(
        s.asked[1],
        [
            answers::SYNC_QUERY,
            answers::BACKGROUND_QUERY,
            DEVICE_ATTRIBUTES
        ]
        .concat()
    );
    assert!(d.graphics.is_none() && d.note.contains("off"));
    assert_eq!(d.background, Some(Rgb(255, 255, 255)));
    // kitty, named by the environment: one question with everything.
    let (d, s) = run_wanting(
        BOTH,
        ImagePreview::Auto,
        false,
        &[("TERM", "xterm-kitty")],
        true,
        Some((9, 18)),
        vec![b"\x1b[?2026;2$y\x1b]11;rgb:0000/0000/0000\x1b\\\x1b[?62;4;22c"],
    );
    assert_eq!(s.asked.len(), 1);
    assert_eq!(d.sync, Some(SyncMode::Supported));
    assert_eq!(d.background, Some(Rgb(0, 0, 0)));
    // tmux answers for itself: asked, without the graphics questions.
    let tmux = &[("TERM", "tmux-256color"), ("TMUX", "x")];
    let (_, s) = run_wanting(BOTH, ImagePreview::Auto, false, tmux, true, None, vec![]);
    assert_eq!(
        s.asked,
        [[
            answers::SYNC_QUERY,
            answers::BACKGROUND_QUERY,
            DEVICE_ATTRIBUTES
        ]
        .concat()]
    );
    // Never on the Linux console, in screen, or off a terminal.
    for env in [&[("TERM", "linux")][..], &[("TERM", "screen")]] {
        let (_, s) = run_wanting(BOTH, ImagePreview::Auto, false, env, true, None, vec![]);
        assert!(s.asked.is_empty(), "{env:?}");
    }
    let (_, s) = run_wanting(BOTH, ImagePreview::Auto, false, XTERM, false, None, vec![]);
    assert!(s.asked.is_empty());
}
