//! `gendash man`: the manual. gendash(1) carries the sections a user looks for beside the
//! options: the dashboard's keys (from the keymap), the configuration keys (from the file's
//! schema, with their defaults), the environment, the files and the exit codes. With a
//! directory, every subcommand gets its own page too (`gendash-models.1`, …), so each page
//! gendash(1) names exists.

use super::{Cli, CliResult, Failure, exit, output};
use crate::app::state::Keymap;
use crate::store::config::{self, Overrides};
use clap::CommandFactory;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// Write gendash.1 and one page per subcommand (gendash-models.1, …) into DIR and print
    /// their paths; without DIR, gendash(1) goes to standard output.
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// The variables gendash reads that set no configuration key, each with what it does (those
/// that do are listed from the schema, `config::KEYS`). Test-only switches (`GENDASH_TEST_*`)
/// are not the user's business and are left out on purpose.
pub const OTHER_VARIABLES: &[(&str, &str)] = &[
    ("GENDASH_PROFILE", "the profile, as --profile"),
    ("GENDASH_CONFIG", "the configuration file, as --config"),
    (
        "GENDASH_DATA_DIR",
        "where the watch list and the recently used categories live",
    ),
    ("GENDASH_LOG_FILE", "the log file of -v"),
    (
        "GENDASH_OPENER",
        "the program that opens links (default xdg-open, open on macOS)",
    ),
    (
        "GENDASH_SERVE_TOKEN",
        "the token gendash serve asks clients for",
    ),
    (
        "GENDASH_PLAIN",
        "1, true, yes or on runs the dashboard in plain mode (as --plain); 0, false, no or off \
         never (even with TERM=dumb)",
    ),
    (
        "NO_COLOR",
        "no colours in the dashboard, and no half-block previews",
    ),
];

pub fn run(args: &ManArgs) -> CliResult {
    let cannot = |what: &Path, e: std::io::Error| {
        Failure::new(
            exit::OTHER,
            format!("cannot write the manual to {}: {e}", what.display()),
        )
    };
    let Some(dir) = &args.dir else {
        let page = main_page().map_err(|e| cannot(Path::new("standard output"), e))?;
        std::io::stdout()
            .write_all(&page)
            .map_err(|e| cannot(Path::new("standard output"), e))?;
        // Said where a redirect does not hide it: the subcommands' pages need a directory.
        eprintln!(
            "gendash: wrote gendash(1); gendash man DIR writes it and one page per subcommand"
        );
        return Ok(exit::OK);
    };
    std::fs::create_dir_all(dir).map_err(|e| cannot(dir, e))?;
    for (name, page) in pages().map_err(|e| cannot(dir, e))? {
        let path = dir.join(name);
        std::fs::write(&path, page).map_err(|e| cannot(&path, e))?;
        output::line(&path.display().to_string());
    }
    Ok(exit::OK)
}

/// The command as the manual shows it: built, so each subcommand knows its page's name
/// (`gendash-watch-add`).
fn command() -> clap::Command {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// Every page by file name: gendash.1 first, then one per subcommand, nested ones included.
pub fn pages() -> std::io::Result<Vec<(String, Vec<u8>)>> {
    fn add(cmd: &clap::Command, out: &mut Vec<(String, Vec<u8>)>) -> std::io::Result<()> {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            let man = clap_mangen::Man::new(sub.clone());
            let mut page = Vec::new();
            man.render(&mut page)?;
            out.push((man.get_filename(), page));
            add(sub, out)?;
        }
        Ok(())
    }
    let mut out = vec![("gendash.1".to_string(), main_page()?)];
    add(&command(), &mut out)?;
    Ok(out)
}

/// gendash(1): clap's sections, then keys, configuration, environment, files and exit codes.
pub fn main_page() -> std::io::Result<Vec<u8>> {
    let man = clap_mangen::Man::new(command());
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;
    man.render_subcommands_section(&mut page)?;
    for (title, body) in [
        ("KEYS", keys_section()),
        ("CONFIGURATION", configuration_section()),
        ("ENVIRONMENT", environment_section()),
        ("FILES", files_section()),
        ("EXIT STATUS", exit_section()),
    ] {
        writeln!(page, ".SH \"{title}\"")?;
        page.extend_from_slice(body.as_bytes());
    }
    man.render_version_section(&mut page)?;
    Ok(page)
}

/// Text as roff shows it literally: backslashes and hyphens escaped, and no line read as a
/// request.
fn roff(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    match escaped.chars().next() {
        Some('.' | '\'') => format!("\\&{escaped}"),
        _ => escaped,
    }
}

/// A tagged paragraph: `tag` in bold, `body` below it.
fn item(tag: &str, body: &str) -> String {
    format!(".TP\n\\fB{}\\fR\n{}\n", roff(tag), roff(body))
}

