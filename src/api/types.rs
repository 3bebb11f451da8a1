//! Response types and their tolerant decoding. Decoding goes through `serde_json::Value` (or,
//! for a task answer of the usual shape, straight into the fields used) so that one odd field
//! or one broken catalogue entry never sinks the whole answer, and every string is sanitised on
//! the way in.

pub use super::entry::{Interner, LoraEntry, LoraType};
use super::error::ApiError;
use super::extra::{ExtraFields, SPEC_FIELDS};
use super::sanitize::{sanitize, sanitize_json};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Which result operation a task ID belongs to.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "lowercase")]
pub enum TaskKind {
    #[default]
    Image,
    Video,
}

impl TaskKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskKind::Image => "image",
            TaskKind::Video => "video",
        }
    }
    /// The route segment of the spec for this kind.
    pub fn route(self) -> &'static str {
        match self {
            TaskKind::Image => "image_generation",
            TaskKind::Video => "video_generation",
        }
    }
    /// File extension of the result file.
    pub fn extension(self) -> &'static str {
        match self {
            TaskKind::Image => "png",
            TaskKind::Video => "mp4",
        }
    }
    pub fn from_video_flag(video: bool) -> Self {
        if video {
            TaskKind::Video
        } else {
            TaskKind::Image
        }
    }
}

/// The decoded catalogue and how many entries had to be skipped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalogue {
    pub entries: Vec<LoraEntry>,
    pub skipped: usize,
}

impl Catalogue {
    /// Only the entries listed under `lora_type` and `cate` (see [`LoraEntry::listed_under`]):
    /// a catalogue loaded for broader filters, narrowed here to what the service would list.
    #[must_use]
    pub fn narrowed(mut self, lora_type: Option<LoraType>, cate: Option<&str>) -> Catalogue {
        self.entries.retain(|e| e.listed_under(lora_type, cate));
        self
    }
}

/// Task result fields of spec 2.2 together with the envelope fields of 2.3.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskResult {
    pub task_id: String,
    pub kind: TaskKind,
    pub status: String,
    pub percent: u8,
    pub total_tasks: Option<u64>,
    /// `None` while the service reports no download URL (empty or missing).
    pub url_download: Option<String>,
    pub envelope: Envelope,
    /// What `data.data` held beyond the spec's five fields, if anything.
    pub extra: Option<Box<ExtraFields>>,
}

/// Envelope fields of spec 2.3 that are not the task itself.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Envelope {
    pub start_time: Option<String>,
    pub end_time: Option<String>,
    pub host_of_client_call_request: Option<String>,
    pub total_time_by_second: Option<f64>,
    pub status: Option<String>,
}

const CATALOGUE_SHAPE: &str = "a JSON object with a `data` array";

/// Decodes a catalogue response body: `{"data": [entry, …]}`.
pub fn decode_catalogue(body: &[u8]) -> Result<Catalogue, ApiError> {
    decode_catalogue_from(body)
}

/// Decodes a catalogue as its bytes arrive: one entry at a time becomes a compact
/// `LoraEntry`, so neither the whole body nor a tree of its values is ever held at once.
pub fn decode_catalogue_from(reader: impl std::io::Read) -> Result<Catalogue, ApiError> {
    decode_catalogue_where(reader, |_| true)
}

/// Decodes a catalogue as its bytes arrive, keeping only the entries `keep` accepts: a copy
/// narrowed from a broader one never holds the entries it leaves out (at a million entries,
/// the broader list would double what a type change holds).
pub fn decode_catalogue_where(
    reader: impl std::io::Read,
    keep: impl FnMut(&LoraEntry) -> bool,
) -> Result<Catalogue, ApiError> {
    decode_catalogue_with(reader, keep, Interner::default())
}

