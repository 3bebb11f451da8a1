//! The catalogue last loaded for each (service, type, category), kept under the platform cache
//! directory so that the dashboard starts with something to show, and works offline. One JSON
//! file per key, named by a hash of the key (nothing the service sends decides a path), written
//! atomically, with the time it was saved inside. A file that cannot be read or decoded counts
//! as none: it is replaced by the next successful load. Everything here is blocking file work,
//! for a worker's blocking thread.

use super::atomic::AtomicFile;
use crate::api::types::Interner;
use crate::api::{Catalogue, Listing, LoraEntry, LoraType};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The file format's version: a file of another is ignored.
const VERSION: u32 = 1;

/// What a cached catalogue is kept for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    /// The service's base URL, as saved in the watch list (no trailing slash).
    pub service: String,
    pub lora_type: Option<LoraType>,
    /// The category sent; an empty one is none.
    pub cate: Option<String>,
}

impl Key {
    pub fn new(service: &str, lora_type: Option<LoraType>, cate: Option<&str>) -> Self {
        Key {
            service: service.trim_end_matches('/').to_string(),
            lora_type,
            cate: cate.filter(|c| !c.is_empty()).map(str::to_string),
        }
    }

    /// The type as the command line spells it, `all` for none.
    pub fn type_label(&self) -> &'static str {
        self.lora_type.map_or("all", LoraType::as_str)
    }

    /// The category, `any` for none.
    pub fn cate_label(&self) -> &str {
        self.cate.as_deref().unwrap_or("any")
    }
}

/// A catalogue read back (as decoded, or made ready to be shown: a [`Listing`]), and when it
/// was saved (seconds since the epoch).
#[derive(Debug, Clone, PartialEq)]
pub struct Cached<C = Catalogue> {
    pub catalogue: C,
    pub saved_at: u64,
    /// Saved for broader filters (type all, or any category) and narrowed here to the key's:
    /// no copy was kept for the key itself.
    pub filtered: bool,
}

/// The copy made ready to be shown, on the thread that read it: the UI only swaps it in.
impl From<Cached> for Cached<Listing> {
    fn from(c: Cached) -> Self {
        Cached {
            catalogue: c.catalogue.into(),
            saved_at: c.saved_at,
            filtered: c.filtered,
        }
    }
}

/// The file's fields besides the entries. The entries (`data`) are written after these, each
/// from the text it keeps, and decoded apart, through the sanitiser.
#[derive(Serialize, Deserialize)]
struct Head {
    version: u32,
    service: String,
    #[serde(rename = "type")]
    lora_type: Option<LoraType>,
    cate: Option<String>,
    saved_at: u64,
    skipped: usize,
}

#[derive(Debug, Clone)]
pub struct CatalogueCache {
    dir: PathBuf,
}

impl CatalogueCache {
    pub fn new(dir: PathBuf) -> Self {
        CatalogueCache { dir }
    }

