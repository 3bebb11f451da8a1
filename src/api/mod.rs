//! The service contract: typed client, response types, errors, sanitiser, link checks, retry
//! timing and the download engine.

pub mod backoff;
pub mod client;
pub mod download;
pub mod error;
pub mod links;
pub mod sanitize;
pub mod types;

pub use client::{Client, ClientOptions};
pub use error::ApiError;
pub use types::{Catalogue, LoraEntry, LoraType, TaskKind, TaskResult, TaskState};
