//! Every foreground/background pair the view draws, in each theme and with base16 schemes
//! loaded (`theme_file`), is readable: a WCAG 2
//! contrast ratio of at least 4.5:1. The screens a user meets (both panes, every task state,
//! every popup, selected rows in each pane and on each kind of row) are drawn on `TestBackend`
//! and every visible cell's actual colours are measured, so no pair escapes.
//!
//! Colours are resolved as the terminal shows them: `Reset` is the theme's assumed terminal
//! colour (dark and high-contrast: white-ish text on black; light: black on white; a scheme:
//! its base05 on its base00, as a terminal using the scheme shows it), the 16
//! named colours and the 256 indexed ones are xterm's standard values (`reversed` swaps the
//! pair, which leaves its ratio as it is). A cell with neither colour set is the terminal's own pair, not the theme's, and is
//! not counted.

use super::looks::demo_screen;
use gendash::api::{ApiError, TaskKind, TaskResult};
use gendash::app::action::Action;
use gendash::app::state::{Pane, State, Theme};
use gendash::cmd::TaskKey;
use gendash::msg::{DownloadEvent, Msg};
use gendash::store::config::{Base16, ThemeName};
use ratatui::style::Color;
use std::collections::BTreeMap;

const MIN_RATIO: f64 = 4.5;

type Rgb = (u8, u8, u8);

/// What the screen is drawn with: a built-in palette or a loaded base16 scheme.
#[derive(Debug)]
enum Look {
    Named(ThemeName),
    Scheme(Base16),
}

impl Look {
    fn theme(&self) -> Theme {
        match self {
            Look::Named(name) => Theme::new(*name, &BTreeMap::new(), false),
            Look::Scheme(scheme) => {
                Theme::configured(ThemeName::Auto, Some(scheme), &BTreeMap::new(), false)
            }
        }
    }

    /// The terminal's own colours the look is made for: (foreground, background).
    fn assumed_terminal(&self) -> (Rgb, Rgb) {
        match self {
            Look::Named(ThemeName::Dark | ThemeName::Auto) => ((229, 229, 229), (0, 0, 0)),
            Look::Named(ThemeName::Light) => ((0, 0, 0), (255, 255, 255)),
            Look::Named(ThemeName::HighContrast) => ((255, 255, 255), (0, 0, 0)),
            Look::Scheme(scheme) => (scheme.colours[5], scheme.colours[0]),
        }
    }

    fn name(&self) -> String {
        match self {
            Look::Named(name) => format!("{name:?}"),
            Look::Scheme(scheme) => format!("scheme {}", scheme.name),
        }
    }
}

/// A scheme from its sixteen colours, base00 first.
fn scheme(name: &str, hex: [u32; 16]) -> Look {
    let colours = hex.map(|h| {
        let [_, r, g, b] = h.to_be_bytes();
        (r, g, b)
    });
    Look::Scheme(Base16 {
        path: format!("{name}.yaml").into(),
        name: name.into(),
        colours,
    })
}

/// Real schemes of each kind (tinted-theming's palettes: the colours only), and one made to be
/// hard: mid-grey text, a selection lighter than its text, colours close to the background.
fn schemes() -> Vec<Look> {
    vec![
        scheme(
            "default-dark",
            [
                0x18_1818, 0x28_2828, 0x38_3838, 0x58_5858, 0xb8_b8b8, 0xd8_d8d8, 0xe8_e8e8,
                0xf8_f8f8, 0xab_4642, 0xdc_9656, 0xf7_ca88, 0xa1_b56c, 0x86_c1b9, 0x7c_afc2,
                0xba_8baf, 0xa1_6946,
            ],
        ),
        scheme(
            "solarized-light",
            [
                0xfd_f6e3, 0xee_e8d5, 0x93_a1a1, 0x83_9496, 0x65_7b83, 0x58_6e75, 0x07_3642,
                0x00_2b36, 0xdc_322f, 0xcb_4b16, 0xb5_8900, 0x85_9900, 0x2a_a198, 0x26_8bd2,
                0x6c_71c4, 0xd3_3682,
            ],
        ),
        scheme(
            "gruvbox-dark-medium",
            [
                0x28_2828, 0x3c_3836, 0x50_4945, 0x66_5c54, 0xbd_ae93, 0xd5_c4a1, 0xeb_dbb2,
                0xfb_f1c7, 0xfb_4934, 0xfe_8019, 0xfa_bd2f, 0xb8_bb26, 0x8e_c07c, 0x83_a598,
                0xd3_869b, 0xd6_5d0e,
            ],
        ),
        scheme(
            "murky",
            [
                0x55_5555, 0x5a_5a5a, 0xa0_a0a0, 0x60_6060, 0x66_6666, 0x77_7777, 0x88_8888,
                0x99_9999, 0x77_4444, 0x77_5544, 0x77_7744, 0x44_7744, 0x44_7777, 0x44_4477,
                0x77_4477, 0x66_5544,
            ],
        ),
    ]
}

