//! Ranking cost on a generated archive of 100,000 items (abstract-length summaries,
//! tags, 50 sources) for a reader with an interests text and 60 ratings of both kinds,
//! so every term runs: BM25, the click classifier and the preference term.
//!
//! - `rank/feed_list_100k`: fit the reader's model and rank all 100,000 candidates,
//!   keeping the best 4 (what `feed.list` does per call, given the cached index).
//! - `rank/feed_list_window_14d`: the same over a 14-day window (about 5,000 items).
//! - `rank/index_build_100k`: building the index once (cached between calls).

use std::collections::HashSet;
use std::hint::black_box;

use attest_feed::model::{Click, ClickSource};
use attest_feed::rank::{Corpus, Embeddings, RankItem, RankOptions, ReaderModel};
use criterion::{Criterion, criterion_group, criterion_main};

const N: usize = 100_000;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Roughly Zipf-distributed index below `n`.
    fn zipf(&mut self, n: usize) -> usize {
        let u = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        ((n as f64).powf(u) as usize).saturating_sub(1).min(n - 1)
    }
}

fn vocabulary() -> Vec<String> {
    const SYL: &[&str] = &[
        "pro", "tein", "gra", "phen", "neu", "ral", "mo", "lec", "ule", "dif", "fu", "sion", "cat", "aly", "sis",
        "spec", "tro", "quan", "tum", "ge", "nom", "ic", "cell", "ular", "ther", "mal", "op", "ti", "cal", "lat",
    ];
    let mut r = Rng(7);
    (0..8_000)
        .map(|_| {
            let k = 2 + (r.next() % 3) as usize;
            (0..k).map(|_| SYL[(r.next() % SYL.len() as u64) as usize]).collect::<String>()
        })
        .collect()
}

fn archive() -> Vec<RankItem> {
    let vocab = vocabulary();
    let mut r = Rng(42);
    let words =
        |r: &mut Rng, n: usize| (0..n).map(|_| vocab[r.zipf(vocab.len())].as_str()).collect::<Vec<_>>().join(" ");
    (0..N)
        .map(|i| {
            let day = i * 365 / N;
            RankItem {
                id: i as i64 + 1,
                title: words(&mut r, 9),
                summary: words(&mut r, 140),
                source: format!("feed {}", i % 50),
                source_id: Some((i % 50) as i64),
                tags: (0..3).map(|_| format!("tag-{}", r.zipf(200))).collect(),
                content_type: Some(["paper", "blog", "release"][i % 3].into()),
                published: Some(format!("2026-{:02}-{:02}T00:00:00Z", 1 + day / 31 % 12, 1 + day % 28)),
                vector: None,
            }
        })
        .collect()
}

fn reader(corpus: &Corpus) -> (String, Vec<Click>) {
    let vocab = vocabulary();
    let interests = (0..12).map(|k| vocab[k * 37 % 400].clone()).collect::<Vec<_>>().join(", ");
    let clicks = (0..60)
        .map(|k| Click {
            reader_id: 1,
            item_id: corpus.item(k * 1_601 % N).id,
            useful: k % 3 != 0,
            source: ClickSource::Ui,
            at: String::new(),
        })
        .collect();
    (interests, clicks)
}

fn bench(c: &mut Criterion) {
    let items = archive();
    let corpus = Corpus::build(items.clone());
    let (interests, clicks) = reader(&corpus);
    let list = RankOptions { exclude_clicked: true, only: None, limit: Some(4) };
    let window: HashSet<i64> = (N - N * 14 / 365..N).map(|i| i as i64 + 1).collect();
    let windowed = RankOptions { exclude_clicked: true, only: Some(window), limit: Some(4) };

    let mut g = c.benchmark_group("rank");
    g.sample_size(30);
    g.bench_function("feed_list_100k", |b| {
        b.iter(|| {
            let m = ReaderModel::fit(&corpus, &interests, &clicks);
            black_box(m.rank(&corpus, &list, &Embeddings::Off))
        })
    });
    g.bench_function("feed_list_window_14d", |b| {
        b.iter(|| {
            let m = ReaderModel::fit(&corpus, &interests, &clicks);
            black_box(m.rank(&corpus, &windowed, &Embeddings::Off))
        })
    });
    g.sample_size(10);
    g.bench_function("index_build_100k", |b| b.iter(|| black_box(Corpus::build(items.clone()))));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
