//! Screen geometry, computed once per resize and shared by the view and the mouse handling, so
//! a click lands on the row that was drawn there.

use ratatui::layout::{Constraint, Flex, Layout, Rect};

/// At this width and above the panes sit side by side.
pub const WIDE: u16 = 140;

/// The help overlay's size where the screen has room (borders included).
pub const HELP_SIZE: (u16, u16) = (76, 40);
/// The request log is as wide as this at most: beyond it a row only gains blank space.
pub const REQUESTS_WIDTH: u16 = 160;

/// The two panes: which has the keys, which covers the screen when zoomed, where a click fell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Browser,
    Watch,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Areas {
    pub full: Rect,
    pub browser: Rect,
    pub browser_filter: Rect,
    /// The line under the filter saying what its terms do (zero-sized when hidden).
    pub browser_filter_detail: Rect,
    pub browser_list: Rect,
    pub browser_detail: Rect,
    /// The selected catalogue entry's picture, at the right of its detail (empty: no room).
    pub browser_preview: Rect,
    pub watch: Rect,
    pub watch_header: Rect,
    pub watch_rows: Rect,
    /// The selected task's details, below the rows (zero-sized when hidden).
    pub watch_detail: Rect,
    /// Where a finished task's picture goes: the right of the detail section, roughly square
    /// on screen (zero-sized where the section is too small to share).
    pub watch_preview: Rect,
    pub status: Rect,
    pub hints: Rect,
    /// The help overlay, over everything (borders included).
    pub help: Rect,
    /// The request log, over everything (borders included), and its rows.
    pub requests: Rect,
    pub requests_rows: Rect,
    pub wide: bool,
    /// Whether the filter's detail line was asked for (it may have had no room).
    pub filter_detail: bool,
}

/// The picture's place in the detail section (below its one-line title): two columns per row,
/// as terminal cells are about twice as tall as wide, and at most two fifths of the width, so
/// the text keeps at least 36 columns. The archive view's detail places its picture the same.
pub fn preview_area(detail: Rect) -> Rect {
    picture_area(detail, 36)
}

/// [`preview_area`] leaving at least `text` columns beside the picture.
fn picture_area(detail: Rect, text: u16) -> Rect {
    let height = detail.height.saturating_sub(1);
    let width = (height * 2).min(detail.width * 2 / 5);
    if height < 4 || width < 8 || detail.width.saturating_sub(width + 1) < text {
        return Rect::default();
    }
    Rect::new(detail.right() - width, detail.y + 1, width, height)
}

/// The picture's place in the browser's detail: as [`preview_area`], beside a narrower text
/// (a model's fields are short, and the detail beside the list is narrow).
fn model_picture_area(detail: Rect) -> Rect {
    picture_area(detail, 24)
}

fn inner(r: Rect) -> Rect {
    // The pane's border, where there is room for one.
    if r.width >= 2 && r.height >= 2 {
        Rect {
            x: r.x + 1,
            y: r.y + 1,
            width: r.width - 2,
            height: r.height - 2,
        }
    } else {
        Rect {
            x: r.x,
            y: r.y,
            width: 0,
            height: 0,
        }
    }
}

/// The watch pane shows the selected task's details by itself from this inner height up.
pub const DETAIL_AUTO_HEIGHT: u16 = 24;
/// The detail section's height at most (its separator line included).
const DETAIL_MAX: u16 = 14;

/// The detail section's height in a watch pane of `inner` rows: `detail` is the user's choice
/// (`None`: shown where there is room).
fn detail_height(inner: u16, detail: Option<bool>) -> u16 {
    let wanted = match detail {
        None => inner >= DETAIL_AUTO_HEIGHT,
        Some(shown) => shown && inner >= 6,
    };
    if wanted {
        (inner * 2 / 5).clamp(4, DETAIL_MAX).min(inner - 2)
    } else {
        0
    }
}

