//! The service's calls sent by hyper's pooled client itself, under reqwest's layers.
//!
//! A dashboard watching 1,000 tasks sends 500 lookups a second. reqwest's work around each
//! request was 12 % of a poll's CPU (perf, 2026-11-29): its redirect layer parses every
//! response's URL again (5 %), its request conversion and default headers, its retry layer and
//! a timer of its own. Under them is the same `hyper_util` client this one is.
//!
//! The lane keeps reqwest's wire and words: its connector settings (the connect time-out
//! bounding the TLS handshake too), the process's TLS configuration, its `User-Agent` and
//! `Accept`, its errors (the same chain of causes, mapped by [`super::http`]), a time limit on
//! the whole request, body included, and its redirects: the same layer (tower-http's), followed
//! within the origin five times at most. What reqwest does
//! that the lane does not, reqwest still does: a request a proxy would carry (`HTTP_PROXY`,
//! `NO_PROXY`…, read as reqwest reads them) or that has a body never takes the lane.

use bytes::Bytes;
use http::header::{ACCEPT, HeaderValue, USER_AGENT};
use http_body::{Body, Frame, SizeHint};
use http_body_util::Empty;
use hyper::body::Incoming;
use hyper_rustls::{HttpsConnector, MaybeHttpsStream};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::proxy::matcher::Matcher;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::time::{Instant, Sleep};
use tower::ServiceExt as _;
use tower::util::MapErr;
use tower_http::follow_redirect::policy::{
    Action, And, Attempt, Policy, PolicyExt as _, SameOrigin,
};
use tower_http::follow_redirect::{FollowRedirect, RequestUri};

/// How long an idle connection is kept, and the TCP keep-alive: reqwest's defaults.
const POOL_IDLE: Duration = Duration::from_secs(90);
const TCP_KEEPALIVE: Duration = Duration::from_secs(15);

/// Redirects followed at most, as reqwest's policy for the service's calls has it.
pub(crate) const MAX_REDIRECTS: usize = 5;

type Lane = FollowRedirect<
    MapErr<Client<Bounded, Empty<Bytes>>, fn(ClientError) -> Failed>,
    And<AtMost, SameOrigin>,
>;
type ClientError = hyper_util::client::legacy::Error;

pub(crate) struct Direct {
    lane: Lane,
    /// The proxies reqwest would use: a request one of them takes goes through reqwest.
    proxies: Matcher,
    user_agent: HeaderValue,
}

impl std::fmt::Debug for Direct {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Direct").finish_non_exhaustive()
    }
}

/// Why the lane did not answer.
pub(crate) enum Failed {
    /// The whole request's time ran out before the answer's head.
    TimedOut,
    /// The client's error: connecting, the handshake, writing or reading.
    Client(ClientError),
    /// More than [`MAX_REDIRECTS`] redirects.
    TooManyRedirects,
}

/// Follows [`MAX_REDIRECTS`] redirects; the next one is an error.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AtMost {
    followed: usize,
}

impl<B> Policy<B, Failed> for AtMost {
    fn redirect(&mut self, _: &Attempt<'_>) -> Result<Action, Failed> {
        if self.followed == MAX_REDIRECTS {
            return Err(Failed::TooManyRedirects);
        }
        self.followed += 1;
        Ok(Action::Follow)
    }
}

