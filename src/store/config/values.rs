//! The checked value types of the configuration: each is rejected at parse time, so the error
//! carries the file's line and key.

use crate::api::Secret;
use serde::{Deserialize, Deserializer};
use std::fmt;
use std::time::Duration;
use url::Url;

/// A number of seconds between `MIN_MS` milliseconds and a day; rejected at parse time so
/// the error carries the file's line and key. Zero would mean a busy loop (`poll_interval`), a
/// request that cannot succeed (`request_timeout`) or every task stalled at once
/// (`stall_after`), so each key has a floor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seconds<const MIN_MS: u64 = 1000>(pub Duration);

/// `poll_interval`'s floor is `wait --interval`'s: polling faster than five times a second is
/// a busy loop against the service, while a local service may well be asked that often.
pub type PollSeconds = Seconds<200>;

/// The floor of a polling interval, in `poll_interval` and `wait --interval`.
pub const POLL_FLOOR: Duration = Duration::from_millis(200);

/// The longest duration any key takes.
const DAY_SECS: f64 = 86_400.0;

/// "1 second", "0.2 seconds": how a floor is said in an error.
pub fn seconds_text(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if (secs - 1.0).abs() < f64::EPSILON {
        "1 second".into()
    } else {
        format!("{secs} seconds")
    }
}

/// Why a value of the configuration (in the file, a flag or a variable) is refused; the
/// caller puts the key, the flag or the file's line before it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ValueError {
    #[error("`{0}` is not a number of seconds")]
    NotSeconds(String),
    #[error("not a number of seconds")]
    NotANumber,
    #[error("{n} is too short: it must be at least {}", seconds_text(*floor))]
    TooShort { n: f64, floor: Duration },
    #[error("{n} is too long: it must be at most {DAY_SECS} seconds (a day)")]
    TooLong { n: f64 },
    #[error("`{0}` has no scheme; did you mean `http://{0}` (or https)?")]
    NoScheme(String),
    #[error("`{text}` is not an absolute URL: {source}")]
    NotAbsolute {
        text: String,
        source: url::ParseError,
    },
    #[error("`{0}` is not an http or https URL")]
    NotHttp(String),
    #[error("{0} names no program: give it as [\"program\", \"arg\", …]")]
    NoProgram(String),
    #[error("`{0}` has a `{{` without its `}}`")]
    Unclosed(String),
    #[error(
        "`{{{name}}}` is not a placeholder of {key} (known: {})",
        braced(placeholders)
    )]
    NoSuchPlaceholder {
        name: String,
        key: String,
        placeholders: &'static [&'static str],
    },
    #[error("`{text}` is not one of {}", quoted(names))]
    NotOneOf {
        text: String,
        names: &'static [&'static str],
    },
    #[error("{0} is not a number of days (0 or more)")]
    NotDays(f64),
    #[error("{days} is too long: it must be at most {max} days")]
    TooManyDays { days: f64, max: f64 },
}

/// `{task_id}, {kind}, …`
fn braced(placeholders: &[&str]) -> String {
    placeholders
        .iter()
        .map(|p| format!("{{{p}}}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `"auto", "kitty", …`
fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Checks a number of seconds against a floor and a day; the error says the bound broken.
pub fn check_seconds(n: f64, floor: Duration) -> Result<Duration, ValueError> {
    if n.is_nan() {
        return Err(ValueError::NotANumber);
    }
    if n < floor.as_secs_f64() {
        return Err(ValueError::TooShort { n, floor });
    }
    if n > DAY_SECS {
        return Err(ValueError::TooLong { n });
    }
    Ok(Duration::from_secs_f64(n))
}

impl<const MIN_MS: u64> Seconds<MIN_MS> {
    pub const FLOOR: Duration = Duration::from_millis(MIN_MS);

    pub fn parse(text: &str) -> Result<Self, ValueError> {
        let n: f64 = text
            .trim()
            .parse()
            .map_err(|_| ValueError::NotSeconds(text.to_string()))?;
        Self::from_f64(n)
    }
    fn from_f64(n: f64) -> Result<Self, ValueError> {
        check_seconds(n, Self::FLOOR).map(Seconds)
    }
}

impl<'de, const MIN_MS: u64> Deserialize<'de> for Seconds<MIN_MS> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor<const M: u64>;
        impl<const M: u64> serde::de::Visitor<'_> for Visitor<M> {
            type Value = Seconds<M>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number of seconds")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Seconds<M>, E> {
                Seconds::from_f64(v as f64).map_err(E::custom)
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Seconds<M>, E> {
                Seconds::from_f64(v as f64).map_err(E::custom)
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Seconds<M>, E> {
                Seconds::from_f64(v).map_err(E::custom)
            }
        }
        d.deserialize_any(Visitor::<MIN_MS>)
    }
}

/// `max_concurrent_polls`: at least one request at a time, said plainly (serde's own words for
/// a zero `NonZeroUsize` name a Rust type).
pub fn at_least_one<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<std::num::NonZeroUsize>, D::Error> {
    let n = i64::deserialize(d)?;
    usize::try_from(n)
        .ok()
        .and_then(std::num::NonZeroUsize::new)
        .map(Some)
        .ok_or_else(|| {
            serde::de::Error::custom(format!(
                "{n} is too few: at least 1 request must be allowed at a time"
            ))
        })
}

/// A base URL, checked to be absolute when read.
#[derive(Debug, Clone, PartialEq)]
pub struct BaseUrl(pub Url);

impl BaseUrl {
    pub fn parse(text: &str) -> Result<Self, ValueError> {
        let text = text.trim();
        // `127.0.0.1:8787` and `localhost:8787` lack a scheme (the second would parse as one).
        if !text.contains("://") {
            return Err(ValueError::NoScheme(text.to_string()));
        }
        let url = Url::parse(text).map_err(|source| ValueError::NotAbsolute {
            text: text.to_string(),
            source,
        })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(ValueError::NotHttp(text.to_string()));
        }
        Ok(BaseUrl(url))
    }
}

