//! The symbolic surface through a real MCP client: the rmcp client spawns the real
//! `attest-symbolic` binary over stdio, and every computation runs in its sandboxed
//! worker processes.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;

use attest_testkit::{Session, validate};
use serde_json::{Value, json};
use tokio::process::Command;

struct Server {
    s: Session,
    db: PathBuf,
    _dir: tempfile::TempDir,
}

impl std::ops::Deref for Server {
    type Target = Session;
    fn deref(&self) -> &Session {
        &self.s
    }
}

async fn start(env: &[(&str, &str)]) -> Server {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("attest.db");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_attest-symbolic"));
    cmd.env_clear().env("PATH", std::env::var("PATH").unwrap_or_default()).env("ATTEST_DB", &db);
    for (k, v) in env {
        cmd.env(k, v);
    }
    Server { s: Session::spawn(cmd).await, db, _dir: dir }
}

const ALL_SYM_TOOLS: &[&str] = &[
    "sym.ask",
    "sym.check",
    "sym.derivation",
    "sym.differentiate",
    "sym.evaluate",
    "sym.integrate",
    "sym.limit",
    "sym.matrix",
    "sym.series",
    "sym.simplify",
    "sym.solve",
    "sym.sum",
    "sym.tools",
    "sym.verify",
];

#[tokio::test]
async fn starts_with_only_the_two_entry_tools_and_no_database() {
    let s = start(&[]).await;
    assert_eq!(s.names().await, ["sym.ask", "sym.tools"]);
    let (out, _, _) = s.call("sym.verify", json!({"lhs": "x", "rhs": "x"})).await;
    assert_eq!(out["ok"], true, "unlisted tools are callable by name: {out:#}");
    assert!(!s.db.exists(), "the symbolic surface must not open or create the database");
    s.s.close().await;
}

