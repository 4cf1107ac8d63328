//! Whole answers of the knowledge tools, as an agent sees them: the knowledge catalogue
//! (`kg.*` and `feed.search`) in-process over a temporary database holding the planted
//! archive (`tests/fixtures/kg/planted.atom`, the one the knowledge binary's MCP test
//! ingests: two clusters joined through tool-use) and one reader, `alice`. Every call's
//! whole `Answer` (answer, caveat, refs, options, tool_used, data) is snapshotted, so a
//! reviewer sees every word that changed. The temporary directory becomes `[root]` and
//! times `[time]`; nothing else is hidden.

use std::path::Path;

use attest_core::{Catalogue, Config, ToolNames};
use attest_feed::{ClickSource, EngagementKind, FeedStore};
use serde_json::{Value, json};

const FIXTURE: &str = include_str!("../../../tests/fixtures/kg/planted.atom");

/// Two more items read together, on concepts no planted item carries: an island that
/// no path reaches.
const ISLAND: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Island</title>
  <id>urn:attest:fixture:island</id>
  <updated>2026-01-20T00:00:00Z</updated>
  <entry>
    <id>urn:attest:fixture:i1</id>
    <title>Sea ice in coupled climate models</title>
    <link href="https://example.org/papers/i1"/>
    <updated>2026-01-18T00:00:00Z</updated>
    <summary>Arctic sea ice extent in coupled climate models.</summary>
    <category term="sea-ice"/>
    <category term="climate-models"/>
  </entry>
  <entry>
    <id>urn:attest:fixture:i2</id>
    <title>Climate model biases in sea ice thickness</title>
    <link href="https://example.org/papers/i2"/>
    <updated>2026-01-19T00:00:00Z</updated>
    <summary>Biases of climate models in simulated sea ice thickness.</summary>
    <category term="Sea Ice"/>
    <category term="climate models"/>
  </entry>
</feed>
"#;

/// The planted archive and the island, with `alice` (the only reader) having rated the RL items and a
/// bridge item, and read one RL item.
async fn planted(dir: &Path) {
    let store = attest_store::Store::open(&dir.join("attest.db")).await.unwrap();
    let feed = FeedStore::new(store.clone());
    let parsed = attest_feed::ingest::parse_feed(FIXTURE.as_bytes(), time::OffsetDateTime::now_utc()).unwrap();
    let out = feed.add_items(None, &parsed.items, &attest_feed::model::now_stamp()).await.unwrap();
    assert_eq!(out.added, 9, "{out:?}");
    let ids = out.new_ids;
    let island = attest_feed::ingest::parse_feed(ISLAND.as_bytes(), time::OffsetDateTime::now_utc()).unwrap();
    let out = feed.add_items(None, &island.items, &attest_feed::model::now_stamp()).await.unwrap();
    assert_eq!(out.added, 2, "{out:?}");
    let alice = feed.create_reader("alice", "reinforcement learning").await.unwrap();
    for i in [2, 3, 6] {
        feed.record_click(alice.id, ids[i], true, ClickSource::Ui).await.unwrap();
    }
    feed.record_engagement(alice.id, ids[2], EngagementKind::Read).await.unwrap();
    store.close().await;
}

async fn catalogue(dir: &Path) -> Catalogue {
    let config = Config {
        db: dir.join("attest.db"),
        root: None,
        tool_names: ToolNames::Dotted,
        expand: false,
        http_token: None,
        metric_directions: None,
    };
    attest_kg::tools::catalogue(&config, None).await.unwrap()
}

/// The answer as JSON, with the machine-specific parts replaced.
async fn call(c: &Catalogue, dir: &Path, tool: &str, args: Value) -> Value {
    let answer = c.call(tool, args.as_object().cloned().unwrap_or_default()).await.expect("no internal fault");
    let text = serde_json::to_string(&answer).unwrap().replace(&dir.display().to_string(), "[root]");
    let time = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?").unwrap();
    serde_json::from_str(&time.replace_all(&text, "[time]")).unwrap()
}

#[tokio::test]
async fn knowledge_answers_on_the_planted_archive() {
    let dir = tempfile::tempdir().unwrap();
    planted(dir.path()).await;
    let c = catalogue(dir.path()).await;
    let calls = [
        ("kg.concepts", json!({})),
        ("kg.concepts", json!({"prefix": "re"})),
        ("kg.concepts", json!({"prefix": "reinforcement lerning"})),
        ("kg.concepts", json!({"limit": 51})),
        ("kg.neighbors", json!({"concept": "Question Answering"})),
        ("kg.neighbors", json!({"concept": "retrieval", "limit": 0})),
        ("kg.neighbors", json!({"concept": "astrophysics of black holes"})),
        ("kg.neighbors", json!({})),
        ("kg.path", json!({"source": "Retrieval", "target": "reinforcement learning"})),
        ("kg.path", json!({"source": "reward modelling", "target": "retrievel"})),
        ("kg.path", json!({"source": "retrieval", "target": "sea ice"})),
        ("kg.path", json!({"source": "retrieval", "target": "quantum gravity"})),
        ("kg.path", json!({"source": "retrieval", "target": "Retrieval"})),
        ("kg.central", json!({})),
        ("kg.central", json!({"metric": "betweenness", "limit": 3})),
        ("kg.central", json!({"metric": "most_read", "limit": 2})),
        ("kg.central", json!({"metric": "pagerank"})),
        ("kg.communities", json!({})),
        ("kg.communities", json!({"min_size": 40})),
        ("feed.search", json!({"query": "reward"})),
        ("kg.ask", json!({"question": "How does retrieval connect to reinforcement learning?"})),
        ("kg.ask", json!({"question": "what is related to tool use?"})),
        ("kg.ask", json!({"question": "what did I read about reward models?"})),
        ("kg.ask", json!({"question": "how do I cite the attention is all you need paper?"})),
        ("kg.ask", json!({"question": "hello"})),
        ("kg.ask", json!({"question": ""})),
        ("kg.ask", json!({"question": "which arm of my sweep won?"})),
        ("kg.ask", json!({"question": "simplify (x+1)^2 - x^2"})),
        ("kg.ask", json!({"question": "x", "tool": "kg.neighbors", "args": {"concept": "tool use", "limit": 2}})),
        ("kg.ask", json!({"question": "x", "tool": "feed.list", "args": {"user": "alice"}})),
        // Last: searching for a reader who does not exist creates that reader.
        ("feed.search", json!({"user": "bob", "query": "reward"})),
        ("kg.ask", json!({"question": "what did I read about reward models?"})),
    ];
    let mut all = Vec::new();
    for (tool, args) in calls {
        all.push(json!({ "call": tool, "args": args, "answer": call(&c, dir.path(), tool, args.clone()).await }));
    }
    insta::assert_json_snapshot!("knowledge_answers", all);
}
