//! Keyphrase extraction per item (what ingest adds to every new item), against
//! vocabularies of growing size: the cost must not grow with the vocabulary.
//!
//! `cargo bench -p attest-tags --bench keyphrase`

use std::collections::BTreeSet;

use attest_tags::{Vocabulary, batch_concepts, item_keyphrases};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

const TITLE: &str = "Asymmetric hydrogenation of enamides with a chiral rhodium catalyst";
const ABSTRACT: &str = "We report an enantioselective hydrogenation of enamides using a chiral rhodium ligand \
complex. The catalyst achieves high turnover and selectivity across a broad substrate scope, and mechanistic \
studies reveal the role of the ligand bite angle in the rate-determining step.";

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("keyphrases per item");
    let own = vec!["chemistry".to_string()];
    for n in [0usize, 1_000, 10_000] {
        let names: BTreeSet<String> = (0..n).map(|i| format!("topic-word-{i}")).collect();
        let vocab = Vocabulary::new(names);
        g.bench_with_input(BenchmarkId::new("vocabulary", n), &vocab, |b, v| {
            b.iter(|| item_keyphrases(TITLE, ABSTRACT, &own, v, 4))
        });
    }
    g.finish();
}

/// A batch of 5,000 items the size of the ingest benchmark's (a 9-word title, a
/// 50-word abstract), half of their words from real abstracts, half filler: the
/// extraction and selection ingest runs per feed, on one core.
fn bench_batch(c: &mut Criterion) {
    let words: Vec<&str> = ABSTRACT.split_whitespace().chain(TITLE.split_whitespace()).collect();
    let mut x: u64 = 7;
    let mut next = || {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (x >> 33) as usize
    };
    let mut text = |n: usize| -> String {
        (0..n)
            .map(|_| {
                if next() % 2 == 0 { words[next() % words.len()].to_string() } else { format!("w{}x", next() % 20_000) }
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let items: Vec<(String, String)> = (0..5_000).map(|_| (text(9), format!("{}. {}", text(30), text(20)))).collect();
    let own: Vec<String> = vec!["cat1".into()];
    let batch: Vec<(&str, &str, &[String])> =
        items.iter().map(|(t, a)| (t.as_str(), a.as_str(), own.as_slice())).collect();
    let mut g = c.benchmark_group("concepts");
    g.sample_size(10).throughput(criterion::Throughput::Elements(batch.len() as u64));
    g.bench_function("batch_5000_one_core", |b| b.iter(|| batch_concepts(&batch, &Vocabulary::default(), 6)));
    g.finish();
}

criterion_group!(benches, bench, bench_batch);
criterion_main!(benches);
