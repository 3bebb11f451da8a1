//! Property tests: what is saved loads back the same; any percent renders within 0..=100; the
//! filter's incremental ranking equals a ranking from scratch.

use gendash::api::Secret;
use gendash::api::{LoraEntry, SearchText, TaskKind};
use gendash::filter::{FuzzyFilter, Ranker};
use gendash::store::config::{self, BaseUrl, FileSettings, Seconds};
use gendash::store::watchlist::{LastKnown, Trouble, TroubleKind, WatchEntry, WatchStore};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

fn entry() -> impl Strategy<Value = WatchEntry> {
    let last = (
        any::<String>(),
        0u8..=100,
        proptest::option::of(any::<String>()),
        any::<u64>(),
    )
        .prop_map(|(status, percent, url_download, updated_at)| LastKnown {
            status,
            percent,
            url_download,
            updated_at,
            running_since: updated_at.checked_sub(5),
            finished_at: None,
            start_seen: updated_at % 2 == 0,
            history: vec![gendash::store::watchlist::Transition {
                at: updated_at,
                status: "QUEUED".into(),
            }],
            extra: None,
        });
    (
        "\\PC{1,40}",
        any::<bool>(),
        any::<u64>(),
        proptest::option::of(last),
        proptest::option::of("https?://[a-z0-9.:]{1,20}"),
        proptest::option::of("\\PC{1,40}"),
        proptest::option::of(any::<bool>()),
        proptest::option::of((any::<bool>(), "\\PC{0,40}", any::<u64>())),
    )
        .prop_map(
            |(task_id, video, added_at, last, service, saved, auto_download, trouble)| WatchEntry {
                task_id,
                kind: if video {
                    TaskKind::Video
                } else {
                    TaskKind::Image
                },
                added_at,
                last,
                service,
                saved,
                auto_download,
                trouble: trouble.map(|(not_found, text, since)| Trouble {
                    kind: if not_found {
                        TroubleKind::NotFound
                    } else {
                        TroubleKind::Error
                    },
                    text,
                    since,
                }),
                claimed_by: None,
                polled_by: None,
                label: None,
                seen: None,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn the_watch_list_survives_save_then_load(entries in proptest::collection::vec(entry(), 0..30)) {
        let dir = tempfile::tempdir().unwrap();
        let store = WatchStore::new(dir.path().join("w.json"));
        let saved = store.update(|l| *l = entries.clone()).unwrap().entries;
        let mut expected: Vec<WatchEntry> = Vec::new();
        for e in entries {
            if !expected.iter().any(|x| x.same_task(&e)) {
                expected.push(e);
            }
        }
        prop_assert_eq!(&saved, &expected);
        let loaded = store.load().unwrap();
        prop_assert!(loaded.set_aside.is_none());
        prop_assert_eq!(loaded.entries, expected);
    }
}

/// A level of settings and the TOML table that should parse back to it.
fn level(with_profiles: bool) -> impl Strategy<Value = (FileSettings, toml::Table)> {
    let urls = prop_oneof![
        Just("https://gen.example.com"),
        Just("https://gen.example.com/api/v1/"),
        Just("http://127.0.0.1:8787"),
        Just("http://[::1]:9/x")
    ];
    (
        proptest::option::of(urls),
        proptest::option::of("\\PC{1,30}"),
        // poll_interval and request_timeout, from their floors (0.2 s, 1 s) to a day.
        proptest::option::of(0.2f64..86_400.0),
        proptest::option::of(1.0f64..86_400.0),
        proptest::option::of(proptest::collection::vec("\\PC{0,12}", 0..5)),
        proptest::option::of(any::<bool>()),
        proptest::option::of(proptest::collection::vec("\\PC{0,12}", 0..5)),
        proptest::option::of(any::<bool>()),
        proptest::option::of(1usize..10_000),
        if with_profiles {
            proptest::collection::btree_map("[a-z][a-z0-9_-]{0,8}", level(false).boxed(), 0..3)
                .boxed()
        } else {
            Just(BTreeMap::new()).boxed()
        },
    )
        .prop_map(
            |(url, token, poll, timeout, failures, insecure, categories, bell, max, profiles)| {
                let mut t = toml::Table::new();
                let mut s = FileSettings::default();
                if let Some(u) = url {
                    t.insert("base_url".into(), u.into());
                    s.base_url = Some(BaseUrl::parse(u).unwrap());
                }
                if let Some(tok) = token {
                    t.insert("token".into(), tok.clone().into());
                    s.token = Some(Secret::new(tok));
                }
                if let Some(p) = poll {
                    t.insert("poll_interval".into(), p.into());
                    s.poll_interval = Some(Seconds(Duration::from_secs_f64(p)));
                }
                if let Some(p) = timeout {
                    t.insert("request_timeout".into(), p.into());
                    s.request_timeout = Some(Seconds(Duration::from_secs_f64(p)));
                }
                if let Some(f) = failures {
                    t.insert("failure_statuses".into(), f.clone().into());
                    s.failure_statuses = Some(f);
                }
                if let Some(b) = insecure {
                    t.insert("allow_insecure_http".into(), b.into());
                    s.allow_insecure_http = Some(b);
                }
                if let Some(c) = categories {
                    t.insert("categories".into(), c.clone().into());
                    s.categories = Some(c);
                }
                if let Some(b) = bell {
                    t.insert("bell".into(), b.into());
                    s.bell = Some(b);
                }
                if let Some(m) = max {
                    t.insert(
                        "max_concurrent_polls".into(),
                        i64::try_from(m).unwrap().into(),
                    );
                    s.max_concurrent_polls = std::num::NonZeroUsize::new(m);
                }
                if !profiles.is_empty() {
                    let mut pt = toml::Table::new();
                    let mut ps = BTreeMap::new();
                    for (name, (ls, lt)) in profiles {
                        pt.insert(name.clone(), toml::Value::Table(lt));
                        ps.insert(name, ls);
                    }
                    t.insert("profiles".into(), toml::Value::Table(pt));
                    s.profiles = Some(ps);
                }
                (s, t)
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn the_config_survives_save_then_load((settings, table) in level(true)) {
        let text = toml::to_string(&table).unwrap();
        let parsed = config::parse(&text, std::path::Path::new("p.toml")).unwrap();
        prop_assert_eq!(parsed, settings);
    }

    #[test]
    fn any_percent_renders_within_bounds(v in prop_oneof![
        any::<i64>().prop_map(serde_json::Value::from),
        any::<f64>().prop_filter("JSON numbers are finite", |f| f.is_finite()).prop_map(serde_json::Value::from),
        any::<f64>().prop_map(|f| serde_json::Value::from(f.to_string())),
        "\\PC{0,10}".prop_map(serde_json::Value::from),
        any::<u64>().prop_map(serde_json::Value::from),
    ], cells in 0usize..40) {
        let p = gendash::api::types::decode_percent(Some(&v));
        prop_assert!(p <= 100);
        let g = gendash::ui::watch::gauge(p, cells);
        prop_assert_eq!(g.chars().filter(|c| *c == '█' || *c == '░').count(), cells);
        let filled = g.chars().filter(|c| *c == '█').count();
        prop_assert!(filled * 100 <= cells * usize::from(p) + 50, "{} filled of {} at {}%", filled, cells, p);
    }
}

/// A few thousand entries of a few words each: capitals, accents, spaces and backslashes
/// included, where the query syntax and smart case could make narrowing go wrong; each with an
/// author and a license for the field terms. Built once for every case (the same entries each
/// time): built per case, the entries and their search text were most of the property's CPU.
fn filter_names() -> Arc<SearchText> {
    static NAMES: LazyLock<Arc<SearchText>> = LazyLock::new(build_filter_names);
    Arc::clone(&NAMES)
}

fn build_filter_names() -> Arc<SearchText> {
    const WORDS: &[&str] = &[
        "water", "color", "Ink", "wash", "TOWER", "pixel", "art", "café", "ÉTÉ", "noir", "x\\y",
        "a b", "straße", "wt", "Wax", "tiw",
    ];
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        WORDS[(x % WORDS.len() as u64) as usize]
    };
    let entries: Vec<LoraEntry> = (0..6_000)
        .map(|i| {
            let words: Vec<&str> = (0..3).map(|_| next()).collect();
            let meta =
                serde_json::json!({"author": format!("{}{}", next(), i % 7), "license": next()});
            LoraEntry::new(
                format!("{}_{}", words.join("_"), i % 89),
                meta.as_object().unwrap(),
            )
        })
        .collect();
    Arc::new(SearchText::new(entries.into()))
}

/// A keystroke in the filter field.
#[derive(Debug, Clone)]
enum Key {
    Type(char),
    Erase(usize),
    Paste(String),
}

fn key() -> impl Strategy<Value = Key> {
    let alphabet = "[aceilnortwxW_ \\\\Éé1!^'$|\"]";
    prop_oneof![
        6 => alphabet.prop_map(|c: String| Key::Type(c.chars().next().unwrap())),
        3 => (1usize..4).prop_map(Key::Erase),
        1 => proptest::string::string_regex(&format!("{alphabet}{{1,4}}"))
            .unwrap()
            .prop_map(Key::Paste),
        1 => prop_oneof![
            Just(" author:"), Just(" !license:"), Just(" | "), Just(" nokey:"), Just("name:"),
            Just(" base:\"a b\""), Just(" type:sd "), Just(" \\ "),
        ]
        .prop_map(|s| Key::Paste(s.to_string())),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// The dashboard's ranker (narrowing the previous matches where the new query provably
    /// matches no more, reusing earlier rankings, ranking in parts on several threads) answers
    /// every query of a typing session, operators, alternatives and field terms included,
    /// exactly as ranking all the entries from scratch does.
    #[test]
    fn incremental_ranking_equals_a_full_ranking(keys in proptest::collection::vec(key(), 1..24)) {
        let text = filter_names();
        let mut ranker = Ranker::new();
        let mut full = FuzzyFilter::new();
        let mut query = String::new();
        for k in keys {
            match k {
                Key::Type(c) => query.push(c),
                Key::Erase(n) => {
                    for _ in 0..n {
                        query.pop();
                    }
                }
                Key::Paste(text) => query.push_str(&text),
            }
            let expected: Vec<u32> = full
                .rank_text(&query, &text)
                .iter()
                .map(|r| r.index)
                .collect();
            prop_assert_eq!(&*ranker.rank(&query, &text), &expected[..], "query {:?}", query);
        }
    }
}
