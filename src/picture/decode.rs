//! From a file's bytes to something the view can draw: decoded under limits (a file can claim
//! any size in its header), shrunk to what a pane could ever show, then encoded in the
//! terminal's protocol for exactly one area. Both steps are slow and run on a worker.

use super::graphics::{Graphics, GraphicsProtocol};
use crate::fmt::human_bytes;
use image::imageops::FilterType;
use image::{DynamicImage, ImageFormat, ImageReader, Limits};
use ratatui::layout::Size;
use ratatui_image::protocol::{
    Protocol, halfblocks::Halfblocks, iterm2::Iterm2, kitty::Kitty, sixel::Sixel,
};
use ratatui_image::{FontSize, Resize};
use std::fmt;
use std::io::Cursor;

/// No file bigger than this is previewed (a generated picture is a few megabytes).
pub const MAX_FILE_BYTES: u64 = 20_000_000;
/// Neither side of a previewed picture may be longer than this many pixels, whatever its
/// file weighs: a few bytes of PNG can claim 100000x100000.
pub const MAX_SIDE: u32 = 12_000;
/// What decoding may allocate at once.
pub const MAX_ALLOC: u64 = 256 * 1024 * 1024;
/// A decoded picture is kept at most this long on its longer side: more than any pane shows
/// (250 columns of 10-pixel cells), and it bounds the memory a kept picture holds.
pub const KEPT_SIDE: u32 = 2560;

/// A decoded picture, as the worker keeps it to encode again when the pane changes size.
#[derive(Clone)]
pub struct Decoded {
    pub image: DynamicImage,
    /// The picture's own size in pixels, before it was shrunk.
    pub pixels: (u32, u32),
}

/// Why there is no picture: one line of words, fit to show in place of it. The refusals
/// (what the file is) are kept for the file; the others may go another time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PreviewError {
    #[error("{}", too_big_text(*.0))]
    TooBig(u64),
    #[error("the file is a video, not an image")]
    Video,
    #[error("the file is not a PNG, JPEG or WebP image")]
    NotAnImage,
    /// The format's name, as `GIF`.
    #[error("{0} images cannot be previewed (PNG, JPEG and WebP can)")]
    OtherFormat(String),
    #[error("the image cannot be read: {0}")]
    Unreadable(Unreadable),
    #[error(
        "the image is too large to preview ({width}x{height} pixels; at most {MAX_SIDE} a side)"
    )]
    TooManyPixels { width: u32, height: u32 },
    #[error("the image is too large to preview ({width}x{height} pixels)")]
    TooMuchMemory { width: u32, height: u32 },
    #[error("no room for a preview")]
    NoRoom,
    /// The encoder's reason, made one line.
    #[error("cannot encode the preview: {0}")]
    Encode(String),
    #[error("cannot read {path}: {reason}")]
    Read {
        path: std::path::PathBuf,
        reason: String,
    },
    #[error("cannot write the preview cache: {0}")]
    Cache(String),
    /// The link check's or the download's refusal, as it says it.
    #[error("{0}")]
    Refused(String),
    /// The download failed (the first line of its error); worth trying again.
    #[error("{0}")]
    Fetch(String),
    #[error("the preview worker failed: {0}")]
    Worker(String),
}

/// What is wrong with a picture's data, in words: a decoder's own message can be its debug
/// text (a quoted string, a chunk's struct), so it goes to the log, not the screen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unreadable {
    #[error("the file ends too early")]
    CutShort,
    #[error("the file could not be read through")]
    Io,
    /// The format's name, as its extension says it (`PNG`, `JPG`, `WEBP`).
    #[error("the {0} file is damaged")]
    Damaged(String),
    #[error("the {0} file uses a feature that cannot be previewed")]
    Unsupported(String),
}

