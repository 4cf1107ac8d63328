//! Ingest of the committed corpus (tests/fixtures/feeds) from local files: every
//! format, cleaning, identifiers, dedup rules, failure isolation, seeding and OPML.
//! Error messages are checked by snapshots of the whole message, the corpus directory
//! written `[fixtures]`.

use attest_feed::fetch::Fetcher;
use attest_feed::ingest::{self, FeedSeed};
use attest_feed::model::ClickSource;
use attest_feed::search::{self, SearchQuery};
use attest_feed::{FeedStore, Item, opml};
use attest_testkit::feeds::{FILES, path as corpus};

async fn loaded() -> FeedStore {
    let s = FeedStore::in_memory().await.unwrap();
    for f in FILES {
        s.subscribe(&corpus(f), None).await.unwrap();
    }
    let r = ingest::ingest_all(&s, &Fetcher::default()).await.unwrap();
    assert!(r.failed.is_empty(), "{:?}", r.failed);
    s
}

async fn all_items(s: &FeedStore) -> Vec<Item> {
    let n = s.counts().await.unwrap().items;
    s.items(&(1..=n + 10).collect::<Vec<_>>()).await.unwrap()
}

async fn by_title(s: &FeedStore, prefix: &str) -> Item {
    let items = all_items(s).await;
    items.into_iter().find(|i| i.title.starts_with(prefix)).unwrap_or_else(|| panic!("no item titled {prefix}…"))
}

#[tokio::test]
async fn every_format_is_read_and_cross_feed_duplicates_are_skipped() {
    let s = FeedStore::in_memory().await.unwrap();
    for f in FILES {
        s.subscribe(&corpus(f), None).await.unwrap();
    }
    let r = ingest::ingest_all(&s, &Fetcher::default()).await.unwrap();
    assert_eq!(r.feeds, 6);
    assert!(r.failed.is_empty(), "{:?}", r.failed);
    // 83 entries: a repeated guid in the bulletin, a syndicated copy of a journal
    // abstract, a news story linking the journal DOI and a blog re-post of an arXiv
    // paper are recognised as known.
    assert_eq!((r.added, r.skipped, r.updated), (79, 4, 0), "{r:?}");
    let per_feed: Vec<(String, i64)> =
        s.feeds().await.unwrap().into_iter().map(|f| (f.title.unwrap_or_default(), f.item_count)).collect();
    // Feeds are ingested in address order on the first run (no titles yet), so the
    // wire's copies arrive first and the journal's originals are the ones skipped.
    assert!(per_feed.contains(&("Science Wire".into(), 18)), "{per_feed:?}");
    assert!(per_feed.contains(&("Letters in Synthesis — latest articles".into(), 16)), "{per_feed:?}");
    assert!(per_feed.contains(&("Systems Notes".into(), 10)), "{per_feed:?}");
    assert!(per_feed.contains(&("physics.chem-ph updates on arXiv.org".into(), 12)), "{per_feed:?}");
    assert!(per_feed.contains(&("Lab Bulletin".into(), 5)), "{per_feed:?}");
    let sum: i64 = per_feed.iter().map(|(_, n)| n).sum();
    assert_eq!(sum, 79);
    // The same run again finds nothing new (local files: unchanged mtime = not modified).
    let again = ingest::ingest_all(&s, &Fetcher::default()).await.unwrap();
    assert_eq!((again.added, again.not_modified), (0, 6), "{again:?}");
}

/// The tags the feed itself gave an item (origin `feed`), sorted.
async fn feed_tags(s: &FeedStore, item_id: i64) -> Vec<String> {
    sqlx::query_scalar("SELECT tag FROM item_tags WHERE item_id = $1 AND origin = 'feed' ORDER BY tag")
        .bind(item_id)
        .fetch_all(s.pool())
        .await
        .unwrap()
}

fn feed_tags_contain(t: &str) -> bool {
    ["natural-products", "total-synthesis"].contains(&t)
}

