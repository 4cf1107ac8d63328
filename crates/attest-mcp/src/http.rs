//! Streamable HTTP: the gate in front of rmcp, session tracking, and the server
//! loop with its connection limits and graceful shutdown.
//!
//! rmcp serves the protocol; this module decides who may talk to it (token, Host,
//! Origin), turns undecodable bodies into JSON-RPC errors, keeps sessions alive
//! while their clients listen, and owns the sockets.

use std::collections::HashMap;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use futures::Stream;
use futures::StreamExt as _;
use http_body_util::BodyExt;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{LocalSessionManager, LocalSessionManagerError};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId, SessionManager};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::Value;
use tokio::net::TcpListener;

use crate::protocol::{self, Rejection};
use crate::server::Served;

/// Environment variable: idle seconds before a session without an open stream ends.
pub const ENV_IDLE_SECS: &str = "ATTEST_HTTP_IDLE_SECS";
/// Environment variable: extra allowed browser origins, comma-separated.
pub const ENV_ORIGINS: &str = "ATTEST_HTTP_ORIGINS";
/// Environment variable: seconds a client has to send a request's headers.
pub const ENV_HEADER_SECS: &str = "ATTEST_HTTP_HEADER_SECS";
/// Environment variable: most simultaneous connections.
pub const ENV_MAX_CONNECTIONS: &str = "ATTEST_HTTP_MAX_CONNECTIONS";
/// Environment variable: seconds in-flight calls get to finish on shutdown.
pub const ENV_SHUTDOWN_SECS: &str = "ATTEST_HTTP_SHUTDOWN_SECS";

/// Largest request body accepted (the same limit rmcp applies).
const MAX_BODY: usize = 4 * 1024 * 1024;
/// The SSE `retry` hint sent in priming events to clients that understand them.
const SSE_RETRY: Duration = Duration::from_secs(3);
/// The first revision that defines priming events (SEP-1699, SSE polling).
const PRIMING_SINCE: &str = "2025-11-25";

/// How the HTTP server behaves; [`HttpOptions::from_env`] reads it from the environment.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Bearer token every request must carry (`ATTEST_HTTP_TOKEN`).
    pub token: Option<String>,
    /// A session with no open stream ends after this long without a request.
    pub idle: Duration,
    /// Browser origins allowed besides loopback ones (`scheme://host[:port|:*]`).
    pub origins: Vec<String>,
    /// Time a client has to send a request's headers (also the keep-alive idle limit).
    pub header_timeout: Duration,
    /// Most simultaneous connections; more are closed on accept.
    pub max_connections: usize,
    /// How long in-flight calls may take to finish after a shutdown signal.
    pub shutdown_grace: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            token: None,
            idle: Duration::from_secs(4 * 60 * 60),
            origins: Vec::new(),
            header_timeout: Duration::from_secs(10),
            max_connections: 512,
            shutdown_grace: Duration::from_secs(30),
        }
    }
}

impl HttpOptions {
    /// Options from the process environment.
    pub fn from_env(token: Option<&str>) -> anyhow::Result<HttpOptions> {
        Self::from_lookup(token, |k| std::env::var(k).ok())
    }

    /// Options from any variable lookup (tests pass a map).
    pub fn from_lookup(token: Option<&str>, get: impl Fn(&str) -> Option<String>) -> anyhow::Result<HttpOptions> {
        let d = HttpOptions::default();
        let secs = |key: &str, default: Duration| -> anyhow::Result<Duration> {
            match get(key).map(|v| v.trim().to_string()).filter(|v| !v.is_empty()) {
                None => Ok(default),
                Some(v) => match v.parse::<u64>() {
                    Ok(n) if n > 0 => Ok(Duration::from_secs(n)),
                    _ => bail!("{key} must be a whole number of seconds above 0 (got '{v}')"),
                },
            }
        };
        let max_connections = match get(ENV_MAX_CONNECTIONS).map(|v| v.trim().to_string()).filter(|v| !v.is_empty()) {
            None => d.max_connections,
            Some(v) => match v.parse::<usize>() {
                Ok(n) if n > 0 => n,
                _ => bail!("{ENV_MAX_CONNECTIONS} must be a whole number above 0 (got '{v}')"),
            },
        };
        let origins: Vec<String> = get(ENV_ORIGINS)
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        for o in &origins {
            if OriginRule::parse(o).is_none() {
                bail!("{ENV_ORIGINS}: '{o}' is not an origin like https://app.example.com or http://host:*");
            }
        }
        Ok(HttpOptions {
            token: token.map(str::to_string),
            idle: secs(ENV_IDLE_SECS, d.idle)?,
            origins,
            header_timeout: secs(ENV_HEADER_SECS, d.header_timeout)?,
            max_connections,
            shutdown_grace: secs(ENV_SHUTDOWN_SECS, d.shutdown_grace)?,
        })
    }
}

