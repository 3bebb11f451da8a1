//! The filter's query language: fzf's extended syntax (parsed by nucleo-matcher), `|` between
//! terms for alternatives, `key:value` terms on the metadata, and `type:`/`cate:` for the
//! service's own filters.
//!
//! A query is words separated by spaces (`\ ` is a space inside a word, as in nucleo; double
//! quotes group words too: `base:"SD 1.5"`). Every word must match, except that words joined
//! by a standalone `|` are alternatives of which one must: `a b | c` is a AND (b OR c). Each
//! word is one nucleo [`Atom`] (`'exact`, `^prefix`, `suffix$`, `^whole$`, `!not`, `!^`,
//! `!…$`), and fzf's `'word'` matches at word boundaries. A word `key:value` matches the value
//! against the entry's metadata field instead of its name, ignoring case; `!key:value` excludes.
//!
//! A value that starts with `>`, `>=`, `<`, `<=` or `=` is a comparison ([`super::compare`]):
//! `downloads:>1k`, `rating:>=4.5`, `updated:<2026-01`; it filters and scores nothing. The
//! operator may stand before quotes (`finished:>"2026-11-28 12:32"`; a quoted operator is
//! text), and a `\ ` in the operand is a space. Every list (the browser, the watch list, the
//! archive, `models` and `history`) parses here; what a list cannot use is an [`Issue`], told
//! against its [`Scope`].
//! `sort:key` / `sort:-key` orders the matches by a field instead of best first. `is:new`,
//! `is:changed` and `is:fav` are kept apart in [`Query::is`] for the browser to apply (its marks
//! and favourites), always combined with the rest by AND.
//!
//! Field names: `name`/`model` are the model name; `author`, `license`, `category`,
//! `version`, `source`, … are the metadata keys of the same name; `base` is `base_model`,
//! `trigger` is `trigger_words`, `weight` is `recommended_weight`. Any other key is looked up
//! as it is; a key no entry has matches nothing. `type:` and `cate:` are not matched here: they
//! set the service's filters (see [`Query::lora_type`]).

use super::compare::Comparison;
use super::issue::{Issue, Scope};
use crate::api::LoraType;
use nucleo_matcher::chars;
use nucleo_matcher::pattern::{Atom, AtomKind, CaseMatching, Normalization};

/// The friendly field names and the metadata keys they stand for.
pub const ALIASES: &[(&str, &str)] = &[
    ("base", "base_model"),
    ("trigger", "trigger_words"),
    ("weight", "recommended_weight"),
];

/// What a term is matched against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Name,
    /// A metadata key, lowercased, aliases resolved.
    Field(Box<str>),
}

/// One word of the query, matched against a name or a field.
#[derive(Debug, Clone)]
pub struct Term {
    pub target: Target,
    /// The key as typed (lowercased), for the detail line; `name` for names.
    pub label: Box<str>,
    pub atom: Atom,
    /// fzf's `'word'`: a substring starting and ending at word boundaries.
    pub word: bool,
    /// Whether case is ignored (always for fields; for names, smart case: while the needle has
    /// no capital).
    pub ignore_case: bool,
    /// The needle as the matcher compares it.
    pub needle: Box<[char]>,
    /// `key:>V` and the like: the value is compared, not matched (`atom` and `needle` then
    /// hold the operand's text and are not used to match).
    pub compare: Option<Comparison>,
}

/// What an `is:` term asks of an entry: the browser's marks and favourites.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flag {
    /// Listed by this load and not by the cached copy it replaced.
    New,
    /// Listed by both, with different metadata.
    Changed,
    /// A favourite.
    Fav,
}

impl Flag {
    pub fn as_str(self) -> &'static str {
        match self {
            Flag::New => "new",
            Flag::Changed => "changed",
            Flag::Fav => "fav",
        }
    }
}

/// An `is:` term: the flag, and whether it is negated (`!is:new`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IsTerm {
    pub flag: Flag,
    pub negated: bool,
}

