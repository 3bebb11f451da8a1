//! What gendash keeps on disk: configuration, the token's secret type, the watch list.

pub mod atomic;
pub mod config;
pub mod paths;
pub mod secret;
pub mod watchlist;