#[tokio::test]
async fn text_is_cleaned_and_identifiers_found() {
    let s = loaded().await;
    // RSS 2.0 journal: double-escaped entity in the title, HTML in CDATA, DOI link.
    let pel = by_title(&s, "A twelve-step total synthesis").await;
    assert_eq!(pel.title, "A twelve-step total synthesis of the marine alkaloid (−)-pelorudine");
    assert_eq!(pel.doi.as_deref(), Some("10.5555/ls.2026.002"));
    assert_eq!(feed_tags(&s, pel.id).await, vec!["natural-products".to_string(), "total-synthesis".into()]);
    // Ingest adds keyphrases from the title and summary beside the feed's own tags.
    let extra: Vec<&String> = pel.tags.iter().filter(|t| !feed_tags_contain(t)).collect();
    assert!(!extra.is_empty() && extra.len() <= ingest::KEYPHRASES_PER_ITEM, "{:?}", pel.tags);
    assert!(pel.tags.contains(&"diels-alder-reaction".to_string()), "{:?}", pel.tags);
    assert!(pel.summary.starts_with("The pentacyclic core") && pel.summary.contains("Diels–Alder"));
    assert!(!pel.summary.contains('<'), "{}", pel.summary);
    // RSS 1.0 arXiv listing: title suffix removed, category from the title, id from the link.
    let tst = by_title(&s, "Transition-state geometries").await;
    assert_eq!(tst.title, "Transition-state geometries from a diffusion model conditioned on reactant and product");
    assert_eq!(tst.arxiv_id.as_deref(), Some("2610.10102"));
    assert_eq!(feed_tags(&s, tst.id).await, vec!["chemical-physics".to_string()], "arXiv codes become field names");
    assert_eq!(tst.published, "2026-10-19T04:00:00Z");
    // New-style arXiv RSS: preamble gone, cross-list categories kept as tags (by name).
    let zb = by_title(&s, "Pipeline-parallel schedules with zero bubbles").await;
    assert!(zb.summary.starts_with("Splitting the backward pass"), "{}", zb.summary);
    assert_eq!(zb.arxiv_id.as_deref(), Some("2610.20212"));
    assert_eq!(feed_tags(&s, zb.id).await, vec!["distributed-computing".to_string(), "machine-learning".into()]);
    let replaced = by_title(&s, "Deterministic GPU training").await;
    assert!(replaced.summary.starts_with("Atomic additions"), "{}", replaced.summary);
    // Atom: a blog post about a paper (linked as `related`) is its own item...
    let notes = by_title(&s, "Reading notes: zero-bubble").await;
    assert_eq!(notes.arxiv_id, None);
    assert_eq!(notes.source.as_deref(), Some("Systems Notes"));
    // ...but a re-post whose own link is the arXiv paper is the paper.
    assert!(all_items(&s).await.iter().all(|i| !i.title.starts_with("Paper of the week")));
    // JSON Feed: tags and HTML content.
    let coral = by_title(&s, "Coral reefs recover").await;
    assert_eq!(feed_tags(&s, coral.id).await, vec!["ecology".to_string(), "oceans".into()]);
    assert!(coral.summary.starts_with("A twenty-year survey"));
    let pet = by_title(&s, "New enzyme breaks down PET").await;
    assert!(pet.summary.contains("50 °C"), "{}", pet.summary);
}

#[tokio::test]
async fn changed_guids_dates_and_text_do_not_resurface_items() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bulletin.rss");
    std::fs::copy(corpus("bulletin-v1.rss"), &path).unwrap();
    let s = FeedStore::in_memory().await.unwrap();
    let feed = s.subscribe(path.to_str().unwrap(), None).await.unwrap().feed;
    let fetcher = Fetcher::default();
    let first = ingest::ingest_feed(&s, &fetcher, &feed).await.unwrap();
    assert_eq!((first.added, first.skipped), (5, 1));

    let reader = s.create_reader("Ada", "flow chemistry").await.unwrap();
    let nmr = by_title(&s, "New NMR autosampler").await;
    assert_eq!(
        nmr.summary,
        "The 400 MHz spectrometer now has a 60-position autosampler; overnight queues open from Monday."
    );
    s.record_click(reader.id, nmr.id, true, ClickSource::Ui).await.unwrap();
    let glovebox = by_title(&s, "Glovebox maintenance").await;

    std::fs::copy(corpus("bulletin-v2.rss"), &path).unwrap();
    let feed = s.feed(feed.id).await.unwrap().unwrap();
    let second = ingest::ingest_feed(&s, &fetcher, &feed).await.unwrap();
    // lb-006 is new; lb-004's text was edited in place; the re-dated lb-002, the
    // re-guided autosampler note and the unchanged entries are known.
    assert_eq!((second.added, second.updated, second.skipped), (1, 1, 4), "{second:?}");
    assert_eq!(s.counts().await.unwrap().items, 6);
    // The re-dated entry keeps its first date, so it does not jump to the top.
    assert_eq!(by_title(&s, "Glovebox maintenance").await.published, glovebox.published);
    // The read item stays read: not a candidate again, no second copy.
    let cands = s.items_for_ranking(reader.id, None).await.unwrap();
    assert!(cands.iter().all(|i| !i.title.starts_with("New NMR autosampler")), "{cands:?}");
    assert!(s.click(reader.id, nmr.id).await.unwrap().is_some());
    // The edited entry shows the new text, and search sees it.
    let quota = by_title(&s, "GPU cluster quota").await;
    assert!(quota.summary.contains("roll over for one month"));
    let hits = search::search(&s, &SearchQuery::text("roll over for one month", 3)).await.unwrap();
    assert_eq!(hits.first().map(|h| h.item_id), Some(quota.id));
}

