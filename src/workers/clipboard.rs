//! Copying: a native clipboard program first (`wl-copy` under Wayland, `xclip` or `xsel`
//! under X, `pbcopy` on macOS), given the text on its standard input and trusted only when it
//! exits 0; else the App sends OSC 52 to the terminal, and says it only sent it.

use crate::cmd::Clip;
use crate::msg::{CopiedVia, Msg};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// How long a clipboard program may take to read the text and exit (`xclip`, `xsel` and
/// `wl-copy` leave a child behind to serve the selection; the program itself returns).
const PROGRAM_BOUND: Duration = Duration::from_secs(3);

/// The clipboard program to use, with its arguments: the first that fits the session and is on
/// `PATH`.
pub fn native_program(
    env: &dyn Fn(&str) -> Option<String>,
    macos: bool,
    on_path: &dyn Fn(&str) -> bool,
) -> Option<Vec<String>> {
    let set = |name: &str| env(name).is_some_and(|v| !v.is_empty());
    let candidates: &[&[&str]] = &[
        &["pbcopy"],
        &["wl-copy"],
        &["xclip", "-selection", "clipboard"],
        &["xsel", "--clipboard", "--input"],
    ];
    candidates
        .iter()
        .filter(|argv| match argv[0] {
            "pbcopy" => macos,
            "wl-copy" => set("WAYLAND_DISPLAY"),
            _ => set("DISPLAY"),
        })
        .find(|argv| on_path(argv[0]))
        .map(|argv| argv.iter().map(|a| (*a).to_string()).collect())
}

/// Whether `program` is an executable file in one of `path`'s directories.
pub fn on_path(program: &str, path: Option<&std::ffi::OsStr>) -> bool {
    path.is_some_and(|p| std::env::split_paths(p).any(|dir| is_executable(&dir.join(program))))
}

fn is_executable(file: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(file).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        file.is_file()
    }
}

/// Why a clipboard program did not take the text.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    #[error("no clipboard program")]
    NoProgram,
    #[error("{program} could not start: {source}")]
    Start {
        program: String,
        source: std::io::Error,
    },
    #[error("{program} did not take the text: {source}")]
    Write {
        program: String,
        source: std::io::Error,
    },
    #[error("{program} failed ({status})")]
    Failed {
        program: String,
        status: std::process::ExitStatus,
    },
    #[error("{program} did not finish within {}s", PROGRAM_BOUND.as_secs())]
    TooSlow { program: String },
    #[error("{program}: {source}")]
    Wait {
        program: String,
        source: std::io::Error,
    },
}

/// Gives `text` to the program on its standard input and waits for it to exit 0.
pub fn copy_with(argv: &[String], text: &str) -> Result<(), CopyError> {
    let (program, rest) = argv.split_first().ok_or(CopyError::NoProgram)?;
    let named = || program.clone();
    let mut child = std::process::Command::new(program)
        .args(rest)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|source| CopyError::Start {
            program: named(),
            source,
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(text.as_bytes())
            .map_err(|source| CopyError::Write {
                program: named(),
                source,
            })?;
    }
    let deadline = Instant::now() + PROGRAM_BOUND;
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return Ok(()),
            Ok(Some(status)) => {
                return Err(CopyError::Failed {
                    program: named(),
                    status,
                });
            }
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(CopyError::TooSlow { program: named() });
            }
            Err(source) => {
                return Err(CopyError::Wait {
                    program: named(),
                    source,
                });
            }
        }
    }
}

/// The App's handle on copying: each clip is copied on a blocking thread, and the answer
/// (`Msg::Copied`) says how, or that the terminal is to be sent OSC 52.
pub struct Handle {
    msgs: mpsc::Sender<Msg>,
}

/// Copies with the clipboard program the process environment names, if any.
pub fn spawn(msgs: mpsc::Sender<Msg>) -> Handle {
    Handle { msgs }
}

