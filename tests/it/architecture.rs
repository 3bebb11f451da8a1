//! The layers, checked on the source: the one place the rules live (`RULES`) and are enforced.
//! `docs/architecture.md` draws them and a test below keeps the drawing and `RULES` in step.
//!
//! Every file under `src/` is parsed as Rust (`syn`), so comments, doc comments and strings are
//! never read as code. The checker collects every path into the crate: `use` items (groups,
//! renames, globs), paths in types, expressions, patterns and attributes, and the token streams
//! of macros; `crate::`, `super::` and `self::` are resolved per file to the absolute module (the
//! modules are found by following `mod` declarations from `lib.rs`, `#[path]` included), and a
//! bare `use api::…` in the crate root counts as `crate::api`. On those paths it checks:
//! - the layer rule: a top-level module imports only the modules `RULES` lets it (`ui` reads
//!   `app`'s types and the leaves `fmt`, `eta`, `picture`, nothing of `api`);
//! - no alias of the crate root (`use crate as …`, `extern crate self as …`) and no glob of it,
//!   which would hide what a path names;
//! - `pub use` re-exports only items of its own top-level module (no laundering of an import);
//! - `lib.rs` only declares modules; `main.rs` uses only `cli` and declares no module;
//! - no import cycle between top-level modules, and none between the files of one module.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use syn::visit::Visit;

mod checker_tests;
mod doc;
mod rules;
use rules::*;

/// Who may depend on whom: each top-level module of `src/` and the modules it may import. A
/// module may always use itself. `lib` is `src/lib.rs` (it declares the modules and imports
/// nothing); `main` is `src/main.rs` (it hands over to `cli`). `testing` is compiled only into
/// test builds. Keep `docs/architecture.md` in step (`doc` compares them).
const RULES: &[(&str, &[&str])] = &[
    ("lib", &[]),
    ("main", &["cli"]),
    ("api", &[]),
    ("eta", &[]),
    ("fmt", &[]),
    ("fit", &[]),
    ("clock", &[]),
    ("filter", &["api"]),
    ("store", &["api"]),
    ("picture", &["store", "testing", "fmt", "fit"]),
    ("cmd", &["api", "store"]),
    ("msg", &["api", "store", "picture", "cmd", "filter", "fmt"]),
    (
        "workers",
        &[
            "msg", "cmd", "store", "api", "picture", "filter", "clock", "eta", "fmt",
        ],
    ),
    (
        "app",
        &[
            "msg", "cmd", "store", "api", "testing", "eta", "picture", "filter", "fmt", "fit",
        ],
    ),
    ("ui", &["app", "eta", "picture", "fmt", "fit", "filter"]),
    (
        "dashboard",
        &[
            "app", "ui", "workers", "msg", "cmd", "store", "api", "testing", "picture", "filter",
            "clock", "fmt", "fit",
        ],
    ),
    ("server", &["api"]),
    ("logging", &["store"]),
    ("testing", &["store", "api"]),
    (
        "cli",
        &[
            "dashboard",
            "fmt",
            "fit",
            "clock",
            "app",
            "server",
            "store",
            "api",
            "testing",
            "logging",
            "eta",
            "filter",
        ],
    ),
];

/// Violations today's `src/` still has, found when the checker grew stricter (issue 18). The
/// test subtracts them so the suite stays green while the code is fixed, and fails as soon as an
/// entry is no longer a violation: this list only shrinks, to empty. Never add to it.
const KNOWN_VIOLATIONS: &[&str] = &[];

/// A path into the crate, as one file names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A private `use` item.
    Use,
    /// A `pub`, `pub(crate)`, `pub(super)` or `pub(in …)` `use` item: a re-export.
    PubUse,
    /// A path in code: a type, an expression, a pattern, an attribute or a macro's tokens.
    Inline,
}

#[derive(Debug, Clone)]
struct Reference {
    /// The module that depends on the path: the file's, or the `#[cfg(test)]` module around it
    /// (a test module is its own node in the graph of files, so tests add no cycle).
    from: Vec<String>,
    /// The absolute path, without `crate` (`["api", "links", "validate_link"]`).
    path: Vec<String>,
    kind: Kind,
    line: usize,
}

