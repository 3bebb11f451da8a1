//! The file route's bodies and their HTTP: byte ranges (206 with `Content-Range`, 416 past the
//! end), validators (`ETag`, `Last-Modified`, `If-Range`), and two faults a test or a user can
//! ask for by task ID: `-cut<N>` in the ID cuts the first download of its file after N bytes
//! of the body (the connection drops mid-body, the headers having promised it all),
//! `-cut<N>x<K>` the first K downloads; `-norange` in the ID ignores `Range` (200, whole file),
//! as some servers do; `-slowfile<MS>` sends a `GET`'s headers at once and its body MS ms later
//! (at most 60,000), as a slow link does. Each running service counts its cuts and logs its file
//! requests.

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::collections::{HashMap, VecDeque};
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

/// When the reference service's files were "made": fixed, so `Last-Modified` validates.
const LAST_MODIFIED: &str = "Sun, 01 Nov 2026 12:00:00 GMT";

/// How many requests of one file a `-cut<N>x<K>` fault may cut.
const MAX_CUTS: u32 = 100;

/// The longest delay a `-slowfile<MS>` fault may ask for, in ms: a fault stays bounded.
const MAX_SLOW_MS: u64 = 60_000;

/// The file requests a running service has answered, the latest last (at most this many).
const LOG_LENGTH: usize = 1024;

/// A strong validator from the content.
pub fn etag(bytes: &[u8]) -> String {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("\"{hash:016x}-{}\"", bytes.len())
}

/// One file request as the service answered it, for tests (and a curious user) to check
/// what a client asked for and got: `Running::file_requests`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRequest {
    /// The file's name, `<task_id>.png`.
    pub name: String,
    /// `GET` or `HEAD`.
    pub method: String,
    /// The `Range` and `If-Range` headers, as sent.
    pub range: Option<String>,
    pub if_range: Option<String>,
    pub status: u16,
    /// Body bytes sent: fewer than announced when the `-cut` fault dropped the connection.
    pub bytes: u64,
}

/// What one running service remembers of its files: the cuts made so far (a `-cut` fault
/// cuts only the first requests of a file) and the request log. Per service, not global, so
/// services in one process (the tests) never see each other's faults.
#[derive(Debug, Default)]
pub struct Files {
    cuts: Mutex<HashMap<String, u32>>,
    log: Mutex<VecDeque<FileRequest>>,
}

impl Files {
    /// The answered file requests, oldest first.
    pub fn log(&self) -> Vec<FileRequest> {
        self.log
            .lock()
            .map(|l| l.iter().cloned().collect())
            .unwrap_or_default()
    }

    pub fn record(&self, entry: FileRequest) {
        if let Ok(mut log) = self.log.lock() {
            if log.len() >= LOG_LENGTH {
                log.pop_front();
            }
            log.push_back(entry);
        }
    }

    /// Whether this request of `stem` is one its `-cut` fault cuts, counting it if so.
    fn cut_now(&self, stem: &str, times: u32) -> bool {
        self.cuts.lock().is_ok_and(|mut cuts| {
            let done = cuts.entry(stem.to_string()).or_insert(0);
            *done < times && {
                *done += 1;
                true
            }
        })
    }
}

