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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::Query;

    const TASKS: Scope = Scope::tasks("the archive", &["label", "status", "finished"]);

    /// What each list says of a query, the term being typed included (the command line's).
    fn issues(scope: &Scope, query: &str) -> Vec<String> {
        let metadata = |key: &str| Some(["rating", "updated"].contains(&key));
        let found = Query::parse(query).issues(scope, metadata);
        found.iter().map(ToString::to_string).collect()
    }

    /// A query, and what the browser, `gendash models` and a list of tasks name in it.
    type Row = (
        &'static str,
        &'static [&'static str],
        &'static [&'static str],
        &'static [&'static str],
    );

    #[test]
    fn each_list_names_what_it_cannot_use() {
        let table: &[Row] = &[
            // query, the browser, gendash models, a list of tasks
            (
                "rating:>4.5 status:done",
                &["status: no such field"],
                &["status: no such field"],
                &["rating: no such field (fields: label, status, finished)"],
            ),
            (
                "rating:>abc",
                &["rating:>abc: not a number or a date"],
                &["rating:>abc: not a number or a date"],
                // The term is dropped: its key is not named besides.
                &["rating:>abc: not a number or a date"],
            ),
            (
                "is:new",
                &[],
                &["is:new is the model browser's marks and favourites; gendash models has none"],
                &["is:new is the model browser's marks and favourites; the archive has none"],
            ),
            (
                "is:foo",
                &["is:foo is not new, changed or fav"],
                &["is:foo is not new, changed or fav"],
                &["is:foo is not new, changed or fav"],
            ),
            (
                "type:sdxl sort:-rating",
                &[],
                &[],
                &[
                    "type:sdxl is the catalogue's filter; the archive has none",
                    "sort:-rating: the archive keeps its own order (its sort key sets it)",
                ],
            ),
            (
                "!type:sd",
                &["!type:sd cannot be negated"],
                &["!type:sd cannot be negated"],
                &["!type:sd cannot be negated"],
            ),
            (
                r#"finished:>"2026-11-28 12:32" label:x"#,
                &["finished: no such field", "label: no such field"],
                &["finished: no such field", "label: no such field"],
                &[],
            ),
            (
                r"finished:>2026-11-28\ 12:32",
                &["finished: no such field"],
                &["finished: no such field"],
                &[],
            ),
            (
                "sort:-nokey",
                &["nokey: no such field"],
                &["nokey: no such field"],
                &["sort:-nokey: the archive keeps its own order (its sort key sets it)"],
            ),
            (
                r#"updated:>"2026-06-01""#,
                &[],
                &[],
                &["updated: no such field (fields: label, status, finished)"],
            ),
        ];
        for &(query, browser, models, tasks) in table {
            assert_eq!(issues(&Scope::BROWSER, query), browser, "browser: {query}");
            assert_eq!(issues(&Scope::MODELS, query), models, "models: {query}");
            assert_eq!(issues(&TASKS, query), tasks, "tasks: {query}");
        }
    }

    /// The dashboard tells the term being typed once it is finished; a list with no fixed
    /// fields names none before the catalogue's are known.
    #[test]
    fn the_term_being_typed_and_fields_not_known_yet() {
        let q = Query::parse("rating:>4.");
        assert!(q.told(&Scope::BROWSER, |_| None).is_empty());
        assert_eq!(q.issues(&Scope::BROWSER, |_| None).len(), 1);
        assert!(
            Query::parse("nokey:x")
                .issues(&Scope::MODELS, |_| None)
                .is_empty()
        );
        assert_eq!(
            Query::parse("nokey:x").issues(&TASKS, |_| None)[0].told(),
            "nokey: no such field (fields: label, status, finished); matches nothing"
        );
    }
}
