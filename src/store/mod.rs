//! What gendash keeps on disk: configuration, the watch list, recent categories.

pub mod atomic;
pub mod config;
pub mod paths;
pub mod recent;
pub mod watchlist;
