//! Ingest: fetch each subscribed feed, parse it with feed-rs (RSS 0.9x/1.0/2.0, Atom,
//! JSON Feed), clean and dedup its entries, and store each feed's new items in one
//! short transaction. A feed that fails is reported and the rest continue.
//!
//! Seeding: a feeds file (TOML, `[[feeds]] url = "…", title = "…"`) subscribes its
//! feeds only when the database has never had a subscription and was never seeded;
//! after that the database is the truth, so a feed removed by the reader is not
//! re-added by the next ingest, and edits to the file change nothing.

use attest_tags::Vocabulary;
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::clean;
use crate::fetch::{Fetched, Fetcher};
use crate::model::{Feed, NewItem, now_stamp, stamp};
use crate::store::FeedStore;
use crate::{FeedError, Result};

/// A feed parsed into items ready to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedFeed {
    /// The feed's own title.
    pub title: Option<String>,
    /// Its entries, cleaned, in feed order.
    pub items: Vec<NewItem>,
}

/// A feed's failure in one line; a database error in words naming the database (its
/// file, or the server's address) and the fix that fits it (`attest_store::words`).
fn failure_words(store: &FeedStore, e: &FeedError) -> String {
    match e {
        FeedError::Sql(sql) => attest_store::words(sql, store.store().path()),
        other => other.to_string(),
    }
}

/// A feed that could not be ingested, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FailedFeed {
    /// The feed's address.
    pub url: String,
    /// What went wrong, in one line.
    pub error: String,
}

/// What one feed's ingest did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FeedOutcome {
    /// New items.
    pub added: usize,
    /// Known items whose text was refreshed.
    pub updated: usize,
    /// Entries already in the archive, or repeated.
    pub skipped: usize,
    /// The source answered "not modified".
    pub not_modified: bool,
}

/// What an ingest run did, over every feed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IngestReport {
    /// Feeds attempted.
    pub feeds: usize,
    /// New items stored.
    pub added: usize,
    /// Known items whose text was refreshed in place.
    pub updated: usize,
    /// Entries already in the archive, or repeated within a feed.
    pub skipped: usize,
    /// Feeds that answered "not modified".
    pub not_modified: usize,
    /// Feeds that failed, each with its reason; the others were ingested.
    pub failed: Vec<FailedFeed>,
    /// Near-duplicate concepts merged by embeddings ([`ingest_all_embedded`] with an
    /// embedding server); absent without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concepts: Option<attest_archive::concepts::ConceptMerge>,
}

/// One entry of a feeds file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeedSeed {
    /// The feed's address.
    pub url: String,
    /// An optional title.
    #[serde(default)]
    pub title: Option<String>,
}

#[derive(Deserialize)]
struct FeedsFile {
    #[serde(default)]
    feeds: Vec<FeedSeed>,
}

/// What [`seed`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SeedOutcome {
    /// Whether the file was used.
    pub seeded: bool,
    /// Feeds subscribed from it.
    pub subscribed: usize,
    /// Why the file was not used, when it was not.
    pub reason: Option<String>,
}

/// Read a feeds file (TOML `[[feeds]] url, title`).
pub fn read_feeds_file(path: &Path) -> Result<Vec<FeedSeed>> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| FeedError::FeedsFile {
        path: shown.clone(),
        reason: format!("{e} -- pass the feeds file explicitly, or subscribe with feed.source_add"),
    })?;
    parse_feeds_toml(&text).map_err(|reason| FeedError::FeedsFile { path: shown, reason })
}

/// Parse the text of a feeds file.
pub fn parse_feeds_toml(text: &str) -> std::result::Result<Vec<FeedSeed>, String> {
    let f: FeedsFile = toml::from_str(text).map_err(|e| e.message().to_string())?;
    if let Some(bad) = f.feeds.iter().find(|s| s.url.trim().is_empty()) {
        return Err(format!("a [[feeds]] entry has an empty url (title {:?})", bad.title));
    }
    Ok(f.feeds)
}

