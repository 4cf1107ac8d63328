//! Full-text search over the corpus: BM25 order, stemming, filters, hostile input,
//! and the index following edits and unsubscribes.

use std::path::PathBuf;

use attest_feed::fetch::Fetcher;
use attest_feed::search::{self, SearchQuery};
use attest_feed::{FeedStore, ingest};

fn corpus(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/feeds")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

async fn loaded() -> FeedStore {
    let s = FeedStore::in_memory().await.unwrap();
    for f in ["synthesis-letters.rss", "arxiv-chem-ph.rdf", "arxiv-cs.rss", "systems-notes.atom", "science-wire.json"] {
        s.subscribe(&corpus(f), None).await.unwrap();
    }
    let r = ingest::ingest_all(&s, &Fetcher::default()).await.unwrap();
    assert!(r.failed.is_empty());
    s
}

async fn titles(s: &FeedStore, q: &SearchQuery) -> Vec<String> {
    let hits = search::search(s, q).await.unwrap();
    let ids: Vec<i64> = hits.iter().map(|h| h.item_id).collect();
    s.items(&ids).await.unwrap().into_iter().map(|i| i.title).collect()
}

#[tokio::test]
async fn best_matches_come_first() {
    let s = loaded().await;
    let t = titles(&s, &SearchQuery::text("pipeline bubbles", 3)).await;
    let top2 = &t[..2];
    assert!(top2.iter().any(|x| x.starts_with("Pipeline-parallel schedules with zero bubbles")), "{t:?}");
    assert!(top2.iter().any(|x| x.starts_with("Reading notes: zero-bubble")), "{t:?}");
    // Porter stemming: "hydrogenate" finds "hydrogenation".
    let t = titles(&s, &SearchQuery::text("hydrogenate olefins", 2)).await;
    assert!(t[0].starts_with("Enantioselective hydrogenation"), "{t:?}");
    // Items with every term come before items with some; scores fall within each group.
    let hits = search::search(&s, &SearchQuery::text("key-value cache serving", 5)).await.unwrap();
    assert!(hits.len() > 1 && hits[0].score > 0.0, "{hits:?}");
    assert_eq!(s.item(hits[0].item_id).await.unwrap().unwrap().arxiv_id.as_deref(), Some("2610.20202"));
}

#[tokio::test]
async fn filters_by_tag_and_date() {
    let s = loaded().await;
    let q = SearchQuery {
        text: "catalyst".into(),
        tag: Some("Asymmetric Synthesis".into()),
        since: None,
        limit: 10,
        ..SearchQuery::default()
    };
    let t = titles(&s, &q).await;
    assert!(!t.is_empty());
    let hits = search::search(&s, &q).await.unwrap();
    let ids: Vec<i64> = hits.iter().map(|h| h.item_id).collect();
    for it in s.items(&ids).await.unwrap() {
        assert!(it.tags.contains(&"asymmetric-synthesis".to_string()), "{it:?}");
    }
    let since = "2026-10-28T00:00:00Z";
    let q =
        SearchQuery { text: "model".into(), tag: None, since: Some(since.into()), limit: 20, ..SearchQuery::default() };
    let hits = search::search(&s, &q).await.unwrap();
    assert!(!hits.is_empty());
    let ids: Vec<i64> = hits.iter().map(|h| h.item_id).collect();
    assert!(s.items(&ids).await.unwrap().iter().all(|i| i.published.as_str() >= since));
    // No text: the filters alone, newest first.
    let q =
        SearchQuery { text: "".into(), tag: Some("cs.DC".into()), since: None, limit: 50, ..SearchQuery::default() };
    let hits = search::search(&s, &q).await.unwrap();
    assert_eq!(hits.len(), 10);
    let items = s.items(&hits.iter().map(|h| h.item_id).collect::<Vec<_>>()).await.unwrap();
    assert!(items.windows(2).all(|w| w[0].published >= w[1].published));
}

#[tokio::test]
async fn user_text_cannot_break_the_query() {
    let s = loaded().await;
    for q in [
        "\"unbalanced",
        "NEAR(",
        "title:catalysis",
        "a AND OR NOT b",
        "*",
        "c++ && (x)",
        "-- DROP TABLE items; --",
        "",
        "   ",
        "日本語 の 論文",
        "^caret {braces} [brackets]",
    ] {
        let r = search::search(&s, &SearchQuery::text(q, 5)).await;
        assert!(r.is_ok(), "{q:?}: {r:?}");
    }
    // Field syntax is only words: "title:" is searched for, not obeyed.
    let t = titles(&s, &SearchQuery::text("title:hydrogenation", 5)).await;
    assert!(t.iter().any(|x| x.starts_with("Enantioselective hydrogenation")), "{t:?}");
    assert!(search::search(&s, &SearchQuery::text("zzzunknownword", 5)).await.unwrap().is_empty());
}

#[tokio::test]
async fn the_index_follows_edits_and_outlives_subscriptions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.rss");
    std::fs::copy(corpus("bulletin-v1.rss"), &path).unwrap();
    let s = FeedStore::in_memory().await.unwrap();
    let feed = s.subscribe(path.to_str().unwrap(), None).await.unwrap().feed;
    ingest::ingest_all(&s, &Fetcher::default()).await.unwrap();
    assert!(search::search(&s, &SearchQuery::text("roll over", 5)).await.unwrap().len() == 1);
    std::fs::copy(corpus("bulletin-v2.rss"), &path).unwrap();
    ingest::ingest_all(&s, &Fetcher::default()).await.unwrap();
    // The old wording is gone from the index, the new one is there.
    assert!(search::search(&s, &SearchQuery::text("\"do not roll over\"", 5)).await.unwrap().is_empty());
    assert_eq!(search::search(&s, &SearchQuery::text("\"roll over for one month\"", 5)).await.unwrap().len(), 1);
    s.unsubscribe(feed.id).await.unwrap();
    assert_eq!(search::search(&s, &SearchQuery::text("glovebox", 5)).await.unwrap().len(), 1);
    assert_eq!(search::search(&s, &SearchQuery::text("solvent purification", 5)).await.unwrap().len(), 1);
}
