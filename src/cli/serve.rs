//! `gendash serve`: the reference service in the foreground.

use super::{CliResult, Failure, output};
use crate::api::Secret;
use crate::cli::exit;
use crate::server;
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = server::DEFAULT_ADDR)]
    pub addr: String,
    #[arg(
        long,
        env = "GENDASH_SERVE_TOKEN",
        hide_env_values = true,
        help = "The bearer token clients must present (default: GENDASH_SERVE_TOKEN, else a generated one)"
    )]
    pub token: Option<String>,
    /// Serve this catalogue (JSON array of {model, type, cate, metadata}) instead of the embedded one.
    #[arg(long, value_name = "FILE")]
    pub catalogue: Option<PathBuf>,
    /// Serve every route under this path prefix, e.g. /api/v1.
    #[arg(long, value_name = "PATH")]
    pub prefix: Option<String>,
    /// Delay every answer of the API this long, e.g. 50ms, 1s (at most 60s).
    #[arg(long, value_name = "DURATION", value_parser = parse_latency)]
    pub latency: Option<std::time::Duration>,
    /// Serve at most N API requests per second (a token bucket of one second's worth); beyond
    /// it, answer 429 with Retry-After.
    #[arg(long, value_name = "N", value_parser = parse_capacity)]
    pub capacity: Option<u32>,
}

/// The longest `--latency`.
const MAX_LATENCY: std::time::Duration = std::time::Duration::from_secs(60);

/// A `--latency` or `--capacity` clap refuses, naming the text given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum FlagError {
    #[error("'{0}' is not a duration: give a number and a unit, e.g. 50ms or 1s")]
    NotDuration(String),
    #[error("'{0}' is longer than the longest latency, 60s")]
    TooLong(String),
    #[error("'{0}' is not a capacity: give a whole number of requests per second, at least 1")]
    NotCapacity(String),
}

/// `--latency`: a number and a unit (`ms`, `s`), e.g. `50ms`, `1.5s`; `0` for none.
fn parse_latency(text: &str) -> Result<std::time::Duration, FlagError> {
    let t = text.trim();
    let bad = || FlagError::NotDuration(text.to_string());
    if t == "0" {
        return Ok(std::time::Duration::ZERO);
    }
    let (number, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else {
        return Err(bad());
    };
    let value: f64 = number.trim().parse().map_err(|_| bad())?;
    if !value.is_finite() || value < 0.0 {
        return Err(bad());
    }
    let d = std::time::Duration::from_secs_f64(value * scale);
    if d > MAX_LATENCY {
        return Err(FlagError::TooLong(text.to_string()));
    }
    Ok(d)
}

/// `--capacity`: a whole number of requests per second, at least 1.
fn parse_capacity(text: &str) -> Result<u32, FlagError> {
    match text.trim().parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(FlagError::NotCapacity(text.to_string())),
    }
}

