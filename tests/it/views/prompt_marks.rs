//! The browser's marks for the copy-prompt key as the screen shows them: a tick on each marked
//! row, the title's count and the status bar's notice naming the key, at 80 and 220 columns.

use super::loaded;
use gendash::app::action::Action;

#[test]
fn marked_models_are_ticked_counted_and_the_key_named_at_80_and_220_columns() {
    for width in [80, 220] {
        let mut s = loaded(width, 24, Vec::new());
        s.browser.select(0);
        s.update(Action::ToggleMark);
        s.update(Action::ToggleMark);
        let text = crate::common::rendered_text(&s, width, 24);
        assert!(text.contains("· 2 marked"), "the title counts them: {text}");
        assert_eq!(
            text.matches("✓ ").count(),
            2,
            "a tick on each marked row: {text}"
        );
        assert!(text.contains("│✓ watercolor_v2  sd"), "{text}");
        assert!(text.contains("│✓ pixel_art_xl  sdxl"), "{text}");
        assert!(
            text.contains("2 models marked · p copies the prompt"),
            "the status bar: {text}"
        );
    }
}