#[tokio::test]
async fn sym_tools_lists_everything_and_notifies() {
    let s = start(&[]).await;
    let (out, text, is_error) = s.call("sym.tools", json!({})).await;
    assert!(!is_error);
    assert_eq!(out["ok"], true);
    insta::assert_json_snapshot!("sym_tools", json!({"structured": out, "text": text}));
    for _ in 0..50 {
        if s.list_changed() > 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(s.list_changed(), 1, "tools/list_changed was not received");
    assert_eq!(s.names().await, ALL_SYM_TOOLS);
    s.s.close().await;
}

#[tokio::test]
async fn expand_never_lists_a_non_sym_tool() {
    let s = start(&[("ATTEST_EXPAND", "1")]).await;
    let names = s.names().await;
    assert_eq!(names, ALL_SYM_TOOLS);
    let (out, _, is_error) = s.call("runs.list", json!({})).await;
    assert!(!is_error);
    assert_eq!(out["ok"], false);
    s.s.close().await;
}

#[tokio::test]
async fn every_tool_declares_read_only_annotations_and_an_output_schema() {
    let s = start(&[("ATTEST_EXPAND", "1")]).await;
    for t in s.tools().await {
        attest_testkit::standard_formats_only(&t);
        let schema = t.output_schema.as_ref().unwrap_or_else(|| panic!("{} has no outputSchema", t.name));
        assert_eq!(schema.get("type"), Some(&json!("object")), "{}", t.name);
        let a = t.annotations.as_ref().unwrap_or_else(|| panic!("{} has no annotations", t.name));
        assert_eq!(a.read_only_hint, Some(true), "{}", t.name);
        assert_eq!(a.open_world_hint, Some(false), "{}", t.name);
        let first = t.description.as_deref().unwrap_or("").lines().next().unwrap_or("").to_string();
        assert!(first.ends_with('.'), "{}: {first}", t.name);
    }
    s.s.close().await;
}

/// Good and bad calls on every tool; each result, success or failure, validates
/// against the tool's own output schema, and no routine failure is an MCP error.
#[tokio::test]
async fn every_result_validates_and_bad_input_is_a_refusal() {
    let s = start(&[("ATTEST_EXPAND", "1")]).await;
    let schemas = s.schemas().await;
    let calls: Vec<(&str, Value, bool)> = vec![
        ("sym.simplify", json!({"expr": "(x^2-1)/(x-1)"}), true),
        ("sym.simplify", json!({"expr": "\\frac{x^{2}-1}{x-1}"}), true),
        ("sym.simplify", json!({}), false),
        ("sym.simplify", json!({"expr": 5}), false),
        ("sym.simplify", json!({"expr": "x + * 2"}), false),
        ("sym.simplify", json!({"expr": "   "}), false),
        ("sym.solve", json!({"expr": "x^2 - 5x + 6 = 0"}), true),
        ("sym.solve", json!({"expr": "x^5 - x - 1"}), true),
        ("sym.solve", json!({"expr": "x y = 1"}), false),
        ("sym.solve", json!({"expr": "x^2 = 2", "var": "z"}), false),
        ("sym.differentiate", json!({"expr": "x^3", "order": 2}), true),
        ("sym.differentiate", json!({"expr": "x^3", "order": "two"}), false),
        ("sym.differentiate", json!({"expr": "x^3", "order": 50}), false),
        ("sym.differentiate", json!({"expr": "x^3", "order": 0}), false),
        ("sym.differentiate", json!({"expr": "x^3", "order": -1}), false),
        ("sym.differentiate", json!({"expr": "x^2", "var": "z"}), false),
        ("sym.integrate", json!({"expr": "x e^x"}), true),
        ("sym.integrate", json!({"expr": "x", "bounds": [0, 1]}), true),
        ("sym.integrate", json!({"expr": "sin(x)", "bounds": [0, "pi"]}), true),
        ("sym.integrate", json!({"expr": "x", "bounds": [0]}), false),
        ("sym.integrate", json!({"expr": "x", "bounds": [0, 1, 2]}), false),
        ("sym.integrate", json!({"expr": "exp(x^2)"}), false),
        ("sym.integrate", json!({"expr": "1/sin(x)", "bounds": [-1, 1]}), false),
        ("sym.derivation", json!({"expr": "x^2 sin(x)", "operation": "differentiate"}), true),
        ("sym.derivation", json!({"expr": "x e^x", "operation": "integrate"}), true),
        ("sym.derivation", json!({"expr": "x", "operation": "explode"}), false),
        ("sym.derivation", json!({"expr": "x"}), false),
        ("sym.verify", json!({"lhs": "(a+b)^2", "rhs": "a^2+2ab+b^2"}), true),
        ("sym.verify", json!({"equation": "sqrt(x^2) = x"}), true),
        ("sym.verify", json!({"equation": "(x^2-1)/(x-1) = x+1"}), true),
        ("sym.verify", json!({"equation": "\\sin^2 x + \\cos^2 x = 1"}), true),
        ("sym.verify", json!({"lhs": "x"}), false),
        ("sym.verify", json!({}), false),
        ("sym.verify", json!({"lhs": "(x", "rhs": "x"}), false),
        ("sym.verify", json!({"lhs": ["x"], "rhs": "x"}), false),
        ("sym.evaluate", json!({"expr": "sin(x)^2", "subs": {"x": "pi/4"}}), true),
        ("sym.evaluate", json!({"expr": "x^2 + y", "subs": {"x": 3, "y": 0.5}}), true),
        ("sym.evaluate", json!({"units": "3.2 eV in joules"}), true),
        ("sym.evaluate", json!({"units": "60 mph to km/h"}), true),
        ("sym.evaluate", json!({"expr": "x y"}), false),
        ("sym.evaluate", json!({"units": "3 kg in meters"}), false),
        ("sym.evaluate", json!({"expr": "x", "subs": {"q": 1}}), false),
        ("sym.evaluate", json!({"expr": "x", "subs": {"x": [1]}}), false),
        ("sym.evaluate", json!({}), false),
        ("sym.check", json!({"lines": "(x+1)^2\n= x^2 + 2x + 1\n= x(x+2) + 1"}), true),
        ("sym.check", json!({"lines": ["(x+1)^2", "x^2 + x + 1"]}), true),
        ("sym.check", json!({"lines": "x"}), false),
        ("sym.check", json!({"lines": 7}), false),
        ("sym.ask", json!({"question": "is sin(x)^2 + cos(x)^2 equal to 1?"}), true),
        ("sym.ask", json!({"question": "simplify (x^2-1)/(x-1)"}), true),
        ("sym.ask", json!({"question": "integrate x^2 from 0 to 3"}), true),
        ("sym.ask", json!({"question": "what is 3.2 eV in joules?"}), true),
        ("sym.ask", json!({"question": "hello"}), false),
        ("sym.ask", json!({"question": "", "expr": "x^2 + 1"}), false),
        ("sym.ask", json!({"question": "are the numbers in my draft right?"}), false),
        ("sym.ask", json!({"question": "x", "tool": "sym.verify", "args": {"lhs": "2x", "rhs": "x+x"}}), true),
        ("sym.ask", json!({"question": "x", "tool": "sym_solve", "args": {"expr": "x^2 = 4"}}), true),
        ("sym.ask", json!({"question": "x", "tool": "runs.list"}), false),
        ("sym.ask", json!({"question": "x", "tool": "sym.verify", "args": "oops"}), false),
        ("sym.ask", json!({}), false),
        ("sym.tools", json!({}), true),
    ];
    for (tool, args, want) in calls {
        let (out, text, is_error) = s.call(tool, args.clone()).await;
        assert!(!is_error, "{tool} {args}: routine outcome reported as an MCP error: {text}");
        validate(&schemas[tool], &out, &format!("{tool} {args}"));
        assert_eq!(out["ok"], want, "{tool} {args}: {out:#}");
        let answer = out["answer"].as_str().unwrap();
        if !want {
            assert!(answer.len() > 20, "{tool} {args}: refusal too terse to act on: {answer}");
            assert!(out["data"].is_null(), "{tool} {args}: a refusal carries no data");
        }
        assert!(serde_json::to_string(&out).unwrap().len() <= 7000, "{tool} {args}: over budget");
    }
    s.s.close().await;
}

#[tokio::test]
async fn answers_read_as_a_researcher_says_them() {
    let s = start(&[("ATTEST_EXPAND", "1")]).await;
    let mut all = Vec::new();
    let (out, text, _) = s.call("sym.verify", json!({"lhs": "(a+b)^2", "rhs": "a^2 + 2ab + b^2"})).await;
    assert_eq!(text, out["answer"].as_str().unwrap());
    all.push(json!({"call": "sym.verify", "structured": out, "text": text}));
    let (out, text, _) = s.call("sym.verify", json!({"lhs": "sqrt(x^2)", "rhs": "x"})).await;
    assert_eq!(out["data"]["counterexample"]["point"]["x"], "-1");
    all.push(json!({"call": "sym.verify", "structured": out, "text": text}));
    let (out, text, _) = s.call("sym.verify", json!({"equation": "(x^2-1)/(x-1) = x+1"})).await;
    all.push(json!({"call": "sym.verify", "structured": out, "text": text}));
    let (out, text, _) = s.call("sym.simplify", json!({"expr": "x + * 2"})).await;
    all.push(json!({"call": "sym.simplify", "structured": out, "text": text}));
    let (out, text, _) = s.call("sym.evaluate", json!({"expr": "x y + 1", "subs": {"x": 2}})).await;
    all.push(json!({"call": "sym.evaluate", "structured": out, "text": text}));
    let (out, text, _) = s.call("sym.evaluate", json!({"units": "3 kg in meters"})).await;
    all.push(json!({"call": "sym.evaluate", "structured": out, "text": text}));
    insta::assert_json_snapshot!("researcher_answers", all);
    s.s.close().await;
}

/// Inputs built to hang or exhaust the computation: each is a clear `ok: false` (a
/// refusal naming the limit, or the sandbox's timeout or memory message), never an
/// MCP error, and the next call succeeds.
#[tokio::test]
async fn hostile_inputs_are_refused_and_the_next_call_works() {
    let s = start(&[("ATTEST_EXPAND", "1")]).await;
    let schemas = s.schemas().await;
    let tower = format!("{}x", "x^".repeat(3000));
    let nested_d = format!("{}x^2 sin(x) e^x{}", "d/dx(".repeat(10), ")".repeat(10));
    let megabyte = format!("{}x", "x+".repeat(500_000));
    let parens = format!("{}x{}", "(".repeat(20_000), ")".repeat(20_000));
    let cases: Vec<(&str, Value, Option<bool>)> = vec![
        ("sym.simplify", json!({"expr": tower}), Some(false)),
        ("sym.verify", json!({"lhs": tower, "rhs": "x"}), Some(false)),
        ("sym.differentiate", json!({"expr": "sin(x) cos(x) exp(x) x^2", "order": 10}), None),
        ("sym.simplify", json!({"expr": nested_d}), None),
        ("sym.simplify", json!({"expr": "(x+1)^100000"}), Some(false)),
        ("sym.verify", json!({"lhs": "(x+1)^100000", "rhs": "(1+x)^100000 + 1"}), None),
        ("sym.simplify", json!({"expr": megabyte}), Some(false)),
        ("sym.simplify", json!({"expr": parens}), Some(false)),
        ("sym.evaluate", json!({"expr": "9^9^9"}), Some(false)),
    ];
    let (baseline, _, _) = s.call("sym.verify", json!({"lhs": "sin(2t)", "rhs": "2 sin(t) cos(t)"})).await;
    insta::assert_json_snapshot!("double_angle", baseline);
    // The refusals decided before any computation are the same on every machine and
    // are snapshotted whole; the others depend on the machine's speed.
    let mut refusals = Vec::new();
    for (tool, args, want) in cases {
        let shown: String = args.to_string().chars().take(80).collect();
        let (out, text, is_error) = s.call(tool, args).await;
        assert!(!is_error, "{tool} {shown}: reported as an MCP error: {text}");
        validate(&schemas[tool], &out, &format!("{tool} {shown}"));
        if let Some(want) = want {
            assert_eq!(out["ok"], want, "{tool} {shown}: {out:#}");
        }
        if want == Some(false) {
            refusals.push(json!({"call": tool, "args": shown, "answer": out}));
        } else if out["ok"] == false {
            let answer = out["answer"].as_str().unwrap();
            assert!(
                ["refused", "limit", "longer than", "memory", "too large", "not attempted", "deep"]
                    .iter()
                    .any(|w| answer.contains(w)),
                "{tool} {shown}: the refusal does not say what happened: {answer}"
            );
        }
        assert!(serde_json::to_string(&out).unwrap().len() <= 7000, "{tool} {shown}: over budget");
        let (next, _, _) = s.call("sym.verify", json!({"lhs": "sin(2t)", "rhs": "2 sin(t) cos(t)"})).await;
        assert_eq!(next, baseline, "after {tool} {shown}");
    }
    insta::assert_json_snapshot!("hostile_refusals", refusals);
    s.s.close().await;
}

/// The sandbox's failure path through the real surface: a worker killed from outside
/// (as the system's OOM killer would) is reported as `ok: false` with the sandbox's
/// message or transparently replaced, never an MCP error, and the surface keeps
/// answering on a fresh worker.
#[tokio::test]
async fn a_killed_worker_is_replaced() {
    let s = start(&[("ATTEST_EXPAND", "1")]).await;
    let (first, _, _) = s.call("sym.simplify", json!({"expr": "(x+1)^2"})).await;
    assert_eq!(first["ok"], true, "{first:#}");
    let workers = children(s.pid);
    assert!(!workers.is_empty(), "the server has no worker process");
    for w in &workers {
        std::process::Command::new("kill").args(["-KILL", &w.to_string()]).status().unwrap();
    }
    let mut refusals = 0;
    for _ in 0..3 {
        let (out, text, is_error) = s.call("sym.verify", json!({"lhs": "x^2 - 1", "rhs": "(x-1)(x+1)"})).await;
        assert!(!is_error, "a dead worker surfaced as an MCP error: {text}");
        if out["ok"] == false {
            refusals += 1;
            let answer = out["answer"].as_str().unwrap();
            assert!(answer.starts_with("the computation"), "not the sandbox's message: {answer}");
        }
    }
    assert!(refusals <= workers.len(), "more failed calls than dead workers");
    let (last, _, _) = s.call("sym.verify", json!({"lhs": "x^2 - 1", "rhs": "(x-1)(x+1)"})).await;
    assert_eq!(last["ok"], true, "{last:#}");
    assert!(children(s.pid).iter().all(|p| !workers.contains(p)), "a killed worker is still in use");
    s.s.close().await;
}

/// The live child processes of `pid` (Linux: /proc/<pid>/task/*/children).
fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return out };
    for t in tasks.flatten() {
        if let Ok(list) = std::fs::read_to_string(t.path().join("children")) {
            out.extend(list.split_whitespace().filter_map(|p| p.parse::<u32>().ok()));
        }
    }
    out.retain(|p| {
        std::fs::read_to_string(format!("/proc/{p}/stat"))
            .map(|st| !st.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z'))
            .unwrap_or(false)
    });
    out
}