/// Decodes a catalogue as its bytes arrive, keeping the entries `keep` accepts, with what
/// `interner` shares: the entries of an earlier list decoded again unchanged are that list's
/// (see [`Interner::sharing`]), so a reload beside the list shown holds one copy of the text.
pub fn decode_catalogue_with(
    reader: impl std::io::Read,
    mut keep: impl FnMut(&LoraEntry) -> bool,
    mut interner: Interner,
) -> Result<Catalogue, ApiError> {
    use serde::de::DeserializeSeed;
    let mut de = serde_json::Deserializer::from_reader(reader);
    let catalogue = Body(&mut keep, &mut interner)
        .deserialize(&mut de)
        .and_then(|c| de.end().map(|()| c))
        .map_err(|e| ApiError::Decode {
            expected: CATALOGUE_SHAPE,
            detail: sanitize(&e.to_string()),
        })?;
    catalogue.ok_or_else(|| ApiError::Decode {
        expected: CATALOGUE_SHAPE,
        detail: "`data` is missing or not an array".into(),
    })
}

/// Which decoded entries are kept.
type Keep<'k> = &'k mut dyn FnMut(&LoraEntry) -> bool;

/// The response body; `None` until a `data` array was read.
struct Body<'k>(Keep<'k>, &'k mut Interner);

impl<'de> serde::de::DeserializeSeed<'de> for Body<'_> {
    type Value = Option<Catalogue>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        struct Root<'k>(Keep<'k>, &'k mut Interner);
        impl<'de> serde::de::Visitor<'de> for Root<'_> {
            type Value = Option<Catalogue>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(CATALOGUE_SHAPE)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Option<Catalogue>, A::Error> {
                let (keep, interner) = (self.0, self.1);
                let mut found = None;
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    if key == "data" {
                        found = map.next_value_seed(Entries(&mut *keep, &mut *interner))?;
                    } else {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
                Ok(found)
            }
        }
        d.deserialize_any(Root(self.0, self.1))
    }
}

/// The `data` value: entries if it is an array, `None` for anything else.
struct Entries<'k>(Keep<'k>, &'k mut Interner);

impl<'de> serde::de::DeserializeSeed<'de> for Entries<'_> {
    type Value = Option<Catalogue>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        struct Items<'k>(Keep<'k>, &'k mut Interner);
        impl<'de> serde::de::Visitor<'de> for Items<'_> {
            type Value = Option<Catalogue>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an array of entries")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Option<Catalogue>, A::Error> {
                let mut catalogue = Catalogue::default();
                // Each entry is decoded on its own, so one odd entry is skipped, not fatal.
                while let Some(item) = seq.next_element::<Value>()? {
                    match decode_entry(item, self.1) {
                        Some(entry) if (self.0)(&entry) => catalogue.entries.push(entry),
                        Some(_) => {}
                        None => catalogue.skipped += 1,
                    }
                }
                // Not shrunk to fit: that would copy the array once more (about 64 MB for a
                // million entries); the dashboard copies it once, exactly, into its list.
                Ok(Some(catalogue))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Option<Catalogue>, A::Error> {
                while map
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(None)
            }
            fn visit_unit<E>(self) -> Result<Option<Catalogue>, E> {
                Ok(None)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Option<Catalogue>, E> {
                Ok(None)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Option<Catalogue>, E> {
                Ok(None)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Option<Catalogue>, E> {
                Ok(None)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Option<Catalogue>, E> {
                Ok(None)
            }
            fn visit_str<E>(self, _: &str) -> Result<Option<Catalogue>, E> {
                Ok(None)
            }
        }
        d.deserialize_any(Items(self.0, self.1))
    }
}

fn decode_entry(item: Value, interner: &mut Interner) -> Option<LoraEntry> {
    let Value::Object(mut obj) = item else {
        return None;
    };
    // Emptiness is judged after sanitising: a name made only of escape sequences is no name.
    let model = match obj.remove("model")? {
        Value::String(s) => sanitize(&s),
        _ => return None,
    };
    if model.trim().is_empty() {
        return None;
    }
    let mut metadata = match obj.remove("metadata") {
        Some(Value::Object(m)) => Value::Object(m),
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(_) => return None,
    };
    sanitize_json(&mut metadata);
    let Value::Object(metadata) = metadata else {
        return None;
    };
    Some(LoraEntry::interned(&model, &metadata, interner))
}

/// Accepts a percent as integer, float or numeric string; clamps to 0..=100.
pub fn decode_percent(v: Option<&Value>) -> u8 {
    percent_of(match v {
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::String(s)) => percent_in(s),
        _ => None,
    })
}

