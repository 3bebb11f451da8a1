use super::*;
use crate::api::LoraEntry;
use serde_json::json;

#[test]
fn best_first_and_highlights() {
    let names = ["watercolor_v2", "pixel_art", "water_tower", "ink_wash_xl"];
    let mut f = FuzzyFilter::new();
    let ranked = f.rank("water", names);
    let got: Vec<_> = ranked.iter().map(|r| names[r.index as usize]).collect();
    assert_eq!(got.len(), 2);
    assert!(got.contains(&"watercolor_v2") && got.contains(&"water_tower"));
    assert_eq!(f.indices("pxa", "pixel_art"), vec![0, 2, 6]);
    assert!(f.rank("zzzz", names).is_empty());
    assert_eq!(f.rank("", names).len(), 4);
}

fn text(names: &[&str]) -> Arc<SearchText> {
    Arc::new(SearchText::from_names(names.iter().copied()))
}

fn full(text: &SearchText, query: &str) -> Vec<u32> {
    FuzzyFilter::new()
        .rank_text(query, text)
        .iter()
        .map(|r| r.index)
        .collect()
}

/// A small catalogue with metadata, as the reference service serves it.
fn catalogue() -> Arc<SearchText> {
    let entry = |name: &str, author: &str, base: &str, license: &str| {
        let meta = json!({"author": author, "base_model": base, "license": license,
                "trigger_words": ["ink", "wash"]});
        LoraEntry::new(name, meta.as_object().expect("object"))
    };
    Arc::new(SearchText::new(Arc::new([
        entry("pixel_art_xl", "maker1", "SDXL 1.0", "openrail"),
        entry("ukiyo-e_v2", "brushwork", "SD 1.5", "Apache-2.0"),
        entry("ink_wash", "Maker2", "SD 1.5", "CreativeML OpenRAIL-M"),
        entry("watercolor_ink", "painter", "Pony", "MIT"),
        entry("pixie_dust", "maker1", "SD 2.1", "MIT"),
    ])))
}

/// The names a query matches in the small catalogue, best first.
fn matching(query: &str) -> Vec<&'static str> {
    const NAMES: [&str; 5] = [
        "pixel_art_xl",
        "ukiyo-e_v2",
        "ink_wash",
        "watercolor_ink",
        "pixie_dust",
    ];
    let text = catalogue();
    let ranked = Ranker::new().rank(query, &text);
    assert_eq!(
        &*ranked,
        full(&text, query),
        "{query:?}: the ranker as from scratch"
    );
    ranked.iter().map(|&i| NAMES[i as usize]).collect()
}