/// One source file, read.
#[derive(Debug)]
struct Source {
    /// `src/app/state.rs`, relative to the directory holding `src/`.
    rel: String,
    /// The module the file is (`["app", "state"]`; `[]` for `lib.rs`, `["main"]` for `main.rs`).
    module: Vec<String>,
    refs: Vec<Reference>,
    /// What is wrong with the file's own syntax (aliases, globs of the root, modules in main).
    problems: Vec<(usize, String)>,
    /// Declared under `#[cfg(test)]`: its re-exports (a tests' prelude) reach no build of the
    /// product, so they launder nothing.
    test_only: bool,
}

impl Source {
    fn top(&self) -> &str {
        self.module.first().map_or("lib", String::as_str)
    }
}

/// A broken rule, with where.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Violation {
    rel: String,
    line: usize,
    message: String,
    /// Shown, not part of the key: where each step of a cycle is made.
    detail: String,
}

impl Violation {
    /// What `KNOWN_VIOLATIONS` lists: the file and the message, no line (lines move).
    fn key(&self) -> String {
        format!("{}: {}", self.rel, self.message)
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.rel, self.message)?;
        } else {
            write!(f, "{}:{}: {}", self.rel, self.line, self.message)?;
        }
        if !self.detail.is_empty() {
            write!(f, "\n    {}", self.detail)?;
        }
        Ok(())
    }
}

fn rule(module: &str) -> Option<&'static [&'static str]> {
    RULES.iter().find(|(m, _)| *m == module).map(|(_, d)| *d)
}

fn allowed(module: &str, target: &str) -> bool {
    module == target || rule(module).is_some_and(|deps| deps.contains(&target))
}

// ---------------------------------------------------------------------------------------------
// Reading one file
// ---------------------------------------------------------------------------------------------

fn line_of(span: proc_macro2::Span) -> usize {
    span.start().line
}

/// The names a file binds that are not the crate's top-level modules: its child modules and
/// what it imports from other crates (`use std::fmt;` makes a later `fmt::` mean `std::fmt`).
#[derive(Default)]
struct Bindings {
    child_modules: BTreeSet<String>,
    external: BTreeSet<String>,
}

impl Bindings {
    fn of(file: &syn::File) -> Self {
        let mut b = Self::default();
        b.items(&file.items);
        b
    }

    fn items(&mut self, items: &[syn::Item]) {
        for item in items {
            match item {
                syn::Item::Mod(m) => {
                    self.child_modules.insert(m.ident.to_string());
                    if let Some((_, inner)) = &m.content {
                        self.items(inner);
                    }
                }
                syn::Item::Use(u) if !is_crate_root_word(&first_ident(&u.tree)) => {
                    leaves(&u.tree, &mut self.external);
                }
                _ => {}
            }
        }
    }
}

fn first_ident(tree: &syn::UseTree) -> String {
    match tree {
        syn::UseTree::Path(p) => p.ident.to_string(),
        syn::UseTree::Name(n) => n.ident.to_string(),
        syn::UseTree::Rename(r) => r.ident.to_string(),
        syn::UseTree::Glob(_) | syn::UseTree::Group(_) => String::new(),
    }
}

fn leaves(tree: &syn::UseTree, out: &mut BTreeSet<String>) {
    match tree {
        syn::UseTree::Path(p) => leaves(&p.tree, out),
        syn::UseTree::Name(n) => {
            out.insert(n.ident.to_string());
        }
        syn::UseTree::Rename(r) => {
            out.insert(r.rename.to_string());
        }
        syn::UseTree::Glob(_) => {}
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| leaves(t, out)),
    }
}

fn is_cfg_test(a: &syn::Attribute) -> bool {
    a.path().is_ident("cfg")
        && a.meta.require_list().is_ok_and(|l| {
            l.tokens
                .to_string()
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .any(|w| w == "test")
        })
}

fn is_crate_root_word(word: &str) -> bool {
    matches!(word, "crate" | "super" | "self" | "gendash")
}

