//! Short replies about an item through `feed.ask`, as an agent relays them: the feed
//! catalogue in-process over the fixture feeds, one reader, and each reply sent with the
//! `item_id` it is about. Every answer is snapshotted whole; afterwards the ratings
//! stored are checked against what the replies said (source `agent`), and a reply
//! about an item that does not exist must leave the ratings as they were.

mod common;

use attest_feed::ClickSource;
use common::call;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_reply_form_rates_opens_or_asks_back() {
    let (store, c, _) = common::subscribed_with_maya().await;
    // (reply, item it is about, the verdict it must record: None = nothing recorded)
    let replies: &[(&str, i64, Option<bool>)] = &[
        ("hmm, let me think", 1, None),
        ("super useful, thanks", 1, Some(true)),
        ("hardly relevant", 2, Some(false)),
        ("outside my field, sorry", 3, Some(false)),
        ("nice catch!", 4, Some(true)),
        ("fewer of these please", 5, Some(false)),
        ("👍", 6, Some(true)),
        ("not sure about this one", 7, None),
        ("go on, say more", 7, None),
        ("not relevant", 99_999, None),
    ];
    let mut all = Vec::new();
    for (reply, item, _) in replies {
        let args = json!({"question": reply, "user": "maya", "item_id": item});
        let answer = call(&c, "feed.ask", &args).await;
        all.push(json!({ "args": args, "answer": answer }));
    }
    insta::assert_json_snapshot!("replies", all);

    let reader = store.reader("maya").await.unwrap().unwrap();
    let clicks = store.clicks(reader.id).await.unwrap();
    let mut stored: Vec<(i64, bool)> = clicks.iter().map(|c| (c.item_id, c.useful)).collect();
    stored.sort();
    let mut expected: Vec<(i64, bool)> = replies.iter().filter_map(|(_, i, v)| v.map(|v| (*i, v))).collect();
    expected.sort();
    assert_eq!(stored, expected);
    assert!(clicks.iter().all(|c| c.source == ClickSource::Agent));
}