/// Subscribe the feeds of a feeds file, but only into a new database: one that has
/// no subscription and was never seeded. Otherwise nothing changes and `reason`
/// says why.
pub async fn seed(store: &FeedStore, seeds: &[FeedSeed]) -> Result<SeedOutcome> {
    if let Some(at) = store.meta("seeded_at").await? {
        return Ok(SeedOutcome {
            seeded: false,
            subscribed: 0,
            reason: Some(format!("this database was seeded at {at}; the database, not the file, lists the feeds now")),
        });
    }
    if store.counts().await?.feeds > 0 {
        store.set_meta("seeded_at", &now_stamp()).await?;
        return Ok(SeedOutcome {
            seeded: false,
            subscribed: 0,
            reason: Some("this database already has subscriptions; the feeds file seeds only a new database".into()),
        });
    }
    // One transaction: a kill midway must not leave a partial list that a rerun
    // would take as already seeded (found by the PostgreSQL kill -9 ingest test).
    let feeds: Vec<(&str, Option<&str>)> = seeds.iter().map(|s| (s.url.as_str(), s.title.as_deref())).collect();
    let subscribed = store.subscribe_all_and_mark(&feeds, "seeded_at", &now_stamp()).await?;
    Ok(SeedOutcome { seeded: true, subscribed: usize::try_from(subscribed).unwrap_or(usize::MAX), reason: None })
}

/// The ids feed-rs gives entries that have none: the first link, or a hash of the
/// title, so the same entry gets the same id on every fetch (feed-rs's default falls
/// back to a random UUID).
fn stable_id(links: &[feed_rs::model::Link], title: &Option<feed_rs::model::Text>, _uri: Option<&str>) -> String {
    match links.first() {
        Some(l) => l.href.trim().to_string(),
        None => {
            let t = title.as_ref().map(|t| clean::collapse_ws(&t.content)).unwrap_or_default();
            format!("title:{}", &blake3::hash(t.to_lowercase().as_bytes()).to_hex()[..32])
        }
    }
}

/// Parse feed bytes (any format feed-rs reads) into cleaned items. `now` bounds dates:
/// an entry dated more than a day in the future is dated `now`, so a wrong clock at
/// the source cannot pin it to the top of every list.
pub fn parse_feed(bytes: &[u8], now: OffsetDateTime) -> Result<ParsedFeed> {
    let parser = feed_rs::parser::Builder::new().id_generator(stable_id).build();
    let feed = parser.parse(bytes).map_err(|e| FeedError::NotAFeed(e.to_string()))?;
    let latest = now + time::Duration::days(1);
    let title = feed.title.as_ref().map(|t| clean::strip_html(&t.content)).filter(|t| !t.is_empty());
    let mut items = Vec::with_capacity(feed.entries.len());
    for e in feed.entries {
        let raw_title = e.title.as_ref().map(|t| clean::strip_html(&t.content)).unwrap_or_default();
        let (title, title_arxiv, title_cats) = clean::split_arxiv_title(&raw_title);
        let raw_summary = e
            .summary
            .as_ref()
            .map(|t| t.content.clone())
            .filter(|s| !s.trim().is_empty())
            .or_else(|| e.content.as_ref().and_then(|c| c.body.clone()))
            .unwrap_or_default();
        let flat = clean::strip_html(&raw_summary);
        let (summary, preamble_arxiv) = clean::strip_arxiv_preamble(&flat);
        if title.is_empty() && summary.is_empty() {
            continue;
        }
        // The entry's own links; `related`, `enclosure` and the like point elsewhere
        // and never identify the entry.
        let own: Vec<&str> = e
            .links
            .iter()
            .filter(|l| l.rel.as_deref().is_none_or(|r| r == "alternate" || r == "self"))
            .map(|l| l.href.trim())
            .filter(|h| !h.is_empty())
            .collect();
        let url = own.first().map(|s| s.to_string()).or_else(|| e.links.first().map(|l| l.href.trim().to_string()));
        let url = url.filter(|u| !u.is_empty());
        let published = e.published.or(e.updated).and_then(|d| OffsetDateTime::from_unix_timestamp(d.timestamp()).ok());
        let published = published.map(|d| if d > latest { now } else { d }).map(stamp);
        let tags = e
            .categories
            .iter()
            .map(|c| if c.term.trim().is_empty() { c.label.clone().unwrap_or_default() } else { c.term.clone() })
            .chain(title_cats);
        let mut item = NewItem::build(e.id.trim(), title, url, summary, published, tags);
        item.authors = clean::authors(e.authors.iter().filter_map(|p| p.name.as_deref()));
        if item.doi.is_none() {
            item.doi = own.iter().find_map(|h| clean::find_doi(h)).or_else(|| clean::labelled_doi(&flat));
        }
        if item.arxiv_id.is_none() {
            item.arxiv_id = preamble_arxiv
                .or(title_arxiv)
                .or_else(|| own.iter().find_map(|h| clean::find_arxiv_id(h)))
                .or_else(|| item.doi.as_deref().and_then(clean::arxiv_from_doi));
        }
        items.push(item);
    }
    Ok(ParsedFeed { title, items })
}

