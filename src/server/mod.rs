//! The reference service (`gendash serve`): the spec implemented faithfully on loopback, so the
//! demo and the tests run the real client over real HTTP. See `simulation` for how simulated
//! tasks behave (and the faulty task IDs), `pace` for the service's clock and `--capacity`'s
//! token bucket, `tally` for the request counts of `GET /_gendash/stats`.

pub mod files;
pub mod served_catalogue;
pub use files::SAMPLE_PNG;
pub mod openapi;
pub mod pace;
pub mod samples;
pub mod simulation;
pub mod tally;

use crate::api::Secret;
use crate::api::types::TaskKind;
use axum::Router;
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const DEFAULT_ADDR: &str = "127.0.0.1:8787";
pub const SAMPLE_MP4: &[u8] = include_bytes!("../../assets/sample.mp4");

/// Shared by the request handlers. (Server-side only; the dashboard's state is never shared.)
struct Service {
    token: Secret,
    catalogue: Vec<served_catalogue::ServedEntry>,
    /// Each entry as served, made once: a response is then copied, not built.
    wire: Vec<Box<str>>,
    tasks: Mutex<simulation::Tasks>,
    /// Path prefix in front of every route, empty for none.
    prefix: String,
    /// The file route's faults and request log.
    files: Arc<files::Files>,
    /// `GET /openapi.json`, as JSON text (made once, at start).
    openapi: Box<str>,
    /// Added before every answer of the three operations (`--latency`).
    latency: Duration,
    /// `--capacity`: refuses (429) what the bucket has no token for.
    bucket: Option<Mutex<pace::TokenBucket>>,
    clock: Arc<dyn pace::Clock>,
    /// The answers counted for `GET /_gendash/stats`.
    tally: Arc<Mutex<tally::Tally>>,
}

/// A running reference service.
pub struct Running {
    pub addr: SocketAddr,
    pub token: Secret,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    pub handle: tokio::task::JoinHandle<std::io::Result<()>>,
    files: Arc<files::Files>,
    tally: Arc<Mutex<tally::Tally>>,
    clock: Arc<dyn pace::Clock>,
}

impl Running {
    /// `http://ADDR` for clients.
    pub fn base_url(&self) -> url::Url {
        // A bound socket address always forms a valid URL.
        url::Url::parse(&format!("http://{}", self.addr)).unwrap_or_else(|_| unreachable!())
    }
    /// The file requests answered so far (the latest 1,024), oldest first: what a client
    /// asked for (`Range`, `If-Range`) and how many body bytes it got.
    pub fn file_requests(&self) -> Vec<files::FileRequest> {
        self.files.log()
    }
    /// What `GET /_gendash/stats` answers: the answers so far by status, and per task ID its
    /// lookups and when it was first answered finished (see `tally`).
    pub fn stats(&self) -> Value {
        let now = self.clock.now();
        self.tally.lock().map_or(Value::Null, |t| t.report(now))
    }
    /// Stops accepting and lets in-flight requests finish.
    pub fn stop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A fresh random token for a service started without one.
pub fn generate_token() -> Secret {
    use rand::Rng;
    let mut rng = rand::rngs::StdRng::from_os_rng();
    let token: String = (0..32)
        .map(|_| char::from(b"abcdefghijklmnopqrstuvwxyz0123456789"[rng.random_range(0..36)]))
        .collect();
    Secret::new(format!("gd-{token}"))
}

use rand::SeedableRng as _;

/// How to run the service.
#[derive(Debug, Clone)]
pub struct Options {
    pub token: Secret,
    pub catalogue: Vec<served_catalogue::ServedEntry>,
    /// Serve every route under this path (e.g. `/api/v1`), as a deployment behind a gateway would.
    pub prefix: Option<String>,
    /// Every answer of the three operations is delayed this long (`--latency`).
    pub latency: Duration,
    /// The requests per second the three operations serve; beyond it they answer 429 with
    /// `Retry-After` (`--capacity`).
    pub capacity: Option<Capacity>,
    /// The clock timed tasks and the capacity limit follow; a test gives a
    /// [`pace::ManualClock`] to move it without sleeping.
    pub clock: Arc<dyn pace::Clock>,
}

/// A token bucket: `per_second` requests refilled each second, at most `burst` at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacity {
    pub per_second: u32,
    pub burst: u32,
}

impl Capacity {
    /// `--capacity N`: N per second, with a burst of one second's worth.
    pub fn per_second(n: u32) -> Self {
        Capacity {
            per_second: n,
            burst: n,
        }
    }
}

