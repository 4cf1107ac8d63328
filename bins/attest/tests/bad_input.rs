//! Bad input, over the catalogue: every tool of every surface, driven through the real
//! `attest serve --surface <name>` over stdio, is called with arguments built from its
//! own input schema to be wrong in each way an agent (or an attacker) can be wrong:
//!
//! | case | what is sent | expected |
//! |---|---|---|
//! | `missing` | `{}` to a tool with required arguments | `ok: false` |
//! | `wrong-type` | each argument, one at a time, as a value of another JSON type | `ok: false` |
//! | `dotdot`, `absolute`, `symlink` | each path-like argument leading out of the research root | `ok: false`, nothing written outside |
//! | `empty`, `huge-string` (1 MB), `odd-unicode` (NUL, bidi override, BOM, combining marks, U+10FFFF), `huge-number`, `extra-arg` | every string / number argument at once, or an argument no tool takes | answered, never `isError` |
//!
//! Every answer must be a tool result (no protocol error, no crash), never `isError`,
//! valid against the tool's output schema and within the 7,000-character budget; and
//! after each tool's cases the server must still answer. The tools come from the
//! server's own listing (`ATTEST_EXPAND=1`), so a new tool is covered without editing
//! this file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use attest_testkit::Session;
use rmcp::model::{CallToolRequestParams, Tool};
use serde_json::{Map, Value, json};

/// The characters an answer may take (specs/mcp.md, "Size").
const BUDGET: usize = 7_000;
/// A guard against a hang, never a timed assertion: a call that takes this long is stuck.
const HANG: Duration = Duration::from_secs(120);

mod common;

/// A research root copied from the example workspace, with a link leading out of it
/// (`away` → a directory holding a project and a draft) and that outside directory.
struct Ground {
    root: tempfile::TempDir,
    outside: tempfile::TempDir,
    db: tempfile::TempDir,
}

impl Ground {
    fn new() -> Ground {
        let root = common::example_workspace();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(outside.path().join("project/results")).unwrap();
        std::fs::write(outside.path().join("project/results/metrics.json"), r#"{"accuracy": 0.5}"#).unwrap();
        std::fs::write(
            outside.path().join("draft.md"),
            "We reach 0.99 accuracy. <!-- claim: run=x metric=accuracy -->\n",
        )
        .unwrap();
        std::fs::write(outside.path().join("refs.bib"), "@article{secret, title={Secret}, year={2020}}\n").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("away")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("draft.md"), root.path().join("linked-draft.md")).unwrap();
        Ground { root, outside, db: tempfile::tempdir().unwrap() }
    }

    /// Every file under the outside directory, with its size: nothing may change there.
    fn outside_files(&self) -> BTreeMap<PathBuf, u64> {
        fn walk(dir: &Path, out: &mut BTreeMap<PathBuf, u64>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let e = e.unwrap();
                let m = std::fs::symlink_metadata(e.path()).unwrap();
                if m.is_dir() {
                    walk(&e.path(), out);
                }
                out.insert(e.path(), m.len());
            }
        }
        let mut out = BTreeMap::new();
        walk(self.outside.path(), &mut out);
        out
    }

    async fn serve(&self, surface: &str) -> Session {
        let db = self.db.path().join("attest.db");
        let mut cmd = Session::command(
            env!("CARGO_BIN_EXE_attest"),
            &[
                ("ATTEST_DB", db.to_str().unwrap()),
                ("RESEARCH_ROOT", self.root.path().to_str().unwrap()),
                ("ATTEST_EXPAND", "1"),
                ("HOME", self.db.path().to_str().unwrap()),
            ],
        );
        cmd.args(["serve", "--surface", surface]);
        Session::spawn(cmd).await
    }
}

/// One bad call.
struct Case {
    kind: &'static str,
    args: Value,
    /// Whether the answer must be a refusal (`ok: false`); otherwise any answer that is
    /// not `isError` will do (an empty optional filter may well be fine).
    refuse: bool,
}

