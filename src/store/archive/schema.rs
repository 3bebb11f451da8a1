//! The archive's tables, and how an older file is brought up to date.

/// The schema version this build writes (`PRAGMA user_version`). A file with a higher one was
/// written by a newer gendash: it is left alone, with an error naming it.
pub const VERSION: i64 = 1;

/// Creates the tables on an empty file (version 0). The columns the archive is searched,
/// sorted and kept unique by are columns, and so are the few numbers the list shows, so the
/// whole list reads without decoding any JSON; everything the watch list knew is the entry's
/// JSON (without its status history, which has its own column), which `get` reads.
pub const CREATE: &str = "
CREATE TABLE IF NOT EXISTS tasks (
    id          INTEGER PRIMARY KEY,
    service     TEXT    NOT NULL,
    kind        TEXT    NOT NULL,
    task_id     TEXT    NOT NULL,
    status      TEXT    NOT NULL,
    finished_at INTEGER NOT NULL,
    added_at    INTEGER NOT NULL,
    archived_at INTEGER NOT NULL,
    label       TEXT,
    saved       TEXT,
    url         TEXT,
    entry       TEXT    NOT NULL,
    history     TEXT    NOT NULL DEFAULT '[]',
    percent     INTEGER,
    updated_at  INTEGER,
    running_since INTEGER,
    seen_finished INTEGER,
    start_seen  INTEGER NOT NULL DEFAULT 0,
    seen        INTEGER,
    UNIQUE (service, kind, task_id)
);
CREATE INDEX IF NOT EXISTS tasks_finished ON tasks (finished_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS tasks_status ON tasks (status);
CREATE INDEX IF NOT EXISTS tasks_added ON tasks (added_at);
CREATE INDEX IF NOT EXISTS tasks_label ON tasks (label);
CREATE INDEX IF NOT EXISTS tasks_saved ON tasks (saved);
CREATE INDEX IF NOT EXISTS tasks_url ON tasks (url);
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
";

/// The meta row that says the watch list's finished tasks were copied in (once, ever).
pub const MIGRATED: &str = "watchlist_imported_at";
