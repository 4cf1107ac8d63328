//! Benchmarks: the runs router per question (target p50 ≤ 20 µs) and a claims check of
//! a generated 500-claim draft against a generated ledger (target ≤ 50 ms).
//!
//! `cargo bench -p attest-runs --bench claims`. Besides criterion's figures, the router
//! part prints the median and 95th percentile over the questions of
//! `tests/routing_cases.toml`, each timed on its own.

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use attest_runs::discover::Metric;
use attest_runs::ledger::curve;
use attest_runs::{claims, coverage, router};
use attest_store::Store;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn questions() -> Vec<String> {
    #[derive(serde::Deserialize)]
    struct Cases {
        case: Vec<Case>,
    }
    #[derive(serde::Deserialize)]
    struct Case {
        question: String,
    }
    let cases: Cases = toml::from_str(include_str!("../tests/routing_cases.toml")).expect("case file parses");
    cases.case.into_iter().map(|c| c.question).collect()
}

fn bench_route(c: &mut Criterion) {
    let qs = questions();
    // Per-question medians, then their distribution across questions.
    let mut per: Vec<Duration> = qs
        .iter()
        .map(|q| {
            let mut t: Vec<Duration> = (0..501)
                .map(|_| {
                    let s = Instant::now();
                    black_box(router::route(black_box(q)));
                    s.elapsed()
                })
                .collect();
            t.sort();
            t[t.len() / 2]
        })
        .collect();
    per.sort();
    println!(
        "route(): {} questions, per-question median: p50 {:.2?}, p95 {:.2?}, max {:.2?}",
        per.len(),
        per[per.len() / 2],
        per[per.len() * 95 / 100],
        per[per.len() - 1]
    );
    let mut g = c.benchmark_group("route");
    g.throughput(Throughput::Elements(qs.len() as u64));
    g.bench_function("all_cases", |b| {
        b.iter(|| {
            for q in &qs {
                black_box(router::route(black_box(q)));
            }
        })
    });
    g.bench_function("are the numbers in my draft right?", |b| {
        b.iter(|| router::route(black_box("are the numbers in my draft right?")))
    });
    g.finish();
}

/// A research root with `runs` evidence files, a ledger recording them (five projects,
/// each run with a `wer`, an `n_records` and three `val_loss` steps), and a draft of
/// 500 claims: mostly supported, some contradicted, unsupported and ambiguous.
async fn generated(dir: &Path, runs: usize) -> Store {
    let store = Store::open(&dir.join("ledger.db")).await.expect("ledger opens");
    let mut draft = String::from("# A long draft\n\n");
    let mut tx = store.pool().begin().await.expect("transaction");
    for i in 0..runs {
        let project = format!("proj{}", i % 5);
        let name = format!("sweep{}_arm_{i}", i % 17);
        let file = dir.join(&project).join(format!("{name}.json"));
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        let wer = 0.05 + (i as f64) / 10_000.0;
        std::fs::write(&file, format!("{{\"wer\": {wer}, \"n_records\": 2400}}")).unwrap();
        let source = file.display().to_string();
        let hash = attest_runs::hash::evidence(&source).await;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO runs (project, name, family, status, source_path, source_hash, scanned_at) VALUES ($1, $2, $3, 'recorded', $4, $5, 'now') RETURNING id",
        )
        .bind(&project)
        .bind(&name)
        .bind(format!("sweep{}", i % 17))
        .bind(&source)
        .bind(hash)
        .fetch_one(&mut *tx)
        .await
        .expect("run inserted");
        let rows = [
            ("wer", wer, None),
            ("n_records", 2400.0, None),
            ("val_loss", 1.9, Some(100)),
            ("val_loss", 1.5, Some(200)),
            ("val_loss", 1.2, Some(300)),
        ];
        let rows: Vec<Metric> =
            rows.into_iter().map(|(m, v, step)| Metric { metric: m.into(), value: v, step, split: None }).collect();
        curve::insert(&mut tx, &[(id, rows.as_slice())]).await.expect("metrics inserted");
        let claim = match i % 10 {
            0 => format!("{project}/{name} metric=wer value={}", wer + 0.01),
            1 => format!("{project}/{name}_missing metric=wer value={wer}"),
            2 => format!("{project}/{name} metric=val_loss value=1.5"),
            3 => format!("{project}/sweep{}_* metric=wer value={wer}", i % 17),
            4 => format!("{project}/{name} metric=val_loss value=1.5 step=200"),
            _ => format!("{project}/{name} metric=wer value={wer}"),
        };
        draft.push_str(&format!("Arm {i} reaches {wer:.4} on the held-out set.\n<!-- claim: {claim} -->\n\n"));
    }
    tx.commit().await.expect("committed");
    std::fs::create_dir_all(dir.join("paper")).unwrap();
    std::fs::write(dir.join("paper/draft.md"), draft).unwrap();
    store
}

fn bench_claims(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().canonicalize().unwrap();
    let store = rt.block_on(generated(&root, 500));
    let draft = Path::new("paper/draft.md");
    let report = rt.block_on(claims::check(store.pool(), &root, Some(draft), None)).expect("check runs");
    assert_eq!(report.claims, 500);
    println!("claims check of the generated draft: {}", report.summary());

    let mut g = c.benchmark_group("claims");
    g.sample_size(20);
    g.bench_function("check_500_claims", |b| {
        b.iter(|| rt.block_on(claims::check(store.pool(), &root, Some(draft), None)).expect("check runs"))
    });
    g.bench_function("coverage_500_claims", |b| {
        b.iter(|| coverage::coverage(&root, Some(draft)).expect("coverage runs"))
    });
    g.finish();
}

criterion_group!(benches, bench_route, bench_claims);
criterion_main!(benches);
