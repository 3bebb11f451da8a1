//! The API layer and the reference service over real loopback HTTP: the client's contract,
//! downloads and resume, the request log as the transport fills it, what crosses the wire
//! (tokens, bodies), https verification, hostile services, and the service's own conformance and `OpenAPI` document.

mod conformance;
mod contract;
mod download;
mod extra_fields;
mod hardening;
mod idna;
mod model_pictures;
mod openapi;
mod request_log;
mod service_switches;
mod tls;
mod wire;
