//! Helpers shared by the integration tests: the reference service on an ephemeral loopback
//! port, a fault server on a raw `TcpListener` that misbehaves on purpose, and a recording
//! service ([`recorder`]) that counts what crossed the wire (requests, `Authorization`
//! headers, bodies), alone or in front of a real service.

pub mod pty;
pub mod recorder;

use gendash::api::Secret;
use gendash::api::{Client, ClientOptions};
use gendash::server::{self, Options, Running};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use url::Url;

pub const TOKEN: &str = "test-token-SECRET-4b1d";

/// The dashboard drawn at `width` x `height`, as the text of its cells.
pub fn rendered_text(state: &gendash::app::state::State, width: u16, height: u16) -> String {
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(width, height)).unwrap();
    t.draw(|f| {
        gendash::ui::render(state, f);
    })
    .unwrap();
    buffer_text(t.backend().buffer())
}

/// A buffer's cells as one string, row after row. A loop of `push_str`, not an iterator
/// collected: unoptimised (as tests are built), collecting goes character by character.
pub fn buffer_text(buffer: &ratatui::buffer::Buffer) -> String {
    let mut text = String::with_capacity(buffer.content().len());
    for cell in buffer.content() {
        text.push_str(cell.symbol());
    }
    text
}

/// The dashboard drawn at the size it was last given (`areas.full`).
pub fn drawn(
    state: &gendash::app::state::State,
) -> ratatui::Terminal<ratatui::backend::TestBackend> {
    let a = state.areas.full;
    let mut t =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(a.width, a.height)).unwrap();
    t.draw(|f| {
        gendash::ui::render(state, f);
    })
    .unwrap();
    t
}

/// The whole environment a child process starts with: nothing inherited but `PATH`; `HOME` and
/// the XDG directories under `home`. So no `GENDASH_*`, `NO_COLOR` or config of the developer's
/// shell reaches a test's child; each test adds what it means to set.
pub fn clean_env(home: &Path) -> Vec<(&'static str, OsString)> {
    vec![
        ("PATH", std::env::var_os("PATH").unwrap_or_default()),
        ("HOME", home.into()),
        ("XDG_CONFIG_HOME", home.join("config").into()),
        ("XDG_DATA_HOME", home.join("data").into()),
        ("XDG_STATE_HOME", home.join("state").into()),
    ]
}

/// `program` with only [`clean_env`], started in `home`.
pub fn clean_command(program: impl AsRef<OsStr>, home: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(program);
    cmd.env_clear().envs(clean_env(home)).current_dir(home);
    cmd
}

/// The `gendash` binary with only [`clean_env`], started in `home`.
pub fn gendash(home: &Path) -> std::process::Command {
    clean_command(env!("CARGO_BIN_EXE_gendash"), home)
}

/// [`gendash`] for async tests; killed if the test drops it.
pub fn gendash_async(home: &Path) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::from(gendash(home));
    cmd.kill_on_drop(true);
    cmd
}

/// Writes `text` as the config file of `home` (`config/gendash/config.toml`, where a child
/// with [`clean_env`] looks for it); returns the file's path.
pub fn write_config(home: &Path, text: &str) -> PathBuf {
    let dir = home.join("config/gendash");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("config.toml");
    std::fs::write(&file, text).unwrap();
    file
}

/// A config for a dashboard under test: quick polls, no bell or desktop notifications, files
/// saved in `~/dl`.
pub const QUICK_TO_DL: &str = "poll_interval = 0.2\nbell = false\ndesktop_notifications = false\n\
                               download_dir = \"~/dl\"\n";

/// Runs [`gendash`] in `home` with `args` and asserts it succeeded.
pub fn gendash_ok(home: &Path, args: &[&str]) -> std::process::Output {
    let out = gendash(home).args(args).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    out
}

/// A home of its own and the reference service on a runtime of its own: the set-up of the
/// tests that run the real binary against the service.
pub struct Served {
    pub home: tempfile::TempDir,
    /// The service's base URL, as `--base-url` takes it.
    pub base: String,
    pub svc: Running,
    pub rt: tokio::runtime::Runtime,
}

impl Served {
    /// A fresh home (no config yet) and the service.
    pub fn new() -> Self {
        let home = tempfile::tempdir().unwrap();
        let rt = tokio::runtime::Runtime::new().unwrap();
        let svc = rt.block_on(service());
        let base = svc.base_url().to_string();
        Self {
            home,
            base,
            svc,
            rt,
        }
    }

    /// [`Served::new`] with `config` as the config file and `watch add ARGS` (for the service)
    /// done.
    pub fn with(config: &str, add: &[&str]) -> Self {
        let served = Self::new();
        served.config(config);
        served.watch_add(add);
        served
    }

    pub fn path(&self) -> &Path {
        self.home.path()
    }

    /// Writes `text` as the home's config file.
    pub fn config(&self, text: &str) -> PathBuf {
        write_config(self.path(), text)
    }

