//! SIGTERM while a call is in flight, over Streamable HTTP, through the real binaries
//! (`attest serve --surface provenance --http` and `attest-provenance --http`): the call
//! finishes and its answer reaches the client, the process exits 0, and afterwards
//! nothing listens.
//!
//! How "in flight" is made certain without timing: the test holds SQLite's write lock
//! on the database (`BEGIN IMMEDIATE` and a pending insert) before calling `runs.scan`
//! with a new result file to record, so the scan cannot commit until the test lets go.
//! The signal is sent once the server has answered the call's HTTP request head (the
//! event stream is open: the call is being handled) and the lock is released only after
//! the signal. The server's busy timeout (5 s) bounds the wait; a busy refusal would
//! fail the `ok: true` assertion rather than hang.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

use common::{attest, sibling, text};
use serde_json::{Value, json};

/// A response being read: status, headers, and the body reader.
struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    reader: BufReader<TcpStream>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Read the body to the end (the connection closes), decoding chunks if chunked.
    fn body(mut self) -> String {
        let mut raw = Vec::new();
        let _ = self.reader.read_to_end(&mut raw);
        if self.header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
            dechunk(&raw)
        } else {
            String::from_utf8_lossy(&raw).into_owned()
        }
    }
}

fn dechunk(raw: &[u8]) -> String {
    let mut out = Vec::new();
    let mut rest = raw;
    while let Some(nl) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(String::from_utf8_lossy(&rest[..nl]).trim(), 16).unwrap_or(0);
        rest = &rest[nl + 2..];
        if size == 0 || rest.len() < size {
            out.extend_from_slice(&rest[..size.min(rest.len())]);
            break;
        }
        out.extend_from_slice(&rest[..size]);
        rest = rest.get(size + 2..).unwrap_or(&[]);
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn post(addr: &str, session: Option<&str>, body: &Value) -> Response {
    let stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(std::time::Duration::from_secs(120))).unwrap(); // a hang guard only
    let body = body.to_string();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(s) = session {
        head.push_str(&format!("Mcp-Session-Id: {s}\r\nMCP-Protocol-Version: 2025-06-18\r\n"));
    }
    head.push_str("\r\n");
    let mut w = stream.try_clone().unwrap();
    w.write_all(head.as_bytes()).unwrap();
    w.write_all(body.as_bytes()).unwrap();
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let status: u16 = line.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line).unwrap();
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    Response { status, headers, reader }
}

/// The JSON-RPC message answering `id` in a body (JSON or an event stream).
fn answer_to(body: &str, id: i64) -> Option<Value> {
    let messages: Vec<Value> = if body.trim_start().starts_with('{') {
        serde_json::from_str(body.trim()).into_iter().collect()
    } else {
        body.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str(d.trim()).ok())
            .collect()
    };
    messages.into_iter().find(|m| m["id"] == json!(id))
}

/// Start a server, read the address it prints.
fn start(mut cmd: Command) -> (Child, String) {
    cmd.stderr(Stdio::piped()).stdout(Stdio::null()).stdin(Stdio::null());
    let mut child = cmd.spawn().unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    let addr = loop {
        line.clear();
        assert!(err.read_line(&mut line).unwrap() > 0, "the server stopped before saying where it listens");
        if let Some(rest) = line.split("http://").nth(1) {
            break rest.trim().trim_end_matches("/mcp").to_string();
        }
    };
    // Keep draining its log so it never blocks on a full pipe.
    std::thread::spawn(move || {
        let mut sink = String::new();
        let _ = err.read_to_string(&mut sink);
    });
    (child, addr)
}

fn sigterm_during_a_call(name: &str, cmd: impl Fn(&std::path::Path, &std::path::Path) -> Command) {
    let root = common::example_workspace();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("attest.db");
    let o = attest(&["runs", "scan"], &db, Some(root.path()));
    assert!(o.status.success(), "{}", text(&o));
    // Something new for the scan to write.
    std::fs::write(root.path().join("asr-distill/results/kdalpha_90.json"), r#"{"wer": 0.111}"#).unwrap();

    let (mut child, addr) = start(cmd(&db, root.path()));
    let init = post(
        &addr,
        None,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
    );
    assert_eq!(init.status, 200, "{name}: initialize");
    let session = init.header("mcp-session-id").expect("a session id").to_string();
    let _ = init.body();
    let note = post(&addr, Some(&session), &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert!(note.status < 300, "{name}: initialized: {}", note.status);

    // Hold the write lock.
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let mut holder = rt.block_on(async {
        use sqlx::{ConnectOptions, Executor};
        let mut c = sqlx::sqlite::SqliteConnectOptions::new().filename(&db).connect().await.unwrap();
        c.execute("BEGIN IMMEDIATE").await.unwrap();
        c.execute("INSERT INTO corpora (name) VALUES ('held')").await.unwrap();
        c
    });

    let call = post(
        &addr,
        Some(&session),
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "runs.scan", "arguments": {"confirm": true}}}),
    );
    assert_eq!(call.status, 200, "{name}: the call's stream opens");
    // SAFETY: sending a signal to the child we started.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    rt.block_on(async {
        use sqlx::Executor;
        holder.execute("ROLLBACK").await.unwrap();
    });
    drop(holder);

    let body = call.body();
    let answer = answer_to(&body, 2).unwrap_or_else(|| panic!("{name}: the in-flight call got no answer: {body}"));
    let result = &answer["result"]["structuredContent"];
    assert_eq!(result["ok"], json!(true), "{name}: {answer}");
    assert!(result["answer"].as_str().unwrap_or("").contains("run"), "{name}: {answer}");
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{name}: exit status after SIGTERM");
    // Its sessions and listener are gone with it.
    assert!(TcpStream::connect(&addr).is_err(), "{name}: something still listens on {addr}");
    // And the call's work was committed: the new run is in the ledger.
    let o = attest(&["runs", "show", "kdalpha_90", "--json"], &db, Some(root.path()));
    assert!(o.status.success() && text(&o).contains("0.111"), "{name}: {}", text(&o));
}

#[test]
fn attest_serve_http_finishes_the_call_in_flight_on_sigterm_and_exits_0() {
    sigterm_during_a_call("attest serve", |db, root| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_attest"));
        c.args(["serve", "--surface", "provenance", "--http", "127.0.0.1:0"])
            .env("ATTEST_DB", db)
            .env("RESEARCH_ROOT", root)
            .env("ATTEST_EXPAND", "1");
        c
    });
}

#[test]
fn a_surface_binary_finishes_the_call_in_flight_on_sigterm_and_exits_0() {
    let bin = sibling("attest-provenance");
    sigterm_during_a_call("attest-provenance", |db, root| {
        let mut c = Command::new(&bin);
        c.args(["--http", "127.0.0.1:0"]).env("ATTEST_DB", db).env("RESEARCH_ROOT", root).env("ATTEST_EXPAND", "1");
        c
    });
}
