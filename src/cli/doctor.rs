//! `gendash doctor [--json]`: what gendash finds and would use, one line a finding, each ok,
//! warning or problem with what to do. It uses the code the dashboard uses (the same settings,
//! the same graphics detection and questions, bounded as there; the same clipboard and opener
//! choices) and asks each configured service one cheap question. Exit 0 when nothing is a
//! problem, else the first problem's code (3 for a refused token, 1 otherwise).

use super::{CliResult, Global, client_from, exit};
use crate::api::{ApiError, TaskKind};
use crate::store::config::{self, Settings};
use crate::store::paths::DataFiles;
use serde::Serialize;
use std::path::Path;
use std::time::Duration;

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// One JSON object a finding, in an array: area, what, level, detail, fix.
    #[arg(long)]
    pub json: bool,
}

/// How a finding stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Ok,
    Warning,
    Problem,
}

/// One line of the report.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub area: &'static str,
    pub what: String,
    pub level: Level,
    pub detail: String,
    /// What to do, for a warning or a problem.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// The exit code a problem gives.
    #[serde(skip)]
    code: u8,
}

fn finding(area: &'static str, what: impl Into<String>, level: Level, detail: String) -> Finding {
    Finding {
        area,
        what: what.into(),
        level,
        detail,
        fix: None,
        code: exit::OTHER,
    }
}

impl Finding {
    fn fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }
}

/// The longest a service may take to answer its one question.
const SERVICE_BOUND: Duration = Duration::from_secs(10);

pub async fn run(global: &Global, args: &DoctorArgs) -> CliResult {
    let env = &config::process_env;
    let no_color = env("NO_COLOR").is_some_and(|v| !v.is_empty());
    let mut found = Vec::new();
    let settings = match config::resolve(&global.overrides(), env) {
        Ok(s) => Some(s),
        Err(e) => {
            found.push(
                finding("config", "file", Level::Problem, e.to_string())
                    .fix("correct the line named; `gendash config show` prints what is in force"),
            );
            None
        }
    };
    if let Some(s) = &settings {
        config_findings(s, no_color, &mut found);
    }
    let defaults = settings.is_none().then(Settings::defaults);
    let in_force = settings.as_ref().or(defaults.as_ref());
    if let Some(s) = in_force {
        found.extend(terminal_findings(s, no_color, env));
    }
    if let Some(s) = &settings {
        found.extend(service_findings(global, s).await);
    }
    found.extend(data_findings(&DataFiles::user()));
    found.extend(program_findings(env));
    print(&found, args.json);
    Ok(found
        .iter()
        .find(|f| f.level == Level::Problem)
        .map_or(exit::OK, |f| f.code))
}

fn print(found: &[Finding], json: bool) {
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(found).unwrap_or_else(|_| "[]".into())
        );
        return;
    }
    for f in found {
        let level = match f.level {
            Level::Ok => "ok",
            Level::Warning => "warning",
            Level::Problem => "problem",
        };
        let fix = f
            .fix
            .as_ref()
            .map_or_else(String::new, |fix| format!(" → {fix}"));
        println!("{level:<8} {}: {}: {}{fix}", f.area, f.what, f.detail);
    }
}

/// The config file, and what start-up would refuse in it (`[keys]`) or warn about.
fn config_findings(s: &Settings, no_color: bool, found: &mut Vec<Finding>) {
    let file = s.config_file.display().to_string();
    found.push(if s.config_file_found {
        finding("config", "file", Level::Ok, format!("{file} is valid"))
    } else {
        finding(
            "config",
            "file",
            Level::Ok,
            format!("{file} does not exist: the defaults are in force"),
        )
    });
    if let Err(e) = crate::dashboard::looks(s, no_color) {
        found.push(
            finding("config", "[keys]", Level::Problem, e.to_string())
                .fix("bind each action to keys no other action in its context uses"),
        );
    }
    if let Some(scheme) = &s.theme_file {
        found.push(finding(
            "config",
            "theme",
            Level::Ok,
            format!(
                "base16 scheme \"{}\" from {} (theme_file; colours that would read below 4.5:1 are adjusted)",
                scheme.name,
                scheme.path.display()
            ),
        ));
    }
    for w in &s.warnings {
        found.push(finding("config", "warning", Level::Warning, w.clone()));
    }
}

