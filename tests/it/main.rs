//! Every integration test in one binary, so the dependency tree is linked once, grouped by the
//! feature it proves. Each drives the product as users meet it: the API over loopback against
//! the reference service, the CLI and the dashboard as real processes (the dashboard in a
//! pseudo-terminal), the views on ratatui's `TestBackend`. The reducers' own tests are unit
//! tests beside them in `src/app/`.
//!
//! Where each behaviour is proved:
//!
//! | behaviour | tests |
//! |---|---|
//! | the client speaks the spec: paths, prefixes, envelopes, errors, timeouts, retries | `api::contract` |
//! | the reference service is the spec, checked from outside | `api::conformance`, `api::openapi`, `.ci/conformance` |
//! | downloads resume (`Range`/`If-Range`, 206, `len - N` bytes) and never keep half a file | `api::download` |
//! | the token goes only to its service's origin; request bodies are empty | `api::wire`, `dashboard::services` |
//! | hostile strings never command the terminal; the token leaks nowhere | `api::hardening` |
//! | every request is in the request log, downloads without the token marked | `api::request_log`, `api::wire` |
//! | the reference service's switches for measuring a client: `--latency`, `--capacity`, tasks on an injected clock, faulty IDs, the request counts | `api::service_switches` |
//! | subcommands: output, JSON, exit codes (the first error wins) | `cli::commands`, `cli::cli_seams`, `cli::promises` |
//! | the watch list: `watch add`, refused IDs, the status history kept to 20 | `cli::watch_list`, `cli::promises` |
//! | the watch list survives kill -9, bad files, two writers, full disks | `cli::durability` |
//! | `{date}` is the local date in the dashboard and the CLI | `cli::local_date` |
//! | `models --diff`: what changed since the cached catalogue, and the cache updated as a load does | `cli::catalogue_diff` |
//! | `config schema`: the JSON Schema holds every key the parser takes and its enums; what the parser refuses does not validate | `cli::config_schema` |
//! | the archive: `watch rm` and the remove key move finished tasks there (undo takes them back), `history` prints it; SIGKILL or two writers lose no task | `cli::history` |
//! | `sidecar = true`: the provenance file matches the wire (SHA-256, URL, `ETag`), never holds the token, never sits beside an incomplete file | `cli::sidecar` |
//! | labels (`watch add --label`, `watch list`, `{label}`), new-task marks, and `stats` (and `--json`) figures from the file | `cli::stats` |
//! | the dashboard starts, polls, adds, filters, quits, restores the terminal | `dashboard::e2e`, `dashboard::signals` |
//! | a sick or gone service degrades the dashboard, never kills it; offline uses the cache | `dashboard::degrade`, `dashboard::offline` |
//! | `[keys]` rebound: every hint and message names the bound key | `dashboard::keys` |
//! | a finished task notifies once, runs `on_complete`, downloads; two dashboards share | `dashboard::notices` |
//! | opening and copying; several services in one list | `dashboard::opening`, `dashboard::services` |
//! | the config's theme on screen; a killed hook is gone | `dashboard::seen` |
//! | a terminal that never answers still gets the dashboard | `dashboard::terminal` |
//! | keys typed at the start, while the terminal is asked about graphics, all arrive, in order, apart from its replies | `dashboard::first_keys` |
//! | the adaptive poller on screen: requests per second, polls in flight, the detail's next poll and why | `dashboard::cadence`, `views::cadence` |
//! | the list's progress (OSC 9;4) and the window title, undone on exit and suspend; `notify = "batch"` and `on_all_done` | `dashboard::progress` |
//! | plain mode: every line command, one line per change, text only (SGR colours when asked), `TERM=dumb` selects it | `dashboard::plain` |
//! | the archive view (`H`): a removed finished task is found there; its list, detail, filter and empty state | `dashboard::archive`, `views::archive` |
//! | the views at every size and state, snapshots, contrast, previews, the README screenshot | `views`, `views::contrast`, `views::preview`, `views::looks` |
//! | the watch pane's new tasks, labels, `all done ~08:01+` and slower than usual; the label editor | `views::news` |
//! | the browser's marks of what changed since the cached copy (`+`, `~`, the counts, the detail) and the sort by field | `views::catalogue_marks` |
//! | saved things load back the same; fuzz inputs replayed | `properties::invariants`, `properties::fuzz_corpora` |
//! | the layers point one way, with no cycle | `architecture` |
#![allow(clippy::unwrap_used)]

mod common;

mod api;
mod architecture;
mod cli;
mod dashboard;
mod properties;
mod views;