fn sorted(mut v: Vec<&'static str>) -> Vec<&'static str> {
    v.sort_unstable();
    v
}

#[test]
fn each_operator_matches_as_fzf_does() {
    assert_eq!(sorted(matching("pxl")), ["pixel_art_xl"]);
    assert_eq!(
        sorted(matching("'ink")),
        ["ink_wash", "watercolor_ink"],
        "exact"
    );
    assert_eq!(matching("'inkw"), Vec::<&str>::new(), "exact is not fuzzy");
    assert_eq!(
        sorted(matching("^pix")),
        ["pixel_art_xl", "pixie_dust"],
        "prefix"
    );
    assert_eq!(sorted(matching("ink$")), ["watercolor_ink"], "suffix");
    assert_eq!(matching("^ink_wash$"), ["ink_wash"], "whole name");
    assert_eq!(
        sorted(matching("!ink")),
        ["pixel_art_xl", "pixie_dust", "ukiyo-e_v2"],
        "negation"
    );
    assert_eq!(
        sorted(matching("!^pix")),
        ["ink_wash", "ukiyo-e_v2", "watercolor_ink"]
    );
    assert_eq!(
        sorted(matching("!ink$")),
        ["ink_wash", "pixel_art_xl", "pixie_dust", "ukiyo-e_v2"]
    );
    assert_eq!(
        sorted(matching("'ink'")),
        ["ink_wash", "watercolor_ink"],
        "word"
    );
    assert_eq!(matching("'wash'"), ["ink_wash"]);
    assert_eq!(matching("'was'"), Vec::<&str>::new(), "not at a word's end");
    assert_eq!(
        sorted(matching("!'ink'")),
        ["pixel_art_xl", "pixie_dust", "ukiyo-e_v2"]
    );
    assert_eq!(
        matching("pix !dust"),
        ["pixel_art_xl"],
        "all words must match"
    );
}

#[test]
fn alternatives_and_their_and() {
    assert_eq!(
        sorted(matching("^pixel | ^ukiyo")),
        ["pixel_art_xl", "ukiyo-e_v2"]
    );
    assert_eq!(
        sorted(matching("^pixel | ^ukiyo | wash$")),
        ["ink_wash", "pixel_art_xl", "ukiyo-e_v2"]
    );
    // a AND (b OR c)
    assert_eq!(
        sorted(matching("i ^pix | ^ink")),
        ["ink_wash", "pixel_art_xl", "pixie_dust"]
    );
    assert_eq!(matching("xl ^pix | ^ink"), ["pixel_art_xl"]);
    assert_eq!(
        matching("^pix |"),
        matching("^pix"),
        "a bar still being typed"
    );
}

#[test]
fn field_terms_match_metadata_ignoring_case() {
    assert_eq!(
        sorted(matching("author:maker1")),
        ["pixel_art_xl", "pixie_dust"]
    );
    assert_eq!(
        sorted(matching("author:^mak")),
        ["ink_wash", "pixel_art_xl", "pixie_dust"]
    );
    assert_eq!(sorted(matching("AUTHOR:MAKER2")), ["ink_wash"]);
    assert_eq!(
        sorted(matching("base:\"SD 1.5\"")),
        ["ink_wash", "ukiyo-e_v2"]
    );
    assert_eq!(matching("base:\"^sd 2\""), ["pixie_dust"]);
    assert_eq!(
        sorted(matching("!license:openrail")),
        ["pixie_dust", "ukiyo-e_v2", "watercolor_ink"],
        "negated field"
    );
    assert_eq!(sorted(matching("license:mit$ pix")), ["pixie_dust"]);
    assert_eq!(
        matching("trigger:'wash'").len(),
        5,
        "lists are matched as text"
    );
    assert_eq!(
        sorted(matching("name:^ink | author:painter")),
        ["ink_wash", "watercolor_ink"]
    );
    assert_eq!(
        matching("nokey:x"),
        Vec::<&str>::new(),
        "an unknown key matches nothing"
    );
    assert_eq!(matching("!nokey:x"), Vec::<&str>::new());
    assert_eq!(
        matching("nokey:x | ^ink"),
        ["ink_wash"],
        "but an alternative may"
    );
    assert_eq!(
        matching("type:sdxl").len(),
        5,
        "type: is the service's filter"
    );
    assert_eq!(matching("cate:anime ^ink"), ["ink_wash"]);
}

/// The reference service's kind of metadata: numbers and dates as JSON gives them.
fn rated() -> Arc<SearchText> {
    let entry = |name: &str, downloads: serde_json::Value, rating: f64, updated: &str| {
        let meta = json!({"downloads": downloads, "rating": rating, "updated": updated});
        LoraEntry::new(name, meta.as_object().expect("object"))
    };
    Arc::new(SearchText::new(Arc::new([
        entry("a_many", json!(133_141), 4.9, "2026-07-14"),
        entry("b_few", json!(999), 4.5, "2026-01-01"),
        entry("c_text", json!("1.2k"), 3.6, "2025-12-31T23:59:00Z"),
        entry("d_none", json!("n/a"), 4.4, "unknown"),
        entry("e_grouped", json!("1,234"), 4.6, "2026-01-08 10:00"),
    ])))
}

fn rated_matching(query: &str) -> Vec<&'static str> {
    const NAMES: [&str; 5] = ["a_many", "b_few", "c_text", "d_none", "e_grouped"];
    let text = rated();
    let ranked = Ranker::new().rank(query, &text);
    assert_eq!(&*ranked, full(&text, query), "{query:?}: as from scratch");
    let mut got: Vec<_> = ranked.iter().map(|&i| NAMES[i as usize]).collect();
    got.sort_unstable();
    got
}

