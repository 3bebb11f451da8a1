//! `run NAME [ID…]` and `actions`: the user's `[[actions]]` in plain mode. The rows are
//! selected (and, several, marked) as clicks and the mark key would, then the action's own
//! key (`Action::RunOwn`) runs it through the reducer, question and all; the marks and a
//! lifted filter are put back once it started (or the question is answered), so `rm ID`
//! after it acts on its one task again. Its end is the App's notice, printed as any other.

use super::{Line, Printer, filter_watch, focus};
use crate::app::action::Action;
use crate::app::state::{Load, Pane, Popup, State};
use crate::cmd::Cmd;
use crate::store::config::{OwnAction, Scope};
use std::sync::Arc;

/// What a run changed only to say which rows it is for: put back once it started.
#[derive(Debug)]
pub(super) struct PutBack {
    pane: Pane,
    /// The rows marked for it (by task ID or model name); none when it was one row.
    marked: Vec<String>,
    /// The watch list's filter, lifted to reach the tasks.
    query: Option<String>,
}

/// The configured actions, from the keymap (so a reloaded config's are the ones offered).
fn configured(state: &State) -> Vec<Arc<OwnAction>> {
    let mut own: Vec<Arc<OwnAction>> = Vec::new();
    for binding in state.keymap.bindings() {
        if let Action::RunOwn(action) = &binding.action
            && !own.iter().any(|a| a.name == action.name)
        {
            own.push(action.clone());
        }
    }
    own
}

impl Printer {
    /// `actions`: each action, its key, where it runs and its command.
    pub(super) fn actions(&self, state: &State) {
        let own = configured(state);
        if own.is_empty() {
            self.print(&Line::plain(
                "no actions: [[actions]] in the config adds them",
            ));
        }
        for action in own {
            let scopes: Vec<&str> = action.scopes.iter().map(|s| s.name()).collect();
            let asks = if action.confirm { " · asks first" } else { "" };
            self.print(&Line::plain(format!(
                "{} · {} · {} · {}{asks}",
                action.name,
                action.key,
                scopes.join(", "),
                action.command_line()
            )));
        }
    }

    /// `run NAME ID…`: the action on those rows, as its key on them marked would.
    pub(super) fn run(&mut self, state: &mut State, name: &str, ids: &[String]) -> Vec<Cmd> {
        let own = configured(state);
        let Some(action) = own.iter().find(|a| a.name == name).cloned() else {
            let known: Vec<&str> = own.iter().map(|a| a.name.as_str()).collect();
            self.print(&Line::bad(if known.is_empty() {
                format!("run: no action {name}: the config has no [[actions]]")
            } else {
                format!(
                    "run: no action {name}: the actions are {}",
                    known.join(", ")
                )
            }));
            return Vec::new();
        };
        let mut seen = std::collections::HashSet::new();
        let ids: Vec<String> = ids.iter().filter(|id| seen.insert(*id)).cloned().collect();
        let watched = |id: &String| state.watch.rows.iter().any(|r| r.entry.task_id == *id);
        let pane = if action.in_scope(Scope::Watch)
            && (!action.in_scope(Scope::Browser) || ids.iter().all(watched))
        {
            Pane::Watch
        } else if action.in_scope(Scope::Browser) {
            Pane::Browser
        } else {
            self.print(&Line::bad(format!(
                "run: {name} runs in the archive, which plain mode does not show"
            )));
            return Vec::new();
        };
        if ids.is_empty() {
            // Plain mode shows no cursor: which rows would be a guess.
            self.print(&Line::bad(match pane {
                Pane::Watch => {
                    format!("run {name} needs task IDs: run {name} ID… (list shows them)")
                }
                Pane::Browser => {
                    format!("run {name} needs model names: run {name} MODEL… (models lists them)")
                }
            }));
            return Vec::new();
        }
        let rows = match pane {
            Pane::Watch => self.watched_rows(state, &ids),
            Pane::Browser => self.model_rows(state, &ids),
        };
        let Some(rows) = rows else {
            return Vec::new();
        };
        let mut cmds = focus(state, pane);
        let query = state.watch.query.clone();
        let lift = pane == Pane::Watch && rows.iter().any(|&i| !state.watch.order.contains(&i));
        if lift {
            cmds.extend(filter_watch(state, ""));
        }
        let marked = if rows.len() > 1 {
            ids.clone()
        } else {
            Vec::new()
        };
        if marked.is_empty() {
            select(state, pane, &ids[0]);
        } else {
            for id in &marked {
                select(state, pane, id);
                cmds.extend(state.update(Action::ToggleMark));
            }
            // The mark key's own notices are the means here, not news.
            self.notice = state.notice.as_ref().map(|n| (n.text.clone(), n.until));
        }
        let running = state.own_actions.runs.len();
        cmds.extend(state.update(Action::RunOwn(action)));
        if state.own_actions.runs.len() > running
            && let Some(started) = state.own_actions.runs.last()
        {
            self.print(&Line::plain(format!(
                "running {name} on {}",
                started.rows.join(", ")
            )));
        }
        self.put_back = Some(PutBack {
            pane,
            marked,
            query: lift.then_some(query),
        });
        if !matches!(state.popup, Some(Popup::Confirm(_))) {
            cmds.extend(self.put_back(state));
        }
        cmds
    }