/// xterm's standard value of a colour; `Reset` is `default`.
fn rgb(c: Color, default: Rgb) -> Rgb {
    const ANSI: [Rgb; 16] = [
        (0, 0, 0),
        (205, 0, 0),
        (0, 205, 0),
        (205, 205, 0),
        (0, 0, 238),
        (205, 0, 205),
        (0, 205, 205),
        (229, 229, 229),
        (127, 127, 127),
        (255, 0, 0),
        (0, 255, 0),
        (255, 255, 0),
        (92, 92, 255),
        (255, 0, 255),
        (0, 255, 255),
        (255, 255, 255),
    ];
    let indexed = |i: u8| -> Rgb {
        match i {
            0..=15 => ANSI[usize::from(i)],
            16..=231 => {
                let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
                let n = i - 16;
                (level(n / 36), level(n / 6 % 6), level(n % 6))
            }
            _ => {
                let g = 8 + 10 * (i - 232);
                (g, g, g)
            }
        }
    };
    match c {
        Color::Reset => default,
        Color::Black => indexed(0),
        Color::Red => indexed(1),
        Color::Green => indexed(2),
        Color::Yellow => indexed(3),
        Color::Blue => indexed(4),
        Color::Magenta => indexed(5),
        Color::Cyan => indexed(6),
        Color::Gray => indexed(7),
        Color::DarkGray => indexed(8),
        Color::LightRed => indexed(9),
        Color::LightGreen => indexed(10),
        Color::LightYellow => indexed(11),
        Color::LightBlue => indexed(12),
        Color::LightMagenta => indexed(13),
        Color::LightCyan => indexed(14),
        Color::White => indexed(15),
        Color::Indexed(i) => indexed(i),
        Color::Rgb(r, g, b) => (r, g, b),
    }
}

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

fn ratio(a: Rgb, b: Rgb) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

#[test]
fn the_ratio_is_wcag_s() {
    assert!((ratio((0, 0, 0), (255, 255, 255)) - 21.0).abs() < 1e-9);
    assert!((ratio((119, 119, 119), (255, 255, 255)) - 4.48).abs() < 0.01);
    assert_eq!(rgb(Color::Indexed(196), (1, 1, 1)), (255, 0, 0));
    assert_eq!(rgb(Color::Indexed(244), (1, 1, 1)), (128, 128, 128));
    assert_eq!(rgb(Color::Reset, (1, 2, 3)), (1, 2, 3));
}

/// A pair that reads too faintly, with where it was first seen.
#[derive(Debug)]
struct Faint {
    ratio: f64,
    screen: String,
    at: (u16, u16),
    text: String,
}