/// The terminal: asked the dashboard's questions, in the same bounded exchange.
fn terminal_findings(
    s: &Settings,
    no_color: bool,
    env: &dyn Fn(&str) -> Option<String>,
) -> Vec<Finding> {
    let area = "terminal";
    let mut found = Vec::new();
    let term = env("TERM").unwrap_or_default();
    let tmux = env("TMUX").is_some();
    let detection = crate::dashboard::probe::ask_terminal(s.image_preview, no_color);
    if !detection.is_terminal {
        found.push(
            finding(
                area,
                "asked",
                Level::Warning,
                "standard input or output is not a terminal: nothing was asked".into(),
            )
            .fix("run gendash doctor in the terminal you use gendash in"),
        );
    }
    found.push(finding(
        area,
        "graphics",
        if detection.graphics {
            Level::Ok
        } else {
            Level::Warning
        },
        detection.graphics_note.clone(),
    ));
    found.push(if no_color {
        finding(area, "colours", Level::Ok, "NO_COLOR: emphasis only".into())
    } else {
        let colorterm = env("COLORTERM").unwrap_or_default();
        let truecolor = matches!(colorterm.as_str(), "truecolor" | "24bit");
        finding(
            area,
            "colours",
            if truecolor { Level::Ok } else { Level::Warning },
            format!(
                "TERM={term}, COLORTERM={}",
                if colorterm.is_empty() {
                    "(unset)"
                } else {
                    &colorterm
                }
            ),
        )
        .fix_if(!truecolor, "half-block pictures need 24-bit colour; set COLORTERM=truecolor if the terminal has it")
    });
    let theme = s.theme.name();
    found.push(match &detection.background {
        Some((hex, light)) => {
            let palette = if s.theme_file.is_some() {
                "theme_file's scheme"
            } else if s.theme == config::ThemeName::Auto {
                if *light { "light" } else { "dark" }
            } else {
                theme
            };
            finding(
                area,
                "background",
                Level::Ok,
                format!("{hex} (theme = \"{theme}\": the {palette} palette)"),
            )
        }
        None => finding(
            area,
            "background",
            Level::Ok,
            format!("not told (theme = \"{theme}\": auto stays dark)"),
        ),
    });
    found.extend(sync_and_notifications(s, detection.sync, env));
    if tmux {
        found.push(tmux_passthrough());
    }
    found
}

