//! The gallery's reducer: the grid's moves walk the pane's own selection, the pane's keys act
//! on the selected tile, the pane's filter is the gallery's, and only the tiles near the screen
//! have pictures asked for and kept.

use super::{GalleryOf, Grid, SCREENS_KEPT, Thumb};
use crate::app::test_support::*;
use crate::msg::{ThumbnailMsg, ThumbnailReport};
use ratatui::layout::{Rect, Size};

/// `n` finished image tasks (`t-0`…), the watch list focused, at `width`x`height`.
fn finished(n: usize, width: u16, height: u16) -> State {
    let entries = (0..n)
        .map(|i| entry(&format!("t-{i}"), Some(("COMPLETED", 100))))
        .collect();
    let mut s = state_with(entries, ui(false, false));
    s.update(Action::Resize { width, height });
    s.focus = Pane::Watch;
    s
}

fn selected_id(s: &State) -> String {
    s.watch
        .selected_row()
        .expect("a selection")
        .entry
        .task_id
        .clone()
}

fn thumbnails(cmds: &[Cmd]) -> Vec<&crate::cmd::ThumbnailRequest> {
    cmds.iter()
        .filter_map(|c| match c {
            Cmd::Thumbnails(r) => Some(r),
            _ => None,
        })
        .collect()
}

#[test]
fn the_grid_fits_the_area_and_the_cell_size() {
    // Cells of 10x20 pixels: pictures of 16x8 cells, a column between tiles, a caption under.
    let g = Grid::new(Rect::new(0, 0, 78, 20), (10, 20));
    assert_eq!((g.picture, g.columns, g.rows), (Size::new(16, 8), 4, 2));
    assert_eq!(g.tile_rect(5), Rect::new(17, 9, 16, 9));
    assert_eq!(g.at(18, 10), Some(5));
    assert_eq!(
        g.at(16, 0),
        Some(0),
        "the gap belongs to the tile on its left"
    );
    // Cells of 8x16 pixels: 20 cells make 160 pixels.
    let g = Grid::new(Rect::new(0, 0, 218, 44), (8, 16));
    assert_eq!((g.picture, g.columns, g.rows), (Size::new(20, 10), 10, 4));
}

#[test]
fn the_moves_go_by_columns_and_rows_and_stop_at_the_ends() {
    let g = Grid::new(Rect::new(0, 0, 78, 20), (10, 20)); // 4 columns, 2 rows
    let m = |from, a: Action| g.moved(from, 10, &a).expect("a move");
    assert_eq!(m(1, Action::Down), 5);
    assert_eq!(m(5, Action::Up), 1);
    assert_eq!(m(1, Action::Up), 0, "the top row goes to the first");
    assert_eq!(m(7, Action::Down), 7, "no tile below: it stays");
    assert_eq!(m(5, Action::Right), 6);
    assert_eq!(
        m(4, Action::Left),
        3,
        "left from a row's first is the row above's last"
    );
    assert_eq!(m(9, Action::Right), 9);
    assert_eq!(m(1, Action::PageDown), 9);
    assert_eq!(m(9, Action::PageUp), 1);
    assert_eq!((m(6, Action::Top), m(2, Action::Bottom)), (0, 9));
    assert_eq!(g.moved(0, 10, &Action::Download), None);
    assert_eq!(g.first_shown(9), 8, "screens turn a page at a time");
}

#[test]
fn the_toggle_key_makes_the_gallery_the_mode_and_the_moves_walk_the_lists_selection() {
    let mut s = finished(30, 80, 24);
    press(&mut s, ch('P'));
    assert_eq!(s.mode(), Mode::Gallery(GalleryOf::Watch));
    let columns = s.gallery_grid(GalleryOf::Watch).columns;
    assert!(columns > 1, "a grid: {columns} columns");
    press(&mut s, key(KeyCode::Down));
    assert_eq!(s.watch.cursor.selected, columns, "down is a row of tiles");
    press(&mut s, ch('l'));
    assert_eq!(s.watch.cursor.selected, columns + 1);
    press(&mut s, key(KeyCode::Left));
    press(&mut s, ch('h'));
    assert_eq!(s.watch.cursor.selected, columns - 1);
    press(&mut s, key(KeyCode::End));
    assert_eq!(selected_id(&s), "t-29");
    // Back to the list: the same task is selected there.
    press(&mut s, ch('P'));
    assert_eq!(s.mode(), Mode::Pane(Pane::Watch));
    assert_eq!(selected_id(&s), "t-29");
    // Left and right mean nothing in the list.
    assert_eq!(press(&mut s, ch('l')).0, None);
}