/// Every visible cell of `s` drawn in `theme`: the pairs below `MIN_RATIO`, by pair.
fn faint_pairs(
    s: &mut State,
    theme: &Look,
    screen: &str,
    found: &mut BTreeMap<String, Faint>,
) -> usize {
    s.theme = theme.theme();
    let (fg_default, bg_default) = theme.assumed_terminal();
    let a = s.areas.full;
    let t = crate::common::drawn(s);
    let buffer = t.backend().buffer();
    let mut cells = 0;
    for y in 0..a.height {
        for x in 0..a.width {
            let cell = &buffer[(x, y)];
            if cell.symbol().trim().is_empty() || (cell.fg, cell.bg) == (Color::Reset, Color::Reset)
            {
                continue;
            }
            cells += 1;
            // Each colour is resolved in its own place before `reversed` swaps them: a
            // reversed default background is the terminal's background colour as text.
            let (fg, bg) = (cell.fg, cell.bg);
            let r = ratio(rgb(fg, fg_default), rgb(bg, bg_default));
            if r < MIN_RATIO {
                let row: String = (0..a.width).map(|x| buffer[(x, y)].symbol()).collect();
                found
                    .entry(format!("{} {fg:?} on {bg:?}", theme.name()))
                    .or_insert_with(|| Faint {
                        ratio: r,
                        screen: screen.to_string(),
                        at: (x, y),
                        text: row.trim().to_string(),
                    });
            }
        }
    }
    cells
}

/// [`faint_pairs`] of a screen that must show `text`, so the tour sees what it claims to.
fn shown(
    s: &mut State,
    theme: &Look,
    screen: &str,
    text: &str,
    found: &mut BTreeMap<String, Faint>,
) -> usize {
    let a = s.areas.full;
    let drawn = crate::common::rendered_text(s, a.width, a.height);
    assert!(drawn.contains(text), "{screen} does not show {text:?}");
    faint_pairs(s, theme, screen, found)
}

fn refused() -> ApiError {
    ApiError::Connect {
        origin: "http://127.0.0.1:8787".into(),
        detail: "Connection refused (os error 111)".into(),
    }
}

fn result(id: &str, kind: TaskKind, status: &str, percent: u8) -> TaskResult {
    TaskResult {
        kind,
        ..gendash::testing::task_result(id, status, percent)
    }
}

fn polled(s: &mut State, id: &str, kind: TaskKind, r: Result<TaskResult, ApiError>) {
    s.apply(Msg::Polled {
        key: TaskKey::new(kind, id),
        result: r,
        retry_in: Some(std::time::Duration::from_secs(8)),
        next: None,
    });
}

/// The demo's screen with a watch list holding every state: running, stalled, completed
/// (saved, and downloading), failed, erroring, not found, not polled.
fn every_state(width: u16, height: u16) -> State {
    let mut s = demo_screen();
    let start = s.now;
    for id in [
        "stuck-1",
        "erroring-2",
        "gone-3",
        "never-4",
        "saved-5",
        "fetching-6",
    ] {
        s.update(Action::OpenAddDialog);
        s.update(Action::Paste(id.into()));
        s.update(Action::Submit);
    }
    s.watch.stall_after = 60;
    polled(
        &mut s,
        "stuck-1",
        TaskKind::Image,
        Ok(result("stuck-1", TaskKind::Image, "IN_PROGRESS", 40)),
    );
    s.apply(Msg::Tick(start + 400));
    polled(
        &mut s,
        "stuck-1",
        TaskKind::Image,
        Ok(result("stuck-1", TaskKind::Image, "IN_PROGRESS", 40)),
    );
    for percent in [10, 30] {
        polled(
            &mut s,
            "sim-45-portrait-batch",
            TaskKind::Image,
            Ok(result(
                "sim-45-portrait-batch",
                TaskKind::Image,
                "IN_PROGRESS",
                percent,
            )),
        );
    }
    polled(
        &mut s,
        "erroring-2",
        TaskKind::Image,
        Err(ApiError::Http {
            status: 502,
            excerpt: "Bad Gateway".into(),
            retry_after: None,
        }),
    );
    polled(
        &mut s,
        "gone-3",
        TaskKind::Image,
        Err(ApiError::Lookup {
            description: "task not found".into(),
        }),
    );
    for id in ["saved-5", "fetching-6"] {
        polled(
            &mut s,
            id,
            TaskKind::Image,
            Ok(result(id, TaskKind::Image, "COMPLETED", 100)),
        );
    }
    s.apply(Msg::Download {
        key: TaskKey::new(TaskKind::Image, "saved-5"),
        event: DownloadEvent::Saved("/tmp/dl/saved-5.png".into()),
    });
    s.apply(Msg::Download {
        key: TaskKey::new(TaskKind::Image, "fetching-6"),
        event: DownloadEvent::Progress {
            done: 450,
            total: Some(1_000),
        },
    });
    s.update(Action::Resize { width, height });
    s
}

