//! Round-trip cost of one trivial request: through a persistent worker (on a
//! current-thread and on a multi-thread runtime, as the servers run, entered per call or
//! calling from inside) and with a fresh
//! worker per call (`max_requests_per_worker = 1`).

use std::path::PathBuf;
use std::time::Instant;

use attest_sandbox::{Limits, Pool, Spec};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

fn spec(max_requests_per_worker: u32) -> Spec {
    Spec {
        limits: Limits { max_requests_per_worker, ..Limits::default() },
        ..Spec::new(PathBuf::from(env!("CARGO_BIN_EXE_attest-sandbox-testworker")))
    }
}

fn roundtrip(c: &mut Criterion) {
    let request = json!({ "op": "echo", "value": "(a+b)^2 = a^2 + 2*a*b + b^2" });
    let mut group = c.benchmark_group("sandbox");

    let current = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let pool = Pool::new(spec(u32::MAX));
    current.block_on(pool.call(&request)).unwrap();
    group.bench_function("persistent/current_thread", |b| b.iter(|| current.block_on(pool.call(&request)).unwrap()));

    let multi = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let pool = Pool::new(spec(u32::MAX));
    multi.block_on(pool.call(&request)).unwrap();
    group.bench_function("persistent/multi_thread", |b| {
        b.iter(|| multi.block_on(async { pool.call(&request).await.unwrap() }))
    });

    // Calls made from inside the runtime, as a server's handlers make them.
    group.bench_function("persistent/multi_thread_in_runtime", |b| {
        b.iter_custom(|iters| {
            multi.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    pool.call(&request).await.unwrap();
                }
                start.elapsed()
            })
        })
    });

    let pool = Pool::new(spec(1));
    group.bench_function("spawn_per_call/multi_thread", |b| {
        b.iter(|| multi.block_on(async { pool.call(&request).await.unwrap() }))
    });
    group.finish();
}

criterion_group!(benches, roundtrip);
criterion_main!(benches);
