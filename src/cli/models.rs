//! `gendash models`: the catalogue, optionally filtered on the server (`--type`, `--cate`) and
//! matched locally (`--filter`, the dashboard's filter language). The filter's `type:` and
//! `cate:` terms are `--type` and `--cate` (giving both, they must agree).

use super::{CliResult, Failure, Global, client_from, exit, output};
use crate::api::{LoraType, SearchText};
use crate::filter::{FuzzyFilter, Issue, Query, Scope};
use crate::store::catalogue_cache::{CatalogueCache, Key};
use crate::store::watchlist::{service_key, unix_now};
use serde_json::Value;
use std::io::Write;

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

// Each bool is a flag of its own, as the command line has them.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, clap::Args)]
pub struct ModelsArgs {
    /// Only models of this base-model type (sent to the service).
    #[arg(long = "type", value_enum, ignore_case = true)]
    pub lora_type: Option<TypeArg>,
    /// Only models in this category (sent to the service; free text).
    #[arg(long)]
    pub cate: Option<String>,
    /// Local match, best first, in the dashboard's filter language: fuzzy words, 'exact,
    /// ^prefix, suffix$, !not, a | b, key:value on the metadata (author:, base:, license:, …);
    /// type: and cate: are --type and --cate.
    #[arg(long)]
    pub filter: Option<String>,
    /// Print a JSON array of the entries as served.
    #[arg(long)]
    pub json: bool,
    #[arg(
        long,
        conflicts_with_all = ["json", "diff"],
        help = "Print the models (those --filter matches, best first) as one prompt on one line: \
                each as the config's prompt_template makes it (default <lora:{model}:{weight}> \
                {trigger_words}), joined by \", \"; nothing matched is exit 4"
    )]
    pub prompt: bool,
    /// Read the catalogue last loaded for this service, type and category from the cache
    /// instead of the network (its age is said on stderr); without one, a copy cached for
    /// broader filters (type all, any category), narrowed here.
    #[arg(long)]
    pub offline: bool,
    #[arg(
        long,
        conflicts_with = "offline",
        help = "Print what changed since the copy cached by the last load (the dashboard's or this \
                command's): new models (+), changed ones (~, with what changed) and those gone (-). \
                The fresh catalogue then becomes the cached copy, as any load makes it. With \
                --json, one object: {\"new\":[names], \"changed\":[{\"name\", \"changes\":\
                [{\"field\",\"before\",\"after\"}]}], \"gone\":[names], \"cached_at\": seconds \
                since the epoch or null}"
    )]
    pub diff: bool,
}

/// What to ask the service for: `--type` and `--cate`, or the filter's `type:` and `cate:`
/// terms (finished or not: the command line is whole). A bad term, or a term and a flag that
/// disagree, is a usage error.
pub fn request(args: &ModelsArgs) -> Result<(Option<LoraType>, Option<String>), Failure> {
    // The dashboard ignores what it cannot use and says so; here it is an error instead.
    let usage = |m: String| Failure::new(exit::USAGE, format!("--filter: {m}"));
    let flag_type = args.lora_type.map(LoraType::from);
    let flag_cate = args.cate.clone();
    let Some(filter) = args.filter.as_deref() else {
        return Ok((flag_type, flag_cate));
    };
    let query = Query::parse(filter);
    // The fields are known once the catalogue is in (`refuse_unknown_fields`).
    if let Some(issue) = query.issues(&Scope::MODELS, |_| None).first() {
        let hint = match issue {
            Issue::FlagNotHere { .. } => "; --diff lists what is new or changed",
            _ => "",
        };
        return Err(usage(format!("{issue}{hint}")));
    }
    let lora_type = match query.lora_type.map(|t| t.value) {
        None => flag_type,
        Some(Err(e)) => return Err(usage(e.to_string())),
        Some(Ok(t)) if args.lora_type.is_some() && t != flag_type => {
            return Err(usage(format!(
                "type:{} and --type {} disagree; give one",
                t.map_or("all", LoraType::as_str),
                flag_type.map_or("", LoraType::as_str)
            )));
        }
        Some(Ok(t)) => t,
    };
    let cate = match query.cate.map(|c| c.value.trim().to_string()) {
        None => flag_cate,
        Some(c) if flag_cate.as_ref().is_some_and(|f| *f != c) => {
            return Err(usage(format!(
                "cate:{c} and --cate {} disagree; give one",
                flag_cate.unwrap_or_default()
            )));
        }
        Some(c) => Some(c).filter(|c| !c.is_empty()),
    };
    Ok((lora_type, cate))
}