// ---------------------------------------------------------------------------
// Sessions

struct Entry {
    last: Instant,
    streams: usize,
    priming: bool,
}

struct TrackState {
    sessions: Mutex<HashMap<SessionId, Entry>>,
    inflight: tokio::sync::watch::Sender<usize>,
}

impl TrackState {
    fn with<R>(&self, id: &SessionId, f: impl FnOnce(&mut Entry) -> R) -> Option<R> {
        self.sessions.lock().unwrap_or_else(|p| p.into_inner()).get_mut(id).map(f)
    }
}

/// rmcp's in-memory session manager, watched: it knows which sessions have an
/// open event stream, when each was last used, which revision each negotiated,
/// and how many calls are in flight.
pub(crate) struct Tracked {
    inner: LocalSessionManager,
    state: Arc<TrackState>,
}

impl Tracked {
    pub(crate) fn new() -> Tracked {
        let mut inner = LocalSessionManager::default();
        // Expiry is ours (see `expired`): rmcp's ends a session 300 s after its last
        // request even while the client listens on its stream.
        inner.session_config.keep_alive = None;
        inner.session_config.sse_retry = Some(SSE_RETRY);
        let (inflight, _) = tokio::sync::watch::channel(0);
        Tracked { inner, state: Arc::new(TrackState { sessions: Mutex::new(HashMap::new()), inflight }) }
    }

    fn touch(&self, id: &SessionId) {
        self.state.with(id, |e| e.last = Instant::now());
    }

    pub(crate) fn contains(&self, id: &str) -> bool {
        self.state.sessions.lock().unwrap_or_else(|p| p.into_inner()).contains_key(id)
    }

    /// Sessions with no open stream and no request for longer than `idle` at `now`.
    pub(crate) fn expired(&self, now: Instant, idle: Duration) -> Vec<SessionId> {
        self.state
            .sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter(|(_, e)| e.streams == 0 && now.saturating_duration_since(e.last) > idle)
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// Resolves once no call is in flight.
    pub(crate) async fn wait_idle(&self) {
        let mut rx = self.state.inflight.subscribe();
        let _ = rx.wait_for(|n| *n == 0).await;
    }

    fn watch<S>(&self, id: &SessionId, stream: S, call: bool) -> Watched<S> {
        let strip = !self.state.with(id, |e| e.priming).unwrap_or(false);
        self.state.with(id, |e| {
            e.streams += 1;
            e.last = Instant::now();
        });
        if call {
            self.state.inflight.send_modify(|n| *n += 1);
        }
        Watched {
            inner: Box::pin(stream),
            strip,
            _guard: StreamGuard { state: Arc::clone(&self.state), id: id.clone(), call },
        }
    }
}

struct StreamGuard {
    state: Arc<TrackState>,
    id: SessionId,
    call: bool,
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        self.state.with(&self.id, |e| {
            e.streams = e.streams.saturating_sub(1);
            e.last = Instant::now();
        });
        if self.call {
            self.state.inflight.send_modify(|n| *n = n.saturating_sub(1));
        }
    }
}

/// An event stream that keeps its session alive while open and drops priming
/// events for clients whose revision does not define them.
struct Watched<S> {
    inner: Pin<Box<S>>,
    strip: bool,
    _guard: StreamGuard,
}

impl<S: Stream<Item = ServerSseMessage>> Stream for Watched<S> {
    type Item = ServerSseMessage;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<ServerSseMessage>> {
        loop {
            match self.inner.as_mut().poll_next(cx) {
                Poll::Ready(Some(m)) if self.strip && m.message.is_none() => continue,
                other => return other,
            }
        }
    }
}

