//! The feed tools keep each reader's indexed window, fitted model and held-out
//! evaluation between calls. A cached answer must be the answer a fresh context
//! (nothing cached) gives: after ratings in and outside the window, through the tools
//! or written by another process, after an interests change, a reset, and an ingest
//! by another process. Each step below changes the store, then every ranked tool is
//! asked through the long-lived context and through a fresh one.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use attest_core::{Answer, Fault};
use attest_feed::fetch::Fetcher;
use attest_feed::ingest;
use attest_feed::model::{ClickSource, NewItem};
use attest_feed::tools::{Context, tools};
use attest_feed::{FeedStore, Item};
use serde::Deserialize;
use serde_json::{Value, json};

fn fixture(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/feeds").join(name);
    p.canonicalize().unwrap_or(p).to_string_lossy().into_owned()
}

/// Ingested first; `science-wire.json` arrives later, "from another process".
const FIRST: [&str; 5] =
    ["synthesis-letters.rss", "arxiv-chem-ph.rdf", "arxiv-cs.rss", "systems-notes.atom", "bulletin-v1.rss"];
const LATER: &str = "science-wire.json";

#[derive(Deserialize)]
struct Labels {
    persona: Vec<Persona>,
}

#[derive(Deserialize)]
struct Persona {
    name: String,
    interests: String,
    useful: Vec<String>,
    not_useful: Vec<String>,
}

/// The ranked tools, asked after every step.
fn calls() -> Vec<(&'static str, Value)> {
    vec![
        ("feed.list", json!({"user": "chem"})),
        ("feed.list", json!({"user": "chem", "days": 3, "limit": 16})),
        ("feed.search", json!({"user": "chem", "query": "catalysis"})),
        ("feed.search", json!({"user": "chem", "query": "asymmetric coupling", "limit": 16})),
        ("feed.search", json!({"user": "chem", "query": "training"})),
        ("feed.digest", json!({"user": "chem", "days": 14})),
        ("feed.persona_status", json!({"user": "chem"})),
    ]
}

/// A feed tool called through the catalogue, as an agent calls it.
async fn run_tool(
    ctx: &Arc<Context>,
    name: &str,
    args: serde_json::Map<String, Value>,
) -> Result<Answer<Value>, Fault> {
    tools(Arc::clone(ctx)).call(name, args).await
}

async fn answers(ctx: &Arc<Context>) -> Vec<Value> {
    let mut out = Vec::new();
    for (tool, args) in calls() {
        let a = run_tool(ctx, tool, args.as_object().unwrap().clone()).await.unwrap();
        out.push(json!({"tool": tool, "args": args, "answer": serde_json::to_value(&a).unwrap()}));
    }
    out
}

async fn same_as_fresh(ctx: &Arc<Context>, store: &FeedStore, step: &str) {
    let cached = answers(ctx).await;
    let fresh = answers(&Arc::new(Context::new(store.clone()))).await;
    for (c, f) in cached.iter().zip(&fresh) {
        assert_eq!(c, f, "after {step}: the cached answer differs from a fresh context's");
    }
    // Asked again, now served from the cache.
    assert_eq!(answers(ctx).await, cached, "after {step}: a repeated call changed the answer");
}

async fn call(ctx: &Arc<Context>, tool: &str, args: Value) -> Value {
    let a = run_tool(ctx, tool, args.as_object().unwrap().clone()).await.unwrap();
    assert!(a.ok, "{tool}: {}", a.answer);
    serde_json::to_value(&a).unwrap()
}

/// Old items on the reader's topics, outside every window the tools use.
fn old_items() -> Vec<NewItem> {
    (1..=4)
        .map(|k| {
            NewItem::build(
                format!("old-{k}"),
                format!("Asymmetric catalysis review part {k}"),
                Some(format!("https://old.example/{k}")),
                "Enantioselective hydrogenation and cross-coupling catalysis, a decade of ligand design.",
                Some(format!("2026-06-0{k}T00:00:00Z")),
                ["catalysis".to_string()],
            )
        })
        .collect()
}

