//! Set-up shared by the tests that drive the feed catalogue in-process over the
//! fixture feeds (`tests/fixtures/feeds`).

#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;

use attest_core::Catalogue;
use attest_feed::FeedStore;
use attest_feed::fetch::{FetchOptions, Fetcher};
use attest_feed::tools::{Context, tools};
use serde_json::Value;

/// The fixture feeds directory, canonical, as the answers name it.
pub fn fixtures() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/feeds")
        .canonicalize()
        .unwrap()
        .display()
        .to_string()
}

/// The feed catalogue over `store`, allowed to read the fixture feeds from disk.
pub fn catalogue(store: FeedStore) -> Catalogue {
    let fetcher = Fetcher::new(FetchOptions { allow_local: true, ..FetchOptions::default() });
    tools(Arc::new(Context::with_fetcher(store, fetcher)))
}

/// The answer as JSON, with the machine-specific parts replaced: the fixtures
/// directory becomes `[fixtures]` and times this run wrote (a fetch, a rating)
/// `[time]`; the fixtures' own dates stay.
pub async fn call(c: &Catalogue, tool: &str, args: &Value) -> Value {
    let answer = c.call(tool, args.as_object().cloned().unwrap_or_default()).await.expect("no internal fault");
    let text = serde_json::to_string(&answer).unwrap().replace(&fixtures(), "[fixtures]");
    let today = attest_feed::model::now_stamp();
    let time = regex::Regex::new(&format!(r"{}T\d\d:\d\d:\d\dZ", regex::escape(&today[..10]))).unwrap();
    serde_json::from_str(&time.replace_all(&text, "[time]")).unwrap()
}

/// An in-memory archive subscribed to two fixture feeds, with the reader `maya`
/// (interested in language models): the store, its catalogue and maya's reader id.
pub async fn subscribed_with_maya() -> (FeedStore, Catalogue, i64) {
    let store = FeedStore::in_memory().await.unwrap();
    let c = catalogue(store.clone());
    let f = fixtures();
    for feed in ["arxiv-cs.rss", "synthesis-letters.rss"] {
        let a = call(&c, "feed.source_add", &serde_json::json!({"url": format!("{f}/{feed}")})).await;
        assert_eq!(a["ok"], true, "{a}");
    }
    let a = call(&c, "feed.persona_create", &serde_json::json!({"user": "maya", "interests": "language models"})).await;
    assert_eq!(a["ok"], true, "{a}");
    let reader = store.reader("maya").await.unwrap().unwrap().id;
    (store, c, reader)
}