fn version_at(value: &Value, pointer: &str) -> Option<String> {
    value.pointer(pointer).and_then(Value::as_str).map(str::to_string)
}

impl SessionManager for Tracked {
    type Error = LocalSessionManagerError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, transport) = self.inner.create_session().await?;
        self.state
            .sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.clone(), Entry { last: Instant::now(), streams: 0, priming: false });
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        let requested = serde_json::to_value(&message).ok().and_then(|v| version_at(&v, "/params/protocolVersion"));
        let response = self.inner.initialize_session(id, message).await?;
        let negotiated = serde_json::to_value(&response).ok().and_then(|v| version_at(&v, "/result/protocolVersion"));
        let version = negotiated.or(requested).unwrap_or_default();
        self.state.with(id, |e| {
            e.priming = version.as_str() >= PRIMING_SINCE;
            e.last = Instant::now();
        });
        Ok(response)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.touch(id);
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.state.sessions.lock().unwrap_or_else(|p| p.into_inner()).remove(id);
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        let stream = self.inner.create_stream(id, message).await?;
        Ok(self.watch(id, stream, true))
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), Self::Error> {
        self.touch(id);
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let stream = self.inner.create_standalone_stream(id).await?;
        // rmcp's own priming of this stream is off (it cannot tell revisions apart);
        // clients that understand priming get it here.
        let priming = self.state.with(id, |e| e.priming).unwrap_or(false);
        let first = priming.then(|| ServerSseMessage::priming("0", SSE_RETRY));
        Ok(self.watch(id, futures::stream::iter(first).chain(stream), false))
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let stream = self.inner.resume(id, last_event_id).await?;
        Ok(self.watch(id, stream, false))
    }
}

