//! Starting the dashboard: resolves the settings and the service (the configured one, or with
//! `--demo` an embedded reference service with demo tasks), has `dashboard::session` build
//! the session and run it, and turns how it ended into an exit code.

use super::{CliResult, Failure, Global, client_from, exit};
use crate::api::{Client, ClientOptions};
use crate::app::state::Quit;
use crate::dashboard::{self, session};
use crate::server;
use crate::server::simulation::DEMO_TASKS;

/// When plain mode's lines have colours (`--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    Never,
    Always,
}

/// What the command line says of plain mode: `--plain` (`Some(true)`), `--no-plain`
/// (`Some(false)`) or neither, and `--color`.
pub struct Plain {
    flag: Option<bool>,
    color: ColorWhen,
}

impl Plain {
    pub fn of(cli: &super::Cli) -> Self {
        let flag = match (cli.plain, cli.no_plain) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        };
        Plain {
            flag,
            color: cli.color,
        }
    }

    /// Plain mode's options if it is wanted (the flags, then `GENDASH_PLAIN`, then `TERM`).
    fn options(&self, no_color: bool) -> Result<Option<dashboard::plain::Options>, Failure> {
        let wanted = dashboard::plain::wanted(self.flag, &crate::store::config::process_env)
            .map_err(|e| Failure::new(exit::USAGE, e.to_string()))?;
        Ok(wanted.then_some(dashboard::plain::Options {
            color: self.color == ColorWhen::Always && !no_color,
        }))
    }
}

pub async fn run(global: &Global, demo: bool, plain: Plain) -> CliResult {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let plain = plain.options(no_color)?;
    let outcome = if demo {
        run_demo(global, no_color, plain).await?
    } else {
        let settings = global.settings()?;
        let mut session =
            session::for_settings(settings, global.overrides(), no_color, client_from).map_err(
                |refused| match refused {
                    session::Refused::Looks(e) => Failure::new(exit::OTHER, e.to_string()),
                    session::Refused::Client(failure) => failure,
                    session::Refused::Config(e) => Failure::from(e),
                },
            )?;
        session.plain = plain;
        dashboard::run(session)
            .await
            .map_err(|e| Failure::new(exit::OTHER, e.to_string()))?
    };
    Ok(exit_code(outcome))
}

/// As the other services' clients report it when they cannot be made: the message alone.
impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// 0 for a quit, 128 + the signal's number when a signal ended it, as shells report.
pub fn exit_code(outcome: Quit) -> u8 {
    match outcome {
        Quit::User => exit::OK,
        Quit::Signal(n) => u8::try_from(128 + n).unwrap_or(exit::OTHER),
    }
}

async fn run_demo(
    global: &Global,
    no_color: bool,
    plain: Option<dashboard::plain::Options>,
) -> Result<Quit, Failure> {
    let settings = session::demo_settings(&global.overrides());
    let cannot = |e: &dyn std::fmt::Display| {
        Failure::new(exit::OTHER, format!("cannot start the demo service: {e}"))
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| cannot(&e))?;
    // Kept alive until the dashboard ends.
    let service = server::start(listener, server::Options::new(server::generate_token()))
        .map_err(|e| cannot(&e))?;
    let client = Client::new(&ClientOptions {
        base_url: service.base_url(),
        token: service.token.clone(),
        request_timeout: settings.request_timeout,
        allow_insecure_http: false,
    })?;
    let demo = session::DemoService {
        client,
        token: service.token.clone(),
        tasks: DEMO_TASKS,
    };
    let result = session::demo(settings, global.overrides(), demo, no_color, plain)
        .await
        .map_err(|e| Failure::new(exit::OTHER, e.to_string()));
    drop(service);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_exit_as_shells_report_them() {
        assert_eq!(exit_code(Quit::User), 0);
        assert_eq!(exit_code(Quit::Signal(2)), 130);
        assert_eq!(exit_code(Quit::Signal(15)), 143);
        assert_eq!(exit_code(Quit::Signal(1)), 129);
    }
}