/// A percent written as text: `42`, `42.5`, ` 42 % `.
fn percent_in(s: &str) -> Option<f64> {
    s.trim().trim_end_matches('%').trim().parse::<f64>().ok()
}

fn percent_of(n: Option<f64>) -> u8 {
    match n {
        Some(x) if x.is_finite() => x.clamp(0.0, 100.0).round() as u8,
        _ => 0,
    }
}

fn opt_str(v: Option<&Value>) -> Option<String> {
    match v {
        Some(Value::String(s)) => Some(sanitize(s)),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

/// A description of a failed lookup if the envelope says so (`is_success` false or `errors`
/// non-empty), carrying `error_description` when present.
pub fn lookup_failure(root: &Map<String, Value>) -> Option<String> {
    let is_success = root
        .get("data")
        .and_then(|d| d.get("is_success"))
        .and_then(Value::as_bool);
    let errors = root.get("errors").and_then(Value::as_array);
    let has_errors = errors.is_some_and(|e| !e.is_empty());
    if is_success != Some(false) && !has_errors {
        return None;
    }
    let description = root
        .get("error_description")
        .and_then(Value::as_str)
        .map(sanitize)
        .filter(|s| !s.trim().is_empty())
        .or_else(|| {
            errors.and_then(|e| e.first()).map(|first| match first {
                Value::String(s) => sanitize(s),
                other => {
                    let mut v = other.clone();
                    sanitize_json(&mut v);
                    super::sanitize::sanitize_with_limit(&v.to_string(), 512)
                }
            })
        })
        .unwrap_or_else(|| "the service reported that the lookup did not succeed".into());
    Some(description)
}

/// Decodes a task-result response body (spec 2.3 envelope around 2.2).
///
/// Every poll's answer comes through here, so an answer of the usual shape is read straight
/// into the few fields used, its strings borrowed from the body ([`decode_task_fast`]); any
/// other answer (a failure, a missing or odd field, a duplicate key, broken JSON) is read
/// through a `Value` tree as before, which gives the same result for the usual shape and the
/// precise error for the rest. (The fast reading skips the fields it does not use unread, so
/// a lone surrogate escaped in one of them, which the tree refuses, does not sink the answer.)
pub fn decode_task(
    body: &[u8],
    kind: TaskKind,
    requested_id: &str,
) -> Result<TaskResult, ApiError> {
    match decode_task_fast(body, kind, requested_id) {
        Some(task) => Ok(task),
        None => decode_task_tree(body, kind, requested_id),
    }
}

/// The fast reading of [`decode_task`]: `None` whenever the answer is not a plain success
/// with `data.data.status`, leaving it to the tree.
pub fn decode_task_fast(body: &[u8], kind: TaskKind, requested_id: &str) -> Option<TaskResult> {
    // Checked whole first: the fields skipped below are not read as text.
    let text = std::str::from_utf8(body).ok()?;
    let MapOnly(root) = serde_json::from_str::<MapOnly<fast::Root<'_>>>(text).ok()?;
    let MapOnly(data) = root.data?;
    if matches!(data.is_success, Some(fast::Scalar::Bool(false)))
        || root.errors.is_some_and(|e| e.0)
    {
        return None;
    }
    let MapOnly(task) = data.data?;
    let status = task.status.as_ref().and_then(fast::Scalar::text)?;
    Some(TaskResult {
        task_id: task
            .task_id
            .as_ref()
            .and_then(fast::Scalar::text)
            .unwrap_or_else(|| sanitize(requested_id)),
        kind,
        status,
        percent: task.percent.as_ref().map_or(0, fast::Scalar::percent),
        total_tasks: task.total_tasks.as_ref().and_then(fast::Scalar::as_u64),
        url_download: task
            .url_download
            .as_ref()
            .and_then(fast::Scalar::text)
            .filter(|u| !u.trim().is_empty()),
        envelope: Envelope {
            start_time: root.start_time.as_ref().and_then(fast::Scalar::text),
            end_time: root.end_time.as_ref().and_then(fast::Scalar::text),
            host_of_client_call_request: root
                .host_of_client_call_request
                .as_ref()
                .and_then(fast::Scalar::text),
            total_time_by_second: root
                .total_time_by_second
                .as_ref()
                .and_then(fast::Scalar::as_f64),
            status: root.status.as_ref().and_then(fast::Scalar::text),
        },
        extra: task.extra,
    })
}

/// A JSON object and nothing else (a derived struct would also take an array, by position).
struct MapOnly<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for MapOnly<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Objects<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Objects<T> {
            type Value = T;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(map))
            }
        }
        d.deserialize_map(Objects(std::marker::PhantomData))
            .map(MapOnly)
    }
}