/// A usage error naming the filter's first field that no model of `text` has (it would match
/// nothing); an empty catalogue tells nothing of its fields.
fn refuse_unknown_fields(filter: &str, text: &SearchText) -> Result<(), Failure> {
    if text.is_empty() {
        return Ok(());
    }
    let fields = text.fields();
    let issues =
        Query::parse(filter).issues(&Scope::MODELS, |key| Some(fields.column(key).is_some()));
    match issues.first() {
        Some(issue) => Err(Failure::new(exit::USAGE, format!("--filter: {issue}"))),
        None => Ok(()),
    }
}

/// The entries `filter` keeps, best first (all, in order, without one).
fn matches(filter: Option<&str>, entries: &[crate::api::LoraEntry]) -> Result<Vec<usize>, Failure> {
    let Some(q) = filter else {
        return Ok((0..entries.len()).collect());
    };
    let text = SearchText::new(entries.to_vec().into());
    refuse_unknown_fields(q, &text)?;
    let ranked = FuzzyFilter::new().rank_text(q, &text);
    Ok(ranked.into_iter().map(|r| r.index as usize).collect())
}

pub async fn run(global: &Global, args: &ModelsArgs) -> CliResult {
    let (lora_type, cate) = request(args)?;
    let settings = global.settings()?;
    let client = client_from(&settings)?;
    let key = Key::new(&service_key(client.base_url()), lora_type, cate.as_deref());
    let cache = CatalogueCache::new(CatalogueCache::default_dir());
    let catalogue = if args.offline {
        let cached = blocking(move || cache.load_nearest(&key).ok_or(key)).await?;
        match cached {
            Ok(c) => {
                eprintln!(
                    "offline: the catalogue cached {}{}",
                    crate::fmt::age(unix_now().saturating_sub(c.saved_at)),
                    if c.filtered {
                        " for broader filters, narrowed here to the type and category asked"
                    } else {
                        ""
                    }
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
    } else if args.diff {
        return diff(args, &client, cache, key).await;
    } else {
        let catalogue = client.list_loras(lora_type, cate.as_deref()).await?;
        // The dashboard and `--offline` start from it; a cache that cannot be written costs
        // nothing here.
        let copy = catalogue.clone();
        let _ = blocking(move || cache.save(&key, &copy, unix_now())).await;
        catalogue
    };
    let order = matches(args.filter.as_deref(), &catalogue.entries)?;
    if args.prompt {
        return print_prompt(&settings, &order, &catalogue.entries);
    }
    if args.json {
        let items: Vec<Value> = order
            .iter()
            .map(|&i| {
                let e = &catalogue.entries[i];
                serde_json::json!({"model": e.model(), "metadata": e.metadata()})
            })
            .collect();
        output::json_line(Value::Array(items));
    } else {
        let width = order
            .iter()
            .map(|&i| catalogue.entries[i].model().chars().count())
            .max()
            .unwrap_or(5)
            .clamp(5, 40);
        output::line(&format!(
            "{}  {:<5}  {:<12}  SOURCE",
            crate::fit::pad("MODEL", width),
            "TYPE",
            "CATEGORY"
        ));
        for &i in &order {
            let e = &catalogue.entries[i];
            output::line(&format!(
                "{}  {:<5}  {}  {}",
                crate::fit::pad(e.model(), width),
                e.lora_type().unwrap_or(""),
                crate::fit::pad(e.category().unwrap_or(""), 12),
                e.source().unwrap_or("-")
            ));
        }
        let skipped = if catalogue.skipped > 0 {
            format!(
                " ({} could not be read and were skipped)",
                crate::fmt::count(catalogue.skipped, "entry")
            )
        } else {
            String::new()
        };
        eprintln!(
            "{} of {}{skipped}",
            crate::fmt::grouped(order.len()),
            crate::fmt::count(catalogue.entries.len(), "model")
        );
    }
    Ok(crate::cli::exit::OK)
}

/// `--prompt`: the entries at `order` as one prompt, built as the browser's copy-prompt key
/// builds it (every piece sanitised there).
fn print_prompt(
    settings: &crate::store::config::Settings,
    order: &[usize],
    entries: &[crate::api::LoraEntry],
) -> CliResult {
    let prompt = settings.prompt().prompt(order.iter().map(|&i| &entries[i]));
    if prompt.is_empty() {
        return Err(Failure::new(
            exit::NOT_FOUND,
            if order.is_empty() {
                "no model matches".to_string()
            } else {
                "the prompt template gives nothing for these models".to_string()
            },
        ));
    }
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{prompt}");
    eprintln!("the prompt of {}", crate::fmt::count(order.len(), "model"));
    Ok(exit::OK)
}

/// `--diff`: the cached copy (as the dashboard would show it meanwhile), the fresh catalogue
/// (cached in its place), and what changed between them; `--filter` keeps the models it
/// matches (a gone one matched as it was).
async fn diff(
    args: &ModelsArgs,
    client: &crate::api::Client,
    cache: CatalogueCache,
    key: Key,
) -> CliResult {
    use crate::store::catalogue_cache::{Change, Mark, changes, diff};
    let labels = (key.type_label(), key.cate_label().to_string());
    let (read, read_key) = (cache.clone(), key.clone());
    let before = blocking(move || read.load_nearest(&read_key)).await?;
    let fresh = client
        .list_loras(key.lora_type, key.cate.as_deref())
        .await?;
    let copy = fresh.clone();
    let _ = blocking(move || cache.save(&key, &copy, unix_now())).await;
    let cached_at = before.as_ref().map(|c| c.saved_at);
    let old = before.map(|c| c.catalogue.entries).unwrap_or_default();
    // Nothing cached: nothing to compare with (the dashboard marks nothing either).
    let d = if cached_at.is_some() {
        diff(&old, &fresh.entries)
    } else {
        crate::store::catalogue_cache::Diff::default()
    };
    let kept = |entries: &[crate::api::LoraEntry]| -> Vec<bool> {
        let mut keep = vec![args.filter.is_none(); entries.len()];
        if let Some(q) = args.filter.as_deref() {
            let text = SearchText::new(entries.to_vec().into());
            for r in FuzzyFilter::new().rank_text(q, &text) {
                keep[r.index as usize] = true;
            }
        }
        keep
    };
    if let Some(q) = args.filter.as_deref() {
        refuse_unknown_fields(q, &SearchText::new(fresh.entries.clone().into()))?;
    }
    let (keep_fresh, keep_old) = (kept(&fresh.entries), kept(&old));
    let mut new = Vec::new();
    let mut changed = Vec::new();
    for (i, (e, mark)) in fresh.entries.iter().zip(&d.marks).enumerate() {
        if !keep_fresh[i] {
            continue;
        }
        match mark {
            Mark::New => new.push(e.model().to_owned()),
            Mark::Changed(o) => changed.push((e.model().to_owned(), changes(&old[*o as usize], e))),
            Mark::Same => {}
        }
    }
    let gone: Vec<String> = d
        .gone
        .iter()
        .filter(|&&i| keep_old[i as usize])
        .map(|&i| old[i as usize].model().to_string())
        .collect();
    let since = cached_at.map_or_else(String::new, |at| {
        format!(
            " since the copy cached {}",
            crate::fmt::age(unix_now().saturating_sub(at))
        )
    });
    if args.json {
        let changed: Vec<Value> = changed
            .iter()
            .map(|(name, c)| serde_json::json!({"name": name, "changes": c}))
            .collect();
        output::json_line(serde_json::json!({
            "new": new, "changed": changed, "gone": gone, "cached_at": cached_at
        }));
    } else {
        for name in &new {
            output::line(&format!("+ {name}"));
        }
        for (name, c) in &changed {
            let said: Vec<String> = c.iter().map(Change::describe).collect();
            output::line(&format!("~ {name}  {}", said.join(" · ")));
        }
        for name in &gone {
            output::line(&format!("- {name}"));
        }
    }
    if cached_at.is_none() {
        eprintln!(
            "no cached copy for type {}, category {}: nothing to compare with; the catalogue is \
             cached now, for the next --diff",
            labels.0, labels.1
        );
    } else if new.is_empty() && changed.is_empty() && gone.is_empty() {
        eprintln!("no change{since}");
    } else {
        let counts: Vec<String> = [
            (new.len(), "new"),
            (changed.len(), "changed"),
            (gone.len(), "gone"),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, w)| format!("{n} {w}"))
        .collect();
        eprintln!("{}{since}", counts.join(" · "));
    }
    Ok(exit::OK)
}

/// Runs file work off the async thread.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Failure> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| Failure::new(exit::OTHER, format!("the cache could not be read: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(lora_type: Option<TypeArg>, cate: Option<&str>, filter: &str) -> ModelsArgs {
        ModelsArgs {
            lora_type,
            cate: cate.map(str::to_string),
            filter: Some(filter.to_string()),
            json: false,
            prompt: false,
            offline: false,
            diff: false,
        }
    }

    fn asked(
        lora_type: Option<TypeArg>,
        cate: Option<&str>,
        filter: &str,
    ) -> Result<(Option<LoraType>, Option<String>), String> {
        request(&args(lora_type, cate, filter)).map_err(|f| {
            assert_eq!(f.code, exit::USAGE);
            f.message
        })
    }

    /// The filter's `type:`/`cate:` are the flags: as in the dashboard, for the request.
    #[test]
    fn filter_terms_for_the_service_are_the_flags() {
        assert_eq!(asked(None, None, "ink"), Ok((None, None)));
        assert_eq!(
            asked(None, None, "type:sdxl cate:\"fan art\" ink"),
            Ok((Some(LoraType::Sdxl), Some("fan art".into())))
        );
        assert_eq!(
            asked(Some(TypeArg::Sd), Some("style"), "ink"),
            Ok((Some(LoraType::Sd), Some("style".into())))
        );
        assert_eq!(
            asked(Some(TypeArg::Sd), Some("style"), "type:SD cate:style"),
            Ok((Some(LoraType::Sd), Some("style".into()))),
            "agreeing is fine"
        );
        assert_eq!(asked(None, None, "type:all"), Ok((None, None)));
        assert_eq!(
            asked(None, None, "type:xl"),
            Err("--filter: type:xl is not a type (sd, sdxl or all)".into())
        );
        assert_eq!(
            asked(Some(TypeArg::Sd), None, "type:sdxl"),
            Err("--filter: type:sdxl and --type sd disagree; give one".into())
        );
        assert_eq!(
            asked(None, Some("style"), "cate:poses"),
            Err("--filter: cate:poses and --cate style disagree; give one".into())
        );
        assert_eq!(
            asked(None, None, "!type:sd"),
            Err("--filter: !type:sd cannot be negated".into())
        );
        assert_eq!(
            asked(None, None, "x !is:new"),
            Err(
                "--filter: is:new is the model browser's marks and favourites; gendash models has \
                 none; --diff lists what is new or changed"
                    .into()
            )
        );
        assert_eq!(
            asked(None, None, "rating:>4 sort:-downloads"),
            Ok((None, None))
        );
    }
}