/// A `type:` or `cate:` term, and whether it is finished (a space follows it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerTerm<T> {
    pub value: T,
    pub complete: bool,
}

/// A `sort:` term: the matches in the order of a field's values instead of best first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortBy {
    pub target: Target,
    /// The key as typed (lowercased), for the detail line.
    pub label: Box<str>,
    /// `sort:-key`: largest (latest, last) first.
    pub descending: bool,
}

impl SortBy {
    /// `rating ↓`, `name ↑`.
    pub fn describe(&self) -> String {
        let arrow = if self.descending { "↓" } else { "↑" };
        format!("{} {arrow}", self.label)
    }
}

/// A parsed query.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// Every group must match; within a group, one of its terms (the best scores).
    pub groups: Vec<Vec<Term>>,
    /// `type:` (the last one): the type to ask the service for (`type:all` is every type), or
    /// why the value is not one.
    pub lora_type: Option<ServerTerm<Result<Option<LoraType>, Issue>>>,
    /// `cate:` (the last one): the category to ask the service for.
    pub cate: Option<ServerTerm<String>>,
    /// `is:new`, `is:changed`, `is:fav` (and negated): every one must hold; the browser
    /// applies them (the matcher does not see them).
    pub is: Vec<IsTerm>,
    /// `sort:key` or `sort:-key` (the last one): the order of the matches.
    pub sort: Option<SortBy>,
    /// What was ignored, and why (a negated `type:`, `rating:>abc`, `is:foo`), and whether
    /// its term was finished (a space followed it): one still being typed is not told yet.
    pub problems: Vec<(Issue, bool)>,
    /// The `type:` and `cate:` terms as typed, for a list where they mean nothing.
    pub service_typed: Vec<(&'static str, String)>,
    /// Whether the query uses more than plain fuzzy words on names: a `|` (even dangling),
    /// operators, fields or the service's filters. Only those get a detail line.
    pub explained: bool,
}

/// One word of the query text.
struct Token {
    /// Without its double quotes; `\"` became `"`, other escapes are left for nucleo.
    text: String,
    /// Byte offset in `text` of the first `:` outside quotes, when no quote came before it.
    colon: Option<usize>,
    quoted: bool,
    /// Byte offset in `text` where the first quote opened: an operator before it is one
    /// (`finished:>"2026-11-28 12:32"`), one after it is text (`name:">1"`).
    quote_at: Option<usize>,
    /// A space (or the end of a closed quote then a space) follows it.
    complete: bool,
}

/// Splits as nucleo does (on spaces not preceded by a backslash), and keeps double-quoted
/// parts together.
fn tokens(query: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut text = String::new();
    let (mut colon, mut quoted, mut in_quotes, mut backslash) = (None, false, false, false);
    let mut quote_at = None;
    for c in query.chars() {
        if c == ' ' && !backslash && !in_quotes {
            if !text.is_empty() || quoted {
                out.push(Token {
                    text: std::mem::take(&mut text),
                    colon: colon.take(),
                    quoted,
                    quote_at: quote_at.take(),
                    complete: true,
                });
            }
            quoted = false;
            continue;
        }
        if c == '"' {
            if backslash {
                text.pop();
                text.push('"');
                backslash = false;
            } else {
                in_quotes = !in_quotes;
                quoted = true;
                quote_at.get_or_insert(text.len());
            }
            continue;
        }
        if c == ':' && !quoted && colon.is_none() {
            colon = Some(text.len());
        }
        backslash = c == '\\';
        text.push(c);
    }
    if !text.is_empty() || quoted {
        out.push(Token {
            text,
            colon,
            quoted,
            quote_at,
            complete: false,
        });
    }
    out
}