#[tokio::test]
async fn a_failing_feed_is_reported_and_the_rest_continue() {
    let s = FeedStore::in_memory().await.unwrap();
    s.subscribe(&corpus("malformed.xml"), Some("broken")).await.unwrap();
    s.subscribe(&corpus("not-a-feed.html"), Some("a page")).await.unwrap();
    s.subscribe(&corpus("no-such-file.xml"), Some("missing")).await.unwrap();
    s.subscribe(&corpus("arxiv-cs.rss"), None).await.unwrap();
    let r = ingest::ingest_all(&s, &Fetcher::default()).await.unwrap();
    assert_eq!(r.added, 18);
    let failed: Vec<&str> = r.failed.iter().map(|f| f.url.rsplit('/').next().unwrap()).collect();
    assert_eq!(failed.len(), 3, "{:?}", r.failed);
    for name in ["malformed.xml", "not-a-feed.html", "no-such-file.xml"] {
        assert!(failed.contains(&name), "{name} not reported: {:?}", r.failed);
    }
    assert!(r.failed.iter().all(|f| !f.error.is_empty()));
    // The error is kept on the subscription; the good feed has none.
    for f in s.feeds().await.unwrap() {
        assert_eq!(f.last_error.is_some(), f.item_count == 0, "{f:?}");
    }
}

#[tokio::test]
async fn a_feeds_file_seeds_only_a_new_database() {
    let seeds = ingest::read_feeds_file(std::path::Path::new(&corpus("feeds.toml"))).unwrap();
    assert_eq!(seeds.len(), 6);
    let local: Vec<FeedSeed> = FILES.iter().map(|f| FeedSeed { url: corpus(f), title: None }).collect();
    let s = FeedStore::in_memory().await.unwrap();
    let first = ingest::seed(&s, &local).await.unwrap();
    assert!(first.seeded);
    assert_eq!(first.subscribed, 6);
    // The reader removes one; seeding again (as every ingest run may) does not bring it back.
    let gone = s.feeds().await.unwrap()[0].id;
    s.unsubscribe(gone).await.unwrap();
    let again = ingest::seed(&s, &local).await.unwrap();
    assert!(!again.seeded && again.reason.is_some());
    assert_eq!(s.counts().await.unwrap().feeds, 5);
    // A database that got its feeds another way is not new either.
    let other = FeedStore::in_memory().await.unwrap();
    other.subscribe(&corpus("arxiv-cs.rss"), None).await.unwrap();
    let r = ingest::seed(&other, &local).await.unwrap();
    assert!(!r.seeded);
    assert_eq!(other.counts().await.unwrap().feeds, 1);
    // A missing or broken file says what to do.
    let err = ingest::read_feeds_file(std::path::Path::new("/nonexistent/feeds.toml")).unwrap_err();
    insta::assert_snapshot!("feeds_file_missing", err.to_string());
    assert!(ingest::parse_feeds_toml("[[feeds]]\ntitle = \"no url\"\n").is_err());
}

#[tokio::test]
async fn opml_import_and_export() {
    let text = std::fs::read_to_string(corpus("feeds.opml")).unwrap();
    let s = FeedStore::in_memory().await.unwrap();
    let r = opml::import(&s, &text).await.unwrap();
    assert_eq!((r.subscribed, r.already, r.refused.len()), (6, 0, 0));
    let r = opml::import(&s, &text).await.unwrap();
    assert_eq!((r.subscribed, r.already), (0, 6));
    let out = opml::export(&s).await.unwrap();
    let back = opml::parse(&out).unwrap();
    assert_eq!(back.len(), 6);
    assert!(back.iter().any(|o| o.title.as_deref() == Some("Letters in Synthesis")));
    let bad = r#"<opml version="2.0"><body><outline text="x" xmlUrl="ftp://example.org/f"/></body></opml>"#;
    let r = opml::import(&s, bad).await.unwrap();
    assert_eq!(r.refused.len(), 1);
    insta::assert_snapshot!("opml_refused", r.refused[0].error);
    assert!(opml::import(&s, "<html><body/></html>").await.is_err());
}

#[tokio::test]
async fn preview_reads_without_storing() {
    let p = ingest::preview(&Fetcher::default(), &corpus("science-wire.json"), 3).await.unwrap();
    assert_eq!(p.title.as_deref(), Some("Science Wire"));
    assert_eq!(p.total, 18);
    assert_eq!(p.entries.len(), 3);
    let err = ingest::preview(&Fetcher::default(), &corpus("not-a-feed.html"), 3).await.unwrap_err();
    let dir = corpus("");
    insta::assert_snapshot!("preview_not_a_feed", err.to_string().replace(dir.trim_end_matches('/'), "[fixtures]"));
}
