//! `feed.list` and `feed.search` end to end through the catalogue (argument parsing,
//! reader lookup, the cache fingerprint query, ranking, item rows, the quality note,
//! serialisation) on a generated 100,000-item archive.
//!
//! Targets: p50 ≤ 20 ms each. Criterion's reported median is the p50.
//! `ATTEST_BENCH_KEEP=PATH` keeps the generated database there (for measuring the
//! memory of `attest-feed` serving it).

use std::sync::Arc;
use std::time::Duration;

use attest_core::Catalogue;
use attest_feed::FeedStore;
use attest_feed::model::{ClickSource, NewItem, stamp};
use attest_feed::rank::{Corpus, Embeddings, RankItem, RankOptions, ReaderModel};
use attest_feed::search::{self, SearchQuery};
use attest_feed::tools::{Context, SEARCH_POOL, tools};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};

const TOPICS: [[&str; 5]; 12] = [
    ["catalyst", "asymmetric", "hydrogenation", "enantioselective", "ligand"],
    ["coupling", "palladium", "nickel", "aryl", "boronate"],
    ["photoredox", "radical", "oxidation", "electrochemical", "decarboxylative"],
    ["alkaloid", "cyclisation", "synthesis", "terpene", "macrocycle"],
    ["training", "pipeline", "parallel", "gradient", "checkpoint"],
    ["inference", "serving", "latency", "cache", "batching"],
    ["kernel", "compiler", "attention", "fusion", "accelerator"],
    ["quantisation", "sparsity", "distillation", "pruning", "precision"],
    ["galaxy", "telescope", "exoplanet", "spectra", "supernova"],
    ["reef", "climate", "drought", "ecosystem", "warming"],
    ["vaccine", "outbreak", "antibody", "trial", "infection"],
    ["genome", "sequencing", "mutation", "protein", "expression"],
];
const TAGS: [&str; 12] = [
    "catalysis",
    "cross-coupling",
    "photochemistry",
    "total-synthesis",
    "distributed-training",
    "inference",
    "compilers",
    "efficiency",
    "astronomy",
    "climate",
    "epidemiology",
    "genomics",
];

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn filler(&mut self) -> String {
        let u = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        format!("w{}x", (20_000f64.powf(u)) as u64)
    }
    fn text(&mut self, t: usize, n: usize, topical: usize) -> String {
        let mut w: Vec<String> = (0..n).map(|_| self.filler()).collect();
        for _ in 0..topical {
            let pos = (self.next() as usize) % n;
            w[pos] = TOPICS[t][(self.next() % 5) as usize].to_string();
        }
        w.join(" ")
    }
}

/// 100,000 items over the last 365 days from 50 feeds (about 3,800 in a 14-day
/// window), 140-word summaries; a reader with 12 interest words and 60 ratings.
async fn archive(path: &std::path::Path) -> FeedStore {
    const N: usize = 100_000;
    let s = FeedStore::new(attest_store::Store::open(path).await.unwrap());
    let mut feeds = Vec::new();
    for f in 0..50 {
        feeds.push(
            s.subscribe(&format!("https://bench.example/{f}.xml"), Some(&format!("Source {f}"))).await.unwrap().feed.id,
        );
    }
    let now = time::OffsetDateTime::now_utc();
    let mut g = Lcg(42);
    for batch in 0..N / 5_000 {
        let mut by_feed: Vec<Vec<NewItem>> = vec![Vec::new(); feeds.len()];
        for i in 0..5_000 {
            let n = batch * 5_000 + i;
            let topic = (g.next() % 12) as usize;
            let age = time::Duration::minutes((n as i64 * 525_600) / N as i64);
            let item = NewItem::build(
                format!("g{n}"),
                g.text(topic, 9, 1),
                Some(format!("https://bench.example/item/{n}")),
                g.text(topic, 140, 4),
                Some(stamp(now - age)),
                [TAGS[topic].to_string(), format!("cat{}", n % 7), TAGS[(topic + 1) % 12].to_string()],
            );
            by_feed[n % feeds.len()].push(item);
        }
        for (f, items) in feeds.iter().zip(by_feed) {
            s.add_items(Some(*f), &items, &stamp(now)).await.unwrap();
        }
    }
    let r = s
        .create_reader("bench", "asymmetric hydrogenation catalyst ligand palladium nickel coupling photoredox radical kernel compiler attention")
        .await
        .unwrap();
    // 60 ratings in the window: chemistry useful, the rest not.
    let recent = s.items_for_ranking(r.id, Some(&stamp(now - time::Duration::days(14)))).await.unwrap();
    for it in recent.iter().take(60) {
        let useful = it.tags.iter().any(|t| ["catalysis", "cross-coupling", "photochemistry"].contains(&t.as_str()));
        s.record_click(r.id, it.id, useful, ClickSource::Agent).await.unwrap();
    }
    s
}

fn call(rt: &tokio::runtime::Runtime, c: &Catalogue, tool: &str, args: Value) -> usize {
    let a = rt.block_on(c.call(tool, args.as_object().unwrap().clone())).unwrap();
    assert!(a.ok, "{tool}: {}", a.answer);
    serde_json::to_string(&a).unwrap().len()
}