async fn reap(tracked: Arc<Tracked>, idle: Duration) {
    let tick = (idle / 4).clamp(Duration::from_millis(10), Duration::from_secs(60));
    loop {
        tokio::time::sleep(tick).await;
        for id in tracked.expired(Instant::now(), idle) {
            tracing::info!(session = %id, "closing a session idle for {idle:?} with no open stream");
            if let Err(e) = tracked.close_session(&id).await {
                tracing::warn!(session = %id, error = %e, "could not close an idle session");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The gate

#[derive(Debug, Clone, PartialEq, Eq)]
enum PortRule {
    Any,
    Exact(u16),
}

/// One allowed browser origin.
#[derive(Debug, Clone, PartialEq, Eq)]
struct OriginRule {
    scheme: String,
    host: String,
    port: PortRule,
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

/// `(scheme, host, port)` of an origin; `None` for `null` and anything malformed.
fn parse_origin(value: &str) -> Option<(String, String, Option<u16>)> {
    let uri = axum::http::Uri::try_from(value.trim()).ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let authority = uri.authority()?;
    if uri.path_and_query().is_some_and(|p| !p.as_str().is_empty() && p.as_str() != "/") {
        return None;
    }
    let host = authority.host().trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase();
    Some((scheme, host, authority.port_u16()))
}

impl OriginRule {
    fn parse(entry: &str) -> Option<OriginRule> {
        let entry = entry.trim().trim_end_matches('/');
        if let Some(base) = entry.strip_suffix(":*") {
            let (scheme, host, port) = parse_origin(base)?;
            return port.is_none().then_some(OriginRule { scheme, host, port: PortRule::Any });
        }
        let (scheme, host, port) = parse_origin(entry)?;
        let port = port.or_else(|| default_port(&scheme))?;
        Some(OriginRule { scheme, host, port: PortRule::Exact(port) })
    }

    fn matches(&self, scheme: &str, host: &str, port: Option<u16>) -> bool {
        self.scheme == scheme
            && self.host == host
            && match self.port {
                PortRule::Any => true,
                PortRule::Exact(p) => port.or_else(|| default_port(scheme)) == Some(p),
            }
    }
}

/// `localhost` or a loopback address (127.0.0.0/8, ::1, and IPv4-mapped loopback).
fn is_loopback_host(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    match host.parse::<IpAddr>() {
        Ok(IpAddr::V4(v4)) => v4.is_loopback(),
        Ok(IpAddr::V6(v6)) => v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback()),
        Err(_) => false,
    }
}

pub(crate) struct Gate {
    token: Option<Arc<str>>,
    check_host: bool,
    origins: Vec<OriginRule>,
    sessions: Arc<Tracked>,
    draining: AtomicBool,
}

fn text(status: StatusCode, body: &'static str) -> Response {
    let mut r = Response::new(Body::from(body));
    *r.status_mut() = status;
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    r
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    let mut r = Response::new(Body::from(body.to_string()));
    *r.status_mut() = status;
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

fn rejection_response(r: &Rejection) -> Response {
    let status = if r.id.is_null() { StatusCode::BAD_REQUEST } else { r.http_status() };
    json_response(status, &r.to_json())
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The credentials of an `Authorization: Bearer …` header (scheme matched in any case).
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, cred) = v.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| cred.trim())
}

impl Gate {
    fn refuse_unauthorized(&self, headers: &HeaderMap) -> Option<Response> {
        let Some(token) = &self.token else { return None };
        let (ok, challenge) = match bearer(headers) {
            Some(given) if constant_time_eq(given.as_bytes(), token.as_bytes()) => (true, ""),
            Some(_) => (false, "Bearer realm=\"attest\", error=\"invalid_token\""),
            None => (false, "Bearer realm=\"attest\""),
        };
        if ok {
            return None;
        }
        let mut r = text(StatusCode::UNAUTHORIZED, "Unauthorized: send Authorization: Bearer <ATTEST_HTTP_TOKEN>");
        r.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static(challenge));
        Some(r)
    }

    fn refuse_host(&self, req: &Request) -> Option<Response> {
        if !self.check_host {
            return None;
        }
        let host = match req.headers().get(header::HOST) {
            Some(h) => h.to_str().ok().and_then(|h| axum::http::uri::Authority::try_from(h).ok()),
            None => req.uri().authority().cloned(),
        };
        match host {
            Some(a) if is_loopback_host(a.host()) => None,
            Some(_) => {
                tracing::warn!("refused a request whose Host is not a loopback name (possible DNS rebinding)");
                Some(text(StatusCode::FORBIDDEN, "Forbidden: Host header is not allowed"))
            }
            None => Some(text(StatusCode::BAD_REQUEST, "Bad Request: missing or malformed Host header")),
        }
    }

    fn refuse_origin(&self, headers: &HeaderMap) -> Option<Response> {
        let origin = headers.get(header::ORIGIN)?;
        let parsed = origin.to_str().ok().and_then(parse_origin);
        let allowed = parsed.is_some_and(|(scheme, host, port)| {
            ((scheme == "http" || scheme == "https") && is_loopback_host(&host))
                || self.origins.iter().any(|r| r.matches(&scheme, &host, port))
        });
        if allowed {
            None
        } else {
            tracing::warn!(origin = ?origin, "refused a request from a browser origin that is not allowed");
            Some(text(StatusCode::FORBIDDEN, "Forbidden: Origin is not allowed (set ATTEST_HTTP_ORIGINS to add one)"))
        }
    }
}

fn session_header(headers: &HeaderMap) -> Option<String> {
    headers.get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_string)
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case("application/json"))
        .unwrap_or(false)
}

async fn gate(State(g): State<Arc<Gate>>, req: Request, next: Next) -> Response {
    if let Some(r) = g.refuse_unauthorized(req.headers()) {
        return r;
    }
    if let Some(r) = g.refuse_host(&req) {
        return r;
    }
    if let Some(r) = g.refuse_origin(req.headers()) {
        return r;
    }
    match *req.method() {
        Method::DELETE => delete(&g, req, next).await,
        Method::POST => {
            if g.draining.load(Ordering::SeqCst) {
                let mut r = text(StatusCode::SERVICE_UNAVAILABLE, "Service Unavailable: the server is shutting down");
                r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
                return r;
            }
            post(req, next).await
        }
        _ => next.run(req).await,
    }
}

