//! Print the operation table (`tests/operations.toml`: limits, series, sums, matrices,
//! linear systems, integration by parts) as JSON lines for `scripts/sympy_compare.py
//! --ops`: each case's request, attest-sym's checked field and answer line, and its
//! median time per call through `worker::handle` (the worker's own code path).
//!
//! `cargo run --release -p attest-sym --example sympy_ops`

use std::time::Instant;

use serde_json::{Map, Value, json};

#[derive(serde::Deserialize)]
struct Table {
    case: Vec<Case>,
}

#[derive(serde::Deserialize)]
struct Case {
    op: String,
    args: Map<String, Value>,
    field: String,
    expect: String,
}

fn main() {
    let table: Table = toml::from_str(include_str!("../tests/operations.toml")).expect("operation table");
    for c in table.case {
        let mut req = c.args.clone();
        req.insert("op".into(), json!(c.op));
        let req = Value::Object(req);
        let out = attest_sym::worker::handle(req.clone());
        let mut times = Vec::new();
        for _ in 0..51 {
            let t = Instant::now();
            std::hint::black_box(attest_sym::worker::handle(req.clone()));
            times.push(t.elapsed().as_secs_f64());
        }
        times.sort_by(f64::total_cmp);
        let got = out.get("ok").and_then(|ok| ok.get(&c.field)).cloned().unwrap_or(Value::Null);
        let line = json!({
            "op": c.op, "args": c.args, "field": c.field, "expect": c.expect, "got": got,
            "answer": out["answer"], "rust_seconds": times[times.len() / 2],
        });
        println!("{line}");
    }
}