/// Draws `s` once per row of the focused pane with that row selected, then once more.
fn each_selected_row(
    s: &mut State,
    rows: usize,
    theme: &Look,
    screen: &str,
    found: &mut BTreeMap<String, Faint>,
) -> usize {
    s.update(Action::Top);
    let mut cells = 0;
    for _ in 0..rows {
        cells += faint_pairs(s, theme, screen, found);
        s.update(Action::Down);
    }
    cells
}

/// Every screen of the tour, in `theme`: the cells measured.
fn tour(theme: &Look, found: &mut BTreeMap<String, Faint>) -> usize {
    tour_panes(theme, found) + tour_popups(theme, found) + tour_fields(theme, found)
}

/// Both panes: each row selected, focused and not, every task state, three sizes.
fn tour_panes(theme: &Look, found: &mut BTreeMap<String, Faint>) -> usize {
    let mut cells = 0;
    // The demo: the browser filtered (highlights), its rows selected in turn.
    let mut s = demo_screen();
    s.focus = Pane::Browser;
    cells += each_selected_row(&mut s, 20, theme, "browser", found);
    // Both panes' selected rows while the other pane has the keyboard.
    s.focus = Pane::Watch;
    cells += faint_pairs(&mut s, theme, "browser unfocused", found);
    // A filter with fields: the detail line.
    s.update(Action::FocusFilter);
    s.update(Action::Paste(" author:^pix !license:rail".into()));
    s.update(Action::Submit);
    cells += faint_pairs(&mut s, theme, "filter detail", found);

    // Every state, at 140x45 (the detail), 80x24 and 240x50 (gauges, every column); each row
    // selected, focused.
    for (w, h) in [(140, 45), (80, 24), (240, 50)] {
        let mut s = every_state(w, h);
        s.focus = Pane::Watch;
        let rows = s.watch.rows.len();
        cells += each_selected_row(&mut s, rows, theme, &format!("watch {w}x{h}"), found);
    }
    // The status bar with a notice and the last error.
    let mut s = every_state(240, 50);
    s.focus = Pane::Watch;
    s.update(Action::Remove);
    cells += shown(&mut s, theme, "notice", "removed ", found);
    cells
}

/// Help, the add dialog with an error, the request log, the overwrite question.
fn tour_popups(theme: &Look, found: &mut BTreeMap<String, Faint>) -> usize {
    let mut cells = 0;
    let mut s = every_state(120, 40);
    s.update(Action::ToggleHelp);
    cells += shown(&mut s, theme, "help", "Keys · ", found);
    s.update(Action::ToggleHelp);
    s.update(Action::OpenAddDialog);
    s.update(Action::Paste("good-1 ..".into()));
    s.update(Action::Submit);
    cells += shown(&mut s, theme, "add dialog", "ID 2 of 2:", found);
    s.update(Action::Cancel);
    for (i, (status, error)) in [
        (Some(200), None),
        (Some(502), None),
        (None, Some("connection refused")),
    ]
    .into_iter()
    .enumerate()
    {
        s.apply(Msg::Request(gendash::api::recording::RequestRecord {
            at: std::time::UNIX_EPOCH + std::time::Duration::from_secs(s.now + i as u64),
            method: "POST",
            url: format!("http://127.0.0.1:8787/ai/image_generation/t-{i}"),
            authorized: true,
            status,
            error: error.map(str::to_string),
            duration: std::time::Duration::from_millis(40),
            bytes: 1_234,
            output: None,
        }));
    }
    s.update(Action::ToggleRequests);
    cells += each_selected_row(&mut s, 3, theme, "request log", found);
    s.update(Action::Cancel);

    // The overwrite question.
    s.apply(Msg::Download {
        key: TaskKey::new(TaskKind::Image, "saved-5"),
        event: DownloadEvent::Exists("/tmp/dl/saved-5.png".into()),
    });
    cells += shown(
        &mut s,
        theme,
        "confirm",
        "overwrite /tmp/dl/saved-5.png?",
        found,
    );
    s.update(Action::Cancel);
    cells
}