async fn delete(g: &Gate, req: Request, next: Next) -> Response {
    if let Some(id) = session_header(req.headers())
        && !g.sessions.contains(&id)
    {
        return text(StatusCode::NOT_FOUND, "Not Found: Session not found");
    }
    let r = next.run(req).await;
    if r.status() != StatusCode::ACCEPTED {
        return r;
    }
    let (mut parts, _) = r.into_parts();
    parts.status = StatusCode::NO_CONTENT;
    parts.headers.remove(header::CONTENT_TYPE);
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::empty())
}

async fn post(req: Request, next: Next) -> Response {
    if !is_json(req.headers()) {
        return next.run(req).await; // rmcp answers 415
    }
    let (parts, body) = req.into_parts();
    let bytes: Bytes = match http_body_util::Limited::new(body, MAX_BODY).collect().await {
        Ok(c) => c.to_bytes(),
        Err(e) if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() => {
            return text(StatusCode::PAYLOAD_TOO_LARGE, "Payload Too Large: request body exceeds 4 MiB");
        }
        Err(_) => return text(StatusCode::BAD_REQUEST, "Bad Request: could not read the request body"),
    };
    if let Err(rejection) = protocol::check(&bytes, protocol::Transport::Http) {
        return rejection_response(&rejection);
    }
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

// ---------------------------------------------------------------------------
// The server loop

/// Serve Streamable HTTP at `/mcp` on `listener` until `shutdown` resolves, then
/// drain: refuse new calls (503), let in-flight calls finish (up to
/// `shutdown_grace`), close every session and connection.
pub async fn serve_http(
    served: Served,
    listener: TcpListener,
    opts: HttpOptions,
    shutdown: impl Future<Output = ()> + Send,
) -> anyhow::Result<()> {
    let local = listener.local_addr().context("cannot read the listening address")?;
    let loopback = local.ip().is_loopback();
    if !loopback && opts.token.is_none() {
        bail!(
            "refusing to serve on {local}, which is not a loopback address, without a bearer token: set ATTEST_HTTP_TOKEN, or bind 127.0.0.1"
        );
    }
    let tracked = Arc::new(Tracked::new());
    // Host and Origin are checked by the gate (rmcp's Host list cannot say "any
    // loopback address"); rmcp's priming is replaced by per-session priming.
    let config = StreamableHttpServerConfig::default().disable_allowed_hosts().with_sse_retry(None);
    let cancel = config.cancellation_token.clone();
    let service = StreamableHttpService::new(move || Ok(served.session()), Arc::clone(&tracked), config);
    let gate_state = Arc::new(Gate {
        token: opts.token.as_deref().map(Arc::<str>::from),
        // A token guards the endpoint; the Host check protects loopback servers from
        // DNS rebinding.
        check_host: loopback || opts.token.is_none(),
        origins: opts.origins.iter().filter_map(|o| OriginRule::parse(o)).collect(),
        sessions: Arc::clone(&tracked),
        draining: AtomicBool::new(false),
    });
    let router: axum::Router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&gate_state), gate));
    let reaper = tokio::spawn(reap(Arc::clone(&tracked), opts.idle));
    eprintln!("serving MCP over Streamable HTTP at http://{local}/mcp");

    let limit = Arc::new(tokio::sync::Semaphore::new(opts.max_connections));
    let (close_tx, close_rx) = tokio::sync::watch::channel(false);
    let mut conns = tokio::task::JoinSet::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(x) => x,
                    Err(e) => {
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(20)).await;
                        continue;
                    }
                };
                let Ok(permit) = Arc::clone(&limit).try_acquire_owned() else {
                    tracing::warn!(%peer, "connection limit ({}) reached; closing a new connection", opts.max_connections);
                    drop(stream);
                    continue;
                };
                let svc = hyper_util::service::TowerToHyperService::new(router.clone());
                let mut close_rx = close_rx.clone();
                let header_timeout = opts.header_timeout;
                conns.spawn(async move {
                    let _permit = permit;
                    let mut builder = hyper::server::conn::http1::Builder::new();
                    builder.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(header_timeout);
                    let conn = builder.serve_connection(hyper_util::rt::TokioIo::new(stream), svc);
                    let mut conn = std::pin::pin!(conn);
                    tokio::select! {
                        r = conn.as_mut() => {
                            if let Err(e) = r {
                                tracing::debug!(%peer, error = %e, "connection ended");
                            }
                        }
                        () = async { let _ = close_rx.wait_for(|closing| *closing).await; } => {
                            conn.as_mut().graceful_shutdown();
                            let _ = conn.as_mut().await;
                        }
                    }
                });
                while conns.try_join_next().is_some() {}
            }
        }
    }
    drop(listener);
    gate_state.draining.store(true, Ordering::SeqCst);
    if tokio::time::timeout(opts.shutdown_grace, tracked.wait_idle()).await.is_err() {
        tracing::warn!("calls still running after {:?}; shutting down anyway", opts.shutdown_grace);
    }
    cancel.cancel();
    let _ = close_tx.send(true);
    let drained = tokio::time::timeout(opts.shutdown_grace, async { while conns.join_next().await.is_some() {} }).await;
    if drained.is_err() {
        conns.abort_all();
    }
    reaper.abort();
    Ok(())
}

