//! Shared helpers: a small surface catalogue and a raw HTTP client on loopback.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use attest_core::catalogue::Fault;
use attest_core::{Answer, Catalogue, Hints, NoArgs, Surface, Tool, ToolNames, ToolSpec};
use attest_mcp::{HttpOptions, Served};
use axum::body::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, Semaphore};

/// Upper bound on any single wait in these tests: a hang guard, never an assertion.
pub const GUARD: Duration = Duration::from_secs(30);

/// A slow tool's controls: `started` fires when it begins, `release` lets it end.
#[derive(Clone)]
pub struct Slow {
    pub started: Arc<Notify>,
    pub release: Arc<Semaphore>,
}

/// A `feed` surface with `feed.ask`, `feed.tools`, `feed.list` and `feed.slow`.
pub fn served() -> (Served, Slow) {
    let slow = Slow { started: Arc::new(Notify::new()), release: Arc::new(Semaphore::new(0)) };
    let mut c = Catalogue::new();
    c.push(Tool::new(ToolSpec::new("feed.ask", "Ask", "Answers questions.", Hints::default()), |_: NoArgs| async {
        Ok::<_, Fault>(Answer::ok("asked", ()))
    }));
    c.push(Tool::new(ToolSpec::new("feed.list", "List", "Lists.", Hints::default()), |_: NoArgs| async {
        Ok::<_, Fault>(Answer::ok("listed", ()))
    }));
    let s = slow.clone();
    c.push(Tool::new(
        ToolSpec::new("feed.slow", "Slow", "Waits until released.", Hints::default()),
        move |_: NoArgs| {
            let s = s.clone();
            async move {
                s.started.notify_one();
                let _permit = s.release.acquire().await;
                Ok::<_, Fault>(Answer::ok("finished", ()))
            }
        },
    ));
    let surface = Surface::find("feed").expect("the feed surface");
    (Served::surface(c, surface, ToolNames::Dotted, false), slow)
}

/// A running server: its address and a way to stop it.
pub struct Server {
    pub addr: SocketAddr,
    pub stop: Option<tokio::sync::oneshot::Sender<()>>,
    pub done: tokio::task::JoinHandle<anyhow::Result<()>>,
    pub slow: Slow,
}

pub async fn start(opts: HttpOptions) -> Server {
    start_on("127.0.0.1:0", opts).await
}

pub async fn start_on(bind: &str, opts: HttpOptions) -> Server {
    let (served, slow) = served();
    let listener = TcpListener::bind(bind).await.expect("bind");
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let done = tokio::spawn(attest_mcp::serve_http(served, listener, opts, async move {
        let _ = rx.await;
    }));
    Server { addr, stop: Some(tx), done, slow }
}

/// An HTTP response, its body read to the end.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: hyper::HeaderMap,
    pub body: String,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_string)
    }

    /// The JSON-RPC messages in the body (an SSE stream or one JSON document).
    pub fn messages(&self) -> Vec<Value> {
        if let Ok(v) = serde_json::from_str::<Value>(&self.body) {
            return vec![v];
        }
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str(d.trim()).ok())
            .collect()
    }

    /// SSE events that carry no message (priming events).
    pub fn empty_events(&self) -> usize {
        self.body
            .split("\n\n")
            .filter(|e| !e.trim().is_empty() && !e.trim_start().starts_with(':'))
            .filter(|e| !e.lines().any(|l| l.strip_prefix("data:").is_some_and(|d| !d.trim().is_empty())))
            .count()
    }
}

/// Send a request, read the whole response.
pub async fn send(addr: SocketAddr, method: &str, headers: &[(&str, &str)], body: &str) -> Resp {
    let resp = open(addr, method, headers, body).await;
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let bytes = tokio::time::timeout(GUARD, resp.into_body().collect()).await.expect("body in time").expect("body");
    Resp { status, headers, body: String::from_utf8_lossy(&bytes.to_bytes()).into_owned() }
}

/// Send a request and return the response with its body unread (for streams).
pub async fn open(addr: SocketAddr, method: &str, headers: &[(&str, &str)], body: &str) -> hyper::Response<Incoming> {
    let stream = TcpStream::connect(addr).await.expect("connect");
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
    tokio::spawn(conn);
    let mut req = hyper::Request::builder().method(method).uri("/mcp");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req = req.header("host", addr.to_string());
    }
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let req = req.body(Full::new(Bytes::from(body.to_string()))).unwrap();
    tokio::time::timeout(GUARD, sender.send_request(req)).await.expect("response in time").expect("response")
}

pub const POST_HEADERS: &[(&str, &str)] =
    &[("accept", "application/json, text/event-stream"), ("content-type", "application/json")];

pub fn init_body(version: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"t","version":"0"}}}}}}"#
    )
}

/// Initialize a session on `version`; returns its id.
pub async fn session(addr: SocketAddr, version: &str, extra: &[(&str, &str)]) -> String {
    let mut h = POST_HEADERS.to_vec();
    h.extend_from_slice(extra);
    let r = send(addr, "POST", &h, &init_body(version)).await;
    assert_eq!(r.status, 200, "{r:?}");
    let id = r.header("mcp-session-id").expect("a session id");
    let negotiated = r.messages()[0]["result"]["protocolVersion"].as_str().expect("a negotiated version").to_string();
    let mut h2 = h.clone();
    h2.push(("mcp-session-id", &id));
    h2.push(("mcp-protocol-version", &negotiated));
    let n = send(addr, "POST", &h2, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    assert_eq!(n.status, 202, "{n:?}");
    id
}

/// POST one message in a session.
pub async fn call(addr: SocketAddr, sid: &str, version: &str, body: &str, extra: &[(&str, &str)]) -> Resp {
    let mut h = POST_HEADERS.to_vec();
    h.push(("mcp-session-id", sid));
    h.push(("mcp-protocol-version", version));
    h.extend_from_slice(extra);
    send(addr, "POST", &h, body).await
}

pub fn tool_names(r: &Resp) -> Vec<String> {
    let msgs = r.messages();
    let list = msgs.iter().find(|m| m.get("result").is_some()).expect("a result");
    list["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect()
}
