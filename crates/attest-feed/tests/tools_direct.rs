//! A direct call behaves as a routed one: what `feed.ask` used to decide after routing
//! (the only reader, an item by its url, "which item?", "which feed?", `useful`
//! defaulting to true) is each tool's own job, so `feed.ask` and a direct call agree.
//! And `search_tool` builds `feed.search` alone, for the knowledge surface.

use std::sync::Arc;

use attest_core::{Answer, Catalogue};
use attest_feed::FeedStore;
use attest_feed::model::NewItem;
use attest_feed::tools::{Context, search_tool, tools};
use serde_json::{Value, json};

async fn archive() -> (FeedStore, Vec<i64>) {
    let s = FeedStore::in_memory().await.unwrap();
    let feed = s.subscribe("https://example.org/feed.xml", Some("Example")).await.unwrap().feed;
    let items: Vec<NewItem> = (1..=3)
        .map(|k| {
            NewItem::build(
                format!("guid-{k}"),
                format!("Protein folding study {k}"),
                Some(format!("https://example.org/papers/{k}")),
                "Folding proteins with diffusion models.",
                Some(format!("2026-10-0{k}T00:00:00Z")),
                Vec::<String>::new(),
            )
        })
        .collect();
    s.add_items(Some(feed.id), &items, "2026-10-09T00:00:00Z").await.unwrap();
    let ids = sqlx::query_scalar("SELECT id FROM items ORDER BY id").fetch_all(s.pool()).await.unwrap();
    (s, ids)
}

async fn call(c: &Catalogue, tool: &str, args: Value) -> Answer<Value> {
    c.call(tool, args.as_object().unwrap().clone()).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tools_decide_what_ask_used_to_decide_after_routing() {
    let (store, ids) = archive().await;
    store.create_reader("ana", "protein folding").await.unwrap();
    let c = tools(Arc::new(Context::new(store.clone())));
    // Every refusal below, whole, for the snapshot at the end.
    let mut said = Vec::new();
    let mut keep = |tool: &str, args: &Value, a: &Answer<Value>| {
        said.push(json!({"call": tool, "args": args, "answer": a.answer, "options": a.options}));
    };

    // No user: the only reader, routed or direct.
    let routed = call(&c, "feed.ask", json!({"question": "what should I read today?"})).await;
    assert!(routed.ok, "{}", routed.answer);
    assert_eq!(routed.tool_used.as_deref(), Some("feed.list"));
    let direct = call(&c, "feed.list", json!({"days": 3650})).await;
    assert!(direct.ok, "{}", direct.answer);
    assert_eq!(direct.data.unwrap()["user"], "ana");

    // No item: asked which, routed or direct.
    for (tool, args) in [
        ("feed.ask", json!({"question": "why is this ranked so high?"})),
        ("feed.explain", json!({})),
        ("feed.read", json!({})),
        ("feed.rate", json!({"useful": false})),
    ] {
        let a = call(&c, tool, args.clone()).await;
        assert!(!a.ok, "{tool}: {}", a.answer);
        keep(tool, &args, &a);
    }

    // An item by its url (or GUID); an unknown url is refused.
    let read = call(&c, "feed.read", json!({"url": "https://example.org/papers/2"})).await;
    assert!(read.ok, "{}", read.answer);
    let by_guid = call(&c, "feed.read", json!({"url": "guid-2"})).await;
    assert_eq!(by_guid.data.unwrap()["item_id"], read.data.unwrap()["item_id"]);
    let routed =
        call(&c, "feed.ask", json!({"question": "summarize this", "url": "https://example.org/papers/1"})).await;
    assert_eq!((routed.ok, routed.tool_used.as_deref()), (true, Some("feed.read")), "{}", routed.answer);
    let args = json!({"url": "https://nowhere.invalid/x"});
    let gone = call(&c, "feed.read", args.clone()).await;
    assert!(!gone.ok, "{}", gone.answer);
    keep("feed.read", &args, &gone);

    // An item given beside an empty question is read.
    let given = call(&c, "feed.ask", json!({"question": "", "item_id": ids[0]})).await;
    assert_eq!((given.ok, given.tool_used.as_deref()), (true, Some("feed.read")), "{}", given.answer);

    // `useful` defaults to true.
    let rated = call(&c, "feed.rate", json!({"item_id": ids[0]})).await;
    assert!(rated.ok, "{}", rated.answer);
    assert_eq!(rated.data.unwrap()["useful"], true);

    // No feed address: asked which, routed or direct.
    for (tool, args) in [
        ("feed.source_add", json!({})),
        ("feed.source_preview", json!({"url": "  "})),
        ("feed.ask", json!({"question": "add a feed"})),
    ] {
        let a = call(&c, tool, args.clone()).await;
        assert!(!a.ok, "{tool}: {}", a.answer);
        keep(tool, &args, &a);
    }

    // The persona a question names wins over the ask's user: "create a persona called
    // bob" creates bob, whoever asks.
    let made =
        call(&c, "feed.ask", json!({"question": "create a persona called bob interested in enzymes", "user": "ana"}))
            .await;
    assert!(made.ok, "{}", made.answer);
    assert_eq!(made.data.unwrap()["user"], "bob");

    // Two readers: no user is asked back, naming them.
    for (tool, args) in [("feed.list", json!({})), ("feed.ask", json!({"question": "what should I read today?"}))] {
        let a = call(&c, tool, args.clone()).await;
        assert!(!a.ok, "{tool}: {}", a.answer);
        keep(tool, &args, &a);
    }
    // Routed or direct, the same question back: which item, which feed, which reader.
    insta::assert_json_snapshot!("direct_and_routed_refusals", said);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_tool_is_feed_search_alone() {
    let (store, _) = archive().await;
    store.create_reader("ana", "protein folding").await.unwrap();
    let mut c = Catalogue::new();
    c.push(search_tool(Arc::new(attest_archive::tools::Context::new(store))));
    assert_eq!(c.names(), ["feed.search"]);
    let full = tools(Arc::new(Context::new(FeedStore::in_memory().await.unwrap())));
    let theirs = full.get("feed.search").unwrap();
    assert_eq!(c.tools()[0].spec.description, theirs.spec.description);
    assert_eq!(c.tools()[0].input_schema, theirs.input_schema);
    let a = call(&c, "feed.search", json!({"query": "diffusion"})).await;
    assert!(a.ok, "{}", a.answer);
    assert_eq!(a.data.unwrap()["user"], "ana");
}
