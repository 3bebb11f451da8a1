//! How the user's programs are run, the hooks (`on_complete`, `on_all_done`) and the actions
//! (`[[actions]]`, in the dashboard and `gendash run-action`) alike (here, below the workers and
//! the command line, which both run them; `token_command` is run beside it, in `config`): without a shell, stdin closed, output captured, in a process group of
//! their own that is stopped whole when the time limit passes (or the dashboard goes), and
//! without the token in their environment.

use crate::api::sanitize::sanitize;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

/// The variable the token may come from: a program the user runs on a task has no use for it.
pub const TOKEN_VARIABLE: &str = "GENDASH_TOKEN";

/// What a video's preview and `gendash doctor` say when there is no ffmpeg.
pub const INSTALL_FFMPEG: &str = "install ffmpeg to see a frame of the video";

/// `program` in one of `path`'s directories (a `PATH` value), if it is there and executable.
pub fn find_in(program: &str, path: Option<&std::ffi::OsStr>) -> Option<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(path?)
        .map(|dir| dir.join(program))
        .find(|file| {
            std::fs::metadata(file)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// `ffmpeg` on this process's `PATH`, looked for once (the previews make videos' frames with
/// it; `gendash doctor` reports it).
pub fn ffmpeg() -> Option<std::path::PathBuf> {
    static FOUND: std::sync::OnceLock<Option<std::path::PathBuf>> = std::sync::OnceLock::new();
    FOUND
        .get_or_init(|| find_in("ffmpeg", std::env::var_os("PATH").as_deref()))
        .clone()
}

/// A program that ran to its end.
#[derive(Debug)]
pub struct Ran {
    /// The program's name, sanitised.
    pub program: String,
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl Ran {
    /// Writes to the log how it ended and the first `chars` characters of each output,
    /// sanitised, as "`what` ran".
    pub fn log(&self, what: &str, chars: usize) {
        let shown = |bytes: &[u8]| {
            let text = String::from_utf8_lossy(bytes);
            sanitize(&text.chars().take(chars).collect::<String>())
        };
        tracing::info!(
            program = %self.program,
            status = %self.status,
            stdout = %shown(&self.stdout),
            stderr = %shown(&self.stderr),
            "{what} ran"
        );
    }

    /// The last line it wrote that has any text, stdout's before stderr's, sanitised.
    /// Its last `lines` lines with any text (stdout's, then stderr's), sanitised, joined with
    /// ` ⏎ ` and cut to `chars` characters from the end: what the request log shows of a run.
    pub fn tail(&self, lines: usize, chars: usize) -> Option<String> {
        let mut kept: Vec<String> = [&self.stdout, &self.stderr]
            .into_iter()
            .flat_map(|bytes| {
                String::from_utf8_lossy(bytes)
                    .lines()
                    .map(|l| sanitize(l).trim().to_string())
                    .filter(|l| !l.is_empty())
                    .collect::<Vec<_>>()
            })
            .collect();
        let from = kept.len().saturating_sub(lines);
        kept.drain(..from);
        let joined = kept.join(" ⏎ ");
        let count = joined.chars().count();
        (!joined.is_empty()).then(|| joined.chars().skip(count.saturating_sub(chars)).collect())
    }

    pub fn last_line(&self) -> Option<String> {
        [&self.stdout, &self.stderr].into_iter().find_map(|bytes| {
            String::from_utf8_lossy(bytes)
                .lines()
                .rev()
                .map(|l| sanitize(l).trim().to_string())
                .find(|l| !l.is_empty())
        })
    }
}

/// Why a program did not run to its end; each names it (sanitised).
#[derive(Debug, thiserror::Error)]
pub enum ProgramError {
    #[error("names no program")]
    NoProgram,
    #[error("cannot run {program}: {source}")]
    Start {
        program: String,
        source: std::io::Error,
    },
    #[error("{program} took longer than {}s and was stopped", timeout.as_secs())]
    TooSlow { program: String, timeout: Duration },
    #[error("{program}: {source}")]
    Wait {
        program: String,
        source: std::io::Error,
    },
}

/// Runs `args` (a program and its arguments) for at most `timeout`.
pub async fn run(args: &[String], timeout: Duration) -> Result<Ran, ProgramError> {
    run_with(args, timeout, &[]).await
}

/// [`run`], with `given` set in the environment it inherits first (a test's token).
pub async fn run_with(
    args: &[String],
    timeout: Duration,
    given: &[(&str, &str)],
) -> Result<Ran, ProgramError> {
    let (name, child, group) = start(args, given)?;
    let Ok(output) = tokio::time::timeout(timeout, child.wait_with_output()).await else {
        return Err(stopped(name, group, timeout));
    };
    let output = output.map_err(|source| ProgramError::Wait {
        program: name.clone(),
        source,
    })?;
    Ok(Ran {
        program: name,
        status: output.status,
        stdout: output.stdout,
        stderr: output.stderr,
    })
}

/// [`run`], keeping at most `cap` bytes of each output: the first of stdout, the last of
/// stderr (where a program says why it failed). Also returns how many bytes stdout had in all,
/// so a caller sees what was cut.
pub async fn run_capped(
    args: &[String],
    timeout: Duration,
    cap: usize,
) -> Result<(Ran, u64), ProgramError> {
    use tokio::io::AsyncReadExt;
    let (name, mut child, group) = start(args, &[])?;
    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
    let finished = async {
        let head = async {
            let mut kept = Vec::new();
            let mut total = 0u64;
            let mut buf = vec![0u8; 64 * 1024];
            if let Some(mut out) = stdout {
                while let Ok(n) = out.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    total += n as u64;
                    let room = cap.saturating_sub(kept.len()).min(n);
                    kept.extend_from_slice(&buf[..room]);
                }
            }
            (kept, total)
        };
        let tail = async {
            let mut kept = Vec::new();
            let mut buf = vec![0u8; 16 * 1024];
            if let Some(mut err) = stderr {
                while let Ok(n) = err.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    kept.extend_from_slice(&buf[..n]);
                    // Trimmed now and then, not at every read: memory stays under 2 x `cap`.
                    if kept.len() > 2 * cap {
                        kept.drain(..kept.len() - cap);
                    }
                }
            }
            kept.drain(..kept.len().saturating_sub(cap));
            kept
        };
        let ((stdout, total), stderr) = tokio::join!(head, tail);
        child
            .wait()
            .await
            .map(|status| (status, stdout, total, stderr))
    };
    let Ok(ended) = tokio::time::timeout(timeout, finished).await else {
        return Err(stopped(name, group, timeout));
    };
    let (status, stdout, total, stderr) = ended.map_err(|source| ProgramError::Wait {
        program: name.clone(),
        source,
    })?;
    let ran = Ran {
        program: name,
        status,
        stdout,
        stderr,
    };
    Ok((ran, total))
}

/// Starts `args` with the environment it inherits (plus `given`, less the token), stdin
/// closed, both outputs piped, in a process group of its own. Returns its sanitised name, the
/// child and the group.
fn start(
    args: &[String],
    given: &[(&str, &str)],
) -> Result<(String, tokio::process::Child, Option<rustix::process::Pid>), ProgramError> {
    let Some((program, rest)) = args.split_first() else {
        return Err(ProgramError::NoProgram);
    };
    let name = sanitize(program);
    let child = tokio::process::Command::new(program)
        .args(rest)
        .envs(given.iter().copied())
        .env_remove(TOKEN_VARIABLE)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own group, so what it starts is stopped with it.
        .process_group(0)
        // A program that outlives its time (or the dashboard) is stopped, never left behind.
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| ProgramError::Start {
            program: name.clone(),
            source,
        })?;
    let group = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .and_then(rustix::process::Pid::from_raw);
    Ok((name, child, group))
}

/// The time limit passed: what the program started goes with its group (the child itself is
/// killed when it is dropped).
fn stopped(
    program: String,
    group: Option<rustix::process::Pid>,
    timeout: Duration,
) -> ProgramError {
    if let Some(group) = group {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
    ProgramError::TooSlow { program, timeout }
}