pub async fn run(args: &ServeArgs) -> CliResult {
    let catalogue = match &args.catalogue {
        Some(p) => {
            let bytes = std::fs::read(p).map_err(|e| {
                Failure::new(exit::OTHER, format!("cannot read {}: {e}", p.display()))
            })?;
            server::served_catalogue::parse(&bytes)
                .map_err(|e| Failure::new(exit::OTHER, format!("{}: {e}", p.display())))?
        }
        None => server::served_catalogue::embedded(),
    };
    let (token, generated) = match &args.token {
        Some(t) if !t.is_empty() => (Secret::new(t.clone()), false),
        _ => (server::generate_token(), true),
    };
    let entries = catalogue.len();
    let options = server::Options {
        catalogue,
        prefix: args.prefix.clone(),
        latency: args.latency.unwrap_or_default(),
        capacity: args.capacity.map(server::Capacity::per_second),
        ..server::Options::new(token)
    };
    let mut running = server::bind_and_start(&args.addr, options)
        .await
        .map_err(|e| Failure::new(exit::OTHER, format!("cannot listen on {}: {e}", args.addr)))?;
    if !running.addr.ip().is_loopback() {
        eprintln!(
            "gendash: warning: listening on {}, which is reachable from other machines",
            running.addr
        );
    }
    let base = match &args.prefix {
        Some(p) => format!("{}{}", running.base_url(), p.trim_matches('/')),
        None => running.base_url().to_string(),
    };
    // Written with `output::line`, which ignores a closed pipe (`gendash serve | head -1`).
    output::line(&format!(
        "gendash reference service on {base} ({})",
        crate::fmt::count(entries, "catalogue entry")
    ));
    let token_shown = if generated {
        // The service's own throwaway token, printed so the user can point a client at it.
        output::line(&format!("token: {}", running.token.expose()));
        running.token.expose().to_string()
    } else {
        "<token>".to_string()
    };
    let reach = reachable(&base, running.addr);
    output::line(&format!(
        "try:   export GENDASH_BASE_URL={reach} GENDASH_TOKEN={token_shown}; gendash models"
    ));
    output::line(
        "tasks: demo-image-done, demo-video-done; sim-<N>-x completes after N lookups, fail-<N>-x fails, hold-x never ends, timed-<S>-x completes S seconds after its first lookup (more in docs/reference-service.md)",
    );
    if let Some(d) = args.latency.filter(|d| !d.is_zero()) {
        output::line(&format!(
            "latency: every API answer delayed {} ms",
            d.as_millis()
        ));
    }
    if let Some(n) = args.capacity {
        output::line(&format!(
            "capacity: {n} API requests per second, then 429 with Retry-After"
        ));
    }
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        r = &mut running.handle => {
            return match r {
                Ok(Ok(())) => Ok(exit::OK),
                Ok(Err(e)) => Err(Failure::new(exit::OTHER, format!("service stopped: {e}"))),
                Err(e) => Err(Failure::new(exit::OTHER, format!("service crashed: {e}"))),
            };
        }
    }
    running.stop();
    Ok(exit::OK)
}

/// The base URL a client on this machine uses: a wildcard address is not one it can use (nor
/// one it accepts over plain http), so the loopback address with the same port.
fn reachable(base: &str, addr: std::net::SocketAddr) -> String {
    if !addr.ip().is_unspecified() {
        return base.to_string();
    }
    let loopback: std::net::IpAddr = if addr.is_ipv4() {
        std::net::Ipv4Addr::LOCALHOST.into()
    } else {
        std::net::Ipv6Addr::LOCALHOST.into()
    };
    let Ok(mut url) = url::Url::parse(base) else {
        return base.to_string();
    };
    match url.set_ip_host(loopback) {
        Ok(()) => url.to_string(),
        Err(()) => base.to_string(),
    }
}

#[cfg(test)]
mod argument_tests {
    use super::{parse_capacity, parse_latency};
    use std::time::Duration;

    #[test]
    fn latency_takes_milliseconds_or_seconds() {
        assert_eq!(parse_latency("50ms"), Ok(Duration::from_millis(50)));
        assert_eq!(parse_latency("20ms"), Ok(Duration::from_millis(20)));
        assert_eq!(parse_latency("1s"), Ok(Duration::from_secs(1)));
        assert_eq!(parse_latency("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_latency("0"), Ok(Duration::ZERO));
    }

    #[test]
    fn a_bad_latency_or_capacity_is_named_in_the_error() {
        for bad in ["50", "fast", "5xs", "-1s", "ms", "NaNs", "2m"] {
            let e = parse_latency(bad).expect_err(bad).to_string();
            assert!(e.contains(&format!("'{bad}'")), "{e}");
        }
        let e = parse_latency("61s").expect_err("too long").to_string();
        assert!(e.contains("'61s'") && e.contains("60s"), "{e}");
        for bad in ["0", "-5", "ten", "1.5"] {
            let e = parse_capacity(bad).expect_err(bad).to_string();
            assert!(e.contains(&format!("'{bad}'")), "{e}");
        }
        assert_eq!(parse_capacity("100"), Ok(100));
    }
}

#[cfg(test)]
mod reach_tests {
    use super::reachable;

    #[test]
    fn a_wildcard_address_is_suggested_as_loopback() {
        let at = |a: &str| a.parse().expect("address");
        assert_eq!(
            reachable("http://0.0.0.0:9011/api", at("0.0.0.0:9011")),
            "http://127.0.0.1:9011/api"
        );
        assert_eq!(
            reachable("http://[::]:9011/", at("[::]:9011")),
            "http://[::1]:9011/"
        );
        assert_eq!(
            reachable("http://127.0.0.1:8787/", at("127.0.0.1:8787")),
            "http://127.0.0.1:8787/"
        );
    }
}
