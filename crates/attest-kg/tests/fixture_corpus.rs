//! The concept graph of the project's 79-item reading corpus (`tests/fixtures/feeds`:
//! synthetic chemistry, ML systems, items on both, and off-topic news), ingested as
//! `attest ingest` does (feed by feed, concepts extracted per feed batch). What a
//! reader sees of it is snapshotted whole: how many tags recur, the report's
//! clusters, and the SVG picture's shape. The picture itself is written to
//! `$CARGO_TARGET_TMPDIR/kg-fixture.svg` for a person to look at.

use std::collections::BTreeMap;
use std::path::PathBuf;

use attest_feed::FeedStore;
use attest_feed::fetch::Fetcher;
use attest_feed::ingest;
use attest_kg::{Params, report, tools};
use attest_testkit::feeds::{FILES, path as corpus};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fixture_corpus_has_concepts_that_recur() {
    let s = FeedStore::in_memory().await.unwrap();
    for f in FILES {
        s.subscribe(&corpus(f), None).await.unwrap();
    }
    let r = ingest::ingest_all_with(&s, &Fetcher::default(), 1, |_| {}).await.unwrap();
    assert!(r.failed.is_empty(), "{:?}", r.failed);
    assert_eq!(r.added, 79);

    let tags = s.item_tags().await.unwrap();
    let mut uses: BTreeMap<String, usize> = BTreeMap::new();
    for t in &tags {
        *uses.entry(t.tag.clone()).or_default() += 1;
    }
    let singletons = uses.values().filter(|&&n| n == 1).count();
    assert!(!uses.keys().any(|t| t.contains('.')), "no arXiv code is stored as a tag: {uses:?}");

    let loaded = tools::load(&s, Params::default()).await.unwrap();
    let g = &loaded.graph;
    let mut recurring: Vec<(usize, &String)> = uses.iter().filter(|(_, n)| **n > 1).map(|(t, n)| (*n, t)).collect();
    recurring.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    let summary = format!(
        "{} tags on 79 items, {} distinct, {} on one item only\nconcepts in the graph: {}, edges: {}\nrecurring tags: {}\n\n{}",
        tags.len(),
        uses.len(),
        singletons,
        g.node_count(),
        g.edge_count(),
        recurring.iter().map(|(n, t)| format!("{t} ({n})")).collect::<Vec<_>>().join(", "),
        report::text(g, 3)
    );
    insta::assert_snapshot!("fixture_corpus", summary);
    let svg = report::svg(g);
    std::fs::write(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kg-fixture.svg"), &svg).unwrap();
}
