//! Near-duplicate concepts merged by embeddings at ingest, end to end: a loopback
//! server (a thread in this test) serves one RSS feed and an OpenAI-compatible
//! `/v1/embeddings` whose vectors are planted per text: near-duplicates get close
//! vectors, everything else far ones. Planted near-duplicates merge onto the more used
//! name and the graph, search and the stored tags see one concept; unrelated, merely
//! broader, or lexically related but distant names stay apart; a re-ingest asks the
//! server for nothing; a server that is down leaves the tags as words chose them, with
//! a caveat, and the ingest succeeds. Runs on PostgreSQL too (`ATTEST_TEST_POSTGRES`).

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use attest_feed::concepts::{concept_vector_count, stored_aliases};
use attest_feed::embed::EmbedService;
use attest_feed::fetch::{FetchOptions, Fetcher};
use attest_feed::tools::{Context, tools};
use attest_feed::{FeedStore, ingest};
use serde_json::{Value, json};

/// Items as (categories); titles and summaries say little, so the feed's categories
/// are the concepts under test.
const ITEMS: &[&[&str]] = &[
    &["graph neural networks"],
    &["graph neural networks"],
    &["graph neural networks", "protein"],
    &["graph neural networks model"],
    &["SNN"],
    &["spiking neural networks"],
    &["spiking neural networks"],
    &["myocardial infarction", "heart attack"],
    &["myocardial infarction"],
    &["protein design"],
    &["protein"],
    &["stock markets"],
    &["ocean acidification"],
    &["neural networks"],
    &["neural networks"],
];

fn rss() -> String {
    let mut s = String::from(r#"<?xml version="1.0"?><rss version="2.0"><channel><title>Planted</title>"#);
    for (i, cats) in ITEMS.iter().enumerate() {
        s.push_str(&format!(
            "<item><title>Note {i}</title><guid>n{i}</guid><pubDate>Mon, 0{} Nov 2026 00:00:00 GMT</pubDate>\
             <description>Short note.</description>",
            1 + i % 9
        ));
        for c in cats.iter() {
            s.push_str(&format!("<category>{c}</category>"));
        }
        s.push_str("</item>");
    }
    s.push_str("</channel></rss>");
    s
}

/// The planted vectors: 8 named directions; any other text gets a pseudo-random vector
/// in 24 further dimensions (cosine near 0 with everything planted and with each other).
fn vector(text: &str) -> Vec<f64> {
    let mut v = vec![0.0; 32];
    let mut set = |pairs: &[(usize, f64)]| pairs.iter().for_each(|&(i, x)| v[i] = x);
    match text.to_lowercase().as_str() {
        "graph neural networks" => set(&[(0, 1.0)]),
        "graph neural networks model" => set(&[(0, 0.995), (7, 0.0999)]),
        "spiking neural networks" => set(&[(1, 1.0)]),
        "snn" => set(&[(1, 0.99), (7, 0.141)]),
        "myocardial infarction" => set(&[(2, 1.0)]),
        "heart attack" => set(&[(2, 0.98), (6, 0.199)]),
        // Lexically related (design is a generic noun) but far apart.
        "protein" => set(&[(3, 1.0)]),
        "protein design" => set(&[(3, 0.8), (5, 0.6)]),
        // Close vectors, unrelated words, no item in common.
        "stock markets" | "ocean acidification" => set(&[(4, 1.0)]),
        // Close to graph-neural-networks, but broader (both built-in names).
        "neural networks" => set(&[(0, 0.96), (5, 0.28)]),
        other => {
            let mut h: u64 = 0xcbf29ce484222325;
            for b in other.bytes() {
                h = (h ^ u64::from(b)).wrapping_mul(0x100000001b3);
            }
            for x in v.iter_mut().skip(8) {
                h = h.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                *x = ((h >> 33) as f64 / (1u64 << 31) as f64) - 0.5;
            }
        }
    }
    v
}

struct Fake {
    base: String,
    stop: Arc<AtomicBool>,
    /// Requests to /v1/embeddings, and every text asked for.
    embed_requests: Arc<AtomicUsize>,
    texts: Arc<Mutex<Vec<String>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Fake {
    fn start() -> Fake {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let stop = Arc::new(AtomicBool::new(false));
        let embed_requests = Arc::new(AtomicUsize::new(0));
        let texts: Arc<Mutex<Vec<String>>> = Arc::default();
        let (s, r, t) = (Arc::clone(&stop), Arc::clone(&embed_requests), Arc::clone(&texts));
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        stream.set_nonblocking(false).ok();
                        handle(stream, &r, &t);
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Fake { base, stop, embed_requests, texts, thread: Some(thread) }
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
    }
}

fn handle(stream: TcpStream, requests: &AtomicUsize, texts: &Mutex<Vec<String>>) {
    let Some((line, body)) = common::read_request(&stream) else { return };
    let (ctype, out) = if line.starts_with("POST /v1/embeddings") {
        requests.fetch_add(1, Ordering::SeqCst);
        let req: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let inputs: Vec<String> = req["input"]
            .as_array()
            .map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect())
            .unwrap_or_default();
        texts.lock().unwrap().extend(inputs.iter().cloned());
        let data: Vec<Value> =
            inputs.iter().enumerate().map(|(i, t)| json!({"index": i, "embedding": vector(t)})).collect();
        ("application/json", json!({"data": data}).to_string())
    } else {
        ("application/rss+xml", rss())
    };
    let mut out_stream = stream;
    let _ = out_stream.write_all(
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{out}",
            out.len()
        )
        .as_bytes(),
    );
}

