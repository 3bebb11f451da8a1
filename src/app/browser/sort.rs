//! Sorting the list by a field: the sort key cycles relevance → name → downloads ↓ → rating ↓
//! → updated ↓, the shifted key flips the direction, and the title says which (`sorted by
//! rating ↓`). The order is made by the ranking worker: the query sent to it ends with a
//! `sort:` term of the filter language (`sort:-rating`), which the filter shown never has.

use super::Browser;
use crate::cmd::Cmd;

/// What the list is sorted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortField {
    /// Best match first (the filter's order; the service's order without a filter).
    #[default]
    Relevance,
    Name,
    Downloads,
    Rating,
    Updated,
}

impl SortField {
    /// The next in the cycle.
    fn next(self) -> SortField {
        match self {
            SortField::Relevance => SortField::Name,
            SortField::Name => SortField::Downloads,
            SortField::Downloads => SortField::Rating,
            SortField::Rating => SortField::Updated,
            SortField::Updated => SortField::Relevance,
        }
    }

    /// The field's key in the filter language (`None`: relevance).
    pub fn key(self) -> Option<&'static str> {
        match self {
            SortField::Relevance => None,
            SortField::Name => Some("name"),
            SortField::Downloads => Some("downloads"),
            SortField::Rating => Some("rating"),
            SortField::Updated => Some("updated"),
        }
    }

    /// Names A to Z; numbers and dates largest and latest first.
    fn descending_first(self) -> bool {
        !matches!(self, SortField::Relevance | SortField::Name)
    }
}

/// The list's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sort {
    pub field: SortField,
    pub descending: bool,
}

impl Sort {
    /// `rating ↓`, `name ↑`; `None` for relevance.
    pub fn label(self) -> Option<String> {
        let key = self.field.key()?;
        Some(format!("{key} {}", if self.descending { "↓" } else { "↑" }))
    }

    /// The `sort:` term the ranking worker is sent (`None`: relevance).
    pub fn term(self) -> Option<String> {
        let key = self.field.key()?;
        Some(format!(
            "sort:{}{key}",
            if self.descending { "-" } else { "" }
        ))
    }
}

impl Browser {
    /// The sort key: the next field, in its usual direction; re-ranks.
    pub fn cycle_sort(&mut self) -> Option<Cmd> {
        let field = self.sort.field.next();
        self.sort = Sort {
            field,
            descending: field.descending_first(),
        };
        self.refilter_keeping(self.selected_entry_index())
    }

    /// The shifted sort key: the other direction (relevance has one: a no-op, `None`).
    pub fn flip_sort(&mut self) -> Option<Option<Cmd>> {
        self.sort.field.key()?;
        self.sort.descending = !self.sort.descending;
        Some(self.refilter_keeping(self.selected_entry_index()))
    }

    /// The query the ranking worker is sent: the filter, then the sort's term.
    pub(super) fn ranked_query(&self) -> String {
        let Some(term) = self.sort.term() else {
            return self.query.clone();
        };
        if self.query.trim().is_empty() {
            return term;
        }
        // A quote left open is closed first, or the term would be inside it.
        let mut quotes = 0;
        let mut escaped = false;
        for c in self.query.chars() {
            quotes += usize::from(c == '"' && !escaped);
            escaped = c == '\\' && !escaped;
        }
        let close = if quotes % 2 == 1 { "\"" } else { "" };
        format!("{}{close} {term}", self.query)
    }
}