#[test]
fn comparisons_on_the_catalogues_metadata() {
    assert_eq!(
        rated_matching("downloads:>1000"),
        ["a_many", "c_text", "e_grouped"],
        "1.2k and 1,234 are numbers; n/a is none"
    );
    assert_eq!(rated_matching("downloads:<=1.2k"), ["b_few", "c_text"]);
    assert_eq!(
        rated_matching("rating:>=4.5"),
        ["a_many", "b_few", "e_grouped"]
    );
    assert_eq!(rated_matching("rating:=4.5"), ["b_few"]);
    assert_eq!(
        rated_matching("updated:>2026-01-01"),
        ["a_many", "e_grouped"]
    );
    assert_eq!(
        rated_matching("updated:>=2026-01-01"),
        ["a_many", "b_few", "e_grouped"]
    );
    assert_eq!(rated_matching("updated:<2026-01"), ["c_text"]);
    assert_eq!(rated_matching("updated:=2026-01"), ["b_few", "e_grouped"]);
    assert_eq!(
        rated_matching("!updated:<2026"),
        ["a_many", "b_few", "d_none", "e_grouped"],
        "negated: what does not hold, a value with no date included"
    );
    assert_eq!(
        rated_matching("updated:>2000-01"),
        ["a_many", "b_few", "c_text", "e_grouped"],
        "a value with no date never matches"
    );
    assert_eq!(
        rated_matching("rating:>4 downloads:<1000 | ^e"),
        ["b_few", "e_grouped"],
        "with alternatives and words"
    );
    assert_eq!(rated_matching("nokey:>1"), Vec::<&str>::new());
    let ordered = |q: &str| -> Vec<&str> {
        const NAMES: [&str; 5] = ["a_many", "b_few", "c_text", "d_none", "e_grouped"];
        let text = rated();
        let ranked = Ranker::new().rank(q, &text);
        assert_eq!(&*ranked, full(&text, q), "{q:?}: as from scratch");
        ranked.iter().map(|&i| NAMES[i as usize]).collect()
    };
    assert_eq!(
        ordered("sort:-downloads"),
        ["a_many", "e_grouped", "c_text", "b_few", "d_none"],
        "numbers as numbers, n/a last"
    );
    assert_eq!(
        ordered("sort:downloads"),
        ["b_few", "c_text", "e_grouped", "a_many", "d_none"]
    );
    assert_eq!(
        ordered("sort:-updated rating:>4"),
        ["a_many", "e_grouped", "b_few", "d_none"],
        "dates as dates, a value with no date after them"
    );
    assert_eq!(
        ordered("sort:-name"),
        ["e_grouped", "d_none", "c_text", "b_few", "a_many"]
    );
    assert_eq!(
        ordered("sort:-rating _"),
        ["a_many", "e_grouped", "b_few", "d_none", "c_text"]
    );
    let scored = FuzzyFilter::new().rank_text("rating:>4", &rated());
    assert!(scored.iter().all(|r| r.score == 0), "a comparison scores 0");
}

