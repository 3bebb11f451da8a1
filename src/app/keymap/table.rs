//! The built-in bindings, one line each. The order is the help's and `gendash keys`' within a
//! context. Keys are written as `[keys]` writes them; a key after `|` works but is left out
//! of the label (`y | Y` shows as `y`). A binding with no keys ([`SHARED`]) takes those of the
//! first binding of its name that has some, so the archive's and the popups' moves answer to
//! the watch list's and either pane's keys instead of a copy of them; [`Row::Same`] takes
//! one context's binding whole (keys, description, hint) into another.

use super::binding::{Binding, Context, Name, Priority, label_of};
use crate::app::action::Action as A;
use crate::store::config::{ActionName as N, KeyCombo};
use Context::{
    AddDialog, Always, Archive, Browser, Confirm, Gallery, Global, Help, Requests, TextInput,
    Views, Watch,
};
use Priority::{High, Low, Normal};
use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

/// The keys of the first binding of the same name (see the module's comment).
const SHARED: &str = "";

/// A binding's word in the hint line and how long it stays there when room is short.
type Hint = Option<(&'static str, Priority)>;

/// A binding of its own: what `b` writes on one line of the table.
struct Own {
    context: Context,
    name: N,
    keys: &'static str,
    action: A,
    hint: Hint,
    description: &'static str,
}

enum Row {
    Own(Own),
    /// The binding of this name in the second context, whole (keys, description, hint), in
    /// the first.
    Same(Context, Context, N),
}

const fn b(
    context: Context,
    name: N,
    keys: &'static str,
    action: A,
    hint: Hint,
    description: &'static str,
) -> Row {
    Row::Own(Own {
        context,
        name,
        keys,
        action,
        hint,
        description,
    })
}

impl Own {
    /// The binding, its keys parsed, or those of the first binding of its name in `built`
    /// ([`SHARED`]).
    fn binding(&self, built: &[Binding]) -> Binding {
        let (keys, also) = if self.keys == SHARED {
            let name = self.name;
            let source = built
                .iter()
                .find(|b| b.name == name)
                .unwrap_or_else(|| panic!("the keymap's table: {name} shares no keys"));
            (source.keys.clone(), source.also.clone())
        } else {
            parse_keys(self.keys)
        };
        Binding {
            context: self.context,
            name: Name::Builtin(self.name),
            label: Cow::Owned(label_of(&keys)),
            keys,
            also,
            action: self.action.clone(),
            description: Cow::Borrowed(self.description),
            hint: self.hint.map(|(word, _)| word),
            priority: self.hint.map_or(Priority::Normal, |(_, p)| p),
        }
    }
}

// The hint column is an `Option`; this writes its `Some` short.
#[allow(clippy::unnecessary_wraps)]
const fn h(word: &'static str, priority: Priority) -> Hint {
    Some((word, priority))
}

const NO: Hint = None;

#[rustfmt::skip]
static TABLE: &[Row] = &[
    b(Browser,   N::Filter,          "/",              A::FocusFilter,       h("filter", High),       "filter: fuzzy names, fzf operators, key:value fields, type:/cate:"),
    b(Browser,   N::Type,            "t",              A::CycleType,         h("type", Low),          "type: all → sd → sdxl"),
    b(Browser,   N::Category,        "c",              A::EditCategory,      h("category", Normal),   "category (the field offers the known ones)"),
    b(Browser,   N::Open,            "enter o",        A::Open,              h("open", Normal),       "open the model's source in the browser"),
    b(Browser,   N::CopyUrl,         "y",              A::CopyUrl,           h("copy URL", Low),      "copy the source URL (clipboard program, else OSC 52)"),
    b(Browser,   N::CopyName,        "Y",              A::CopyName,          NO,                      "copy the model name"),
    b(Browser,   N::CopyPrompt,      "p",              A::CopyPrompt,        NO,                      "copy the model, or every marked one, as prompt text: <lora:name:weight> and trigger words (prompt_template)"),
    b(Browser,   N::ClearFilter,     "esc",            A::Cancel,            NO,                      "in the pane: clear the filter, else unmark every model (in the field it leaves the field instead)"),
    b(Browser,   N::Reload,          "r",              A::Refresh,           h("reload", Low),        "reload the catalogue"),
    b(Browser,   N::Favourite,       "f",              A::ToggleFavourite,   NO,                      "mark or unmark the model as a favourite (★, kept per service)"),
    b(Browser,   N::FavouritesOnly,  "F",              A::OnlyFavourites,    NO,                      "list only the favourites, or everything again"),
    b(Browser,   N::ClearMarks,      "X",              A::ClearMarks,        NO,                      "clear the marks of what changed since the cached copy (+ new, ~ changed)"),
    b(Browser,   N::Sort,            "s",              A::CycleSort,         NO,                      "sort: relevance → name → downloads → rating → updated"),
    b(Browser,   N::SortDirection,   "S",              A::FlipSort,          NO,                      "flip the sort: ascending ↔ descending"),
    b(Watch,     N::Open,            SHARED,           A::Open,              h("open", High),         "open the download URL in the browser"),
    b(Watch,     N::OpenFile,        "O",              A::OpenFile,          NO,                      "open the saved file (GENDASH_OPENER, else the system's viewer)"),
    b(Watch,     N::CopyUrl,         SHARED,           A::CopyUrl,           h("copy URL", Low),      "copy the download URL (clipboard program, else OSC 52)"),
    b(Watch,     N::CopyName,        SHARED,           A::CopyName,          NO,                      "copy the task ID"),
    b(Watch,     N::Download,        "D",              A::Download,          h("download", Normal),   "download the file (of every marked task) to download_dir; asks before replacing one"),
    b(Watch,     N::AutoDownload,    "A",              A::ToggleAutoDownload, NO,                     "download the file by itself when the task completes, or stop (every marked task)"),
    b(Confirm,   N::Yes,             "y | Y",          A::Submit,            h("yes", Priority::Always), "yes: replace the file, remove the tasks, or delete the view"),
    b(Confirm,   N::No,              "n esc",          A::Cancel,            h("no", Priority::Always),  "no: keep it"),
    b(Watch,     N::Remove,          "d delete",       A::Remove,            h("remove", Normal),     "remove the task, or every marked one, from the list"),
    b(Watch,     N::Mark,            "space",          A::ToggleMark,        NO,                      "mark or unmark the task and move down; remove, download and auto-download act on every marked one"),
    b(Browser,   N::Mark,            SHARED,           A::ToggleMark,        NO,                      "mark or unmark the model and move down; copy prompt copies every marked one"),
    b(Watch,     N::RemoveCompleted, "C",              A::RemoveCompleted,   NO,                      "remove every completed task (asks first; one undo brings them all back)"),
    b(Watch,     N::ClearFilter,     SHARED,           A::Cancel,            NO,                      "in the pane: clear the filter, else unmark every task"),
    b(Watch,     N::Undo,            "u",              A::Undo,              h("undo", Low),          "undo the last add or remove; again undoes the one before (up to 50)"),
    b(Watch,     N::Filter,          SHARED,           A::FocusFilter,       h("filter", Normal),     "filter tasks (fuzzy by ID, status and label; status: kind: label: service: finished: …)"),
    b(Watch,     N::Sort,            SHARED,           A::CycleSort,         h("sort", Normal),       "sort: added → status → progress → ETA → task ID"),
    b(Watch,     N::Details,         "i",              A::ToggleDetail,      NO,                      "show or hide the selected task's details"),
    b(Watch,     N::PollNow,         "R",              A::PollNow,           h("poll now", Low),      "poll the selected task now"),
    b(Watch,     N::NextUnseen,      "n",              A::NextUnseen,        NO,                      "the next task that finished since you last looked at it (●); looking marks it seen"),
    b(Watch,     N::Label,           "e",              A::EditLabel,         NO,                      "edit the task's label (of every marked one); empty clears it"),
    b(Global,    N::Add,             "a",              A::OpenAddDialog,     h("add task", High),     "add tasks to the watch list"),
    b(Global,    N::SwitchPane,      "tab | backtab",  A::FocusNext,         h("switch pane", High),  "switch pane"),
    b(Global,    N::Up,              "up k",           A::Up,                NO,                      "move up"),
    b(Global,    N::Down,            "down j",         A::Down,              NO,                      "move down"),
    b(Global,    N::PageUp,          "pageup ctrl-b",  A::PageUp,            NO,                      "page up"),
    b(Global,    N::PageDown,        "pagedown ctrl-f", A::PageDown,         NO,                      "page down"),
    b(Global,    N::Top,             "home g",         A::Top,               NO,                      "jump to the top"),
    b(Global,    N::Bottom,          "end G",          A::Bottom,            NO,                      "jump to the bottom"),
    b(Global,    N::Help,            "?",              A::ToggleHelp,        h("help", Priority::Always), "show this help"),
    b(Global,    N::Palette,         ": ctrl-p",       A::OpenPalette,       NO,                      "the palette: find any action that runs here by name (fuzzy) and run it"),
    b(Global,    N::RequestLog,      "L",              A::ToggleRequests,    h("requests", Low),      "the request log: the last 500 requests and their answers"),
    b(Global,    N::Zoom,            "z",              A::Zoom,              h("zoom", Low),          "zoom the focused pane to the whole screen, or back"),
    b(Global,    N::ReloadConfig,    "ctrl-r",         A::ReloadConfig,      NO,                      "read the config file again and apply it (as SIGHUP does)"),
    b(Global,    N::Quit,            "q",              A::Quit,              h("quit", Priority::Always), "quit"),
    b(Always,    N::Interrupt,       "ctrl-c",         A::Quit,              NO,                      "quit"),
    b(Always,    N::Suspend,         "ctrl-z",         A::Suspend,           NO,                      "suspend to the shell (fg resumes)"),
    b(TextInput, N::Submit,          "enter",          A::Submit,            h("apply", High),        "apply and leave the field"),
    b(TextInput, N::Cancel,          "esc",            A::Cancel,            h("leave", High),        "leave the field; the filter or the search stays"),
    b(TextInput, N::PickPrevious,    "up ctrl-p",      A::PickPrevious,      NO,                      "filter: move the selection up (as in fzf); category: previous known one; search: previous match"),
    b(TextInput, N::PickNext,        "down ctrl-n",    A::PickNext,          NO,                      "filter: move the selection down; category: next known one; search: next match"),
    b(TextInput, N::PickPageUp,      "pageup",         A::PageUp,            NO,                      "the palette: move the pick up a page"),
    b(TextInput, N::PickPageDown,    "pagedown",       A::PageDown,          NO,                      "the palette: move the pick down a page"),
    b(TextInput, N::Backspace,       "backspace",      A::Backspace,         NO,                      "delete a character"),
    b(TextInput, N::ClearInput,      "ctrl-u",         A::ClearInput,        h("clear", Normal),      "clear the field"),
    b(AddDialog, N::Submit,          SHARED,           A::Submit,            h("add", High),          "add the tasks (several: separate by space, comma or newline)"),
    b(AddDialog, N::ImageVideo,      "tab | backtab",  A::ToggleKind,        h("image/video", Normal), "switch image / video"),
    b(AddDialog, N::Cancel,          SHARED,           A::Cancel,            h("cancel", High),       "cancel"),
    b(AddDialog, N::Backspace,       SHARED,           A::Backspace,         NO,                      "delete a character"),
    b(AddDialog, N::ClearInput,      SHARED,           A::ClearInput,        NO,                      "clear the field"),
    b(AddDialog, N::LabelField,      "down up",        A::PickNext,          NO,                      "move between the task IDs and the label field"),
    b(Requests,  N::CopyCurl,        "y",              A::CopyCurl,          h("copy as curl", High), "copy it as a curl command (token from $GENDASH_TOKEN)"),
    b(Requests,  N::CloseLog,        "esc L | q",      A::ToggleRequests,    h("close", Priority::Always), "close the request log"),
    b(Requests,  N::Search,          "/",              A::Search,            h("search", Normal),     "search the log: method, status, URL, error"),
    b(Requests,  N::NextMatch,       "n",              A::NextMatch(true),   NO,                      "the next match"),
    b(Requests,  N::PreviousMatch,   "N",              A::NextMatch(false),  NO,                      "the previous match"),
    b(Requests,  N::Up,              SHARED,           A::Up,                NO,                      "older request"),
    b(Requests,  N::Down,            SHARED,           A::Down,              NO,                      "newer request"),
    b(Requests,  N::PageUp,          SHARED,           A::PageUp,            NO,                      "page up"),
    b(Requests,  N::PageDown,        SHARED,           A::PageDown,          NO,                      "page down"),
    b(Requests,  N::Top,             SHARED,           A::Top,               NO,                      "the oldest request"),
    b(Requests,  N::Bottom,          SHARED,           A::Bottom,            NO,                      "the newest request (new ones are then followed)"),
    b(Help,      N::CloseHelp,       "esc ? | q",      A::ToggleHelp,        h("close", Priority::Always), "close the help"),
    b(Help,      N::Up,              SHARED,           A::Up,                NO,                      "scroll up"),
    b(Help,      N::Down,            SHARED,           A::Down,              NO,                      "scroll down"),
    b(Help,      N::PageUp,          SHARED,           A::PageUp,            NO,                      "page up"),
    b(Help,      N::PageDown,        SHARED,           A::PageDown,          NO,                      "page down"),
    b(Help,      N::Top,             SHARED,           A::Top,               NO,                      "the top"),
    b(Help,      N::Bottom,          SHARED,           A::Bottom,            NO,                      "the end"),
    b(Help,      N::Search,          SHARED,           A::Search,            h("search", Normal),     "search the help"),
    Row::Same(Help, Requests, N::NextMatch),
    Row::Same(Help, Requests, N::PreviousMatch),
    b(Watch,     N::Archive,         "H",              A::ToggleArchive,     h("archive", Low),       "the archive: finished tasks that left the watch list"),
    b(Archive,   N::CloseArchive,    "esc H q",        A::ToggleArchive,     h("back", Priority::Always), "back to the watch list"),
    Row::Same(Archive, Watch, N::Open),
    Row::Same(Archive, Watch, N::OpenFile),
    Row::Same(Archive, Watch, N::CopyUrl),
    Row::Same(Archive, Watch, N::CopyName),
    b(Archive,   N::Download,        SHARED,           A::Download,          h("download", Normal),   "download the file again to download_dir"),
    b(Archive,   N::WatchAgain,      "w",              A::WatchAgain,        h("watch again", Normal), "watch again: back to the watch list, out of the archive"),
    b(Archive,   N::Remove,          SHARED,           A::Remove,            h("delete", Normal),     "delete the task from the archive"),
    b(Archive,   N::Undo,            SHARED,           A::Undo,              h("undo", Low),          "undo the last delete; again undoes the one before"),
    b(Archive,   N::Filter,          SHARED,           A::FocusFilter,       h("filter", High),       "filter by ID, label, status, kind, service, dates (finished:>2026-11-01)"),
    b(Archive,   N::Sort,            SHARED,           A::CycleSort,         h("sort", Normal),       "sort: finished ↓ → added ↓ → task ID → status → label"),
    Row::Same(Archive, Global, N::Help),
    Row::Same(Archive, Global, N::Palette),
    Row::Same(Archive, Global, N::ReloadConfig),
    b(Archive,   N::Up,              SHARED,           A::Up,                NO,                      "move up"),
    b(Archive,   N::Down,            SHARED,           A::Down,              NO,                      "move down"),
    b(Archive,   N::PageUp,          SHARED,           A::PageUp,            NO,                      "page up"),
    b(Archive,   N::PageDown,        SHARED,           A::PageDown,          NO,                      "page down"),
    b(Archive,   N::Top,             SHARED,           A::Top,               NO,                      "the first row"),
    b(Archive,   N::Bottom,          SHARED,           A::Bottom,            NO,                      "the last row"),
    b(Browser,   N::Views,           "v",              A::OpenViews,         NO,                      "the saved views of the pane: pick one to apply, or delete one"),
    b(Browser,   N::SaveView,        "V",              A::SaveView,          NO,                      "save the filter, sort, type and category as a view (asks for a name)"),
    b(Watch,     N::Views,           SHARED,           A::OpenViews,         NO,                      "the saved views of the pane: pick one to apply, or delete one"),
    b(Watch,     N::SaveView,        SHARED,           A::SaveView,          NO,                      "save the filter and sort as a view (asks for a name)"),
    b(Archive,   N::Views,           SHARED,           A::OpenViews,         NO,                      "the saved views of the archive: pick one to apply, or delete one"),
    b(Archive,   N::SaveView,        SHARED,           A::SaveView,          NO,                      "save the filter and sort as a view (asks for a name)"),
    b(Views,     N::Submit,          SHARED,           A::Submit,            h("apply", High),        "apply the view"),
    b(Views,     N::Remove,          SHARED,           A::Remove,            h("delete", Normal),     "delete the view (asks first; a view of the config stays)"),
    b(Views,     N::Cancel,          SHARED,           A::Cancel,            h("close", Priority::Always), "close the list"),
    b(Views,     N::Up,              SHARED,           A::Up,                NO,                      "the view above"),
    b(Views,     N::Down,            SHARED,           A::Down,              NO,                      "the view below"),
    b(Watch,     N::Gallery,         "P",              A::ToggleGallery,     h("gallery", Low),       "the gallery: the list's results as a grid of pictures, or the list again"),
    Row::Same(Archive, Watch, N::Gallery),
    b(Gallery,   N::Left,            "h | left",       A::Left,              NO,                      "the tile to the left"),
    b(Gallery,   N::Right,           "l | right",      A::Right,             NO,                      "the tile to the right"),
];

/// The keys a table line writes: before `|` labelled, after it not. A mistake in the table
/// is a programming error, found by every test that builds the keymap.
fn parse_keys(text: &str) -> (Vec<KeyCombo>, Vec<KeyCombo>) {
    let (shown, quiet) = text.split_once('|').unwrap_or((text, ""));
    let parse = |part: &str| -> Vec<KeyCombo> {
        part.split_whitespace()
            .map(|k| {
                k.parse()
                    .unwrap_or_else(|e| panic!("the keymap's table: {e}"))
            })
            .collect()
    };
    (parse(shown), parse(quiet))
}

/// The built-in bindings, made once from the table.
pub(super) fn bindings() -> &'static Arc<[Binding]> {
    static BUILT: OnceLock<Arc<[Binding]>> = OnceLock::new();
    BUILT.get_or_init(|| {
        let mut built: Vec<Binding> = Vec::with_capacity(TABLE.len());
        for row in TABLE {
            let binding = match row {
                Row::Own(own) => own.binding(&built),
                Row::Same(context, from, name) => {
                    let source = built
                        .iter()
                        .find(|b| b.context == *from && b.name == *name)
                        .unwrap_or_else(|| panic!("the keymap's table: no {name} in {from:?}"));
                    Binding {
                        context: *context,
                        ..source.clone()
                    }
                }
            };
            built.push(binding);
        }
        built.into()
    })
}
