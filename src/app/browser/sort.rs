//! Sorting the list by a field: the sort key cycles relevance → name → downloads ↓ → rating ↓
//! → updated ↓, the shifted key flips the direction, and the title says which (`sorted by
//! rating ↓`). The order is made by the ranking worker: the query sent to it ends with a
//! `sort:` term of the filter language (`sort:-rating`), which the filter shown never has.

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
    pub(super) fn next(self) -> SortField {
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
    pub(super) fn descending_first(self) -> bool {
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
