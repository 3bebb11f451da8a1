//! The grid of the gallery: how many tiles an area holds, where each goes, and where a key
//! moves the selection.

use crate::app::layout::ContainsPoint;
use ratatui::layout::{Rect, Size};

/// Whose results the gallery shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GalleryOf {
    Watch,
    Archive,
}

/// A thumbnail is drawn this wide in pixels, when the terminal tells its cell size (the
/// picture preview's cell size): about what the eye needs to tell twelve pictures apart.
const THUMB_PIXELS: u32 = 160;
/// The narrowest and widest picture of a tile, in cells: the ID under it needs room, and a
/// tile as wide as the pane is no longer a grid.
const MIN_WIDTH: u16 = 10;
const MAX_WIDTH: u16 = 32;
/// Screens of tiles whose pictures are kept: the one shown and the next (the bound on memory,
/// whatever the number of results).
pub const SCREENS_KEPT: usize = 2;

/// The tiles a grid area holds, and where each goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    pub area: Rect,
    pub columns: usize,
    pub rows: usize,
    /// A tile's picture, in cells; the caption is the line under it.
    pub picture: Size,
}

impl Grid {
    /// The grid for `area` with cells of `cell` pixels (`(width, height)`).
    pub fn new(area: Rect, cell: (u16, u16)) -> Grid {
        let (cw, ch) = (u32::from(cell.0.max(1)), u32::from(cell.1.max(1)));
        let width = u16::try_from(THUMB_PIXELS / cw)
            .unwrap_or(MAX_WIDTH)
            .clamp(MIN_WIDTH, MAX_WIDTH)
            .min(area.width.max(1));
        // A square picture: as many pixels high as wide.
        let height = u16::try_from(u32::from(width) * cw / ch)
            .unwrap_or(u16::MAX)
            .clamp(2, 16)
            .min(area.height.saturating_sub(1).max(1));
        let columns = usize::from((area.width + 1) / (width + 1)).max(1);
        let rows = usize::from(area.height / (height + 1)).max(1);
        Grid {
            area,
            columns,
            rows,
            picture: Size::new(width, height),
        }
    }

    /// Tiles on one screen.
    pub fn page(&self) -> usize {
        self.columns * self.rows
    }

    /// The first tile shown when `selected` is: screens turn a whole page at a time, so a
    /// tile keeps its place while the selection moves on the screen.
    pub fn first_shown(&self, selected: usize) -> usize {
        selected / self.page() * self.page()
    }

    /// Where the `n`th tile of the screen goes (picture and caption).
    pub fn tile_rect(&self, n: usize) -> Rect {
        let (col, row) = (n % self.columns, n / self.columns);
        let x = self.area.x + u16::try_from(col).unwrap_or(0) * (self.picture.width + 1);
        let y = self.area.y + u16::try_from(row).unwrap_or(0) * (self.picture.height + 1);
        Rect::new(x, y, self.picture.width, self.picture.height + 1).intersection(self.area)
    }

    /// The tile of the screen at a point, if any.
    pub fn at(&self, column: u16, row: u16) -> Option<usize> {
        if !self.area.contains_point(column, row) {
            return None;
        }
        let col = usize::from((column - self.area.x) / (self.picture.width + 1));
        let line = usize::from((row - self.area.y) / (self.picture.height + 1));
        (col < self.columns && line < self.rows).then_some(line * self.columns + col)
    }

    /// Where a key moves the selection from `selected` in a list of `len`; `None` for a key
    /// that is not a move.
    pub fn moved(
        &self,
        selected: usize,
        len: usize,
        action: &crate::app::action::Action,
    ) -> Option<usize> {
        use crate::app::action::Action as A;
        let last = len.checked_sub(1)?;
        let to = match action {
            A::Left => selected.saturating_sub(1),
            A::Right => selected + 1,
            A::Up => selected.saturating_sub(self.columns),
            A::Down if selected + self.columns > last => selected,
            A::Down => selected + self.columns,
            A::PageUp => selected.saturating_sub(self.page()),
            A::PageDown => selected + self.page(),
            A::Top => 0,
            A::Bottom => last,
            _ => return None,
        };
        Some(to.min(last))
    }
}
