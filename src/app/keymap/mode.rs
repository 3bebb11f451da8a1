//! Which screen has the keys, named once: `State::mode` works it out, the reducer routes on
//! it, and the keymap's contexts come from it, so which contexts are in force together is
//! never a list of its own.

use super::binding::Context;
use crate::app::gallery::GalleryOf;
use crate::app::layout::Pane;

/// A text field that has the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextField {
    /// The help's search.
    HelpSearch,
    /// The request log's search.
    LogSearch,
    /// The browser's filter or category field.
    Browser,
    /// The watch list's filter.
    WatchFilter,
    /// The archive view's filter.
    ArchiveFilter,
}

/// What has the keys, most specific first: a popup, then the archive view, then a field being
/// typed in, then a pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Help,
    /// The palette: a field to find an action by name, and the list it narrows.
    Palette,
    Requests,
    AddDialog,
    /// The add dialog's relabelling form: one text field.
    LabelEditor,
    /// A yes/no question about a file (replace it?).
    Confirm,
    /// A yes/no question: remove every completed task?
    RemoveCompleted,
    Archive,
    /// The list of a pane's views.
    Views,
    /// The list asks: delete this view?
    DeleteView,
    /// The save-view key's name prompt: one text field.
    ViewName,
    Typing(TextField),
    Pane(Pane),
    /// A pane's results as a grid of tiles.
    Gallery(GalleryOf),
}

impl Mode {
    /// Every mode. `contexts` says what each one means for the keymap; the keymap checks that
    /// no key means two things in any of them.
    pub const ALL: [Mode; 20] = [
        Mode::Help,
        Mode::Requests,
        Mode::AddDialog,
        Mode::LabelEditor,
        Mode::Confirm,
        Mode::RemoveCompleted,
        Mode::Archive,
        Mode::Typing(TextField::HelpSearch),
        Mode::Typing(TextField::LogSearch),
        Mode::Typing(TextField::Browser),
        Mode::Typing(TextField::WatchFilter),
        Mode::Typing(TextField::ArchiveFilter),
        Mode::Pane(Pane::Browser),
        Mode::Pane(Pane::Watch),
        Mode::Palette,
        Mode::Views,
        Mode::DeleteView,
        Mode::ViewName,
        Mode::Gallery(GalleryOf::Watch),
        Mode::Gallery(GalleryOf::Archive),
    ];

    /// Its place in [`Mode::ALL`]: a mode added to the enum does not compile until it has one,
    /// and a test checks `ALL` holds it there.
    pub const fn index(self) -> usize {
        match self {
            Mode::Help => 0,
            Mode::Requests => 1,
            Mode::AddDialog => 2,
            Mode::LabelEditor => 3,
            Mode::Confirm => 4,
            Mode::RemoveCompleted => 5,
            Mode::Archive => 6,
            Mode::Typing(TextField::HelpSearch) => 7,
            Mode::Typing(TextField::LogSearch) => 8,
            Mode::Typing(TextField::Browser) => 9,
            Mode::Typing(TextField::WatchFilter) => 10,
            Mode::Typing(TextField::ArchiveFilter) => 11,
            Mode::Pane(Pane::Browser) => 12,
            Mode::Pane(Pane::Watch) => 13,
            Mode::Palette => 14,
            Mode::Views => 15,
            Mode::DeleteView => 16,
            Mode::ViewName => 17,
            Mode::Gallery(GalleryOf::Watch) => 18,
            Mode::Gallery(GalleryOf::Archive) => 19,
        }
    }

    /// The keymap contexts in force in this mode, most specific first.
    pub fn contexts(self) -> &'static [Context] {
        match self {
            Mode::Help => &[Context::Help, Context::Always],
            Mode::Requests => &[Context::Requests, Context::Always],
            Mode::AddDialog => &[Context::AddDialog, Context::Always],
            Mode::Confirm | Mode::RemoveCompleted | Mode::DeleteView => {
                &[Context::Confirm, Context::Always]
            }
            Mode::Views => &[Context::Views, Context::Always],
            Mode::Archive => &[Context::Archive, Context::Always],
            // The palette is a field: its keys move the pick, enter runs it, esc leaves.
            Mode::LabelEditor | Mode::Typing(_) | Mode::Palette | Mode::ViewName => {
                &[Context::TextInput, Context::Always]
            }
            Mode::Pane(Pane::Browser) => &[Context::Browser, Context::Global, Context::Always],
            Mode::Pane(Pane::Watch) => &[Context::Watch, Context::Global, Context::Always],
            Mode::Gallery(GalleryOf::Watch) => &[
                Context::Gallery,
                Context::Watch,
                Context::Global,
                Context::Always,
            ],
            Mode::Gallery(GalleryOf::Archive) => {
                &[Context::Gallery, Context::Archive, Context::Always]
            }
        }
    }
}
