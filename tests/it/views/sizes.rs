//! Every size from 0x0 to 250x80: nothing panics, the geometry the clicks use is the drawn one.

use super::*;

/// Every size from 0x0 to 250x80 (in four bands of widths, so the bands run in parallel; the
/// bands take about as much CPU each, ~2 s: a narrow width is drawn at every height, a wide one
/// at few, so 0 to 62 took twice the others and ran on alone at the run's end), with
/// the watch list, a popup and a filter on screen: the geometry the clicks use lies on the
/// screen at each size, and at the sizes of [`drawn_at`] the screen renders, the geometry is the
/// drawn screen's, and wherever there is room the panes and the popup are actually drawn.
const SWEEP_BANDS: [std::ops::RangeInclusive<u16>; 4] = [0..=40, 41..=98, 99..=177, 178..=250];

/// The bands are the widths 0 to 250, each once.
#[test]
fn the_size_bands_cover_every_width_once() {
    let widths: Vec<u16> = SWEEP_BANDS.iter().flat_map(Clone::clone).collect();
    assert_eq!(widths, (0..=250).collect::<Vec<u16>>());
}

#[test]
fn every_size_renders_without_panic_widths_0_to_40() {
    sizes_render(SWEEP_BANDS[0].clone());
}

#[test]
fn every_size_renders_without_panic_widths_41_to_98() {
    sizes_render(SWEEP_BANDS[1].clone());
}

#[test]
fn every_size_renders_without_panic_widths_99_to_177() {
    sizes_render(SWEEP_BANDS[2].clone());
}

#[test]
fn every_size_renders_without_panic_widths_178_to_250() {
    sizes_render(SWEEP_BANDS[3].clone());
}

fn sizes_render(widths: std::ops::RangeInclusive<u16>) {
    // Room for a band's vertical splits (every height, both states) until the next width uses
    // them again: with the default 500 they are pushed out first (a band 8.3 s instead of 7.3 s).
    ratatui::layout::Layout::init_cache(std::num::NonZeroUsize::new(4000).unwrap());
    let mut s = watching();
    s.update(Action::FocusFilter);
    typed(&mut s, "wat");
    s.update(Action::Cancel);
    let mut with_help = watching();
    with_help.update(Action::ToggleHelp);
    // One terminal for the whole band, its buffers resized in place: 40,000 fresh terminals
    // spent a third of the sweep allocating and faulting in their buffers.
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(0, 0)).expect("a test terminal");
    for width in widths {
        for height in 0..=80u16 {
            for (help, state) in [(false, &mut s), (true, &mut with_help)] {
                state.update(Action::Resize { width, height });
                let a = state.areas;
                assert_eq!(a.full, Rect::new(0, 0, width, height));
                for (name, r) in [
                    ("browser", a.browser),
                    ("filter", a.browser_filter),
                    ("list", a.browser_list),
                    ("detail", a.browser_detail),
                    ("watch", a.watch),
                    ("watch header", a.watch_header),
                    ("watch rows", a.watch_rows),
                    ("status", a.status),
                    ("hints", a.hints),
                    ("help", a.help),
                ] {
                    assert!(
                        r.area() == 0 || (r.right() <= width && r.bottom() <= height),
                        "{width}x{height}: the {name} area {r:?} is off screen"
                    );
                }
                if !drawn_at(width, height) {
                    continue;
                }
                let buffer = drawn_in(&mut terminal, state, width, height);
                // Now and then, the same screen as a terminal of its own draws.
                if (width + height) % 97 == 0 {
                    assert_eq!(
                        crate::common::buffer_text(buffer),
                        crate::common::rendered_text(state, width, height),
                        "{width}x{height}: drawn in the reused terminal"
                    );
                }
                // Each pane's title on its top border, and the rows below the watch pane's
                // header, where the geometry says they are.
                if width >= 60 && height >= 20 {
                    let top = |r: Rect| region_text(buffer, Rect { height: 1, ..r });
                    if help {
                        assert!(top(a.help).contains("Keys"), "{width}x{height}: no help");
                    } else {
                        assert!(
                            top(a.browser).contains("LoRA models")
                                && top(a.watch).contains("Watch list"),
                            "{width}x{height}: a pane is missing"
                        );
                        let rows = Rect {
                            height: a.watch_rows.height.min(4),
                            ..a.watch_rows
                        };
                        assert!(
                            region_text(buffer, rows).contains("render-001"),
                            "{width}x{height}: no watch rows"
                        );
                    }
                }
            }
        }
    }
}

/// The sizes the sweep draws at: every size up to 30 rows or 60 columns, where every row and
/// column is fought over and where panics from too little room live, and beyond that every
/// width at the heights of common terminals and every height at the widths where the layout
/// changes (the detail beside the list from 90 columns) or that are common (80, 220, 250). A
/// screen's cost grows with its area: the sizes left out (rows 31 to 80 at widths 61 to 250,
/// but for those) were two thirds of the sweep's cells and of its time; their geometry is still
/// checked.
fn drawn_at(width: u16, height: u16) -> bool {
    const WIDTHS: [u16; 11] = [80, 89, 90, 91, 100, 120, 150, 200, 219, 220, 250];
    const HEIGHTS: [u16; 7] = [31, 40, 45, 50, 60, 79, 80];
    height <= 30 || width <= 60 || WIDTHS.contains(&width) || HEIGHTS.contains(&height)
}

/// The text of the cells in `area`, row after row.
fn region_text(buffer: &ratatui::buffer::Buffer, area: Rect) -> String {
    let mut text = String::new();
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            text.push_str(buffer[(x, y)].symbol());
        }
    }
    text
}

/// `state` rendered at `width`×`height` into `terminal`, resized and emptied first: the frame
/// as rendered, not flushed to the backend.
pub(super) fn drawn_in<'t>(
    terminal: &'t mut ratatui::Terminal<ratatui::backend::TestBackend>,
    state: &gendash::app::state::State,
    width: u16,
    height: u16,
) -> &'t ratatui::buffer::Buffer {
    terminal
        .resize(Rect::new(0, 0, width, height))
        .expect("resizing a test terminal");
    // Resizing keeps the cells that fit; a fresh terminal's are empty.
    terminal.current_buffer_mut().reset();
    gendash::ui::render(state, &mut terminal.get_frame());
    terminal.current_buffer_mut()
}