/// The usual task answer's fields, as [`decode_task_fast`] reads them.
mod fast {
    use super::MapOnly;
    use serde::Deserialize;
    use std::borrow::Cow;

    #[derive(Deserialize)]
    pub struct Root<'a> {
        #[serde(borrow)]
        pub data: Option<MapOnly<Data<'a>>>,
        pub errors: Option<NonEmptyArray>,
        #[serde(borrow)]
        pub start_time: Option<Scalar<'a>>,
        #[serde(borrow)]
        pub end_time: Option<Scalar<'a>>,
        #[serde(borrow)]
        pub host_of_client_call_request: Option<Scalar<'a>>,
        #[serde(borrow)]
        pub total_time_by_second: Option<Scalar<'a>>,
        #[serde(borrow)]
        pub status: Option<Scalar<'a>>,
    }

    #[derive(Deserialize)]
    pub struct Data<'a> {
        #[serde(borrow)]
        pub is_success: Option<Scalar<'a>>,
        #[serde(borrow)]
        pub data: Option<MapOnly<Task<'a>>>,
    }

    // The field names are the JSON's.
    #[allow(clippy::struct_field_names)]
    #[derive(Default)]
    pub struct Task<'a> {
        pub status: Option<Scalar<'a>>,
        pub url_download: Option<Scalar<'a>>,
        pub task_id: Option<Scalar<'a>>,
        pub percent: Option<Scalar<'a>>,
        pub total_tasks: Option<Scalar<'a>>,
        /// The fields beyond the spec's five (see `ExtraFields`).
        pub extra: Option<Box<super::ExtraFields>>,
    }

    impl<'de: 'a, 'a> Deserialize<'de> for Task<'a> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_map(TaskVisitor)
        }
    }

    /// Reads the five fields as a derived struct would (a repeated one is an error, which
    /// sends the answer to the tree), and every other field as its raw JSON, kept bounded.
    struct TaskVisitor;

    impl<'de> serde::de::Visitor<'de> for TaskVisitor {
        type Value = Task<'de>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a task object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            use serde::de::Error;
            let mut task = Task::default();
            let mut extra = super::ExtraFields::default();
            while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
                let (slot, name) = match key.as_ref() {
                    "status" => (&mut task.status, "status"),
                    "url_download" => (&mut task.url_download, "url_download"),
                    "task_id" => (&mut task.task_id, "task_id"),
                    "percent" => (&mut task.percent, "percent"),
                    "total_tasks" => (&mut task.total_tasks, "total_tasks"),
                    _ => {
                        let raw = map.next_value::<&'de serde_json::value::RawValue>()?;
                        extra.push_raw(&key, raw.get());
                        continue;
                    }
                };
                if slot.is_some() {
                    return Err(A::Error::duplicate_field(name));
                }
                *slot = Some(map.next_value()?);
            }
            task.extra = extra.finish();
            Ok(task)
        }
    }

    /// A field name, borrowed from the body unless it holds escapes.
    struct Key<'a>(Cow<'a, str>);

    impl<'de: 'a, 'a> Deserialize<'de> for Key<'a> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct KeyVisitor;
            impl<'de> serde::de::Visitor<'de> for KeyVisitor {
                type Value = Key<'de>;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a field name")
                }
                fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                    Ok(Key(Cow::Borrowed(v)))
                }
                fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                    Ok(Key(Cow::Owned(v.to_owned())))
                }
                fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                    Ok(Key(Cow::Owned(v)))
                }
            }
            d.deserialize_str(KeyVisitor)
        }
    }

    /// One JSON value: a string (borrowed from the body when it has no escapes), a number, a
    /// boolean, or anything else (skipped unread).
    pub enum Scalar<'a> {
        Str(Cow<'a, str>),
        Num(serde_json::Number),
        Bool(bool),
        Other,
    }

    impl Scalar<'_> {
        /// As `opt_str` reads a `Value`: a string sanitised, a number written out.
        pub fn text(&self) -> Option<String> {
            match self {
                Scalar::Str(s) => Some(super::sanitize(s)),
                Scalar::Num(n) => Some(n.to_string()),
                _ => None,
            }
        }

        pub fn percent(&self) -> u8 {
            match self {
                Scalar::Str(s) => super::percent_of(super::percent_in(s)),
                Scalar::Num(n) => super::percent_of(n.as_f64()),
                _ => 0,
            }
        }

        pub fn as_u64(&self) -> Option<u64> {
            match self {
                Scalar::Num(n) => n.as_u64(),
                _ => None,
            }
        }

        pub fn as_f64(&self) -> Option<f64> {
            match self {
                Scalar::Num(n) => n.as_f64(),
                _ => None,
            }
        }
    }

    impl<'de: 'a, 'a> Deserialize<'de> for Scalar<'a> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(ScalarVisitor)
        }
    }

    struct ScalarVisitor;

    impl<'de> serde::de::Visitor<'de> for ScalarVisitor {
        type Value = Scalar<'de>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok(Scalar::Str(Cow::Borrowed(v)))
        }
        fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Scalar::Str(Cow::Owned(v.to_owned())))
        }
        fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
            Ok(Scalar::Str(Cow::Owned(v)))
        }
        fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Scalar::Num(v.into()))
        }
        fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
            Ok(Scalar::Num(v.into()))
        }
        fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
            Ok(serde_json::Number::from_f64(v).map_or(Scalar::Other, Scalar::Num))
        }
        fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
            Ok(Scalar::Bool(v))
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(Scalar::Other)
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok(Scalar::Other)
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            while map
                .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                .is_some()
            {}
            Ok(Scalar::Other)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
            Ok(Scalar::Other)
        }
    }

    /// `errors`: whether it is an array with something in it (anything else counts as none).
    pub struct NonEmptyArray(pub bool);

    impl<'de> Deserialize<'de> for NonEmptyArray {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Seen;
            impl<'de> serde::de::Visitor<'de> for Seen {
                type Value = bool;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("any JSON value")
                }
                fn visit_seq<A: serde::de::SeqAccess<'de>>(
                    self,
                    mut seq: A,
                ) -> Result<bool, A::Error> {
                    let mut any = false;
                    while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
                        any = true;
                    }
                    Ok(any)
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<bool, A::Error> {
                    while map
                        .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                        .is_some()
                    {}
                    Ok(false)
                }
                fn visit_str<E>(self, _: &str) -> Result<bool, E> {
                    Ok(false)
                }
                fn visit_u64<E>(self, _: u64) -> Result<bool, E> {
                    Ok(false)
                }
                fn visit_i64<E>(self, _: i64) -> Result<bool, E> {
                    Ok(false)
                }
                fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
                    Ok(false)
                }
                fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
                    Ok(false)
                }
                fn visit_unit<E>(self) -> Result<bool, E> {
                    Ok(false)
                }
            }
            d.deserialize_any(Seen).map(NonEmptyArray)
        }
    }
}