/// Walks one file's syntax tree, collecting references, `mod` declarations and problems.
struct Scan<'a> {
    /// The absolute module of the scope being read (grows inside inline `mod x { … }`).
    scope: Vec<String>,
    /// The inline modules around the scope, relative to the file (for `mod x;` inside them).
    inline: Vec<String>,
    tops: &'a BTreeSet<String>,
    bindings: Bindings,
    binary: bool,
    refs: Vec<Reference>,
    /// Where references count from (see `Reference::from`).
    from: Vec<String>,
    /// Each `mod NAME;` declared in the file: its inline parents, name, `#[path]`, and whether
    /// it is compiled for tests only (`#[cfg(test)]` on it or on a parent).
    mods: Vec<(Vec<String>, String, Option<String>, bool)>,
    problems: Vec<(usize, String)>,
    /// The scope is compiled for tests only: the file was declared under `#[cfg(test)]`, or an
    /// inline `#[cfg(test)] mod` around the scope is being read.
    in_test: bool,
}

impl Scan<'_> {
    /// The absolute module the first segment of a path names, or `None` when the path leads
    /// out of the crate (`std::…`, a local item). `in_use`: bare names of top-level modules
    /// count only in `use` items (in code, `fmt::Display` after `use std::fmt` is not ours).
    fn root(&self, first: &str, in_use: bool) -> Option<Vec<String>> {
        match first {
            "crate" if self.binary => Some(vec!["main".to_string()]),
            "crate" | "gendash" => Some(Vec::new()),
            "super" => {
                let mut s = self.scope.clone();
                s.pop().map(|_| s)
            }
            "self" => Some(self.scope.clone()),
            x if in_use && self.bindings.child_modules.contains(x) => {
                let mut s = self.scope.clone();
                s.push(x.to_string());
                Some(s)
            }
            x if in_use
                && !self.binary
                && self.tops.contains(x)
                && !self.bindings.external.contains(x) =>
            {
                Some(vec![x.to_string()])
            }
            _ => None,
        }
    }

    fn is_root(&self, path: &[String]) -> bool {
        path.is_empty() || (self.binary && path == ["main"])
    }

    fn record(&mut self, path: Vec<String>, kind: Kind, line: usize) {
        if !self.is_root(&path) {
            let from = self.from.clone();
            self.refs.push(Reference {
                from,
                path,
                kind,
                line,
            });
        }
    }

    fn use_tree(&mut self, tree: &syn::UseTree, prefix: Option<Vec<String>>, kind: Kind) {
        let in_use = kind != Kind::Inline;
        let step = |scan: &Self, ident: &syn::Ident, prefix: &Option<Vec<String>>| {
            let word = ident.to_string();
            match prefix {
                None => scan.root(&word, in_use),
                Some(pre) if word == "self" => Some(pre.clone()),
                Some(pre) if word == "super" => {
                    let mut p = pre.clone();
                    p.pop().map(|_| p)
                }
                Some(pre) => {
                    let mut p = pre.clone();
                    p.push(word);
                    Some(p)
                }
            }
        };
        match tree {
            syn::UseTree::Path(p) => {
                if let Some(next) = step(self, &p.ident, &prefix) {
                    self.use_tree(&p.tree, Some(next), kind);
                }
            }
            syn::UseTree::Name(n) => {
                if let Some(path) = step(self, &n.ident, &prefix) {
                    self.record(path, kind, line_of(n.ident.span()));
                }
            }
            syn::UseTree::Rename(r) => {
                if let Some(path) = step(self, &r.ident, &prefix) {
                    let line = line_of(r.ident.span());
                    if self.is_root(&path) {
                        self.problems.push((
                            line,
                            format!(
                                "`as {}` renames the crate root, which hides what its paths name; \
                                 write `crate::`",
                                r.rename
                            ),
                        ));
                    }
                    self.record(path, kind, line);
                }
            }
            syn::UseTree::Glob(g) => {
                if let Some(path) = prefix {
                    let line = line_of(g.star_token.span);
                    if self.is_root(&path) {
                        self.problems.push((
                            line,
                            "a glob of the crate root hides which modules are used; name them"
                                .to_string(),
                        ));
                    }
                    self.record(path, kind, line);
                }
            }
            syn::UseTree::Group(g) => {
                for item in &g.items {
                    self.use_tree(item, prefix.clone(), kind);
                }
            }
        }
    }

    /// Paths in a macro's tokens: `crate::…`, `$crate::…`, `super::…`, `self::…`, with groups.
    fn tokens(&mut self, stream: TokenStream) {
        let toks: Vec<TokenTree> = stream.into_iter().collect();
        let colons = |j: usize| {
            matches!(toks.get(j), Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == Spacing::Joint)
                && matches!(toks.get(j + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':')
        };
        let mut i = 0;
        while i < toks.len() {
            match &toks[i] {
                TokenTree::Group(g) => {
                    self.tokens(g.stream());
                    i += 1;
                }
                TokenTree::Ident(id) if is_crate_root_word(&id.to_string()) && colons(i + 1) => {
                    let mut j = i + 1;
                    while colons(j) {
                        match toks.get(j + 2) {
                            Some(TokenTree::Ident(_)) => j += 3,
                            Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
                                j += 3;
                                break;
                            }
                            Some(TokenTree::Punct(p)) if p.as_char() == '*' => {
                                j += 3;
                                break;
                            }
                            _ => break,
                        }
                    }
                    let path: TokenStream = toks[i..j].iter().cloned().collect();
                    if let Ok(tree) = syn::parse2::<syn::UseTree>(path) {
                        self.use_tree(&tree, None, Kind::Inline);
                    }
                    i = j;
                }
                _ => i += 1,
            }
        }
    }
}