/// The detail section's height in a zoomed watch pane of `inner` rows: shown unless the user
/// hid it, with three fifths of the room (at 80x24, 12 rows), the rows keeping at least three.
fn zoomed_detail_height(inner: u16, detail: Option<bool>) -> u16 {
    if detail == Some(false) || inner < 8 {
        return 0;
    }
    (inner * 3 / 5).min(inner - 4)
}

impl Areas {
    /// The geometry of a `width` x `height` screen; `detail` is the user's choice for the
    /// watch pane's detail section (`None`: shown where there is room).
    pub fn compute(width: u16, height: u16, detail: Option<bool>) -> Self {
        Self::compute_with(width, height, detail, false)
    }

    /// As `compute`, with a line under the browser's filter for what its terms do when
    /// `filter_detail` (taken from the list, where the pane has at least two rows for it).
    pub fn compute_with(
        width: u16,
        height: u16,
        detail: Option<bool>,
        filter_detail: bool,
    ) -> Self {
        Self::compute_zoomed(width, height, detail, filter_detail, None)
    }

    /// As `compute_with`, with the pane `zoom` (if any) over both panes' room; its detail
    /// section then has room for more.
    pub fn compute_zoomed(
        width: u16,
        height: u16,
        detail: Option<bool>,
        filter_detail: bool,
        zoom: Option<Pane>,
    ) -> Self {
        let full = Rect::new(0, 0, width, height);
        let [main, status, hints] = rows(
            &Layout::vertical([
                Constraint::Min(0),
                Constraint::Length(1),
                Constraint::Length(1),
            ]),
            full,
        );
        let wide = width >= WIDE;
        let halves = [Constraint::Percentage(50), Constraint::Percentage(50)];
        let [browser, watch] = if wide {
            columns(&Layout::horizontal(halves), main)
        } else {
            rows(&Layout::vertical(halves), main)
        };
        let (browser, watch) = match zoom {
            None => (browser, watch),
            Some(Pane::Browser) => (main, Rect::default()),
            Some(Pane::Watch) => (Rect::default(), main),
        };
        let b = inner(browser);
        let [browser_filter, body] = rows(
            &Layout::vertical([Constraint::Length(1), Constraint::Min(0)]),
            b,
        );
        let explain = u16::from(filter_detail && body.height >= 2);
        let [browser_filter_detail, body] = rows(
            &Layout::vertical([Constraint::Length(explain), Constraint::Min(0)]),
            body,
        );
        let (browser_list, browser_detail) = if body.width >= 90 {
            let [l, d] = columns(
                &Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]),
                body,
            );
            (l, d)
        } else {
            // Zoomed, the detail takes two thirds: the fields are what the zoom is for.
            let detail = if zoom.is_some() {
                body.height * 2 / 3
            } else {
                (body.height / 2).min(9)
            };
            let [l, d] = rows(
                &Layout::vertical([Constraint::Min(0), Constraint::Length(detail)]),
                body,
            );
            (l, d)
        };
        // Above the status bar and the hints, which stay in view: the notice of a copy, and
        // the log's own keys.
        let requests = centered(
            Rect {
                height: full.height.saturating_sub(2),
                ..full
            },
            full.width.saturating_sub(2).min(REQUESTS_WIDTH),
            full.height.saturating_sub(2),
        );
        // Below the title border: a header row, the rows, a rule and two lines of detail.
        let requests_rows = Rect::new(
            requests.x + 1,
            requests.y + 2,
            requests.width.saturating_sub(2),
            requests.height.saturating_sub(6),
        );
        let w = inner(watch);
        let [watch_header, watch_rows, watch_detail] = rows(
            &Layout::vertical([
                Constraint::Length(1),
                Constraint::Min(0),
                Constraint::Length(if zoom.is_some() {
                    zoomed_detail_height(w.height, detail)
                } else {
                    detail_height(w.height, detail)
                }),
            ]),
            w,
        );
        Areas {
            full,
            browser,
            browser_filter,
            browser_filter_detail,
            browser_list,
            browser_detail,
            browser_preview: model_picture_area(browser_detail),
            watch,
            watch_header,
            watch_rows,
            watch_detail,
            watch_preview: preview_area(watch_detail),
            status,
            hints,
            help: centered(full, HELP_SIZE.0, HELP_SIZE.1),
            requests,
            requests_rows,
            wide,
            filter_detail,
        }
    }

    /// The pane a screen position falls in, if any.
    pub fn pane_at(&self, column: u16, row: u16) -> Option<Pane> {
        if self.browser.contains_point(column, row) {
            Some(Pane::Browser)
        } else if self.watch.contains_point(column, row) {
            Some(Pane::Watch)
        } else {
            None
        }
    }
}