/// A field key: a letter, then letters, digits, `_` or `-`.
fn is_key(key: &str) -> bool {
    let mut chars = key.chars();
    chars.next().is_some_and(char::is_alphabetic)
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

/// Whether a value (without its `!`) is fzf's `'word'` form: then without its closing quote.
fn word_form(text: &str) -> Option<&str> {
    let inner = text.strip_prefix('!').unwrap_or(text);
    let closed = inner.starts_with('\'')
        && inner.chars().count() >= 2
        && inner.ends_with('\'')
        && !inner.ends_with("\\'");
    closed.then(|| &text[..text.len() - 1])
}

fn term(target: Target, label: &str, text: &str, case: CaseMatching) -> Option<Term> {
    let (source, word) = match word_form(text) {
        Some(without) => (without, true),
        None => (text, false),
    };
    let atom = Atom::parse(source, case, Normalization::Smart);
    let needle: Box<[char]> = atom.needle_text().chars().collect();
    if needle.is_empty() {
        return None; // `!`, `^`, `'` and the like alone: nothing to match yet
    }
    let ignore_case =
        case != CaseMatching::Respect && !needle.iter().any(|&c| chars::is_upper_case(c));
    Some(Term {
        target,
        label: label.into(),
        atom,
        word,
        ignore_case,
        needle,
        compare: None,
    })
}

/// A comparison term: `key:>V` (`negated` for `!key:>V`).
fn comparison(target: Target, label: &str, compare: Comparison, negated: bool) -> Term {
    let text = compare.describe();
    let atom = Atom::parse(
        &if negated { format!("!{text}") } else { text },
        CaseMatching::Ignore,
        Normalization::Never,
    );
    let needle: Box<[char]> = atom.needle_text().chars().collect();
    Term {
        target,
        label: label.into(),
        atom,
        word: false,
        ignore_case: true,
        needle,
        compare: Some(compare),
    }
}

/// What a key names: the name, or a metadata field (aliases resolved).
fn target_of(key: &str) -> Target {
    match key {
        "name" | "model" => Target::Name,
        other => Target::Field(
            ALIASES
                .iter()
                .find(|(alias, _)| *alias == other)
                .map_or(other, |(_, field)| field)
                .into(),
        ),
    }
}

fn parse_flag(value: &str) -> Option<Flag> {
    match value.to_ascii_lowercase().as_str() {
        "new" => Some(Flag::New),
        "changed" => Some(Flag::Changed),
        "fav" | "favourite" | "favorite" => Some(Flag::Fav),
        _ => None,
    }
}

fn parse_type(value: &str) -> Result<Option<LoraType>, Issue> {
    match value.to_ascii_lowercase().as_str() {
        "sd" => Ok(Some(LoraType::Sd)),
        "sdxl" => Ok(Some(LoraType::Sdxl)),
        "all" | "any" => Ok(None),
        _ => Err(Issue::NotAType {
            value: value.to_string(),
        }),
    }
}

/// A comparison's text as the comparison reads it: `\ ` is a space there as in a word
/// (`finished:>2026-11-28\ 12:32`), and any other escaped character is itself.
fn unescaped(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    out
}

impl Query {
    pub fn parse(query: &str) -> Query {
        let mut q = Query::default();
        let mut alternative = false;
        for token in tokens(query) {
            if !token.quoted && token.text == "|" {
                alternative = true;
                q.explained = true;
                continue;
            }
            let negated = token.text.starts_with('!');
            let key = token.colon.and_then(|at| {
                let key = token.text.get(usize::from(negated)..at)?;
                is_key(key).then(|| (key.to_lowercase(), at))
            });
            let found = match key {
                Some((key, at)) => {
                    q.explained = true;
                    let value = &token.text[at + 1..];
                    if value.is_empty() {
                        continue; // still being typed
                    }
                    match key.as_str() {
                        key @ ("type" | "cate") if negated => {
                            let key = if key == "type" { "type" } else { "cate" };
                            q.problems.push((
                                Issue::CannotNegate {
                                    key,
                                    value: value.to_string(),
                                },
                                true,
                            ));
                            continue;
                        }
                        "type" => {
                            q.service_typed.push(("type", value.to_string()));
                            q.lora_type = Some(ServerTerm {
                                value: parse_type(value),
                                complete: token.complete,
                            });
                            continue;
                        }
                        "cate" => {
                            q.service_typed.push(("cate", value.to_string()));
                            q.cate = Some(ServerTerm {
                                value: value.to_string(),
                                complete: token.complete,
                            });
                            continue;
                        }
                        "sort" | "is" => {
                            q.sort_or_is(&key, value, negated, token.complete);
                            continue;
                        }
                        _ => {}
                    }
                    let target = target_of(&key);
                    // An operator typed outside the quotes, whatever is quoted after it.
                    let operator = token.quote_at.is_none_or(|q| q > at + 1);
                    if operator && value.starts_with(['<', '>', '=']) {
                        q.comparison(target, &key, &unescaped(value), negated, token.complete)
                    } else {
                        let value = if negated {
                            format!("!{value}")
                        } else {
                            value.to_string()
                        };
                        let case = if target == Target::Name {
                            CaseMatching::Smart
                        } else {
                            CaseMatching::Ignore
                        };
                        term(target, &key, &value, case)
                    }
                }
                None => term(Target::Name, "name", &token.text, CaseMatching::Smart),
            };
            let Some(found) = found else {
                continue;
            };
            q.explained |= found.atom.negative
                || found.compare.is_some()
                || found.word
                || found.atom.kind != AtomKind::Fuzzy
                || found.target != Target::Name;
            match q.groups.last_mut() {
                Some(group) if alternative => group.push(found),
                _ => q.groups.push(vec![found]),
            }
            alternative = false;
        }
        q.explained |= q.lora_type.is_some()
            || q.cate.is_some()
            || !q.is.is_empty()
            || q.sort.is_some()
            || !q.problems.is_empty();
        q
    }

    /// A comparison term `key:>value` (`None`: an operator still being typed, or a value that
    /// is neither a number nor a date: a problem).
    fn comparison(
        &mut self,
        target: Target,
        key: &str,
        value: &str,
        negated: bool,
        complete: bool,
    ) -> Option<Term> {
        if value.trim_start_matches(['<', '>', '=']).is_empty() {
            return None;
        }
        let Some(compare) = Comparison::parse(value) else {
            let issue = Issue::NotComparable {
                key: key.to_string(),
                value: value.to_string(),
            };
            self.problems.push((issue, complete));
            return None;
        };
        Some(comparison(target, key, compare, negated))
    }

    /// A `sort:` or an `is:` term (`key`), kept apart from the matched terms.
    fn sort_or_is(&mut self, key: &str, value: &str, negated: bool, complete: bool) {
        if key == "is" {
            match parse_flag(value) {
                Some(flag) => self.is.push(IsTerm { flag, negated }),
                None => self.problems.push((
                    Issue::NotAFlag {
                        value: value.to_string(),
                    },
                    complete,
                )),
            }
            return;
        }
        if negated {
            let value = value.to_string();
            self.problems
                .push((Issue::CannotNegate { key: "sort", value }, true));
            return;
        }
        let (descending, key) = match value.strip_prefix('-') {
            Some(key) => (true, key),
            None => (false, value.strip_prefix('+').unwrap_or(value)),
        };
        let key = key.to_lowercase();
        if is_key(&key) {
            self.sort = Some(SortBy {
                target: target_of(&key),
                label: key.into(),
                descending,
            });
        }
    }

    /// Whether nothing is matched locally: every entry is shown, in its order (`is:` terms
    /// aside, which the browser applies).
    pub fn matches_all(&self) -> bool {
        self.groups.is_empty() && self.sort.is_none()
    }

    /// The detail line: what each term does, `·` between them, then what is ignored or wrong
    /// in `scope` (while `typing`, not the term still being typed). `metadata` says whether
    /// some entry of the catalogue has a key (`None`: not known yet).
    pub fn describe(
        &self,
        scope: &Scope,
        metadata: impl Fn(&str) -> Option<bool>,
        typing: bool,
    ) -> String {
        let mut parts: Vec<String> = self
            .groups
            .iter()
            .map(|group| {
                group
                    .iter()
                    .map(|t| {
                        let unknown = match &t.target {
                            Target::Field(key) if !scope.has_field(key, &metadata) => {
                                " (no such field)"
                            }
                            _ => "",
                        };
                        format!("{}{unknown}", t.describe())
                    })
                    .collect::<Vec<_>>()
                    .join(" or ")
            })
            .collect();
        if scope.flags {
            for t in &self.is {
                let not = if t.negated { "not " } else { "" };
                parts.push(format!("{not}is {}", t.flag.as_str()));
            }
        }
        if let Some(sort) = self.sort.as_ref().filter(|_| scope.sort) {
            parts.push(format!("sort {}", sort.describe()));
        }
        if let Some(t) = self.lora_type.as_ref().filter(|_| scope.service_terms) {
            parts.push(match &t.value {
                Ok(Some(ty)) => format!("type {}", ty.as_str()),
                Ok(None) => "type all".to_string(),
                Err(e) => e.told(),
            });
        }
        if let Some(c) = self.cate.as_ref().filter(|_| scope.service_terms) {
            parts.push(format!("cate {}", quoted(&c.value)));
        }
        let told = (self.problems.iter()).filter(|(_, complete)| *complete || !typing);
        parts.extend(told.map(|(issue, _)| issue.told()));
        // An unknown field is told beside its term, above.
        let out_of_place = self.out_of_place(scope, |_| Some(true));
        parts.extend(
            out_of_place
                .iter()
                .filter(|i| !matches!(i, Issue::NoSuchField { .. }))
                .map(Issue::told),
        );
        parts.join(" · ")
    }

    /// Every term that is ignored or wrong in `scope`, the one being typed included: what the
    /// command line refuses. `metadata` as in `describe`.
    pub fn issues(&self, scope: &Scope, metadata: impl Fn(&str) -> Option<bool>) -> Vec<Issue> {
        self.issues_of(scope, metadata, true)
    }

    /// As `issues`, but not the term still being typed (`rating:>4.` on its way to `4.5`):
    /// what the dashboard tells while the user types.
    pub fn told(&self, scope: &Scope, metadata: impl Fn(&str) -> Option<bool>) -> Vec<Issue> {
        self.issues_of(scope, metadata, false)
    }

    fn issues_of(
        &self,
        scope: &Scope,
        metadata: impl Fn(&str) -> Option<bool>,
        typing: bool,
    ) -> Vec<Issue> {
        let mut issues: Vec<Issue> = self
            .problems
            .iter()
            .filter(|(_, complete)| typing || *complete)
            .map(|(i, _)| i.clone())
            .collect();
        if scope.service_terms
            && let Some(Err(e)) = self.lora_type.as_ref().map(|t| &t.value)
        {
            issues.push(e.clone());
        }
        issues.extend(self.out_of_place(scope, metadata));
        issues
    }

    /// The terms `scope` has no place for: fields it does not have, and the browser's or the
    /// service's terms where they mean nothing.
    fn out_of_place(&self, scope: &Scope, metadata: impl Fn(&str) -> Option<bool>) -> Vec<Issue> {
        let mut out = Vec::new();
        for term in self.groups.iter().flatten() {
            if let Target::Field(key) = &term.target
                && !scope.has_field(key, &metadata)
            {
                let issue = Issue::NoSuchField {
                    key: term.label.to_string(),
                    known: scope.fields,
                };
                if !out.contains(&issue) {
                    out.push(issue);
                }
            }
        }
        if let Some(SortBy {
            target: Target::Field(key),
            label,
            ..
        }) = self.sort.as_ref().filter(|_| scope.sort)
            && !scope.has_field(key, &metadata)
        {
            out.push(Issue::NoSuchField {
                key: label.to_string(),
                known: scope.fields,
            });
        }
        let place = scope.place;
        if !scope.flags {
            out.extend(self.is.iter().map(|t| Issue::FlagNotHere {
                value: t.flag.as_str().to_string(),
                place,
            }));
        }
        if !scope.service_terms {
            out.extend(
                self.service_typed
                    .iter()
                    .map(|(key, value)| Issue::ServiceTermNotHere {
                        key,
                        value: value.clone(),
                        place,
                    }),
            );
        }
        if let Some(sort) = self.sort.as_ref().filter(|_| !scope.sort) {
            let minus = if sort.descending { "-" } else { "" };
            out.push(Issue::SortNotHere {
                value: format!("{minus}{}", sort.label),
                place,
            });
        }
        out
    }

    /// Whether every entry this query matches is matched by `shorter` too, so that this query
    /// can be ranked over `shorter`'s matches only: every group of `shorter` is implied by one
    /// of this query's groups. When unsure, no.
    pub fn narrows(&self, shorter: &Query) -> bool {
        shorter.groups.iter().all(|s| {
            self.groups
                .iter()
                .any(|l| l.iter().all(|a| s.iter().any(|b| a.implies(b))))
        })
    }
}

fn quoted(value: &str) -> String {
    if value.contains(' ') {
        format!("\"{value}\"")
    } else {
        value.to_string()
    }
}

fn is_subsequence(short: &[char], long: &[char]) -> bool {
    let mut long = long.iter();
    short.iter().all(|c| long.any(|l| l == c))
}

fn contains(long: &[char], short: &[char]) -> bool {
    short.is_empty() || long.windows(short.len()).any(|w| w == short)
}

impl Term {
    /// `name ~ pixel`, `author ^mak`, `not license openrail`, `name 'ink'`, `base "SD 1.5"`.
    pub fn describe(&self) -> String {
        let not = if self.atom.negative { "not " } else { "" };
        if let Some(c) = &self.compare {
            return format!("{not}{} {}", self.label, c.describe());
        }
        let needle: String = self.needle.iter().collect();
        let needle = quoted(&needle);
        let shown = match self.atom.kind {
            AtomKind::Fuzzy => format!("~ {needle}"),
            _ if self.word => format!("'{needle}'"),
            AtomKind::Prefix => format!("^{needle}"),
            AtomKind::Postfix => format!("{needle}$"),
            AtomKind::Exact => format!("^{needle}$"),
            // A substring: the value as it is.
            _ => needle,
        };
        format!("{not}{} {shown}", self.label)
    }

    /// Whether whatever matches this term matches `other`.
    fn implies(&self, other: &Term) -> bool {
        if self.target != other.target
            || self.atom.negative != other.atom.negative
            || self.ignore_case != other.ignore_case
        {
            return false;
        }
        match (&self.compare, &other.compare) {
            (None, None) => {}
            (Some(l), Some(s)) => return !self.atom.negative && l.implies(s) || l == s,
            _ => return false,
        }
        // Boundaries and spaces (which the matcher treats apart at the ends) only as typed.
        let unusual = |t: &Term| t.word || t.needle.iter().any(|c| c.is_whitespace());
        if unusual(self) || unusual(other) {
            return self.word == other.word
                && self.atom.kind == other.atom.kind
                && self.needle == other.needle;
        }
        if self.atom.negative {
            // not L implies not S when S implies L.
            other.matches_imply(self)
        } else {
            self.matches_imply(other)
        }
    }

    /// For positive terms of one case mode: whether a text matching `self` matches `other`.
    fn matches_imply(&self, other: &Term) -> bool {
        use AtomKind::{Exact, Fuzzy, Postfix, Prefix, Substring};
        let (l, s) = (&*self.needle, &*other.needle);
        match (self.atom.kind, other.atom.kind) {
            (_, Fuzzy) => is_subsequence(s, l),
            (_, Substring) => contains(l, s),
            (Exact | Prefix, Prefix) => l.starts_with(s),
            (Exact | Postfix, Postfix) => l.ends_with(s),
            (Exact, Exact) => l == s,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests;