impl<'ast> Visit<'ast> for Scan<'_> {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let kind = if matches!(u.vis, syn::Visibility::Inherited) {
            Kind::Use
        } else {
            Kind::PubUse
        };
        self.use_tree(&u.tree, None, kind);
    }

    fn visit_item_extern_crate(&mut self, e: &'ast syn::ItemExternCrate) {
        let name = e.ident.to_string();
        if name == "self" || name == "gendash" {
            self.problems.push((
                line_of(e.extern_token.span),
                format!(
                    "`extern crate {name}` gives the crate a second name, which hides what its \
                     paths name; write `crate::`"
                ),
            ));
        }
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let name = m.ident.to_string();
        if m.content.is_none() {
            if self.binary {
                self.problems.push((
                    line_of(m.ident.span()),
                    format!("main.rs declares `mod {name}`: the binary only hands over to `cli`"),
                ));
            }
            let path_attr = m.attrs.iter().find_map(|a| match &a.meta {
                syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) => Some(s.value()),
                    _ => None,
                },
                _ => None,
            });
            let test = self.in_test || m.attrs.iter().any(is_cfg_test);
            self.mods.push((self.inline.clone(), name, path_attr, test));
            return;
        }
        self.scope.push(name.clone());
        self.inline.push(name);
        let (outer, outer_test) = (self.from.clone(), self.in_test);
        if m.attrs.iter().any(is_cfg_test) {
            self.from.clone_from(&self.scope);
            self.in_test = true;
        }
        syn::visit::visit_item_mod(self, m);
        self.from = outer;
        self.in_test = outer_test;
        self.scope.pop();
        self.inline.pop();
    }

    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {
        // `pub(crate)`, `pub(in crate::app)`: who may see an item, not an import.
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let mut segments = p.segments.iter();
        if let (None, Some(first), Some(_)) = (&p.leading_colon, segments.next(), segments.next())
            && let Some(mut path) = self.root(&first.ident.to_string(), false)
        {
            for s in p.segments.iter().skip(1) {
                if s.ident == "super" {
                    path.pop();
                } else {
                    path.push(s.ident.to_string());
                }
            }
            self.record(path, Kind::Inline, line_of(first.ident.span()));
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.visit_path(&m.path);
        self.tokens(m.tokens.clone());
    }
}

// ---------------------------------------------------------------------------------------------
// Reading the tree
// ---------------------------------------------------------------------------------------------

/// The crate's top-level modules: what `src/` holds besides `lib.rs` and `main.rs`, and the
/// modules `RULES` names (so a path into a module is seen as one even in a partial tree).
fn top_modules(src: &Path) -> BTreeSet<String> {
    let mut tops = modules_in(src);
    tops.extend(
        RULES
            .iter()
            .map(|(m, _)| (*m).to_string())
            .filter(|m| m != "lib" && m != "main"),
    );
    tops
}

fn modules_in(src: &Path) -> BTreeSet<String> {
    std::fs::read_dir(src)
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            let name = p.file_name()?.to_string_lossy().to_string();
            if p.is_dir() {
                Some(name)
            } else {
                let stem = name.strip_suffix(".rs")?;
                (stem != "lib" && stem != "main").then(|| stem.to_string())
            }
        })
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The module a file is by where it lies (`src/app/mod.rs` -> `app`), for files no `mod`
/// declaration reaches.
fn module_by_place(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut module: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .collect();
    if module.last().is_some_and(|m| m == "mod") || module == ["lib"] {
        module.pop();
    }
    module
}