/// A rectangle of at most `width` x `height`, centred in `area`.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let [v] = rows(
        &Layout::vertical([Constraint::Length(height.min(area.height))]).flex(Flex::Center),
        area,
    );
    let [h] = columns(
        &Layout::horizontal([Constraint::Length(width.min(area.width))]).flex(Flex::Center),
        v,
    );
    h
}

/// A vertical `layout` over `area`, solved for a column as tall at the origin: the solution
/// depends on the height alone, so ratatui's layout cache (keyed by the area) answers for every
/// width and place, and a resize that keeps the height solves nothing again.
fn rows<const N: usize>(layout: &Layout, area: Rect) -> [Rect; N] {
    layout
        .areas::<N>(Rect::new(0, 0, 1, area.height))
        .map(|r| Rect::new(area.x, area.y + r.y, area.width, r.height))
}

/// As `rows`, for a horizontal `layout`: solved for a row as wide at the origin.
fn columns<const N: usize>(layout: &Layout, area: Rect) -> [Rect; N] {
    layout
        .areas::<N>(Rect::new(0, 0, area.width, 1))
        .map(|r| Rect::new(area.x + r.x, area.y, r.width, area.height))
}

/// `Rect::contains` with plain coordinates.
pub trait ContainsPoint {
    fn contains_point(&self, column: u16, row: u16) -> bool;
}

impl ContainsPoint for Rect {
    fn contains_point(&self, column: u16, row: u16) -> bool {
        self.contains(ratatui::layout::Position { x: column, y: row })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Solved at the origin and moved, a layout gives what it gives solved in place.
    #[test]
    fn rows_and_columns_are_the_layout_in_place() {
        let v = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(0),
            Constraint::Percentage(30),
        ]);
        let h = Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]);
        let c = Layout::vertical([Constraint::Length(7)]).flex(Flex::Center);
        for area in [
            Rect::new(3, 5, 40, 17),
            Rect::new(70, 1, 69, 44),
            Rect::new(0, 0, 0, 9),
            Rect::new(2, 2, 11, 0),
        ] {
            assert_eq!(rows::<3>(&v, area), v.areas::<3>(area), "{area:?}");
            assert_eq!(columns::<2>(&h, area), h.areas::<2>(area), "{area:?}");
            assert_eq!(rows::<1>(&c, area), c.areas::<1>(area), "{area:?}");
        }
    }

    #[test]
    fn wide_is_side_by_side_narrow_is_stacked() {
        let a = Areas::compute(160, 40, None);
        assert!(a.wide && a.browser.y == a.watch.y && a.browser.x < a.watch.x);
        let n = Areas::compute(80, 40, None);
        assert!(!n.wide && n.browser.x == n.watch.x && n.browser.y < n.watch.y);
        assert_eq!(n.hints.y, 39);
        let at_140x45 = Areas::compute(140, 45, None);
        assert_eq!(
            at_140x45.watch_detail.height, 14,
            "details shown without a key"
        );
        assert!(at_140x45.watch_rows.height >= 20);
        assert_eq!(Areas::compute(140, 45, Some(false)).watch_detail.height, 0);
        let short = Areas::compute(100, 30, None);
        assert_eq!(short.watch_detail.height, 0, "a short pane keeps its rows");
        assert!(Areas::compute(100, 30, Some(true)).watch_detail.height >= 4);
        for (w, h) in [(0, 0), (1, 1), (3, 2), (250, 80)] {
            let _ = Areas::compute(w, h, None);
            let _ = Areas::compute(w, h, Some(true));
        }
    }
}
