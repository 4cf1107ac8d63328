//! `attest eval --user NAME` over the store: unknown readers and thin histories are
//! refused with the sentence to print; enough human ratings give figures, and generated
//! labels are left out and counted.

use attest_feed::FeedStore;
use attest_feed::eval::{evaluate_reader, report_lines};
use attest_feed::model::{ClickSource, NewItem};

async fn archive() -> (FeedStore, Vec<i64>) {
    let s = FeedStore::in_memory().await.unwrap();
    let feed = s.subscribe("https://example.org/feed.xml", Some("Example")).await.unwrap().feed;
    let items: Vec<NewItem> = (0..24)
        .map(|i| {
            let (title, summary) = if i % 2 == 0 {
                (format!("Asymmetric catalysis method {i}"), "enantioselective catalysis of coupling reactions")
            } else {
                (format!("Cluster scheduling note {i}"), "GPU cluster scheduling for training jobs")
            };
            NewItem::build(format!("g{i}"), title, None, summary, Some(format!("2026-11-{:02}T00:00:00Z", i + 1)), [])
        })
        .collect();
    let ids = s.add_items(Some(feed.id), &items, "2026-11-30T00:00:00Z").await.unwrap().new_ids;
    (s, ids)
}

#[tokio::test]
async fn unknown_reader_and_thin_history_are_refused() {
    let (s, ids) = archive().await;
    s.create_reader("chem", "asymmetric catalysis").await.unwrap();
    let unknown = evaluate_reader(&s, "nobody").await.unwrap_err();
    let r = s.reader("chem").await.unwrap().unwrap();
    for &id in &ids[..4] {
        s.record_click(r.id, id, true, ClickSource::Ui).await.unwrap();
    }
    let thin = evaluate_reader(&s, "CHEM").await.unwrap_err();
    insta::assert_snapshot!("refusals", format!("{unknown}\n{thin}"));
}

#[tokio::test]
async fn human_ratings_are_evaluated_and_generated_ones_left_out() {
    let (s, ids) = archive().await;
    let r = s.create_reader("chem", "asymmetric catalysis").await.unwrap();
    for (k, &id) in ids.iter().enumerate().take(20) {
        s.record_click(r.id, id, k % 2 == 0, ClickSource::Agent).await.unwrap();
    }
    for &id in &ids[20..] {
        s.record_click(r.id, id, true, ClickSource::Simulated).await.unwrap();
    }
    let e = evaluate_reader(&s, "chem").await.unwrap();
    assert_eq!((e.n_clicks, e.n_useful, e.folds), (20, 10, 5));
    assert_eq!(e.excluded.get("simulated"), Some(&4));
    assert!(e.auc > 0.9 && e.interests_auc > 0.9, "{e:?}");
    let lines = report_lines("chem", &e);
    assert!(lines.iter().any(|l| l == "left out: 4 simulated"), "{lines:?}");
    insta::assert_snapshot!("report", lines.join("\n"));
}