impl<'de> Deserialize<'de> for BaseUrl {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        BaseUrl::parse(&s).map_err(serde::de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for Secret {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Secret::new(String::deserialize(d)?))
    }
}

/// A program and its arguments, run without a shell: `["pass", "show", "gen"]` or a string
/// split on white space.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandSpec(pub Vec<String>);

impl<'de> Deserialize<'de> for CommandSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Vec<String>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a command: an array of strings, or a string split on white space")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Vec<String>, E> {
                Ok(v.split_whitespace().map(str::to_string).collect())
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Vec<String>, A::Error> {
                let mut argv = Vec::new();
                while let Some(arg) = seq.next_element::<String>()? {
                    argv.push(arg);
                }
                Ok(argv)
            }
        }
        let argv = d.deserialize_any(Visitor)?;
        if argv.first().is_none_or(String::is_empty) {
            return Err(serde::de::Error::custom("the command names no program"));
        }
        Ok(CommandSpec(argv))
    }
}

/// `download_template`, checked when read so an error names the line.
impl<'de> Deserialize<'de> for crate::api::download::Template {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        crate::api::download::Template::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// The placeholders `on_complete`'s arguments may hold.
pub const HOOK_PLACEHOLDERS: [&str; 7] = [
    "task_id", "kind", "status", "percent", "url", "file", "label",
];

/// `on_complete`: a program and its arguments, run without a shell when a watched task
/// finishes; each argument may hold placeholders (checked here, so a typo is an error that
/// names the line).
#[derive(Debug, Clone, PartialEq)]
pub struct Hook(pub Vec<String>);

impl<'de> Deserialize<'de> for Hook {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let argv = Vec::<String>::deserialize(d)?;
        check_hook("on_complete", &argv, &HOOK_PLACEHOLDERS).map_err(serde::de::Error::custom)?;
        Ok(Hook(argv))
    }
}

/// A hook's argument list is a program and its arguments, and every `{name}` in it is one of
/// `placeholders`; else what is wrong, naming `key`.
pub fn check_hook(
    key: &str,
    argv: &[String],
    placeholders: &'static [&'static str],
) -> Result<(), ValueError> {
    if argv.first().is_none_or(|p| p.trim().is_empty()) {
        return Err(ValueError::NoProgram(key.to_string()));
    }
    for arg in argv {
        let mut rest = arg.as_str();
        while let Some(at) = rest.find('{') {
            let after = &rest[at + 1..];
            let Some(end) = after.find('}') else {
                return Err(ValueError::Unclosed(arg.clone()));
            };
            let name = &after[..end];
            if !placeholders.contains(&name) {
                return Err(ValueError::NoSuchPlaceholder {
                    name: name.to_string(),
                    key: key.to_string(),
                    placeholders,
                });
            }
            rest = &after[end + 1..];
        }
    }
    Ok(())
}

