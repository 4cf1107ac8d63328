//! Ledger benchmarks: scanning a generated workspace of 10,000 result files; scanning
//! what frameworks write (200 Hugging Face Trainer output directories with 5
//! checkpoints each, 200 Lightning CSVLogger versions, 200 TensorBoard runs of 10,000
//! scalars each, made from the committed fixtures); and comparing a 50-arm family.

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

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// One TFRecord frame around `data`.
fn tfrecord(out: &mut Vec<u8>, data: &[u8]) {
    use attest_runs::discover::proto::masked_crc;
    let len = (data.len() as u64).to_le_bytes();
    out.extend_from_slice(&len);
    out.extend_from_slice(&masked_crc(&len).to_le_bytes());
    out.extend_from_slice(data);
    out.extend_from_slice(&masked_crc(data).to_le_bytes());
}

/// The framework layouts at scale, from the committed fixtures.
fn frameworks(root: &Path) {
    use attest_runs::discover::proto::{Event, Summary, SummaryValue};
    use prost::Message as _;
    let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/frameworks");
    let hf = fx.join("hf-trainer/tiny-bert/outputs/lr3e-3");
    let pl = fx.join("lightning/blobs/lightning_logs/version_0");
    for i in 0..200 {
        let run = root.join(format!("hf/outputs/lr{i}e-6"));
        copy_dir(&hf, &run);
        // The Trainer wrote checkpoint-32, -64, -96; two more make five.
        for k in 4..=5 {
            copy_dir(&hf.join("checkpoint-32"), &run.join(format!("checkpoint-{}", k * 32)));
        }
        copy_dir(&pl, &root.join(format!("pl/lightning_logs/version_{i}")));
        let mut events = Vec::new();
        for step in 0..5_000i64 {
            let value = |tag: &str, x: f32| SummaryValue { tag: tag.into(), simple_value: Some(x), tensor: None };
            let e = Event {
                step,
                summary: Some(Summary {
                    value: vec![
                        value("train/loss", 1.0 / (step + 1) as f32),
                        value("val/accuracy", 0.5 + i as f32 * 1e-3),
                    ],
                }),
            };
            tfrecord(&mut events, &e.encode_to_vec());
        }
        let tb = root.join(format!("tb/runs/lr{i}"));
        std::fs::create_dir_all(&tb).unwrap();
        std::fs::write(tb.join("events.out.tfevents.1796000000.bench"), events).unwrap();
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
    // The same scan with the ledger on PostgreSQL, when ATTEST_BENCH_POSTGRES names a
    // database (a fresh schema of it): side by side with the SQLite figure above.
    if let Ok(base) = std::env::var("ATTEST_BENCH_POSTGRES") {
        let pg = rt.block_on(async {
            let url = attest_store::scratch::fresh(&base).await.unwrap();
            Ledger::new(Store::open(std::path::Path::new(&url)).await.unwrap(), LedgerOptions::default())
        });
        g.bench_function("scan_10000_files_postgres", |b| {
            b.iter(|| {
                let r = rt.block_on(pg.scan(&root, None, |_| ControlFlow::Continue(()))).unwrap();
                assert_eq!(r.total_runs, 10_020);
                black_box(r)
            })
        });
    }
    let fw_root = dir.path().join("frameworks");
    frameworks(&fw_root);
    let fw_db = dir.path().join("frameworks.db");
    let fw = rt.block_on(async { Ledger::new(Store::open(&fw_db).await.unwrap(), LedgerOptions::default()) });
    // A rescan: the ledger already holds these runs (from the warm-up), so unchanged
    // curves are compared by digest, not rewritten.
    g.bench_function("scan_frameworks_600_runs", |b| {
        b.iter(|| {
            let r = rt.block_on(fw.scan(&fw_root, None, |_| ControlFlow::Continue(()))).unwrap();
            assert!(r.total_runs >= 600, "{}", r.message);
            black_box(r)
        })
    });
    // The first scan into an empty ledger: every run and curve (2,000,000 points) is written.
    let mut fresh = 0;
    g.bench_function("scan_frameworks_600_runs_first", |b| {
        b.iter_batched(
            || {
                fresh += 1;
                let path = dir.path().join(format!("first-{fresh}.db"));
                rt.block_on(async { Ledger::new(Store::open(&path).await.unwrap(), LedgerOptions::default()) })
            },
            |ledger| {
                let r = rt.block_on(ledger.scan(&fw_root, None, |_| ControlFlow::Continue(()))).unwrap();
                assert!(r.total_runs >= 600, "{}", r.message);
                black_box(r)
            },
            criterion::BatchSize::PerIteration,
        )
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