    /// `~/.cache/gendash/catalogues` on Linux, beside the preview cache.
    pub fn default_dir() -> PathBuf {
        super::paths::DataFiles::user().catalogue_cache
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where `key`'s catalogue is kept: a stable hash of the key's parts, each ended by a
    /// character none of them can contain.
    pub fn path_for(&self, key: &Key) -> PathBuf {
        let text = format!(
            "{}\n{}\n{}\n",
            key.service,
            key.type_label(),
            key.cate
                .as_deref()
                .map_or_else(String::new, |c| format!("={c}"))
        );
        self.dir.join(format!(
            "{:016x}.json",
            super::cache::fnv1a(text.as_bytes())
        ))
    }

    /// The catalogue kept for `key`, if there is a readable one. Every string is sanitised
    /// again: the file could have been written by anything.
    pub fn load(&self, key: &Key) -> Option<Cached> {
        self.load_where(key, |_| true, &no_earlier())
    }

    /// [`Self::load`], keeping only the entries `keep` accepts, sharing those `earlier` has
    /// unchanged.
    fn load_where(
        &self,
        key: &Key,
        keep: impl FnMut(&LoraEntry) -> bool,
        earlier: &Arc<[LoraEntry]>,
    ) -> Option<Cached> {
        use std::io::{BufReader, Seek};
        // Read as a stream, twice (the head, then the entries), from one open file: never
        // held whole (a million entries are some 400 MB of JSON).
        let mut file = std::fs::File::open(self.path_for(key)).ok()?;
        let head: Head =
            serde_json::from_reader(BufReader::with_capacity(64 * 1024, &file)).ok()?;
        let same = head.version == VERSION
            && head.service == key.service
            && head.lora_type == key.lora_type
            && head.cate == key.cate;
        if !same {
            return None;
        }
        file.rewind().ok()?;
        let mut catalogue = crate::api::types::decode_catalogue_with(
            BufReader::with_capacity(64 * 1024, file),
            keep,
            Interner::sharing(earlier.clone()),
        )
        .ok()?;
        catalogue.skipped += head.skipped;
        Some(Cached {
            catalogue,
            saved_at: head.saved_at,
            filtered: false,
        })
    }

    /// The copy kept for `key`, else one kept for broader filters narrowed to `key`'s: the
    /// same type with any category, then all types with the same category, then the whole
    /// catalogue. Every entry of the answer is listed under the key's type and category.
    pub fn load_nearest(&self, key: &Key) -> Option<Cached> {
        self.load_nearest_sharing(key, &no_earlier())
    }

    /// [`Self::load_nearest`], its entries those of `earlier` where it has them unchanged: a
    /// type change's cached copy, narrowed from the list shown before, holds no second copy
    /// of it.
    pub fn load_nearest_sharing(&self, key: &Key, earlier: &Arc<[LoraEntry]>) -> Option<Cached> {
        if let Some(exact) = self.load_where(key, |_| true, earlier) {
            return Some(exact);
        }
        let broader = |lora_type, cate: Option<&str>| Key::new(&key.service, lora_type, cate);
        let mut candidates = Vec::new();
        if key.cate.is_some() {
            candidates.push(broader(key.lora_type, None));
        }
        if key.lora_type.is_some() {
            candidates.push(broader(None, key.cate.as_deref()));
            if key.cate.is_some() {
                candidates.push(broader(None, None));
            }
        }
        // Narrowed while decoding: the entries left out are never all held at once.
        let (lora_type, cate) = (key.lora_type, key.cate.as_deref());
        candidates.iter().find_map(|wider| {
            let c = self.load_where(wider, |e| e.listed_under(lora_type, cate), earlier)?;
            Some(Cached {
                filtered: true,
                ..c
            })
        })
    }

    /// Keeps `catalogue` as `key`'s, saved at `saved_at`, replacing the file atomically.
    pub fn save(&self, key: &Key, catalogue: &Catalogue, saved_at: u64) -> io::Result<()> {
        self.stage(key, catalogue, saved_at)?.commit()
    }

    /// Streams `catalogue` into the replacement of its file, which `commit` makes durable and
    /// puts in place. Written before the catalogue is handed on, so it is neither copied nor
    /// held twice as bytes; the sync, the slow part, can wait until after.
    pub fn stage(&self, key: &Key, catalogue: &Catalogue, saved_at: u64) -> io::Result<AtomicFile> {
        let head = Head {
            version: VERSION,
            service: key.service.clone(),
            lora_type: key.lora_type,
            cate: key.cate.clone(),
            saved_at,
            skipped: catalogue.skipped,
        };
        let head = serde_json::to_string(&head).map_err(io::Error::other)?;
        let mut file = AtomicFile::create(&self.path_for(key), None)?;
        let out = file.writer();
        // The head's fields, then `data`: `{"version":1,…,"skipped":0,"data":[…]}`.
        out.write_all(head.strip_suffix('}').unwrap_or(&head).as_bytes())?;
        out.write_all(b",\"data\":[")?;
        for (i, entry) in catalogue.entries.iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            entry.write_json(out)?;
        }
        out.write_all(b"]}")?;
        Ok(file)
    }
}

