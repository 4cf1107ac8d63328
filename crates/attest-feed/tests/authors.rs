//! Item authors: read from every feed format feed-rs parses (RSS `author` and
//! `dc:creator`, RSS 1.0 `dc:creator`, Atom `author`, JSON Feed `authors`), cleaned by
//! `clean::authors`, stored (`items.authors`, migration 0007), and kept for an item
//! stored before the feed named them.

use attest_feed::FeedStore;
use attest_feed::ingest::parse_feed;
use time::OffsetDateTime;

const RSS: &str = r#"<?xml version="1.0"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>T</title>
<item><title>One</title><guid>g1</guid><description>a</description><author>editor@example.org (Jane Doe)</author></item>
<item><title>Two</title><guid>g2</guid><description>b</description><dc:creator>Ada Lovelace, Charles Babbage and Mary Somerville</dc:creator></item>
<item><title>Three</title><guid>g3</guid><description>c</description><dc:creator>Curie, Marie</dc:creator><dc:creator>Curie, Pierre</dc:creator></item>
<item><title>Four</title><guid>g4</guid><description>d</description><author>noreply@example.org</author></item>
</channel></rss>"#;

const RDF: &str = r#"<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel rdf:about="http://x.example/"><title>R</title><link>http://x.example/</link><description>r</description></channel>
<item rdf:about="http://x.example/1"><title>Five</title><link>http://x.example/1</link><description>e</description><dc:creator>Li Wei, Ana Souza et al.</dc:creator></item>
</rdf:RDF>"#;

const ATOM: &str = r#"<?xml version="1.0"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>A</title><id>urn:a</id><updated>2026-10-01T00:00:00Z</updated>
<entry><title>Six</title><id>urn:6</id><updated>2026-10-01T00:00:00Z</updated><summary>f</summary>
<author><name>Grace Hopper</name></author><author><name>Katherine Johnson</name><email>kj@example.org</email></author></entry>
</feed>"#;

const JSON: &str = r#"{"version": "https://jsonfeed.org/version/1.1", "title": "J", "items": [
 {"id": "7", "title": "Seven", "content_text": "g", "authors": [{"name": "Rosalind Franklin"}, {"url": "https://example.org"}]}
]}"#;

fn parsed(text: &str) -> Vec<(String, Vec<String>)> {
    let now = OffsetDateTime::now_utc();
    parse_feed(text.as_bytes(), now).unwrap().items.into_iter().map(|i| (i.title, i.authors)).collect()
}

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn every_format_gives_its_authors_in_order() {
    assert_eq!(
        parsed(RSS),
        vec![
            ("One".into(), names(&["Jane Doe"])),
            ("Two".into(), names(&["Ada Lovelace", "Charles Babbage", "Mary Somerville"])),
            ("Three".into(), names(&["Marie Curie", "Pierre Curie"])),
            ("Four".into(), names(&[])),
        ]
    );
    assert_eq!(parsed(RDF), vec![("Five".into(), names(&["Li Wei", "Ana Souza"]))]);
    assert_eq!(parsed(ATOM), vec![("Six".into(), names(&["Grace Hopper", "Katherine Johnson"]))]);
    assert_eq!(parsed(JSON), vec![("Seven".into(), names(&["Rosalind Franklin"]))]);
}

#[tokio::test]
async fn authors_are_stored_and_filled_in_for_an_item_stored_without_them() {
    let store = FeedStore::in_memory().await.unwrap();
    let now = attest_feed::model::now_stamp();
    let feed = store.subscribe("http://feeds.example/rss", None).await.unwrap().feed.id;
    let mut items = parse_feed(RSS.as_bytes(), OffsetDateTime::now_utc()).unwrap().items;
    let authors: Vec<Vec<String>> = items.iter().map(|i| i.authors.clone()).collect();
    // Stored once without authors (as before migration 0007), then seen again.
    let bare: Vec<_> = items
        .iter()
        .cloned()
        .map(|mut i| {
            i.authors.clear();
            i
        })
        .collect();
    let first = store.add_items(Some(feed), &bare, &now).await.unwrap();
    let again = store.add_items(Some(feed), &items, &now).await.unwrap();
    assert_eq!((first.added, again.added, again.skipped), (4, 0, 4));
    let stored = store.items(&first.new_ids).await.unwrap();
    assert_eq!(stored.iter().map(|i| i.authors.clone()).collect::<Vec<_>>(), authors);
    // An edited entry keeps its authors when the new version names none.
    items[1].summary = "edited".into();
    items[1].content_hash = attest_feed::clean::content_hash(&items[1].title, &items[1].summary);
    items[1].authors.clear();
    let edited = store.add_items(Some(feed), &items[1..2], &now).await.unwrap();
    assert_eq!(edited.updated, 1);
    let it = store.item(first.new_ids[1]).await.unwrap().unwrap();
    assert_eq!(it.authors, authors[1]);
}