impl Options {
    /// The embedded catalogue, no prefix.
    pub fn new(token: Secret) -> Self {
        Options {
            token,
            catalogue: served_catalogue::embedded(),
            prefix: None,
            latency: Duration::ZERO,
            capacity: None,
            clock: Arc::new(pace::SystemClock::new()),
        }
    }
}

/// Starts the service on an already-bound listener.
pub fn start(listener: tokio::net::TcpListener, options: Options) -> std::io::Result<Running> {
    let addr = listener.local_addr()?;
    let token = options.token.clone();
    let files = Arc::new(files::Files::default());
    let tally = Arc::new(Mutex::new(tally::Tally::default()));
    let clock = options.clock;
    let prefix = options
        .prefix
        .as_deref()
        .map(|p| format!("/{}", p.trim_matches('/')))
        .filter(|p| p != "/");
    let service = Arc::new(Service {
        token: token.clone(),
        wire: options
            .catalogue
            .iter()
            .map(served_catalogue::wire)
            .collect(),
        catalogue: options.catalogue,
        tasks: Mutex::new(simulation::Tasks::new()),
        prefix: prefix.clone().unwrap_or_default(),
        files: files.clone(),
        openapi: openapi::document(prefix.as_deref().unwrap_or_default())
            .to_string()
            .into_boxed_str(),
        latency: options.latency,
        bucket: options
            .capacity
            .map(|c| Mutex::new(pace::TokenBucket::new(c.per_second, c.burst, clock.now()))),
        clock: clock.clone(),
        tally: tally.clone(),
    });
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let app = match &prefix {
        Some(p) => Router::new()
            .nest(p, router(service.clone()))
            .fallback(not_found),
        None => router(service),
    };
    let handle = tokio::spawn(async move {
        axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(async {
            let _ = rx.await;
        })
        .await
    });
    Ok(Running {
        addr,
        token,
        shutdown: Some(tx),
        handle,
        files,
        tally,
        clock,
    })
}

/// Binds `addr` and starts the service.
pub async fn bind_and_start(addr: &str, options: Options) -> std::io::Result<Running> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    start(listener, options)
}

fn router(service: Arc<Service>) -> Router {
    Router::new()
        .route("/lora/", post(list_loras))
        .route("/lora", post(list_loras))
        .route("/ai/image_generation/{task_id}", post(image_result))
        .route("/ai/video_generation/{task_id}", post(video_result))
        .route("/files/{name}", get(file))
        .route("/samples/{name}", get(sample))
        .route("/openapi.json", get(openapi_json))
        .route("/_gendash/stats", get(stats))
        .fallback(not_found)
        .with_state(service)
}

/// The `OpenAPI` document of this service; no token needed, as a tester reads it first.
async fn openapi_json(State(service): State<Arc<Service>>) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        service.openapi.to_string(),
    )
        .into_response()
}

/// `GET /_gendash/stats` (not a route of the spec, and not in its document): what the
/// service answered so far, for the measurement scripts. Needs the token.
async fn stats(State(service): State<Arc<Service>>, headers: HeaderMap) -> Response {
    if !authorised(&headers, &service.token) {
        return unauthorised();
    }
    let now = service.clock.now();
    let report = service.tally.lock().map_or(Value::Null, |t| t.report(now));
    axum::Json(report).into_response()
}

impl Service {
    /// The capacity limit: `Some(429 answer)` when the bucket is empty.
    fn refused(&self) -> Option<Response> {
        let bucket = self.bucket.as_ref()?;
        let wait = bucket.lock().ok()?.take(self.clock.now()).err()?;
        let secs = pace::retry_after_secs(wait);
        let description = "the service is over its capacity; retry later";
        Some(
            (
                StatusCode::TOO_MANY_REQUESTS,
                [(header::RETRY_AFTER, secs.to_string())],
                axum::Json(json!({
                    "errors": [{"code": "rate_limited", "message": description}],
                    "error_description": description,
                    "status": "failed"
                })),
            )
                .into_response(),
        )
    }

    /// `--latency` plus `extra`, before an answer.
    async fn delay(&self, extra: Duration) {
        let wait = self.latency + extra;
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
    }

    fn count_listing(&self, http: StatusCode) {
        if let Ok(mut t) = self.tally.lock() {
            t.listing(http.as_u16());
        }
    }

    fn count_task(&self, id: &str, http: StatusCode, snap: Option<&simulation::Snapshot>) {
        let at = self.clock.now();
        if let Ok(mut t) = self.tally.lock() {
            t.task(tally::Answered {
                id,
                at,
                http: http.as_u16(),
                status: snap.map(|s| s.status),
                finished_at: snap.and_then(|s| s.finished_at),
                refused: http == StatusCode::TOO_MANY_REQUESTS,
            });
        }
    }
}