/// The fault `-cut<N>` or `-cut<N>x<K>` asks for in `stem`: cut after N bytes, K times (1
/// without `x<K>`).
fn cut_after(stem: &str) -> Option<(usize, u32)> {
    let at = stem.find("-cut")?;
    let rest = &stem[at + 4..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let n = digits.parse().ok()?;
    let times = rest[digits.len()..]
        .strip_prefix('x')
        .map(|r| {
            r.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
        })
        .and_then(|k| k.parse::<u32>().ok())
        .map_or(1, |k| k.min(MAX_CUTS));
    Some((n, times))
}

/// The delay `-slowfile<MS>` asks for in `stem`, at most [`MAX_SLOW_MS`] (more digits than a
/// `u64` holds mean the most).
fn slow_for(stem: &str) -> Option<std::time::Duration> {
    let at = stem.find("-slowfile")?;
    let digits: String = stem[at + 9..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    if digits.is_empty() {
        return None;
    }
    let ms = digits
        .parse::<u64>()
        .map_or(MAX_SLOW_MS, |ms| ms.min(MAX_SLOW_MS));
    Some(std::time::Duration::from_millis(ms))
}

/// What a request's `Range` asks of a file of `len` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wanted {
    Whole,
    /// From the first byte to the last, both included.
    Part(u64, u64),
    Unsatisfiable,
}

/// RFC 9110's byte ranges, one range per request: `bytes=N-`, `bytes=N-M`, `bytes=-S` (the
/// last S bytes). A range the validators no longer allow (`If-Range`), another unit, several
/// ranges or a malformed one get the whole file, as the RFC lets a server do; a range that
/// starts past the end is unsatisfiable (416).
fn wanted(headers: &HeaderMap, tag: &str, len: u64) -> Wanted {
    let Some(range) = headers.get(header::RANGE).and_then(|v| v.to_str().ok()) else {
        return Wanted::Whole;
    };
    if let Some(cond) = headers.get(header::IF_RANGE).and_then(|v| v.to_str().ok())
        && cond != tag
        && cond != LAST_MODIFIED
    {
        // The file changed since the client's copy: the whole file, 200.
        return Wanted::Whole;
    }
    let number = |s: &str| {
        let s = s.trim();
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u64>().ok())
            .flatten()
    };
    let Some((first, last)) = range
        .trim()
        .strip_prefix("bytes=")
        .filter(|spec| !spec.contains(','))
        .and_then(|spec| spec.split_once('-'))
    else {
        return Wanted::Whole;
    };
    if first.trim().is_empty() {
        return match number(last) {
            None => Wanted::Whole,
            Some(0) => Wanted::Unsatisfiable,
            Some(_) if len == 0 => Wanted::Unsatisfiable,
            Some(suffix) => Wanted::Part(len.saturating_sub(suffix), len - 1),
        };
    }
    let Some(first) = number(first) else {
        return Wanted::Whole;
    };
    let last = if last.trim().is_empty() {
        u64::MAX
    } else {
        match number(last) {
            Some(l) if l >= first => l,
            _ => return Wanted::Whole,
        }
    };
    if first >= len {
        Wanted::Unsatisfiable
    } else {
        Wanted::Part(first, last.min(len - 1))
    }
}

