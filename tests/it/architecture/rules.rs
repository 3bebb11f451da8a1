//! The rules applied to what the files import: the graph of top-level modules, its cycles and
//! knots, re-exports, and the violations found.

use super::*;

/// The top-level module a path lands in (`lib` for an item of the crate root itself).
pub(super) fn top_of(path: &[String], tops: &BTreeSet<String>) -> String {
    match path.first() {
        Some(t) if tops.contains(t) || t == "main" => t.clone(),
        _ => "lib".to_string(),
    }
}

pub(super) fn shown(path: &[String]) -> String {
    format!("crate::{}", path.join("::"))
}

/// A graph of modules, each edge with the first place that makes it.
pub(super) type Graph = BTreeMap<String, BTreeMap<String, String>>;

pub(super) fn add_edge(graph: &mut Graph, from: &str, to: &str, witness: impl FnOnce() -> String) {
    graph
        .entry(from.to_string())
        .or_default()
        .entry(to.to_string())
        .or_insert_with(witness);
}

pub(super) fn reachable(graph: &Graph, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![from.to_string()];
    while let Some(n) = todo.pop() {
        for next in graph.get(&n).into_iter().flat_map(BTreeMap::keys) {
            if seen.insert(next.clone()) {
                todo.push(next.clone());
            }
        }
    }
    seen
}

/// One cycle for each knot of the graph (each set of modules that reach one another), as the
/// shortest way round from its first module: `["cmd", "msg", "cmd"]`.
pub(super) fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    knots(graph).into_iter().map(|(way, _)| way).collect()
}

/// Each knot: one shortest cycle through its first module, and all its modules.
pub(super) fn knots(graph: &Graph) -> Vec<(Vec<String>, Vec<String>)> {
    let nodes: BTreeSet<&String> = graph
        .iter()
        .flat_map(|(n, to)| std::iter::once(n).chain(to.keys()))
        .collect();
    let reach: BTreeMap<&String, BTreeSet<String>> =
        nodes.iter().map(|n| (*n, reachable(graph, n))).collect();
    let mut done = BTreeSet::new();
    let mut found = Vec::new();
    for &n in &nodes {
        if done.contains(n) || !reach[n].contains(n) {
            continue;
        }
        let knot: BTreeSet<&String> = nodes
            .iter()
            .copied()
            .filter(|m| reach[n].contains(*m) && reach[*m].contains(n))
            .collect();
        done.extend(knot.iter().copied());
        // Shortest way from n back to n inside the knot.
        let mut parent: BTreeMap<&String, &String> = BTreeMap::new();
        let mut queue = VecDeque::from([n]);
        'search: while let Some(at) = queue.pop_front() {
            for next in graph.get(at).into_iter().flat_map(BTreeMap::keys) {
                if next == n {
                    let mut way = vec![n.clone(), at.clone()];
                    let mut back = at;
                    while let Some(p) = parent.get(back) {
                        way.push((*p).clone());
                        back = p;
                    }
                    way.reverse();
                    found.push((way, knot.iter().map(|m| (*m).clone()).collect()));
                    break 'search;
                }
                if knot.contains(next) && !parent.contains_key(next) && next != n {
                    parent.insert(next, at);
                    queue.push_back(next);
                }
            }
        }
    }
    found
}

/// The cycle as text, each step with the line that makes it.
pub(super) fn describe(way: &[String], graph: &Graph) -> (String, String) {
    let arrows = way.join(" -> ");
    let steps: Vec<String> = way
        .windows(2)
        .map(|w| format!("{} -> {}: {}", w[0], w[1], graph[&w[0]][&w[1]]))
        .collect();
    (arrows, steps.join("\n    "))
}

/// Re-exports by where they are seen: (module, name) -> the path they stand for.
pub(super) fn reexports(files: &[Source]) -> BTreeMap<(Vec<String>, String), Vec<String>> {
    let mut map = BTreeMap::new();
    for f in files {
        for r in f.refs.iter().filter(|r| r.kind == Kind::PubUse) {
            if let Some(name) = r.path.last() {
                map.insert((f.module.clone(), name.clone()), r.path.clone());
            }
        }
    }
    map
}

/// The file (module) a path lands in, following re-exports (`api::Client` -> `api::client`).
pub(super) fn owner(
    path: &[String],
    modules: &BTreeSet<Vec<String>>,
    reexports: &BTreeMap<(Vec<String>, String), Vec<String>>,
) -> Vec<String> {
    let mut path = path.to_vec();
    for _ in 0..8 {
        let len = (0..=path.len())
            .rev()
            .find(|&n| modules.contains(&path[..n]))
            .unwrap_or(0);
        let module = path[..len].to_vec();
        match path
            .get(len)
            .and_then(|name| reexports.get(&(module.clone(), name.clone())))
        {
            Some(target) if *target != path[..=len] => {
                let mut next = target.clone();
                next.extend(path[len + 1..].iter().cloned());
                path = next;
            }
            _ => return module,
        }
    }
    path
}

pub(super) fn violations(src: &Path) -> Vec<Violation> {
    let tops = top_modules(src);
    let files = sources(src);
    let mut bad: BTreeMap<(String, String), (usize, String)> = BTreeMap::new();
    let mut report = |rel: &str, line: usize, message: String| {
        let at = bad
            .entry((rel.to_string(), message))
            .or_insert((line, String::new()));
        at.0 = at.0.min(line);
    };
    let mut graph = Graph::new();
    let mut inner = Graph::new();
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| f.module.clone()).collect();
    let reexports = reexports(&files);
    for f in &files {
        let me = f.top().to_string();
        if rule(&me).is_none() {
            report(
                &f.rel,
                0,
                format!("module `{me}` has no rule: add it to RULES (tests/it/architecture.rs)"),
            );
        }
        for (line, message) in &f.problems {
            report(&f.rel, *line, message.clone());
        }
        for r in &f.refs {
            let target = top_of(&r.path, &tops);
            let path = shown(&r.path);
            if target == me {
                let to = owner(&r.path, &modules, &reexports);
                if to != r.from && to.first() == r.from.first() {
                    add_edge(&mut inner, &r.from.join("::"), &to.join("::"), || {
                        format!("{}:{} `{path}`", f.rel, r.line)
                    });
                }
                continue;
            }
            add_edge(&mut graph, &me, &target, || {
                format!("{}:{} `{path}`", f.rel, r.line)
            });
            if !allowed(&me, &target) {
                report(&f.rel, r.line, format!("`{me}` must not import `{path}`"));
            }
            if r.kind == Kind::PubUse && !f.test_only {
                report(
                    &f.rel,
                    r.line,
                    format!(
                        "`{me}` re-exports `{path}`: `pub use` may only re-export items of its own \
                         module; import it from `{target}` where it is used"
                    ),
                );
            }
        }
    }
    let mut out: Vec<Violation> = bad
        .into_iter()
        .map(|((rel, message), (line, _))| Violation {
            rel,
            line,
            message,
            detail: String::new(),
        })
        .collect();
    for (g, what) in [
        (&graph, "between top-level modules"),
        (&inner, "between files"),
    ] {
        for (way, knot) in knots(g) {
            let (arrows, mut steps) = describe(&way, g);
            if knot.len() + 1 > way.len() {
                let _ = write!(
                    steps,
                    "\n    (these reach one another too: {})",
                    knot.join(", ")
                );
            }
            out.push(Violation {
                rel: "src".to_string(),
                line: 0,
                message: format!("import cycle {what}: {arrows}"),
                detail: steps,
            });
        }
    }
    out
}
