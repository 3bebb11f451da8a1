//! The demo catalogue's sample pictures: a few small PNGs drawn in code (no bytes in the
//! binary beyond the code), served without a token at `samples/<n>.png` under the service's
//! prefix, and named by some embedded entries' `metadata.preview` as a relative URL, so they
//! resolve against whatever address and prefix the service is reached at.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::sync::LazyLock;

/// How many sample pictures there are.
pub const SAMPLES: usize = 4;

/// Every how many embedded entries one names a sample picture (the rest name none, as most
/// catalogues' entries do).
pub const EVERY: usize = 8;

/// Their side, in pixels: enough for a detail pane's half-blocks, a few hundred bytes each.
const SIDE: u32 = 48;

static PICTURES: LazyLock<Vec<Vec<u8>>> = LazyLock::new(|| (0..SAMPLES).map(picture).collect());

/// Sample `n`: a two-colour diagonal with a disc, its colours `n`'s.
fn picture(n: usize) -> Vec<u8> {
    use image::ImageEncoder;
    const PALETTES: [([u8; 3], [u8; 3], [u8; 3]); SAMPLES] = [
        ([40, 70, 160], [230, 120, 60], [250, 220, 90]),
        ([20, 110, 80], [160, 210, 120], [250, 250, 240]),
        ([90, 30, 110], [220, 90, 150], [120, 220, 250]),
        ([60, 60, 60], [200, 200, 200], [230, 60, 60]),
    ];
    let (low, high, disc) = PALETTES[n % SAMPLES];
    let img = image::RgbImage::from_fn(SIDE, SIDE, |x, y| {
        let (fx, fy) = (f64::from(x) - 23.5, f64::from(y) - 23.5);
        if (fx * fx + fy * fy).sqrt() < 11.0 {
            image::Rgb(disc)
        } else if x + y < SIDE {
            image::Rgb(low)
        } else {
            image::Rgb(high)
        }
    });
    let mut png = Vec::new();
    // Encoding an in-memory RGB picture cannot fail.
    let _ = image::codecs::png::PngEncoder::new(&mut png).write_image(
        img.as_raw(),
        SIDE,
        SIDE,
        image::ExtendedColorType::Rgb8,
    );
    png
}

/// The relative URL an embedded entry names for sample `n`.
pub fn relative_url(n: usize) -> String {
    format!("samples/{}.png", n % SAMPLES)
}

/// The bytes of `name` (`<n>.png`), if it is a sample.
pub fn bytes(name: &str) -> Option<&'static [u8]> {
    let n: usize = name.strip_suffix(".png")?.parse().ok()?;
    PICTURES.get(n).map(Vec::as_slice)
}

/// `GET samples/<name>`: the picture, else the service's 404.
pub fn respond(name: &str) -> Option<Response> {
    let body = bytes(name)?;
    let mut response = (StatusCode::OK, body).into_response();
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("image/png"));
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=86400"),
    );
    Some(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_samples_are_small_real_pictures() {
        let total: usize = PICTURES.iter().map(Vec::len).sum();
        assert!(total < 4096, "{total} bytes");
        for n in 0..SAMPLES {
            let img = image::load_from_memory(bytes(&format!("{n}.png")).expect("there"))
                .expect("decodes");
            assert_eq!((img.width(), img.height()), (SIDE, SIDE));
        }
        assert!(bytes("4.png").is_none() && bytes("../x").is_none() && bytes("0.gif").is_none());
    }
}