#[tokio::test]
async fn cached_answers_equal_fresh_ones_after_ratings_and_ingest() {
    let store = FeedStore::in_memory().await.unwrap();
    for f in FIRST {
        store.subscribe(&fixture(f), None).await.unwrap();
    }
    let r = ingest::ingest_all(&store, &Fetcher::default()).await.unwrap();
    assert!(r.failed.is_empty(), "{:?}", r.failed);
    let old = store.subscribe("https://old.example/feed.xml", Some("Old archive")).await.unwrap().feed;
    let old_ids = store.add_items(Some(old.id), &old_items(), "2026-06-10T00:00:00Z").await.unwrap().new_ids;
    let n = store.counts().await.unwrap().items;
    let items: Vec<Item> = store.items(&(1..=n + 10).collect::<Vec<_>>()).await.unwrap();
    let by_guid: HashMap<String, i64> = items.iter().map(|i| (i.guid.clone(), i.id)).collect();

    let labels: Labels = toml::from_str(&std::fs::read_to_string(fixture("labels.toml")).unwrap()).unwrap();
    let chemist = labels.persona.iter().find(|p| p.name == "synthetic-chemist").unwrap();
    let reader = store.create_reader("chem", &chemist.interests).await.unwrap();
    // Twelve human ratings from the labelled set (enough for the held-out figures).
    let verdicts: Vec<(i64, bool)> = chemist
        .useful
        .iter()
        .map(|g| (g, true))
        .chain(chemist.not_useful.iter().map(|g| (g, false)))
        .filter_map(|(g, u)| by_guid.get(g.as_str()).map(|&id| (id, u)))
        .collect();
    let (first, rest) = verdicts.split_at(12);
    for &(id, useful) in first.iter().step_by(2).chain(rest.iter().step_by(7)).take(12) {
        store.record_click(reader.id, id, useful, ClickSource::Ui).await.unwrap();
    }

    let ctx = Arc::new(Context::new(store.clone()));
    same_as_fresh(&ctx, &store, "the first calls").await;

    // A rating inside the window, through the tools.
    let (id, _) = first[1];
    call(&ctx, "feed.rate", json!({"user": "chem", "item_id": id, "useful": false})).await;
    same_as_fresh(&ctx, &store, "a rating in the window").await;

    // The same item rated again with the same verdict (the click set is unchanged).
    call(&ctx, "feed.rate", json!({"user": "chem", "item_id": id, "useful": false})).await;
    same_as_fresh(&ctx, &store, "a repeated rating").await;

    // An item outside every window, through the tools (the index must grow).
    call(&ctx, "feed.rate", json!({"user": "chem", "item_id": old_ids[0], "useful": true})).await;
    same_as_fresh(&ctx, &store, "a rating outside the window").await;

    // Ratings written by another process: the context is not told.
    let (id, useful) = first[3];
    store.record_click(reader.id, id, !useful, ClickSource::Agent).await.unwrap();
    store.record_click(reader.id, old_ids[1], false, ClickSource::Ui).await.unwrap();
    same_as_fresh(&ctx, &store, "ratings by another process").await;

    // A rating turned from one source into another, same verdict.
    store.record_click(reader.id, old_ids[1], false, ClickSource::Bootstrap).await.unwrap();
    same_as_fresh(&ctx, &store, "a rating's source changed").await;

    // New interests.
    call(&ctx, "feed.persona_update", json!({"user": "chem", "interests": "photoredox and asymmetric catalysis"}))
        .await;
    same_as_fresh(&ctx, &store, "an interests change").await;

    // An ingest by another process.
    let feed = store.subscribe(&fixture(LATER), None).await.unwrap().feed;
    let out = ingest::ingest_feed(&store, &Fetcher::default(), &feed).await.unwrap();
    assert!(out.added > 0, "{out:?}");
    same_as_fresh(&ctx, &store, "an ingest by another process").await;

    // A reset through the tools: every rating goes, the old items leave the index.
    call(&ctx, "feed.persona_reset", json!({"user": "chem", "confirm": true})).await;
    same_as_fresh(&ctx, &store, "a reset").await;

    // Ratings again, only inside the window, by another process.
    for &(id, useful) in first.iter().take(4) {
        store.record_click(reader.id, id, useful, ClickSource::Ui).await.unwrap();
    }
    same_as_fresh(&ctx, &store, "new ratings after the reset").await;
}
