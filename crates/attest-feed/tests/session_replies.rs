//! Replies through `feed.ask` as a session sends them: every verdict form of the issue
//! with an item id, and replies with no item id, which are about the item the session
//! was last shown (per MCP session: `attest_core::session`). Each call runs in the
//! session it names, as the MCP server runs it.

mod common;

use attest_core::Catalogue;
use attest_feed::FeedStore;
use common::call;
use serde_json::{Value, json};

async fn in_session(c: &Catalogue, session: u64, tool: &str, args: Value) -> Value {
    attest_core::session::scope(session, call(c, tool, &args)).await
}

async fn setup() -> (FeedStore, Catalogue, i64) {
    common::subscribed_with_maya().await
}

async fn verdict(store: &FeedStore, reader: i64, item: i64) -> Option<(bool, String)> {
    let clicks = store.clicks(reader).await.unwrap();
    clicks.iter().find(|c| c.item_id == item).map(|c| (c.useful, c.source.as_str().to_string()))
}

/// (reply, the tool that must answer it, the verdict it records: None = none)
const FORMS: &[(&str, &str, Option<bool>)] = &[
    ("useful", "feed.rate", Some(true)),
    ("not useful", "feed.rate", Some(false)),
    ("Useful!", "feed.rate", Some(true)),
    ("very useful, thanks", "feed.rate", Some(true)),
    ("not relevant", "feed.rate", Some(false)),
    ("irrelevant", "feed.rate", Some(false)),
    ("not my area", "feed.rate", Some(false)),
    ("not really my area", "feed.rate", Some(false)),
    ("outside my field", "feed.rate", Some(false)),
    ("skip", "feed.rate", Some(false)),
    ("skip this one", "feed.rate", Some(false)),
    ("good find", "feed.rate", Some(true)),
    ("great find!", "feed.rate", Some(true)),
    ("more like this", "feed.rate", Some(true)),
    ("more like this please", "feed.rate", Some(true)),
    ("less like this", "feed.rate", Some(false)),
    ("fewer like this", "feed.rate", Some(false)),
    ("thumbs up", "feed.rate", Some(true)),
    ("👎", "feed.rate", Some(false)),
    ("tell me more", "feed.read", None),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_verdict_form_of_the_issue_rates_with_an_item_id() {
    let (store, c, reader) = setup().await;
    for (k, (reply, tool, useful)) in FORMS.iter().enumerate() {
        let item = k as i64 + 1;
        let a = call(&c, "feed.ask", &json!({"question": reply, "user": "maya", "item_id": item})).await;
        assert_eq!(a["tool_used"], *tool, "{reply}: {a}");
        assert_eq!(a["ok"], true, "{reply}: {a}");
        let stored = verdict(&store, reader, item).await;
        assert_eq!(stored.as_ref().map(|s| s.0), *useful, "{reply}: {a}");
        if let Some((_, source)) = stored {
            assert_eq!(source, "agent", "ratings through the agent carry source agent");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_verdict_form_rates_the_item_just_shown_with_no_id() {
    let (store, c, reader) = setup().await;
    for (k, (reply, tool, useful)) in FORMS.iter().enumerate() {
        let item = k as i64 + 1;
        let session = 100 + k as u64;
        let read = in_session(&c, session, "feed.read", json!({"user": "maya", "item_id": item})).await;
        assert_eq!(read["ok"], true, "{read}");
        // No user either: the reader it was shown to.
        let a = in_session(&c, session, "feed.ask", json!({"question": reply})).await;
        assert_eq!(a["tool_used"], *tool, "{reply}: {a}");
        assert_eq!(a["data"]["item_id"], item, "{reply} is about the item shown: {a}");
        assert_eq!(verdict(&store, reader, item).await.map(|s| s.0), *useful, "{reply}: {a}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_session_replies_about_its_own_last_item_and_a_list_is_asked_back() {
    let (store, c, reader) = setup().await;
    // Session 1 opens item 3; session 2 lists five items.
    let read = in_session(&c, 1, "feed.read", json!({"user": "maya", "item_id": 3})).await;
    assert_eq!(read["ok"], true, "{read}");
    let list = in_session(&c, 2, "feed.list", json!({"user": "maya", "limit": 5, "days": 3650})).await;
    assert_eq!(list["ok"], true, "{list}");
    let listed: Vec<i64> =
        list["data"]["items"].as_array().unwrap().iter().map(|r| r["item_id"].as_i64().unwrap()).collect();
    assert_eq!(listed.len(), 5);

    // Session 2's "useful" cannot know which of five: asked back, naming them by id.
    let a = in_session(&c, 2, "feed.ask", json!({"question": "useful", "user": "maya"})).await;
    assert_eq!(a["ok"], false, "{a}");
    assert!(
        a["answer"].as_str().unwrap().starts_with("Which item? The last answer (feed.list) showed 5 items: "),
        "{a}"
    );
    for id in &listed {
        assert!(a["answer"].as_str().unwrap().contains(&format!("item {id} '")), "{a}");
    }
    assert_eq!(a["options"], json!(["feed.rate", "feed.read", "feed.explain"]));
    assert!(store.clicks(reader).await.unwrap().is_empty(), "nothing recorded");
    // Naming it settles it ("item N"); afterwards that item is the one in view.
    let named =
        in_session(&c, 2, "feed.ask", json!({"question": format!("item {} useful", listed[1]), "user": "maya"})).await;
    assert_eq!((named["tool_used"].as_str(), named["data"]["item_id"].as_i64()), (Some("feed.rate"), Some(listed[1])));
    let again = in_session(&c, 2, "feed.ask", json!({"question": "actually, not my area", "user": "maya"})).await;
    assert_eq!(
        (again["tool_used"].as_str(), again["data"]["item_id"].as_i64()),
        (Some("feed.rate"), Some(listed[1])),
        "{again}"
    );
    assert_eq!(verdict(&store, reader, listed[1]).await.map(|v| v.0), Some(false));

    // Session 1 still has item 3 in view.
    let more = in_session(&c, 1, "feed.ask", json!({"question": "tell me more", "user": "maya"})).await;
    assert_eq!((more["tool_used"].as_str(), more["data"]["item_id"].as_i64()), (Some("feed.read"), Some(3)), "{more}");
    let good = in_session(&c, 1, "feed.ask", json!({"question": "good find", "user": "maya"})).await;
    assert_eq!((good["tool_used"].as_str(), good["data"]["item_id"].as_i64()), (Some("feed.rate"), Some(3)), "{good}");

    // A session shown nothing is asked what it means, as before; so is an unclear reply.
    let fresh = in_session(&c, 3, "feed.ask", json!({"question": "useful", "user": "maya"})).await;
    assert_eq!(fresh["ok"], false, "{fresh}");
    assert_eq!(fresh["options"], json!(["feed.list", "feed.search", "feed.digest"]), "{fresh}");
    let before = store.clicks(reader).await.unwrap().len();
    for unclear in ["not sure", "hello"] {
        let a = in_session(&c, 1, "feed.ask", json!({"question": unclear, "user": "maya"})).await;
        assert_eq!((a["ok"].as_bool(), a["tool_used"].as_str()), (Some(false), None), "{unclear}: {a}");
    }
    assert_eq!(store.clicks(reader).await.unwrap().len(), before, "nothing recorded");
    // feed.read with no id in a session shown nothing asks which item.
    let which = in_session(&c, 4, "feed.read", json!({"user": "maya"})).await;
    assert_eq!(which["ok"], false, "{which}");
    assert!(which["answer"].as_str().unwrap().starts_with("Which item? Pass item_id"), "{which}");
    // A question that stands alone routes as it would with nothing shown.
    let today = in_session(&c, 1, "feed.ask", json!({"question": "what should I read today?", "user": "maya"})).await;
    assert_eq!(today["tool_used"], "feed.list", "{today}");

    // feed.rate called directly without an id rates the item in view too.
    let direct = in_session(&c, 1, "feed.rate", json!({"user": "maya", "item_id": 4, "useful": true})).await;
    assert_eq!(direct["ok"], true);
    let bare = in_session(&c, 1, "feed.rate", json!({"user": "maya", "useful": false})).await;
    assert_eq!(bare["data"]["item_id"], 4, "{bare}");
    // A reply about an item that does not exist writes nothing.
    let before = store.clicks(reader).await.unwrap().len();
    let gone = in_session(&c, 1, "feed.ask", json!({"question": "useful", "user": "maya", "item_id": 99_999})).await;
    assert_eq!(gone["ok"], false, "{gone}");
    assert_eq!(store.clicks(reader).await.unwrap().len(), before);
}