/// A property's schema, with `$ref` into `$defs` followed and `anyOf [T, null]` reduced.
fn resolve<'a>(p: &'a Value, root: &'a Value) -> &'a Value {
    let mut p = p;
    for _ in 0..8 {
        if let Some(r) = p.get("$ref").and_then(Value::as_str) {
            let name = r.rsplit('/').next().unwrap_or(r);
            match root.get("$defs").and_then(|d| d.get(name)) {
                Some(d) => p = d,
                None => break,
            }
            continue;
        }
        if let Some(v) = p.get("anyOf").or_else(|| p.get("oneOf")).and_then(Value::as_array) {
            let not_null: Vec<&Value> = v.iter().filter(|x| x.get("type") != Some(&json!("null"))).collect();
            if not_null.len() == 1 {
                p = not_null[0];
                continue;
            }
        }
        break;
    }
    p
}

/// The JSON type a property takes (the first non-null one).
fn kind(p: &Value) -> &str {
    match p.get("type") {
        Some(Value::String(t)) => t,
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null").unwrap_or("null"),
        _ if p.get("enum").is_some() => "string",
        _ => "any",
    }
}

/// A plausible value of a property, so that one wrong argument is what gets refused.
fn filler(p: &Value, truthy: bool) -> Value {
    if let Some(e) = p.get("enum").and_then(Value::as_array).and_then(|e| e.first()) {
        return e.clone();
    }
    match kind(p) {
        "string" => json!("x"),
        "integer" => p.get("minimum").cloned().unwrap_or(json!(1)),
        "number" => json!(1.0),
        "boolean" => json!(truthy),
        "array" => json!([]),
        "object" => json!({}),
        _ => json!("x"),
    }
}

/// A value of a JSON type other than the property's.
fn wrong(p: &Value) -> Value {
    match kind(p) {
        "string" => json!({"not": "a string"}),
        "integer" | "number" => json!("twelve"),
        "boolean" => json!("perhaps"),
        "array" => json!(42),
        "object" => json!([1, 2, 3]),
        // An enum of described constants (`oneOf` of `const`s): an object is none of them.
        // (Never `null`: for an optional argument that means "not given".)
        _ => json!({ "not": ["one", "of", "them"] }),
    }
}

/// Whether an argument names something on disk (a path, a project, a draft, a root).
fn path_like(name: &str) -> bool {
    ["path", "root", "file", "draft", "dir", "project", "dest"].iter().any(|w| name.contains(w))
}

fn cases(tool: &Tool, ground: &Ground) -> Vec<Case> {
    let (schema, props, required) = common::input_schema(tool);
    let base = |truthy: bool| -> Map<String, Value> {
        required.iter().map(|r| (r.clone(), filler(resolve(&props[r.as_str()], &schema), truthy))).collect()
    };
    let with = |overrides: &[(&String, Value)], truthy: bool| -> Value {
        let mut m = base(truthy);
        for (k, v) in overrides {
            m.insert((*k).clone(), v.clone());
        }
        Value::Object(m)
    };
    let of_kind = |k: &str| -> Vec<&String> {
        props.iter().filter(|(_, p)| kind(resolve(p, &schema)) == k).map(|(n, _)| n).collect()
    };
    let mut out = Vec::new();
    if !required.is_empty() {
        out.push(Case { kind: "missing", args: json!({}), refuse: true });
    }
    for (name, p) in &props {
        out.push(Case { kind: "wrong-type", args: with(&[(name, wrong(resolve(p, &schema)))], false), refuse: true });
    }
    let strings = of_kind("string");
    let all = |v: Value| strings.iter().map(|n| (*n, v.clone())).collect::<Vec<_>>();
    if !strings.is_empty() {
        out.push(Case { kind: "empty", args: with(&all(json!("")), false), refuse: false });
        out.push(Case { kind: "huge-string", args: with(&all(json!("a".repeat(1 << 20))), false), refuse: false });
        let odd = "x\u{0}y\u{202e}gnp.exe\u{feff}\u{301}\u{1F600}\u{10FFFF}\u{FFFD}\u{200B}z";
        out.push(Case { kind: "odd-unicode", args: with(&all(json!(odd)), false), refuse: false });
    }
    let mut numbers = of_kind("integer");
    numbers.extend(of_kind("number"));
    if !numbers.is_empty() {
        for n in [json!(1e300), json!(u64::MAX), json!(i64::MIN), json!(-1)] {
            let overrides: Vec<_> = numbers.iter().map(|k| (*k, n.clone())).collect();
            out.push(Case { kind: "huge-number", args: with(&overrides, false), refuse: false });
        }
    }
    let extra = String::from("no_such_argument");
    out.push(Case { kind: "extra-arg", args: with(&[(&extra, json!(1))], false), refuse: false });
    let outside = ground.outside.path().display().to_string();
    for name in strings.iter().filter(|n| path_like(n)) {
        for (kind, value) in [
            ("dotdot", "../../../../../../etc/passwd".to_string()),
            ("dotdot", format!("asr-distill/../../{}", Path::new(&outside).file_name().unwrap().to_string_lossy())),
            ("absolute", "/etc/passwd".to_string()),
            ("absolute", format!("{outside}/draft.md")),
            ("absolute", format!("{outside}/project")),
            ("symlink", "away".to_string()),
            ("symlink", "away/draft.md".to_string()),
            ("symlink", "away/project".to_string()),
            ("symlink", "linked-draft.md".to_string()),
        ] {
            // With every flag true (confirm=true included), so a write is really attempted.
            out.push(Case { kind, args: with(&[(*name, json!(value))], true), refuse: true });
        }
    }
    out
}