/// The tree reading of [`decode_task`]: any answer, with the precise error.
pub fn decode_task_tree(
    body: &[u8],
    kind: TaskKind,
    requested_id: &str,
) -> Result<TaskResult, ApiError> {
    const EXPECTED: &str = "a task result envelope with `data.data`";
    let root: Value = serde_json::from_slice(body).map_err(|e| ApiError::Decode {
        expected: EXPECTED,
        detail: sanitize(&e.to_string()),
    })?;
    let Value::Object(root) = root else {
        return Err(ApiError::Decode {
            expected: EXPECTED,
            detail: "got another JSON type".into(),
        });
    };
    if let Some(description) = lookup_failure(&root) {
        return Err(ApiError::Lookup { description });
    }
    let Some(Value::Object(task)) = root.get("data").and_then(|d| d.get("data")) else {
        return Err(ApiError::Decode {
            expected: EXPECTED,
            detail: "`data.data` is missing or not an object".into(),
        });
    };
    let Some(status) = opt_str(task.get("status")) else {
        return Err(ApiError::Decode {
            expected: "`data.data.status` as a string",
            detail: String::new(),
        });
    };
    let url_download = opt_str(task.get("url_download")).filter(|u| !u.trim().is_empty());
    Ok(TaskResult {
        task_id: opt_str(task.get("task_id")).unwrap_or_else(|| sanitize(requested_id)),
        kind,
        status,
        percent: decode_percent(task.get("percent")),
        total_tasks: task.get("total_tasks").and_then(Value::as_u64),
        url_download,
        envelope: Envelope {
            start_time: opt_str(root.get("start_time")),
            end_time: opt_str(root.get("end_time")),
            host_of_client_call_request: opt_str(root.get("host_of_client_call_request")),
            total_time_by_second: root.get("total_time_by_second").and_then(Value::as_f64),
            status: opt_str(root.get("status")),
        },
        extra: extra_of(task),
    })
}

