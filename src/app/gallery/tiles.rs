//! What each tile of the gallery shows, read from the pane's own rows in the pane's order.

use super::grid::{GalleryOf, Grid, SCREENS_KEPT};
use crate::api::{TaskKind, TaskState};
use crate::app::archive_view::{self, ArchiveView};
use crate::app::watch::{DownloadView, Watch};
use crate::cmd::{PreviewSource, TaskKey, TileSource};
use crate::store::watchlist::WatchEntry;

/// One result as a tile (and as a line of `gendash --plain`'s `gallery`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tile {
    pub key: TaskKey,
    /// The label, else the task ID: the line under the picture.
    pub caption: String,
    /// What stands in for a picture until it comes, or when there is none (`running 40%`).
    pub status: String,
    /// The file the picture is made from: the saved file, else the download URL; `None` for
    /// a task that is not finished.
    pub source: Option<TileSource>,
}

impl Tile {
    fn of(entry: &WatchEntry, finished: bool, saved: Option<&str>, status: String) -> Tile {
        let url = entry.last.as_ref().and_then(|l| l.url_download.clone());
        let file = match saved {
            Some(path) => Some(PreviewSource::File(path.into())),
            None => url.map(PreviewSource::Url),
        };
        let source = file.filter(|_| finished).map(|f| match entry.kind {
            TaskKind::Image => TileSource::Image(f),
            TaskKind::Video => TileSource::Video(f),
        });
        Tile {
            key: TaskKey::of(entry),
            caption: entry.label.clone().unwrap_or_else(|| entry.task_id.clone()),
            status,
            source,
        }
    }

    /// The saved file the tile is made from, if it is one.
    pub fn saved(&self) -> Option<&std::path::Path> {
        match self.source.as_ref()? {
            TileSource::Image(PreviewSource::File(p))
            | TileSource::Video(PreviewSource::File(p)) => Some(p),
            _ => None,
        }
    }

    /// The file's name or URL, for the plain listing.
    pub fn file(&self) -> Option<String> {
        match self.source.as_ref()? {
            TileSource::Image(s) | TileSource::Video(s) => Some(match s {
                PreviewSource::File(p) => p.display().to_string(),
                PreviewSource::Url(u) => u.clone(),
            }),
        }
    }
}

fn status_of(entry: &WatchEntry, state: TaskState) -> String {
    let kind = match entry.kind {
        TaskKind::Image => "image",
        TaskKind::Video => "video",
    };
    match (state, entry.last.as_ref()) {
        (TaskState::Running, Some(l)) => format!("{kind} · {}%", l.percent.min(100)),
        (TaskState::Running, None) => format!("{kind} · not polled yet"),
        (TaskState::Completed, _) => format!("{kind} · done"),
        (TaskState::Failed, Some(l)) => format!("{kind} · {}", l.status.to_lowercase()),
        (TaskState::Failed, None) => format!("{kind} · failed"),
    }
}

/// The watch list's `index`th row in its order, as a tile.
pub fn watch_tile(watch: &Watch, index: usize) -> Option<Tile> {
    let row = watch.rows.get(*watch.order.get(index)?)?;
    let saved = match &row.download {
        Some(DownloadView::Saved(path)) => Some(path.as_str()),
        _ => row.entry.saved.as_deref(),
    };
    Some(Tile::of(
        &row.entry,
        row.state == TaskState::Completed,
        saved,
        status_of(&row.entry, row.state),
    ))
}

/// The archive's `index`th task in its order, as a tile.
pub fn archive_tile(archive: &ArchiveView, index: usize) -> Option<Tile> {
    let t = archive.tasks.get(*archive.order.get(index)? as usize)?;
    let finished = archive_view::completed(t);
    let state = if finished {
        TaskState::Completed
    } else {
        TaskState::Failed
    };
    let saved = archive.saved_file(t);
    Some(Tile::of(
        &t.entry,
        finished,
        saved.as_deref(),
        status_of(&t.entry, state),
    ))
}

/// The pane's length and selection.
pub fn list_of(of: GalleryOf, watch: &Watch, archive: &ArchiveView) -> (usize, usize) {
    match of {
        GalleryOf::Watch => (watch.order.len(), watch.cursor.selected),
        GalleryOf::Archive => (archive.order.len(), archive.cursor.selected),
    }
}

/// The pane's tiles from `first`, at most `count`.
pub fn tiles(
    of: GalleryOf,
    watch: &Watch,
    archive: &ArchiveView,
    first: usize,
    count: usize,
) -> Vec<Tile> {
    (first..first.saturating_add(count))
        .map_while(|i| match of {
            GalleryOf::Watch => watch_tile(watch, i),
            GalleryOf::Archive => archive_tile(archive, i),
        })
        .collect()
}

/// The tiles on screen, then those of the next screen: the ones whose pictures are wanted.
pub fn near(of: GalleryOf, watch: &Watch, archive: &ArchiveView, grid: &Grid) -> Vec<Tile> {
    let (_, selected) = list_of(of, watch, archive);
    let first = grid.first_shown(selected);
    tiles(of, watch, archive, first, grid.page() * SCREENS_KEPT)
}
