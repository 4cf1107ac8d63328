//! Ingest throughput from local files (parse, clean, dedup, store, index), and
//! full-text search and `feed.list` latency on a generated 100,000-item archive (on
//! SQLite, and on PostgreSQL too when `ATTEST_BENCH_POSTGRES` names a database).
//!
//! Targets: ingest ≥ 5,000 items/s; search and `feed.list` p50 ≤ 20 ms. Criterion's
//! reported median is the p50.

use std::fmt::Write as _;
use std::time::Duration;

use attest_feed::fetch::Fetcher;
use attest_feed::model::NewItem;
use attest_feed::search::{self, SearchQuery};
use attest_feed::{FeedStore, ingest};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};

/// Twelve topics of five words each. Every generated item belongs to one topic and
/// carries a few of its words, so a topic word occurs in roughly 5% of the archive,
/// as in a real multi-topic collection; the rest of the text is a Zipf-like synthetic
/// vocabulary of 20,000 words.
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

/// A small deterministic generator (no extra dependency).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn filler(&mut self) -> String {
        // Rank r with probability roughly proportional to 1/r.
        let u = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        let k = (20_000f64.powf(u)) as u64;
        format!("w{k}x")
    }
    /// `n` words of which `topical` come from topic `t`.
    fn text(&mut self, t: usize, n: usize, topical: usize) -> String {
        let mut w: Vec<String> = (0..n).map(|_| self.filler()).collect();
        for _ in 0..topical {
            let pos = (self.next() as usize) % n;
            w[pos] = TOPICS[t][(self.next() % 5) as usize].to_string();
        }
        w.join(" ")
    }
}

/// An RSS 2.0 document with `n` items, one in twenty repeating an earlier one under
/// another guid (caught by the content hash).
fn rss(n: usize, seed: u64) -> String {
    let mut g = Lcg(seed);
    let mut s = String::from("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>bench</title>");
    let mut kept: Vec<(String, String)> = Vec::new();
    for i in 0..n {
        let (title, body) = if i % 20 == 19 && !kept.is_empty() {
            kept[(g.next() as usize) % kept.len()].clone()
        } else {
            let topic = (g.next() % 12) as usize;
            let t = g.text(topic, 9, 1);
            let b = format!("<p>{}</p><p>{}</p>", g.text(topic, 30, 2), g.text(topic, 20, 1));
            kept.push((t.clone(), b.clone()));
            (t, b)
        };
        let _ = write!(
            s,
            "<item><title>{title}</title><link>https://bench.example/{seed}/{i}</link><guid>b-{seed}-{i}</guid>\
             <pubDate>Mon, 02 Nov 2026 10:00:00 +0000</pubDate><category>cat{}</category>\
             <description><![CDATA[{body}]]></description></item>",
            i % 7
        );
    }
    s.push_str("</channel></rss>");
    s
}

/// One ingest of the benchmark's feed (`n` entries) into a new file database `db`.
fn ingest_once(rt: &tokio::runtime::Runtime, feed_path: &std::path::Path, db: &std::path::Path, n: usize) {
    rt.block_on(async {
        let s = FeedStore::new(attest_store::Store::open(db).await.unwrap());
        s.subscribe(feed_path.to_str().unwrap(), None).await.unwrap();
        let r = ingest::ingest_all(&s, &Fetcher::default()).await.unwrap();
        assert_eq!(r.added + r.skipped, n);
        s.store().clone().close().await;
    });
}

fn bench_ingest(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    const N: usize = 5_000;
    let feed_path = dir.path().join("bench.rss");
    std::fs::write(&feed_path, rss(N, 7)).unwrap();
    let mut group = c.benchmark_group("ingest");
    group.sample_size(10).measurement_time(Duration::from_secs(20)).throughput(Throughput::Elements(N as u64));
    let mut k = 0;
    group.bench_function(BenchmarkId::new("local_rss_file_db", N), |b| {
        b.iter(|| {
            k += 1;
            let db = dir.path().join(format!("ingest-{k}.db"));
            ingest_once(&rt, &feed_path, &db, N);
            let _ = std::fs::remove_file(&db);
        })
    });
    group.finish();
}

/// The 100,000-item archive `search_100k` and `list_100k` share, on SQLite and, when
/// `ATTEST_BENCH_POSTGRES` names a database, on a fresh schema of it: each benchmark
/// is measured on both, side by side.
fn bench_archive(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let sqlite = dir.path().join("archive.db");
    let mut stores = vec![("", sqlite.to_string_lossy().into_owned())];
    if let Ok(base) = std::env::var("ATTEST_BENCH_POSTGRES") {
        stores.push(("_postgres", rt.block_on(attest_store::scratch::fresh(&base)).unwrap()));
    }
    for (suffix, db) in stores {
        let store = rt.block_on(archive_100k(&db));
        search_on(c, &rt, &store, suffix);
        list_on(c, &rt, &store, suffix);
    }
}

/// 100,000 items dated 2026-10-01 to 10-28 (about 3,600 a day) in one feed, 50-word
/// summaries, one of eleven feed tags each.
async fn archive_100k(db: &str) -> FeedStore {
    const N: usize = 100_000;
    let s = FeedStore::new(attest_store::Store::open(std::path::Path::new(db)).await.unwrap());
    let feed = s.subscribe("https://bench.example/feed.xml", Some("bench")).await.unwrap().feed;
    let mut g = Lcg(42);
    for batch in 0..N / 5_000 {
        let items: Vec<NewItem> = (0..5_000)
            .map(|i| {
                let n = batch * 5_000 + i;
                let day = 1 + (n % 28);
                let topic = (g.next() % 12) as usize;
                NewItem::build(
                    format!("g{n}"),
                    g.text(topic, 9, 1),
                    Some(format!("https://bench.example/{n}")),
                    g.text(topic, 50, 3),
                    Some(format!("2026-10-{day:02}T12:00:00Z")),
                    [format!("cat{}", n % 11)],
                )
            })
            .collect();
        s.add_items(Some(feed.id), &items, "2026-11-01T00:00:00Z").await.unwrap();
    }
    assert_eq!(s.counts().await.unwrap().items, N as i64);
    s
}