/// No earlier list to share entries with.
fn no_earlier() -> Arc<[LoraEntry]> {
    Arc::new([])
}

/// How a fresh catalogue's entry compares with the copy it replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// Listed before, the same metadata.
    Same,
    /// Not listed before.
    New,
    /// Listed before (at this index of the old list) with other metadata.
    Changed(u32),
}

/// What changed from one catalogue to the next, compared by model name and metadata.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diff {
    /// One mark per entry of the fresh catalogue, in its order.
    pub marks: Vec<Mark>,
    pub new: usize,
    pub changed: usize,
    /// Indices in the old catalogue of the models the fresh one no longer lists.
    pub gone: Vec<u32>,
}

impl Diff {
    /// Whether anything differs.
    pub fn is_empty(&self) -> bool {
        self.new == 0 && self.changed == 0 && self.gone.is_empty()
    }
}

/// Compares `fresh` with the `old` copy it replaces: each model by name (the first of a name
/// counts), then by its metadata (the service's fields, as sent). Pure; about 100,000 entries
/// in a few milliseconds (release build).
pub fn diff(old: &[LoraEntry], fresh: &[LoraEntry]) -> Diff {
    // The old indices sorted by name, equal names by index (a stable sort): the first of equal
    // names is found first. 4 bytes a model, where a hash map of names took about 50: this
    // runs while both lists are held, the dashboard's peak (a million models: 4 MB, not 50).
    let mut by_name: Vec<u32> = (0..old.len() as u32).collect();
    by_name.sort_by(|&a, &b| old[a as usize].model().cmp(old[b as usize].model()));
    let name = |i: u32| old[i as usize].model();
    let unique = by_name.windows(2).all(|w| name(w[0]) != name(w[1]));
    let find = |model: &str| {
        let at = by_name.partition_point(|&i| name(i) < model);
        by_name.get(at).copied().filter(|&i| name(i) == model)
    };
    let mut seen = vec![false; old.len()];
    let mut d = Diff {
        marks: Vec::with_capacity(fresh.len()),
        ..Diff::default()
    };
    for (n, e) in fresh.iter().enumerate() {
        // A fresh list mostly keeps the old order: the same place is tried first, which is
        // the name's only place when no name is listed twice.
        let same_place = unique && old.get(n).is_some_and(|o| o.model() == e.model());
        let found = if same_place {
            Some(n as u32)
        } else {
            find(e.model())
        };
        let mark = match found {
            None => {
                d.new += 1;
                Mark::New
            }
            Some(i) => {
                seen[i as usize] = true;
                // Compared as sent; a mere reordering of the fields is no change.
                if old[i as usize] == *e || old[i as usize].metadata() == e.metadata() {
                    Mark::Same
                } else {
                    d.changed += 1;
                    Mark::Changed(i)
                }
            }
        };
        d.marks.push(mark);
    }
    // Each name once (its first place), gone when no fresh entry has it.
    d.gone = by_name
        .iter()
        .enumerate()
        .filter(|&(k, &i)| (k == 0 || name(by_name[k - 1]) != name(i)) && !seen[i as usize])
        .map(|(_, &i)| i)
        .collect();
    d.gone.sort_unstable();
    d
}

/// One metadata field that changed: its value before and after, as the service sent them
/// (`None`: absent, `null` in JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    pub field: String,
    pub before: Option<Value>,
    pub after: Option<Value>,
}

