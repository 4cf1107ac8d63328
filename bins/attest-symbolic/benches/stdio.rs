//! Per-call latency of the symbolic surface as an agent sees it: `tools/call` over stdio
//! to the real `attest-symbolic` binary, which computes in its sandboxed worker. Beside
//! it, the same tool called in-process (`Inline`), so the difference is the cost of MCP,
//! stdio and the worker round trip.
//!
//! `cargo bench -p attest-symbolic --bench stdio`

use std::sync::Arc;

use attest_sym::tools::{Inline, catalogue};
use attest_testkit::Session;
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};

const CASES: &[(&str, &str, &str)] = &[
    ("binomial", "(a+b)^2", "a^2 + 2ab + b^2"),
    ("pythagoras", "sin(x)^2 + cos(x)^2", "1"),
    ("cancel", "(x^2-1)/(x-1)", "x + 1"),
    ("refuted", "sqrt(x^2)", "x"),
    ("double_angle", "sin(2t)", "2 sin(t) cos(t)"),
];

fn args(lhs: &str, rhs: &str) -> serde_json::Map<String, Value> {
    json!({ "lhs": lhs, "rhs": rhs }).as_object().unwrap().clone()
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let session = rt.block_on(Session::spawn(Session::command(
        env!("CARGO_BIN_EXE_attest-symbolic"),
        &[("ATTEST_DB", "/nonexistent/attest.db"), ("ATTEST_EXPAND", "1")],
    )));
    let mut stdio = c.benchmark_group("stdio tools/call sym.verify");
    for (name, lhs, rhs) in CASES {
        stdio.bench_function(*name, |b| {
            b.iter(|| {
                let (out, _, _) = rt.block_on(session.call("sym.verify", Value::Object(args(lhs, rhs))));
                assert_eq!(out["ok"], true);
            })
        });
    }
    stdio.finish();
    let inline = catalogue(Arc::new(Inline));
    let mut local = c.benchmark_group("in-process catalogue sym.verify");
    for (name, lhs, rhs) in CASES {
        local.bench_function(*name, |b| {
            b.iter(|| {
                let a = rt.block_on(inline.call("sym.verify", args(lhs, rhs))).unwrap();
                assert!(a.ok);
            })
        });
    }
    local.finish();
    rt.block_on(session.close());
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(50).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
