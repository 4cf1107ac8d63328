//! The operation table `operations.toml`: limits, series, sums, matrices, linear systems
//! and integration by parts, each through the worker protocol (`worker::handle`, what
//! the sandboxed worker runs), with the checked field of each typed result asserted and
//! every answer line snapshotted.

use attest_sym::worker::handle;
use serde::Deserialize;
use serde_json::{Map, Value, json};

#[derive(Deserialize)]
struct Table {
    case: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    op: String,
    args: Map<String, Value>,
    field: String,
    expect: String,
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[test]
fn every_operation_gets_its_answer() {
    let table: Table = toml::from_str(include_str!("operations.toml")).unwrap();
    assert!(table.case.len() >= 60, "only {} cases", table.case.len());
    let mut wrong = Vec::new();
    let mut lines = Vec::new();
    for c in &table.case {
        let mut req = c.args.clone();
        req.insert("op".into(), json!(c.op));
        let out = handle(Value::Object(req));
        let got = out.get("ok").and_then(|ok| ok.get(&c.field)).map(text);
        if got.as_deref() != Some(c.expect.as_str()) {
            wrong.push(format!(
                "{} {:?}: {} = {got:?}, expected {} ({})",
                c.op, c.args, c.field, c.expect, out["answer"]
            ));
        }
        lines.push(format!("{} {}: {}", c.op, Value::Object(c.args.clone()), text(&out["answer"])));
    }
    assert!(wrong.is_empty(), "{} case(s) wrong:\n{}", wrong.len(), wrong.join("\n"));
    insta::assert_yaml_snapshot!("operation_answers", lines);
}