impl Direct {
    /// A lane whose connections give up after `connect_timeout`, its requests saying they
    /// are `user_agent` (the transport's: [`super::http`]).
    pub(crate) fn new(connect_timeout: Duration, user_agent: &'static str) -> Self {
        let mut connector = HttpConnector::new();
        connector.enforce_http(false);
        connector.set_nodelay(true);
        connector.set_connect_timeout(Some(connect_timeout));
        connector.set_keepalive(Some(TCP_KEEPALIVE));
        connector.set_keepalive_interval(Some(TCP_KEEPALIVE));
        connector.set_keepalive_retries(Some(3));
        // hyper-rustls sets the ALPN protocols itself (HTTP/1.1 only: none offered).
        let mut tls = super::tls::client_config();
        tls.alpn_protocols.clear();
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(tls)
            .https_or_http()
            .enable_http1()
            .wrap_connector(connector);
        let connector = Bounded {
            inner: https,
            limit: connect_timeout,
        };
        let client: Client<_, Empty<Bytes>> = Client::builder(TokioExecutor::new())
            .pool_timer(TokioTimer::new())
            .pool_idle_timeout(POOL_IDLE)
            .build(connector);
        let client = client.map_err(Failed::Client as fn(ClientError) -> Failed);
        let policy = AtMost::default().and::<_, Empty<Bytes>, Failed>(SameOrigin::new());
        Direct {
            lane: FollowRedirect::with_policy(client, policy),
            proxies: Matcher::from_system(),
            user_agent: HeaderValue::from_static(user_agent),
        }
    }

    /// Where the lane sends `request`: `None` when it is reqwest's (a body, a proxy, a URL
    /// the `http` crate does not take).
    pub(crate) fn route(&self, request: &reqwest::Request) -> Option<http::Uri> {
        if request.body().is_some() {
            return None;
        }
        let uri: http::Uri = request.url().as_str().parse().ok()?;
        self.proxies.intercept(&uri).is_none().then_some(uri)
    }

    /// Sends `request` to `uri` (from [`Direct::route`]); the answer's body ends in an error
    /// when `deadline` passes first. With the answer, where it came from when a redirect was
    /// followed.
    pub(crate) async fn send(
        &self,
        request: &mut reqwest::Request,
        uri: http::Uri,
        deadline: Instant,
    ) -> Result<(http::Response<Deadlined>, Option<http::Uri>), Failed> {
        let mut out = http::Request::new(Empty::new());
        *out.method_mut() = request.method().clone();
        *out.uri_mut() = uri.clone();
        // Taken: the request is not sent again (redirects are the lane's to follow).
        let headers = out.headers_mut();
        *headers = std::mem::take(request.headers_mut());
        headers
            .entry(USER_AGENT)
            .or_insert_with(|| self.user_agent.clone());
        headers
            .entry(ACCEPT)
            .or_insert(HeaderValue::from_static("*/*"));
        // One timer for the whole request: it bounds the head here, then the body.
        let mut timer = Box::pin(tokio::time::sleep_until(deadline));
        let mut answer = tokio::select! {
            biased;
            answer = self.lane.clone().oneshot(out) => answer?,
            () = timer.as_mut() => return Err(Failed::TimedOut),
        };
        let moved = answer
            .extensions_mut()
            .remove::<RequestUri>()
            .map(|at| at.0)
            .filter(|at| *at != uri);
        Ok((answer.map(|body| Deadlined { body, timer }), moved))
    }
}

/// Connections made within a time limit, the name's lookup, the TCP connection and the TLS
/// handshake together, as reqwest's connect time-out bounds them (the TCP connector's own
/// bounds each address tried).
#[derive(Clone)]
pub(crate) struct Bounded {
    inner: HttpsConnector<HttpConnector>,
    limit: Duration,
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl tower::Service<http::Uri> for Bounded {
    type Response = MaybeHttpsStream<TokioIo<TcpStream>>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, uri: http::Uri) -> Self::Future {
        let connecting = self.inner.call(uri);
        let limit = self.limit;
        Box::pin(async move {
            match tokio::time::timeout(limit, connecting).await {
                Ok(made) => made,
                Err(_) => Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "connecting timed out",
                )
                .into()),
            }
        })
    }
}

/// A body that fails with a time-out (an `io::Error` of kind `TimedOut`, as reqwest's
/// `is_timeout` reads it) once its request's time has run out.
pub(crate) struct Deadlined {
    body: Incoming,
    timer: Pin<Box<Sleep>>,
}

impl Body for Deadlined {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if self.timer.as_mut().poll(cx).is_ready() {
            let late = std::io::Error::new(std::io::ErrorKind::TimedOut, "the request timed out");
            return Poll::Ready(Some(Err(late.into())));
        }
        Pin::new(&mut self.body).poll_frame(cx).map_err(Into::into)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
