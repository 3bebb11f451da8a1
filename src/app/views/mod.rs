//! Saved views: a name for a pane's filter (the one filter language; its `sort:` term sets the
//! pane's sort) and, for the browser, its type and category. They come from the config
//! (`[views.NAME]`, which wins over a saved view of the same name: the file is what the user
//! wrote on purpose, and the dashboard refuses to save under its names) and from the data
//! directory (`store::views_file`, saved with the save-view key). `apply` makes a pane show a
//! view, `reducer` has the popups' keys (the name prompt, the list, deleting), and what each
//! pane shows is remembered for the next session (`Views::remember`).
//!
//! Whether a view is in use is worked out, never kept as a flag: the pane's title names the
//! view applied last while what the pane shows is still the view's [`Shape`], so editing the
//! filter away from it clears the name without any edit path knowing of views.

pub mod apply;
pub mod reducer;
#[cfg(test)]
mod tests;

use crate::api::LoraType;
use crate::app::archive_view::ArchiveSort;
use crate::app::browser::{Sort, SortField};
use crate::app::watch::SortKey;
use crate::filter::{Issue, Query, Scope};
use crate::store::config::ConfiguredView;
use crate::store::config::{ViewPane, ViewSpec};
use crate::store::views_file::{LastState, ViewsFile};
use std::collections::BTreeMap;

/// The watch list's orders as a view's `sort:` term names them.
const WATCH_SORTS: [(SortKey, &str); 5] = [
    (SortKey::Added, "added"),
    (SortKey::Status, "status"),
    (SortKey::Progress, "progress"),
    (SortKey::Eta, "eta"),
    (SortKey::TaskId, "id"),
];

/// The archive's orders as a view's `sort:` term names them.
const ARCHIVE_SORTS: [(ArchiveSort, &str); 5] = [
    (ArchiveSort::Finished, "finished"),
    (ArchiveSort::Added, "added"),
    (ArchiveSort::TaskId, "id"),
    (ArchiveSort::Status, "status"),
    (ArchiveSort::Label, "label"),
];

/// The browser's sort fields (relevance has no term).
const BROWSER_SORTS: [SortField; 4] = [
    SortField::Name,
    SortField::Downloads,
    SortField::Rating,
    SortField::Updated,
];

/// A pane's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaneSort {
    Browser(Sort),
    Watch(SortKey),
    Archive(ArchiveSort),
}

impl PaneSort {
    /// The pane's own order (relevance, added, finished).
    pub fn default_of(pane: ViewPane) -> PaneSort {
        match pane {
            ViewPane::Browser => PaneSort::Browser(Sort::default()),
            ViewPane::Watch => PaneSort::Watch(SortKey::default()),
            ViewPane::Archive => PaneSort::Archive(ArchiveSort::default()),
        }
    }

    /// Its `sort:` term; `None` for the pane's own order.
    pub fn term(self) -> Option<String> {
        match self {
            PaneSort::Browser(sort) => sort.term(),
            PaneSort::Watch(key) if key != SortKey::default() => WATCH_SORTS
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, name)| format!("sort:{name}")),
            PaneSort::Archive(sort) if sort != ArchiveSort::default() => ARCHIVE_SORTS
                .iter()
                .find(|(s, _)| *s == sort)
                .map(|(_, name)| format!("sort:{name}")),
            _ => None,
        }
    }

    /// The order `key` names in `pane` (`descending` counts in the browser only, where both
    /// directions exist); `None` when the pane has no such order.
    fn named(pane: ViewPane, key: &str, descending: bool) -> Option<PaneSort> {
        match pane {
            ViewPane::Browser => BROWSER_SORTS
                .into_iter()
                .find(|f| f.key() == Some(key))
                .map(|field| PaneSort::Browser(Sort { field, descending })),
            ViewPane::Watch => WATCH_SORTS
                .iter()
                .find(|(_, n)| *n == key)
                .map(|(k, _)| PaneSort::Watch(*k)),
            ViewPane::Archive => ARCHIVE_SORTS
                .iter()
                .find(|(_, n)| *n == key)
                .map(|(s, _)| PaneSort::Archive(*s)),
        }
    }

    /// The names a pane's `sort:` term takes, for an error.
    fn names(pane: ViewPane) -> Vec<&'static str> {
        match pane {
            ViewPane::Browser => BROWSER_SORTS.iter().filter_map(|f| f.key()).collect(),
            ViewPane::Watch => WATCH_SORTS.iter().map(|(_, n)| *n).collect(),
            ViewPane::Archive => ARCHIVE_SORTS.iter().map(|(_, n)| *n).collect(),
        }
    }
}

/// What a view makes a pane show, in one form however its filter was written: the filter
/// without the sort's term, the order, and the browser's type and category.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    pub query: String,
    pub sort: PaneSort,
    pub lora_type: Option<LoraType>,
    pub category: String,
}

