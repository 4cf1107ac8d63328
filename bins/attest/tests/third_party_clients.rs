//! Real third-party MCP clients against the real binaries: the official Python MCP
//! SDK (which validates structuredContent against outputSchema itself) and Hermes
//! Agent's own MCP client, loading the config `attest emit hermes` prints.
//!
//! The Python environments are created by `scripts/py-venvs.sh` (CI runs it first;
//! this test runs it too, so `cargo test --workspace` works on a fresh machine with
//! network access to PyPI).

mod common;
use common::{python, repo, sibling};
use std::process::Command;

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let status =
        Command::new("cp").arg("-r").arg(repo().join("examples/workspace/.")).arg(dir.path()).status().unwrap();
    assert!(status.success());
    dir
}

#[test]
fn official_python_sdk_lists_and_calls_the_provenance_server() {
    let py = python("mcp");
    let server = sibling("attest-provenance");
    let ws = workspace();
    let db = tempfile::tempdir().unwrap();
    let out = Command::new(py)
        .arg(repo().join("tests/python/mcp_sdk_check.py"))
        .arg("--command")
        .arg(&server)
        .arg("--calls")
        .arg(repo().join("tests/python/calls_workspace.json"))
        .env("ATTEST_DB", db.path().join("attest.db"))
        .env("RESEARCH_ROOT", ws.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "mcp SDK check failed:\n{stdout}\n{stderr}");
}

#[test]
fn hermes_agent_loads_the_emitted_config_and_runs_ask() {
    let py = python("hermes");
    let server = sibling("attest-provenance");
    let ws = workspace();
    let db = tempfile::tempdir().unwrap();
    let db_path = db.path().join("attest.db");
    // Scan first, so the routed question has something to answer from.
    let scan = Command::new(env!("CARGO_BIN_EXE_attest"))
        .args(["runs", "scan"])
        .env("ATTEST_DB", &db_path)
        .env("RESEARCH_ROOT", ws.path())
        .output()
        .unwrap();
    assert!(scan.status.success(), "{}", String::from_utf8_lossy(&scan.stderr));
    let emitted = Command::new(env!("CARGO_BIN_EXE_attest"))
        .args(["emit", "hermes", "--bin-dir"])
        .arg(server.parent().unwrap())
        .env("ATTEST_DB", &db_path)
        .env("RESEARCH_ROOT", ws.path())
        .output()
        .unwrap();
    assert!(emitted.status.success(), "{}", String::from_utf8_lossy(&emitted.stderr));
    let config = db.path().join("hermes.yaml");
    std::fs::write(&config, &emitted.stdout).unwrap();
    let out = Command::new(py)
        .arg(repo().join("tests/python/hermes_check.py"))
        .arg("--config")
        .arg(&config)
        .args([
            "--server",
            "attest-provenance",
            "--question",
            "which arm of the kdalpha sweep won?",
            "--expect-ok",
            "true",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "Hermes check failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("kdalpha_75"), "the winner should reach the agent:\n{stdout}");
}
