//! The picture a catalogue entry's metadata names, for the browser's detail: `preview`,
//! `image` or `thumbnail` (a string), else the first of `images` (a string, or an object's
//! `url`, as Civitai's). An absolute http(s) URL is taken as it is; a relative one is resolved
//! against the service's base URL, as a browser resolves a page's links against the page (the
//! catalogue came from there: the spec says nothing of pictures, and this keeps a catalogue
//! served under a prefix or another address right). Any other scheme names no picture.

use crate::api::LoraEntry;
use serde_json::Value;

/// The metadata fields that name a picture, in the order they are looked at (then `images`).
pub const KEYS: [&str; 3] = ["preview", "image", "thumbnail"];

/// The URL of `entry`'s picture, resolved against `base` (the service's base URL), if its
/// metadata names one that is http or https.
pub fn url_of(entry: &LoraEntry, base: &str) -> Option<String> {
    let named = KEYS
        .iter()
        .find_map(|k| entry.metadata_raw(k).and_then(text))
        .or_else(|| entry.metadata_raw("images").and_then(first))?;
    resolve(&named, base)
}

/// A JSON string's text, when it is a non-empty string.
fn text(raw: &str) -> Option<String> {
    serde_json::from_str::<String>(raw)
        .ok()
        .filter(|s| !s.trim().is_empty())
}

/// The first item of a JSON array: a string, or an object's `url`.
fn first(raw: &str) -> Option<String> {
    let items: Vec<Value> = serde_json::from_str(raw).ok()?;
    let url = match items.first()? {
        Value::String(s) => s.clone(),
        Value::Object(o) => o.get("url")?.as_str()?.to_string(),
        _ => return None,
    };
    (!url.trim().is_empty()).then_some(url)
}

/// `named` against `base` (given a trailing `/`, so `samples/1.png` lands under a prefix),
/// kept only when http or https and a link the link check lets through.
fn resolve(named: &str, base: &str) -> Option<String> {
    let base = if base.ends_with('/') {
        url::Url::parse(base)
    } else {
        url::Url::parse(&format!("{base}/"))
    }
    .ok()?;
    let url = base.join(named.trim()).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    let url = url.to_string();
    crate::api::links::validate_link(&url)
        .is_ok()
        .then_some(url)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(meta: &Value) -> LoraEntry {
        LoraEntry::new("m", meta.as_object().expect("object"))
    }

    #[test]
    fn the_first_field_that_names_a_picture_is_used() {
        let base = "http://127.0.0.1:8787/api/v1";
        let url = |m: Value| url_of(&entry(&m), base);
        assert_eq!(url(json!({"source": "https://x.example/m"})), None);
        assert_eq!(
            url(json!({"thumbnail": "https://cdn.example/t.png", "preview": "p.png"})),
            Some("http://127.0.0.1:8787/api/v1/p.png".into())
        );
        assert_eq!(
            url(json!({"image": "/root.png"})),
            Some("http://127.0.0.1:8787/root.png".into())
        );
        assert_eq!(
            url(json!({"images": [{"url": "https://cdn.example/a.jpg"}, "b.png"]})),
            Some("https://cdn.example/a.jpg".into())
        );
        assert_eq!(
            url(json!({"images": ["b.png"]})),
            Some("http://127.0.0.1:8787/api/v1/b.png".into())
        );
        for refused in [
            json!({"preview": "file:///etc/passwd"}),
            json!({"preview": "javascript:alert(1)"}),
            json!({"preview": "data:image/png;base64,AAAA"}),
            json!({"preview": 5}),
            json!({"images": []}),
        ] {
            assert_eq!(url(refused.clone()), None, "{refused}");
        }
    }
}
