//! The provenance surface through a real MCP client: the rmcp client spawns the real
//! `attest-provenance` binary over stdio.

use std::path::{Path, PathBuf};

use attest_testkit::{Session, validate};
use serde_json::{Value, json};
use tokio::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A research root copied from the example workspace, so tests may add files to it.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("examples/workspace"), dir.path());
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

async fn start(root: &Path, env: &[(&str, &str)]) -> Session {
    let db = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_attest-provenance"));
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("ATTEST_DB", db.path().join("attest.db"))
        .env("RESEARCH_ROOT", root);
    for (k, v) in env {
        cmd.env(k, v);
    }
    Session::spawn(cmd).await.keeping(db)
}

/// The whole answer as a reviewer should see it: the structured content with each
/// given directory replaced by its placeholder and timestamps by `[time]`.
fn redacted(v: &Value, dirs: &[(&Path, &str)]) -> Value {
    let dirs: Vec<(String, &str)> = dirs.iter().map(|(d, n)| (d.display().to_string(), *n)).collect();
    let pairs: Vec<(&str, &str)> = dirs.iter().map(|(d, n)| (d.as_str(), *n)).collect();
    attest_testkit::redact_json(v, &pairs)
}

const ALL_RUNS_TOOLS: &[&str] = &[
    "cite.check",
    "runs.ask",
    "runs.claims_check",
    "runs.claims_coverage",
    "runs.compare",
    "runs.detail",
    "runs.list",
    "runs.record",
    "runs.scan",
    "runs.tools",
];

#[tokio::test]
async fn starts_with_only_the_two_entry_tools() {
    let ws = workspace();
    let s = start(ws.path(), &[]).await;
    assert_eq!(s.names().await, ["runs.ask", "runs.tools"]);
    s.close().await;
}