impl Shape {
    /// The shape of `spec`, and the `sort:` key it names that its pane has no order for
    /// (the pane's own order is used instead). In the browser, a `sort:` on any other
    /// metadata field stays in the filter, which orders by it.
    pub fn of(spec: &ViewSpec) -> (Shape, Option<String>) {
        let parsed = Query::parse(&spec.filter);
        let mut unknown = None;
        let mut sort = PaneSort::default_of(spec.pane);
        let mut query = spec.filter.trim().to_string();
        if let Some(by) = &parsed.sort {
            match PaneSort::named(spec.pane, &by.label, by.descending) {
                Some(named) => {
                    sort = named;
                    query = without_sort_terms(&query);
                }
                None if spec.pane == ViewPane::Browser => {}
                None => {
                    unknown = Some(by.label.to_string());
                    query = without_sort_terms(&query);
                }
            }
        }
        // The filter's own `type:`/`cate:` terms set the browser's, as typing them does.
        let mut lora_type = spec.lora_type;
        let mut category = spec.category.trim().to_string();
        if spec.pane == ViewPane::Browser {
            if let Some(Ok(t)) = parsed.lora_type.as_ref().map(|t| t.value.as_ref()) {
                lora_type = *t;
            }
            if let Some(c) = &parsed.cate {
                category = c.value.trim().to_string();
            }
        }
        let shape = Shape {
            query,
            sort,
            lora_type,
            category,
        };
        (shape, unknown)
    }

    /// The filter that says it: the filter, then the sort's term.
    pub fn filter(&self) -> String {
        join(&self.query, self.sort.term().as_deref())
    }

    /// The view that saves it, for `pane`.
    pub fn spec(&self, pane: ViewPane) -> ViewSpec {
        ViewSpec {
            pane,
            filter: self.filter(),
            lora_type: self.lora_type,
            category: self.category.clone(),
        }
    }

    /// What the next session restores of it: the watch list's sort has a file of its own
    /// (`watch-sort`), so its filter goes without it.
    pub fn last(&self, pane: ViewPane, view: Option<String>) -> LastState {
        LastState {
            filter: if pane == ViewPane::Watch {
                self.query.trim().to_string()
            } else {
                self.filter()
            },
            lora_type: self.lora_type,
            category: self.category.clone(),
            view,
        }
    }
}

/// `query` and `term`, one space between.
fn join(query: &str, term: Option<&str>) -> String {
    match (query.trim(), term) {
        (q, None) => q.to_string(),
        ("", Some(t)) => t.to_string(),
        (q, Some(t)) => format!("{q} {t}"),
    }
}

/// The filter without its `sort:` terms (a word each).
fn without_sort_terms(filter: &str) -> String {
    filter
        .split_whitespace()
        .filter(|w| !w.to_ascii_lowercase().starts_with("sort:"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Why a view of the config cannot be used: the view's name, and the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ViewError {
    #[error("views.{view}.filter: {issue}")]
    Filter { view: String, issue: Issue },
    #[error("views.{view}.filter: sort:{key} is not an order of the {} (sort: {})", .pane.name(), PaneSort::names(*.pane).join(", "))]
    Sort {
        view: String,
        key: String,
        pane: ViewPane,
    },
    #[error(
        "views.{view}.key: `{key}` is already {other} ({context}); choose another key for the view"
    )]
    Key {
        view: String,
        key: crate::store::config::KeyCombo,
        /// The binding that has the key, as said: `` `sort`'s ``, `the view failed's`.
        other: String,
        /// Where it has it, as the help's heading says (lower case).
        context: String,
    },
}

impl ViewError {
    /// The view it is about.
    pub fn view(&self) -> &str {
        match self {
            ViewError::Filter { view, .. }
            | ViewError::Sort { view, .. }
            | ViewError::Key { view, .. } => view,
        }
    }

    /// The `[views.NAME]` entry it is about, by `NAME.field`.
    pub fn field(&self) -> String {
        match self {
            ViewError::Key { view, .. } => format!("{view}.key"),
            other => format!("{}.filter", other.view()),
        }
    }
}

/// The filter's scope in `pane`: which terms mean something there.
fn scope(pane: ViewPane) -> Scope {
    match pane {
        ViewPane::Browser => Scope::BROWSER,
        ViewPane::Watch => crate::app::watch::filter_fields::SCOPE,
        ViewPane::Archive => crate::app::archive_view::FILTER_SCOPE,
    }
}

/// Checks a view's filter with the filter language: a term it would ignore or that can match
/// nothing, or a `sort:` its pane has no order for, is an error naming the view.
pub fn check(name: &str, spec: &ViewSpec) -> Result<(), ViewError> {
    let (shape, unknown) = Shape::of(spec);
    if let Some(key) = unknown {
        return Err(ViewError::Sort {
            view: name.to_string(),
            key,
            pane: spec.pane,
        });
    }
    let issues = Query::parse(&shape.query).issues(&scope(spec.pane), |_| None);
    match issues.into_iter().next() {
        Some(issue) => Err(ViewError::Filter {
            view: name.to_string(),
            issue,
        }),
        None => Ok(()),
    }
}

/// One view as the list shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub spec: ViewSpec,
    pub shape: Shape,
    /// From the config file (it cannot be deleted here).
    pub configured: bool,
}

