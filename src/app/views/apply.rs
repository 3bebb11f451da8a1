//! A view onto a pane, and what a pane shows as a view's [`Shape`]: the browser's filter,
//! sort, type and category (a changed type or category fetches, as `t` and the category
//! field do), the watch list's and the archive's filter and sort.

use super::{PaneSort, Shape, ViewPane};
use crate::app::archive_view::ArchiveView;
use crate::app::browser::Browser;
use crate::app::effects::Effects;
use crate::app::watch::{self, Watch};
use crate::cmd::Cmd;
use crate::store::views_file::LastState;

/// The panes a view can be applied to.
pub struct Panes<'a> {
    pub browser: &'a mut Browser,
    pub watch: &'a mut Watch,
    pub archive: &'a mut ArchiveView,
}

/// What `pane` shows now, as a view's shape.
pub fn shown(pane: ViewPane, browser: &Browser, watch: &Watch, archive: &ArchiveView) -> Shape {
    match pane {
        ViewPane::Browser => Shape {
            query: browser.query.trim().to_string(),
            sort: PaneSort::Browser(browser.sort),
            lora_type: browser.lora_type,
            category: browser.category.trim().to_string(),
        },
        ViewPane::Watch => Shape {
            query: watch.query.trim().to_string(),
            sort: PaneSort::Watch(watch.sort),
            lora_type: None,
            category: String::new(),
        },
        ViewPane::Archive => Shape {
            query: archive.query.trim().to_string(),
            sort: PaneSort::Archive(archive.sort),
            lora_type: None,
            category: String::new(),
        },
    }
}

/// Makes `pane` show `shape`: its filter, its order and, in the browser, its type and
/// category (a fetch when either changed, else a ranking). The watch list's new order is
/// remembered in its own file, as `s` does.
pub fn apply(pane: ViewPane, shape: &Shape, panes: Panes<'_>, now: u64) -> Effects {
    match (pane, shape.sort) {
        (ViewPane::Browser, PaneSort::Browser(sort)) => {
            let b = panes.browser;
            b.editing = None;
            b.query.clone_from(&shape.query);
            b.sort = sort;
            let server = b.lora_type != shape.lora_type || b.category != shape.category;
            b.lora_type = shape.lora_type;
            b.category.clone_from(&shape.category);
            let cmd = if server {
                Some(b.fetch())
            } else {
                b.refilter()
            };
            Effects::cmd(cmd).redraw_if(true)
        }
        (ViewPane::Watch, PaneSort::Watch(key)) => {
            let w = panes.watch;
            w.editing = false;
            let resorted = w.sort != key;
            w.sort = key;
            watch::order::set_query(w, shape.query.clone(), now);
            let remember = resorted.then(|| Cmd::RememberSort(key.label().to_string()));
            Effects::cmd(remember).redraw_if(true)
        }
        (ViewPane::Archive, PaneSort::Archive(sort)) => {
            let a = panes.archive;
            a.editing = false;
            a.set_sort(sort);
            a.set_query(shape.query.clone());
            Effects::cmd(a.want_detail()).redraw_if(true)
        }
        // A shape is made for its pane (`Shape::of`): there is nothing else to apply.
        _ => Effects::none(),
    }
}

/// What the last session left in `pane`, put back before the first fetch and ranking (which
/// `State::start` and the archive's first list make): no commands of its own. The watch
/// list's sort comes from its own file.
pub fn restore(pane: ViewPane, last: &LastState, panes: Panes<'_>, now: u64) {
    let spec = super::ViewSpec {
        pane,
        filter: last.filter.clone(),
        lora_type: last.lora_type,
        category: last.category.clone(),
    };
    let (shape, _) = Shape::of(&spec);
    match (pane, shape.sort) {
        (ViewPane::Browser, PaneSort::Browser(sort)) => {
            let b = panes.browser;
            b.query = shape.query;
            b.sort = sort;
            b.lora_type = shape.lora_type;
            b.category = shape.category;
        }
        (ViewPane::Watch, _) => watch::order::set_query(panes.watch, shape.query, now),
        (ViewPane::Archive, PaneSort::Archive(sort)) => {
            panes.archive.sort = sort;
            panes.archive.query = shape.query;
        }
        _ => {}
    }
}
