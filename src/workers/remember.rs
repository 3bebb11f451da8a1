//! What the dashboard remembers for the next session besides the watch list: the recently used
//! categories, the watch list's sort order and the current service's favourite models. Each is
//! written off the UI loop; a failure is reported to the App.

use super::writes::Writes;
use crate::msg::Msg;
use crate::store::paths::DataFiles;
use crate::store::views_file::ViewsOp;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::mpsc;

/// The App's handle on the savers.
pub struct Handle {
    recent_categories: PathBuf,
    sort: PathBuf,
    favourites: PathBuf,
    views: PathBuf,
    /// The current service as saved, whose favourites these are.
    service_key: String,
    msgs: mpsc::Sender<Msg>,
    /// Held so that a quit waits for them.
    writes: Writes,
    order: Arc<Order>,
}

/// The writes one after another, each file's newest only: two quick `f`s on a slow disk
/// must neither write one file at once (they share its temporary file) nor leave the older
/// choice last.
#[derive(Default)]
struct Order {
    /// The newest write asked for each file.
    newest: Mutex<HashMap<PathBuf, u64>>,
    /// Held while a file is written.
    writing: Mutex<()>,
    /// The views' changes not written yet, in the order asked: each is one step (saving a
    /// view then deleting it must not be written the other way round).
    views: Mutex<Vec<ViewsOp>>,
}