impl Listed {
    fn new(spec: ViewSpec, configured: bool) -> Self {
        Listed {
            shape: Shape::of(&spec).0,
            spec,
            configured,
        }
    }

    /// What it sets, in a few words: `status:failed sort:status`, `type sdxl · cate style`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        let filter = self.shape.filter();
        if !filter.is_empty() {
            parts.push(filter);
        }
        if self.spec.pane == ViewPane::Browser {
            if let Some(t) = self.shape.lora_type {
                parts.push(format!("type {}", t.as_str()));
            }
            if !self.shape.category.is_empty() {
                parts.push(format!("cate {}", self.shape.category));
            }
        }
        if parts.is_empty() {
            "everything, in the pane's own order".to_string()
        } else {
            parts.join(" · ")
        }
    }
}

/// What `spec` sets, in a few words (the list's and the help's).
pub fn summary(spec: &ViewSpec) -> String {
    Listed::new(spec.clone(), false).summary()
}

/// Every view, and what each pane shows of them.
#[derive(Debug, Clone)]
pub struct Views {
    configured: BTreeMap<String, Listed>,
    saved: BTreeMap<String, Listed>,
    /// The view applied last in each pane ([`ViewPane::index`]): named while the pane still
    /// shows it.
    applied: [Option<String>; 3],
    /// What was last written as each pane's last state (`None`: not known, so written).
    remembered: [Option<LastState>; 3],
}

impl Default for Views {
    /// No views, every pane fresh.
    fn default() -> Self {
        Views::new(&BTreeMap::new(), &ViewsFile::default())
    }
}

impl Views {
    /// The config's views and the data directory's (their last states remembered as written).
    pub fn new(configured: &BTreeMap<String, ConfiguredView>, file: &ViewsFile) -> Self {
        let mut views = Views {
            configured: BTreeMap::new(),
            saved: BTreeMap::new(),
            applied: [None, None, None],
            remembered: [None, None, None],
        };
        views.set_configured(configured);
        views.set_saved(&file.saved);
        // A pane the file has nothing for starts as a fresh one: nothing to write until it
        // changes.
        for pane in ViewPane::ALL {
            views.remembered[pane.index()] =
                Some(file.last.get(&pane).cloned().unwrap_or_default());
        }
        views
    }

    /// The config's views again (a reloaded config): the saved ones and what each pane shows
    /// stay.
    pub fn set_configured(&mut self, configured: &BTreeMap<String, ConfiguredView>) {
        self.configured = configured
            .iter()
            .map(|(n, v)| (n.clone(), Listed::new(v.spec.clone(), true)))
            .collect();
    }

    /// The saved views as the file holds them now (another dashboard's too).
    pub fn set_saved(&mut self, saved: &BTreeMap<String, ViewSpec>) {
        self.saved = saved
            .iter()
            .map(|(n, s)| (n.clone(), Listed::new(s.clone(), false)))
            .collect();
    }

    /// The view of this name: the config's, else the saved one.
    pub fn get(&self, name: &str) -> Option<&Listed> {
        self.configured.get(name).or_else(|| self.saved.get(name))
    }

    /// `pane`'s views by name, each once (the config's where both have one).
    pub fn of(&self, pane: ViewPane) -> Vec<(&str, &Listed)> {
        let mut all: Vec<(&str, &Listed)> = self
            .configured
            .iter()
            .chain(
                self.saved
                    .iter()
                    .filter(|(n, _)| !self.configured.contains_key(*n)),
            )
            .filter(|(_, v)| v.spec.pane == pane)
            .map(|(n, v)| (n.as_str(), v))
            .collect();
        all.sort_by(|a, b| a.0.cmp(b.0));
        all
    }

    /// The view `pane` shows, if it is the one applied there last.
    pub fn in_use(&self, pane: ViewPane, shows: &Shape) -> Option<&str> {
        let name = self.applied[pane.index()].as_deref()?;
        (self.get(name)?.shape == *shows).then_some(name)
    }

    /// The view applied in `pane` now.
    pub fn applied(&mut self, pane: ViewPane, name: Option<String>) {
        self.applied[pane.index()] = name;
    }

    /// A view saved here: listed at once (the file's answer brings the others' too).
    pub fn saved_here(&mut self, name: &str, spec: ViewSpec) {
        self.saved
            .insert(name.to_string(), Listed::new(spec, false));
    }

    /// A saved view deleted here.
    pub fn deleted_here(&mut self, name: &str) {
        self.saved.remove(name);
        for applied in &mut self.applied {
            if applied.as_deref() == Some(name) {
                *applied = None;
            }
        }
    }

    /// Whether `state` differs from what was last written for `pane`; it counts as written.
    pub fn changed(&mut self, pane: ViewPane, state: &LastState) -> bool {
        let slot = &mut self.remembered[pane.index()];
        if slot.as_ref() == Some(state) {
            return false;
        }
        *slot = Some(state.clone());
        true
    }

    /// What the last session left in `pane`.
    pub fn remembered(&self, pane: ViewPane) -> Option<&LastState> {
        self.remembered[pane.index()].as_ref()
    }
}
