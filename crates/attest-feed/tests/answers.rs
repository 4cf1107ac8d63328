//! Whole answers of the feed tools, as an agent sees them: the feed catalogue in-process
//! over an in-memory archive that the tools themselves fill (`feed.source_add` of two
//! fixture feeds read from disk), one reader, `alice`, and a session's worth of calls
//! in order: reading, rating, explaining, the personas, the sources, `feed.ask`, and
//! bad input. Every call's whole `Answer` (answer, caveat, refs, options, tool_used,
//! data) is snapshotted, so a reviewer sees every word that changed. The fixtures
//! directory becomes `[fixtures]` and times of this run `[time]`; nothing else is
//! hidden. Item dates are the fixtures' own (October 2026), so the windows are the ones
//! a reader sees when nothing new was published lately, which the answers say.

mod common;

use attest_feed::FeedStore;
use common::{call, catalogue, fixtures};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn feed_answers_over_a_session() {
    let store = FeedStore::in_memory().await.unwrap();
    let c = catalogue(store);
    let f = fixtures();
    let calls = [
        // An empty archive, and the first reader.
        ("feed.list", json!({"user": "alice"})),
        ("feed.source_preview", json!({"url": format!("{f}/arxiv-cs.rss")})),
        ("feed.source_add", json!({"url": format!("{f}/arxiv-cs.rss")})),
        ("feed.source_add", json!({"url": format!("{f}/synthesis-letters.rss")})),
        ("feed.source_add", json!({"url": format!("{f}/synthesis-letters.rss")})),
        ("feed.source_add", json!({"url": format!("{f}/feeds.toml")})),
        ("feed.sources", json!({})),
        ("feed.persona_suggest_interests", json!({})),
        (
            "feed.persona_create",
            json!({"user": "alice", "interests": "diffusion models, reinforcement learning, language models"}),
        ),
        ("feed.persona_create", json!({"user": "Alice", "interests": "anything"})),
        // Reading.
        ("feed.list", json!({"user": "alice", "limit": 3})),
        ("feed.search", json!({"user": "alice", "query": "diffusion"})),
        ("feed.search", json!({"user": "alice", "query": "asymmetric catalysis", "limit": 2})),
        ("feed.search", json!({"user": "alice", "query": "quantum gravity of black holes"})),
        ("feed.search", json!({"user": "alice", "query": "diffusion", "since": "last week"})),
        ("feed.read", json!({"user": "alice", "item_id": 1})),
        ("feed.rate", json!({"user": "alice", "item_id": 1, "useful": true})),
        ("feed.rate", json!({"user": "alice", "item_id": 20, "useful": false})),
        ("feed.explain", json!({"user": "alice", "item_id": 2})),
        ("feed.digest", json!({"user": "alice"})),
        ("feed.persona_status", json!({"user": "alice"})),
        ("feed.harvest_engagement", json!({"user": "alice"})),
        ("feed.source_suggest", json!({"user": "alice"})),
        ("feed.research", json!({"query": "diffusion models"})),
        // Questions in words.
        ("feed.ask", json!({"question": "what should I read today?", "user": "alice"})),
        ("feed.ask", json!({"question": "anything new on reinforcement learning?", "user": "alice"})),
        ("feed.ask", json!({"question": "why is this ranked here?", "user": "alice", "item_id": 3})),
        ("feed.ask", json!({"question": "mark this as useful", "user": "alice"})),
        ("feed.ask", json!({"question": "which arm of my sweep won?"})),
        ("feed.ask", json!({"question": "hello"})),
        // Bad input.
        ("feed.read", json!({"user": "alice", "item_id": 99999})),
        ("feed.read", json!({"user": "alice"})),
        ("feed.rate", json!({"user": "alcie", "item_id": 1, "useful": true})),
        ("feed.list", json!({"user": "alice", "limit": 99})),
        ("feed.persona_delete", json!({"user": "alice"})),
        ("feed.source_remove", json!({"url": "https://example.org/never-subscribed.xml"})),
        // Last: a read-only question from a new name creates that reader.
        ("feed.list", json!({"user": "bob", "limit": 2})),
    ];
    let mut all = Vec::new();
    for (tool, args) in calls {
        let answer = call(&c, tool, &args).await;
        let args: Value = serde_json::from_str(&args.to_string().replace(&f, "[fixtures]")).unwrap();
        all.push(json!({ "call": tool, "args": args, "answer": answer }));
    }
    insta::assert_json_snapshot!("feed_answers", all);
}
