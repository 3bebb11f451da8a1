use super::*;

fn describe(q: &str) -> String {
    Query::parse(q).describe(&Scope::BROWSER, |k| Some(k != "nokey"), true)
}

fn kinds(q: &str) -> Vec<Vec<(AtomKind, bool, String)>> {
    Query::parse(q)
        .groups
        .iter()
        .map(|g| {
            g.iter()
                .map(|t| (t.atom.kind, t.atom.negative, t.needle.iter().collect()))
                .collect()
        })
        .collect()
}

#[test]
fn operators_parse_as_fzf_does() {
    use AtomKind::{Exact, Fuzzy, Postfix, Prefix, Substring};
    let one = |k, n, s: &str| vec![vec![(k, n, s.to_string())]];
    assert_eq!(kinds("pix"), one(Fuzzy, false, "pix"));
    assert_eq!(kinds("'pix"), one(Substring, false, "pix"));
    assert_eq!(kinds("^pix"), one(Prefix, false, "pix"));
    assert_eq!(kinds("xl$"), one(Postfix, false, "xl"));
    assert_eq!(kinds("^ink_wash$"), one(Exact, false, "ink_wash"));
    assert_eq!(kinds("!xl"), one(Substring, true, "xl"));
    assert_eq!(kinds("!^pix"), one(Prefix, true, "pix"));
    assert_eq!(kinds("!xl$"), one(Postfix, true, "xl"));
    assert_eq!(kinds("a\\ b"), one(Fuzzy, false, "a b"));
    assert_eq!(kinds("\\!x"), one(Fuzzy, false, "!x"));
    assert_eq!(
        kinds("! ^ ' |"),
        Vec::<Vec<_>>::new(),
        "operators alone match all"
    );
    let word = Query::parse("'ink'");
    assert!(word.groups[0][0].word && word.explained);
    assert!(
        !Query::parse("pixel art").explained,
        "plain words need no detail"
    );
}

#[test]
fn bars_join_alternatives_and_words_are_anded() {
    let q = Query::parse("a b | c");
    assert_eq!(q.groups.len(), 2);
    assert_eq!(q.groups[1].len(), 2);
    assert_eq!(Query::parse("^pixel | ^ukiyo").groups.len(), 1);
    assert_eq!(Query::parse("a | b | c").groups[0].len(), 3);
    let dangling = Query::parse("a |");
    assert_eq!((dangling.groups.len(), dangling.explained), (1, true));
    assert_eq!(Query::parse("| a").groups.len(), 1);
    assert_eq!(
        Query::parse("a|b").groups[0].len(),
        1,
        "only a standalone bar"
    );
    assert_eq!(
        Query::parse("a \"|\" b").groups.len(),
        3,
        "a quoted bar is a word"
    );
}

#[test]
fn field_terms_map_keys_and_take_quoted_values() {
    let q = Query::parse("Author:^mak base:\"SD 1.5\" !license:openrail name:pix x:\"a:b\"");
    let t: Vec<_> = q.groups.iter().map(|g| &g[0]).collect();
    assert_eq!(t[0].target, Target::Field("author".into()));
    assert_eq!(t[0].atom.kind, AtomKind::Prefix);
    assert_eq!(t[1].target, Target::Field("base_model".into()));
    assert_eq!(
        &*t[1].needle,
        ['s', 'd', ' ', '1', '.', '5'],
        "case ignored"
    );
    assert!(t[2].atom.negative && t[2].atom.kind == AtomKind::Substring);
    assert_eq!(t[3].target, Target::Name);
    assert_eq!(t[4].needle.iter().collect::<String>(), "a:b");
    assert_eq!(
        Query::parse("\"a:b\"").groups[0][0].target,
        Target::Name,
        "a quoted colon is text"
    );
    assert!(
        Query::parse("author:").matches_all(),
        "a key still being typed"
    );
}

#[test]
fn type_and_cate_are_taken_out() {
    let q = Query::parse("type:SDXL cate:\"fan art\" pix");
    assert_eq!(q.groups.len(), 1);
    assert_eq!(
        q.lora_type,
        Some(ServerTerm {
            value: Ok(Some(LoraType::Sdxl)),
            complete: true
        })
    );
    assert_eq!(
        q.cate,
        Some(ServerTerm {
            value: "fan art".into(),
            complete: true
        })
    );
    assert!(!Query::parse("type:sd").lora_type.expect("type").complete);
    assert_eq!(
        Query::parse("type:all ").lora_type.expect("type").value,
        Ok(None)
    );
    let bad = Query::parse("type:xl ");
    assert_eq!(
        bad.lora_type.expect("type").value,
        Err(Issue::NotAType { value: "xl".into() })
    );
    assert!(Query::parse("type:sd").matches_all());
}

