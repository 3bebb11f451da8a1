//! What a query says wrong, and where each list allows which terms: one list of problems that
//! the dashboard's detail line shows and the command line refuses (exit 2).

/// A term the filter ignores, or one that can match nothing: its words, named.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Issue {
    /// `rating:>abc`: an operator before neither a number nor a date.
    #[error("{key}:{value}: not a number or a date")]
    NotComparable { key: String, value: String },
    /// `nosuchfield:x`: a key the list does not have (the term matches nothing).
    #[error("{key}: no such field{fields}", fields = field_list(.known))]
    NoSuchField {
        key: String,
        /// The list's fields, when it has a fixed set of them.
        known: Option<&'static [&'static str]>,
    },
    /// `is:foo`.
    #[error("is:{value} is not new, changed or fav")]
    NotAFlag { value: String },
    /// `is:new` where there are no marks or favourites (the watch list, the archive, the CLI).
    #[error("is:{value} is the model browser's marks and favourites; {place} has none")]
    FlagNotHere { value: String, place: &'static str },
    /// `type:xl`.
    #[error("type:{value} is not a type (sd, sdxl or all)")]
    NotAType { value: String },
    /// `!type:sd`, `!cate:x`, `!sort:x`.
    #[error("!{key}:{value} cannot be negated")]
    CannotNegate { key: &'static str, value: String },
    /// `type:`/`cate:` where no service lists anything (the watch list, the archive).
    #[error("{key}:{value} is the catalogue's filter; {place} has none")]
    ServiceTermNotHere {
        key: &'static str,
        value: String,
        place: &'static str,
    },
    /// `sort:` where the list has an order of its own (`s` sets it).
    #[error("sort:{value}: {place} keeps its own order (its sort key sets it)")]
    SortNotHere { value: String, place: &'static str },
}

impl Issue {
    /// What the dashboard does with the term: `ignored`, or `matches nothing` (a field the
    /// list does not have, as a key no entry has).
    pub fn consequence(&self) -> &'static str {
        match self {
            Issue::NoSuchField { .. } => "matches nothing",
            _ => "ignored",
        }
    }

    /// The issue as the detail line tells it: `rating:>abc: not a number or a date; ignored`.
    pub fn told(&self) -> String {
        format!("{self}; {}", self.consequence())
    }
}

// thiserror lends the message its fields by reference.
#[allow(clippy::ref_option_ref)]
fn field_list(fields: &Option<&'static [&'static str]>) -> String {
    fields.map_or_else(String::new, |f| format!(" (fields: {})", f.join(", ")))
}

/// Which terms a list takes: its fields, and whether the browser's own terms mean anything
/// there. Every list parses with the one parser; this only says what is out of place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scope {
    /// How the list is named in a problem (`the watch list`).
    pub place: &'static str,
    /// Its fields, or `None` for the catalogue, whose fields are its metadata's keys.
    pub fields: Option<&'static [&'static str]>,
    /// `is:new`, `is:changed`, `is:fav`: the browser's marks and favourites.
    pub flags: bool,
    /// `type:` and `cate:`: the service's filters.
    pub service_terms: bool,
    /// `sort:key`.
    pub sort: bool,
}

impl Scope {
    /// The dashboard's model browser: everything.
    pub const BROWSER: Scope = Scope {
        place: "the model browser",
        fields: None,
        flags: true,
        service_terms: true,
        sort: true,
    };
    /// `gendash models --filter`: as the browser, without its marks and favourites.
    pub const MODELS: Scope = Scope {
        place: "gendash models",
        fields: None,
        flags: false,
        service_terms: true,
        sort: true,
    };

    /// A list of tasks (the watch list, the archive view, `gendash history`) with `fields`.
    pub const fn tasks(place: &'static str, fields: &'static [&'static str]) -> Scope {
        Scope {
            place,
            fields: Some(fields),
            flags: false,
            service_terms: false,
            sort: false,
        }
    }

    /// Whether the list has the field `key` (a metadata key, aliases resolved); the catalogue
    /// asks `metadata` (`None`: not known yet, so not named).
    pub fn has_field(&self, key: &str, metadata: impl Fn(&str) -> Option<bool>) -> bool {
        match self.fields {
            Some(fields) => fields.contains(&key),
            None => metadata(key).unwrap_or(true),
        }
    }
}
