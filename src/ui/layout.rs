//! Screen geometry, computed once per resize and shared by the view and the mouse handling, so
//! a click lands on the row that was drawn there.

use ratatui::layout::{Constraint, Direction, Flex, Layout, Rect};

/// At this width and above the panes sit side by side.
pub const WIDE: u16 = 140;

/// The help overlay's size where the screen has room (borders included).
pub const HELP_SIZE: (u16, u16) = (76, 40);

/// The two panes' places on screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    Browser,
    Watch,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Areas {
    pub full: Rect,
    pub browser: Rect,
    pub browser_filter: Rect,
    pub browser_list: Rect,
    pub browser_detail: Rect,
    pub watch: Rect,
    pub watch_header: Rect,
    pub watch_rows: Rect,
    pub status: Rect,
    pub hints: Rect,
    /// The help overlay, over everything (borders included).
    pub help: Rect,
    pub wide: bool,
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

impl Areas {
    pub fn compute(width: u16, height: u16) -> Self {
        let full = Rect::new(0, 0, width, height);
        let [main, status, hints] = Layout::vertical([
            Constraint::Min(0),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(full);
        let wide = width >= WIDE;
        let [browser, watch] = Layout::new(
            if wide {
                Direction::Horizontal
            } else {
                Direction::Vertical
            },
            [Constraint::Percentage(50), Constraint::Percentage(50)],
        )
        .areas(main);
        let b = inner(browser);
        let [browser_filter, body] =
            Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(b);
        let (browser_list, browser_detail) = if body.width >= 90 {
            let [l, d] =
                Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)])
                    .areas(body);
            (l, d)
        } else {
            let detail = (body.height / 2).min(9);
            let [l, d] =
                Layout::vertical([Constraint::Min(0), Constraint::Length(detail)]).areas(body);
            (l, d)
        };
        let w = inner(watch);
        let [watch_header, watch_rows] =
            Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(w);
        Areas {
            full,
            browser,
            browser_filter,
            browser_list,
            browser_detail,
            watch,
            watch_header,
            watch_rows,
            status,
            hints,
            help: centered(full, HELP_SIZE.0, HELP_SIZE.1),
            wide,
        }
    }

    /// The pane a screen position falls in, if any.
    pub fn region_at(&self, column: u16, row: u16) -> Option<Region> {
        if self.browser.contains_point(column, row) {
            Some(Region::Browser)
        } else if self.watch.contains_point(column, row) {
            Some(Region::Watch)
        } else {
            None
        }
    }
}

/// A rectangle of at most `width` x `height`, centred in `area`.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let [v] = Layout::vertical([Constraint::Length(height.min(area.height))])
        .flex(Flex::Center)
        .areas(area);
    let [h] = Layout::horizontal([Constraint::Length(width.min(area.width))])
        .flex(Flex::Center)
        .areas(v);
    h
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

    #[test]
    fn wide_is_side_by_side_narrow_is_stacked() {
        let a = Areas::compute(160, 40);
        assert!(a.wide && a.browser.y == a.watch.y && a.browser.x < a.watch.x);
        let n = Areas::compute(80, 40);
        assert!(!n.wide && n.browser.x == n.watch.x && n.browser.y < n.watch.y);
        assert_eq!(n.hints.y, 39);
        for (w, h) in [(0, 0), (1, 1), (3, 2), (250, 80)] {
            let _ = Areas::compute(w, h);
        }
    }
}