#[tokio::test]
async fn concurrent_calls_all_answer() {
    let s = Arc::new(start(&[("ATTEST_EXPAND", "1")]).await);
    let mut handles = Vec::new();
    for i in 0..8 {
        let s = Arc::clone(&s);
        handles.push(tokio::spawn(async move {
            let (out, _, _) = s
                .call(
                    "sym.verify",
                    json!({"lhs": format!("(x+{i})^2"), "rhs": format!("x^2 + {}x + {}", 2 * i, i * i)}),
                )
                .await;
            out
        }));
    }
    let mut answers = Vec::new();
    for h in handles {
        let out = h.await.unwrap();
        assert_eq!(out["ok"], true, "{out:#}");
        answers.push(out);
    }
    insta::assert_json_snapshot!("concurrent_answers", answers);
}

/// The worker subcommand speaks the JSON-lines protocol by hand, as specs/sandbox.md
/// promises (`echo '{"op":"ping"}' | attest-symbolic worker`).
#[test]
fn the_worker_subcommand_speaks_json_lines() {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_attest-symbolic"))
        .arg("worker")
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{}", json!({"op": "ping"})).unwrap();
    writeln!(stdin, "{}", json!({"op": "verify", "lhs": "x^2 - 1", "rhs": "(x-1)(x+1)"})).unwrap();
    writeln!(stdin, "{}", json!({"op": "simplify", "expr": "x +"})).unwrap();
    writeln!(stdin, "not json").unwrap();
    drop(stdin);
    let lines: Vec<Value> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect();
    assert!(child.wait().unwrap().success());
    assert_eq!(lines.len(), 4, "{lines:#?}");
    assert_eq!(lines[0]["ok"], "pong");
    assert_eq!(lines[1]["ok"]["verdict"], "proved");
    assert_eq!(lines[2]["err"]["kind"], "parse");
    assert!(lines[3]["error"].is_string());
}