/// Concept tags most new items receive at ingest.
pub const KEYPHRASES_PER_ITEM: usize = attest_tags::DEFAULT_TAGS_PER_ITEM;

/// Tag parsed items with concepts from their titles and summaries, as one batch
/// ([`attest_tags::batch_concepts`]): noun phrases named through `vocabulary` (the
/// archive's concepts, from [`attest_tags::vocabulary`]) and the built-in one, kept
/// when known, when they recur across the batch, or when the item leans on them.
/// Feed categories that are arXiv codes become the names of their fields
/// (`cs.lg` → `machine-learning`). Deterministic; a concept the feed already gave as a
/// tag is not repeated. Candidates are found item by item, split across the
/// machine's cores for a large batch.
pub fn add_keyphrases(items: &mut [NewItem], vocabulary: &Vocabulary) {
    for it in items.iter_mut() {
        let mut tags: Vec<String> = it.tags.iter().flat_map(|t| attest_tags::concept_tags(t)).collect();
        tags.sort();
        tags.dedup();
        it.tags = tags;
    }
    let canon = attest_tags::Canon::builtin();
    let find = |part: &[NewItem]| -> Vec<Vec<attest_tags::keyphrase::Candidate>> {
        part.iter().map(|it| attest_tags::keyphrase::candidates(&it.title, &it.summary, vocabulary, canon)).collect()
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    let cands: Vec<Vec<attest_tags::keyphrase::Candidate>> = if threads == 1 || items.len() < 256 {
        find(items)
    } else {
        std::thread::scope(|s| {
            let parts: Vec<_> =
                items.chunks(items.len().div_ceil(threads)).map(|part| s.spawn(move || find(part))).collect();
            parts.into_iter().flat_map(|h| h.join().expect("candidate thread")).collect()
        })
    };
    let chosen =
        attest_tags::select_without_own(&cands, items.iter().map(|it| it.tags.as_slice()), KEYPHRASES_PER_ITEM);
    for (it, tags) in items.iter_mut().zip(chosen) {
        it.keyphrases = tags;
    }
}

/// The vocabulary keyphrases are mapped onto: every stored tag as a concept.
async fn load_vocabulary(store: &FeedStore) -> Result<Arc<Vocabulary>> {
    Ok(Arc::new(attest_tags::vocabulary(store.tag_vocabulary().await?, attest_tags::Canon::builtin())))
}

/// Fetch, parse, tag and store one feed. The fetch, parse and tagging happen outside
/// any transaction; the items and their tags are written in one. The feed's fetch
/// state (validators, time, last error) is updated either way.
pub async fn ingest_feed(store: &FeedStore, fetcher: &Fetcher, feed: &Feed) -> Result<FeedOutcome> {
    let vocabulary = load_vocabulary(store).await?;
    ingest_feed_with(store, fetcher, feed, &vocabulary).await
}

async fn ingest_feed_with(
    store: &FeedStore,
    fetcher: &Fetcher,
    feed: &Feed,
    vocabulary: &Arc<Vocabulary>,
) -> Result<FeedOutcome> {
    match ingest_feed_inner(store, fetcher, feed, vocabulary).await {
        Ok(o) => Ok(o),
        Err(e) => {
            if let Err(db) = store.record_fetch_error(feed.id, &e.to_string()).await {
                tracing::warn!(feed = %feed.url, "could not record the fetch error: {db}");
            }
            Err(e)
        }
    }
}

async fn ingest_feed_inner(
    store: &FeedStore,
    fetcher: &Fetcher,
    feed: &Feed,
    vocabulary: &Arc<Vocabulary>,
) -> Result<FeedOutcome> {
    let got = fetch_feed(fetcher, feed, vocabulary).await?;
    store_feed(store, feed, got).await
}

/// A feed fetched and parsed, not yet stored.
enum Got {
    NotModified,
    Parsed { parsed: ParsedFeed, validators: crate::fetch::Validators, now: OffsetDateTime },
}

/// Fetch and parse one feed (the slow part, run for several feeds at once); nothing
/// is stored.
async fn fetch_feed(fetcher: &Fetcher, feed: &Feed, vocabulary: &Arc<Vocabulary>) -> Result<Got> {
    let validators = crate::fetch::Validators { etag: feed.etag.clone(), last_modified: feed.last_modified.clone() };
    let body = match fetcher.fetch(&feed.url, &validators).await? {
        Fetched::NotModified => return Ok(Got::NotModified),
        Fetched::Body(b) => b,
    };
    let now = OffsetDateTime::now_utc();
    let bytes = body.bytes;
    let vocabulary = Arc::clone(vocabulary);
    let parsed = tokio::task::spawn_blocking(move || {
        parse_feed(&bytes, now).map(|mut parsed| {
            add_keyphrases(&mut parsed.items, &vocabulary);
            parsed
        })
    })
    .await
    .map_err(|e| FeedError::NotAFeed(format!("parser task failed: {e}")))??;
    Ok(Got::Parsed { parsed, validators: body.validators, now })
}

/// Store what [`fetch_feed`] got, in one transaction. Feeds are stored one after the
/// other in subscription order, so which copy of a cross-feed duplicate is kept does
/// not depend on which fetch finished first.
async fn store_feed(store: &FeedStore, feed: &Feed, got: Got) -> Result<FeedOutcome> {
    let (parsed, validators, now) = match got {
        Got::NotModified => {
            store.record_fetch_ok(feed.id, None, None).await?;
            return Ok(FeedOutcome { not_modified: true, ..FeedOutcome::default() });
        }
        Got::Parsed { parsed, validators, now } => (parsed, validators, now),
    };
    let out = store.add_items(Some(feed.id), &parsed.items, &stamp(now)).await?;
    store.record_fetch_ok(feed.id, Some(&validators), parsed.title.as_deref()).await?;
    Ok(FeedOutcome { added: out.added, updated: out.updated, skipped: out.skipped, not_modified: false })
}

/// Ingest every subscribed feed, a few at a time. A feed that fails (unreachable, too
/// large, too slow, not a feed) is listed in `failed` and the others continue; only a
/// database failure that prevents listing the feeds ends the run with an error.
pub async fn ingest_all(store: &FeedStore, fetcher: &Fetcher) -> Result<IngestReport> {
    ingest_all_with(store, fetcher, DEFAULT_CONCURRENCY, |_| {}).await
}

/// How many feeds [`ingest_all`] fetches at once.
pub const DEFAULT_CONCURRENCY: usize = 8;

/// One feed's result, as [`ingest_all_with`] reports it when the feed is done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedDone {
    /// The feed.
    pub feed: Feed,
    /// What it added, or why it failed.
    pub outcome: std::result::Result<FeedOutcome, String>,
}

