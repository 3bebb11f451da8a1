//! Opening links in the user's browser and saved files in their viewer: links only http/https
//! (checked by `validate_link`); the URL or path passed as one argument to a program started
//! directly — never through a shell. Where nothing could show it (Linux without a display, as
//! over SSH), nothing is started: the caller shows and copies it instead.

use crate::api::links::validate_link;
use crate::msg::{Msg, Opened};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::mpsc;
use url::Url;

/// What is opened: `$BROWSER` is for links only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opening {
    Link,
    File,
}

/// How a launch went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    Started,
    /// No program could show it here.
    NoDisplay,
}

/// Something that can open a checked URL or a saved file; injected so tests can record calls.
pub trait Opener: Send + Sync {
    fn launch(&self, target: &OsStr, what: Opening) -> Result<Launch, OpenError>;
}

/// Why the opener could not start.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("the opener names no program")]
    NoProgram,
    #[error("cannot run {program}: {source}")]
    Run {
        program: String,
        source: std::io::Error,
    },
}

/// Opens with the program [`opener_command`] picks from the process environment.
pub struct SystemOpener;

impl Opener for SystemOpener {
    fn launch(&self, target: &OsStr, what: Opening) -> Result<Launch, OpenError> {
        let Some(argv) = opener_command(
            what,
            &crate::store::config::process_env,
            cfg!(target_os = "macos"),
        ) else {
            return Ok(Launch::NoDisplay);
        };
        let (program, rest) = argv.split_first().ok_or(OpenError::NoProgram)?;
        let mut command = std::process::Command::new(program);
        command.args(arguments(rest, target));
        let mut child = command
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|source| OpenError::Run {
                program: program.clone(),
                source,
            })?;
        // Reap it in the background so no zombie is left.
        std::thread::spawn(move || child.wait());
        Ok(Launch::Started)
    }
}

/// The opener's arguments and the target: where an argument holds `%s` (`$BROWSER`'s
/// convention) the target goes there, else it comes last.
fn arguments(rest: &[String], target: &OsStr) -> Vec<std::ffi::OsString> {
    let mut placed = false;
    let mut out: Vec<std::ffi::OsString> = rest
        .iter()
        .map(|arg| {
            let mut parts = arg.split("%s");
            let mut with = std::ffi::OsString::from(parts.next().unwrap_or_default());
            for part in parts {
                placed = true;
                with.push(target);
                with.push(part);
            }
            with
        })
        .collect();
    if !placed {
        out.push(target.to_os_string());
    }
    out
}

/// The program and arguments that open a `what`: `GENDASH_OPENER` if set (always: the user
/// chose it, and it may forward to another machine), else for a link `$BROWSER`, else the
/// platform's opener (`open` on macOS, `xdg-open`). Both may hold arguments, split on white
/// space as `token_command` is (of a `:`-separated `$BROWSER` list, the first). `None` where nothing could show it: Linux and the BSDs without
/// `DISPLAY` or `WAYLAND_DISPLAY`, where `$BROWSER` and `xdg-open` would fail or take over
/// the terminal.
pub fn opener_command(
    what: Opening,
    env: &dyn Fn(&str) -> Option<String>,
    macos: bool,
) -> Option<Vec<String>> {
    let split = |text: &str| {
        Some(
            text.split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>(),
        )
        .filter(|argv| !argv.is_empty())
    };
    if let Some(argv) = env("GENDASH_OPENER").and_then(|v| split(&v)) {
        return Some(argv);
    }
    let display = macos
        || ["DISPLAY", "WAYLAND_DISPLAY"]
            .iter()
            .any(|v| env(v).is_some_and(|d| !d.is_empty()));
    if !display {
        return None;
    }
    // `$BROWSER` may list several, separated by `:`: the first is used.
    let browser = env("BROWSER").and_then(|v| split(v.split(':').next().unwrap_or_default()));
    if what == Opening::Link
        && let Some(argv) = browser
    {
        return Some(argv);
    }
    Some(vec![if macos { "open" } else { "xdg-open" }.to_string()])
}

/// The App's handle on opening: each link or file is opened on a blocking thread, and the
/// answer reaches the App as `Msg::Opened`.
pub struct Handle {
    opener: Arc<dyn Opener>,
    msgs: mpsc::Sender<Msg>,
}

/// Opens with `opener`.
pub fn spawn(opener: Arc<dyn Opener>, msgs: mpsc::Sender<Msg>) -> Handle {
    Handle { opener, msgs }
}

impl Handle {
    /// Opens a link (`Cmd::Open`).
    pub fn open(&self, url: String) {
        self.blocking(move |opener| open_link(opener, &url));
    }

    /// Opens a saved file (`Cmd::OpenFile`, `O`).
    pub fn open_file(&self, path: PathBuf) {
        self.blocking(move |opener| open_file(opener, &path));
    }

    fn blocking(&self, open: impl FnOnce(&dyn Opener) -> Opened + Send + 'static) {
        let (opener, msgs) = (self.opener.clone(), self.msgs.clone());
        tokio::task::spawn_blocking(move || {
            let _ = msgs.blocking_send(Msg::Opened(open(opener.as_ref())));
        });
    }
}