/// Call one case; a protocol failure, `isError`, an oversize or invalid answer, or an
/// answer that should have been a refusal is a problem, returned in words.
async fn check(s: &Session, tool: &Tool, case: &Case) -> Option<String> {
    let args = case.args.as_object().cloned().unwrap_or_default();
    let shown = {
        let t = case.args.to_string();
        if t.len() > 200 {
            format!("{}… ({} chars)", &t[..t.char_indices().nth(200).map_or(t.len(), |(i, _)| i)], t.len())
        } else {
            t
        }
    };
    let what = format!("{} [{}] {shown}", tool.name, case.kind);
    let call = s.client.call_tool(CallToolRequestParams::new(tool.name.to_string()).with_arguments(args));
    let r = match tokio::time::timeout(HANG, call).await {
        Err(_) => return Some(format!("{what}: no answer (hung)")),
        Ok(Err(e)) => return Some(format!("{what}: protocol error or crash: {e}")),
        Ok(Ok(r)) => r,
    };
    let Some(answer) = r.structured_content.clone() else {
        return Some(format!("{what}: no structured content"));
    };
    if r.is_error == Some(true) {
        return Some(format!("{what}: isError: {answer}"));
    }
    let size = answer.to_string().chars().count();
    if size > BUDGET {
        return Some(format!("{what}: {size} characters"));
    }
    if let Some(schema) = &tool.output_schema {
        let schema = Value::Object((**schema).clone());
        let v = jsonschema::validator_for(&schema).unwrap();
        if let Some(e) = v.iter_errors(&answer).next() {
            return Some(format!("{what}: answer does not match the output schema: {e} at {}", e.instance_path));
        }
    }
    if case.refuse && answer["ok"] != json!(false) {
        return Some(format!("{what}: answered ok, expected a refusal: {}", answer["answer"]));
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_of_every_surface_refuses_bad_input_and_keeps_answering() {
    let ground = Ground::new();
    let before = ground.outside_files();
    let mut problems = Vec::new();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    let mut tools_seen = 0;
    for surface in attest_core::SURFACES {
        let s = ground.serve(surface.name).await;
        let tools = s.tools().await;
        assert!(tools.len() > 2, "{}: ATTEST_EXPAND=1 should list every tool", surface.name);
        let probe = format!("{}.tools", surface.namespace);
        for tool in &tools {
            tools_seen += 1;
            for case in cases(tool, &ground) {
                *counts.entry(case.kind).or_default() += 1;
                if let Some(p) = check(&s, tool, &case).await {
                    problems.push(p);
                }
            }
            // The server still answers.
            let r = tokio::time::timeout(
                HANG,
                s.client.call_tool(CallToolRequestParams::new(probe.clone()).with_arguments(Map::new())),
            )
            .await;
            match r {
                Ok(Ok(r)) if r.structured_content.as_ref().is_some_and(|a| a["ok"] == true) => {}
                other => {
                    panic!("{}: after {}'s bad calls the server no longer answers: {other:?}", surface.name, tool.name)
                }
            }
        }
        s.close().await;
    }
    assert_eq!(ground.outside_files(), before, "something outside the research root was written");
    eprintln!("{tools_seen} tools; cases: {counts:?}");
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}
