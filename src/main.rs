//! The `gendash` binary: parses arguments, sets up file logging, and hands over to the CLI or
//! the dashboard.

use clap::Parser;
use gendash::cli::exit;
use gendash::cli::{self, Cli, Command, Failure};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = Cli::parse();
    let _log_guard = match gendash::logging::init(args.global.verbose) {
        Ok(g) => g,
        Err(e) => {
            cli::output::error(&e);
            return ExitCode::from(exit::OTHER);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            cli::output::error(&format!("cannot start the runtime: {e}"));
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
            cli::output::error(&message);
            ExitCode::from(code)
        }
    }
}

async fn dispatch(args: Cli) -> cli::CliResult {
    let global = args.global;
    match args.command {
        None => cli::dashboard::run(&global, args.demo).await,
        Some(_) if args.demo => Err(Failure::new(
            exit::USAGE,
            "--demo runs the dashboard; it takes no subcommand",
        )),
        Some(Command::Models(a)) => cli::models::run(&global, &a).await,
        Some(Command::Status(a)) => cli::tasks::status(&global, &a).await,
        Some(Command::Wait(a)) => cli::tasks::wait(&global, &a).await,
        Some(Command::Download(a)) => cli::download::run(&global, &a).await,
        Some(Command::Watch(c)) => cli::watch::run(&c),
        Some(Command::Serve(a)) => cli::serve::run(&a).await,
        Some(Command::Config(c)) => cli::config_cmd::run(&global, &c),
    }
}
