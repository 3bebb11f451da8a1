//! The popups' state: which one is open and what it holds. Each popup's reducer is in its own
//! module (`add`, `confirm`, `help`, `request_log`), mirroring `ui`.

use crate::api::TaskKind;
use crate::cmd::TaskKey;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddDialog {
    pub text: String,
    pub kind: TaskKind,
    pub error: Option<String>,
    /// The label field: one label for every task added (empty: none).
    pub label: String,
    /// Whether the label field has the keyboard (else the task IDs field).
    pub on_label: bool,
    /// Editing the label of these tasks (the label key) instead of adding: the label field
    /// alone.
    pub relabel: Option<Vec<TaskKey>>,
}

impl AddDialog {
    /// The kinds the dialog offers, by name, and whether each is the one chosen.
    pub fn kinds(&self) -> [(&'static str, bool); 2] {
        [TaskKind::Image, TaskKind::Video].map(|k| (k.as_str(), self.kind == k))
    }

    /// The dialog opened with `text` in its field, adding images.
    pub fn with(text: String) -> Self {
        AddDialog {
            text,
            kind: TaskKind::Image,
            error: None,
            label: String::new(),
            on_label: false,
            relabel: None,
        }
    }

    /// The dialog editing the label of the tasks `keys`, holding `label`.
    pub fn relabel(keys: Vec<TaskKey>, label: String) -> Self {
        AddDialog {
            label,
            on_label: true,
            relabel: Some(keys),
            ..AddDialog::with(String::new())
        }
    }

    /// The end of the label that fits in `budget` characters, cleaned as `tail`.
    pub fn label_tail(&self, budget: usize) -> String {
        let mut tail: Vec<char> = self.label.chars().rev().take(budget).collect();
        tail.reverse();
        let tail: String = tail.into_iter().collect();
        crate::api::sanitize::sanitize_with_limit(&tail, budget.max(1))
    }

    /// The label dialog's title: whose label it edits.
    pub fn relabel_title(&self) -> String {
        let whose = match self.relabel.as_deref() {
            Some([one]) => one.id.clone(),
            Some(keys) => crate::fmt::count(keys.len(), "task"),
            None => String::new(),
        };
        crate::api::sanitize::sanitize(&format!(" Label of {whose} "))
    }

    /// The field typed in.
    pub fn field(&mut self) -> &mut String {
        if self.on_label {
            &mut self.label
        } else {
            &mut self.text
        }
    }
}

impl AddDialog {
    /// The end of the text that fits in `budget` characters, cleaned: only the end is shown,
    /// and only the end is cleaned (a long paste is up to 64 KiB). The field never holds an
    /// escape sequence, so a cut one cannot start the tail.
    pub fn tail(&self, budget: usize) -> String {
        let mut tail: Vec<char> = self.text.chars().rev().take(budget).collect();
        tail.reverse();
        let tail: String = tail.into_iter().collect();
        crate::api::sanitize::sanitize_with_limit(&tail, budget)
    }
}

/// The save-view key's prompt: a name for what `pane` shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewName {
    pub pane: crate::store::config::ViewPane,
    pub name: String,
    /// Why the name typed was refused.
    pub error: Option<String>,
}

/// `pane`'s views (`v`): the one picked, and the one a delete asks about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewList {
    pub pane: crate::store::config::ViewPane,
    pub selected: usize,
    pub deleting: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Popup {
    Help {
        scroll: u16,
    },
    Add(AddDialog),
    /// A yes/no question: `y` replaces the task's file.
    Confirm(Confirm),
    /// The request log (`L`); its rows and selection are `State::requests`.
    Requests,
    /// Remove every completed task (`count` of them when asked)?
    RemoveCompleted {
        count: usize,
    },
    /// The palette (`:`): its actions are those of the mode beneath it.
    Palette(super::palette::Palette),
    /// The save-view key's prompt for a name.
    ViewName(ViewName),
    /// A pane's views (`v`).
    Views(ViewList),
}

/// A search in the help or the request log (`/`); it stays after its field is left, for the
/// next and previous match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Search {
    pub query: String,
    /// Whether its field has the keyboard.
    pub editing: bool,
    /// The help line the search is at (the request log's is its selected row).
    pub at: Option<usize>,
    /// How many lines match.
    pub matches: usize,
}

impl Search {
    /// A new search, its field taking the keyboard.
    pub fn editing() -> Self {
        Search {
            editing: true,
            ..Search::default()
        }
    }
}

/// A yes/no question, and what yes does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirm {
    pub question: String,
    pub then: Then,
}

/// What a yes to a [`Confirm`] does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Then {
    /// Replace the file of task `key` (`D` found one there).
    Replace(TaskKey),
    /// Run one of the user's actions that asks first (`confirm = true`).
    Run(crate::cmd::ActionRun),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_is_the_end_that_fits_cleaned() {
        let dialog = AddDialog::with("first-id second-id".into());
        assert_eq!(dialog.tail(9), "second-id");
        assert_eq!(dialog.tail(100), "first-id second-id");
        let dirty = AddDialog::with("a\u{1b}[2Jb".into());
        assert!(!dirty.tail(100).contains('\u{1b}'), "{:?}", dirty.tail(100));
    }
}