fn bench_tools(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path =
        std::env::var_os("ATTEST_BENCH_KEEP").map(std::path::PathBuf::from).unwrap_or(dir.path().join("archive.db"));
    let _ = std::fs::remove_file(&path);
    let t = std::time::Instant::now();
    let store = rt.block_on(archive(&path));
    eprintln!("generated 100,000 items in {:.1} s", t.elapsed().as_secs_f64());
    let ctx = Arc::new(Context::new(store));
    let cat = tools(Arc::clone(&ctx));

    let t = std::time::Instant::now();
    call(&rt, &cat, "feed.list", json!({"user": "bench"}));
    eprintln!(
        "first feed.list (builds the window index and the held-out evaluation): {:.0} ms",
        t.elapsed().as_secs_f64() * 1e3
    );

    let mut group = c.benchmark_group("tools_100k");
    group.sample_size(30).measurement_time(Duration::from_secs(10));
    group.bench_function("feed.list_cached", |b| b.iter(|| call(&rt, &cat, "feed.list", json!({"user": "bench"}))));
    group.bench_function("feed.list_limit16_cached", |b| {
        b.iter(|| call(&rt, &cat, "feed.list", json!({"user": "bench", "limit": 16})))
    });
    for q in ["asymmetric hydrogenation catalyst", "kernel compiler for attention", "training"] {
        group.bench_function(format!("feed.search/{q}"), |b| {
            b.iter(|| call(&rt, &cat, "feed.search", json!({"user": "bench", "query": q})))
        });
    }
    group.sample_size(10).measurement_time(Duration::from_secs(15));
    // The first feed.list after a rating: each iteration flips the verdict of one rated
    // item of the window through feed.rate (so the held-out evaluation re-runs too).
    let reader_id = rt.block_on(ctx.store.reader("bench")).unwrap().unwrap().id;
    let flip = rt.block_on(ctx.store.clicks(reader_id)).unwrap()[0].item_id;
    let mut useful = false;
    group.bench_function("feed.rate_then_list", |b| {
        b.iter(|| {
            useful = !useful;
            call(&rt, &cat, "feed.rate", json!({"user": "bench", "item_id": flip, "useful": useful}));
            call(&rt, &cat, "feed.list", json!({"user": "bench"}))
        })
    });
    group.bench_function("feed.list_uncached", |b| {
        b.iter(|| {
            ctx.invalidate();
            call(&rt, &cat, "feed.list", json!({"user": "bench"}))
        })
    });
    group.finish();

    // Where a feed.search call spends its time, stage by stage (the library calls the
    // tool makes, on the "training" query: about 5% of the archive matches).
    let store = &ctx.store;
    let reader = rt.block_on(store.reader("bench")).unwrap().unwrap();
    let q = SearchQuery::text("training", SEARCH_POOL);
    let hits = rt.block_on(search::search(store, &q)).unwrap();
    let ids: Vec<i64> = hits.iter().map(|h| h.item_id).collect();
    let items = rt.block_on(store.items(&ids)).unwrap();
    let rated = rt.block_on(store.clicked_items(reader.id)).unwrap();
    let clicks: Vec<_> = rated.iter().map(|(_, c)| c.clone()).collect();
    let corpus_items: Vec<RankItem> = items.iter().chain(rated.iter().map(|(i, _)| i)).map(RankItem::from).collect();
    let corpus = Corpus::build(corpus_items.clone());
    let model = ReaderModel::fit(&corpus, &reader.interests, &clicks);
    let only = RankOptions { exclude_clicked: false, only: Some(ids.iter().copied().collect()), limit: None };
    let mut group = c.benchmark_group("search_stages_100k");
    group.sample_size(30).measurement_time(Duration::from_secs(5));
    group.bench_function("fts_query", |b| b.iter(|| rt.block_on(search::search(store, &q)).unwrap().len()));
    group.bench_function("hit_rows", |b| b.iter(|| rt.block_on(store.items(&ids)).unwrap().len()));
    group.bench_function("rated_rows", |b| b.iter(|| rt.block_on(store.clicked_items(reader.id)).unwrap().len()));
    group.bench_function("index_hits_and_rated", |b| b.iter(|| Corpus::build(corpus_items.clone()).len()));
    group.bench_function("fit", |b| b.iter(|| ReaderModel::fit(&corpus, &reader.interests, &clicks).evidence));
    group.bench_function("rank_hits", |b| b.iter(|| model.rank(&corpus, &only, &Embeddings::Off).items.len()));
    group.finish();

    // What the first feed.list after an ingest or a rating pays, stage by stage.
    let since = stamp(time::OffsetDateTime::now_utc() - time::Duration::days(14));
    let window = rt.block_on(store.items_for_ranking(reader.id, Some(&since))).unwrap();
    let window_items: Vec<RankItem> = window.iter().chain(rated.iter().map(|(i, _)| i)).map(RankItem::from).collect();
    let wcorpus = Corpus::build(window_items.clone());
    let mut group = c.benchmark_group("list_stages_100k");
    group.sample_size(10).measurement_time(Duration::from_secs(10));
    group.bench_function("window_rows", |b| {
        b.iter(|| rt.block_on(store.items_for_ranking(reader.id, Some(&since))).unwrap().len())
    });
    group.bench_function("index_window", |b| b.iter(|| Corpus::build(window_items.clone()).len()));
    group.bench_function("fit_window", |b| b.iter(|| ReaderModel::fit(&wcorpus, &reader.interests, &clicks).evidence));
    group.bench_function("evaluate_window", |b| {
        b.iter(|| attest_feed::eval::evaluate(&wcorpus, &reader.interests, &clicks).map(|e| e.auc).unwrap_or(0.0))
    });
    group.finish();
}

criterion_group!(benches, bench_tools);
criterion_main!(benches);
