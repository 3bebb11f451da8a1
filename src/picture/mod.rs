//! The picture of a finished image task, for the watch list's detail section: which graphics
//! protocol the terminal speaks (`detect`, once, after the first frame when the terminal must be asked), and turning
//! a file into something the view can draw (`picture`, on a worker). The state holds a
//! [`PreviewView`]; `ui::preview` draws it. A video's poster frame is made by ffmpeg (`video`).

pub mod answers;
pub mod decode;
pub mod graphics;
pub mod video;

pub use decode::{Decoded, PreviewImage};
pub use graphics::{
    Detection, Graphics, GraphicsProtocol, Tty, detect, detect_with, guess_from_env,
};
use ratatui::layout::Size;

/// A finished task's file as the detail section presents it.
#[derive(Debug, Clone)]
pub enum Picture {
    Image(PreviewImage),
    /// A video: its poster frame (or why there is none), duration and size.
    Video(video::VideoPreview),
}

impl Picture {
    /// The area it was encoded for, if it has a picture: a picture for another area is asked
    /// for again when the pane changes size.
    pub fn encoded_for(&self) -> Option<Size> {
        match self {
            Picture::Image(image) => Some(image.area()),
            Picture::Video(video) => video.area(),
        }
    }
}

/// What the detail section shows in place of the picture. The state holds one; the view
/// draws it (`ui::preview::render`).
#[derive(Debug, Clone)]
pub enum PreviewView {
    /// No previews in this session, or none for this task: one line why.
    Off(String),
    /// Asked of the worker; not here yet.
    Loading,
    Ready(Picture),
    /// This file cannot be previewed: one line why.
    Failed(String),
}
