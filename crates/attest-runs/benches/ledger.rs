//! Ledger benchmarks: scanning a generated workspace of 10,000 result files, and
//! comparing a 50-arm family.

use std::hint::black_box;
use std::ops::ControlFlow;
use std::path::Path;

use attest_runs::ledger::{Ledger, LedgerOptions};
use attest_store::Store;
use criterion::{Criterion, criterion_group, criterion_main};

/// 20 projects × 500 result files (10 families of 50 arms each), plus a few configs.
fn workspace(root: &Path) {
    for p in 0..20 {
        let res = root.join(format!("proj{p:02}/results"));
        std::fs::create_dir_all(&res).unwrap();
        for f in 0..10 {
            for a in 0..50 {
                let wer = 0.05 + (p * 500 + f * 50 + a) as f64 * 1e-6;
                let body = format!(
                    r#"{{"wer": {wer}, "cer": {}, "val_loss": {}, "n_records": 2620, "corpus": "ls-test", "seed": {a}, "test": {{"clean": {{"wer": {wer}}}}}}}"#,
                    wer / 2.0,
                    1.0 + wer
                );
                std::fs::write(res.join(format!("fam{f}_arm{a}.json")), body).unwrap();
            }
        }
        let cfg = root.join(format!("proj{p:02}/configs"));
        std::fs::create_dir_all(&cfg).unwrap();
        std::fs::write(cfg.join("planned_next.yaml"), "# next\nlr: 0.1\n").unwrap();
    }
}

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    workspace(&root);
    let db = dir.path().join("bench.db");
    let ledger = rt.block_on(async { Ledger::new(Store::open(&db).await.unwrap(), LedgerOptions::default()) });

    let mut g = c.benchmark_group("ledger");
    g.sample_size(10);
    g.bench_function("scan_10000_files", |b| {
        b.iter(|| {
            let r = rt.block_on(ledger.scan(&root, None, |_| ControlFlow::Continue(()))).unwrap();
            assert_eq!(r.total_runs, 10_020);
            black_box(r)
        })
    });
    g.sample_size(50);
    g.bench_function("compare_50_arms", |b| {
        b.iter(|| {
            let c = rt.block_on(ledger.compare("fam3", Some("wer"), Some("proj07"))).unwrap();
            assert_eq!(c.arms.len(), 50);
            black_box(c)
        })
    });
    g.finish();
}

criterion_group!(ledger_benches, benches);
criterion_main!(ledger_benches);