/// Reads every file of `src/`: from `lib.rs` and `main.rs` along the `mod` declarations (so
/// `#[path]` modules get their real name), then any file no declaration reached.
fn sources(src: &Path) -> Vec<Source> {
    let tops = top_modules(src);
    let mut queue: VecDeque<(PathBuf, Vec<String>, bool, bool)> = VecDeque::new();
    for (root, module, binary) in [
        ("lib.rs", vec![], false),
        ("main.rs", vec!["main".to_string()], true),
    ] {
        if src.join(root).is_file() {
            queue.push_back((src.join(root), module, binary, false));
        }
    }
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let visit = |file: PathBuf,
                 module: Vec<String>,
                 binary: bool,
                 test_only: bool,
                 queue: &mut VecDeque<_>| {
        let text = std::fs::read_to_string(&file).unwrap();
        let syntax = syn::parse_file(&text)
            .unwrap_or_else(|e| panic!("{}: not Rust the checker can read: {e}", file.display()));
        let mut scan = Scan {
            scope: module.clone(),
            inline: Vec::new(),
            tops: &tops,
            bindings: Bindings::of(&syntax),
            binary,
            refs: Vec::new(),
            from: module.clone(),
            mods: Vec::new(),
            problems: Vec::new(),
            in_test: test_only,
        };
        scan.visit_file(&syntax);
        let dir = file.parent().unwrap().to_path_buf();
        let stem = file.file_stem().unwrap().to_string_lossy().to_string();
        let children_dir = if matches!(stem.as_str(), "mod" | "lib" | "main") {
            dir.clone()
        } else {
            dir.join(&stem)
        };
        for (inline, name, path_attr, test) in &scan.mods {
            let base = inline.iter().fold(children_dir.clone(), |d, m| d.join(m));
            let candidates = match path_attr {
                Some(p) if inline.is_empty() => vec![dir.join(p)],
                Some(p) => vec![base.join(p)],
                None => vec![
                    base.join(format!("{name}.rs")),
                    base.join(name).join("mod.rs"),
                ],
            };
            if let Some(child) = candidates.into_iter().find(|c| c.is_file()) {
                let mut m = module.clone();
                m.extend(inline.iter().cloned());
                m.push(name.clone());
                queue.push_back((child, m, false, *test));
            }
        }
        Source {
            rel: Path::new("src")
                .join(file.strip_prefix(src).unwrap())
                .to_string_lossy()
                .replace('\\', "/"),
            module,
            refs: scan.refs,
            problems: scan.problems,
            test_only,
        }
    };
    while let Some((file, module, binary, test_only)) = queue.pop_front() {
        if seen.insert(file.clone()) {
            out.push(visit(file, module, binary, test_only, &mut queue));
        }
    }
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    for file in files {
        if !seen.contains(&file) {
            let module = module_by_place(src, &file);
            let binary = module == ["main"];
            let mut ignored = VecDeque::new();
            seen.insert(file.clone());
            out.push(visit(file, module, binary, false, &mut ignored));
        }
    }
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    out
}

// ---------------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------------

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The violations of src/, found once for the two tests that read them: each parsing every
/// source file was 0.8 s of CPU.
fn src_violations() -> &'static [Violation] {
    static FOUND: std::sync::LazyLock<Vec<Violation>> =
        std::sync::LazyLock::new(|| violations(&src_dir()));
    &FOUND
}

#[test]
fn layers_point_one_way() {
    let found = src_violations();
    let new: Vec<String> = found
        .iter()
        .filter(|v| !KNOWN_VIOLATIONS.contains(&v.key().as_str()))
        .map(ToString::to_string)
        .collect();
    assert!(
        new.is_empty(),
        "imports against the layers (RULES in tests/it/architecture.rs, drawn in \
         docs/architecture.md):\n{}",
        new.join("\n")
    );
}

#[test]
fn known_violations_only_shrink() {
    let found: BTreeSet<String> = src_violations().iter().map(Violation::key).collect();
    let fixed: Vec<&&str> = KNOWN_VIOLATIONS
        .iter()
        .filter(|k| !found.contains(**k))
        .collect();
    assert!(
        fixed.is_empty(),
        "no longer violations: remove them from KNOWN_VIOLATIONS:\n{fixed:#?}"
    );
}