fn paragraph(text: &str) -> String {
    format!(".PP\n{}\n", roff(text))
}

fn keys_section() -> String {
    let mut out = paragraph(
        "The dashboard's keys, built in; [keys] in the configuration file rebinds them (each \
         action by the name in the first column), and gendash keys prints those in force.",
    );
    out.push_str(".PP\n.nf\n");
    for line in super::keys::table(&Keymap::default()).lines() {
        out.push_str(&roff(line));
        out.push('\n');
    }
    out.push_str(".fi\n");
    out
}

fn configuration_section() -> String {
    let mut out = paragraph(&format!(
        "A TOML file, by default {} (gendash config path prints it; --config or GENDASH_CONFIG \
         chooses another). Precedence: flags, then environment, then the [profiles.NAME] table \
         chosen with --profile, then the top level, then the defaults. gendash config show \
         prints every setting in force and where it came from. An unknown key or a bad value \
         is an error naming the line.",
        home_relative(&crate::store::paths::default_config_file())
    ));
    out.push_str(&paragraph(
        "The keys, at the top level and in each profile, with their defaults:",
    ));
    let defaults = config::resolve_from(
        config::FileSettings::default(),
        false,
        PathBuf::from("config.toml"),
        &Overrides::default(),
        &|_| None,
    )
    .map(|s| s.values())
    .unwrap_or_default();
    for key in config::KEYS {
        let default = key.default_doc.map_or_else(
            || {
                defaults
                    .iter()
                    .find(|(k, v)| *k == key.name && !v.is_empty())
                    .map_or_else(
                        || "(none)".to_string(),
                        |(_, v)| home_relative(Path::new(v)),
                    )
            },
            plain,
        );
        out.push_str(&item(key.name, &plain(key.about)));
        out.push_str(".br\n");
        out.push_str(&roff(&format!("default: {default}")));
        out.push('\n');
    }
    out
}

/// The schema's Markdown made plain text: no backquotes.
fn plain(text: &str) -> String {
    text.replace('`', "")
}

/// The variables that set a configuration key, from the schema, then the others.
fn environment_section() -> String {
    let keys = config::KEYS.iter().filter_map(|key| {
        let env = key.env?;
        Some(item(
            env,
            &format!("Sets {} (over the file). {}", key.name, plain(key.about)),
        ))
    });
    let others = OTHER_VARIABLES.iter().map(|(name, what)| item(name, what));
    keys.chain(others).collect()
}

fn files_section() -> String {
    let config_file = crate::store::paths::default_config_file();
    [
        (config_file.clone(), "the configuration file"),
        (
            config::default_token_file(&config_file, None),
            "the token gendash config set-token stores (token-PROFILE with --profile), mode 0600",
        ),
        (
            crate::store::watchlist::WatchStore::default_path(),
            "the dashboard's watch list, written atomically",
        ),
        (crate::logging::log_path(), "the log of -v, mode 0600"),
        (
            crate::store::cache::ImageCache::default_dir(),
            "downloaded previews, fetched again when missing",
        ),
        (
            crate::store::catalogue_cache::CatalogueCache::default_dir(),
            "the catalogue as last loaded for each service, type and category",
        ),
    ]
    .iter()
    .map(|(path, what)| item(&home_relative(path), what))
    .collect()
}

fn exit_section() -> String {
    exit::TABLE
        .iter()
        .map(|(code, meaning)| item(&code.to_string(), meaning))
        .collect()
}

/// `path` with the home directory written `~`, so the page reads the same for everyone.
fn home_relative(path: &Path) -> String {
    let home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
    match home.and_then(|h| path.strip_prefix(h).ok().map(Path::to_path_buf)) {
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variables_of_config_keys_are_described_once_from_the_schema() {
        let environment = environment_section();
        let mut from_schema = 0;
        for key in config::KEYS {
            let Some(env) = key.env else { continue };
            from_schema += 1;
            assert!(
                !OTHER_VARIABLES.iter().any(|(name, _)| *name == env),
                "{env} is described by hand too"
            );
            let entry = item(
                env,
                &format!("Sets {} (over the file). {}", key.name, plain(key.about)),
            );
            assert_eq!(
                environment
                    .matches(&format!("\\fB{}\\fR", roff(env)))
                    .count(),
                1
            );
            assert!(environment.contains(&entry), "{env}: {environment}");
        }
        assert!(
            from_schema >= 3,
            "base_url, token and request_timeout have variables"
        );
        let configuration = configuration_section();
        for key in config::KEYS {
            assert!(
                configuration.contains(&roff(&plain(key.about))),
                "{}: {configuration}",
                key.name
            );
        }
    }
}