#[tokio::test]
async fn runs_tools_lists_everything_and_notifies() {
    let ws = workspace();
    let s = start(ws.path(), &[]).await;
    let (out, text, is_error) = s.call("runs.tools", json!({})).await;
    assert!(!is_error);
    assert_eq!(out["ok"], true);
    insta::assert_json_snapshot!(
        "runs_tools",
        redacted(&json!({"structured": out, "text": text}), &[(ws.path(), "[root]")])
    );
    // The notification travels on the same pipe; give it a moment to arrive.
    for _ in 0..50 {
        if s.list_changed() > 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(s.list_changed(), 1, "tools/list_changed was not received");
    assert_eq!(s.names().await, ALL_RUNS_TOOLS);
    // A second call widens nothing and sends nothing more.
    s.call("runs.tools", json!({})).await;
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert_eq!(s.list_changed(), 1);
    s.close().await;
}

#[tokio::test]
async fn expand_never_widens_beyond_the_surface() {
    let ws = workspace();
    let s = start(ws.path(), &[("ATTEST_EXPAND", "1")]).await;
    let names = s.names().await;
    assert_eq!(names, ALL_RUNS_TOOLS);
    assert!(names.iter().all(|n| n.starts_with("runs.") || n == "cite.check"), "{names:?}");
    // Tools of other surfaces are absent, not hidden: calling one is refused.
    let (out, _, is_error) = s.call("feed.list", json!({"user": "a"})).await;
    assert!(!is_error);
    assert_eq!(out["ok"], false);
    s.close().await;
}

#[tokio::test]
async fn underscore_names_are_served_on_request() {
    let ws = workspace();
    let s = start(ws.path(), &[("ATTEST_TOOL_NAMES", "underscore")]).await;
    assert_eq!(s.names().await, ["runs_ask", "runs_tools"]);
    let (out, _, _) = s.call("runs_ask", json!({"question": "what runs do I have?"})).await;
    assert!(out["answer"].is_string());
    s.close().await;
}

#[tokio::test]
async fn every_tool_declares_annotations_and_an_output_schema() {
    let ws = workspace();
    let s = start(ws.path(), &[("ATTEST_EXPAND", "1")]).await;
    for t in s.tools().await {
        attest_testkit::standard_formats_only(&t);
        let schema = t.output_schema.as_ref().unwrap_or_else(|| panic!("{} has no outputSchema", t.name));
        assert_eq!(schema.get("type"), Some(&json!("object")), "{}", t.name);
        let a = t.annotations.as_ref().unwrap_or_else(|| panic!("{} has no annotations", t.name));
        assert!(a.read_only_hint.is_some(), "{} lacks readOnlyHint", t.name);
        if a.destructive_hint == Some(true) {
            let props = t.input_schema.get("properties").and_then(Value::as_object).unwrap();
            assert!(props.contains_key("confirm"), "{} is destructive but takes no confirm", t.name);
        }
        let first = t.description.as_deref().unwrap_or("").lines().next().unwrap_or("").to_string();
        assert!(first.ends_with('.') || first.ends_with('?'), "{}: {first}", t.name);
    }
    s.close().await;
}

/// Good and bad calls on every tool; each result, success or failure, validates
/// against the tool's own output schema, and no routine failure is an MCP error.
#[tokio::test]
async fn every_result_validates_and_bad_input_is_a_refusal() {
    let ws = workspace();
    let root = ws.path();
    // A 50 MB JSON file and malformed artifacts must not break the scan.
    let big = root.join("asr-distill/results/huge_blob.json");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(50 * 1024 * 1024).unwrap();
    std::fs::write(root.join("asr-distill/results/broken_x.json"), "{\"wer\": 0.1,").unwrap();
    std::fs::write(
        root.join("paper/unclosed.md"),
        "Numbers: 0.5\n<!-- claim: asr-distill/kdalpha_0 metric=wer value=0.0812\n",
    )
    .unwrap();
    let s = start(root, &[("ATTEST_EXPAND", "1")]).await;
    let schemas: std::collections::HashMap<String, Value> = s
        .tools()
        .await
        .into_iter()
        .map(|t| (t.name.to_string(), Value::Object((*t.output_schema.unwrap()).clone())))
        .collect();
    let draft = root.join("paper/draft.md");
    let outside = std::env::temp_dir();
    let calls: Vec<(&str, Value, Option<bool>)> = vec![
        ("runs.scan", json!({}), Some(false)),
        ("runs.scan", json!({"confirm": true}), Some(true)),
        ("runs.scan", json!({"confirm": true, "root": "/definitely/not/here"}), Some(false)),
        ("runs.scan", json!({"confirm": "yes"}), Some(false)),
        ("runs.list", json!({}), Some(true)),
        ("runs.list", json!({"limit": 100000}), Some(false)),
        ("runs.list", json!({"limit": -1}), Some(false)),
        ("runs.list", json!({"family": "no-such-family"}), Some(false)),
        ("runs.compare", json!({"family": "kdalpha"}), Some(true)),
        ("runs.compare", json!({"family": "prompt"}), Some(false)),
        ("runs.compare", json!({"family": "kdalpha", "metric": "n_records"}), Some(false)),
        ("runs.compare", json!({}), Some(false)),
        ("runs.compare", json!({"family": 7}), Some(false)),
        ("runs.detail", json!({"name": "kdalpha_75"}), Some(true)),
        ("runs.detail", json!({"name": "nope_nope"}), Some(false)),
        ("runs.claims_check", json!({"path": draft}), Some(true)),
        ("runs.claims_check", json!({"path": outside}), Some(false)),
        ("runs.claims_check", json!({"path": root.join("paper/unclosed.md")}), Some(true)),
        ("runs.claims_check", json!({"path": draft, "verdict": "bogus"}), Some(false)),
        ("runs.claims_coverage", json!({"path": draft}), Some(true)),
        ("runs.claims_coverage", json!({"path": "/etc/passwd"}), Some(false)),
        ("runs.record", json!({"family": "lr", "project": "asr-distill", "arms": {"a": {"wer": 0.1}}}), Some(false)),
        ("runs.record", json!({"family": "lr"}), Some(false)),
        ("runs.ask", json!({"question": "which arm of the kdalpha sweep won?"}), Some(true)),
        ("runs.ask", json!({"question": "hello"}), Some(false)),
        ("runs.ask", json!({"question": "what should I read today?"}), Some(false)),
        ("runs.ask", json!({"question": "x", "tool": "runs.list", "args": {"limit": 3}}), Some(true)),
        ("runs.ask", json!({"question": "x", "tool": "feed.list"}), Some(false)),
        ("runs.ask", json!({}), Some(false)),
        ("runs.tools", json!({}), Some(true)),
    ];
    for (tool, args, expect_ok) in calls {
        let (out, text, is_error) = s.call(tool, args.clone()).await;
        assert!(!is_error, "{tool} {args}: routine outcome reported as an MCP error: {text}");
        validate(&schemas[tool], &out, &format!("{tool} {args}"));
        if let Some(want) = expect_ok {
            assert_eq!(out["ok"], want, "{tool} {args}: {out:#}");
        }
        if out["ok"] == false {
            let answer = out["answer"].as_str().unwrap();
            assert!(answer.len() > 20, "{tool} {args}: refusal too terse to act on: {answer}");
        }
        assert!(serde_json::to_string(&out).unwrap().len() <= 7000, "{tool} {args}: over budget");
    }
    // The server is still answering, and the unclosed claim comment is reported.
    let (out, _, _) = s.call("runs.claims_check", json!({"path": root.join("paper/unclosed.md")})).await;
    assert!(!out["data"]["malformed"].as_array().unwrap().is_empty(), "{out:#}");
    s.close().await;
}