#[test]
fn every_module_has_a_rule_and_every_rule_a_module() {
    let mut in_src = modules_in(&src_dir());
    in_src.extend(["lib".to_string(), "main".to_string()]);
    let in_rules: BTreeSet<String> = RULES.iter().map(|(m, _)| (*m).to_string()).collect();
    assert_eq!(
        in_src, in_rules,
        "RULES must name exactly the modules of src/"
    );
    for (m, deps) in RULES {
        for d in *deps {
            assert!(
                in_rules.contains(*d),
                "RULES: `{m}` may use `{d}`, which is no module"
            );
        }
    }
}

#[test]
fn the_rules_themselves_have_no_cycle() {
    let mut graph = Graph::new();
    for (m, deps) in RULES {
        for d in *deps {
            add_edge(&mut graph, m, d, String::new);
        }
    }
    assert_eq!(cycles(&graph), Vec::<Vec<String>>::new());
}

/// Module names used by more than one top-level module, e.g. `api::download` and
/// `cli::download`: a reader meeting the name cannot tell which is meant. The one exception is
/// a pane's pair, its state and reducer in `app` and its drawing in `ui` under the same name.
/// Files of tests only (`tests`, `*_tests`, `test_support`) and `mod`/`lib`/`main` are not names.
fn shared_names(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut owners: std::collections::BTreeMap<String, BTreeSet<String>> =
        std::collections::BTreeMap::new();
    for file in files {
        let module = module_by_place(src, &file);
        let (Some(top), Some(name)) = (module.first(), module.last()) else {
            continue;
        };
        // Every module on the path names something: `app/watch/reducer.rs` is `watch` too.
        for name in module.iter().skip(1).chain([name]) {
            if name == "tests" || name.ends_with("_tests") || name == "test_support" {
                continue;
            }
            owners.entry(name.clone()).or_default().insert(top.clone());
        }
        owners.entry(top.clone()).or_default().insert(top.clone());
    }
    let mirror: BTreeSet<String> = ["app", "ui"].iter().map(ToString::to_string).collect();
    owners
        .into_iter()
        .filter(|(_, tops)| tops.len() > 1 && *tops != mirror)
        .map(|(name, tops)| {
            format!(
                "`{name}` names a module in {}",
                tops.into_iter().collect::<Vec<_>>().join(" and ")
            )
        })
        .collect()
}

#[test]
fn no_two_layers_share_a_module_name() {
    assert_eq!(
        shared_names(&src_dir()),
        Vec::<String>::new(),
        "rename one of each (a pane's app/ui pair may share its name)"
    );
}

#[test]
fn a_name_shared_across_layers_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    for path in [
        "api/download.rs",
        "cli/download.rs",
        "app/watch/mod.rs",
        "app/watch/reducer_tests.rs",
        "ui/watch.rs",
        "cli/tests.rs",
        "server/tests.rs",
        "workers/picture.rs",
        "picture/mod.rs",
    ] {
        let p = src.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "").unwrap();
    }
    assert_eq!(
        shared_names(&src),
        [
            "`download` names a module in api and cli",
            "`picture` names a module in picture and workers",
        ]
    );
}

/// Past this many lines a file holds more than one thing (DEVELOPERS.md: split it by concern).
const MOST_LINES: usize = 900;

/// Every Rust file of the package (the library, its tests, benchmarks, examples and fuzz
/// targets) keeps within [`MOST_LINES`].
#[test]
fn no_rust_file_passes_900_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [
        "src",
        "tests",
        "benches",
        "examples",
        "fuzz/fuzz_targets",
        "build.rs",
    ] {
        let path = root.join(dir);
        if path.is_dir() {
            rust_files(&path, &mut files);
        } else if path.is_file() {
            files.push(path);
        }
    }
    assert!(files.len() > 100, "the files were not found: {files:?}");
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let lines = std::fs::read_to_string(f).unwrap().lines().count();
            (lines > MOST_LINES).then(|| {
                let shown = f.strip_prefix(root).unwrap_or(f).display();
                format!("{shown}: {lines} lines")
            })
        })
        .collect();
    assert!(
        long.is_empty(),
        "split these by concern (at most {MOST_LINES} lines a file):\n{}",
        long.join("\n")
    );
}
