//! Configuration: a TOML file with optional `[profiles.NAME]` tables, environment variables and
//! flags, resolved with the precedence flags > environment > profile > top level. Every
//! resolved value remembers where it came from, for `gendash config show`.
//!
//! `schema`: every key, declared once (`declare`: how that declaration becomes the types and
//! the table below); `values`: the checked value types; `file`: the parser (errors name the
//! file, line and key); `resolve`: the precedence, a loop over the keys; `token`: the token's
//! sources; `describe`: `config show` and the manual's key list; `refused`: why it cannot be used;
//! `common`: what they all share (the sources of a value, the overrides, the environment's
//! lookup).

mod actions;
mod appearance;
mod base16;
mod changed;
mod common;
mod declare;
mod describe;
mod file;
mod refused;
mod resolve;
mod schema;
mod token;
mod values;
mod view_table;

pub use actions::{
    ActionError, DEFAULT_ACTION_TIMEOUT, Expansion, Fill, ModelRow, OwnAction, Plural, Runs, Scope,
    Skipped, TaskRow, expand,
};
pub use appearance::{
    ACTION_NAMES, ActionName, KeyCombo, KeyNameError, STYLE_NAMES, StyleError, ThemeName,
    UnknownAction,
};
pub use base16::{Base16, Base16Colours, SchemeError, SchemeFile};
pub use common::{
    DEFAULT_MAX_CONCURRENT_POLLS, DEFAULT_MAX_POLL_INTERVAL, DEFAULT_POLL_INTERVAL,
    DEFAULT_STALL_AFTER, EnvLookup, Overrides, Source, TokenOrigin, process_env,
};
pub use declare::{Key, Layered, Show};
pub use describe::{JSON_SCHEMA_DIALECT, KEY_TABLE_BEGIN, KEY_TABLE_END, json_schema, key_table};
pub use file::{config_path, declared_keys, nearest, parse};
pub use refused::{ConfigError, Mismatch, Outside, Place, TokenLevel};
pub use resolve::{
    Configured, configured_services, profile_names, resolve, resolve_from, resolve_service,
};
pub use schema::{ALL_DONE_PLACEHOLDERS, AllDoneHook, CATALOGUE_CAP_KEY, NotifyPolicy};
pub use schema::{FileSettings, KEYS, NAMES, Settings};
pub use token::{default_token_file, loose_permissions, write_token_file};
pub use values::{
    BaseUrl, CommandSpec, HOOK_PLACEHOLDERS, Hook, ImagePreview, POLL_FLOOR, PollSeconds, Seconds,
    ValueError, check_seconds, fill,
};
pub use view_table::{
    ConfiguredView, MAX_VIEW_NAME, ViewNameError, ViewPane, ViewSpec, ViewsTable, check_view_name,
};

#[cfg(test)]
mod tests;
