//! The user's `[[actions]]` in the App: the key (or the palette) runs one on the rows of the
//! pane it is pressed in (the marked ones, else the selected one), its command filled by
//! `store::config::expand`; one that asks first (`confirm = true`) asks with the yes/no
//! question; what runs is on the status bar until it ends, and each end is told: the exit code
//! and the last line the program wrote. The worker runs them (`Cmd::RunAction`).

use super::archive_view::ArchiveView;
use super::browser::Browser;
use super::effects::Effects;
use super::gallery::GalleryOf;
use super::keymap::Mode;
use super::layout::Pane;
use super::popup::{Confirm, Popup, Then};
use super::watch::Watch;
use crate::cmd::{ActionRun, Cmd};
use crate::msg::ActionEnded;
use crate::store::config::{Fill, ModelRow, OwnAction, Scope, TaskRow, expand};

/// The actions running now, each with the rows it still has to run for.
#[derive(Debug, Default)]
pub struct Running {
    next: u64,
    pub runs: Vec<Started>,
}

/// A run of an action that has not ended yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Started {
    pub id: u64,
    pub name: String,
    pub rows: Vec<String>,
}

impl Running {
    /// "running upscale on t-1 · zip on 3 rows", while any runs.
    pub fn text(&self) -> Option<String> {
        if self.runs.is_empty() {
            return None;
        }
        let each: Vec<String> = self
            .runs
            .iter()
            .map(|r| format!("{} on {}", r.name, rows_text(&r.rows)))
            .collect();
        Some(format!("running {}", each.join(" · ")))
    }
}

/// `t-1`, `t-1, t-2`, `3 rows`.
fn rows_text(rows: &[String]) -> String {
    match rows {
        [] => "nothing".to_string(),
        [one] => one.clone(),
        [a, b] => format!("{a}, {b}"),
        many => crate::fmt::count(many.len(), "row"),
    }
}

/// The scope of the mode an action's key was pressed in.
fn scope_of(mode: Mode) -> Option<Scope> {
    match mode {
        Mode::Pane(Pane::Browser) => Some(Scope::Browser),
        // The gallery is its list: an action runs on its selected tile as on the row.
        Mode::Pane(Pane::Watch) | Mode::Gallery(GalleryOf::Watch) => Some(Scope::Watch),
        Mode::Archive | Mode::Gallery(GalleryOf::Archive) => Some(Scope::Archive),
        _ => None,
    }
}

/// What the state lends an action: the panes' selections, the question, what runs.
pub struct Here<'a> {
    pub mode: Mode,
    pub browser: &'a Browser,
    pub watch: &'a Watch,
    pub archive: &'a ArchiveView,
    pub popup: &'a mut Option<Popup>,
    pub running: &'a mut Running,
}

/// `action`'s key: run on the rows where it was pressed (after the question, if it asks).
pub fn pressed(action: &OwnAction, here: Here<'_>) -> Effects {
    let Here {
        mode,
        browser,
        watch,
        archive,
        popup,
        running,
    } = here;
    let name = &action.name;
    let Some(scope) = scope_of(mode).filter(|s| action.in_scope(*s)) else {
        let scopes: Vec<&str> = action.scopes.iter().map(|s| s.name()).collect();
        return Effects::say(format!("{name} runs in the {}", scopes.join(", ")));
    };
    match scope {
        Scope::Browser => match browser.chosen() {
            Ok(entries) => {
                let weight = browser.prompt.weight;
                let rows: Vec<ModelRow> = entries
                    .into_iter()
                    .map(|entry| ModelRow { entry, weight })
                    .collect();
                start(action, scope, &rows, popup, running)
            }
            Err(none) => Effects::say(format!("{name}: {none}")),
        },
        Scope::Watch => {
            let keys = watch.targets();
            let rows: Vec<TaskRow> = keys
                .iter()
                .filter_map(|k| watch.rows.iter().find(|r| r.key() == *k))
                .map(|r| TaskRow(&r.entry))
                .collect();
            if rows.is_empty() {
                return Effects::say(format!("{name}: no task selected"));
            }
            start(action, scope, &rows, popup, running)
        }
        Scope::Archive => match archive.selected() {
            Some(t) => start(action, scope, &[TaskRow(&t.entry)], popup, running),
            None => Effects::say(format!("{name}: no task selected")),
        },
    }
}

