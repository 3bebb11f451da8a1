//! The add dialog's reducer (`a`): typing or pasting task IDs, the kind, adding them.

use super::action::Action;
use super::effects::{Effects, tasks};
use super::layout::Pane;
use super::popup::Popup;
use super::watch::{Changed, Watch, new_entry};
use crate::api::TaskKind;
use crate::store::watchlist::{WatchEntry, clean_label, split_ids};

/// The add dialog (no popup of another kind gets here): its field, its kind, adding the IDs
/// typed (the watch pane takes the keys then).
pub fn update(
    popup: &mut Option<Popup>,
    focus: &mut Pane,
    watch: &mut Watch,
    action: Action,
    now: u64,
) -> Effects {
    let Some(Popup::Add(dialog)) = popup else {
        return Effects::none();
    };
    // An error is about the text it was found in: once that changes it is stale.
    if matches!(
        action,
        Action::Type(_)
            | Action::Paste(_)
            | Action::Backspace
            | Action::ClearInput
            | Action::ToggleKind
    ) {
        dialog.error = None;
    }
    match action {
        Action::Type(c) => dialog.field().push(c),
        // A label is user text: whatever a terminal would obey is removed.
        Action::Paste(text) if dialog.on_label => dialog.label.push_str(&clean_paste(&text)),
        Action::Paste(text) => match refused_id(&text) {
            Some(error) => dialog.error = Some(error),
            None => dialog.text.push_str(&clean_paste(&text)),
        },
        Action::Backspace => {
            dialog.field().pop();
        }
        Action::ClearInput => dialog.field().clear(),
        // Between the task IDs and the label.
        Action::PickNext | Action::PickPrevious if dialog.relabel.is_none() => {
            dialog.on_label = !dialog.on_label;
        }
        Action::Submit if dialog.relabel.is_some() => {
            let keys = dialog.relabel.take().unwrap_or_default();
            let label = std::mem::take(&mut dialog.label);
            *popup = None;
            return super::watch::label::save(watch, &keys, &label, now);
        }
        Action::ToggleKind if dialog.relabel.is_some() => {}
        Action::ToggleKind => {
            dialog.kind = match dialog.kind {
                TaskKind::Image => TaskKind::Video,
                TaskKind::Video => TaskKind::Image,
            };
        }
        Action::Cancel => *popup = None,
        Action::Submit => {
            // Pastes were checked and typed controls dropped, so the text is clean; the
            // check refuses whatever is not. The same check as `gendash watch add`'s.
            let ids = match crate::store::watchlist::task_ids([dialog.text.as_str()]) {
                Ok(ids) => ids,
                Err(crate::store::watchlist::IdsError::None) => {
                    dialog.error = Some("type or paste at least one task ID".into());
                    return Effects::none();
                }
                Err(bad) => {
                    dialog.error = Some(bad.to_string());
                    return Effects::none();
                }
            };
            let kind = dialog.kind;
            let label = clean_label(&dialog.label);
            *popup = None;
            *focus = Pane::Watch;
            return add(watch, ids, kind, label.as_deref(), now);
        }
        _ => {}
    }
    Effects::none()
}

/// Adds the tasks `ids` not watched yet as `kind`, and says which were added and which were
/// watched already (and as what).
fn add(
    watch: &mut Watch,
    ids: Vec<String>,
    kind: TaskKind,
    label: Option<&str>,
    now: u64,
) -> Effects {
    // An ID is one task whichever kind it was added as: never watched as both.
    let watched_as = |id: &String| {
        watch
            .rows
            .iter()
            .find(|r| r.entry.task_id == *id)
            .map(|r| r.entry.kind)
    };
    let (already, fresh): (Vec<String>, Vec<String>) =
        ids.into_iter().partition(|id| watched_as(id).is_some());
    let already_as: Vec<String> = already
        .iter()
        .map(|id| {
            let as_kind = watched_as(id).unwrap_or(kind);
            format!("{id} (as {})", as_kind.as_str())
        })
        .collect();
    let entries: Vec<WatchEntry> = fresh
        .iter()
        .map(|id| WatchEntry {
            label: label.map(str::to_string),
            ..new_entry(id, kind, now)
        })
        .collect();
    let Changed { cmds, what } = crate::app::watch::undo::add(watch, entries, now);
    let added: Vec<String> = what.keys.into_iter().map(|k| k.id).collect();
    Effects::cmds(cmds).with_notice(match (added.is_empty(), already.len()) {
        (true, _) => format!("already watching {}", already_as.join(", ")),
        (false, 0) => format!("added {}", tasks(&added)),
        (false, _) => format!(
            "added {}; already watching {}",
            tasks(&added),
            already_as.join(", ")
        ),
    })
}

/// The error for a paste into the add dialog that holds an ID with control or invisible
/// characters (line breaks and tabs separate IDs), naming the first such ID escaped.
fn refused_id(text: &str) -> Option<String> {
    let spaced = text.replace(['\n', '\r', '\t'], " ");
    split_ids(&spaced)
        .iter()
        .find(|id| crate::api::client::holds_controls(id))
        .map(|id| {
            format!(
                "not added: task ID {} holds control or invisible characters",
                crate::api::client::escaped_id(id)
            )
        })
}

/// Pasted text as the fields keep it: line breaks and tabs become spaces (they separate task
/// IDs), everything a terminal would obey is removed.
pub fn clean_paste(text: &str) -> String {
    let spaced: String = text
        .chars()
        .map(|c| {
            if matches!(c, '\n' | '\r' | '\t') {
                ' '
            } else {
                c
            }
        })
        .collect();
    crate::api::sanitize::sanitize_with_limit(&spaced, 64 * 1024)
}

#[cfg(test)]
#[path = "add_tests.rs"]
mod tests;