impl Handle {
    /// Copies `clip` (`Cmd::Copy`), off the UI loop.
    pub fn copy(&self, clip: Clip) {
        let msgs = self.msgs.clone();
        tokio::task::spawn_blocking(move || {
            let via = copy(
                &clip.text,
                &crate::store::config::process_env,
                cfg!(target_os = "macos"),
            );
            let _ = msgs.blocking_send(Msg::Copied { clip, via });
        });
    }
}

/// Copies `text` the best way this session has: a clipboard program, else (the caller sends
/// it) OSC 52, wrapped for tmux when inside it. Blocking: for a blocking thread.
pub fn copy(text: &str, env: &dyn Fn(&str) -> Option<String>, macos: bool) -> CopiedVia {
    let path = env("PATH").map(std::ffi::OsString::from);
    let found = native_program(env, macos, &|p| on_path(p, path.as_deref()));
    let failed = match found {
        Some(argv) => match copy_with(&argv, text) {
            Ok(()) => return CopiedVia::Program(argv[0].clone()),
            Err(e) => Some(e.to_string()),
        },
        None => None,
    };
    CopiedVia::Terminal {
        tmux: env("TMUX").is_some_and(|v| !v.is_empty()),
        failed,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// An environment of `pairs` alone, as the functions under test read one.
    pub(in crate::workers) fn env_of(
        pairs: &'static [(&'static str, &'static str)],
    ) -> impl Fn(&str) -> Option<String> {
        move |k| {
            pairs
                .iter()
                .find(|(name, _)| *name == k)
                .map(|(_, v)| (*v).to_string())
        }
    }

    #[test]
    fn the_program_fits_the_session() {
        let all = |_: &str| true;
        let first =
            |pairs, macos| native_program(&env_of(pairs), macos, &all).map(|argv| argv[0].clone());
        assert_eq!(first(&[], false), None, "no display: none");
        assert_eq!(first(&[("DISPLAY", ":0")], false).as_deref(), Some("xclip"));
        assert_eq!(
            first(
                &[("DISPLAY", ":0"), ("WAYLAND_DISPLAY", "wayland-0")],
                false
            )
            .as_deref(),
            Some("wl-copy")
        );
        assert_eq!(first(&[], true).as_deref(), Some("pbcopy"));
        let only_xsel = |p: &str| p == "xsel";
        assert_eq!(
            native_program(&env_of(&[("DISPLAY", ":1")]), false, &only_xsel),
            Some(vec!["xsel".into(), "--clipboard".into(), "--input".into()])
        );
        let none = |_: &str| false;
        assert_eq!(
            native_program(&env_of(&[("DISPLAY", ":1")]), false, &none),
            None
        );
    }

    #[test]
    fn a_program_is_trusted_only_when_it_exits_zero() {
        let dir = tempfile::tempdir().expect("dir");
        let out = dir.path().join("got");
        let ok = vec![
            "sh".to_string(),
            "-c".into(),
            format!("cat > '{}'", out.display()),
        ];
        assert!(copy_with(&ok, "hello").is_ok());
        assert_eq!(std::fs::read_to_string(&out).expect("read"), "hello");
        let failing = vec![
            "sh".to_string(),
            "-c".into(),
            "cat >/dev/null; exit 3".into(),
        ];
        assert!(matches!(
            copy_with(&failing, "x"),
            Err(CopyError::Failed { .. })
        ));
        let missing = vec!["/nonexistent/xclip".to_string()];
        assert!(matches!(
            copy_with(&missing, "x"),
            Err(CopyError::Start { .. })
        ));
        // Without a program, the terminal gets it: wrapped for tmux inside tmux.
        assert_eq!(
            copy("x", &env_of(&[("TMUX", "/tmp/tmux-1/default,1,0")]), false),
            CopiedVia::Terminal {
                tmux: true,
                failed: None
            }
        );
    }
}