/// Checks `raw` and opens it; a refusal says why.
pub fn open_link(opener: &dyn Opener, raw: &str) -> Opened {
    let url: Url = match validate_link(raw) {
        Ok(url) => url,
        Err(e) => return Opened::Failed(e.to_string()),
    };
    match opener.launch(OsStr::new(url.as_str()), Opening::Link) {
        Ok(Launch::Started) => Opened::Launched(url.to_string()),
        Ok(Launch::NoDisplay) => Opened::NoDisplay(url.to_string()),
        Err(e) => Opened::Failed(e.to_string()),
    }
}

/// Opens a saved file (an absolute path the App recorded, so never taken for an option).
pub fn open_file(opener: &dyn Opener, path: &Path) -> Opened {
    let shown = path.display().to_string();
    if !path.is_absolute() {
        return Opened::Failed(format!("refused to open {shown}: not an absolute path"));
    }
    if !path.is_file() {
        return Opened::Missing(shown);
    }
    match opener.launch(path.as_os_str(), Opening::File) {
        Ok(Launch::Started) => Opened::Launched(shown),
        Ok(Launch::NoDisplay) => Opened::NoDisplay(shown),
        Err(e) => Opened::Failed(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workers::clipboard::tests::env_of;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Recorder(Mutex<Vec<String>>);

    impl Opener for Recorder {
        fn launch(&self, target: &OsStr, _: Opening) -> Result<Launch, OpenError> {
            self.0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(target.to_string_lossy().into_owned());
            Ok(Launch::Started)
        }
    }

    #[test]
    fn only_http_links_reach_the_opener() {
        let rec = Recorder::default();
        for raw in crate::api::links::hostile_links() {
            let Opened::Failed(reason) = open_link(&rec, &raw) else {
                panic!("{raw} was not refused");
            };
            assert!(reason.starts_with("refused to open link: "), "{reason}");
            assert!(reason.len() > "refused to open link: ".len());
        }
        assert!(
            rec.0.lock().expect("lock").is_empty(),
            "nothing was launched"
        );
        assert_eq!(
            open_link(&rec, "https://lora-hub.example.com/m/1"),
            Opened::Launched("https://lora-hub.example.com/m/1".into())
        );
        assert_eq!(rec.0.lock().expect("lock").len(), 1);
    }

    #[test]
    fn only_saved_files_that_are_there_reach_the_opener() {
        let rec = Recorder::default();
        let dir = tempfile::tempdir().expect("dir");
        let file = dir.path().join("a.png");
        assert_eq!(
            open_file(&rec, &file),
            Opened::Missing(file.display().to_string())
        );
        assert!(matches!(
            open_file(&rec, Path::new("-a.png")),
            Opened::Failed(e) if e.contains("not an absolute path")
        ));
        std::fs::write(&file, b"png").expect("write");
        assert_eq!(
            open_file(&rec, &file),
            Opened::Launched(file.display().to_string())
        );
        assert_eq!(*rec.0.lock().expect("lock"), [file.display().to_string()]);
    }

    #[test]
    fn the_target_goes_where_percent_s_says_else_last() {
        let args = |rest: &[&str]| {
            let rest: Vec<String> = rest.iter().map(|s| (*s).to_string()).collect();
            arguments(&rest, OsStr::new("https://x/a b"))
        };
        assert_eq!(args(&["--new-tab"]), ["--new-tab", "https://x/a b"]);
        assert_eq!(
            args(&["--url=%s", "--quiet"]),
            ["--url=https://x/a b", "--quiet"]
        );
        assert_eq!(args(&[]), ["https://x/a b"]);
    }

    #[test]
    fn the_opener_is_chosen_from_the_environment_and_split_on_white_space() {
        let argv = |what, pairs, macos| opener_command(what, &env_of(pairs), macos);
        let strings = |v: &[&str]| Some(v.iter().map(|s| (*s).to_string()).collect::<Vec<_>>());
        // Over SSH (no display) nothing is started, unless GENDASH_OPENER says what.
        assert_eq!(argv(Opening::Link, &[("BROWSER", "firefox")], false), None);
        assert_eq!(argv(Opening::File, &[("DISPLAY", "")], false), None);
        assert_eq!(
            argv(
                Opening::Link,
                &[("GENDASH_OPENER", "  ssh-open  --remote ")],
                false
            ),
            strings(&["ssh-open", "--remote"])
        );
        assert_eq!(
            argv(
                Opening::Link,
                &[("DISPLAY", ":0"), ("BROWSER", "firefox --new-window")],
                false
            ),
            strings(&["firefox", "--new-window"])
        );
        assert_eq!(
            argv(
                Opening::Link,
                &[("DISPLAY", ":0"), ("BROWSER", "firefox -P work:chromium")],
                false
            ),
            strings(&["firefox", "-P", "work"])
        );
        // $BROWSER is for links; a picture goes to the platform's opener.
        assert_eq!(
            argv(
                Opening::File,
                &[("WAYLAND_DISPLAY", "wayland-0"), ("BROWSER", "firefox")],
                false
            ),
            strings(&["xdg-open"])
        );
        assert_eq!(
            argv(Opening::Link, &[("GENDASH_OPENER", " ")], true),
            strings(&["open"])
        );
    }
}