#[test]
fn the_detail_line_says_what_each_term_does() {
    assert_eq!(
        describe("pixel author:^mak !license:openrail type:sdxl"),
        "name ~ pixel · author ^mak · not license openrail · type sdxl"
    );
    assert_eq!(
        describe("^pixel | ^ukiyo 'ink' xl$ ^a$ !^b !c$"),
        "name ^pixel or name ^ukiyo · name 'ink' · name xl$ · name ^a$ · not name ^b · not name c$"
    );
    assert_eq!(
        describe("base:\"SD 1.5\" nokey:x cate:anime type:xl"),
        "base ~ \"sd 1.5\" · nokey ~ x (no such field) · type:xl is not a type (sd, sdxl or all); ignored · cate anime"
    );
    assert_eq!(describe("!type:sd"), "!type:sd cannot be negated; ignored");
}

#[test]
fn comparisons_and_is_terms_parse() {
    let q = Query::parse("downloads:>1k !rating:<=4.5 updated:>=2026-01 is:new !is:fav x");
    let c: Vec<_> = q.groups.iter().map(|g| g[0].compare.is_some()).collect();
    assert_eq!(c, [true, true, true, false]);
    assert!(q.groups[1][0].atom.negative);
    assert_eq!(
        q.is,
        [
            IsTerm {
                flag: Flag::New,
                negated: false
            },
            IsTerm {
                flag: Flag::Fav,
                negated: true
            }
        ]
    );
    assert!(q.explained);
    assert_eq!(
        describe("downloads:>1k !rating:<=4.5 updated:>=2026-01 is:changed !is:fav"),
        "downloads > 1000 · not rating <= 4.5 · updated >= 2026-01 · is changed · not is fav"
    );
    assert!(
        Query::parse("downloads:>").matches_all(),
        "an operator being typed"
    );
    assert!(Query::parse("is:ne").matches_all() && describe("is:ne").is_empty());
    assert_eq!(
        describe("is:old rating:>x "),
        "is:old is not new, changed or fav; ignored · rating:>x: not a number or a date; ignored"
    );
    assert_eq!(
        Query::parse("name:\">1\"").groups[0][0].compare,
        None,
        "a quoted operator is text"
    );
}

#[test]
fn narrowing_only_where_it_holds() {
    let narrows = |s: &str, l: &str| Query::parse(l).narrows(&Query::parse(s));
    assert!(narrows("pix", "pixe"));
    assert!(narrows("pix", "pix !x"), "adding a negation narrows");
    assert!(narrows("pix", "pix art"), "adding a word narrows");
    assert!(narrows("^pi", "^pix"));
    assert!(narrows("pix", "^pix"), "an operator narrows a fuzzy word");
    assert!(narrows("a | b", "a"));
    assert!(narrows("author:ma", "author:mak"));
    assert!(narrows("x", "x type:sd"));
    assert!(!narrows("!x", "!xy"), "a longer negation excludes less");
    assert!(!narrows("a", "a | b"), "an alternative widens");
    assert!(!narrows("a |", "a | b"));
    assert!(!narrows("xl$", "xl$a"));
    assert!(!narrows("wat", "waT"), "smart case switched");
    assert!(!narrows("author:ma", "license:mak"));
    assert!(!narrows("pix", "!pix"));
    assert!(narrows("!xy", "!x"), "a shorter negation excludes more");
    assert!(narrows("d:>10", "d:>100"), "a stricter bound narrows");
    assert!(narrows("d:>=10", "d:>10"));
    assert!(!narrows("d:>10", "d:>=10"), ">=10 takes 10 too");
    assert!(!narrows("d:>100", "d:>10"), "a looser bound widens");
    assert!(narrows("d:<100", "d:<10"));
    assert!(!narrows("d:<10", "d:<=10"));
    assert!(narrows("d:<=10", "d:=5"));
    assert!(!narrows("d:>10", "d:<100"));
    assert!(!narrows("!d:>10", "!d:>100"), "negated: only the same");
    assert!(narrows("!d:>10", "!d:>10 x"));
    assert!(narrows("u:>2026", "u:>2026 x"), "dates: the same");
    assert!(!narrows("u:>2026", "u:>2026-01"));
    assert!(!narrows("d:1", "d:>1"), "text never implies a comparison");
    assert!(!narrows("d:>1", "d:1"));
}
