//! What gendash keeps on disk: configuration, the watch list, recent categories, the preview
//! cache.

pub mod atomic;
pub mod cache;
pub mod catalogue;
pub mod config;
pub mod dashboards;
pub mod favourites;
pub mod paths;
pub mod recent;
pub mod watchlist;
