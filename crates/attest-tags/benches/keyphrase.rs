//! Keyphrase extraction per item (what ingest adds to every new item), against
//! vocabularies of growing size: the cost must not grow with the vocabulary.
//!
//! `cargo bench -p attest-tags --bench keyphrase`

use std::collections::BTreeSet;

use attest_tags::{Vocabulary, item_keyphrases};
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

criterion_group!(benches, bench);
criterion_main!(benches);
