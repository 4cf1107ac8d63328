//! Readers through the feed tools, as an agent meets them: no reader yet, interests
//! seeded from the archive's concepts (names, never arXiv codes), `feed.persona_status`
//! with no reader named listing them, `feed.source_suggest` scored by what a reader
//! rated useful, and two names of one person merged (refused without confirm=true,
//! nothing changed; then merged). Every answer is snapshotted whole; the ratings stored
//! are checked after the refusal and after the merge.

mod common;

use attest_feed::FeedStore;
use common::{call, catalogue, fixtures};
use serde_json::{Value, json};

async fn ratings(store: &FeedStore, name: &str) -> Vec<(i64, bool)> {
    let Some(r) = store.reader(name).await.unwrap() else { return Vec::new() };
    let mut v: Vec<(i64, bool)> = store.clicks(r.id).await.unwrap().iter().map(|c| (c.item_id, c.useful)).collect();
    v.sort();
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readers_over_a_session() {
    let store = FeedStore::in_memory().await.unwrap();
    let c = catalogue(store.clone());
    let f = fixtures();
    for feed in ["synthesis-letters.rss", "arxiv-chem-ph.rdf", "arxiv-cs.rss"] {
        assert_eq!(call(&c, "feed.source_add", &json!({"url": format!("{f}/{feed}")})).await["ok"], true);
    }
    let mut all = Vec::new();
    let mut step = async |tool: &str, args: Value| {
        let answer = call(&c, tool, &args).await;
        all.push(json!({"call": tool, "args": args, "answer": answer}));
        answer
    };
    step("feed.persona_status", json!({})).await;
    step("feed.persona_suggest_interests", json!({})).await;
    // A new name on a read-only tool starts from the archive's concepts.
    step("feed.list", json!({"user": "rkumar", "limit": 2})).await;
    step("feed.persona_create", json!({"user": "Ravi", "interests": "distributed training; key-value caches"})).await;
    for (user, item, useful) in [("rkumar", 1, true), ("rkumar", 2, false), ("Ravi", 2, true), ("Ravi", 3, true)] {
        step("feed.rate", json!({"user": user, "item_id": item, "useful": useful})).await;
    }
    step("feed.persona_status", json!({})).await;
    step("feed.source_suggest", json!({"user": "Ravi"})).await;
    step("feed.persona_merge", json!({"from": "rkumar", "into": "Ravi"})).await;
    let before = (ratings(&store, "rkumar").await, ratings(&store, "Ravi").await);
    step("feed.persona_merge", json!({"from": "rkumar", "into": "nobody"})).await;
    step("feed.persona_merge", json!({"from": "rkumar", "into": "Ravi", "confirm": true})).await;
    step("feed.persona_status", json!({})).await;
    insta::assert_json_snapshot!("readers", all);
    assert_eq!(before, (vec![(1, true), (2, false)], vec![(2, true), (3, true)]));
    // Item 2: both rated it; Ravi's verdict is not older than rkumar's, so it stays.
    assert_eq!(ratings(&store, "Ravi").await, vec![(1, true), (2, true), (3, true)]);
    assert!(store.reader("rkumar").await.unwrap().is_none());
}