/// Fills the command for `rows`; asks first, or starts it.
fn start<R: Fill>(
    action: &OwnAction,
    scope: Scope,
    rows: &[R],
    popup: &mut Option<Popup>,
    running: &mut Running,
) -> Effects {
    let filled = expand(action, scope, rows);
    let skipped = filled.skipped_text();
    if filled.runs.is_empty() {
        return Effects::say(format!(
            "{}: nothing to run; {}",
            action.name,
            skipped.unwrap_or_default()
        ));
    }
    running.next += 1;
    let run = ActionRun {
        id: running.next,
        name: action.name.clone(),
        runs: filled.runs,
    };
    if action.confirm {
        let rows: Vec<String> = run.runs.iter().flat_map(|(r, _)| r.clone()).collect();
        let mut question = format!("run {} on {}?", action.name, rows.join(", "));
        if let Some(s) = skipped {
            question = format!("{question} ({s})");
        }
        *popup = Some(Popup::Confirm(Confirm {
            question,
            then: Then::Run(run),
        }));
        return Effects::none();
    }
    begin(running, run, skipped)
}

/// The run starts: on the status bar until it ends.
fn begin(running: &mut Running, run: ActionRun, skipped: Option<String>) -> Effects {
    let rows: Vec<String> = run.runs.iter().flat_map(|(r, _)| r.clone()).collect();
    running.runs.push(Started {
        id: run.id,
        name: run.name.clone(),
        rows,
    });
    // The run itself is on the status bar while it runs (`Running::text`); the notice says
    // only what was left out.
    let fx = Effects::cmds(vec![Cmd::RunAction(run)]).redraw_if(true);
    match skipped {
        Some(s) => fx.with_notice(s),
        None => fx,
    }
}

/// The answer to "run …?": yes starts it, no says it did not run. `None`: the question is
/// another one's.
pub fn answer(popup: &mut Option<Popup>, running: &mut Running, yes: bool) -> Option<Effects> {
    let Some(Popup::Confirm(Confirm {
        then: Then::Run(run),
        ..
    })) = popup.as_ref()
    else {
        return None;
    };
    let run = run.clone();
    *popup = None;
    Some(if yes {
        begin(running, run, None)
    } else {
        Effects::say(format!("did not run {}", run.name))
    })
}

/// One command of a run ended: its exit code and last line told, the run off the status bar
/// once its last command ended.
pub fn ended(running: &mut Running, e: ActionEnded) -> Effects {
    if let Some(i) = running.runs.iter().position(|r| r.id == e.id) {
        if e.last {
            running.runs.remove(i);
        } else {
            running.runs[i].rows.retain(|r| !e.rows.contains(r));
        }
    }
    let on = format!("{} on {}", e.name, rows_text(&e.rows));
    match e.outcome {
        Ok((Some(0), last)) => Effects::say(match last {
            Some(line) => format!("{on}: exit 0 · {line}"),
            None => format!("{on}: exit 0"),
        })
        .redraw_if(true),
        Ok((code, last)) => {
            let code =
                code.map_or_else(|| "killed by a signal".to_string(), |c| format!("exit {c}"));
            Effects::fail(match last {
                Some(line) => format!("{on}: {code} · {line}"),
                None => format!("{on}: {code}"),
            })
            .redraw_if(true)
        }
        Err(why) => Effects::fail(format!("{on}: {why}")).redraw_if(true),
    }
}

#[cfg(test)]
#[path = "own_actions_tests.rs"]
mod tests;