/// [`ingest_all`] fetching at most `concurrency` feeds at once; each feed's items are
/// stored in its own transaction, in subscription order (so the result is the same as
/// one feed after the other), and `done` is called as each feed is stored.
pub async fn ingest_all_with(
    store: &FeedStore,
    fetcher: &Fetcher,
    concurrency: usize,
    done: impl FnMut(&FeedDone),
) -> Result<IngestReport> {
    ingest_all_embedded(store, fetcher, concurrency, None, done).await
}

/// [`ingest_all_with`], then, with an embedding server (`EMBED_BASE_URL`), near-duplicate
/// concepts merged onto one name ([`attest_archive::concepts::merge_near_duplicates`]:
/// each concept name embedded once and stored). The server failing, or the merge
/// failing at all, never fails the ingest: `concepts.caveat` says what happened.
pub async fn ingest_all_embedded(
    store: &FeedStore,
    fetcher: &Fetcher,
    concurrency: usize,
    embed: Option<&crate::embed::EmbedService>,
    mut done: impl FnMut(&FeedDone),
) -> Result<IngestReport> {
    use futures::StreamExt as _;
    let feeds = store.feeds().await?;
    let vocabulary = load_vocabulary(store).await?;
    let before = crate::tagging::last_item_id(store).await?;
    let mut fed = 0usize;
    let mut report = IngestReport { feeds: feeds.len(), ..IngestReport::default() };
    let order: Vec<String> = feeds.iter().map(|f| f.url.clone()).collect();
    let mut running = futures::stream::iter(feeds)
        .map(|feed| {
            let vocabulary = &vocabulary;
            async move {
                let got = fetch_feed(fetcher, &feed, vocabulary).await;
                (feed, got)
            }
        })
        .buffered(concurrency.max(1));
    while let Some((feed, got)) = running.next().await {
        let outcome = match got {
            Ok(got) => store_feed(store, &feed, got).await,
            Err(e) => Err(e),
        };
        let outcome = outcome.map_err(|e| failure_words(store, &e));
        if let Err(e) = &outcome
            && let Err(db) = store.record_fetch_error(feed.id, e).await
        {
            tracing::warn!(feed = %feed.url, "could not record the fetch error: {db}");
        }
        match &outcome {
            Ok(o) => {
                fed += (o.added > 0) as usize;
                report.added += o.added;
                report.updated += o.updated;
                report.skipped += o.skipped;
                report.not_modified += o.not_modified as usize;
            }
            Err(e) => {
                tracing::warn!(feed = %feed.url, "feed failed: {e}");
                report.failed.push(FailedFeed { url: feed.url.clone(), error: e.clone() });
            }
        }
        done(&FeedDone { feed, outcome });
    }
    // Failures in subscription order, whatever order they finished in.
    report.failed.sort_by_key(|f| order.iter().position(|u| *u == f.url));
    // Each feed's items were tagged as a batch; items of several feeds are tagged
    // again together, so a concept two feeds share recurs.
    if fed >= 2 {
        crate::tagging::retag_since(store, before, KEYPHRASES_PER_ITEM).await?;
    }
    if let Some(service) = embed {
        report.concepts = Some(match attest_archive::concepts::merge_near_duplicates(store, service).await {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!("concepts not merged: {e}");
                attest_archive::concepts::ConceptMerge {
                    model: service.key().to_string(),
                    caveat: Some(format!(
                        "concepts were not merged this time ({e}); the tags stand as words chose them"
                    )),
                    ..Default::default()
                }
            }
        });
    }
    Ok(report)
}

/// A look at a feed without subscribing: its title and its first entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Preview {
    /// The feed's own title.
    pub title: Option<String>,
    /// How many entries it carries.
    pub total: usize,
    /// The first entries as (title, url).
    pub entries: Vec<(String, Option<String>)>,
}

/// Fetch and parse `url` without storing anything: the check `feed.source_add` and
/// `feed.source_preview` need ("is this a feed at all?").
pub async fn preview(fetcher: &Fetcher, url: &str, limit: usize) -> Result<Preview> {
    let bytes = match fetcher.fetch(url, &Default::default()).await? {
        Fetched::Body(b) => b.bytes,
        Fetched::NotModified => Vec::new(),
    };
    let parsed = tokio::task::spawn_blocking(move || parse_feed(&bytes, OffsetDateTime::now_utc()))
        .await
        .map_err(|e| FeedError::NotAFeed(format!("parser task failed: {e}")))??;
    Ok(Preview {
        title: parsed.title,
        total: parsed.items.len(),
        entries: parsed.items.into_iter().take(limit).map(|i| (i.title, i.url)).collect(),
    })
}