/// Synchronized output as the terminal answered and the settings allow; how notifications go.
fn sync_and_notifications(
    s: &Settings,
    answer: Option<bool>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Vec<Finding> {
    let area = "terminal";
    let tmux = env("TMUX").is_some();
    let mut found = Vec::new();
    let sync = match (answer, s.synchronized_output) {
        (Some(true), true) => "supported, used".to_string(),
        (Some(true), false) => "supported, off (synchronized_output = false)".to_string(),
        (Some(false), _) => "not supported".to_string(),
        (None, _) => "not told: frames are not wrapped".to_string(),
    };
    found.push(finding(area, "synchronized output", Level::Ok, sync));
    let notify = crate::dashboard::terminal::notify_sequence("t", "b", env);
    let osc = if notify.contains("]777;") {
        "OSC 777"
    } else {
        "OSC 9"
    };
    found.push(finding(
        area,
        "notifications",
        Level::Ok,
        if s.desktop_notifications {
            format!("sent as {osc}{}", if tmux { " through tmux" } else { "" })
        } else {
            "off (desktop_notifications = false)".into()
        },
    ));
    found
}

impl Finding {
    fn fix_if(self, when: bool, fix: &str) -> Self {
        if when { self.fix(fix) } else { self }
    }
}

/// Whether tmux passes sequences on (pictures, notifications and OSC 52 through it need
/// `allow-passthrough`): asked of tmux itself, without a shell, within two seconds.
fn tmux_passthrough() -> Finding {
    let answer = run_bounded(
        &["tmux", "show-options", "-gv", "allow-passthrough"],
        Duration::from_secs(2),
    );
    let on = answer
        .as_deref()
        .is_some_and(|a| matches!(a.trim(), "on" | "all"));
    finding(
        "terminal",
        "tmux passthrough",
        if on { Level::Ok } else { Level::Warning },
        format!(
            "allow-passthrough is {}",
            answer.as_deref().map_or("unknown", str::trim)
        ),
    )
    .fix_if(
        !on,
        "`set -g allow-passthrough on` in tmux.conf, for pictures and notifications",
    )
}

/// A program's standard output, if it ran and exited 0 within `bound`; killed otherwise.
fn run_bounded(argv: &[&str], bound: Duration) -> Option<String> {
    let mut child = std::process::Command::new(argv[0])
        .args(&argv[1..])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let until = std::time::Instant::now() + bound;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let mut out = String::new();
                std::io::Read::read_to_string(&mut child.stdout.take()?, &mut out).ok()?;
                return status.success().then_some(out);
            }
            Ok(None) if std::time::Instant::now() < until => {
                std::thread::sleep(Duration::from_millis(20));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// The service in force, then every other service the file configures: one task lookup each
/// (an unknown ID: a lookup's "not found" proves the service, the token and the path).
async fn service_findings(global: &Global, s: &Settings) -> Vec<Finding> {
    let mut found = Vec::new();
    let name = |profile: Option<&str>| {
        profile.map_or_else(|| "top level".to_string(), |p| format!("profile {p}"))
    };
    found.push(probe(&name(s.profile.as_deref()), s).await);
    let overrides = global.overrides();
    let others = match config::configured_services(&overrides, &config::process_env) {
        Ok(o) => o,
        Err(e) => {
            found.push(finding("service", "others", Level::Problem, e.to_string()));
            return found;
        }
    };
    for other in others {
        if other.profile == s.profile {
            continue;
        }
        let what = name(other.profile.as_deref());
        match config::resolve_service(&overrides, &config::process_env, other.profile.as_deref()) {
            Ok(settings) => found.push(probe(&what, &settings).await),
            Err(e) => found.push(finding("service", what, Level::Problem, e.to_string())),
        }
    }
    found
}

/// One service: reachable, the token accepted, the path prefix right.
async fn probe(what: &str, s: &Settings) -> Finding {
    let client = match client_from(s) {
        Ok(c) => c,
        Err(failure) => {
            return Finding {
                code: failure.code,
                ..finding("service", what, Level::Problem, failure.message)
            };
        }
    };
    let url = client.base_url().to_string();
    let asked = tokio::time::timeout(
        SERVICE_BOUND,
        client.task_result(TaskKind::Image, "gendash-doctor-probe"),
    )
    .await;
    let problem = |detail: String, fix: &str, code: u8| Finding {
        code,
        ..finding("service", what, Level::Problem, detail).fix(fix)
    };
    match asked {
        Ok(Ok(_) | Err(ApiError::Lookup { .. })) => finding(
            "service",
            what,
            Level::Ok,
            format!("{url}: reachable, token accepted, path right"),
        ),
        Ok(Err(e @ ApiError::Auth { .. })) => problem(
            format!("{url}: {e}"),
            "store the right token: gendash config set-token",
            exit::AUTH,
        ),
        Ok(Err(e @ ApiError::WrongPath { .. })) => problem(
            format!("{url}: {e}"),
            "correct base_url's path prefix (e.g. /api/v1)",
            exit::NOT_FOUND,
        ),
        Ok(Err(e @ ApiError::Tls { .. })) => problem(
            e.to_string(),
            "trust the service's CA: SSL_CERT_FILE=its PEM file, or install the ca-certificates \
             package; else check base_url",
            exit::for_api_error(&e),
        ),
        Ok(Err(e)) => problem(
            super::explain(&e),
            "check base_url and that the service is up",
            exit::for_api_error(&e),
        ),
        Err(_) => problem(
            format!("{url}: no answer within {} s", SERVICE_BOUND.as_secs()),
            "check base_url and that the service is up",
            exit::TIMED_OUT,
        ),
    }
}

/// The watch list, the archive and the caches, read without changing anything.
fn data_findings(files: &DataFiles) -> Vec<Finding> {
    let area = "data";
    let mut found = Vec::new();
    let store = crate::store::watchlist::WatchStore::new(files.watchlist.clone());
    let path = files.watchlist.display();
    found.push(match store.inspect() {
        Ok(Some(n)) => finding(area, "watch list", Level::Ok, format!("{path}: {n} tasks")),
        Ok(None) => finding(area, "watch list", Level::Ok, format!("{path}: none yet")),
        Err(e) => finding(area, "watch list", Level::Problem, e.to_string())
            .fix("the dashboard sets an unreadable list aside and starts an empty one"),
    });
    found.push(if files.archive.exists() {
        let archive = crate::store::archive::Archive::open_to_read(
            &crate::store::archive::Files::from(files),
        );
        match archive.and_then(|a| a.count()) {
            Ok(n) => finding(
                area,
                "archive",
                Level::Ok,
                format!("{}: {n} tasks, readable", files.archive.display()),
            ),
            Err(e) => finding(area, "archive", Level::Problem, e.to_string())
                .fix("move the file away; the dashboard starts a new archive"),
        }
    } else {
        finding(
            area,
            "archive",
            Level::Ok,
            format!("{}: none yet", files.archive.display()),
        )
    });
    for (what, dir) in [
        ("preview cache", &files.previews),
        ("catalogue cache", &files.catalogue_cache),
    ] {
        let (bytes, count) = size_of(dir);
        found.push(finding(
            area,
            what,
            Level::Ok,
            format!(
                "{}: {} in {count} files",
                dir.display(),
                crate::fmt::size_short(bytes)
            ),
        ));
    }
    found
}

/// The bytes and the files under `path` (a file or a directory), at most 100,000 entries.
fn size_of(path: &Path) -> (u64, usize) {
    let mut stack = vec![path.to_path_buf()];
    let (mut bytes, mut files, mut seen) = (0u64, 0usize, 0usize);
    while let Some(p) = stack.pop() {
        seen += 1;
        if seen > 100_000 {
            break;
        }
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        if meta.is_dir() {
            if let Ok(entries) = std::fs::read_dir(&p) {
                stack.extend(entries.flatten().map(|e| e.path()));
            }
        } else if meta.is_file() {
            bytes += meta.len();
            files += 1;
        }
    }
    (bytes, files)
}

/// The programs gendash would run: clipboard, opener, ffmpeg.
fn program_findings(env: &dyn Fn(&str) -> Option<String>) -> Vec<Finding> {
    use crate::dashboard::probe::{clipboard_program, file_opener, on_path};
    let area = "programs";
    let mut found = vec![match clipboard_program(env) {
        Some(argv) => finding(area, "clipboard", Level::Ok, argv.join(" ")),
        None => finding(
            area,
            "clipboard",
            Level::Warning,
            "no clipboard program: copies go by OSC 52, which the terminal must allow".into(),
        )
        .fix("install wl-copy, xclip or xsel, or allow OSC 52 (tmux: set -g set-clipboard on)"),
    }];
    found.push(match file_opener(env) {
        Some(argv) if on_path(&argv[0]) || argv[0].contains('/') => {
            finding(area, "opener", Level::Ok, argv.join(" "))
        }
        Some(argv) => finding(
            area,
            "opener",
            Level::Warning,
            format!("{} is not on PATH", argv[0]),
        )
        .fix("install it, or set GENDASH_OPENER"),
        None => finding(
            area,
            "opener",
            Level::Warning,
            "no display: files and links are shown to copy, not opened".into(),
        )
        .fix("set GENDASH_OPENER to a program that opens files"),
    });
    // Found as the previews find it.
    found.push(match crate::store::program::ffmpeg() {
        Some(ffmpeg) => finding(area, "ffmpeg", Level::Ok, ffmpeg.display().to_string()),
        None => finding(area, "ffmpeg", Level::Warning, "not on PATH".into())
            .fix(crate::store::program::INSTALL_FFMPEG),
    });
    found
}
