//! The feed store: readers, clicks and their provenance, engagement and its harvest,
//! candidates for ranking, subscriptions and what unsubscribing keeps.

use attest_feed::model::{ClickSource, EngagementKind, NewItem};
use attest_feed::store::ClickTally;
use attest_feed::{FeedError, FeedStore};

fn item(guid: &str, title: &str, published: &str, tags: &[&str]) -> NewItem {
    NewItem::build(
        guid,
        title,
        Some(format!("https://example.org/{guid}")),
        format!("About {title}."),
        Some(published.into()),
        tags.iter().map(|t| t.to_string()),
    )
}

async fn with_items() -> (FeedStore, i64, Vec<i64>) {
    let s = FeedStore::in_memory().await.unwrap();
    let feed = s.subscribe("https://example.org/feed.xml", Some("Example")).await.unwrap().feed;
    let items = vec![
        item("a", "Alkene metathesis", "2026-10-01T00:00:00Z", &["Catalysis"]),
        item("b", "Batch size scaling", "2026-10-20T00:00:00Z", &["cs.LG", "cs.DC"]),
        item("c", "Coral bleaching", "2026-10-25T00:00:00Z", &[]),
        item("d", "Directed evolution", "2026-10-30T00:00:00Z", &["Catalysis"]),
    ];
    let out = s.add_items(Some(feed.id), &items, "2026-11-01T00:00:00Z").await.unwrap();
    assert_eq!(out.added, 4);
    (s, feed.id, out.new_ids)
}

#[tokio::test]
async fn reader_names_are_unique_regardless_of_case_and_keep_their_spelling() {
    let s = FeedStore::in_memory().await.unwrap();
    let r = s.create_reader("  Bench-Chemist ", "C–H activation, photoredox").await.unwrap();
    assert_eq!(r.name, "Bench-Chemist");
    assert!(
        matches!(s.create_reader("bench-chemist", "").await, Err(FeedError::ReaderExists(n)) if n == "Bench-Chemist")
    );
    assert!(matches!(s.create_reader("   ", "x").await, Err(FeedError::EmptyName)));
    // Unicode case folding, not only ASCII.
    s.create_reader("Ödön", "").await.unwrap();
    assert!(s.reader("ÖDÖN").await.unwrap().is_some());
    assert!(matches!(s.create_reader("ödön", "").await, Err(FeedError::ReaderExists(_))));
    assert_eq!(s.reader("BENCH-CHEMIST").await.unwrap().unwrap().id, r.id);
    assert!(matches!(s.require_reader("nobody").await, Err(FeedError::UnknownReader(n)) if n == "nobody"));
    let updated = s.update_interests(r.id, " flow chemistry ").await.unwrap();
    assert_eq!(updated.interests, "flow chemistry");
    let names: Vec<String> = s.readers().await.unwrap().into_iter().map(|r| r.name).collect();
    assert_eq!(names, vec!["Bench-Chemist".to_string(), "Ödön".into()]);
}

#[tokio::test]
async fn clicks_overwrite_and_keep_their_source() {
    let (s, _, ids) = with_items().await;
    let r = s.create_reader("ml", "training systems").await.unwrap();
    s.record_click(r.id, ids[0], true, ClickSource::Bootstrap).await.unwrap();
    s.record_click(r.id, ids[1], true, ClickSource::Agent).await.unwrap();
    s.record_click(r.id, ids[0], false, ClickSource::Ui).await.unwrap();
    let c = s.click(r.id, ids[0]).await.unwrap().unwrap();
    assert_eq!((c.useful, c.source), (false, ClickSource::Ui));
    assert_eq!(s.clicks(r.id).await.unwrap().len(), 2);
    let tally = s.click_tally(r.id).await.unwrap();
    assert_eq!(
        tally,
        vec![
            ClickTally { source: ClickSource::Agent, useful: true, n: 1 },
            ClickTally { source: ClickSource::Ui, useful: false, n: 1 },
        ]
    );
    assert!(matches!(s.record_click(r.id, 9999, true, ClickSource::Ui).await, Err(FeedError::UnknownItem(9999))));
    // Bootstrap seeding never overwrites a verdict.
    let n = s.record_clicks_if_absent(r.id, &[(ids[0], true), (ids[2], true)], ClickSource::Bootstrap).await.unwrap();
    assert_eq!(n, 1);
    assert!(!s.click(r.id, ids[0]).await.unwrap().unwrap().useful);
    // The schema itself refuses an unknown source.
    let bad =
        sqlx::query("INSERT INTO clicks (reader_id, item_id, useful, source, at) VALUES ($1, $2, 1, 'guess', 'x')")
            .bind(r.id)
            .bind(ids[3])
            .execute(s.pool())
            .await;
    assert!(bad.is_err());
}

#[tokio::test]
async fn candidates_are_in_the_window_and_not_yet_clicked() {
    let (s, _, ids) = with_items().await;
    let r = s.create_reader("chem", "catalysis").await.unwrap();
    let all = s.items_for_ranking(r.id, None).await.unwrap();
    assert_eq!(all.iter().map(|i| i.id).collect::<Vec<_>>(), vec![ids[3], ids[2], ids[1], ids[0]]);
    assert_eq!(all[0].source.as_deref(), Some("Example"));
    assert_eq!(all[0].tags, vec!["catalysis".to_string()]);
    assert_eq!(all[2].tags, vec!["cs.dc".to_string(), "cs.lg".into()]);
    let recent = s.items_for_ranking(r.id, Some("2026-10-20T00:00:00Z")).await.unwrap();
    assert_eq!(recent.len(), 3);
    s.record_click(r.id, ids[3], true, ClickSource::Ui).await.unwrap();
    let recent = s.items_for_ranking(r.id, Some("2026-10-20T00:00:00Z")).await.unwrap();
    assert_eq!(recent.iter().map(|i| i.id).collect::<Vec<_>>(), vec![ids[2], ids[1]]);
    // Another reader's clicks do not hide items.
    let other = s.create_reader("other", "").await.unwrap();
    assert_eq!(s.items_for_ranking(other.id, None).await.unwrap().len(), 4);
    let clicked = s.clicked_items(r.id).await.unwrap();
    assert_eq!(clicked.len(), 1);
    assert_eq!(clicked[0].0.title, "Directed evolution");
    assert_eq!(s.tag_counts(10).await.unwrap()[0], ("catalysis".to_string(), 2));
}

