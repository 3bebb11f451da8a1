//! The fixtures of the reducers' tests, shared by the test modules beside each reducer: a
//! `State` at a fixed clock, watch entries, poll answers, keys as the event loop resolves them.
//! Everything a test module needs comes with `use crate::app::test_support::*;`.

pub(crate) use crate::api::types::default_failure_statuses;
pub(crate) use crate::api::{ApiError, Catalogue, LoraEntry, TaskKind, TaskResult};
pub(crate) use crate::app::action::Action;
pub(crate) use crate::app::state::*;
pub(crate) use crate::app::watch::new_entry;
pub(crate) use crate::cmd::{
    ArchiveOp, CatalogueRequest, Cmd, PersistOp, PollCmd, RankJob, TaskKey,
};
pub(crate) use crate::msg::Msg;
pub(crate) use crate::msg::{CopiedVia, DownloadEvent};
pub(crate) use crate::store::watchlist::LastKnown;
pub(crate) use crate::store::watchlist::WatchEntry;
pub(crate) use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
pub(crate) use std::sync::Arc;
pub(crate) use std::time::Duration;

pub(crate) const NOW: u64 = 1_700_000_000;

// ---- fixtures -------------------------------------------------------------------------------

pub(crate) fn ui(bell: bool, desktop_notifications: bool) -> UiSettings {
    UiSettings {
        bell,
        desktop_notifications,
        no_color: false,
        poll_interval: crate::store::config::DEFAULT_POLL_INTERVAL.as_secs(),
    }
}

/// A state at `NOW` with these entries and settings, the initial redraw already done.
pub(crate) fn state_with(entries: Vec<WatchEntry>, settings: UiSettings) -> State {
    let mut s = State::new(Init {
        service_url: "http://127.0.0.1:8787".into(),
        categories: vec!["style".into()],
        watch: entries,
        failure_statuses: default_failure_statuses(),
        settings,
        now: NOW,
        ..Init::default()
    });
    s.dirty = false;
    s
}

/// One running task (`w-1`, last seen at 40%), bell and notifications on.
pub(crate) fn state() -> State {
    state_with(
        vec![entry("w-1", Some(("IN_PROGRESS", 40)))],
        ui(true, true),
    )
}

/// An image task added 30 s ago, with this last known status (as a poll would have saved it).
pub(crate) fn entry(id: &str, last: Option<(&str, u8)>) -> WatchEntry {
    WatchEntry {
        task_id: id.into(),
        kind: TaskKind::Image,
        added_at: NOW - 30,
        service: None,
        saved: None,
        auto_download: None,
        trouble: None,
        claimed_by: None,
        polled_by: None,
        label: None,
        seen: None,
        last: last.map(|(status, percent)| LastKnown {
            status: status.into(),
            percent,
            url_download: download_url(id, status),
            updated_at: NOW - 10,
            ..LastKnown::default()
        }),
    }
}

pub(crate) fn image(id: &str) -> TaskKey {
    TaskKey::new(TaskKind::Image, id)
}

pub(crate) use crate::testing::{download_url, task_result as result};

pub(crate) fn polled(id: &str, result: Result<TaskResult, ApiError>) -> Msg {
    Msg::Polled {
        key: image(id),
        result,
        retry_in: None,
        next: None,
    }
}

pub(crate) fn ok_poll(id: &str, status: &str, percent: u8) -> Msg {
    polled(id, Ok(result(id, status, percent)))
}

pub(crate) fn catalogue(generation: u64, result: Result<Catalogue, ApiError>) -> Msg {
    Msg::Catalogue {
        generation,
        result: result.map(Into::into),
    }
}

pub(crate) fn http(status: u16) -> ApiError {
    ApiError::Http {
        status,
        excerpt: "body".into(),
        retry_after: None,
    }
}

pub(crate) fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

pub(crate) fn ch(c: char) -> KeyEvent {
    key(KeyCode::Char(c))
}

pub(crate) fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

/// A key as the event loop handles it: resolved in the current contexts, then reduced.
pub(crate) fn press(s: &mut State, k: KeyEvent) -> (Option<Action>, Vec<Cmd>) {
    let action = Keymap::default().resolve(&s.contexts(), &k);
    let cmds = action.clone().map(|a| s.update(a)).unwrap_or_default();
    (action, cmds)
}

