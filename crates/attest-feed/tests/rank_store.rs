//! Ranking wired to the store: candidates are the reader's unrated items in the
//! window, training uses the rated ones, and the quality note and explanation follow.

use attest_feed::FeedStore;
use attest_feed::explain::explain;
use attest_feed::model::{ClickSource, NewItem};
use attest_feed::quality::assess;
use attest_feed::rank::{Embeddings, ReaderData};

fn item(guid: &str, title: &str, summary: &str, published: &str, tags: &[&str]) -> NewItem {
    NewItem::build(guid, title, None, summary, Some(published.into()), tags.iter().map(|t| t.to_string()))
}

#[tokio::test]
async fn ranks_unrated_items_in_the_window_and_learns_from_ratings() {
    let s = FeedStore::in_memory().await.unwrap();
    let feed = s.subscribe("https://example.org/feed.xml", Some("Example")).await.unwrap().feed;
    let items = vec![
        item(
            "a",
            "Nickel-catalysed cross-coupling",
            "A new nickel catalyst couples aryl halides.",
            "2026-11-20T00:00:00Z",
            &["catalysis"],
        ),
        item(
            "b",
            "Tensor parallel training at scale",
            "Overlapping communication with compute.",
            "2026-11-21T00:00:00Z",
            &["systems"],
        ),
        item(
            "c",
            "Photoredox amination",
            "Visible-light catalysis forms C-N bonds.",
            "2026-11-22T00:00:00Z",
            &["catalysis"],
        ),
        item(
            "d",
            "Pipeline schedules without bubbles",
            "Training throughput for large models.",
            "2026-11-23T00:00:00Z",
            &["systems"],
        ),
        item("e", "Old catalysis review", "Cross-coupling catalysis history.", "2026-01-01T00:00:00Z", &["catalysis"]),
    ];
    let ids = s.add_items(Some(feed.id), &items, "2026-11-24T00:00:00Z").await.unwrap().new_ids;
    let r = s.create_reader("chem", "catalysis and cross-coupling").await.unwrap();

    // No ratings: interests alone, window excludes the January item.
    let data = ReaderData::load(&s, r.id, Some("2026-11-01T00:00:00Z")).await.unwrap();
    assert_eq!(data.candidates.len(), 4);
    let (model, ranking) = data.rank(&r.interests, 4, &Embeddings::Off);
    let order: Vec<i64> = ranking.items.iter().map(|x| x.id).collect();
    assert!(order[..2].contains(&ids[0]) && order[..2].contains(&ids[2]), "{order:?}");
    let q = assess(&data.clicks, &ranking.terms, None);
    assert_eq!(q.caveat.as_deref(), Some("no ratings yet: ordered by the interests text alone"));
    let e = explain(&data.corpus, &model, ids[0]).unwrap();
    assert!(e.text.contains("catalysis") || e.text.contains("cross"), "{}", e.text);

    // One rating of each kind: rated items leave the list, the classifier turns on.
    s.record_click(r.id, ids[2], true, ClickSource::Agent).await.unwrap();
    s.record_click(r.id, ids[3], false, ClickSource::Ui).await.unwrap();
    let data = ReaderData::load(&s, r.id, Some("2026-11-01T00:00:00Z")).await.unwrap();
    assert_eq!(data.clicks.len(), 2);
    let (_, ranking) = data.rank(&r.interests, 4, &Embeddings::Off);
    let order: Vec<i64> = ranking.items.iter().map(|x| x.id).collect();
    assert_eq!(order, vec![ids[0], ids[1]]);
    assert!(ranking.terms.classifier && ranking.terms.preference);
    let q = assess(&data.clicks, &ranking.terms, None);
    assert_eq!(q.caveat.as_deref(), Some("only 2 ratings: the click classifier is on but weakly trained"));
}

#[tokio::test]
async fn a_rating_in_the_window_keeps_the_index_and_one_outside_does_not() {
    let s = FeedStore::in_memory().await.unwrap();
    let feed = s.subscribe("https://example.org/feed.xml", Some("Example")).await.unwrap().feed;
    let items: Vec<NewItem> = [
        ("a", "Nickel-catalysed cross-coupling", "2026-11-20T00:00:00Z"),
        ("b", "Tensor parallel training at scale", "2026-11-21T00:00:00Z"),
        ("c", "Photoredox amination", "2026-11-22T00:00:00Z"),
        ("d", "Old catalysis review", "2026-01-01T00:00:00Z"),
    ]
    .iter()
    .map(|(g, t, p)| item(g, t, "catalysis and training", p, &["catalysis"]))
    .collect();
    let ids = s.add_items(Some(feed.id), &items, "2026-11-24T00:00:00Z").await.unwrap().new_ids;
    let r = s.create_reader("chem", "catalysis").await.unwrap();
    let since = Some("2026-11-01T00:00:00Z");
    let data = ReaderData::load(&s, r.id, since).await.unwrap();

    // Rated inside the window: same index, the item leaves the candidates; the same as
    // a fresh load, item for item and in the same order.
    s.record_click(r.id, ids[1], true, ClickSource::Ui).await.unwrap();
    let kept = data.reload_ratings(&s, r.id, since).await.unwrap().expect("the index still fits");
    assert!(std::sync::Arc::ptr_eq(&kept.corpus, &data.corpus));
    let fresh = ReaderData::load(&s, r.id, since).await.unwrap();
    assert_eq!(kept.candidates, fresh.candidates);
    assert_eq!(kept.clicks, fresh.clicks);
    assert_eq!(kept.corpus.items(), fresh.corpus.items());

    // Rated outside the window: the index must grow, so a fresh load is needed.
    s.record_click(r.id, ids[3], false, ClickSource::Ui).await.unwrap();
    assert!(kept.reload_ratings(&s, r.id, since).await.unwrap().is_none());
    let grown = ReaderData::load(&s, r.id, since).await.unwrap();
    assert!(grown.corpus.position(ids[3]).is_some());

    // That rating taken away again: the old item must leave the index.
    s.reset_reader(r.id).await.unwrap();
    assert!(grown.reload_ratings(&s, r.id, since).await.unwrap().is_none());
}
