//! Command-line interface: argument definitions and dispatch to the headless subcommands.

mod completions;
mod config_cmd;
mod doctor;
mod download_files;
pub mod exit;
mod history;
mod keys;
mod man;
mod models;
pub mod output;
mod run_action;
mod serve;
mod start;
mod stats;
mod tasks;
mod watch_list;

use crate::api::{ApiError, Client, ClientOptions};
use crate::store::config::{self, Overrides, Settings};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(
    name = "gendash",
    version,
    about = "Terminal dashboard and CLI for the Generation Service: browse LoRA models, watch tasks, fetch results.",
    after_help = exit::help()
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    /// Run the dashboard against an embedded reference service with demo tasks (no setup).
    #[arg(long, global = false)]
    pub demo: bool,
    #[arg(
        long,
        overrides_with = "no_plain",
        help = "Plain mode: no full screen, one line per change, line commands (also TERM=dumb or GENDASH_PLAIN=1)"
    )]
    pub plain: bool,
    #[arg(
        long,
        overrides_with = "plain",
        help = "The full-screen dashboard even with TERM=dumb or GENDASH_PLAIN=1"
    )]
    pub no_plain: bool,
    #[arg(
        long,
        value_enum,
        value_name = "WHEN",
        default_value = "never",
        help = "Colours in plain mode: never (the default) or always; NO_COLOR means none whatever this says"
    )]
    pub color: start::ColorWhen,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Args, Clone, Default)]
pub struct Global {
    #[arg(
        long,
        global = true,
        value_name = "URL",
        help = "Service base URL (overrides GENDASH_BASE_URL and the config file)"
    )]
    pub base_url: Option<String>,
    /// Configuration profile ([profiles.NAME] in the config file).
    #[arg(long, global = true, env = "GENDASH_PROFILE", value_name = "NAME")]
    pub profile: Option<String>,
    /// Configuration file (default: the platform config dir, e.g. ~/.config/gendash/config.toml).
    #[arg(long, global = true, env = "GENDASH_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Log to a file under the state directory (-v info, -vv debug, -vvv trace); never to the terminal.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    #[command(about = "List the LoRA model catalogue.")]
    Models(models::ModelsArgs),
    /// Show the status of tasks (exit 0 all completed, 5 one failed, 7 one still running).
    Status(tasks::StatusArgs),
    /// Poll tasks until each is completed or failed.
    Wait(tasks::WaitArgs),
    #[command(
        about = "Download the files of completed tasks",
        long_about = "Download the files of completed tasks.\n\n\
            Each file is saved at download_dir/download_template (gendash config show prints \
            them), or in DIR with -o. A dropped connection is resumed; a download that gives up \
            keeps its .part file, and running the same command again continues from it."
    )]
    Download(download_files::DownloadArgs),
    /// Edit the dashboard's watch list from scripts.
    #[command(subcommand)]
    Watch(watch_list::WatchCommand),
    /// Run the reference service on loopback.
    Serve(serve::ServeArgs),
    /// How long tasks take, from the watch list: per service and kind, tasks, completed,
    /// failed, failure rate, median and p90 duration, completions per hour.
    Stats(stats::StatsArgs),
    /// The archive: finished tasks that left the watch list, the most recently finished first
    /// (--json, --filter QUERY in the dashboard's filter language, --limit N).
    History(history::HistoryArgs),
    /// Show the configuration.
    #[command(subcommand)]
    Config(config_cmd::ConfigCommand),
    /// What gendash finds and would use: the terminal, the config file, each service, the data
    /// directory, the programs; each ok, warning or problem (exit 0 when nothing is a problem).
    Doctor(doctor::DoctorArgs),
    /// Print the key bindings in force: the built-in ones with the config's [keys] applied.
    Keys(keys::KeysArgs),
    /// Run one of the config's [[actions]] on task IDs (watch, archive) or model names (browser), as its key does in the dashboard, without asking first.
    RunAction(run_action::RunActionArgs),
    /// Print a shell completion script: gendash completions bash > ~/.local/share/bash-completion/completions/gendash
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page gendash(1) (roff), or write it and one page per subcommand into DIR: gendash man ~/.local/share/man/man1
    Man(man::ManArgs),
}

/// A failure with its exit code; the message is one sanitised line.
#[derive(Debug)]
pub struct Failure {
    pub code: u8,
    pub message: String,
}

impl Failure {
    pub fn new(code: u8, message: impl Into<String>) -> Self {
        Failure {
            code,
            message: message.into(),
        }
    }
}

impl From<ApiError> for Failure {
    fn from(e: ApiError) -> Self {
        Failure::new(exit::for_api_error(&e), explain(&e))
    }
}

/// A service error as the command line says it: with what to do about it, where there is
/// something to do.
pub fn explain(e: &ApiError) -> String {
    match e {
        ApiError::Connect { origin, .. } => {
            format!(
                "{e}; is the service running at {origin}? (check base_url: gendash config show)"
            )
        }
        ApiError::Tls { .. } => {
            format!("{e} (trusted: the system's CA certificates, or those SSL_CERT_FILE names)")
        }
        _ => e.to_string(),
    }
}

