//! `gendash watch add|list|rm`: the dashboard's watch list, edited from scripts. A running
//! dashboard picks the changes up within a couple of seconds.

use super::{CliResult, Failure, output};
use crate::api::TaskKind;
use crate::cli::exit;
use crate::store::watchlist::{StoreError, WatchEntry, WatchStore};
use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum WatchCommand {
    /// Add tasks to the watch list.
    Add {
        /// The tasks are video tasks (default: image).
        #[arg(long)]
        video: bool,
        #[arg(required = true, value_name = "TASK_ID")]
        ids: Vec<String>,
    },
    /// Print the watch list.
    List {
        /// A JSON array.
        #[arg(long)]
        json: bool,
    },
    /// Remove tasks (of either kind) from the watch list.
    Rm {
        #[arg(required = true, value_name = "TASK_ID")]
        ids: Vec<String>,
    },
    /// Test support (see `testing`): saves FILE over and over, alternating two lists, so a test can kill the
    /// process mid-save and check the file is always one whole list.
    #[command(hide = true)]
    StressSave {
        file: std::path::PathBuf,
        #[arg(long, default_value_t = 1000)]
        rounds: u32,
    },
}

impl From<StoreError> for Failure {
    fn from(e: StoreError) -> Self {
        Failure::new(exit::OTHER, e.to_string())
    }
}

fn tell_set_aside(loaded: &crate::store::watchlist::Loaded) {
    if let Some(p) = &loaded.set_aside {
        eprintln!(
            "gendash: the watch list could not be read and was set aside as {}",
            p.display()
        );
    }
}

pub fn run(cmd: &WatchCommand) -> CliResult {
    let store = WatchStore::new(WatchStore::default_path());
    match cmd {
        WatchCommand::Add { video, ids } => {
            let kind = TaskKind::from_video_flag(*video);
            for id in ids {
                crate::api::client::validate_task_id(id)
                    .map_err(|e| Failure::new(exit::USAGE, e.to_string()))?;
            }
            let loaded = store.update(|list| {
                for id in ids {
                    let entry = WatchEntry::new(id.clone(), kind);
                    if !list.iter().any(|e| e.same_task(&entry)) {
                        list.push(entry);
                    }
                }
            })?;
            tell_set_aside(&loaded);
        }
        WatchCommand::List { json } => {
            let loaded = store.load()?;
            tell_set_aside(&loaded);
            if *json {
                let v = serde_json::to_value(&loaded.entries)
                    .map_err(|e| Failure::new(exit::OTHER, e.to_string()))?;
                output::json_line(v);
            } else {
                for e in &loaded.entries {
                    let (status, percent) = e
                        .last
                        .as_ref()
                        .map_or(("(not polled yet)", 0), |l| (l.status.as_str(), l.percent));
                    output::line(&format!(
                        "{:<5}  {}  {}  {percent}%",
                        e.kind.as_str(),
                        e.task_id,
                        status
                    ));
                }
            }
        }
        WatchCommand::StressSave { file, rounds } => crate::testing::stress_save(file, *rounds)?,
        WatchCommand::Rm { ids } => {
            let mut missing = Vec::new();
            let loaded = store.update(|list| {
                for id in ids {
                    let before = list.len();
                    list.retain(|e| &e.task_id != id);
                    if list.len() == before {
                        missing.push(id.clone());
                    }
                }
            })?;
            tell_set_aside(&loaded);
            if !missing.is_empty() {
                return Err(Failure::new(
                    exit::NOT_FOUND,
                    format!("not in the watch list: {}", missing.join(", ")),
                ));
            }
        }
    }
    Ok(exit::OK)
}
