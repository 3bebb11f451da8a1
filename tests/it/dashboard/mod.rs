//! The dashboard as users meet it: the real binary in a pseudo-terminal (keys in, screen out,
//! terminal restored) against the reference service.

mod all_done;
mod all_done_unpolled;
mod archive;
mod cadence;
mod conventions;
mod degrade;
mod e2e;
mod first_keys;
mod focus;
mod gallery;
mod given_up;
mod health;
mod keys;
mod notices;
mod offline;
mod opening;
mod own_actions;
mod pacing;
mod palette;
mod plain;
mod progress;
mod prompt;
mod reload;
mod seen;
mod services;
mod shared_files;
mod signals;
mod slow_file;
mod terminal;
mod views;
