//! `gendash models`: the catalogue, optionally filtered on the server (`--type`, `--cate`) and
//! fuzzy-matched locally (`--filter`).

use super::{CliResult, Failure, Global, client_from, exit, output};
use crate::api::LoraType;
use crate::app::filter::FuzzyFilter;
use crate::store::catalogue::{CatalogueCache, Key};
use crate::store::watchlist::{service_key, unix_now};
use serde_json::Value;

/// The spec's base-model types, as the command line spells them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TypeArg {
    Sd,
    Sdxl,
}

impl From<TypeArg> for LoraType {
    fn from(t: TypeArg) -> Self {
        match t {
            TypeArg::Sd => LoraType::Sd,
            TypeArg::Sdxl => LoraType::Sdxl,
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct ModelsArgs {
    /// Only models of this base-model type (sent to the service).
    #[arg(long = "type", value_enum, ignore_case = true)]
    pub lora_type: Option<TypeArg>,
    /// Only models in this category (sent to the service; free text).
    #[arg(long)]
    pub cate: Option<String>,
    /// Local fuzzy match on model names, best match first.
    #[arg(long)]
    pub filter: Option<String>,
    /// Print a JSON array of the entries as served.
    #[arg(long)]
    pub json: bool,
    /// Read the catalogue last loaded for this service, type and category from the cache
    /// instead of the network (its age is said on stderr).
    #[arg(long)]
    pub offline: bool,
}

pub async fn run(global: &Global, args: &ModelsArgs) -> CliResult {
    let settings = global.settings()?;
    let client = client_from(&settings)?;
    let lora_type = args.lora_type.map(LoraType::from);
    let key = Key::new(
        &service_key(client.base_url()),
        lora_type,
        args.cate.as_deref(),
    );
    let cache = CatalogueCache::new(CatalogueCache::default_dir());
    let catalogue = if args.offline {
        let cached = blocking(move || cache.load(&key).ok_or(key)).await?;
        match cached {
            Ok(c) => {
                eprintln!(
                    "offline: the catalogue cached {}",
                    crate::app::browser::age(unix_now().saturating_sub(c.saved_at))
                );
                c.catalogue
            }
            Err(key) => {
                return Err(Failure::new(
                    exit::NOT_FOUND,
                    format!(
                        "no cached catalogue for {} (type {}, category {}); run `gendash models` \
                         once with the service reachable",
                        key.service,
                        key.type_label(),
                        key.cate_label()
                    ),
                ));
            }
        }
    } else {
        let catalogue = client.list_loras(lora_type, args.cate.as_deref()).await?;
        // The dashboard and `--offline` start from it; a cache that cannot be written costs
        // nothing here.
        let copy = catalogue.clone();
        let _ = blocking(move || cache.save(&key, &copy, unix_now())).await;
        catalogue
    };
    let order: Vec<usize> = match args.filter.as_deref() {
        Some(q) => FuzzyFilter::new()
            .rank(q, catalogue.entries.iter().map(|e| e.model.as_str()))
            .into_iter()
            .map(|r| r.index as usize)
            .collect(),
        None => (0..catalogue.entries.len()).collect(),
    };
    if args.json {
        let items: Vec<Value> = order
            .iter()
            .map(|&i| {
                let e = &catalogue.entries[i];
                serde_json::json!({"model": e.model, "metadata": e.metadata()})
            })
            .collect();
        output::json_line(Value::Array(items));
    } else {
        let width = order
            .iter()
            .map(|&i| catalogue.entries[i].model.chars().count())
            .max()
            .unwrap_or(5)
            .clamp(5, 40);
        output::line(&format!(
            "{}  {:<5}  {:<12}  SOURCE",
            output::fit("MODEL", width),
            "TYPE",
            "CATEGORY"
        ));
        for &i in &order {
            let e = &catalogue.entries[i];
            output::line(&format!(
                "{}  {:<5}  {}  {}",
                output::fit(&e.model, width),
                e.lora_type().unwrap_or(""),
                output::fit(e.category().unwrap_or(""), 12),
                e.source().unwrap_or("-")
            ));
        }
        let skipped = if catalogue.skipped > 0 {
            format!(
                " ({} entries could not be read and were skipped)",
                catalogue.skipped
            )
        } else {
            String::new()
        };
        eprintln!(
            "{} of {} models{skipped}",
            order.len(),
            catalogue.entries.len()
        );
    }
    Ok(crate::cli::exit::OK)
}

/// Runs file work off the async thread.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Failure> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| Failure::new(exit::OTHER, format!("the cache could not be read: {e}")))
}