/// What to do when no token is configured: the one command that stores it (for the profile in
/// force), and the other ways.
pub fn no_token(profile: Option<&str>) -> String {
    let profile = profile
        .map(|p| format!("--profile {p} "))
        .unwrap_or_default();
    format!(
        "no token configured: run `gendash {profile}config set-token` to store one (it reads \
         the token from standard input), or set GENDASH_TOKEN, or token / token_file / \
         token_command in the config file"
    )
}

impl From<config::ConfigError> for Failure {
    fn from(e: config::ConfigError) -> Self {
        // A bad flag is a usage error, as clap's own are; a bad file or variable is not.
        let code = if e.is_usage() {
            exit::USAGE
        } else {
            exit::OTHER
        };
        Failure::new(code, e.to_string())
    }
}

pub type CliResult = Result<u8, Failure>;

impl Global {
    pub fn overrides(&self) -> Overrides {
        Overrides {
            config: self.config.clone(),
            profile: self.profile.clone(),
            base_url: self.base_url.clone(),
        }
    }

    /// Resolves the settings, printing any warnings to stderr.
    pub fn settings(&self) -> Result<Settings, Failure> {
        let settings = config::resolve(&self.overrides(), &config::process_env)?;
        for w in &settings.warnings {
            eprintln!("gendash: {w}");
        }
        Ok(settings)
    }
}

/// A client for the configured service, or a clear account of what is missing.
pub fn client_from(settings: &Settings) -> Result<Client, Failure> {
    let base_url = settings.base_url.clone().ok_or_else(|| {
        Failure::new(
            exit::OTHER,
            format!(
                "no service configured: set base_url in {} or GENDASH_BASE_URL, or try `gendash --demo`",
                settings.config_file.display()
            ),
        )
    })?;
    let token = settings.token.clone().ok_or_else(|| {
        Failure::new(
            exit::OTHER,
            settings.token_problem.as_ref().map_or_else(
                || no_token(settings.profile.as_deref()),
                ToString::to_string,
            ),
        )
    })?;
    Ok(Client::new(&ClientOptions {
        base_url,
        token,
        request_timeout: settings.request_timeout,
        allow_insecure_http: settings.allow_insecure_http,
    })?
    .with_catalogue_cap(settings.catalogue_cap()))
}

/// The whole program: parses arguments, sets up file logging, runs the subcommand or the
/// dashboard on a two-thread runtime, and turns the outcome into an exit code.
pub fn main() -> ExitCode {
    // Before any other thread exists.
    crate::clock::remember_local_offset();
    #[cfg(any(test, debug_assertions, feature = "testing"))]
    if let Some((file, rounds)) = crate::testing::stress_save_wanted() {
        return match crate::testing::stress_save(&file, rounds) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                output::error(&e.to_string());
                ExitCode::from(exit::OTHER)
            }
        };
    }
    let args = Cli::parse();
    let _log_guard = match crate::logging::init(args.global.verbose) {
        Ok(g) => g,
        Err(e) => {
            output::error(&e.to_string());
            return ExitCode::from(exit::OTHER);
        }
    };
    let runtime = match crate::dashboard::runtime::build() {
        Ok(r) => r,
        Err(e) => {
            output::error(&format!("cannot start the runtime: {e}"));
            return ExitCode::from(exit::OTHER);
        }
    };
    let outcome = runtime.block_on(dispatch(args));
    // Workers blocked on I/O must not keep a finished program alive.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(Failure { code, message }) => {
            tracing::error!(%message, code, "exiting with an error");
            output::error(&message);
            ExitCode::from(code)
        }
    }
}

async fn dispatch(args: Cli) -> CliResult {
    let plain = start::Plain::of(&args);
    let global = args.global;
    match args.command {
        None => start::run(&global, args.demo, plain).await,
        Some(_) if args.demo => Err(Failure::new(
            exit::USAGE,
            "--demo runs the dashboard; it takes no subcommand",
        )),
        Some(_) if args.plain => Err(Failure::new(
            exit::USAGE,
            "--plain runs the dashboard; it takes no subcommand",
        )),
        Some(Command::Models(a)) => models::run(&global, &a).await,
        Some(Command::Status(a)) => tasks::status(&global, &a).await,
        Some(Command::Wait(a)) => tasks::wait(&global, &a).await,
        Some(Command::Download(a)) => download_files::run(&global, &a).await,
        Some(Command::Watch(c)) => watch_list::run(&global, &c),
        Some(Command::Serve(a)) => serve::run(&a).await,
        Some(Command::Stats(a)) => stats::run(&global, &a),
        Some(Command::History(a)) => history::run(&a),
        Some(Command::Config(c)) => config_cmd::run(&global, &c),
        Some(Command::Keys(a)) => keys::run(&global, &a),
        Some(Command::Doctor(a)) => doctor::run(&global, &a).await,
        Some(Command::RunAction(a)) => run_action::run(&global, &a).await,
        Some(Command::Completions { shell }) => {
            completions::run(&global, shell);
            Ok(exit::OK)
        }
        Some(Command::Man(a)) => man::run(&a),
    }
}