impl Change {
    /// `rating 4.2 → 4.5`, `license added: MIT`, `nsfw removed (true)`.
    pub fn describe(&self) -> String {
        let before = self.before.as_ref().map(value_text);
        let after = self.after.as_ref().map(value_text);
        match (&before, &after) {
            (Some(b), Some(a)) => format!("{} {b} → {a}", self.field),
            (None, Some(a)) => format!("{} added: {a}", self.field),
            (Some(b), None) => format!("{} removed ({b})", self.field),
            (None, None) => self.field.clone(),
        }
    }
}

/// A metadata value as text: strings as they are, anything else as JSON.
fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// What changed between two entries' metadata, field by field: the fresh entry's fields in
/// their order, then the fields it no longer has.
pub fn changes(old: &LoraEntry, fresh: &LoraEntry) -> Vec<Change> {
    let (before, after) = (old.metadata(), fresh.metadata());
    let mut out: Vec<Change> = after
        .iter()
        .filter(|(k, v)| before.get(*k) != Some(*v))
        .map(|(k, v)| Change {
            field: k.clone(),
            before: before.get(k).cloned(),
            after: Some(v.clone()),
        })
        .collect();
    out.extend(
        before
            .iter()
            .filter(|(k, _)| !after.contains_key(*k))
            .map(|(k, v)| Change {
                field: k.clone(),
                before: Some(v.clone()),
                after: None,
            }),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::LoraEntry;
    use serde_json::{Map, Value};

    fn entry(name: &str, cate: &str) -> LoraEntry {
        let mut m = Map::new();
        m.insert("category".into(), Value::String(cate.into()));
        LoraEntry::new(name, &m)
    }

    fn catalogue() -> Catalogue {
        Catalogue {
            entries: vec![entry("pixel_art", "style"), entry("ink", "style")],
            skipped: 2,
        }
    }

    #[test]
    fn a_saved_catalogue_reads_back_with_its_time() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = CatalogueCache::new(dir.path().join("catalogues"));
        let key = Key::new("http://127.0.0.1:9/", Some(LoraType::Sdxl), Some("style"));
        assert_eq!(cache.load(&key), None);
        cache.save(&key, &catalogue(), 1_700_000_000).expect("save");
        let back = cache.load(&key).expect("cached");
        assert_eq!(back.saved_at, 1_700_000_000);
        assert_eq!(back.catalogue, catalogue());
        assert_eq!(back.catalogue.entries[0].category(), Some("style"));
        // Saving again replaces the file whole.
        let one = Catalogue {
            entries: vec![entry("new", "x")],
            skipped: 0,
        };
        cache.save(&key, &one, 1_700_000_100).expect("save");
        assert_eq!(
            cache.load(&key),
            Some(Cached {
                catalogue: one,
                saved_at: 1_700_000_100,
                filtered: false,
            })
        );
        let names: Vec<_> = std::fs::read_dir(cache.dir())
            .expect("ls")
            .map(|e| e.expect("e").file_name())
            .collect();
        assert_eq!(names.len(), 1, "no temporary file left: {names:?}");
    }

    #[test]
    fn a_corrupt_file_counts_as_none_and_is_replaced() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = CatalogueCache::new(dir.path().to_path_buf());
        let key = Key::new("http://a", None, None);
        let path = cache.path_for(&key);
        for junk in [
            &b"not json"[..],
            b"",
            b"{\"version\":1}",
            b"{\"version\":1,\"service\":\"http://a\",\"type\":null,\"cate\":null,\"saved_at\":1,\"skipped\":0,\"data\":7}",
            b"{\"version\":99,\"service\":\"http://a\",\"type\":null,\"cate\":null,\"saved_at\":1,\"skipped\":0,\"data\":[]}",
        ] {
            std::fs::write(&path, junk).expect("write");
            assert_eq!(cache.load(&key), None, "{}", String::from_utf8_lossy(junk));
        }
        cache.save(&key, &catalogue(), 5).expect("replaced");
        assert_eq!(cache.load(&key).map(|c| c.saved_at), Some(5));
        // A file under the key's name that belongs to another key (a collision) is none.
        let other = Key::new("http://b", None, None);
        std::fs::copy(cache.path_for(&key), cache.path_for(&other)).expect("copy");
        assert_eq!(cache.load(&other), None);
    }

    #[test]
    fn each_key_has_its_own_file() {
        let cache = CatalogueCache::new(PathBuf::from("/c"));
        let keys = [
            Key::new("http://a", None, None),
            Key::new("http://b", None, None),
            Key::new("http://a", Some(LoraType::Sd), None),
            Key::new("http://a", Some(LoraType::Sdxl), None),
            Key::new("http://a", None, Some("style")),
            Key::new("http://a", None, Some("all")),
            Key::new("http://a", Some(LoraType::Sd), Some("style")),
        ];
        let paths: std::collections::BTreeSet<_> = keys.iter().map(|k| cache.path_for(k)).collect();
        assert_eq!(paths.len(), keys.len());
        // The same service with or without its trailing slash, no category or an empty one.
        assert_eq!(
            cache.path_for(&Key::new("http://a/", None, Some(""))),
            cache.path_for(&keys[0])
        );
        for p in &paths {
            let name = p.file_name().expect("name").to_string_lossy();
            assert!(
                name.len() == 21 && name.ends_with(".json"),
                "a safe name: {name}"
            );
        }
    }

    fn typed(name: &str, lora_type: Option<&str>, cate: Option<&str>) -> LoraEntry {
        let mut m = Map::new();
        if let Some(t) = lora_type {
            m.insert("type".into(), Value::String(t.into()));
        }
        if let Some(c) = cate {
            m.insert("category".into(), Value::String(c.into()));
        }
        LoraEntry::new(name, &m)
    }

    /// A copy made ready to be shown keeps what the cache said of it: its entries, its age,
    /// and whether it was narrowed from a broader copy.
    #[test]
    fn a_listed_copy_keeps_its_entries_age_and_narrowing() {
        let catalogue = Catalogue {
            entries: vec![
                typed("a", Some("sd"), Some("style")),
                typed("b", None, None),
            ],
            skipped: 3,
        };
        let listed: Cached<Listing> = Cached {
            catalogue: catalogue.clone(),
            saved_at: 42,
            filtered: true,
        }
        .into();
        assert_eq!(&*listed.catalogue.entries, &catalogue.entries[..]);
        assert_eq!(listed.catalogue.skipped, 3);
        assert_eq!(listed.catalogue.categories, ["style"]);
        assert_eq!(listed.saved_at, 42);
        assert!(listed.filtered);
    }

    /// A type change's cached copy, narrowed from a broader one, is made of the list shown's
    /// entries where they are the same, of its own where the copy differs.
    #[test]
    fn a_narrowed_copy_shares_the_entries_of_the_list_shown() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = CatalogueCache::new(dir.path().to_path_buf());
        let whole = Catalogue {
            entries: vec![
                typed("a", Some("sd"), Some("style")),
                typed("b", Some("sdxl"), Some("style")),
                typed("c", Some("sd"), Some("poses")),
            ],
            skipped: 0,
        };
        cache
            .save(&Key::new("http://a", None, None), &whole, 100)
            .expect("save");
        // The list shown: `a` as cached, `c` since changed.
        let shown: Arc<[LoraEntry]> = vec![
            whole.entries[0].clone(),
            typed("c", Some("sd"), Some("other")),
        ]
        .into();
        let sd = Key::new("http://a", Some(LoraType::Sd), None);
        let got = cache
            .load_nearest_sharing(&sd, &shown)
            .expect("narrowed")
            .catalogue
            .entries;
        assert_eq!(got, [whole.entries[0].clone(), whole.entries[2].clone()]);
        assert!(got[0].shares(&shown[0]));
        assert!(!got[1].shares(&shown[1]));
        assert_eq!(got[1].category(), Some("poses"));
    }

    /// Without a copy for the key, a broader one is narrowed to it by the entries' own
    /// `metadata.type` and `metadata.category`, as the service matches them (any case); an
    /// entry that names no type is never listed under one. A narrower or another key's copy
    /// never stands in.
    #[test]
    fn a_broader_copy_is_narrowed_to_the_key() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = CatalogueCache::new(dir.path().to_path_buf());
        let service = "http://a";
        let whole = Catalogue {
            entries: vec![
                typed("sd_style", Some("sd"), Some("style")),
                typed("SD_Style_caps", Some("SD"), Some("Style")),
                typed("sd_poses", Some("sd"), Some("poses")),
                typed("xl_style", Some("sdxl"), Some("style")),
                typed("untyped_style", None, Some("style")),
                typed("sd_uncategorised", Some("sd"), None),
            ],
            skipped: 1,
        };
        cache
            .save(&Key::new(service, None, None), &whole, 100)
            .expect("save");
        let names = |c: &Cached| -> Vec<String> {
            c.catalogue
                .entries
                .iter()
                .map(|e| e.model().to_string())
                .collect()
        };
        let sd_style = cache
            .load_nearest(&Key::new(service, Some(LoraType::Sd), Some("style")))
            .expect("narrowed from the whole catalogue");
        assert!(sd_style.filtered);
        assert_eq!(sd_style.saved_at, 100);
        assert_eq!(names(&sd_style), ["sd_style", "SD_Style_caps"]);
        let sd = cache
            .load_nearest(&Key::new(service, Some(LoraType::Sd), None))
            .expect("narrowed");
        assert_eq!(
            names(&sd),
            ["sd_style", "SD_Style_caps", "sd_poses", "sd_uncategorised"]
        );
        let style = cache
            .load_nearest(&Key::new(service, None, Some("style")))
            .expect("narrowed");
        assert_eq!(
            names(&style),
            ["sd_style", "SD_Style_caps", "xl_style", "untyped_style"]
        );

        // The same type with any category is nearer than the whole catalogue.
        let sd_any = Catalogue {
            entries: vec![typed("only_in_sd_copy", Some("sd"), Some("style"))],
            skipped: 0,
        };
        cache
            .save(&Key::new(service, Some(LoraType::Sd), None), &sd_any, 200)
            .expect("save");
        let nearest = cache
            .load_nearest(&Key::new(service, Some(LoraType::Sd), Some("style")))
            .expect("narrowed");
        assert_eq!(
            (names(&nearest), nearest.saved_at),
            (vec!["only_in_sd_copy".to_string()], 200)
        );
        // The key's own copy wins, unfiltered.
        let own = cache
            .load_nearest(&Key::new(service, Some(LoraType::Sd), None))
            .expect("its own");
        assert!(!own.filtered);
        assert_eq!(own.catalogue, sd_any);

        // sd is not broader than sdxl, nor another service's copy broader than this one's.
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = CatalogueCache::new(dir.path().to_path_buf());
        cache
            .save(&Key::new(service, Some(LoraType::Sd), None), &whole, 1)
            .expect("save");
        cache
            .save(&Key::new("http://b", None, None), &whole, 1)
            .expect("save");
        assert_eq!(
            cache.load_nearest(&Key::new(service, Some(LoraType::Sdxl), None)),
            None
        );
        assert_eq!(cache.load_nearest(&Key::new(service, None, None)), None);
    }

    /// A file written by anything else is sanitised on the way in, as the service's answers.
    #[test]
    fn strings_read_back_are_sanitised_again() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = CatalogueCache::new(dir.path().to_path_buf());
        let key = Key::new("http://a", None, None);
        let body = serde_json::json!({
            "version": 1, "service": "http://a", "type": null, "cate": null,
            "saved_at": 9, "skipped": 0,
            "data": [
                {"model": "evil\u{1b}]0;title\u{7}\u{202e}name", "metadata": {
                    "category": "\u{1b}[31mred", "n\u{1b}[2Jested": {"deep": ["\u{9b}2Jx"]}
                }},
                {"model": "\u{1b}[0m", "metadata": {}}
            ]
        });
        std::fs::write(cache.path_for(&key), body.to_string()).expect("write");
        let back = cache.load(&key).expect("cached");
        assert_eq!(
            back.catalogue.skipped, 1,
            "a name of escapes only is no name"
        );
        let e = &back.catalogue.entries[0];
        let all = format!("{} {}", e.model(), Value::Object(e.metadata()));
        assert!(
            crate::api::sanitize::is_clean(e.model())
                && !all.contains('\u{1b}')
                && !all.contains('\u{9b}'),
            "{all:?}"
        );
        assert_eq!(e.category(), Some("red"));
    }

    fn meta(name: &str, fields: &[(&str, Value)]) -> LoraEntry {
        let m: Map<String, Value> = fields
            .iter()
            .map(|(k, v)| ((*k).to_string(), v.clone()))
            .collect();
        LoraEntry::new(name, &m)
    }

    /// A name listed twice before is found at its first place, wherever the fresh list puts
    /// it, and is gone only when no fresh entry has it.
    #[test]
    fn a_name_listed_twice_is_compared_with_its_first_place() {
        use serde_json::json;
        let old = [
            meta("twice", &[("version", json!("v1"))]),
            meta("once", &[]),
            meta("twice", &[("version", json!("v2"))]),
            meta("left", &[]),
        ];
        let fresh = [
            meta("once", &[]),
            meta("brand_new", &[]),
            meta("twice", &[("version", json!("v2"))]),
        ];
        let d = diff(&old, &fresh);
        assert_eq!(d.marks, [Mark::Same, Mark::New, Mark::Changed(0)]);
        assert_eq!((d.new, d.changed, d.gone), (1, 1, vec![3]));
    }

    #[test]
    fn a_diff_by_name_then_metadata() {
        use serde_json::json;
        let old = [
            meta("kept", &[("rating", json!(4.2))]),
            meta("rated", &[("rating", json!(4.2)), ("version", json!("v1"))]),
            meta("gone_a", &[]),
            meta(
                "licensed",
                &[("license", json!("MIT")), ("nsfw", json!(true))],
            ),
            meta("gone_b", &[]),
        ];
        let fresh = [
            meta("brand_new", &[]),
            meta("rated", &[("rating", json!(4.5)), ("version", json!("v2"))]),
            meta("kept", &[("rating", json!(4.2))]),
            meta(
                "licensed",
                &[("license", json!("MIT")), ("author", json!("me"))],
            ),
        ];
        let d = diff(&old, &fresh);
        assert_eq!(
            d.marks,
            [Mark::New, Mark::Changed(1), Mark::Same, Mark::Changed(3)]
        );
        assert_eq!((d.new, d.changed, d.gone.clone()), (1, 2, vec![2, 4]));
        assert!(!d.is_empty());
        let said: Vec<String> = changes(&old[1], &fresh[1])
            .iter()
            .map(Change::describe)
            .collect();
        assert_eq!(said, ["rating 4.2 → 4.5", "version v1 → v2"]);
        let said: Vec<String> = changes(&old[3], &fresh[3])
            .iter()
            .map(Change::describe)
            .collect();
        assert_eq!(said, ["author added: me", "nsfw removed (true)"]);
        assert!(diff(&fresh, &fresh).is_empty(), "the same list: nothing");
        let reordered = [meta(
            "rated",
            &[("version", json!("v2")), ("rating", json!(4.5))],
        )];
        assert!(
            diff(&fresh[1..2], &reordered).is_empty(),
            "the same fields in another order are no change"
        );
        let first = diff(&[], &fresh);
        assert_eq!((first.new, first.changed, first.gone.len()), (4, 0, 0));
    }
}
