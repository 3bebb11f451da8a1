//! What an input means in the current mode (`Action`); resolved by the keymap, handled by the
//! reducer, never sent across threads.

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Quit,
    ToggleHelp,
    /// Open the palette: every action here, found by name and run from there.
    OpenPalette,
    /// Open or close the request log.
    ToggleRequests,
    /// Copy the selected request as a curl command line.
    CopyCurl,
    FocusNext,
    OpenAddDialog,
    Suspend,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Refresh,
    FocusFilter,
    CycleType,
    EditCategory,
    Open,
    /// Open the selected task's saved file.
    OpenFile,
    CopyUrl,
    CopyName,
    /// The browser: the selected model, or every marked one, as prompt text.
    CopyPrompt,
    Remove,
    Undo,
    PollNow,
    Download,
    CycleSort,
    ToggleDetail,
    ToggleAutoDownload,
    ToggleFavourite,
    OnlyFavourites,
    /// The browser: clears the marks of what changed since the cached copy.
    ClearMarks,
    /// The browser: flips the sort's direction.
    FlipSort,
    /// Mark or unmark the selected task (bulk remove, download, auto-download) or model
    /// (copy prompt).
    ToggleMark,
    /// Remove every completed task (after a question).
    RemoveCompleted,
    /// The cursor to the next task that finished since it was last looked at.
    NextUnseen,
    /// Edit the label of the selected task (of every marked one).
    EditLabel,
    /// The focused pane over the whole screen, or back.
    Zoom,
    /// Open the archive view, or go back from it to the watch list.
    ToggleArchive,
    /// The selected archived task back on the watch list, out of the archive.
    WatchAgain,
    /// Read the config file again and apply what changed.
    ReloadConfig,
    /// Save what the pane shows as a view (asks for a name).
    SaveView,
    /// The list of the pane's views.
    OpenViews,
    /// Apply the view of this name (its own key).
    ApplyView(String),
    /// The focused pane's gallery, or its list again.
    ToggleGallery,
    /// The gallery: the tile to the left, or to the right.
    Left,
    Right,
    /// Search the help or the request log.
    Search,
    /// The next (or, `false`, the previous) line matching the search.
    NextMatch(bool),
    // Text input, in the filter, the category field and the add dialog.
    Type(char),
    Paste(String),
    Backspace,
    ClearInput,
    Submit,
    Cancel,
    ToggleKind,
    PickPrevious,
    PickNext,
    // Mouse and terminal.
    Click {
        column: u16,
        row: u16,
    },
    Wheel {
        column: u16,
        row: u16,
        down: bool,
    },
    Resize {
        width: u16,
        height: u16,
    },
    /// A signal asked the dashboard to end (SIGINT, SIGTERM, SIGHUP).
    Terminate(i32),
    /// Run one of the user's `[[actions]]` on the selection of the pane it is bound in.
    RunOwn(std::sync::Arc<crate::store::config::OwnAction>),
}

impl Action {
    /// Applies a text field's own keys (typing, pasting, backspace, clearing) to `text`; any
    /// other action is handed back.
    pub fn edit_text(self, text: &mut String) -> Result<(), Action> {
        match self {
            Action::Type(c) => text.push(c),
            Action::Paste(pasted) => text.push_str(&pasted),
            Action::Backspace => {
                text.pop();
            }
            Action::ClearInput => text.clear(),
            other => return Err(other),
        }
        Ok(())
    }
}
