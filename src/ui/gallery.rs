//! The gallery: the pane's results as a grid of tiles, each a picture (the thumbnail worker's,
//! in the terminal's protocol) or a framed text tile (what the result is, or why there is no
//! picture), the label or task ID under it. Drawn from a shared reference; nothing here
//! encodes.

use crate::app::state::gallery_tiles as tiles;
use crate::app::state::{GalleryOf, State, Theme, Thumb, Tile};
use crate::picture::Picture;
use crate::picture::video::{Frame as VideoFrame, VideoPreview};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui_image::Image;

/// Draws the gallery of `of` into `area` (the pane's list).
pub fn render(state: &State, of: GalleryOf, area: Rect, theme: Theme, frame: &mut Frame) {
    if area.is_empty() {
        return;
    }
    let grid = state.gallery.grid(area);
    let (_, selected) = tiles::list_of(of, &state.watch, &state.archive);
    let first = grid.first_shown(selected);
    let shown = tiles::tiles(of, &state.watch, &state.archive, first, grid.page());
    for (n, tile) in shown.iter().enumerate() {
        let rect = grid.tile_rect(n);
        if rect.height < 2 || rect.width == 0 {
            continue;
        }
        let marked = of == GalleryOf::Watch && state.watch.marked.contains(&tile.key);
        render_tile(
            state,
            tile,
            rect,
            first + n == selected,
            marked,
            theme,
            frame,
        );
    }
}

/// The gallery in a pane's place for its list: a header line, then the grid.
pub fn render_pane(
    state: &State,
    of: GalleryOf,
    header_area: Rect,
    list: Rect,
    theme: Theme,
    frame: &mut Frame,
) {
    let (len, _) = tiles::list_of(of, &state.watch, &state.archive);
    if !header_area.is_empty() {
        let line = header(state, of, len).style(theme.dim());
        frame.render_widget(Paragraph::new(line), header_area);
    }
    render(state, of, list, theme, frame);
}

/// The header line over the grid: how many results, and the way back to the list.
fn header(state: &State, of: GalleryOf, len: usize) -> Line<'static> {
    let key = state.keymap.key_for(
        match of {
            GalleryOf::Watch => crate::app::state::Context::Watch,
            GalleryOf::Archive => crate::app::state::Context::Archive,
        },
        &crate::app::state::Action::ToggleGallery,
    );
    Line::from(vec![
        Span::raw(format!("Gallery · {} · ", crate::fmt::count(len, "result"))),
        Span::raw(key.to_string()),
        Span::raw(" the list"),
    ])
}

fn render_tile(
    state: &State,
    tile: &Tile,
    rect: Rect,
    selected: bool,
    marked: bool,
    theme: Theme,
    frame: &mut Frame,
) {
    let picture = Rect {
        height: rect.height - 1,
        ..rect
    };
    let caption_at = Rect {
        y: rect.bottom() - 1,
        height: 1,
        ..rect
    };
    let thumb = state.gallery.thumb(&tile.key);
    let image = match thumb {
        Some(Thumb::Ready(
            Picture::Image(image)
            | Picture::Video(VideoPreview {
                frame: VideoFrame::Shown { image, .. },
                ..
            }),
        )) => Some(image),
        _ => None,
    };
    if let Some(image) = image {
        let covers = image.covers();
        if covers.width <= picture.width && covers.height <= picture.height {
            frame.render_widget(Image::new(image.protocol()), picture);
        } else {
            text_tile(tile, thumb, picture, selected, theme, frame);
        }
    } else {
        text_tile(tile, thumb, picture, selected, theme, frame);
    }
    let mark = if marked { "✓ " } else { "" };
    let caption = crate::fit::cut(&format!("{mark}{}", tile.caption), usize::from(rect.width));
    let style = if selected {
        theme.selected()
    } else {
        theme.dim()
    };
    frame.render_widget(Paragraph::new(Line::styled(caption, style)), caption_at);
}

/// A framed tile saying what the result is instead of a picture: its kind and state, the
/// video's size, or why there is no picture.
fn text_tile(
    tile: &Tile,
    thumb: Option<&Thumb>,
    area: Rect,
    selected: bool,
    theme: Theme,
    frame: &mut Frame,
) {
    let text = match thumb {
        Some(Thumb::Loading) => "loading…".to_string(),
        Some(Thumb::Failed(reason)) => format!("no picture: {reason}"),
        // Without a frame: the video's size and why (no ffmpeg, say).
        Some(Thumb::Ready(Picture::Video(
            video @ VideoPreview {
                frame: VideoFrame::Missing(_),
                ..
            },
        ))) => video.caption(),
        // A picture encoded for a former size: the right one is coming.
        Some(Thumb::Ready(Picture::Image(_) | Picture::Video(_))) => "resizing…".to_string(),
        None => tile.status.clone(),
    };
    let border = if selected {
        theme.selected()
    } else {
        theme.border(false)
    };
    let block = Block::bordered().border_style(border);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.is_empty() {
        return;
    }
    let width = usize::from(inner.width);
    // The file it is made from, by name: a saved file's, else the URL's last part.
    let file = tile.file().map(|f| {
        let name = f.rsplit('/').next().unwrap_or(&f).to_string();
        if f.starts_with("http") {
            format!("not saved ({name})")
        } else {
            name
        }
    });
    let lines: Vec<Line> = std::iter::once(text)
        .chain(file)
        .flat_map(|text| crate::fit::wrap_spans(&[Span::raw(text)], width))
        .take(usize::from(inner.height))
        .map(|spans| Line::from(spans).style(theme.dim()))
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}