fn timestamp(t: time::OffsetDateTime) -> String {
    let fmt = time::macros::format_description!(
        "[year]-[month]-[day] [hour]:[minute]:[second].[subsecond digits:6]"
    );
    t.format(&fmt).unwrap_or_default()
}

/// Constant-time comparison of the presented bearer token.
fn authorised(headers: &HeaderMap, token: &Secret) -> bool {
    let Some(presented) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    else {
        return false;
    };
    let (a, b) = (presented.as_bytes(), token.expose().as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn unauthorised() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, "Bearer")],
        axum::Json(json!({
            "errors": [{"code": "unauthorized", "message": "missing or invalid bearer token"}],
            "error_description": "missing or invalid bearer token",
            "status": "failed"
        })),
    )
        .into_response()
}

async fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        axum::Json(json!({"errors": [{"code": "not_found"}], "error_description": "no such route", "status": "failed"})),
    )
        .into_response()
}

async fn list_loras(
    State(service): State<Arc<Service>>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    if let Some(refused) = service.refused() {
        service.count_listing(refused.status());
        return refused;
    }
    service.delay(Duration::ZERO).await;
    let answer = lora_answer(&service, &headers, &query);
    service.count_listing(answer.status());
    answer
}

fn lora_answer(
    service: &Service,
    headers: &HeaderMap,
    query: &HashMap<String, String>,
) -> Response {
    if !authorised(headers, &service.token) {
        return unauthorised();
    }
    // The spec allows `sd`, `sdxl`, or no parameter at all; an empty value is none of those.
    let lora_type = query.get("type").map(String::as_str);
    if let Some(t) = lora_type
        && !matches!(t, "sd" | "sdxl")
    {
        return (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"errors": [{"code": "bad_type"}], "error_description": "type must be sd or sdxl", "status": "failed"})),
        )
            .into_response();
    }
    let cate = query
        .get("cate")
        .map(String::as_str)
        .filter(|c| !c.is_empty());
    let mut body = String::from(r#"{"data":["#);
    for (n, i) in served_catalogue::matching(&service.catalogue, lora_type, cate).enumerate() {
        if n > 0 {
            body.push(',');
        }
        body.push_str(&service.wire[i]);
    }
    body.push_str("]}");
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response()
}

async fn image_result(
    state: State<Arc<Service>>,
    peer: ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Path(task_id): Path<String>,
) -> Response {
    task_result(state, peer, &headers, &task_id, TaskKind::Image).await
}

async fn video_result(
    state: State<Arc<Service>>,
    peer: ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Path(task_id): Path<String>,
) -> Response {
    task_result(state, peer, &headers, &task_id, TaskKind::Video).await
}

/// A task-result operation: the capacity limit, the delays (`--latency`, `slow-`), the token,
/// then the fault a faulty ID asks for or the task's answer; each answer counted.
async fn task_result(
    State(service): State<Arc<Service>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: &HeaderMap,
    task_id: &str,
    kind: TaskKind,
) -> Response {
    let started = Instant::now();
    let start_time = time::OffsetDateTime::now_utc();
    if let Some(refused) = service.refused() {
        service.count_task(task_id, refused.status(), None);
        return refused;
    }
    let treatment = simulation::treatment(task_id);
    service.delay(treatment.delay).await;
    if !authorised(headers, &service.token) {
        service.count_task(task_id, StatusCode::UNAUTHORIZED, None);
        return unauthorised();
    }
    if let Some(fault) = treatment.fault {
        let answer = fault_answer(fault);
        service.count_task(task_id, answer.status(), None);
        return answer;
    }
    let looked_up = match service.tasks.lock() {
        Ok(mut t) => t.lookup_at(task_id, kind, service.clock.now()),
        Err(_) => Err(simulation::Unknown::Full),
    };
    service.count_task(task_id, StatusCode::OK, looked_up.as_ref().ok());
    let mut body = match looked_up {
        Ok(snap) => {
            let url = if snap.finished_ok {
                let host = headers
                    .get(header::HOST)
                    .and_then(|h| h.to_str().ok())
                    .unwrap_or("127.0.0.1");
                let mut u = url::Url::parse(&format!("http://{host}{}/files/", service.prefix))
                    .unwrap_or_else(|_| unreachable_url());
                if let Ok(mut p) = u.path_segments_mut() {
                    p.pop_if_empty()
                        .push(&format!("{task_id}.{}", kind.extension()));
                }
                u.to_string()
            } else {
                String::new()
            };
            let mut task = json!({
                "task_id": task_id, "total_tasks": 1, "percent": snap.percent,
                "status": snap.status, "url_download": url
            });
            if let (true, Value::Object(fields)) =
                (simulation::has_extra_fields(task_id), &mut task)
            {
                fields.extend(simulation::extra_fields(&snap, &url));
            }
            json!({
                "data": {"is_success": true, "data": task},
                "errors": [], "error_description": "", "status": "success"
            })
        }
        Err(why) => {
            let (code, description) = match why {
                simulation::Unknown::NoSuchTask => (
                    "task_not_found",
                    format!("no {} generation task with ID {task_id}", kind.as_str()),
                ),
                simulation::Unknown::WrongKind(k) => (
                    "wrong_kind",
                    format!(
                        "task {task_id} is {} task, not {} task",
                        article(k),
                        article(kind)
                    ),
                ),
                simulation::Unknown::Full => (
                    "capacity",
                    "the reference service holds too many tasks".to_string(),
                ),
            };
            json!({
                "data": {"is_success": false, "data": {}},
                "errors": [{"code": code, "message": description}],
                "error_description": description, "status": "failed"
            })
        }
    };
    if let Value::Object(map) = &mut body {
        map.insert("start_time".into(), Value::String(timestamp(start_time)));
        map.insert(
            "end_time".into(),
            Value::String(timestamp(time::OffsetDateTime::now_utc())),
        );
        map.insert(
            "host_of_client_call_request".into(),
            Value::String(peer.ip().to_string()),
        );
        map.insert(
            "total_time_by_second".into(),
            json!(started.elapsed().as_secs_f64()),
        );
    }
    axum::Json(body).into_response()
}