/// Text fields, a failed download, the catalogue cached offline, loading and failing.
fn tour_fields(theme: &Look, found: &mut BTreeMap<String, Faint>) -> usize {
    let mut cells = 0;
    let mut s = every_state(120, 40);
    // Typing in the watch pane's filter, and in the browser's category field; a favourite.
    s.focus = Pane::Watch;
    s.update(Action::FocusFilter);
    s.update(Action::Paste("ing".into()));
    cells += faint_pairs(&mut s, theme, "watch filter", found);
    s.update(Action::Submit);
    s.focus = Pane::Browser;
    s.update(Action::ToggleFavourite);
    s.update(Action::EditCategory);
    s.update(Action::PickNext);
    cells += faint_pairs(&mut s, theme, "category field", found);
    s.update(Action::Cancel);

    // A failed download in the row and the status bar.
    s.apply(Msg::Download {
        key: TaskKey::new(TaskKind::Image, "fetching-6"),
        event: DownloadEvent::Failed("connection reset".into()),
    });
    cells += shown(&mut s, theme, "download failed", "connection reset", found);

    // The cached catalogue, offline: a type change shows the copy while the load fails.
    s.update(Action::CycleType);
    s.apply(Msg::CachedCatalogue {
        generation: s.browser.generation,
        cached: Some(gendash::store::catalogue_cache::Cached {
            catalogue: gendash::api::Catalogue {
                entries: s.browser.entries.iter().take(5).cloned().collect(),
                skipped: 0,
            }
            .into(),
            saved_at: s.now - 3 * 3600,
            // A broader copy narrowed here: its mark is drawn too.
            filtered: true,
        }),
    });
    s.apply(Msg::Catalogue {
        generation: s.browser.generation,
        result: Err(refused()),
    });
    cells += shown(&mut s, theme, "cached", "cached 3h ago", found);

    // Nothing loaded and nothing cached.
    let mut s = State::new(gendash::app::state::Init {
        service_url: "http://127.0.0.1:8787/".into(),
        categories: Vec::new(),
        watch: Vec::new(),
        failure_statuses: gendash::api::types::default_failure_statuses(),
        settings: gendash::app::state::UiSettings {
            bell: true,
            desktop_notifications: true,
            no_color: false,
            poll_interval: 2,
        },
        now: 1_800_000_000,
        ..gendash::app::state::Init::default()
    });
    s.update(Action::Resize {
        width: 100,
        height: 20,
    });
    s.start();
    cells += shown(&mut s, theme, "loading", "Loading the catalogue", found);
    s.apply(Msg::Catalogue {
        generation: s.browser.generation,
        result: Err(refused()),
    });
    cells += shown(
        &mut s,
        theme,
        "catalogue error",
        "Cannot load the catalogue",
        found,
    );
    cells
}

#[test]
fn every_pair_drawn_reads_at_4_5_to_1_in_every_theme() {
    let mut found = BTreeMap::new();
    for theme in [ThemeName::Dark, ThemeName::Light, ThemeName::HighContrast] {
        let cells = tour(&Look::Named(theme), &mut found);
        assert!(cells > 10_000, "{theme:?}: only {cells} cells measured");
    }
    report_faint(&found);
}

/// The same tour with base16 schemes loaded: what the scheme gives that reads is kept, what
/// does not is moved until it reads (`app::theme::base16`), so no scheme makes text faint.
#[test]
fn every_pair_drawn_reads_at_4_5_to_1_with_loaded_schemes() {
    let mut found = BTreeMap::new();
    for look in schemes() {
        let cells = tour(&look, &mut found);
        assert!(
            cells > 10_000,
            "{}: only {cells} cells measured",
            look.name()
        );
    }
    report_faint(&found);
}

fn report_faint(found: &BTreeMap<String, Faint>) {
    let report: Vec<String> = found
        .iter()
        .map(|(theme_and_pair, f)| {
            format!(
                "{theme_and_pair}: {:.2} ({} at {:?}: {})",
                f.ratio, f.screen, f.at, f.text
            )
        })
        .collect();
    assert!(
        found.is_empty(),
        "pairs below {MIN_RATIO}:1\n{}",
        report.join("\n")
    );
}
