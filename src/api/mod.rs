//! The service contract: typed client, response types, errors, sanitiser, link checks, retry
//! timing, the download engine, one transport layer under both (how https is verified, and the
//! lane that sends the service's calls under reqwest's layers), and the token's secret type.
//! It depends on no other module of the crate, so it could be a crate of its own.

pub mod backoff;
pub mod client;
pub mod direct;
pub mod download;
pub mod entry;
pub mod error;
pub mod extra;
pub mod http;
pub mod links;
pub mod listing;
pub mod prompt;
pub mod recording;
pub mod sanitize;
pub mod search;
pub mod secret;
pub mod tls;
pub mod types;

pub use client::{Client, ClientOptions};
pub use error::ApiError;
pub use extra::ExtraFields;
pub use listing::Listing;
pub use search::SearchText;
pub use secret::Secret;
pub use types::{Catalogue, LoraEntry, LoraType, TaskKind, TaskResult, TaskState};
