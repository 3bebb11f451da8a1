//! The picture of a finished image task, for the watch list's detail section: which graphics
//! protocol the terminal speaks (`detect`, once, after the first frame when the terminal must be asked), and turning
//! a file into something the view can draw (`picture`, on a worker). The state holds a
//! [`PreviewView`]; `ui::preview` draws it.

pub mod answers;
pub mod decode;
pub mod graphics;
pub mod video;

pub use decode::{Decoded, Picture, PreviewImage, PreviewView};
pub use graphics::{
    Detection, Graphics, GraphicsProtocol, Tty, detect, detect_with, guess_from_env,
};