/// A faulty ID's answer (see `simulation`).
fn fault_answer(fault: simulation::Fault) -> Response {
    match fault {
        simulation::Fault::Status(code) => {
            let status = StatusCode::from_u16(code).unwrap_or(StatusCode::BAD_GATEWAY);
            let reason = status.canonical_reason().unwrap_or("Error");
            (
                status,
                [(header::CONTENT_TYPE, "text/html")],
                format!(
                    "<html><head><title>{code} {reason}</title></head><body><center><h1>{code} \
                     {reason}</h1></center></body></html>\n"
                ),
            )
                .into_response()
        }
        simulation::Fault::Garbage => (
            [(header::CONTENT_TYPE, "application/json")],
            "<!doctype html><p>upstream answered: not JSON {\"data\": [",
        )
            .into_response(),
    }
}

fn unreachable_url() -> url::Url {
    url::Url::parse("http://127.0.0.1/files/").unwrap_or_else(|_| unreachable!())
}

/// A sample picture of the demo catalogue (see `samples`): no token, as the files.
async fn sample(Path(name): Path<String>) -> Response {
    match samples::respond(&name) {
        Some(response) => response,
        None => not_found().await,
    }
}

/// The file route: `<task_id>.png` or `<task_id>.mp4` of a completed task, with byte ranges
/// and validators (see `files`); `HEAD` too. No token needed — a browser opening a download
/// link has none.
async fn file(
    State(service): State<Arc<Service>>,
    method: Method,
    headers: HeaderMap,
    Path(name): Path<String>,
) -> Response {
    let found = match name.rsplit_once('.') {
        Some((s, "png")) => Some((
            s,
            TaskKind::Image,
            files::SAMPLE_PNG.as_slice(),
            "image/png",
        )),
        Some((s, "mp4")) => Some((s, TaskKind::Video, SAMPLE_MP4, "video/mp4")),
        _ => None,
    };
    let found = found.filter(|(stem, kind, ..)| {
        service
            .tasks
            .lock()
            .is_ok_and(|t| t.is_completed(stem, *kind, service.clock.now()))
    });
    let (response, bytes) = match found {
        Some((stem, _, bytes, mime)) => {
            files::respond(&service.files, stem, bytes, mime, &method, &headers)
        }
        None => (not_found().await, 0),
    };
    let header_text = |name| {
        headers.get(name).map(|v| {
            String::from_utf8_lossy(v.as_bytes())
                .chars()
                .take(200)
                .collect()
        })
    };
    service.files.record(files::FileRequest {
        name: name.chars().take(200).collect(),
        method: method.to_string(),
        range: header_text(header::RANGE),
        if_range: header_text(header::IF_RANGE),
        status: response.status().as_u16(),
        bytes,
    });
    response
}

fn article(kind: TaskKind) -> &'static str {
    match kind {
        TaskKind::Image => "an image",
        TaskKind::Video => "a video",
    }
}