#[test]
fn comparisons_in_rank_fields() {
    let keys = ["status", "finished"];
    let rows: [(&str, [&str; 2]); 3] = [
        ("t1", ["completed", "2026-11-01 14:03"]),
        ("t2", ["failed", "2026-11-02 09:00"]),
        ("t3", ["running", ""]),
    ];
    let rank = |q: &str| -> Vec<&str> {
        let mut got: Vec<_> = FuzzyFilter::new()
            .rank_fields(q, &keys, rows.iter().map(|(n, v)| (*n, &v[..])))
            .iter()
            .map(|r| rows[r.index as usize].0)
            .collect();
        got.sort_unstable();
        got
    };
    assert_eq!(rank("finished:>2026-11-01"), ["t2"]);
    assert_eq!(rank("finished:>=2026-11-01"), ["t1", "t2"]);
    assert_eq!(rank("finished:<2026-11-01T14:04"), ["t1"]);
    assert_eq!(rank("!finished:>2026-11-01"), ["t1", "t3"]);
    assert_eq!(rank("finished:>2026 status:fail"), Vec::<&str>::new());
    assert_eq!(rank("finished:>=2026 status:fail"), ["t2"]);
}

/// Typing a comparison narrows only where the new one is the same or stricter.
#[test]
fn a_session_of_comparisons_ranks_as_from_scratch() {
    let text = rated();
    let mut r = Ranker::new();
    for query in [
        "downloads:>",
        "downloads:>1",
        "downloads:>10",
        "downloads:>100",
        "downloads:>1000",
        "downloads:>100",
        "downloads:>=1000",
        "downloads:>1000",
        "downloads:>100000",
        "downloads:>500",
        "downloads:>1000",
        "downloads:>1000 rating:<",
        "downloads:>1000 rating:<4",
        "downloads:>1000 rating:<4.",
        "downloads:>1000 rating:<4.6",
        "downloads:<1",
        "downloads:<10",
        "downloads:<1000",
        "downloads:=999",
        "downloads:<=999",
        "!downloads:>1",
        "!downloads:>10",
        "!downloads:>1000",
        "updated:>2",
        "updated:>20",
        "updated:>2026",
        "updated:>2026-",
        "updated:>2026-0",
        "updated:>2026-01",
        "updated:>2026-01-0",
        "updated:>2026-01-01",
        "rating:>4 | rating:<4",
        "rating:>4 |",
    ] {
        assert_eq!(&*r.rank(query, &text), full(&text, query), "{query:?}");
    }
}

#[test]
fn highlights_follow_the_name_terms() {
    let mut f = FuzzyFilter::new();
    assert_eq!(f.indices("^pix !dust", "pixel_art_xl"), [0, 1, 2]);
    assert_eq!(f.indices("xl$ author:pix", "pixel_art_xl"), [10, 11]);
    assert_eq!(f.indices("^zz | 'art", "pixel_art_xl"), [6, 7, 8]);
    assert_eq!(f.indices("'ink'", "watercolor_ink"), [11, 12, 13]);
    assert_eq!(f.indices("name:^wat", "watercolor_ink"), [0, 1, 2]);
}

/// Each step of a session is answered exactly as a ranking from scratch would be, whether
/// it narrows, reuses, or starts over.
#[test]
fn a_typing_session_ranks_as_from_scratch() {
    let names = text(&[
        "watercolor_v2",
        "Water_Tower",
        "ink_wash",
        "a b",
        "a\\b",
        "wat\\er",
        "café_noir",
        "CAFE_bright",
        "pixel_art",
        "WATERcolor",
    ]);
    let mut r = Ranker::new();
    for query in [
        "w",
        "wa",
        "wat",
        "wate",
        "wat",
        "wa",
        "waT",
        "wat",
        "wat\\",
        "wat\\ ",
        "wat\\e",
        "a",
        "a\\",
        "a\\ ",
        "a\\ b",
        "a ",
        "a b",
        "caf",
        "café",
        "cafe",
        "C",
        "CA",
        "CAf",
        "wat",
        "wat",
        "zz",
        "zzw",
        "",
        "w",
        "w !",
        "w !a",
        "w !at",
        "w !a",
        "w | ",
        "w | i",
        "w | in",
        "w | in |",
        "w | in | p",
        "^w",
        "^wa",
        "^wa$",
        "^wa",
        "'w",
        "'wa",
        "'wa'",
        "'wa",
        "wat$",
        "wat",
        "w\"a b\"",
        "\"a b",
        "\"a b\"",
    ] {
        assert_eq!(&*r.rank(query, &names), full(&names, query), "{query:?}");
    }
}