/// The fields of `task` beyond the spec's five, in its order.
fn extra_of(task: &Map<String, Value>) -> Option<Box<ExtraFields>> {
    let mut extra = ExtraFields::default();
    for (name, value) in task {
        if !SPEC_FIELDS.contains(&name.as_str()) {
            extra.push(name, value);
        }
    }
    extra.finish()
}

/// How a task stands, derived from its verbatim status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskState {
    Running,
    Completed,
    Failed,
}

/// Failure statuses when the config names none.
pub const DEFAULT_FAILURE_STATUSES: &[&str] = &[
    "FAILED",
    "FAILURE",
    "ERROR",
    "CANCELLED",
    "CANCELED",
    "REJECTED",
    "EXPIRED",
    "TIMEOUT",
];

/// The default failure statuses as owned strings, for settings and tests.
pub fn default_failure_statuses() -> Vec<String> {
    DEFAULT_FAILURE_STATUSES
        .iter()
        .map(|s| (*s).to_string())
        .collect()
}

/// `COMPLETED` is success; a status in `failure_statuses` (case-insensitive) is a failure;
/// anything else is still running.
pub fn classify<S: AsRef<str>>(status: &str, failure_statuses: &[S]) -> TaskState {
    let s = status.trim();
    if s.eq_ignore_ascii_case("COMPLETED") {
        TaskState::Completed
    } else if failure_statuses
        .iter()
        .any(|f| f.as_ref().eq_ignore_ascii_case(s))
    {
        TaskState::Failed
    } else {
        TaskState::Running
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod fast_tests;
