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

/// One HTTP/1.1 request read from a test server's connection: its request line and its
/// body (by `Content-Length`); `None` when the client went away first.
pub fn read_request(stream: &std::net::TcpStream) -> Option<(String, Vec<u8>)> {
    use std::io::{BufRead, BufReader, Read};
    stream.set_read_timeout(Some(std::time::Duration::from_secs(5))).ok();
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut len = 0usize;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':')
            && k.trim().eq_ignore_ascii_case("content-length")
        {
            len = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0u8; len];
    reader.read_exact(&mut body).ok()?;
    Some((line, body))
}
