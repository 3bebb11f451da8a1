//! Selection and scrolling of a list drawn `viewport` rows high, shared by both panes.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    pub selected: usize,
    /// The first row shown.
    pub offset: usize,
    /// Rows the list has on screen, set on resize.
    pub viewport: usize,
}

impl Default for Cursor {
    fn default() -> Self {
        Cursor {
            selected: 0,
            offset: 0,
            viewport: 10,
        }
    }
}

impl Cursor {
    /// Moves the selection by `delta` rows within a list of `len`.
    pub fn move_by(&mut self, len: usize, delta: isize) {
        if len == 0 {
            return;
        }
        self.selected = self.selected.saturating_add_signed(delta).min(len - 1);
        self.scroll_into_view(len);
    }

    pub fn select(&mut self, len: usize, index: usize) {
        if len > 0 {
            self.selected = index.min(len - 1);
            self.scroll_into_view(len);
        }
    }

    /// Keeps the selection inside the list and on screen, scrolling as little as possible, and
    /// the screen full: after the viewport grew or the list shrank, rows hidden above come back
    /// rather than leave empty rows below.
    pub fn scroll_into_view(&mut self, len: usize) {
        self.selected = self.selected.min(len.saturating_sub(1));
        let rows = self.viewport.max(1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + rows {
            self.offset = self.selected + 1 - rows;
        }
        // Lowering the offset to `len - rows` keeps the selection (at most `len - 1`) on screen.
        self.offset = self.offset.min(len.saturating_sub(rows));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_are_clamped_and_scroll_minimally() {
        let mut c = Cursor {
            viewport: 10,
            ..Cursor::default()
        };
        c.move_by(100, -5);
        assert_eq!(c.selected, 0);
        c.move_by(100, 25);
        assert_eq!((c.selected, c.offset), (25, 16));
        c.move_by(100, 1000);
        assert_eq!(c.selected, 99);
        c.select(100, 3);
        assert_eq!((c.selected, c.offset), (3, 3));
        c.scroll_into_view(2);
        assert_eq!((c.selected, c.offset), (1, 0), "two rows fit: both shown");
        c.move_by(0, 1);
        assert_eq!(c.selected, 1, "an empty list moves nothing");
    }

    /// (rows in the list, viewport before, the selection's move, viewport after, the offset
    /// then): a taller viewport or a shorter list brings back rows hidden above.
    #[test]
    fn the_viewport_stays_full_and_the_selection_on_screen() {
        let cases = [
            // 8 rows, 3 on screen, at the bottom (offset 5); then all fit.
            (8, 3, 7, 40, 0),
            // 30 rows, at the bottom of 3 (offset 27); 10 fit: the last 10.
            (30, 3, 29, 10, 20),
            // The selection near the top stays where it is, the screen fills below it.
            (30, 3, 4, 10, 2),
            // A shorter viewport keeps the selection on its last row.
            (30, 10, 29, 3, 27),
            // Same size: nothing moves.
            (30, 5, 12, 5, 8),
            (0, 5, 0, 10, 0),
            (1, 1, 0, 1, 0),
        ];
        for (len, before, select, after, offset) in cases {
            let mut c = Cursor {
                viewport: before,
                ..Cursor::default()
            };
            c.select(len, select);
            c.viewport = after;
            c.scroll_into_view(len);
            assert_eq!(
                c.offset, offset,
                "{len} rows, {before} -> {after}, at {select}"
            );
            if len > 0 {
                assert!(
                    (c.offset..c.offset + after).contains(&c.selected),
                    "{len} rows, {before} -> {after}: the selection is on screen"
                );
                assert!(
                    len - c.offset >= after.min(len),
                    "{len} rows, {before} -> {after}: no empty rows below"
                );
            }
        }
    }
}
