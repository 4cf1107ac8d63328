//! The HTTP embedder against a fake OpenAI-compatible `/embeddings` server on loopback
//! (a thread in this test, deterministic keyword vectors): vectors are stored, they
//! change a constructed ranking, a dead or misbehaving server degrades to words with
//! the caveat saying so, and a backlog is embedded a bounded number per call. Answers
//! are checked by snapshots of the whole `Answer` (the fake server's address becomes
//! `[server]`, the window's first day `[since]`, times of this run `[time]`).

mod common;

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use attest_core::{Answer, Fault};
use attest_feed::FeedStore;
use attest_feed::embed::{EmbedService, vector_count};
use attest_feed::model::NewItem;
use attest_feed::tools::{Context, tools};
use serde_json::{Map, Value, json};

/// How the fake server answers.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// Keyword vectors: [protein words, market words, 0.05].
    Good,
    /// Vectors of different lengths in one answer.
    WrongDims,
    /// Plain text.
    NotJson,
}

struct Fake {
    base: String,
    stop: Arc<AtomicBool>,
    requests: Arc<AtomicUsize>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Fake {
    fn start(mode: Mode) -> Fake {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let base = format!("http://{}/v1", listener.local_addr().unwrap());
        let stop = Arc::new(AtomicBool::new(false));
        let requests = Arc::new(AtomicUsize::new(0));
        let (s, r) = (Arc::clone(&stop), Arc::clone(&requests));
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        r.fetch_add(1, Ordering::SeqCst);
                        stream.set_nonblocking(false).ok();
                        handle(stream, mode);
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
            // The listener is dropped here: later connections are refused.
        });
        Fake { base, stop, requests, thread: Some(thread) }
    }

    fn kill(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        self.kill();
    }
}

fn keyword_vector(text: &str) -> Vec<f64> {
    let t = text.to_lowercase();
    let count = |ws: &[&str]| ws.iter().map(|w| t.matches(w).count()).sum::<usize>() as f64;
    vec![count(&["protein", "fold", "structure", "tertiary"]), count(&["stock", "market"]), 0.05]
}