    /// `gendash --base-url BASE watch add ARGS`, which must succeed.
    pub fn watch_add(&self, args: &[&str]) {
        let mut all = vec!["--base-url", self.base.as_str(), "watch", "add"];
        all.extend_from_slice(args);
        gendash_ok(self.path(), &all);
    }

    /// The service's address and token, as a dashboard started on the home is given them.
    pub fn env(&self) -> [(&'static str, &str); 2] {
        [
            ("GENDASH_TOKEN", TOKEN),
            ("GENDASH_BASE_URL", self.base.as_str()),
        ]
    }
}

pub async fn service() -> Running {
    service_with(Options::new(Secret::new(TOKEN))).await
}

pub async fn service_with(options: Options) -> Running {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    server::start(listener, options).unwrap()
}

/// A plain HTTP client for looking at the wire without gendash's client. reqwest is built
/// without a default TLS provider, so one is installed here: each test may run in a process of
/// its own (`cargo nextest`), where no other test installed it first.
pub fn raw_http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

/// What the reference service counted (`GET /_gendash/stats`), asked with the token.
pub fn service_stats(
    rt: &tokio::runtime::Runtime,
    svc: &gendash::server::Running,
) -> serde_json::Value {
    let url = svc.base_url().join("_gendash/stats").expect("stats URL");
    rt.block_on(async {
        raw_http()
            .get(url)
            .bearer_auth(TOKEN)
            .send()
            .await
            .expect("stats asked")
            .json()
            .await
            .expect("stats as JSON")
    })
}

pub fn client(base: &Url) -> Client {
    client_with(base, TOKEN, Duration::from_secs(5))
}

pub fn client_with(base: &Url, token: &str, timeout: Duration) -> Client {
    Client::new(&ClientOptions {
        base_url: base.clone(),
        token: Secret::new(token),
        request_timeout: timeout,
        allow_insecure_http: false,
    })
    .unwrap()
}

/// How the fault server misbehaves on every connection.
#[derive(Clone, Debug)]
pub enum Fault {
    /// Accepts and never answers.
    Hang,
    /// Sends a valid head then one body byte every `interval` (at most 200 bytes).
    Trickle(Duration),
    /// Announces a Content-Length and closes after fewer bytes.
    ShortBody,
    /// Resets the connection after reading the request.
    Reset,
    /// Streams a chunked body without end: a catalogue's start, then one endless string
    /// (bounded at 128 MiB, far over the caps the tests set, so the loop ends).
    Forever,
    /// Sends this exact response, then closes.
    Raw(String),
    /// Sends the response listed for the request's path (query ignored), else a 404.
    Routes(Vec<(String, String)>),
    /// Sends the n-th response to the n-th connection (the last one again after that), then
    /// closes: a server whose answers change from one attempt to the next.
    Sequence(Vec<String>),
}

pub struct FaultServer {
    pub addr: std::net::SocketAddr,
    /// Every request head received, verbatim.
    pub requests: Arc<Mutex<Vec<String>>>,
    /// Bytes written by `Forever`, to check the client stopped reading early.
    pub written: Arc<Mutex<u64>>,
    task: tokio::task::JoinHandle<()>,
}

impl FaultServer {
    pub fn url(&self) -> Url {
        Url::parse(&format!("http://{}", self.addr)).unwrap()
    }
}

impl Drop for FaultServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

pub fn response(status: &str, content_type: &str, extra_headers: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n{extra_headers}\r\n{body}",
        body.len()
    )
}