/// The commands by name, for compact tables.
pub(crate) fn kinds(cmds: &[Cmd]) -> Vec<&'static str> {
    cmds.iter()
        .map(|c| match c {
            Cmd::FetchCatalogue(CatalogueRequest { .. }) => "FetchCatalogue",
            Cmd::Poll(PollCmd::Watch(..)) => "Watch",
            Cmd::Poll(PollCmd::Unwatch(_)) => "Unwatch",
            Cmd::Poll(PollCmd::PollNow(_)) => "PollNow",
            Cmd::Poll(PollCmd::Prefer(_)) => "Prefer",
            Cmd::Poll(PollCmd::Settings(_)) => "PollSettings",
            Cmd::ReloadConfig => "ReloadConfig",
            Cmd::Configure(_) => "Configure",
            Cmd::Services(_) => "Services",
            Cmd::Persist(PersistOp::Add(_)) => "Persist(Add)",
            Cmd::Persist(PersistOp::Remove(_)) => "Persist(Remove)",
            Cmd::Persist(PersistOp::Status(..)) => "Persist(Status)",
            Cmd::Persist(PersistOp::Adopt(_)) => "Persist(Adopt)",
            Cmd::Persist(PersistOp::Saved(..)) => "Persist(Saved)",
            Cmd::Persist(PersistOp::AutoDownload(..)) => "Persist(AutoDownload)",
            Cmd::Persist(PersistOp::Trouble(..)) => "Persist(Trouble)",
            Cmd::Persist(PersistOp::Claim(_)) => "Persist(Claim)",
            Cmd::Persist(PersistOp::Seen(..)) => "Persist(Seen)",
            Cmd::Persist(PersistOp::Label(..)) => "Persist(Label)",
            Cmd::Open(_) => "Open",
            Cmd::OpenFile(_) => "OpenFile",
            Cmd::Copy(_) => "Copy",
            Cmd::CopyToTerminal { .. } => "CopyToTerminal",
            Cmd::Download(_) => "Download",
            Cmd::Notify { .. } => "Notify",
            Cmd::RememberCategories(_) => "RememberCategories",
            Cmd::RememberSort(_) => "RememberSort",
            Cmd::RememberFavourites(_) => "RememberFavourites",
            Cmd::Views(_) => "Views",
            Cmd::Preview(_) => "Preview",
            Cmd::ModelPreview(_) => "ModelPreview",
            Cmd::Thumbnails(_) => "Thumbnails",
            Cmd::Finished(_) => "Finished",
            Cmd::Rank(RankJob { .. }) => "Rank",
            Cmd::Compare(_) => "Compare",
            Cmd::Bell => "Bell",
            Cmd::AllDone(_) => "AllDone",
            Cmd::Archive(ArchiveOp::Load) => "Archive(Load)",
            Cmd::Archive(ArchiveOp::Get(_)) => "Archive(Get)",
            Cmd::Archive(ArchiveOp::Delete(_)) => "Archive(Delete)",
            Cmd::Archive(ArchiveOp::Restore(_)) => "Archive(Restore)",
            Cmd::Archive(ArchiveOp::Unarchive(_)) => "Archive(Unarchive)",
            Cmd::Archive(ArchiveOp::Saved(..)) => "Archive(Saved)",
            Cmd::RunAction(_) => "RunAction",
        })
        .collect()
}

/// The status bar's notice, if one is shown.
pub(crate) fn notice(s: &State) -> Option<&str> {
    s.notice.as_ref().map(|n| n.text.as_str())
}

pub(crate) fn row_ids(s: &State) -> Vec<&str> {
    s.watch
        .rows
        .iter()
        .map(|r| r.entry.task_id.as_str())
        .collect()
}

/// A poll of `id`, then the answer to the claim it made (if it made one): `won` as the watch
/// list file gave it, then the tick that closes the notification window. Every command of
/// them, in order.
pub(crate) fn finish(s: &mut State, id: &str, status: &str, percent: u8, won: bool) -> Vec<Cmd> {
    let mut cmds = finish_unticked(s, id, status, percent, won);
    let closes = s.now + crate::app::watch::notify::WINDOW;
    cmds.extend(s.apply(Msg::Tick(closes)));
    cmds
}

/// As `finish`, without the tick: the notices still wait for their window.
pub(crate) fn finish_unticked(
    s: &mut State,
    id: &str,
    status: &str,
    percent: u8,
    won: bool,
) -> Vec<Cmd> {
    let mut cmds = s.apply(ok_poll(id, status, percent));
    let claimed: Vec<TaskKey> = cmds
        .iter()
        .filter_map(|c| match c {
            Cmd::Persist(PersistOp::Claim(key)) => Some(key.clone()),
            _ => None,
        })
        .collect();
    let claims = !claimed.is_empty();
    for key in claimed {
        cmds.extend(s.apply(Msg::Claimed { key, won }));
    }
    // As the saver says after the write of those claims: nothing runs any more, and the write
    // that made it so was this dashboard's when it won.
    if claims && !s.watch.rows.iter().any(crate::app::watch::notify::runs) {
        cmds.extend(s.apply(Msg::RunEnded { here: won }));
    }
    cmds
}

pub(crate) type Setup = fn(&mut State);

pub(crate) fn download_of(cmds: &[Cmd]) -> Option<(String, bool)> {
    cmds.iter().find_map(|c| match c {
        Cmd::Download(crate::cmd::DownloadJob {
            key, status, force, ..
        }) => Some((format!("{} {status}", key.id), *force)),
        _ => None,
    })
}

/// The fetch among `cmds`, without its generation: what it asks the service for.
pub(crate) fn fetched(cmds: &[Cmd]) -> Vec<(Option<crate::api::LoraType>, Option<String>)> {
    cmds.iter()
        .filter_map(|c| match c {
            Cmd::FetchCatalogue(CatalogueRequest {
                lora_type, cate, ..
            }) => Some((*lora_type, cate.clone())),
            _ => None,
        })
        .collect()
}
