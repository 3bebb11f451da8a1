//! The picture in the detail section of a finished task: the image as the worker encoded it
//! for this area, or one line saying what there is instead. Drawn from a shared reference;
//! nothing here encodes or mutates.

use crate::fmt::human_bytes;
use crate::picture::{Picture, PreviewImage, PreviewView};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui_image::Image;

/// Draws `view` into `area`. A picture encoded for another area (the pane was resized and the
/// new encoding is on its way) is drawn if it still fits, else a line says it is coming.
pub fn render(frame: &mut Frame, area: Rect, view: &PreviewView) {
    if area.is_empty() {
        return;
    }
    let text = match view {
        PreviewView::Ready(Picture::Image(image)) => {
            if fits(image, area) {
                frame.render_widget(Image::new(image.protocol()), area);
                return;
            }
            "resizing preview…".to_string()
        }
        other => describe(other),
    };
    let line = Line::styled(
        crate::fit::cut(&text, usize::from(area.width)),
        Style::new().add_modifier(Modifier::DIM),
    );
    frame.render_widget(Paragraph::new(line), Rect { height: 1, ..area });
}

/// Whether `view` needs the picture's place (a picture, or one on its way), rather than a line
/// of the detail's text.
pub fn needs_room(view: &PreviewView) -> bool {
    matches!(
        view,
        PreviewView::Ready(Picture::Image(_)) | PreviewView::Loading
    )
}

/// One line for what is shown instead of a picture.
pub fn describe(view: &PreviewView) -> String {
    match view {
        PreviewView::Ready(Picture::Image(_)) => "a picture".to_string(),
        PreviewView::Ready(Picture::Video { bytes }) => match bytes {
            Some(n) => format!("for images only (video, {})", human_bytes(*n)),
            None => "for images only (video)".to_string(),
        },
        PreviewView::Loading => "loading preview…".to_string(),
        PreviewView::Failed(reason) => format!("none: {reason}"),
        PreviewView::Off(reason) => reason.clone(),
    }
}

/// Whether the picture can be drawn whole in `area`.
fn fits(image: &PreviewImage, area: Rect) -> bool {
    let covers = image.covers();
    covers.width <= area.width && covers.height <= area.height
}
