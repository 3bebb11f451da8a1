//! The picture in the detail section of a finished task: the image as the worker encoded it
//! for this area, or one line saying what there is instead. Drawn from a shared reference;
//! nothing here encodes or mutates.

use crate::picture::video::Frame as VideoFrame;
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
        PreviewView::Ready(Picture::Video(video)) => match &video.frame {
            VideoFrame::Shown { image, .. } if fits(image, frame_area(area)) => {
                frame.render_widget(Image::new(image.protocol()), frame_area(area));
                // The video's facts on the line right under the frame.
                let under = Rect {
                    y: area.y + image.covers().height,
                    height: 1,
                    ..area
                };
                let line = Line::styled(
                    crate::fit::cut(&video.caption(), usize::from(area.width)),
                    Style::new().add_modifier(Modifier::DIM),
                );
                frame.render_widget(Paragraph::new(line), under);
                return;
            }
            VideoFrame::Shown { .. } => "resizing preview…".to_string(),
            VideoFrame::Missing(_) => describe(view),
        },
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
    match view {
        PreviewView::Ready(picture) => picture.encoded_for().is_some(),
        PreviewView::Loading => true,
        PreviewView::Off(_) | PreviewView::Failed(_) => false,
    }
}

/// Where a video's frame goes in `area` (`picture::video::frame_place`).
fn frame_area(area: Rect) -> Rect {
    Rect {
        height: crate::picture::video::frame_place(area.as_size()).height,
        ..area
    }
}

/// One line for what is shown instead of a picture.
pub fn describe(view: &PreviewView) -> String {
    match view {
        PreviewView::Ready(Picture::Image(_)) => "a picture".to_string(),
        PreviewView::Ready(Picture::Video(video)) => video.caption(),
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