fn search_on(c: &mut Criterion, rt: &tokio::runtime::Runtime, store: &FeedStore, suffix: &str) {
    let queries = [
        "asymmetric hydrogenation catalyst",
        "pipeline parallel training throughput",
        "C-H oxidation",
        "kernel compiler for attention",
        "reef climate",
        "w12x w300x",
        "training",
    ];
    let mut group = c.benchmark_group(format!("search_100k{suffix}"));
    group.sample_size(30).measurement_time(Duration::from_secs(10));
    for q in queries {
        group.bench_with_input(BenchmarkId::new("text", q), q, |b, q| {
            b.iter(|| rt.block_on(search::search(store, &SearchQuery::text(q, 13))).unwrap())
        });
    }
    group.bench_function("text_since_tag", |b| {
        let q = SearchQuery {
            text: "training memory cache".into(),
            tag: Some("cat3".into()),
            since: Some("2026-10-20T00:00:00Z".into()),
            limit: 13,
            ..SearchQuery::default()
        };
        b.iter(|| rt.block_on(search::search(store, &q)).unwrap())
    });
    group.finish();
}

/// `feed.list` on the 100,000-item archive, as the tool runs it (through the feed
/// catalogue: reader look-up, the cache fingerprint query, the reader's window ranked,
/// item rows, the quality note), for a reader with interests and 60 ratings:
///
/// - `default`: no arguments but the reader (limit 5, 14 days), answered from the
///   ranking cache (every call after the first);
/// - `days3_limit16`: the window and row limit an agent can pass;
/// - `default_uncached`: the first call after an ingest or a rating (the window's rows
///   loaded, indexed, the model fitted, the held-out evaluation run);
/// - `window_rows`: the store query that first call starts with
///   (`FeedStore::items_for_ranking`: the window's unrated items with their tags).
///
/// The archive's items are dated 2026-10-01 to 10-28, so the 14-day window is the 14
/// days before the newest item (widened, as `feed.list` does when nothing is recent):
/// about 54,000 candidates; `days=3` about 14,000.
fn list_on(c: &mut Criterion, rt: &tokio::runtime::Runtime, store: &FeedStore, suffix: &str) {
    use attest_feed::model::ClickSource;
    use serde_json::json;
    let ctx = std::sync::Arc::new(attest_feed::tools::Context::new(store.clone()));
    let cat = attest_feed::tools::tools(std::sync::Arc::clone(&ctx));
    let since = "2026-10-14T00:00:00Z";
    let reader = rt.block_on(async {
        let r = match store.reader("bench").await.unwrap() {
            Some(r) => r,
            None => store
                .create_reader("bench", "asymmetric hydrogenation catalyst ligand palladium coupling kernel compiler")
                .await
                .unwrap(),
        };
        // 60 ratings in the window: chemistry useful, the rest not.
        let recent = store.items_for_ranking(r.id, Some(since)).await.unwrap();
        for it in recent.iter().take(60) {
            let useful = it.tags.iter().any(|t| ["cat0", "cat1", "cat2"].contains(&t.as_str()));
            store.record_click(r.id, it.id, useful, ClickSource::Agent).await.unwrap();
        }
        r
    });
    let call = |args: serde_json::Value| {
        let a = rt.block_on(cat.call("feed.list", args.as_object().unwrap().clone())).unwrap();
        assert!(a.ok, "feed.list: {}", a.answer);
        a.answer.len()
    };
    let mut group = c.benchmark_group(format!("list_100k{suffix}"));
    group.sample_size(20).measurement_time(Duration::from_secs(10));
    call(json!({"user": "bench"}));
    group.bench_function("default", |b| b.iter(|| call(json!({"user": "bench"}))));
    call(json!({"user": "bench", "days": 3, "limit": 16}));
    group.bench_function("days3_limit16", |b| b.iter(|| call(json!({"user": "bench", "days": 3, "limit": 16}))));
    group.sample_size(10);
    group.bench_function("default_uncached", |b| {
        b.iter(|| {
            ctx.invalidate();
            call(json!({"user": "bench"}))
        })
    });
    group.bench_function("window_rows", |b| {
        b.iter(|| rt.block_on(store.items_for_ranking(reader.id, Some(since))).unwrap().len())
    });
    group.finish();
}

criterion_group!(benches, bench_ingest, bench_archive);

/// `ATTEST_BENCH_INGEST_ONCE=N` runs one ingest of an `N`-entry feed (the benchmark's
/// generator) and exits, measuring nothing: the run to give `valgrind --tool=callgrind`
/// or `perf record`, whose instruction counts do not depend on the machine's load.
/// `ATTEST_BENCH_INGEST_DB=PATH` keeps the database it wrote.
fn main() {
    if let Some(n) = std::env::var("ATTEST_BENCH_INGEST_ONCE").ok().and_then(|n| n.parse::<usize>().ok()) {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let feed_path = dir.path().join("bench.rss");
        std::fs::write(&feed_path, rss(n, 7)).unwrap();
        let db = std::env::var_os("ATTEST_BENCH_INGEST_DB").map_or(dir.path().join("once.db"), Into::into);
        ingest_once(&rt, &feed_path, &db, n);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