/// Typed and erased, a session's cheap rankings (a query ranked lately, or one narrowing
/// fewer than `CHEAP` matches) are answered as from scratch, the others left to `rank`;
/// a field term never builds the columns there.
#[test]
fn cheap_rankings_rank_as_from_scratch() {
    let names: Vec<String> = (0..3 * PER_THREAD)
        .map(|i| format!("{}_{}", ["water", "wash", "tower", "ink"][i % 4], i % 37))
        .collect();
    let names = Arc::new(SearchText::from_names(names.iter().map(String::as_str)));
    let mut r = Ranker::new();
    assert_eq!(r.rank_if_cheap("w", &names), None, "nothing ranked yet");
    let mut cheap = 0;
    for query in [
        "w", "wa", "wat", "wate", "water", "water_1", "water_12", "water_1", "water", "wate",
        "wat", "wa", "w", "t", "t_", "t_3", "t_3 !w", "ink", "ink_", "ink_3", "ink", "ink | t",
        "w", "wa", "was", "wash_2", "wa",
    ] {
        let answer = match r.rank_if_cheap(query, &names) {
            Some(answer) => {
                cheap += 1;
                answer
            }
            None => r.rank(query, &names),
        };
        assert_eq!(&*answer, full(&names, query), "{query:?}");
    }
    assert!(cheap >= 15, "only {cheap} cheap answers");
    assert_eq!(r.rank_if_cheap("wash_2 author:x", &names), None);
    assert!(
        names.built_fields().is_none(),
        "the columns are built on the thread"
    );
    let other = text(&["water_1"]);
    assert_eq!(r.rank_if_cheap("w", &other), None, "another catalogue");
}

/// A new catalogue is never ranked with an old catalogue's rankings, even under the same
/// query.
#[test]
fn a_new_catalogue_starts_over() {
    let old = text(&["ab", "ba"]);
    let new = text(&["xx", "ab"]);
    let mut r = Ranker::new();
    assert_eq!(&*r.rank("ab", &old), [0]);
    assert_eq!(&*r.rank("ab", &new), [1]);
    assert_eq!(&*r.rank("abc", &new), [0u32; 0]);
}

/// Over more names than one thread ranks, the parts are merged into one ranking order.
#[test]
fn ranking_in_parts_keeps_the_order() {
    let names: Vec<String> = (0..6 * PER_THREAD)
        .map(|i| format!("model_{}_{}", i % 7, i % 13))
        .collect();
    let names = Arc::new(SearchText::from_names(names.iter().map(String::as_str)));
    let mut r = Ranker::new();
    for query in ["m1", "m12", "m", "_3_", "model_6_12", "m !_3 | _4"] {
        assert_eq!(&*r.rank(query, &names), full(&names, query), "{query:?}");
    }
}

/// Split over three threads or ranked on one, a session of queries (narrowing, reusing,
/// starting over) over names with many tied scores ranks the same, and as from scratch.
#[test]
fn parts_rank_as_one_thread_does() {
    let names: Vec<String> = (0..5 * PER_THREAD + 7)
        .map(|i| {
            format!(
                "{}_{}_v{}",
                ["wash", "water", "tower"][i % 3],
                i % 11,
                i % 5
            )
        })
        .collect();
    let names = Arc::new(SearchText::from_names(names.iter().map(String::as_str)));
    let (mut one, mut three) = (Ranker::with_threads(1), Ranker::with_threads(3));
    for query in ["w", "wa", "wat", "wa", "t", "t_1", "t_1 !v3", "w", "", "_"] {
        let serial = one.rank(query, &names);
        assert_eq!(three.rank(query, &names), serial, "{query:?}");
        assert_eq!(&*serial, full(&names, query), "{query:?}: as from scratch");
    }
}