impl Unreadable {
    fn of(e: &image::ImageError, format: ImageFormat) -> Self {
        tracing::debug!("a picture cannot be decoded: {e}");
        let name = || {
            format
                .extensions_str()
                .first()
                .map_or_else(|| "image".to_string(), |ext| ext.to_uppercase())
        };
        match e {
            image::ImageError::IoError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
                Unreadable::CutShort
            }
            image::ImageError::IoError(_) => Unreadable::Io,
            image::ImageError::Unsupported(_) => Unreadable::Unsupported(name()),
            _ => Unreadable::Damaged(name()),
        }
    }
}

/// Decodes a picture: PNG, JPEG or WebP, within [`MAX_SIDE`] and [`MAX_ALLOC`].
pub fn decode(bytes: &[u8]) -> Result<Decoded, PreviewError> {
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(PreviewError::TooBig(bytes.len() as u64));
    }
    if bytes.len() >= 12 && &bytes[4..8] == b"ftyp" {
        return Err(PreviewError::Video);
    }
    let format = image::guess_format(bytes).map_err(|_| PreviewError::NotAnImage)?;
    if !matches!(
        format,
        ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::WebP
    ) {
        return Err(PreviewError::OtherFormat(
            format
                .extensions_str()
                .first()
                .unwrap_or(&"these")
                .to_uppercase(),
        ));
    }
    let (width, height) = ImageReader::with_format(Cursor::new(bytes), format)
        .into_dimensions()
        .map_err(|e| PreviewError::Unreadable(Unreadable::of(&e, format)))?;
    if width > MAX_SIDE || height > MAX_SIDE {
        return Err(PreviewError::TooManyPixels { width, height });
    }
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_ALLOC);
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    reader.limits(limits);
    let image = reader.decode().map_err(|e| match e {
        image::ImageError::Limits(_) => PreviewError::TooMuchMemory { width, height },
        e => PreviewError::Unreadable(Unreadable::of(&e, format)),
    })?;
    let image = if width > KEPT_SIDE || height > KEPT_SIDE {
        image.resize(KEPT_SIDE, KEPT_SIDE, FilterType::Triangle)
    } else {
        image
    };
    Ok(Decoded {
        image,
        pixels: (width, height),
    })
}

/// How [`PreviewError::TooBig`] says a file of `bytes` is not previewed.
fn too_big_text(bytes: u64) -> String {
    let limit = human_bytes(MAX_FILE_BYTES);
    // Rounded, a size just over the limit would read as the limit itself.
    if bytes < MAX_FILE_BYTES + MAX_FILE_BYTES / 20 {
        format!("the file is too large to preview (over {limit})")
    } else {
        format!(
            "the file is too large to preview ({}; at most {limit})",
            human_bytes(bytes)
        )
    }
}

/// At most one line of at most 160 characters, without control characters: an encoder's message
/// ends up on screen.
fn one_line(text: &str) -> String {
    let line: String = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .filter(|c| !c.is_control())
        .collect();
    crate::fit::cut(&line, 160)
}

/// A picture encoded for one area of the terminal, ready to draw. The view draws it through
/// a shared reference; a new area needs a new encoding from the worker.
#[derive(Clone)]
pub struct PreviewImage {
    protocol: Protocol,
    /// The area (in cells) it was encoded for.
    area: Size,
    /// The picture's own size in pixels.
    pixels: (u32, u32),
}

impl fmt::Debug for PreviewImage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PreviewImage")
            .field("area", &self.area)
            .field("covers", &self.protocol.size())
            .field("pixels", &self.pixels)
            .finish_non_exhaustive()
    }
}

impl PreviewImage {
    pub fn protocol(&self) -> &Protocol {
        &self.protocol
    }
    /// The area it was encoded for: the view asks again when its area differs.
    pub fn area(&self) -> Size {
        self.area
    }
    /// The cells the picture covers, within `area`.
    pub fn covers(&self) -> Size {
        self.protocol.size()
    }
    pub fn pixels(&self) -> (u32, u32) {
        self.pixels
    }
}

