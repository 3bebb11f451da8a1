//! The file route's bodies and their HTTP: byte ranges (206 with `Content-Range`, 416 past the
//! end), validators (`ETag`, `Last-Modified`, `If-Range`), and two faults a test or a user can
//! ask for by task ID: `-cut<N>` in the ID cuts the first download of its file after N bytes
//! (the connection drops mid-body), and `-norange` in the ID ignores `Range` (200, whole file),
//! as some servers do.

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::collections::HashSet;
use std::sync::{LazyLock, Mutex};

/// A 256x256 picture worth looking at: a diagonal gradient with a ring and a filled circle.
pub static SAMPLE_PNG: LazyLock<Vec<u8>> = LazyLock::new(picture);

fn picture() -> Vec<u8> {
    use image::ImageEncoder;
    let size = 256u32;
    let img = image::RgbImage::from_fn(size, size, |x, y| {
        let (fx, fy) = (f64::from(x) - 127.5, f64::from(y) - 127.5);
        let r = (fx * fx + fy * fy).sqrt();
        if r < 56.0 {
            image::Rgb([250, 200, 60])
        } else if (84.0..100.0).contains(&r) {
            image::Rgb([245, 245, 250])
        } else {
            let t = f64::from(x + y) / f64::from(2 * size);
            image::Rgb([
                (30.0 + 60.0 * t) as u8,
                (40.0 + 80.0 * (1.0 - t)) as u8,
                (120.0 + 120.0 * t) as u8,
            ])
        }
    });
    let mut png = Vec::new();
    // Encoding an in-memory RGB picture cannot fail.
    let _ = image::codecs::png::PngEncoder::new(&mut png).write_image(
        img.as_raw(),
        size,
        size,
        image::ExtendedColorType::Rgb8,
    );
    png
}

/// Files cut once already (by task ID), so a retry gets the rest.
static CUT: LazyLock<Mutex<HashSet<String>>> = LazyLock::new(|| Mutex::new(HashSet::new()));

/// When the reference service's files were "made": fixed, so `Last-Modified` validates.
const LAST_MODIFIED: &str = "Sun, 01 Nov 2026 12:00:00 GMT";

/// A strong validator from the content.
pub fn etag(bytes: &[u8]) -> String {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("\"{hash:016x}-{}\"", bytes.len())
}

/// The fault `-cut<N>` asks for in `stem`, if any.
fn cut_after(stem: &str) -> Option<usize> {
    let at = stem.find("-cut")?;
    let digits: String = stem[at + 4..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The first byte asked for by `Range: bytes=N-` (or `N-M`; the end is served to the file's
/// end as clients here ask), if the request asks for a range the validators allow.
fn range_start(headers: &HeaderMap, tag: &str) -> Option<Result<u64, ()>> {
    let range = headers.get(header::RANGE)?.to_str().ok()?;
    if let Some(cond) = headers.get(header::IF_RANGE).and_then(|v| v.to_str().ok())
        && cond != tag
        && cond != LAST_MODIFIED
    {
        // The file changed since the client's copy: the whole file, 200.
        return None;
    }
    let spec = range.strip_prefix("bytes=")?;
    let (start, _) = spec.split_once('-')?;
    Some(start.trim().parse::<u64>().map_err(|_| ()))
}

/// The response for `stem`'s file with content `bytes`.
pub fn respond(
    stem: &str,
    bytes: &'static [u8],
    mime: &'static str,
    headers: &HeaderMap,
) -> Response {
    let tag = etag(bytes);
    let len = bytes.len() as u64;
    let start = if stem.contains("-norange") {
        None
    } else {
        range_start(headers, &tag)
    };
    let (status, from) = match start {
        None => (StatusCode::OK, 0),
        Some(Ok(n)) if n < len => (StatusCode::PARTIAL_CONTENT, n),
        Some(_) => {
            let mut r = StatusCode::RANGE_NOT_SATISFIABLE.into_response();
            insert(
                r.headers_mut(),
                header::CONTENT_RANGE,
                &format!("bytes */{len}"),
            );
            return r;
        }
    };
    let from = usize::try_from(from).unwrap_or(0);
    let body = &bytes[from..];
    let cut = cut_after(stem).filter(|_| CUT.lock().is_ok_and(|mut c| c.insert(stem.to_string())));
    let mut response = match cut {
        // The headers promise the whole body; the connection drops after `n` bytes of it.
        Some(n) => {
            let head = Bytes::from_static(&body[..n.min(body.len())]);
            // The head and the first bytes go out before the drop, as when a link fails.
            let stream = futures_util::stream::unfold(0u8, move |step| {
                let head = head.clone();
                async move {
                    match step {
                        0 => Some((Ok(head), 1)),
                        1 => {
                            tokio::time::sleep(std::time::Duration::from_millis(30)).await;
                            Some((
                                Err(std::io::Error::new(
                                    std::io::ErrorKind::ConnectionReset,
                                    "cut by the -cut fault",
                                )),
                                2,
                            ))
                        }
                        _ => None,
                    }
                }
            });
            (status, Body::from_stream(stream)).into_response()
        }
        None => (status, Bytes::from_static(body)).into_response(),
    };
    let h = response.headers_mut();
    insert(h, header::CONTENT_TYPE, mime);
    insert(h, header::CONTENT_LENGTH, &body.len().to_string());
    insert(h, header::ETAG, &tag);
    insert(h, header::LAST_MODIFIED, LAST_MODIFIED);
    if !stem.contains("-norange") {
        insert(h, header::ACCEPT_RANGES, "bytes");
    }
    if status == StatusCode::PARTIAL_CONTENT {
        insert(
            h,
            header::CONTENT_RANGE,
            &format!("bytes {from}-{}/{len}", len - 1),
        );
    }
    response
}

fn insert(h: &mut HeaderMap, name: header::HeaderName, value: &str) {
    if let Ok(v) = HeaderValue::from_str(value) {
        h.insert(name, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_is_a_real_256_square_png() {
        let img = image::load_from_memory(&SAMPLE_PNG).expect("decodes");
        assert_eq!((img.width(), img.height()), (256, 256));
    }

    #[test]
    fn faults_are_read_from_the_id() {
        assert_eq!(cut_after("sim-1-cut500-x"), Some(500));
        assert_eq!(cut_after("sim-1-cut0"), Some(0));
        assert_eq!(cut_after("sim-1-x"), None);
    }
}