    /// The watch list's indices of `ids`; an ID not watched is said, and nothing runs.
    fn watched_rows(&self, state: &State, ids: &[String]) -> Option<Vec<usize>> {
        let mut rows = Vec::new();
        for id in ids {
            let Some(i) = state.watch.rows.iter().position(|r| r.entry.task_id == *id) else {
                self.print(&Line::bad(format!(
                    "run: not watching {id} (list shows the watched tasks)"
                )));
                return None;
            };
            rows.push(i);
        }
        Some(rows)
    }

    /// The browser's places of the models `ids`; one it cannot show is said, and nothing runs.
    fn model_rows(&self, state: &State, ids: &[String]) -> Option<Vec<usize>> {
        let browser = &state.browser;
        if matches!(browser.load, Load::Loading) && browser.entries.is_empty() {
            self.print(&Line::bad("run: the catalogue is still loading"));
            return None;
        }
        let mut rows = Vec::new();
        for id in ids {
            let Some(entry) = browser.entries.iter().position(|e| e.model() == id) else {
                self.print(&Line::bad(format!(
                    "run: no model {id} in the catalogue (models lists them)"
                )));
                return None;
            };
            let Some(at) = browser.matches.iter().position(|&m| m as usize == entry) else {
                self.print(&Line::bad(format!(
                    "run: {id} is hidden by the models filter: models alone clears it"
                )));
                return None;
            };
            rows.push(at);
        }
        Some(rows)
    }

    /// The marks a run set taken off again (the mark key once more), and the filter it
    /// lifted put back; the run's own notice is printed first.
    pub(super) fn put_back(&mut self, state: &mut State) -> Vec<Cmd> {
        let Some(back) = self.put_back.take() else {
            return Vec::new();
        };
        let mut cmds = Vec::new();
        if !back.marked.is_empty() {
            self.report(state);
            cmds.extend(focus(state, back.pane));
            for id in &back.marked {
                select(state, back.pane, id);
                cmds.extend(state.update(Action::ToggleMark));
            }
            self.notice = state.notice.as_ref().map(|n| (n.text.clone(), n.until));
        }
        if let Some(query) = back.query {
            cmds.extend(filter_watch(state, &query));
        }
        cmds
    }
}

/// The row `id` selected in `pane`, as a click would.
fn select(state: &mut State, pane: Pane, id: &str) {
    match pane {
        Pane::Watch => {
            let index = state.watch.rows.iter().position(|r| r.entry.task_id == id);
            if let Some(at) = index.and_then(|i| state.watch.order.iter().position(|&o| o == i)) {
                state.select_watched(at);
            }
        }
        Pane::Browser => {
            let browser = &mut state.browser;
            let entry = browser.entries.iter().position(|e| e.model() == id);
            if let Some(at) =
                entry.and_then(|e| browser.matches.iter().position(|&m| m as usize == e))
            {
                browser.select(at);
            }
        }
    }
}
