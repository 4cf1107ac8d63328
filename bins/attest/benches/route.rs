//! What one `<ns>.ask` routing decision costs: every case of each surface's case table,
//! decided by its `Router` through the one pipeline (facts, rules, elsewhere).
//! `cargo bench -p attest --bench route`.

use std::hint::black_box;

use attest_core::ask::Route;
use criterion::{Criterion, criterion_group, criterion_main};

fn routing(c: &mut Criterion) {
    let tables: [(&str, &str, &dyn Route); 4] = [
        ("runs", include_str!("../../../crates/attest-runs/tests/routing_cases.toml"), &attest_runs::router::ROUTER),
        ("feed", include_str!("../../../crates/attest-feed/tests/routing_cases.toml"), &attest_feed::router::ROUTER),
        ("kg", include_str!("../../../crates/attest-kg/tests/routing_cases.toml"), &attest_kg::router::ROUTER),
        ("sym", include_str!("../../../crates/attest-sym/tests/routing_cases.toml"), &attest_sym::router::ROUTER),
    ];
    for (surface, table, router) in tables {
        let cases = attest_testkit::routing::cases(table);
        c.bench_function(&format!("route/{surface} ({} cases)", cases.len()), |b| {
            b.iter(|| {
                for case in &cases {
                    black_box(router.route(black_box(&case.q), &case.given));
                }
            })
        });
    }
}

criterion_group!(benches, routing);
criterion_main!(benches);
