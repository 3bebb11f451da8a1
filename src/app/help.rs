//! The help overlay's reducer: scrolling, closing, and the search (`/`) that the request log
//! shares (its field, and finding the next matching line).

use super::action::Action;
use super::effects::Effects;
use super::keymap::{HelpLine, Keymap};
use super::popup::{Popup, Search};
use ratatui::layout::Rect;

/// The columns inside the help overlay's border, where its lines are fitted.
pub fn inner_width(area: Rect) -> usize {
    usize::from(area.width.saturating_sub(2))
}

/// Where a search goes next: forward or back, counting the line it is at (`skip` 0) or
/// starting past it (`skip` 1).
#[derive(Debug, Clone, Copy)]
pub struct Step {
    pub forward: bool,
    pub skip: usize,
}

/// The help overlay (no popup of another kind gets here): moving, searching, closing.
pub fn update(
    popup: &mut Option<Popup>,
    search: &mut Search,
    action: &Action,
    keymap: &Keymap,
    area: Rect,
) -> Effects {
    let height = area.height;
    let max = help_scroll_max(keymap.help_lines_at(inner_width(area)).len(), height);
    let page = height.saturating_sub(2).max(1);
    match action {
        Action::Search => *search = Search::editing(),
        Action::NextMatch(forward) => {
            let step = Step {
                forward: *forward,
                skip: 1,
            };
            find_in_help(popup, search, keymap, area, step);
        }
        _ => {}
    }
    if let Some(Popup::Help { scroll }) = popup {
        match action {
            Action::Up => *scroll = scroll.saturating_sub(1),
            Action::Down => *scroll = scroll.saturating_add(1).min(max),
            Action::PageUp => *scroll = scroll.saturating_sub(page),
            Action::PageDown => *scroll = scroll.saturating_add(page).min(max),
            Action::Top => *scroll = 0,
            Action::Bottom => *scroll = max,
            Action::ToggleHelp | Action::Cancel => *popup = None,
            _ => {}
        }
    }
    Effects::none()
}

/// Typing the help's search: each keystroke goes to the first match from where it is.
pub fn search(
    popup: &mut Option<Popup>,
    search: &mut Search,
    action: Action,
    keymap: &Keymap,
    area: Rect,
) -> Effects {
    if let Some(step) = edit(search, action) {
        find_in_help(popup, search, keymap, area, step);
    }
    Effects::none()
}

/// Goes to the help line the search finds from where it is.
fn find_in_help(
    popup: &mut Option<Popup>,
    search: &mut Search,
    keymap: &Keymap,
    area: Rect,
    step: Step,
) {
    let lines: Vec<String> = keymap
        .help_lines_at(inner_width(area))
        .iter()
        .map(HelpLine::text)
        .collect();
    let Some(Popup::Help { scroll }) = popup else {
        return;
    };
    let from = search.at.unwrap_or(usize::from(*scroll));
    if let Some(at) = find(search, &lines, from, step) {
        search.at = Some(at);
        let max = help_scroll_max(lines.len(), area.height);
        *scroll = u16::try_from(at).unwrap_or(u16::MAX).min(max);
    }
}

/// A keystroke in a search field (the help's or the request log's): where to look next, if
/// anywhere. Leaving the field keeps the search for the next match.
pub fn edit(search: &mut Search, action: Action) -> Option<Step> {
    match action.edit_text(&mut search.query) {
        Ok(()) => {}
        Err(Action::PickNext) => {
            return Some(Step {
                forward: true,
                skip: 1,
            });
        }
        Err(Action::PickPrevious) => {
            return Some(Step {
                forward: false,
                skip: 1,
            });
        }
        Err(Action::Submit | Action::Cancel) => {
            search.editing = false;
            return None;
        }
        Err(_) => return None,
    }
    Some(Step {
        forward: true,
        skip: 0,
    })
}

/// The first of `lines` matching the search, forward or back from line `from`, round the end;
/// counts the matches. Without a match the search is at no line.
pub fn find(search: &mut Search, lines: &[String], from: usize, step: Step) -> Option<usize> {
    let needle = search.query.to_lowercase();
    let hits: Vec<bool> = lines
        .iter()
        .map(|l| !needle.is_empty() && l.to_lowercase().contains(&needle))
        .collect();
    search.matches = hits.iter().filter(|h| **h).count();
    let n = lines.len();
    let found = (0..n)
        .map(|k| {
            let at = (k + step.skip) % n;
            if step.forward {
                (from + at) % n
            } else {
                (from + n - at) % n
            }
        })
        .find(|&i| hits[i]);
    if found.is_none() {
        search.at = None;
    }
    found
}

/// How far `lines` of help scroll in an overlay `height` rows high (borders included): until
/// the last line is on the overlay's last row; not at all when they fit.
pub fn help_scroll_max(lines: usize, height: u16) -> u16 {
    let rows = usize::from(height.saturating_sub(2));
    u16::try_from(lines.saturating_sub(rows)).unwrap_or(u16::MAX)
}

#[cfg(test)]
#[path = "help_tests.rs"]
mod tests;
