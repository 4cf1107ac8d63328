//! Streamable HTTP: loopback by default, a bearer token required elsewhere and
//! enforced when set. Spoken with raw HTTP/1.1 so the test needs no HTTP client crate.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn(addr: &str, token: Option<&str>) -> (Running, String) {
    let db = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_attest-provenance"));
    cmd.args(["--http", addr])
        .env("ATTEST_DB", db.path().join("a.db"))
        .env("RESEARCH_ROOT", db.path())
        .env_remove("ATTEST_HTTP_TOKEN")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(t) = token {
        cmd.env("ATTEST_HTTP_TOKEN", t);
    }
    let mut child = cmd.spawn().unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("http://") {
        line.clear();
        if err.read_line(&mut line).unwrap() == 0 {
            panic!("the server exited before announcing its address");
        }
    }
    std::mem::forget(db); // the server owns the directory until it is killed
    let url = line.split("http://").nth(1).map(|s| s.trim().trim_end_matches("/mcp").to_string());
    (Running(child), url.unwrap_or_else(|| panic!("no address announced: {line}")))
}

fn post(host: &str, token: Option<&str>) -> String {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
    let mut s = TcpStream::connect(host).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let auth = token.map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default();
    write!(
        s,
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{auth}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    // Read until the initialize result arrives (SSE keeps the stream open).
    while let Ok(n) = s.read(&mut buf) {
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&out);
        if text.contains("serverInfo") || text.starts_with("HTTP/1.1 4") {
            break;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn loopback_serves_initialize() {
    let (_server, host) = spawn("127.0.0.1:0", None);
    let reply = post(&host, None);
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(reply.contains("attest-provenance"), "{reply}");
}

#[test]
fn a_token_is_enforced_when_set() {
    let (_server, host) = spawn("127.0.0.1:0", Some("s3cret"));
    assert!(post(&host, None).starts_with("HTTP/1.1 401"));
    assert!(post(&host, Some("wrong")).starts_with("HTTP/1.1 401"));
    assert!(post(&host, Some("s3cret")).starts_with("HTTP/1.1 200"));
}

#[test]
fn non_loopback_without_a_token_is_refused() {
    let db = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_attest-provenance"))
        .args(["--http", "0.0.0.0:0"])
        .env("ATTEST_DB", db.path().join("a.db"))
        .env_remove("ATTEST_HTTP_TOKEN")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("ATTEST_HTTP_TOKEN"), "{err}");
}
