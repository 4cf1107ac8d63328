//! `feed.search` whole answers over the fixture feeds, from a case file
//! (`cases/search.toml`): stemming and tags, an exact title against the reader's
//! preference, the relevance floor, kind / source / date filters and paging. Each
//! case's checks run on the answer, and every answer is snapshotted whole.

mod common;

use attest_core::Catalogue;
use attest_feed::search::{self, SearchQuery};
use attest_feed::{FeedStore, kind};
use common::{catalogue, fixtures};
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Deserialize)]
struct Cases {
    case: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    args: serde_json::Map<String, Value>,
    top: Option<String>,
    all_tag: Option<String>,
    closest: Option<bool>,
    kind: Option<String>,
    source: Option<String>,
    /// Every row's authors contain this.
    author: Option<String>,
    /// Every row was published in this year.
    year: Option<String>,
    ok: Option<bool>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_cases() {
    let store = FeedStore::in_memory().await.unwrap();
    let c: Catalogue = catalogue(store.clone());
    let f = fixtures();
    for feed in
        ["synthesis-letters.rss", "arxiv-chem-ph.rdf", "arxiv-cs.rss", "systems-notes.atom", "science-wire.json"]
    {
        let a = c.call("feed.source_add", json!({"url": format!("{f}/{feed}")}).as_object().cloned().unwrap()).await;
        assert!(a.unwrap().ok);
    }
    let interests = "asymmetric catalysis, C-H activation, total synthesis, photoredox chemistry";
    let a =
        c.call("feed.persona_create", json!({"user": "ines", "interests": interests}).as_object().cloned().unwrap());
    assert!(a.await.unwrap().ok);
    let cases: Cases = toml::from_str(include_str!("cases/search.toml")).unwrap();
    let mut all = Vec::new();
    let mut failures = Vec::new();
    for case in &cases.case {
        let mut args = case.args.clone();
        args.insert("user".into(), json!("ines"));
        let answer = c.call("feed.search", args.clone()).await.expect("no internal fault");
        let v = serde_json::to_value(&answer).unwrap();
        let rows: Vec<Value> = v["data"]["items"].as_array().cloned().unwrap_or_default();
        let ids: Vec<i64> = rows.iter().filter_map(|r| r["item_id"].as_i64()).collect();
        let items = store.items(&ids).await.unwrap();
        let mut problems = Vec::new();
        if answer.ok != case.ok.unwrap_or(true) {
            problems.push(format!("ok is {}", answer.ok));
        }
        if let Some(t) = &case.top
            && !items.first().is_some_and(|i| i.title.starts_with(t.as_str()))
        {
            problems.push(format!("first is {:?}", items.first().map(|i| &i.title)));
        }
        if let Some(tag) = &case.all_tag {
            let q = SearchQuery { tag: Some(tag.clone()), limit: 100, ..SearchQuery::default() };
            let tagged: Vec<i64> = search::search(&store, &q).await.unwrap().iter().map(|h| h.item_id).collect();
            let missing: Vec<&i64> = tagged.iter().filter(|id| !ids.contains(id)).collect();
            if tagged.is_empty() || !missing.is_empty() {
                problems.push(format!("tagged {tagged:?}, missing {missing:?}"));
            }
        }
        if let Some(w) = case.closest
            && v["data"]["closest"].as_bool() != Some(w)
        {
            problems.push(format!("closest is {}", v["data"]["closest"]));
        }
        if let Some(k) = &case.kind
            && (items.is_empty() || items.iter().any(|i| kind::of(i).as_str() != k))
        {
            problems.push(format!("kinds {:?}", items.iter().map(|i| kind::of(i).as_str()).collect::<Vec<_>>()));
        }
        if let Some(s) = &case.source
            && (items.is_empty() || items.iter().any(|i| !i.source.as_deref().unwrap_or("").contains(s.as_str())))
        {
            problems.push(format!("sources {:?}", items.iter().map(|i| &i.source).collect::<Vec<_>>()));
        }
        if let Some(w) = &case.author
            && (items.is_empty() || items.iter().any(|i| !i.authors.join(", ").contains(w.as_str())))
        {
            problems.push(format!("authors {:?}", items.iter().map(|i| &i.authors).collect::<Vec<_>>()));
        }
        if let Some(y) = &case.year
            && (items.is_empty() || items.iter().any(|i| !i.published.starts_with(y.as_str())))
        {
            problems.push(format!("dates {:?}", items.iter().map(|i| &i.published).collect::<Vec<_>>()));
        }
        if !problems.is_empty() {
            failures.push(format!("{}: {}", case.name, problems.join("; ")));
        }
        let text = serde_json::to_string(&v).unwrap().replace(&f, "[fixtures]");
        all.push(
            json!({"case": case.name, "args": case.args, "answer": serde_json::from_str::<Value>(&text).unwrap()}),
        );
    }
    // PostgreSQL ranks candidates by ts_rank instead of FTS5's BM25, which reorders
    // near-ties: its answers have their own snapshot (the case checks are the same).
    if store.store().dialect() == attest_store::Dialect::Postgres {
        insta::with_settings!({snapshot_suffix => "postgres"}, {
            insta::assert_json_snapshot!("search_answers", all);
        });
    } else {
        insta::assert_json_snapshot!("search_answers", all);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