/// The savers for the recent categories, the sort and the favourites in `files`.
pub fn spawn(
    files: &DataFiles,
    service_key: String,
    msgs: mpsc::Sender<Msg>,
    writes: Writes,
) -> Handle {
    Handle {
        recent_categories: files.recent_categories.clone(),
        sort: files.sort.clone(),
        favourites: files.favourites.clone(),
        views: files.views.clone(),
        service_key,
        msgs,
        writes,
        order: Arc::default(),
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
        self.save("the sort order", self.sort.clone(), move |path| {
            crate::store::recent::save_sort(path, &label)
        });
    }

    /// Saves the current service's favourite models (`Cmd::RememberFavourites`).
    pub fn favourites(&self, names: BTreeSet<String>) {
        let service = self.service_key.clone();
        self.save("the favourites", self.favourites.clone(), move |path| {
            crate::store::favourites_file::save(path, &service, &names)
        });
    }

    /// Merges a change to the views into their file (`Cmd::Views`), after those asked before
    /// it; the file's views come back as `Msg::ViewsSaved`, a failure or a file set aside as
    /// `Msg::StoreProblem`.
    pub fn views(&self, op: ViewsOp) {
        let (msgs, order, path) = (self.msgs.clone(), self.order.clone(), self.views.clone());
        order
            .views
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(op);
        self.writes.spawn(move || {
            let _one = order.writing.lock().unwrap_or_else(PoisonError::into_inner);
            let ops =
                std::mem::take(&mut *order.views.lock().unwrap_or_else(PoisonError::into_inner));
            if ops.is_empty() {
                // An earlier write took this one's change along.
                return;
            }
            match crate::store::views_file::update(&path, ops) {
                Ok(loaded) => {
                    if let Some(aside) = loaded.set_aside {
                        let _ = msgs.blocking_send(Msg::StoreProblem(format!(
                            "the views file could not be read; it was set aside as {}",
                            aside.display()
                        )));
                    }
                    let _ = msgs.blocking_send(Msg::ViewsSaved(loaded.content.saved));
                }
                Err(e) => {
                    let _ = msgs
                        .blocking_send(Msg::StoreProblem(format!("cannot save the views: {e}")));
                }
            }
        });
    }

    /// Writes `what` to `path` on a blocking thread; a failure reaches the App as
    /// `Msg::StoreProblem`.
    fn save(
        &self,
        what: &'static str,
        path: PathBuf,
        write: impl FnOnce(&Path) -> std::io::Result<()> + Send + 'static,
    ) {
        let (msgs, order) = (self.msgs.clone(), self.order.clone());
        let number = {
            let mut newest = order.newest.lock().unwrap_or_else(PoisonError::into_inner);
            let number = newest.values().max().map_or(0, |n| n + 1);
            newest.insert(path.clone(), number);
            number
        };
        self.writes.spawn(move || {
            let _one = order.writing.lock().unwrap_or_else(PoisonError::into_inner);
            let newest = order.newest.lock().unwrap_or_else(PoisonError::into_inner);
            if newest.get(&path) != Some(&number) {
                // A newer choice for this file is written after this one.
                return;
            }
            drop(newest);
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
        let files = DataFiles::new(dir.path(), dir.path());
        let recent = files.recent_categories.clone();
        let (msgs, mut problems) = mpsc::channel(8);
        let writes = Writes::default();
        let savers = spawn(&files, "http://a.test".into(), msgs, writes.clone());
        savers.categories(vec!["anime".into(), "style".into()]);
        savers.sort("age".into());
        savers.favourites(BTreeSet::from(["m1".to_string()]));
        let favourites = files.favourites.clone();
        let saved = || {
            (
                crate::store::recent::load(&recent),
                crate::store::recent::load_sort(&files.sort),
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

    /// Fifty quick choices (a held `f`): the file ends with the last, and no write trips on
    /// another's temporary file.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn quick_choices_end_with_the_last_one_and_no_problem() {
        let dir = tempfile::tempdir().expect("tempdir");
        let files = DataFiles::new(dir.path(), dir.path());
        let (msgs, mut problems) = mpsc::channel(64);
        let writes = Writes::default();
        let savers = spawn(&files, "http://a.test".into(), msgs, writes.clone());
        let mut names = BTreeSet::new();
        for i in 0..50 {
            names.insert(format!("m{i}"));
            savers.favourites(names.clone());
            savers.sort(format!("sort {i}"));
        }
        writes.finish(WAIT).await;
        let favourites = files.favourites.clone();
        assert_eq!(
            crate::store::favourites_file::load(&favourites, "http://a.test"),
            names
        );
        assert_eq!(
            crate::store::recent::load_sort(&files.sort),
            Some("sort 49".to_string())
        );
        assert!(problems.try_recv().is_err(), "no problem reported");
    }

    /// Changes to the views land in the order asked, however the writes are scheduled: a view
    /// saved then deleted at once is gone, one saved after it stays; the App hears the file's
    /// views back.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn views_changes_land_in_the_order_asked() {
        use crate::store::config::{ViewPane, ViewSpec};
        let dir = tempfile::tempdir().expect("tempdir");
        let files = DataFiles::new(dir.path(), dir.path());
        let (msgs, mut told) = mpsc::channel(256);
        let writes = Writes::default();
        let savers = spawn(&files, "http://a.test".into(), msgs, writes.clone());
        let spec = |filter: &str| ViewSpec {
            pane: ViewPane::Watch,
            filter: filter.into(),
            lora_type: None,
            category: String::new(),
        };
        for i in 0..20 {
            savers.views(ViewsOp::Save(format!("v{i}"), spec("a")));
            savers.views(ViewsOp::Delete(format!("v{i}")));
        }
        savers.views(ViewsOp::Save("kept".into(), spec("b")));
        writes.finish(WAIT).await;
        let loaded = crate::store::views_file::load(&files.views).expect("load");
        let names: Vec<&String> = loaded.content.saved.keys().collect();
        assert_eq!(names, ["kept"]);
        let mut last = None;
        while let Ok(msg) = told.try_recv() {
            match msg {
                Msg::ViewsSaved(saved) => last = Some(saved),
                other => panic!("only the views back, got {other:?}"),
            }
        }
        assert_eq!(
            last.map(|s| s.into_keys().collect::<Vec<_>>()),
            Some(vec!["kept".to_string()])
        );
    }

    /// A save that fails says what could not be saved, and where.
    #[tokio::test]
    async fn a_failed_save_is_reported_naming_what_and_where() {
        let dir = tempfile::tempdir().expect("tempdir");
        // The savers' folder is a file: nothing can be written in it.
        let blocked = dir.path().join("not-a-folder");
        std::fs::write(&blocked, "x").expect("write");
        let files = DataFiles::new(&blocked, &blocked);
        let recent = files.recent_categories.clone();
        let (msgs, mut problems) = mpsc::channel(8);
        let savers = spawn(&files, "http://a.test".into(), msgs, Writes::default());
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
        let sort = files.sort.clone();
        let favourites = files.favourites.clone();
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
