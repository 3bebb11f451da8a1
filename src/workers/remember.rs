//! What the dashboard remembers for the next session besides the watch list: the recently used
//! categories, the watch list's sort order and the current service's favourite models. Each is
//! written off the UI loop; a failure is reported to the App.

use crate::msg::Msg;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use tokio::sync::mpsc;

/// The App's handle on the savers.
pub struct Handle {
    /// Where the recently used categories are kept; the others are beside it.
    recent_categories: PathBuf,
    /// The current service as saved, whose favourites these are.
    service_key: String,
    msgs: mpsc::Sender<Msg>,
}

/// The savers for the files beside `recent_categories`.
pub fn spawn(recent_categories: PathBuf, service_key: String, msgs: mpsc::Sender<Msg>) -> Handle {
    Handle {
        recent_categories,
        service_key,
        msgs,
    }
}

impl Handle {
    /// Saves the recently used categories (`Cmd::RememberCategories`).
    pub fn categories(&self, categories: Vec<String>) {
        self.save(
            "recent categories",
            self.recent_categories.clone(),
            move |path| crate::store::recent::save(path, &categories),
        );
    }

    /// Saves the watch list's sort order, its label (`Cmd::RememberSort`).
    pub fn sort(&self, label: String) {
        self.save(
            "the sort order",
            crate::store::recent::sort_path(&self.recent_categories),
            move |path| crate::store::recent::save_sort(path, &label),
        );
    }

    /// Saves the current service's favourite models (`Cmd::RememberFavourites`).
    pub fn favourites(&self, names: BTreeSet<String>) {
        let service = self.service_key.clone();
        self.save(
            "the favourites",
            crate::store::recent::favourites_path(&self.recent_categories),
            move |path| crate::store::favourites::save(path, &service, &names),
        );
    }

    /// Writes `what` to `path` on a blocking thread; a failure reaches the App as
    /// `Msg::StoreProblem`.
    fn save(
        &self,
        what: &'static str,
        path: PathBuf,
        write: impl FnOnce(&Path) -> std::io::Result<()> + Send + 'static,
    ) {
        let msgs = self.msgs.clone();
        tokio::task::spawn_blocking(move || {
            if let Err(e) = write(&path) {
                let _ = msgs.blocking_send(Msg::StoreProblem(format!(
                    "cannot save {what} to {}: {e}",
                    path.display()
                )));
            }
        });
    }
}
