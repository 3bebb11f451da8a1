//! The gallery's routing: its moves walk the pane's own selection by the grid's rows and
//! columns; every other key is the pane's, acting on the selected tile.

use super::State;
use crate::app::action::Action;
use crate::app::effects::Effects;
use crate::app::gallery::{GalleryOf, Grid, tiles};
use crate::app::keymap::Mode;
use crate::cmd::Cmd;
use crate::msg::ThumbnailMsg;
use ratatui::layout::Rect;

impl State {
    /// Where the gallery of `of` is drawn: the pane's list.
    pub fn gallery_area(&self, of: GalleryOf) -> Rect {
        match of {
            GalleryOf::Watch => self.areas.watch_rows,
            GalleryOf::Archive => crate::app::archive_view::areas(&self.areas).list,
        }
    }

    /// The grid the gallery of `of` is drawn in.
    pub fn gallery_grid(&self, of: GalleryOf) -> Grid {
        self.gallery.grid(self.gallery_area(of))
    }

    /// The gallery drawn now, if any: the archive's while it is open, else the watch list's
    /// (focused or not, beneath a popup too).
    pub fn gallery_shown(&self) -> Option<GalleryOf> {
        if self.archive.open {
            self.gallery.archive.then_some(GalleryOf::Archive)
        } else {
            self.gallery.watch.then_some(GalleryOf::Watch)
        }
    }

    /// The toggle key: the focused pane's gallery on, or back to its list.
    pub(super) fn toggle_gallery(&mut self, mode: Mode) -> Effects {
        match mode {
            Mode::Gallery(of) => self.gallery.toggle(of),
            Mode::Archive => self.gallery.toggle(GalleryOf::Archive),
            Mode::Pane(crate::app::layout::Pane::Watch) => self.gallery.toggle(GalleryOf::Watch),
            _ => {}
        }
        Effects::none()
    }

    /// A key in the gallery: a move by the grid, else the pane's.
    pub(super) fn update_gallery(&mut self, of: GalleryOf, action: Action) -> Effects {
        let grid = self.gallery_grid(of);
        let (len, selected) = tiles::list_of(of, &self.watch, &self.archive);
        match grid.moved(selected, len, &action) {
            Some(to) => self.gallery_select(of, to),
            None if matches!(action, Action::Left | Action::Right) => Effects::none(),
            None => match of {
                GalleryOf::Watch => self.update_normal(action),
                GalleryOf::Archive => self.update_archive(action),
            },
        }
    }

    fn gallery_select(&mut self, of: GalleryOf, index: usize) -> Effects {
        match of {
            GalleryOf::Watch => {
                self.watch.select(index);
                Effects::none()
            }
            GalleryOf::Archive => {
                self.archive.set_viewport(&self.areas);
                self.archive.select(index);
                Effects::cmd(self.archive.want_detail())
            }
        }
    }

    /// A click on a tile selects it; elsewhere it is the screen's click.
    pub(super) fn gallery_click(&mut self, mode: Mode, column: u16, row: u16) -> Effects {
        let tile = match mode {
            Mode::Gallery(of) => self.gallery_grid(of).at(column, row).map(|n| (of, n)),
            _ => None,
        };
        let Some((of, n)) = tile else {
            self.click(column, row);
            return Effects::none();
        };
        let (len, selected) = tiles::list_of(of, &self.watch, &self.archive);
        let index = self.gallery_grid(of).first_shown(selected) + n;
        if index < len {
            return self.gallery_select(of, index);
        }
        Effects::none()
    }

    /// The wheel moves the selection a row of tiles.
    pub(super) fn gallery_wheel(&mut self, mode: Mode, down: bool) -> Effects {
        let Mode::Gallery(of) = mode else {
            return Effects::none();
        };
        self.update_gallery(of, if down { Action::Down } else { Action::Up })
    }

    /// The thumbnail worker's word; returns whether anything shown changed.
    pub(super) fn gallery_msg(&mut self, msg: ThumbnailMsg) -> bool {
        match msg {
            ThumbnailMsg::Started { cell } => {
                self.gallery.cell = cell;
                self.gallery.pictures = true;
                true
            }
            ThumbnailMsg::Report(report) => self.gallery.apply(report),
        }
    }

    /// The tiles near the screen, asked of the thumbnail worker when some lack a picture;
    /// with no gallery shown, every picture is let go.
    pub(super) fn sync_gallery(&mut self) -> Option<Cmd> {
        let Some(of) = self.gallery_shown() else {
            self.gallery.want(&[], ratatui::layout::Size::new(0, 0));
            return None;
        };
        let grid = self.gallery_grid(of);
        let near = tiles::near(of, &self.watch, &self.archive, &grid);
        self.gallery.want(&near, grid.picture).map(Cmd::Thumbnails)
    }
}