/// Encodes `decoded` to fill as much of `area` as its proportions allow. `id` tells kitty's
/// pictures apart and must differ between pictures on screen at once.
pub fn encode(
    decoded: &Decoded,
    graphics: &Graphics,
    area: Size,
    id: u32,
) -> Result<PreviewImage, PreviewError> {
    if area.width == 0 || area.height == 0 {
        return Err(PreviewError::NoRoom);
    }
    let font = FontSize::new(graphics.cell.0.max(1), graphics.cell.1.max(1));
    let resize = Resize::Scale(Some(FilterType::Triangle));
    let covers = resize.size_for(&decoded.image, font, area);
    let covers = Size::new(
        covers.width.clamp(1, area.width),
        covers.height.clamp(1, area.height),
    );
    let image = resize.resize(&decoded.image, font, covers, None);
    let fail = |e: ratatui_image::errors::Errors| PreviewError::Encode(one_line(&e.to_string()));
    let protocol = match graphics.protocol {
        GraphicsProtocol::Halfblocks => {
            Protocol::Halfblocks(Halfblocks::new(image, covers).map_err(fail)?)
        }
        GraphicsProtocol::Sixel => {
            Protocol::Sixel(Sixel::new(image, covers, graphics.tmux).map_err(fail)?)
        }
        GraphicsProtocol::Kitty => Protocol::Kitty(
            Kitty::new(image, covers, id.max(1), graphics.tmux, false).map_err(fail)?,
        ),
        GraphicsProtocol::Iterm2 => {
            Protocol::ITerm2(Iterm2::new(image, covers, graphics.tmux).map_err(fail)?)
        }
    };
    Ok(PreviewImage {
        protocol,
        area,
        pixels: decoded.pixels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::testing::quadrants;

    #[test]
    fn sizes_read_as_people_write_them() {}

    #[test]
    fn a_picture_fills_the_area_in_proportion() {
        let d = decode(&quadrants(64, 32)).expect("decodes");
        assert_eq!(d.pixels, (64, 32));
        let p = encode(&d, &Graphics::halfblocks(), Size::new(40, 10), 1).expect("encodes");
        // 2:1 in pixels is 40x10 cells of 10x20 pixels... limited by the width: 40x10.
        assert_eq!(p.covers(), Size::new(40, 10));
        assert_eq!(p.area(), Size::new(40, 10));
        let p = encode(&d, &Graphics::halfblocks(), Size::new(40, 4), 1).expect("encodes");
        assert_eq!(p.covers(), Size::new(16, 4));
        assert!(encode(&d, &Graphics::halfblocks(), Size::new(0, 4), 1).is_err());
    }

    #[test]
    fn every_protocol_encodes() {
        let d = decode(&quadrants(30, 30)).expect("decodes");
        for protocol in [
            GraphicsProtocol::Kitty,
            GraphicsProtocol::Sixel,
            GraphicsProtocol::Iterm2,
            GraphicsProtocol::Halfblocks,
        ] {
            for tmux in [false, true] {
                let g = Graphics {
                    protocol,
                    cell: (9, 18),
                    tmux,
                };
                let p = encode(&d, &g, Size::new(20, 10), 7).expect("encodes");
                assert!(p.covers().width <= 20 && p.covers().height <= 10, "{p:?}");
            }
        }
    }

    #[test]
    fn huge_pictures_are_kept_small() {
        let d = decode(&quadrants(3000, 100)).expect("decodes");
        assert_eq!(d.pixels, (3000, 100));
        assert_eq!(d.image.width(), KEPT_SIDE);
    }
    use crate::testing::claimed_png;

    fn one_line_reason(r: Result<Decoded, PreviewError>) -> String {
        let reason = r.err().expect("refused").to_string();
        assert!(
            !reason.contains('\n') && reason.chars().count() <= 160,
            "{reason}"
        );
        reason
    }

    #[test]
    fn decompression_bombs_are_refused_before_they_go_off() {
        let reason = one_line_reason(decode(&claimed_png(100_000, 100_000, 8)));
        assert!(
            reason.contains("too large") && reason.contains("100000x100000"),
            "{reason}"
        );
        // Within the side limit, but 12000x12000 at 16-bit RGBA would need 1.1 GB.
        let reason = one_line_reason(decode(&claimed_png(12_000, 12_000, 16)));
        assert!(reason.contains("too large"), "{reason}");
    }

    #[test]
    fn broken_and_foreign_files_give_a_reason() {
        let png = quadrants(16, 16);
        let reason = one_line_reason(decode(&png[..png.len() / 2]));
        assert!(reason.starts_with("the image cannot be read"), "{reason}");
        let mut scrambled = png.clone();
        for b in &mut scrambled[40..] {
            *b ^= 0x5a;
        }
        assert_eq!(
            one_line_reason(decode(&scrambled)),
            "the image cannot be read: the PNG file is damaged"
        );
        // A checksum that does not match, a JPEG cut short, a WebP feature not supported: the
        // decoders' messages hold their debug text, never shown.
        let mut crc = png.clone();
        crc[30] ^= 1;
        let jpeg =
            b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xdb\x00";
        let webp = b"RIFF\x10\x00\x00\x00WEBPVP8 \x04\x00\x00\x00abcd";
        for (bytes, said) in [
            (&crc[..], "the PNG file is damaged"),
            (&png[..png.len() / 2], "the file ends too early"),
            (&jpeg[..], "the JPG file is damaged"),
            (&webp[..], "the WEBP file is damaged"),
        ] {
            let reason = one_line_reason(decode(bytes));
            assert_eq!(reason, format!("the image cannot be read: {said}"));
        }
        let reason = one_line_reason(decode(b"<html>502 Bad Gateway</html>"));
        assert_eq!(reason, "the file is not a PNG, JPEG or WebP image");
        let reason = one_line_reason(decode(b"GIF89a\x01\x00\x01\x00\x00\x00\x00;"));
        assert!(
            reason.starts_with("GIF images cannot be previewed"),
            "{reason}"
        );
        let reason = one_line_reason(decode(b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00"));
        assert_eq!(reason, "the file is a video, not an image");
        assert!(one_line_reason(decode(&[])).contains("not a PNG"));
    }

    /// A PNG, a JPEG and a WebP cut short or scrambled: each reason is one of the few
    /// sentences the previewer says, never a decoder's debug text (zune-jpeg's messages are
    /// quoted strings, png's name chunks as structs).
    #[test]
    fn a_picture_that_cannot_be_decoded_is_one_line_of_words() {
        use image::ImageEncoder;
        let img = image::RgbImage::from_fn(64, 64, |x, y| {
            image::Rgb([(x * 4) as u8, (y * 4) as u8, ((x ^ y) * 4) as u8])
        });
        let mut jpeg = Vec::new();
        image::codecs::jpeg::JpegEncoder::new(&mut jpeg)
            .encode_image(&img)
            .expect("jpeg");
        let mut webp = Vec::new();
        image::codecs::webp::WebPEncoder::new_lossless(&mut webp)
            .write_image(img.as_raw(), 64, 64, image::ExtendedColorType::Rgb8)
            .expect("webp");
        for (name, bytes) in [("PNG", quadrants(64, 64)), ("JPG", jpeg), ("WEBP", webp)] {
            let cut = bytes[..bytes.len() / 3].to_vec();
            let mut scrambled = bytes.clone();
            for b in &mut scrambled[30..] {
                *b ^= 0xa5;
            }
            let words = [
                "the image cannot be read: the file ends too early".to_string(),
                format!("the image cannot be read: the {name} file is damaged"),
                format!(
                    "the image cannot be read: the {name} file uses a feature that cannot be previewed"
                ),
            ];
            for broken in [cut, scrambled] {
                let reason = one_line_reason(decode(&broken));
                assert!(words.contains(&reason), "{name}: {reason}");
            }
        }
    }

    #[test]
    fn a_file_over_the_limit_is_refused() {
        let big = vec![0u8; MAX_FILE_BYTES as usize + 1];
        let reason = one_line_reason(decode(&big));
        assert_eq!(reason, "the file is too large to preview (over 20 MB)");
        assert_eq!(
            PreviewError::TooBig(35_000_000).to_string(),
            "the file is too large to preview (35 MB; at most 20 MB)"
        );
    }
}