/// A request's head as read off `stream`: up to its blank line, at most 64 KiB.
pub async fn read_head(stream: &mut TcpStream) -> String {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1024];
    while buf.len() < 64 * 1024 {
        match stream.read(&mut byte).await {
            Ok(0) | Err(_) => break,
            Ok(n) => buf.extend_from_slice(&byte[..n]),
        }
        if buf.windows(4).any(|w| w == b"\r\n\r\n") {
            break;
        }
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// A server that answers any request with an empty catalogue (the other origin of redirect tests).
pub async fn empty_catalogue_server() -> FaultServer {
    fault_server(Fault::Raw(response(
        "200 OK",
        "application/json",
        "",
        r#"{"data": []}"#,
    )))
    .await
}

pub async fn fault_server(fault: Fault) -> FaultServer {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let requests = Arc::new(Mutex::new(Vec::new()));
    let written = Arc::new(Mutex::new(0u64));
    let (seen, counter) = (requests.clone(), written.clone());
    let task = tokio::spawn(async move {
        let mut hung = Vec::new();
        for n in 0..64 {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let head = read_head(&mut stream).await;
            let fault = match &fault {
                Fault::Routes(routes) => Fault::Raw(route(routes, &head)),
                Fault::Sequence(answers) => {
                    Fault::Raw(answers[n.min(answers.len().saturating_sub(1))].clone())
                }
                other => other.clone(),
            };
            seen.lock().unwrap().push(head);
            let written = counter.clone();
            match fault {
                Fault::Hang => hung.push(stream),
                _ => {
                    tokio::spawn(async move { misbehave(stream, fault, written).await });
                }
            }
        }
    });
    FaultServer {
        addr,
        requests,
        written,
        task,
    }
}

async fn misbehave(mut stream: TcpStream, fault: Fault, written: Arc<Mutex<u64>>) {
    match fault {
        Fault::Hang => {}
        Fault::Trickle(every) => {
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n")
                .await;
            for _ in 0..200 {
                if stream.write_all(b" ").await.is_err() {
                    return;
                }
                tokio::time::sleep(every).await;
            }
        }
        Fault::ShortBody => {
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"data\": [")
                .await;
        }
        Fault::Reset => {
            let std = stream.into_std().unwrap();
            let sock = socket2::SockRef::from(&std);
            let _ = sock.set_linger(Some(Duration::ZERO));
            drop(std);
        }
        Fault::Forever => {
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
                .await;
            // The start of a valid catalogue, then one endless string: a decoder reading as the
            // body arrives finds nothing wrong, so only the cap can stop it.
            let start = r#"{"data":[{"model":""#;
            let _ = stream
                .write_all(format!("{:x}\r\n{start}\r\n", start.len()).as_bytes())
                .await;
            let chunk = format!("{:x}\r\n{}\r\n", 64 * 1024, "x".repeat(64 * 1024));
            for _ in 0..2048 {
                if stream.write_all(chunk.as_bytes()).await.is_err() {
                    return;
                }
                *written.lock().unwrap() += 64 * 1024;
            }
        }
        Fault::Raw(text) => {
            let _ = stream.write_all(text.as_bytes()).await;
            let _ = stream.shutdown().await;
        }
        Fault::Routes(_) | Fault::Sequence(_) => {
            unreachable!("routes and sequences are resolved to a response on accept")
        }
    }
}

/// The response `routes` give for the request whose head is `head`.
fn route(routes: &[(String, String)], head: &str) -> String {
    let target = head.split_whitespace().nth(1).unwrap_or("");
    let path = target.split('?').next().unwrap_or("");
    routes.iter().find(|(p, _)| p == path).map_or_else(
        || response("404 Not Found", "text/plain", "", "no such route"),
        |(_, r)| r.clone(),
    )
}

/// A redirect to `location` (absolute or relative), with no body.
pub fn redirect(status: &str, location: &str) -> String {
    response(
        status,
        "text/plain",
        &format!("Location: {location}\r\n"),
        "",
    )
}

/// The value of header `name` in a recorded request head, if present (names are compared
/// case-insensitively).
pub fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().skip(1).find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// What the switchable proxy does with each new connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Forward = 0,
    Garbage = 1,
    Slow = 2,
    Down = 3,
}

/// A proxy in front of a real service that can be switched, at any moment, to answer garbage,
/// to hang, or to drop connections — a service going bad and coming back.
pub struct Proxy {
    pub addr: std::net::SocketAddr,
    mode: Arc<std::sync::atomic::AtomicU8>,
    task: tokio::task::JoinHandle<()>,
}

impl Proxy {
    pub fn url(&self) -> Url {
        Url::parse(&format!("http://{}", self.addr)).unwrap()
    }
    pub fn set(&self, mode: Mode) {
        self.mode
            .store(mode as u8, std::sync::atomic::Ordering::SeqCst);
    }
    fn current(mode: &std::sync::atomic::AtomicU8) -> Mode {
        match mode.load(std::sync::atomic::Ordering::SeqCst) {
            0 => Mode::Forward,
            1 => Mode::Garbage,
            2 => Mode::Slow,
            _ => Mode::Down,
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

pub async fn proxy(upstream: std::net::SocketAddr) -> Proxy {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mode = Arc::new(std::sync::atomic::AtomicU8::new(Mode::Forward as u8));
    let shared = mode.clone();
    let task = tokio::spawn(async move {
        for _ in 0..10_000 {
            let Ok((mut client, _)) = listener.accept().await else {
                return;
            };
            let mode = shared.clone();
            tokio::spawn(async move {
                match Proxy::current(&mode) {
                    Mode::Forward => {
                        let Ok(mut server) = TcpStream::connect(upstream).await else {
                            return;
                        };
                        // Forward until the mode changes, so kept-alive connections go bad too.
                        tokio::select! {
                            _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                            () = async {
                                for _ in 0..3000 {
                                    if Proxy::current(&mode) != Mode::Forward { return; }
                                    tokio::time::sleep(Duration::from_millis(20)).await;
                                }
                            } => {}
                        }
                    }
                    Mode::Garbage => {
                        let _ = read_head(&mut client).await;
                        let _ = client
                            .write_all(
                                response("200 OK", "application/json", "", "<html>oops</html>")
                                    .as_bytes(),
                            )
                            .await;
                    }
                    Mode::Slow => {
                        let _ = read_head(&mut client).await;
                        tokio::time::sleep(Duration::from_secs(10)).await;
                    }
                    Mode::Down => drop(client),
                }
            });
        }
    });
    Proxy { addr, mode, task }
}

/// The names of the files in `dir`, sorted.
pub fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Every file under `dir`, at any depth.
pub fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}