/// `argv` with each `{placeholder}` that `value` knows replaced, in one pass (a value holding
/// a placeholder stays as it is), one argument staying one argument: the hooks' and the
/// actions' one way to fill a command.
pub fn fill(argv: &[String], mut value: impl FnMut(&str) -> Option<String>) -> Vec<String> {
    argv.iter()
        .map(|arg| {
            let mut out = String::with_capacity(arg.len());
            let mut rest = arg.as_str();
            while let Some(at) = rest.find('{') {
                out.push_str(&rest[..at]);
                let after = &rest[at + 1..];
                if let Some((end, v)) = after
                    .find('}')
                    .and_then(|end| Some((end, value(&after[..end])?)))
                {
                    out.push_str(&v);
                    rest = &after[end + 1..];
                } else {
                    out.push('{');
                    rest = after;
                }
            }
            out.push_str(rest);
            out
        })
        .collect()
}

/// `image_preview`: how the detail section shows a finished image. `Auto` asks the terminal
/// (within a bound) which graphics protocol it speaks; the others force one, or turn it off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ImagePreview {
    #[default]
    Auto,
    Kitty,
    Sixel,
    Iterm2,
    Halfblocks,
    Off,
}

impl ImagePreview {
    pub const NAMES: [&'static str; 6] = ["auto", "kitty", "sixel", "iterm2", "halfblocks", "off"];

    pub fn parse(text: &str) -> Result<Self, ValueError> {
        Ok(match text.trim().to_ascii_lowercase().as_str() {
            "auto" => ImagePreview::Auto,
            "kitty" => ImagePreview::Kitty,
            "sixel" => ImagePreview::Sixel,
            "iterm2" => ImagePreview::Iterm2,
            "halfblocks" => ImagePreview::Halfblocks,
            "off" => ImagePreview::Off,
            _ => {
                return Err(ValueError::NotOneOf {
                    text: text.to_string(),
                    names: &Self::NAMES,
                });
            }
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            ImagePreview::Auto => "auto",
            ImagePreview::Kitty => "kitty",
            ImagePreview::Sixel => "sixel",
            ImagePreview::Iterm2 => "iterm2",
            ImagePreview::Halfblocks => "halfblocks",
            ImagePreview::Off => "off",
        }
    }
}

impl<'de> Deserialize<'de> for ImagePreview {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = ImagePreview;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "one of \"auto\", \"kitty\", \"sixel\", \"iterm2\", \"halfblocks\", \"off\"",
                )
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<ImagePreview, E> {
                ImagePreview::parse(v).map_err(E::custom)
            }
        }
        d.deserialize_str(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The typed errors say what the strings said: the file's and the flags' messages, which
    /// users (and the CLI's tests) read, kept word for word.
    #[test]
    fn each_refusal_says_what_it_said() {
        let said = |e: ValueError| e.to_string();
        let hook = |argv: &[&str]| {
            let argv: Vec<String> = argv.iter().map(ToString::to_string).collect();
            said(check_hook("on_complete", &argv, &HOOK_PLACEHOLDERS).expect_err("refused"))
        };
        assert_eq!(
            said(ImagePreview::parse("sixels").expect_err("refused")),
            "`sixels` is not one of \"auto\", \"kitty\", \"sixel\", \"iterm2\", \"halfblocks\", \"off\""
        );
        assert_eq!(
            said(BaseUrl::parse("localhost:8787").expect_err("refused")),
            "`localhost:8787` has no scheme; did you mean `http://localhost:8787` (or https)?"
        );
        assert_eq!(
            said(BaseUrl::parse("ftp://a.test/").expect_err("refused")),
            "`ftp://a.test/` is not an http or https URL"
        );
        assert_eq!(
            hook(&[""]),
            "on_complete names no program: give it as [\"program\", \"arg\", …]"
        );
        assert_eq!(hook(&["x", "{id"]), "`{id` has a `{` without its `}`");
        assert_eq!(
            hook(&["x", "{id}"]),
            "`{id}` is not a placeholder of on_complete (known: {task_id}, {kind}, {status}, \
             {percent}, {url}, {file}, {label})"
        );
        assert_eq!(
            said(Seconds::<1000>::parse("soon").expect_err("refused")),
            "`soon` is not a number of seconds"
        );
        assert_eq!(
            said(PollSeconds::parse("0.1").expect_err("refused")),
            "0.1 is too short: it must be at least 0.2 seconds"
        );
        assert_eq!(
            said(check_seconds(90_000.0, POLL_FLOOR).expect_err("refused")),
            "90000 is too long: it must be at most 86400 seconds (a day)"
        );
    }
}