fn service(base: &str) -> EmbedService {
    let env = |k: &str| match k {
        "EMBED_BASE_URL" => Some(format!("{base}/v1")),
        "EMBED_MODEL" => Some("fake-embed".to_string()),
        "EMBED_TIMEOUT" => Some("5".to_string()),
        _ => None,
    };
    attest_feed::embed::from_env(env).expect("configured").with_retry_after(Duration::ZERO)
}

fn fetcher() -> Fetcher {
    Fetcher::new(FetchOptions { timeout: Duration::from_secs(5), ..FetchOptions::default() })
}

async fn subscribed(fake: &Fake) -> FeedStore {
    let s = FeedStore::in_memory().await.unwrap();
    s.subscribe(&format!("{}/feed.xml", fake.base), Some("Planted")).await.unwrap();
    s
}

/// Every stored tag with the items carrying it.
async fn tags(s: &FeedStore) -> BTreeMap<String, Vec<i64>> {
    let mut out: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for t in s.item_tags().await.unwrap() {
        out.entry(t.tag).or_default().push(t.item_id);
    }
    out
}

fn redact(text: &str) -> String {
    let t = regex::Regex::new(r"127\.0\.0\.1:\d+").unwrap().replace_all(text, "[server]");
    regex::Regex::new(r"\(os error \d+\)").unwrap().replace_all(&t, "(os error [n])").into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn near_duplicates_merge_once_and_a_dead_server_changes_nothing() {
    let fake = Fake::start();

    // Without an embedding server: the tags as words chose them.
    let words = subscribed(&fake).await;
    let r = ingest::ingest_all_with(&words, &fetcher(), 1, |_| {}).await.unwrap();
    assert!(r.failed.is_empty() && r.added == ITEMS.len(), "{r:?}");
    assert!(r.concepts.is_none());
    let by_words = tags(&words).await;
    for t in ["graph-neural-networks-model", "snn", "heart-attack", "protein-design", "ocean-acidification"] {
        assert!(by_words.contains_key(t), "{t}: {by_words:?}");
    }

    // With the server: the planted near-duplicates merge, nothing else does.
    let s = subscribed(&fake).await;
    let svc = service(&fake.base);
    let r = ingest::ingest_all_embedded(&s, &fetcher(), 1, Some(&svc), |_| {}).await.unwrap();
    assert!(r.failed.is_empty(), "{r:?}");
    let m = r.concepts.clone().expect("merged");
    insta::assert_json_snapshot!("merged_at_first_ingest", m);
    let pairs: Vec<(&str, &str)> = m.merged.iter().map(|x| (x.alias.as_str(), x.canonical.as_str())).collect();
    assert_eq!(
        pairs,
        [
            ("graph-neural-networks-model", "graph-neural-networks"),
            ("heart-attack", "myocardial-infarction"),
            ("snn", "spiking-neural-networks"),
        ]
    );
    assert!(m.caveat.is_none());
    // Each concept name embedded once, in batches of 32; none of an item's raw phrases.
    let asked = fake.texts.lock().unwrap().clone();
    assert_eq!(m.embedded, asked.len());
    assert_eq!(concept_vector_count(&s, "fake-embed").await.unwrap() as usize, asked.len());
    assert!(asked.contains(&"graph neural networks model".to_string()), "{asked:?}");
    let requests = fake.embed_requests.load(Ordering::SeqCst);
    assert_eq!(requests, asked.len().div_ceil(32));

    // The stored tags: the aliases are gone, their items carry the canonical name,
    // and everything else is as words chose it.
    let merged = tags(&s).await;
    assert_eq!(merged["graph-neural-networks"].len(), 4, "{merged:?}");
    assert_eq!(merged["spiking-neural-networks"].len(), 3, "{merged:?}");
    assert_eq!(merged["myocardial-infarction"].len(), 2, "{merged:?}");
    let mut expected = by_words.clone();
    for (alias, canonical) in &pairs {
        let moved = expected.remove(*alias).unwrap();
        let e = expected.entry(canonical.to_string()).or_default();
        e.extend(moved);
        e.sort();
        e.dedup();
    }
    // `gnn`-style spellings of the canonical name are stored as the canonical name.
    let canonical_of = |m: &BTreeMap<String, Vec<i64>>| -> BTreeMap<String, Vec<i64>> {
        let mut out: BTreeMap<String, Vec<i64>> = BTreeMap::new();
        for (t, items) in m {
            let e = out.entry(attest_tags::Canon::builtin().canonical(t)).or_default();
            e.extend(items);
            e.sort();
            e.dedup();
        }
        out
    };
    assert_eq!(canonical_of(&merged), canonical_of(&expected));

    // The graph sees one concept: the aliases are not nodes, and resolve to nothing.
    let loaded = attest_kg::tools::load(&s, attest_kg::Params::default()).await.unwrap();
    let concepts = loaded.graph.concepts(None, 1000);
    let names: Vec<&str> = concepts.names.iter().map(String::as_str).collect();
    assert!(names.contains(&"graph-neural-networks"), "{names:?}");
    for gone in ["graph-neural-networks-model", "heart-attack", "snn"] {
        assert!(!names.contains(&gone), "{gone}: {names:?}");
    }
    // Search by tag finds the four items under one name.
    let ctx = Arc::new(Context::with_fetcher(s.clone(), Default::default()));
    s.create_reader("ana", "graphs").await.unwrap();
    let args = json!({"user": "ana", "tag": "graph-neural-networks", "limit": 10}).as_object().unwrap().clone();
    let found = tools(Arc::clone(&ctx)).call("feed.search", args).await.unwrap();
    assert!(found.ok, "{}", found.answer);
    assert_eq!(found.data.as_ref().unwrap()["items"].as_array().unwrap().len(), 4, "{}", found.answer);

    // A re-ingest asks the server for nothing and changes nothing.
    let again = ingest::ingest_all_embedded(&s, &fetcher(), 1, Some(&svc), |_| {}).await.unwrap();
    let m2 = again.concepts.expect("ran");
    assert_eq!((m2.embedded, m2.merged.len(), m2.caveat.as_deref()), (0, 0, None), "{m2:?}");
    assert_eq!(fake.embed_requests.load(Ordering::SeqCst), requests);
    assert_eq!(tags(&s).await, merged);
    assert_eq!(stored_aliases(&s).await.unwrap().len(), 3);

    // The server is down: the ingest succeeds, the tags are as words chose them, and
    // the report says why.
    let dead = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", l.local_addr().unwrap())
    };
    let down = subscribed(&fake).await;
    let r = ingest::ingest_all_embedded(&down, &fetcher(), 1, Some(&service(&dead)), |_| {}).await.unwrap();
    assert!(r.failed.is_empty() && r.added == ITEMS.len(), "{r:?}");
    let m = r.concepts.expect("reported");
    assert!(m.merged.is_empty() && m.embedded == 0, "{m:?}");
    insta::assert_snapshot!("server_down_caveat", redact(m.caveat.as_deref().expect("a caveat")));
    assert_eq!(tags(&down).await, by_words);
    assert_eq!(concept_vector_count(&down, "fake-embed").await.unwrap(), 0);
}