/// With the names kept in one block (as a catalogue of a million keeps them), a session
/// of queries ranks as over the entries' own names, split over threads or not.
#[test]
fn names_in_one_block_rank_as_the_entries() {
    let names: Vec<String> = (0..3 * PER_THREAD + 5)
        .map(|i| match i % 5 {
            0 => format!("water_{}_é{}", i % 9, i % 5),
            1 => format!("Wash-{}", i % 13),
            2 => String::new(),
            3 => format!("caf\u{e9}_{}", i % 3),
            _ => format!("tower名{}", i % 7),
        })
        .collect();
    let plain = text(&names.iter().map(String::as_str).collect::<Vec<_>>());
    let together = Arc::new(SearchText::names_together_from(
        (0..plain.len())
            .map(|i| LoraEntry::new(plain.name(i), &serde_json::Map::new()))
            .collect(),
        0,
    ));
    assert!(together.names_together());
    // Each name's letters known, the names left where they are (a smaller catalogue).
    let held_only = Arc::new(SearchText::names_together_from(
        (0..plain.len())
            .map(|i| LoraEntry::new(plain.name(i), &serde_json::Map::new()))
            .collect(),
        usize::MAX,
    ));
    assert!(held_only.knows_held() && !held_only.names_together());
    let (mut one, mut two) = (Ranker::with_threads(1), Ranker::with_threads(2));
    let mut held = Ranker::with_threads(2);
    for query in [
        "w", "wa", "wat", "wa", "é", "t名", "_1 !é3", "w", "", "wash-1$", "W", "Wa", "cafe",
        "cafe_2", "'wash'", "^wat", "!w", "!w 1", "w | z", "z | caf", "zz", "x1", "12",
    ] {
        let want = full(&plain, query);
        assert_eq!(&*one.rank(query, &together), want, "{query:?}");
        assert_eq!(&*two.rank(query, &together), want, "{query:?}");
        assert_eq!(&*held.rank(query, &held_only), want, "{query:?}");
    }
}

/// Random matches in input order: `len` of them over `spread` scores.
fn random_found(len: usize, spread: u64, seed: u64) -> Vec<Ranked> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15 ^ seed;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut index = 0;
    (0..len)
        .map(|_| {
            index += 1 + (next() % 4) as u32;
            Ranked {
                index,
                score: 100 + (next() % spread) as u32,
            }
        })
        .collect()
}

/// The counting sort orders as the comparison sort does: best score first, ties in input
/// order, whether the scores spread narrowly (counted) or widely (compared).
#[test]
fn by_score_is_the_sort() {
    for (len, spread) in [
        (0, 1),
        (1, 1),
        (7, 1),
        (500, 3),
        (500, 300),
        (300, 1_000_000),
    ] {
        let found = random_found(len, spread, 0);
        let mut sorted = found.clone();
        sort(&mut sorted);
        assert_eq!(
            by_score(&found),
            sorted,
            "{len} matches over {spread} scores"
        );
    }
}

/// Parts ranked on their own and merged rank as the whole does: split anywhere, in one part
/// or several, some empty, their scores narrow or wide.
#[test]
fn merged_parts_are_the_sort() {
    for (seed, (len, spread)) in [(0, 1), (9, 1), (500, 3), (500, 300), (300, 1_000_000)]
        .into_iter()
        .enumerate()
    {
        let found = random_found(len, spread, seed as u64);
        let mut sorted = found.clone();
        sort(&mut sorted);
        let want: Vec<u32> = sorted.iter().map(|r| r.index).collect();
        for cuts in [
            vec![],
            vec![len / 2],
            vec![0, len / 3, len / 3, len],
            vec![1.min(len), len / 4, len - len / 5],
        ] {
            let mut parts = Vec::new();
            let mut from = 0;
            for &cut in cuts.iter().chain([&len]) {
                parts.push(by_score(&found[from..cut]));
                from = cut;
            }
            let parts: Vec<&[Ranked]> = parts.iter().map(Vec::as_slice).collect();
            assert_eq!(merge(&parts), want, "{len} over {spread}, cut at {cuts:?}");
        }
    }
}