#[test]
fn the_panes_keys_act_on_the_selected_tile() {
    let mut s = finished(12, 80, 24);
    press(&mut s, ch('P'));
    press(&mut s, key(KeyCode::Down));
    let chosen = selected_id(&s);
    let (_, cmds) = press(&mut s, ch('d'));
    let removed: Vec<String> = cmds
        .iter()
        .filter_map(|c| match c {
            Cmd::Persist(PersistOp::Remove(keys)) => Some(keys.iter().map(|k| k.id.clone())),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(
        removed,
        std::slice::from_ref(&chosen),
        "remove took the selected tile's task"
    );
    assert!(!row_ids(&s).contains(&chosen.as_str()));
    assert_eq!(
        s.mode(),
        Mode::Gallery(GalleryOf::Watch),
        "still the gallery"
    );
}

#[test]
fn the_panes_filter_is_the_gallerys() {
    let mut s = finished(30, 80, 24);
    press(&mut s, ch('P'));
    press(&mut s, ch('/'));
    for c in "'t-2".chars() {
        press(&mut s, ch(c));
    }
    press(&mut s, key(KeyCode::Enter));
    assert_eq!(s.mode(), Mode::Gallery(GalleryOf::Watch));
    let grid = s.gallery_grid(GalleryOf::Watch);
    let shown = gallery_tiles::tiles(GalleryOf::Watch, &s.watch, &s.archive, 0, grid.page());
    let ids: Vec<&str> = shown.iter().map(|t| t.key.id.as_str()).collect();
    assert!(
        !ids.is_empty() && ids.iter().all(|id| id.starts_with("t-2")),
        "{ids:?}"
    );
    assert_eq!(ids.len(), s.watch.order.len().min(grid.page()));
    assert_eq!(s.watch.order.len(), 11, "t-2, t-20…t-29");
}

#[test]
fn a_click_selects_the_tile_under_it_and_the_wheel_moves_a_row() {
    let mut s = finished(30, 80, 24);
    press(&mut s, ch('P'));
    let grid = s.gallery_grid(GalleryOf::Watch);
    let second = grid.tile_rect(1);
    s.update(Action::Click {
        column: second.x + 1,
        row: second.y + 1,
    });
    assert_eq!(selected_id(&s), "t-1");
    s.update(Action::Wheel {
        column: second.x,
        row: second.y,
        down: true,
    });
    assert_eq!(s.watch.cursor.selected, 1 + grid.columns);
}

#[test]
fn pictures_are_asked_for_the_screen_and_the_next_and_kept_for_those_only() {
    let mut s = finished(1_000, 80, 24);
    press(&mut s, ch('P'));
    // No worker yet: text tiles, nothing asked.
    assert!(thumbnails(&s.apply(Msg::Tick(NOW))).is_empty());
    assert_eq!(s.gallery.held(), 0);
    let cmds = s.apply(Msg::Thumbnail(ThumbnailMsg::Started { cell: (10, 20) }));
    let grid = s.gallery_grid(GalleryOf::Watch);
    let page = grid.page();
    let asked = thumbnails(&cmds);
    assert_eq!(asked.len(), 1, "{cmds:?}");
    let ids: Vec<&str> = asked[0].tiles.iter().map(|(k, _)| k.id.as_str()).collect();
    assert_eq!(ids.len(), page * SCREENS_KEPT);
    assert_eq!(
        (ids[0], ids[ids.len() - 1]),
        ("t-0", format!("t-{}", page * 2 - 1).as_str())
    );
    assert_eq!(asked[0].size, grid.picture);
    // An answer for a tile on screen is kept; asking again asks nothing new.
    let report = ThumbnailReport {
        key: image("t-0"),
        size: grid.picture,
        result: Err(crate::picture::decode::PreviewError::NotAnImage),
    };
    assert!(
        s.apply(Msg::Thumbnail(ThumbnailMsg::Report(report.clone())))
            .is_empty()
    );
    assert!(matches!(
        s.gallery.thumb(&image("t-0")),
        Some(Thumb::Failed(_))
    ));
    // A move within the screen asks nothing.
    assert!(thumbnails(&press(&mut s, ch('l')).1).is_empty());
    // The last screen: those of the first screens are let go, whatever the list's length.
    let (_, cmds) = press(&mut s, key(KeyCode::End));
    assert_eq!(thumbnails(&cmds).len(), 1);
    assert!(s.gallery.thumb(&image("t-0")).is_none());
    assert!(
        s.gallery.held() <= page * SCREENS_KEPT,
        "{}",
        s.gallery.held()
    );
    // A late answer for a tile scrolled away is dropped.
    s.apply(Msg::Thumbnail(ThumbnailMsg::Report(report)));
    assert!(s.gallery.thumb(&image("t-0")).is_none());
    // Back to the list: every picture is let go.
    press(&mut s, ch('P'));
    assert_eq!(s.gallery.held(), 0);
}

#[test]
fn page_down_turns_a_screen_of_tiles() {
    let mut s = finished(60, 140, 45);
    press(&mut s, ch('P'));
    let page = s.gallery_grid(GalleryOf::Watch).page();
    press(&mut s, key(KeyCode::PageDown));
    assert_eq!(s.watch.cursor.selected, page);
}
