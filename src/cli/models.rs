//! `gendash models`: the catalogue, optionally filtered on the server (`--type`, `--cate`) and
//! fuzzy-matched locally (`--filter`).

use super::{CliResult, Global, client_from, output};
use crate::api::LoraType;
use crate::app::filter::FuzzyFilter;
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
}

pub async fn run(global: &Global, args: &ModelsArgs) -> CliResult {
    let settings = global.settings()?;
    let client = client_from(&settings)?;
    let catalogue = client
        .list_loras(args.lora_type.map(LoraType::from), args.cate.as_deref())
        .await?;
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