/// Resolves on SIGTERM or Ctrl-C.
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        let term = async {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut s) => {
                    s.recv().await;
                }
                Err(_) => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            () = term => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        for h in
            ["localhost", "LOCALHOST", "127.0.0.1", "127.0.0.2", "127.255.0.9", "[::1]", "::1", "[::ffff:127.0.0.1]"]
        {
            assert!(is_loopback_host(h), "{h}");
        }
        for h in ["evil.example.com", "10.0.0.1", "0.0.0.0", "[::2]", "localhost.evil.com"] {
            assert!(!is_loopback_host(h), "{h}");
        }
    }

    #[test]
    fn origin_rules() {
        let r = OriginRule::parse("https://app.example.com").unwrap();
        assert!(r.matches("https", "app.example.com", None));
        assert!(r.matches("https", "app.example.com", Some(443)));
        assert!(!r.matches("https", "app.example.com", Some(8443)));
        assert!(!r.matches("http", "app.example.com", None));
        let any = OriginRule::parse("http://dev.example:*").unwrap();
        assert!(any.matches("http", "dev.example", Some(5173)));
        assert!(OriginRule::parse("null").is_none());
        assert!(OriginRule::parse("not an origin").is_none());
    }

    #[test]
    fn options_from_the_environment() {
        let o = HttpOptions::from_lookup(None, |_| None).unwrap();
        assert_eq!(o.idle, Duration::from_secs(4 * 60 * 60));
        let vars = HashMap::from([
            (ENV_IDLE_SECS, "60"),
            (ENV_ORIGINS, "https://a.example, http://b.example:*"),
            (ENV_HEADER_SECS, "5"),
            (ENV_MAX_CONNECTIONS, "7"),
            (ENV_SHUTDOWN_SECS, "9"),
        ]);
        let o = HttpOptions::from_lookup(Some("t"), |k| vars.get(k).map(|v| v.to_string())).unwrap();
        assert_eq!(o.idle, Duration::from_secs(60));
        assert_eq!(o.origins.len(), 2);
        assert_eq!(o.header_timeout, Duration::from_secs(5));
        assert_eq!(o.max_connections, 7);
        assert_eq!(o.shutdown_grace, Duration::from_secs(9));
        assert!(HttpOptions::from_lookup(None, |k| (k == ENV_IDLE_SECS).then(|| "0".to_string())).is_err());
        assert!(HttpOptions::from_lookup(None, |k| (k == ENV_ORIGINS).then(|| "null".to_string())).is_err());
    }

    #[tokio::test]
    async fn only_sessions_without_streams_expire() {
        let t = Tracked::new();
        let (quiet, _tq) = t.create_session().await.unwrap();
        let (listening, _tl) = t.create_session().await.unwrap();
        let stream = t.watch(&listening, futures::stream::empty::<ServerSseMessage>(), false);
        let later = Instant::now() + Duration::from_secs(3600);
        let expired = t.expired(later, Duration::from_secs(60));
        assert_eq!(expired, vec![quiet.clone()]);
        drop(stream);
        let mut expired = t.expired(later, Duration::from_secs(60));
        expired.sort();
        let mut both = vec![quiet, listening];
        both.sort();
        assert_eq!(expired, both);
    }
}
