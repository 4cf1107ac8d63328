//! The official Python MCP SDK over Streamable HTTP: `tests/python/mcp_sdk_check.py
//! --url` against `attest-provenance --http` (the stdio run is in
//! `third_party_clients.rs`). Besides the listing, disclosure and calls, the check fails
//! on anything the SDK logs as a warning: before the HTTP fixes it logged "Session
//! termination failed: 202" on every close.

mod common;
use common::{python, repo, sibling};
use std::process::{Child, Command, Stdio};

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn official_python_sdk_lists_and_calls_the_provenance_server_over_http() {
    let py = python("mcp");
    let server = sibling("attest-provenance");
    let ws = tempfile::tempdir().unwrap();
    let status = Command::new("cp").arg("-r").arg(repo().join("examples/workspace/.")).arg(ws.path()).status().unwrap();
    assert!(status.success());
    let db = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let _server = Running(
        Command::new(&server)
            .args(["--http", &format!("127.0.0.1:{port}")])
            .env("ATTEST_DB", db.path().join("attest.db"))
            .env("RESEARCH_ROOT", ws.path())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut up = false;
    for _ in 0..3000 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            up = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(up, "the HTTP server did not start");
    let out = Command::new(py)
        .arg(repo().join("tests/python/mcp_sdk_check.py"))
        .arg("--url")
        .arg(format!("http://127.0.0.1:{port}/mcp"))
        .arg("--calls")
        .arg(repo().join("tests/python/calls_workspace.json"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "mcp SDK check over HTTP failed:\n{stdout}\n{stderr}");
}
