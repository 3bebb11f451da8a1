//! What gendash keeps on disk: configuration, the watch list, recent categories, the preview
//! cache; and how the programs the configuration names are run (`program`).

pub mod archive;
pub mod atomic;
pub mod cache;
pub mod catalogue_cache;
pub mod config;
pub mod dashboards;
pub mod favourites_file;
pub mod paths;
pub mod program;
pub mod recent;
pub mod sidecar;
pub mod thumb_cache;
pub mod views_file;
pub mod watchlist;