/// The response for `stem`'s file with content `bytes`, and how many body bytes it sends.
pub fn respond(
    files: &Files,
    stem: &str,
    bytes: &'static [u8],
    mime: &'static str,
    method: &Method,
    headers: &HeaderMap,
) -> (Response, u64) {
    let tag = etag(bytes);
    let len = bytes.len() as u64;
    let no_ranges = stem.contains("-norange");
    let want = if no_ranges {
        Wanted::Whole
    } else {
        wanted(headers, &tag, len)
    };
    let (status, from, to) = match want {
        Wanted::Whole => (StatusCode::OK, 0, len),
        Wanted::Part(first, last) => (StatusCode::PARTIAL_CONTENT, first, last + 1),
        Wanted::Unsatisfiable => {
            let mut r = StatusCode::RANGE_NOT_SATISFIABLE.into_response();
            insert(
                r.headers_mut(),
                header::CONTENT_RANGE,
                &format!("bytes */{len}"),
            );
            return (r, 0);
        }
    };
    let body = &bytes[usize::try_from(from).unwrap_or(0)..usize::try_from(to).unwrap_or(0)];
    // A HEAD request never counts as one of the cut ones: it has no body to cut.
    let cut = cut_after(stem)
        .filter(|&(_, times)| *method == Method::GET && files.cut_now(stem, times))
        .map(|(n, _)| n.min(body.len()));
    let sent = cut.unwrap_or(body.len()) as u64;
    // A HEAD has no body to delay.
    let slow = slow_for(stem).filter(|_| *method == Method::GET);
    let mut response = match cut {
        // The headers promise the whole body; the connection drops after `n` bytes of it.
        Some(n) => {
            let head = Bytes::from_static(&body[..n]);
            // The head and the first bytes go out before the drop, as when a link fails.
            let stream = futures_util::stream::unfold(0u8, move |step| {
                let head = head.clone();
                async move {
                    match step {
                        0 => Some((Ok(head), 1)),
                        1 => {
                            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
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
        None => match slow {
            // The headers now, the body when the delay is over.
            Some(delay) => {
                let stream = futures_util::stream::once(async move {
                    tokio::time::sleep(delay).await;
                    Ok::<_, std::io::Error>(Bytes::from_static(body))
                });
                (status, Body::from_stream(stream)).into_response()
            }
            None => (status, Bytes::from_static(body)).into_response(),
        },
    };
    let h = response.headers_mut();
    insert(h, header::CONTENT_TYPE, mime);
    insert(h, header::CONTENT_LENGTH, &body.len().to_string());
    insert(h, header::ETAG, &tag);
    insert(h, header::LAST_MODIFIED, LAST_MODIFIED);
    if !no_ranges {
        insert(h, header::ACCEPT_RANGES, "bytes");
    }
    if status == StatusCode::PARTIAL_CONTENT {
        insert(
            h,
            header::CONTENT_RANGE,
            &format!("bytes {from}-{}/{len}", to - 1),
        );
    }
    let sent = if *method == Method::HEAD { 0 } else { sent };
    (response, sent)
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
        assert_eq!(cut_after("sim-1-cut500-x"), Some((500, 1)));
        assert_eq!(cut_after("sim-1-cut0"), Some((0, 1)));
        assert_eq!(cut_after("sim-1-cut7x3-a"), Some((7, 3)));
        assert_eq!(cut_after("sim-1-cut7x-a"), Some((7, 1)));
        assert_eq!(cut_after("sim-1-cut7x999"), Some((7, MAX_CUTS)));
        assert_eq!(cut_after("sim-1-x"), None);
        assert_eq!(cut_after("sim-1-cutx"), None);
        let ms = std::time::Duration::from_millis;
        assert_eq!(slow_for("sim-1-pic-slowfile4000"), Some(ms(4000)));
        assert_eq!(slow_for("sim-1-slowfile0-x"), Some(ms(0)));
        assert_eq!(slow_for("sim-1-slowfile90000"), Some(ms(MAX_SLOW_MS)));
        assert_eq!(
            slow_for("sim-1-slowfile99999999999999999999999"),
            Some(ms(MAX_SLOW_MS))
        );
        assert_eq!(slow_for("sim-1-slowfile-x"), None);
        assert_eq!(slow_for("sim-1-slow500"), None);
        assert_eq!(slow_for("sim-1-x"), None);
    }

    #[test]
    fn cuts_are_counted_per_file() {
        let files = Files::default();
        let cut = |stem| files.cut_now(stem, 2);
        assert_eq!(
            [cut("a"), cut("a"), cut("b"), cut("a")],
            [true, true, true, false]
        );
    }

    #[test]
    fn ranges_as_rfc_9110_has_them() {
        let tag = "\"t\"";
        let ask = |range: &str, if_range: Option<&str>| {
            let mut h = HeaderMap::new();
            insert(&mut h, header::RANGE, range);
            if let Some(v) = if_range {
                insert(&mut h, header::IF_RANGE, v);
            }
            wanted(&h, tag, 100)
        };
        assert_eq!(wanted(&HeaderMap::new(), tag, 100), Wanted::Whole);
        assert_eq!(ask("bytes=10-", None), Wanted::Part(10, 99));
        assert_eq!(ask("bytes=10-19", None), Wanted::Part(10, 19));
        assert_eq!(ask("bytes=10-500", None), Wanted::Part(10, 99));
        assert_eq!(ask("bytes=-30", None), Wanted::Part(70, 99));
        assert_eq!(ask("bytes=-500", None), Wanted::Part(0, 99));
        assert_eq!(ask("bytes=99-", None), Wanted::Part(99, 99));
        assert_eq!(ask("bytes=100-", None), Wanted::Unsatisfiable);
        assert_eq!(ask("bytes=-0", None), Wanted::Unsatisfiable);
        for ignored in [
            "bytes=20-10",
            "bytes=0-1,5-6",
            "items=0-1",
            "bytes=x-",
            "bytes=-",
            "bytes=99999999999999999999999-",
            "bytes=+5-",
        ] {
            assert_eq!(ask(ignored, None), Wanted::Whole, "{ignored}");
        }
        assert_eq!(ask("bytes=10-", Some(tag)), Wanted::Part(10, 99));
        assert_eq!(ask("bytes=10-", Some(LAST_MODIFIED)), Wanted::Part(10, 99));
        assert_eq!(ask("bytes=10-", Some("\"old\"")), Wanted::Whole);
        assert_eq!(ask("bytes=10-", Some("W/\"t\"")), Wanted::Whole);
    }
}
