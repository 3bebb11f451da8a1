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

    /// Keeps the selection inside the list and on screen, scrolling as little as possible.
    pub fn scroll_into_view(&mut self, len: usize) {
        self.selected = self.selected.min(len.saturating_sub(1));
        let rows = self.viewport.max(1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + rows {
            self.offset = self.selected + 1 - rows;
        }
        self.offset = self.offset.min(len.saturating_sub(1));
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
        assert_eq!((c.selected, c.offset), (1, 1));
        c.move_by(0, 1);
        assert_eq!(c.selected, 1, "an empty list moves nothing");
    }
}