fn handle(stream: TcpStream, mode: Mode) {
    let Some((_, body)) = common::read_request(&stream) else { return };
    let req: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let inputs: Vec<String> = req["input"]
        .as_array()
        .map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    let (ctype, out) = match mode {
        Mode::Good => {
            let data: Vec<Value> = inputs
                .iter()
                .enumerate()
                .map(|(i, t)| json!({"object": "embedding", "index": i, "embedding": keyword_vector(t)}))
                .collect();
            ("application/json", json!({"object": "list", "model": req["model"], "data": data}).to_string())
        }
        Mode::WrongDims => {
            let data: Vec<Value> = inputs
                .iter()
                .enumerate()
                .map(|(i, _)| json!({"index": i, "embedding": if i % 2 == 0 { vec![1.0, 0.0] } else { vec![1.0, 0.0, 0.0] }}))
                .collect();
            let data = if data.len() == 1 { vec![json!({"index": 0, "embedding": []})] } else { data };
            ("application/json", json!({"data": data}).to_string())
        }
        Mode::NotJson => ("text/html", "<html>502 Bad Gateway</html>".to_string()),
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

fn item(guid: &str, title: &str, summary: &str, published: &str) -> NewItem {
    NewItem::build(guid, title, None, summary, Some(published.into()), Vec::<String>::new())
}

/// Three items: one matching the interests' words, one matching their meaning only
/// (no shared word), one off-topic and newest (so it wins the words-only tie).
async fn store() -> (FeedStore, Vec<i64>) {
    let s = FeedStore::in_memory().await.unwrap();
    let feed = s.subscribe("https://example.org/feed.xml", Some("Example")).await.unwrap().feed;
    let items = vec![
        item("a", "Protein folding benchmark", "We benchmark protein folding predictors.", "2026-10-01T00:00:00Z"),
        item(
            "b",
            "Tertiary structure prediction from sequence",
            "Structure from sequence alone.",
            "2026-10-02T00:00:00Z",
        ),
        item("c", "Stock market volatility", "Markets moved on rate news.", "2026-10-03T00:00:00Z"),
    ];
    let ids = s.add_items(Some(feed.id), &items, "2026-10-04T00:00:00Z").await.unwrap().new_ids;
    s.create_reader("ana", "protein folding").await.unwrap();
    (s, ids)
}

fn service(base: &str) -> EmbedService {
    let env = |k: &str| match k {
        "EMBED_BASE_URL" => Some(base.to_string()),
        "EMBED_MODEL" => Some("fake-embed".to_string()),
        "EMBED_TIMEOUT" => Some("5".to_string()),
        _ => None,
    };
    attest_feed::embed::from_env(env).expect("configured").with_retry_after(Duration::ZERO)
}

fn args(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

/// The whole answer as JSON, with this run's loopback address, the OS's error number,
/// the window's first day (today less the days asked for) and times replaced.
fn whole(a: &Answer<Value>) -> Value {
    let mut text = serde_json::to_string(a).unwrap();
    if let Some(day) = a.data.as_ref().and_then(|d| d["since"].as_str()).and_then(|s| s.get(..10)) {
        text = text.replace(day, "[since]");
    }
    let text = regex::Regex::new(r"127\.0\.0\.1:\d+").unwrap().replace_all(&text, "[server]");
    let text = regex::Regex::new(r"\(os error \d+\)").unwrap().replace_all(&text, "(os error [n])");
    let today = attest_feed::model::now_stamp();
    let time = regex::Regex::new(&format!(r"{}T\d\d:\d\d:\d\d(\.\d+)?Z", regex::escape(&today[..10]))).unwrap();
    serde_json::from_str(&time.replace_all(&text, "[time]")).unwrap()
}

/// A feed tool called through the catalogue, as an agent calls it.
async fn run_tool(ctx: &Arc<Context>, name: &str, args: Map<String, Value>) -> Result<Answer<Value>, Fault> {
    tools(Arc::clone(ctx)).call(name, args).await
}

async fn list(ctx: &Arc<Context>) -> attest_core::Answer<Value> {
    run_tool(ctx, "feed.list", args(json!({"user": "ana", "days": 3650, "limit": 3}))).await.unwrap()
}

fn order(a: &attest_core::Answer<Value>) -> Vec<i64> {
    a.data.as_ref().unwrap()["items"].as_array().unwrap().iter().map(|r| r["item_id"].as_i64().unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embeddings_are_stored_change_the_order_and_a_dead_server_degrades() {
    let (s, ids) = store().await;

    // Words only: the off-topic newest item wins the tie with the meaning-only match.
    let words = Arc::new(Context::with_fetcher(s.clone(), Default::default()));
    let a = list(&words).await;
    assert!(a.ok, "{}", a.answer);
    assert_eq!(order(&a), vec![ids[0], ids[2], ids[1]]);
    assert_eq!(a.data.as_ref().unwrap()["quality"]["embeddings"]["state"], "off");

    // With the embedding server: every candidate is embedded and stored, and the
    // meaning-only match moves above the off-topic item.
    let mut fake = Fake::start(Mode::Good);
    let ctx = Arc::new(Context::with_fetcher(s.clone(), Default::default()).with_embedder(Some(service(&fake.base))));
    let a = list(&ctx).await;
    assert!(a.ok, "{}", a.answer);
    assert_eq!(vector_count(&s, "fake-embed").await.unwrap(), 3);
    assert_eq!(a.data.as_ref().unwrap()["quality"]["embeddings"]["state"], "used");
    assert_eq!(order(&a), vec![ids[0], ids[1], ids[2]]);
    insta::assert_json_snapshot!("list_with_embeddings", whole(&a));
    let asked = fake.requests.load(Ordering::SeqCst);
    assert_eq!(asked, 2, "one request for the interests, one batch for the three items");

    // Stored vectors are reused: the next call asks only for the interests vector.
    let again = list(&ctx).await;
    assert_eq!(order(&again), order(&a));
    assert_eq!(fake.requests.load(Ordering::SeqCst), asked + 1);

    // feed.search ranks its hits with the stored vectors too.
    let found = run_tool(&ctx, "feed.search", args(json!({"user": "ana", "query": "sequence OR market OR protein"})))
        .await
        .unwrap();
    assert!(found.ok, "{}", found.answer);
    assert_eq!(found.data.as_ref().unwrap()["quality"]["embeddings"]["state"], "used");

    // The server goes away: still a ranked answer, by words, saying why.
    fake.kill();
    let down = list(&ctx).await;
    assert!(down.ok, "{}", down.answer);
    assert_eq!(order(&down), vec![ids[0], ids[2], ids[1]]);
    insta::assert_json_snapshot!("list_server_down", whole(&down));
    assert_eq!(down.data.as_ref().unwrap()["quality"]["embeddings"]["state"], "unavailable");
    // The digest and the status degrade the same way.
    let d = run_tool(&ctx, "feed.digest", args(json!({"user": "ana", "days": 3650}))).await.unwrap();
    assert!(d.ok, "{}", d.answer);
    insta::assert_json_snapshot!("digest_server_down", whole(&d));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_answers_degrade_and_store_nothing() {
    let mut answers = Vec::new();
    for (mode, case) in [(Mode::WrongDims, "vectors of different lengths"), (Mode::NotJson, "a web page")] {
        let (s, ids) = store().await;
        let fake = Fake::start(mode);
        let ctx =
            Arc::new(Context::with_fetcher(s.clone(), Default::default()).with_embedder(Some(service(&fake.base))));
        let a = list(&ctx).await;
        assert!(a.ok, "{}", a.answer);
        assert_eq!(order(&a), vec![ids[0], ids[2], ids[1]], "ranked by words");
        assert_eq!(vector_count(&s, "fake-embed").await.unwrap(), 0);
        answers.push(json!({ "case": case, "answer": whole(&a) }));
    }
    insta::assert_json_snapshot!("bad_embedding_answers", answers);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backlog_is_embedded_a_bounded_number_per_call() {
    let s = FeedStore::in_memory().await.unwrap();
    let feed = s.subscribe("https://example.org/feed.xml", Some("Example")).await.unwrap().feed;
    let items: Vec<NewItem> = (0..5)
        .map(|i| {
            item(&format!("g{i}"), &format!("Protein study {i}"), "Folding.", &format!("2026-10-0{}T00:00:00Z", i + 1))
        })
        .collect();
    s.add_items(Some(feed.id), &items, "2026-10-09T00:00:00Z").await.unwrap();
    s.create_reader("ana", "protein folding").await.unwrap();
    let fake = Fake::start(Mode::Good);
    let ctx = Arc::new(
        Context::with_fetcher(s.clone(), Default::default()).with_embedder(Some(service(&fake.base).with_per_call(2))),
    );
    let first = list(&ctx).await;
    assert_eq!(vector_count(&s, "fake-embed").await.unwrap(), 2);
    insta::assert_json_snapshot!("backlog_first_call", whole(&first));
    list(&ctx).await;
    let third = list(&ctx).await;
    assert_eq!(vector_count(&s, "fake-embed").await.unwrap(), 5);
    insta::assert_json_snapshot!("backlog_third_call", whole(&third));
    assert_eq!(third.data.as_ref().unwrap()["quality"]["embeddings"]["state"], "used");
}
