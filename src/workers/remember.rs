//! What the dashboard remembers for the next session besides the watch list: the recently used
//! categories, the watch list's sort order and the current service's favourite models. Each is
//! written off the UI loop; a failure is reported to the App.

use super::writes::Writes;
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
    /// Held so that a quit waits for them.
    writes: Writes,
}

/// The savers for the files beside `recent_categories`.
pub fn spawn(
    recent_categories: PathBuf,
    service_key: String,
    msgs: mpsc::Sender<Msg>,
    writes: Writes,
) -> Handle {
    Handle {
        recent_categories,
        service_key,
        msgs,
        writes,
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
            move |path| crate::store::favourites_file::save(path, &service, &names),
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
        self.writes.spawn(move || {
            if let Err(e) = write(&path) {
                let _ = msgs.blocking_send(Msg::StoreProblem(format!(
                    "cannot save {what} to {}: {e}",
                    path.display()
                )));
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    const WAIT: Duration = Duration::from_secs(10);

    /// Each choice lands in its own file beside the recent categories, where the next session
    /// reads it; the favourites under the current service. All three are written once the
    /// quit's wait (`Writes::finish`) returns.
    #[tokio::test]
    async fn each_choice_is_saved_where_the_next_session_reads_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let recent = dir.path().join("recent-categories.json");
        let (msgs, mut problems) = mpsc::channel(8);
        let writes = Writes::default();
        let savers = spawn(recent.clone(), "http://a.test".into(), msgs, writes.clone());
        savers.categories(vec!["anime".into(), "style".into()]);
        savers.sort("age".into());
        savers.favourites(BTreeSet::from(["m1".to_string()]));
        let favourites = crate::store::recent::favourites_path(&recent);
        let saved = || {
            (
                crate::store::recent::load(&recent),
                crate::store::recent::load_sort(&crate::store::recent::sort_path(&recent)),
                crate::store::favourites_file::load(&favourites, "http://a.test"),
            )
        };
        let expected = (
            vec!["anime".to_string(), "style".to_string()],
            Some("age".to_string()),
            BTreeSet::from(["m1".to_string()]),
        );
        writes.finish(WAIT).await;
        assert_eq!(
            saved(),
            expected,
            "all three saved when the quit's wait ends"
        );
        assert!(
            crate::store::favourites_file::load(&favourites, "http://b.test").is_empty(),
            "another service's favourites are its own"
        );
        assert!(problems.try_recv().is_err(), "no problem reported");
    }

    /// A save that fails says what could not be saved, and where.
    #[tokio::test]
    async fn a_failed_save_is_reported_naming_what_and_where() {
        let dir = tempfile::tempdir().expect("tempdir");
        // The savers' folder is a file: nothing can be written in it.
        let blocked = dir.path().join("not-a-folder");
        std::fs::write(&blocked, "x").expect("write");
        let recent = blocked.join("recent-categories.json");
        let (msgs, mut problems) = mpsc::channel(8);
        let savers = spawn(
            recent.clone(),
            "http://a.test".into(),
            msgs,
            Writes::default(),
        );
        savers.categories(vec!["anime".into()]);
        savers.sort("age".into());
        savers.favourites(BTreeSet::from(["m1".to_string()]));
        let mut said = Vec::new();
        for _ in 0..3 {
            match tokio::time::timeout(WAIT, problems.recv()).await {
                Ok(Some(Msg::StoreProblem(text))) => said.push(text),
                other => panic!("expected a store problem, got {other:?}"),
            }
        }
        said.sort();
        let shown = |p: PathBuf| p.display().to_string();
        let sort = crate::store::recent::sort_path(&recent);
        let favourites = crate::store::recent::favourites_path(&recent);
        let expect = [
            format!("cannot save recent categories to {}", shown(recent.clone())),
            format!("cannot save the favourites to {}", shown(favourites)),
            format!("cannot save the sort order to {}", shown(sort)),
        ];
        for (text, start) in said.iter().zip(expect) {
            assert!(text.starts_with(&start), "{text:?} starts with {start:?}");
        }
    }
}
