//! The gallery: a pane's results as a grid of tiles (`P` toggles it for the watch list and for
//! the archive). It owns no selection, filter or sort: the grid walks the pane's own list, so
//! every action that acts on "the selected task" acts on the tile under the cursor. Which
//! pane shows its gallery is one bit per pane here; `State::mode` reads it, so the gallery is
//! a mode like any other (`Mode::Gallery`), never a flag that must agree with another.
//!
//! The pictures are the thumbnail worker's: `Gallery::want` says which tiles are on screen
//! (and one screen ahead), forgets the pictures of every other tile, and returns the request
//! for those it lacks; the worker answers each with `Msg::Thumbnail`.

mod grid;
pub mod tiles;

#[cfg(test)]
mod tests;

use crate::cmd::{TaskKey, ThumbnailRequest, TileSource};
use crate::msg::ThumbnailReport;
use crate::picture::Picture;
use crate::picture::graphics::DEFAULT_CELL;
use ratatui::layout::{Rect, Size};
use std::collections::HashMap;

pub use grid::{GalleryOf, Grid, SCREENS_KEPT};
pub use tiles::Tile;

/// A tile's picture as the state holds it.
#[derive(Debug, Clone)]
pub enum Thumb {
    /// Asked of the worker.
    Loading,
    /// A picture, or a video's size (until poster frames come).
    Ready(Picture),
    /// No picture: one line why (a refusal, a failure).
    Failed(String),
}

/// The gallery's state: which panes show it, and the pictures of the tiles near the screen.
#[derive(Debug, Clone)]
pub struct Gallery {
    pub watch: bool,
    pub archive: bool,
    /// A cell's size in pixels (the terminal's, where known).
    pub cell: (u16, u16),
    /// Whether the thumbnail worker said it started: until then (and in a session without
    /// pictures) every tile is text.
    pub pictures: bool,
    thumbs: HashMap<TaskKey, Thumb>,
    /// The size the pictures held were asked at.
    size: Size,
}

impl Default for Gallery {
    fn default() -> Self {
        Gallery {
            watch: false,
            archive: false,
            cell: DEFAULT_CELL,
            pictures: false,
            thumbs: HashMap::new(),
            size: Size::new(0, 0),
        }
    }
}

impl Gallery {
    pub fn shows(&self, of: GalleryOf) -> bool {
        match of {
            GalleryOf::Watch => self.watch,
            GalleryOf::Archive => self.archive,
        }
    }

    /// The gallery of `of` on, or off (the list again).
    pub fn toggle(&mut self, of: GalleryOf) {
        match of {
            GalleryOf::Watch => self.watch = !self.watch,
            GalleryOf::Archive => self.archive = !self.archive,
        }
    }

    pub fn grid(&self, area: Rect) -> Grid {
        Grid::new(area, self.cell)
    }

    /// The picture held for `key`.
    pub fn thumb(&self, key: &TaskKey) -> Option<&Thumb> {
        self.thumbs.get(key)
    }

    /// How many pictures are held (at most `SCREENS_KEPT` screens of tiles).
    pub fn held(&self) -> usize {
        self.thumbs.len()
    }

    /// The tiles near the screen are `near` (the screen's, then the next screen's), drawn
    /// `size` cells: forgets every other picture and returns the request for those not held
    /// nor asked for. An empty `near` (no gallery shown) forgets them all.
    pub fn want(&mut self, near: &[Tile], size: Size) -> Option<ThumbnailRequest> {
        if size != self.size {
            self.thumbs.clear();
            self.size = size;
        }
        self.thumbs
            .retain(|key, _| near.iter().any(|t| t.key == *key));
        if !self.pictures {
            return None;
        }
        let missing: Vec<(TaskKey, TileSource)> = near
            .iter()
            .filter(|t| !self.thumbs.contains_key(&t.key))
            .filter_map(|t| Some((t.key.clone(), t.source.clone()?)))
            .collect();
        if missing.is_empty() {
            return None;
        }
        for (key, _) in &missing {
            self.thumbs.insert(key.clone(), Thumb::Loading);
        }
        // The whole neighbourhood goes: the worker drops what it has in flight for any other.
        Some(ThumbnailRequest {
            tiles: missing,
            keep: near.iter().map(|t| t.key.clone()).collect(),
            size,
        })
    }

    /// The worker's answer; returns whether a tile on screen changed. Pictures of tiles no
    /// longer near the screen, or of another size, are dropped.
    pub fn apply(&mut self, report: ThumbnailReport) -> bool {
        if report.size != self.size {
            return false;
        }
        let Some(slot) = self.thumbs.get_mut(&report.key) else {
            return false;
        };
        *slot = match report.result {
            Ok(picture) => Thumb::Ready(picture),
            Err(reason) => Thumb::Failed(reason.to_string()),
        };
        true
    }
}
