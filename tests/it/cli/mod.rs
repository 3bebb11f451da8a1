//! The real `gendash` binary as scripts meet it: subcommands, output and JSON shapes, exit
//! codes, where features meet on the command line, the watch list file and its durability.

mod catalogue_cap;
mod catalogue_diff;
mod cli_seams;
mod commands;
mod config_schema;
mod doctor;
mod durability;
mod extra_fields;
mod fitting;
mod history;
mod local_date;
mod promises;
mod prompt;
mod run_action;
mod saved_views;
mod sidecar;
mod stats;
mod watch_ids;
mod watch_list;
