//! Graph build, path, betweenness and communities on a generated 50,000-item archive
//! with 5,000 concepts (100 topics of 50 concepts; each item carries 3–5 tags from one
//! topic, half of them skewed towards the topic's first concepts, and now and then one from another
//! topic). Targets: build ≤ 500 ms, path ≤ 5 ms, central and communities ≤ 1 s.

use attest_kg::graph::{Metric, build};
use attest_kg::{Graph, Params};
use criterion::{Criterion, criterion_group, criterion_main};

/// A small deterministic generator (SplitMix64), so the archive is the same every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// 50,000 items over 5,000 concepts.
pub fn archive() -> Vec<(i64, String)> {
    let mut rng = Rng(42);
    let mut out = Vec::new();
    for item in 0..50_000i64 {
        let topic = rng.below(100);
        let n = 3 + rng.below(3);
        for _ in 0..n {
            // Skew: the square of a uniform draw favours the topic's first concepts.
            let r = rng.below(50);
            let c = if rng.below(2) == 0 { r } else { (r * r) / 50 };
            out.push((item, format!("t{topic:03}-concept-{c:02}")));
        }
        if rng.below(10) == 0 {
            out.push((item, format!("t{:03}-concept-{:02}", rng.below(100), rng.below(50))));
        }
    }
    out
}

fn pick_far_pair(g: &Graph) -> (String, String) {
    let names: Vec<&str> = g.concept_names().collect();
    (names[0].to_string(), names[names.len() - 1].to_string())
}

fn benches(c: &mut Criterion) {
    let a = archive();
    let g = build(&a, Params::default());
    eprintln!("archive: {} assignments, {} concepts, {} edges", a.len(), g.node_count(), g.edge_count());
    let (s, t) = pick_far_pair(&g);
    let mut group = c.benchmark_group("kg");
    group.sample_size(10);
    group.bench_function("build_50k_items", |b| b.iter(|| build(&a, Params::default())));
    group.bench_function("path", |b| b.iter(|| g.path(&s, &t).unwrap()));
    group.bench_function("path_fuzzy_names", |b| b.iter(|| g.path("T000 Concept 00", "t099_concept_01").unwrap()));
    group.bench_function("central_degree", |b| b.iter(|| g.central(Metric::Degree, 10)));
    group.bench_function("central_betweenness", |b| b.iter(|| g.central(Metric::Betweenness, 10)));
    group.bench_function("communities", |b| b.iter(|| g.communities(3)));
    // feed.digest's grouping: the graph of a window of 2,000 unread items (their tags,
    // one shared item joins two concepts), then each item to its community.
    let window: Vec<(i64, String)> = a.iter().filter(|(i, _)| *i < 2_000).cloned().collect();
    let mut items: Vec<(i64, Vec<String>)> = Vec::new();
    for (i, t) in &window {
        match items.last_mut() {
            Some((j, tags)) if j == i => tags.push(t.clone()),
            _ => items.push((*i, vec![t.clone()])),
        }
    }
    group.bench_function("digest_topics_2000_items", |b| {
        b.iter(|| {
            let g = build(&window, Params { min_tag_uses: 2, min_edge_weight: 1, max_evidence: 1 });
            g.group_items(&items, 2)
        })
    });
    group.finish();
}

criterion_group!(kg, benches);
criterion_main!(kg);