#[tokio::test]
async fn engagement_is_idempotent_and_harvested_as_weak_positives_once() {
    let (s, _, ids) = with_items().await;
    let r = s.create_reader("reader", "").await.unwrap();
    assert!(s.record_engagement(r.id, ids[0], EngagementKind::Read).await.unwrap());
    assert!(!s.record_engagement(r.id, ids[0], EngagementKind::Read).await.unwrap());
    s.record_engagement(r.id, ids[0], EngagementKind::Explain).await.unwrap();
    s.record_engagement(r.id, ids[1], EngagementKind::Explain).await.unwrap();
    s.record_engagement(r.id, ids[2], EngagementKind::Read).await.unwrap();
    s.record_click(r.id, ids[2], false, ClickSource::Agent).await.unwrap();
    assert!(matches!(s.record_engagement(r.id, 777, EngagementKind::Read).await, Err(FeedError::UnknownItem(777))));
    assert_eq!(s.engagement(r.id).await.unwrap().len(), 4);
    let h = s.harvest_engagement(r.id).await.unwrap();
    assert_eq!((h.candidates, h.recorded, h.already_rated), (3, 2, 1));
    // A person's "not useful" is never turned into a positive.
    let c = s.click(r.id, ids[2]).await.unwrap().unwrap();
    assert_eq!((c.useful, c.source), (false, ClickSource::Agent));
    assert_eq!(s.click(r.id, ids[0]).await.unwrap().unwrap().source, ClickSource::Implicit);
    let again = s.harvest_engagement(r.id).await.unwrap();
    assert_eq!((again.recorded, again.already_rated), (0, 3));
}

#[tokio::test]
async fn reset_and_delete_wipe_a_readers_history() {
    let (s, _, ids) = with_items().await;
    let r = s.create_reader("temp", "x").await.unwrap();
    let keep = s.create_reader("keep", "y").await.unwrap();
    s.record_click(r.id, ids[0], true, ClickSource::Ui).await.unwrap();
    s.record_click(r.id, ids[1], false, ClickSource::Ui).await.unwrap();
    s.record_engagement(r.id, ids[2], EngagementKind::Read).await.unwrap();
    s.record_click(keep.id, ids[0], true, ClickSource::Ui).await.unwrap();
    let w = s.reset_reader(r.id).await.unwrap();
    assert_eq!((w.clicks, w.engagement), (2, 1));
    assert_eq!(s.reader("temp").await.unwrap().unwrap().interests, "x");
    assert_eq!(s.harvest_engagement(r.id).await.unwrap().recorded, 0);
    s.record_click(r.id, ids[3], true, ClickSource::Ui).await.unwrap();
    let w = s.delete_reader(r.id).await.unwrap();
    assert_eq!((w.clicks, w.engagement), (1, 0));
    assert!(s.reader("temp").await.unwrap().is_none());
    assert!(matches!(s.delete_reader(r.id).await, Err(FeedError::UnknownReader(_))));
    assert_eq!(s.clicks(keep.id).await.unwrap().len(), 1);
}

#[tokio::test]
async fn unsubscribing_orphans_items_and_keeps_clicks() {
    let (s, feed_id, ids) = with_items().await;
    let again = s.subscribe("https://EXAMPLE.org/feed.xml", None).await.unwrap();
    assert!(!again.created, "the same address in another spelling is the same subscription");
    assert_eq!(again.feed.item_count, 4);
    let r = s.create_reader("r", "").await.unwrap();
    s.record_click(r.id, ids[1], true, ClickSource::Ui).await.unwrap();
    assert_eq!(s.unsubscribe(feed_id).await.unwrap(), 4);
    assert!(matches!(s.unsubscribe(feed_id).await, Err(FeedError::UnknownFeed(_))));
    let counts = s.counts().await.unwrap();
    assert_eq!((counts.feeds, counts.items, counts.orphaned_items, counts.clicks), (0, 4, 4, 1));
    let it = s.item(ids[1]).await.unwrap().unwrap();
    assert_eq!((it.feed_id, it.source), (None, None));
    // Subscribing again and re-reading the same entries does not duplicate them.
    let feed = s.subscribe("https://example.org/feed.xml", None).await.unwrap().feed;
    let out = s
        .add_items(
            Some(feed.id),
            &[item("b", "Batch size scaling", "2026-10-20T00:00:00Z", &[])],
            "2026-11-02T00:00:00Z",
        )
        .await
        .unwrap();
    assert_eq!((out.added, out.skipped), (0, 1));
    assert_eq!(s.feeds().await.unwrap()[0].last_error, None);
}

#[tokio::test]
async fn a_file_database_survives_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("attest.db");
    let s = FeedStore::new(attest_store::Store::open(&path).await.unwrap());
    s.create_reader("Persistent", "x").await.unwrap();
    s.subscribe("https://example.org/a.xml", None).await.unwrap();
    s.store().clone().close().await;
    let s = FeedStore::new(attest_store::Store::open(&path).await.unwrap());
    assert!(s.reader("persistent").await.unwrap().is_some());
    assert_eq!(s.counts().await.unwrap().feeds, 1);
}
