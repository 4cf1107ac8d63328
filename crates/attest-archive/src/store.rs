//! The feed store: every read and write of the feed tables except full-text search
//! (which is in [`crate::search`]), over one [`attest_store::Store`].
//!
//! Queries are portable SQL with `$N` placeholders, checked at run time; times are
//! [`crate::model::stamp`] strings written by the code. Writes that must be all or
//! nothing (an ingest batch, deleting or resetting a reader, unsubscribing) each run in
//! one transaction.

use std::collections::{HashMap, HashSet};

use attest_store::{Db, DbPool, DbRow, Store};
use serde::{Deserialize, Serialize};
use sqlx::{Row, Transaction};

use crate::address::{self as fetch, Validators};
use crate::model::{Click, ClickSource, Counts, Engagement, EngagementKind, Feed, Item, NewItem, Reader, now_stamp};
use crate::{FeedError, Result};

/// Longest `IN (…)` list sent in one statement (SQLite allows 32,766 parameters;
/// PostgreSQL 65,535; this stays far below both).
const CHUNK: usize = 500;

/// Rows per multi-row item insert (eleven parameters each) on PostgreSQL.
const INSERT_ROWS: usize = 250;

/// Rows per multi-row item insert on SQLite, where few statements matter: each one that
/// writes the full-text index flushes FTS5's pending terms as a new segment (at its
/// statement savepoint), which later merges cost. 2,500 rows are 27,500 plain `?`
/// parameters, under SQLite's limit of 32,766; a 5,000-item batch is two statements.
const SQLITE_INSERT_ROWS: usize = 2_500;

/// Rows per multi-row tag insert (three parameters each).
const TAG_ROWS: usize = 500;

const ITEM_COLUMNS: &str = "i.id, i.feed_id, f.title AS source, i.guid, i.title, i.url, i.summary, i.published, \
     i.first_seen, i.content_hash, i.doi, i.arxiv_id, i.authors";

const FEED_COLUMNS: &str = "f.id, f.url, f.title, f.etag, f.last_modified, f.last_fetched, f.last_error, f.added_at, \
     (SELECT count(*) FROM items i WHERE i.feed_id = f.id) AS item_count";

/// The feed data of one database.
#[derive(Debug, Clone)]
pub struct FeedStore {
    store: Store,
}

/// The result of [`FeedStore::subscribe`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Subscription {
    /// The subscription (new or existing).
    pub feed: Feed,
    /// False when the address was already subscribed.
    pub created: bool,
}

/// New items in one batch after which PostgreSQL's planner statistics are refreshed.
const ANALYZE_AFTER: usize = 1_000;

/// What [`FeedStore::add_items`] did with a batch.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AddOutcome {
    /// New items stored.
    pub added: usize,
    /// Known items (same feed and entry id) whose text changed and was refreshed in
    /// place; their ids, dates and clicks are unchanged.
    pub updated: usize,
    /// Entries recognised as items already in the archive (or repeated in the batch).
    pub skipped: usize,
    /// Ids of the new items, in batch order.
    pub new_ids: Vec<i64>,
}

/// Click and engagement rows removed for a reader.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Wiped {
    /// Clicks removed.
    pub clicks: u64,
    /// Engagement records removed.
    pub engagement: u64,
}

/// What merging two readers did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Merged {
    /// Ratings moved to the reader kept (items only the merged name had rated).
    pub moved: u64,
    /// Ratings of the reader kept replaced by a later verdict of the merged name.
    pub replaced: u64,
}

/// Clicks of one reader with one verdict from one source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClickTally {
    /// Where the verdicts came from.
    pub source: ClickSource,
    /// The verdict.
    pub useful: bool,
    /// How many.
    pub n: i64,
}

/// What [`FeedStore::harvest_engagement`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Harvest {
    /// Items the reader engaged with.
    pub candidates: u64,
    /// Weak positives recorded (source `implicit`).
    pub recorded: u64,
    /// Engaged items already rated, left as they were.
    pub already_rated: u64,
}

fn placeholders(start: usize, n: usize) -> String {
    (start..start + n).map(|k| format!("${k}")).collect::<Vec<_>>().join(", ")
}

/// Parameter `k` (1-based) of a bulk statement: `$k` on PostgreSQL, a plain `?` on SQLite
/// (bound in order). sqlx asks SQLite the name of every parameter it binds, and SQLite
/// finds a numbered one by walking its list of names, so a statement with n `$k`
/// parameters costs O(n²) to bind; plain `?`s have no names.
fn mark(dialect: attest_store::Dialect, k: usize) -> String {
    match dialect {
        attest_store::Dialect::Sqlite => "?".to_string(),
        attest_store::Dialect::Postgres => format!("${k}"),
    }
}

fn item_from_row(r: &DbRow) -> Item {
    Item {
        id: r.get("id"),
        feed_id: r.get("feed_id"),
        source: r.get("source"),
        guid: r.get("guid"),
        title: r.get("title"),
        url: r.get("url"),
        summary: r.get("summary"),
        published: r.get("published"),
        first_seen: r.get("first_seen"),
        content_hash: r.get("content_hash"),
        doi: r.get("doi"),
        arxiv_id: r.get("arxiv_id"),
        tags: Vec::new(),
        authors: serde_json::from_str(r.get::<String, _>("authors").as_str()).unwrap_or_default(),
    }
}

fn feed_from_row(r: &DbRow) -> Feed {
    Feed {
        id: r.get("id"),
        url: r.get("url"),
        title: r.get("title"),
        etag: r.get("etag"),
        last_modified: r.get("last_modified"),
        last_fetched: r.get("last_fetched"),
        last_error: r.get("last_error"),
        added_at: r.get("added_at"),
        item_count: r.get("item_count"),
    }
}

fn reader_from_row(r: &DbRow) -> Reader {
    Reader { id: r.get("id"), name: r.get("name"), interests: r.get("interests"), created_at: r.get("created_at") }
}

fn click_from_row(r: &DbRow) -> Click {
    let source: String = r.get("source");
    Click {
        reader_id: r.get("reader_id"),
        item_id: r.get("item_id"),
        useful: r.get::<i64, _>("useful") != 0,
        source: source.parse().unwrap_or(ClickSource::Ui),
        at: r.get("at"),
    }
}

/// The case-folded key reader names are unique by.
pub fn name_key(name: &str) -> String {
    name.trim().to_lowercase()
}

/// Normalise a feed address for storage: trimmed; web addresses in the url crate's
/// canonical form (lowercase host, explicit path). Refuses schemes other than http(s)
/// and file.
pub fn normalise_url(url: &str) -> Result<String> {
    let t = url.trim();
    if t.is_empty() {
        return Err(FeedError::BadUrl("a feed address must not be empty".into()));
    }
    match fetch::locate(t, true)? {
        fetch::Location::Web(u) => Ok(u),
        fetch::Location::File(_) => Ok(t.to_string()),
    }
}

impl FeedStore {
    /// The feed data in `store`.
    pub fn new(store: Store) -> FeedStore {
        FeedStore { store }
    }

    /// A fresh private in-memory database (tests, throwaway runs).
    pub async fn in_memory() -> Result<FeedStore> {
        let store = Store::open_in_memory().await.map_err(|e| match e {
            attest_store::StoreError::Sql(s) => FeedError::Sql(s),
            other => FeedError::Sql(sqlx::Error::Protocol(other.to_string())),
        })?;
        Ok(FeedStore { store })
    }

    /// The underlying database.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The pool queries run on.
    pub fn pool(&self) -> &DbPool {
        self.store.pool()
    }

    /// Begin a write transaction that takes the archive's write lock at once, so a
    /// concurrent writer (an ingest, a reader being merged) waits instead of failing
    /// half-way through or interleaving ([`Store::begin_write`]).
    pub async fn write_tx(&self) -> Result<Transaction<'static, Db>> {
        Ok(self.store.begin_write("archive").await?)
    }

    // ---- meta -------------------------------------------------------------------

    /// A value from the feed's key/value table.
    pub async fn meta(&self, key: &str) -> Result<Option<String>> {
        Ok(sqlx::query_scalar("SELECT value FROM feed_meta WHERE key = $1")
            .bind(key)
            .fetch_optional(self.pool())
            .await?)
    }

    /// Set a value in the feed's key/value table.
    pub async fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        sqlx::query(
            "INSERT INTO feed_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        )
        .bind(key)
        .bind(value)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    // ---- subscriptions ----------------------------------------------------------

    /// Subscribe to `url` (http(s), `file://` or a local path), with an optional
    /// title. Registers only: nothing is fetched. Subscribing again to the same
    /// address returns the existing subscription with `created: false`.
    pub async fn subscribe(&self, url: &str, title: Option<&str>) -> Result<Subscription> {
        let url = normalise_url(url)?;
        let title = title.map(str::trim).filter(|t| !t.is_empty());
        let res = sqlx::query(SUBSCRIBE).bind(&url).bind(title).bind(now_stamp()).execute(self.pool()).await?;
        let feed = self.feed_by_url(&url).await?.ok_or_else(|| FeedError::BadUrl(format!("'{url}' vanished")))?;
        Ok(Subscription { feed, created: res.rows_affected() == 1 })
    }

    /// Seed a new database: subscribe every `(url, title)` and set the meta `key` to
    /// `value`, in one write transaction, so a process killed midway leaves either no
    /// subscription and no mark or all of them (a rerun would otherwise see a partial
    /// list, take the database as seeded and never add the rest). Every address is
    /// checked before anything is written. Returns how many subscriptions are new.
    pub async fn subscribe_all_and_mark(&self, feeds: &[(&str, Option<&str>)], key: &str, value: &str) -> Result<u64> {
        let feeds = feeds
            .iter()
            .map(|(url, title)| Ok((normalise_url(url)?, title.map(str::trim).filter(|t| !t.is_empty()))))
            .collect::<Result<Vec<_>>>()?;
        let mut tx = self.write_tx().await?;
        let mut created = 0;
        for (url, title) in &feeds {
            created += sqlx::query(SUBSCRIBE)
                .bind(url)
                .bind(*title)
                .bind(now_stamp())
                .execute(&mut *tx)
                .await?
                .rows_affected();
        }
        sqlx::query(
            "INSERT INTO feed_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        )
        .bind(key)
        .bind(value)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(created)
    }

    /// Unsubscribe. The feed's items stay in the archive without a feed (and keep
    /// their clicks); returns how many were orphaned.
    pub async fn unsubscribe(&self, feed_id: i64) -> Result<u64> {
        let mut tx = self.write_tx().await?;
        let found: Option<i64> =
            sqlx::query_scalar("SELECT id FROM feeds WHERE id = $1").bind(feed_id).fetch_optional(&mut *tx).await?;
        if found.is_none() {
            return Err(FeedError::UnknownFeed(feed_id));
        }
        let orphaned =
            sqlx::query("UPDATE items SET feed_id = NULL WHERE feed_id = $1").bind(feed_id).execute(&mut *tx).await?;
        sqlx::query("DELETE FROM feeds WHERE id = $1").bind(feed_id).execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(orphaned.rows_affected())
    }

    /// Every subscription with its item count, ordered by title (then address).
    pub async fn feeds(&self) -> Result<Vec<Feed>> {
        let sql = format!("SELECT {FEED_COLUMNS} FROM feeds f ORDER BY lower(coalesce(f.title, f.url)), f.url");
        Ok(sqlx::query(&sql).fetch_all(self.pool()).await?.iter().map(feed_from_row).collect())
    }

    /// One subscription by id.
    pub async fn feed(&self, feed_id: i64) -> Result<Option<Feed>> {
        let sql = format!("SELECT {FEED_COLUMNS} FROM feeds f WHERE f.id = $1");
        Ok(sqlx::query(&sql).bind(feed_id).fetch_optional(self.pool()).await?.as_ref().map(feed_from_row))
    }

    /// One subscription by address (normalised as [`FeedStore::subscribe`] does).
    pub async fn feed_by_url(&self, url: &str) -> Result<Option<Feed>> {
        let url = normalise_url(url)?;
        let sql = format!("SELECT {FEED_COLUMNS} FROM feeds f WHERE f.url = $1");
        Ok(sqlx::query(&sql).bind(url).fetch_optional(self.pool()).await?.as_ref().map(feed_from_row))
    }

    /// Record a successful fetch: the time, the validators to send next time (kept
    /// when `validators` is `None`, i.e. "not modified"), the feed's own title if the
    /// subscription has none, and no error.
    pub async fn record_fetch_ok(
        &self,
        feed_id: i64,
        validators: Option<&Validators>,
        feed_title: Option<&str>,
    ) -> Result<()> {
        let now = now_stamp();
        match validators {
            Some(v) => {
                sqlx::query(
                    "UPDATE feeds SET last_fetched = $1, last_error = NULL, etag = $2, last_modified = $3, \
                     title = coalesce(title, $4) WHERE id = $5",
                )
                .bind(&now)
                .bind(&v.etag)
                .bind(&v.last_modified)
                .bind(feed_title)
                .bind(feed_id)
                .execute(self.pool())
                .await?
            }
            None => {
                sqlx::query("UPDATE feeds SET last_fetched = $1, last_error = NULL WHERE id = $2")
                    .bind(&now)
                    .bind(feed_id)
                    .execute(self.pool())
                    .await?
            }
        };
        Ok(())
    }

    /// Record a failed fetch or parse. The last successful fetch time is kept.
    pub async fn record_fetch_error(&self, feed_id: i64, error: &str) -> Result<()> {
        let msg: String = error.chars().take(500).collect();
        sqlx::query("UPDATE feeds SET last_error = $1 WHERE id = $2")
            .bind(msg)
            .bind(feed_id)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    // ---- items ------------------------------------------------------------------

    /// Store a batch of items for one feed (or for none) in one transaction, with
    /// dedup:
    ///
    /// 1. an entry repeating an entry id, text, DOI or arXiv id met earlier in the
    ///    same batch is skipped (the first wins);
    /// 2. an entry whose (feed, entry id) is known is skipped, unless its text
    ///    changed, in which case the stored text is refreshed in place (`updated`;
    ///    id, date, clicks and engagement are kept, so it does not resurface);
    /// 3. an entry whose content hash, DOI or arXiv id matches any stored item, in
    ///    any feed, is skipped: this is what keeps an entry whose id or date changed
    ///    from coming back as new, and a paper syndicated by two feeds from appearing
    ///    twice;
    /// 4. everything else is inserted with its tags (the full-text index follows by
    ///    trigger). An entry without a date is dated `now`.
    pub async fn add_items(&self, feed_id: Option<i64>, items: &[NewItem], now: &str) -> Result<AddOutcome> {
        let mut tx = self.write_tx().await?;
        let out = add_items_tx(&mut tx, self.store().dialect(), feed_id, items, now).await?;
        tx.commit().await?;
        // PostgreSQL plans search from table statistics, which autovacuum refreshes only
        // later: after a large batch they are refreshed now, or a freshly filled archive
        // is searched with plans made for an empty one (tens of times slower).
        if self.store().dialect() == attest_store::Dialect::Postgres && out.added >= ANALYZE_AFTER {
            sqlx::query("ANALYZE items, item_tags").execute(self.pool()).await?;
        }
        Ok(out)
    }

    /// One item by id, with its tags.
    pub async fn item(&self, item_id: i64) -> Result<Option<Item>> {
        Ok(self.items(&[item_id]).await?.into_iter().next())
    }

    /// The items whose ids are nearest to `item_id` (an id that does not exist, say),
    /// nearest first, as (id, title): the alternatives a refusal offers.
    pub async fn items_near(&self, item_id: i64, n: usize) -> Result<Vec<(i64, String)>> {
        let rows = sqlx::query("SELECT id, title FROM items ORDER BY abs(id - $1), id LIMIT $2")
            .bind(item_id)
            .bind(n as i64)
            .fetch_all(self.pool())
            .await?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    /// Items by id, with tags, in the order of `ids` (unknown ids are left out).
    pub async fn items(&self, ids: &[i64]) -> Result<Vec<Item>> {
        let mut found: HashMap<i64, Item> = HashMap::with_capacity(ids.len());
        for chunk in ids.chunks(CHUNK) {
            let sql = format!(
                "SELECT {ITEM_COLUMNS} FROM items i LEFT JOIN feeds f ON f.id = i.feed_id WHERE i.id IN ({})",
                placeholders(1, chunk.len())
            );
            let mut q = sqlx::query(&sql);
            for id in chunk {
                q = q.bind(id);
            }
            for r in q.fetch_all(self.pool()).await? {
                let it = item_from_row(&r);
                found.insert(it.id, it);
            }
        }
        let mut out: Vec<Item> = ids.iter().filter_map(|id| found.remove(id)).collect();
        self.attach_tags(&mut out).await?;
        Ok(out)
    }

    /// Candidates for a reader's ranked list: items published at or after `since`
    /// (a [`crate::model::stamp`]; `None` = the whole archive) that this reader has
    /// not clicked, newest first, with tags and source.
    pub async fn items_for_ranking(&self, reader_id: i64, since: Option<&str>) -> Result<Vec<Item>> {
        // Two spellings rather than `$2 IS NULL OR …`, so the date index is used.
        let window = if since.is_some() { "i.published >= $2 AND" } else { "" };
        let sql = format!(
            "SELECT {ITEM_COLUMNS} FROM items i LEFT JOIN feeds f ON f.id = i.feed_id \
             WHERE {window} NOT EXISTS (SELECT 1 FROM clicks c WHERE c.reader_id = $1 AND c.item_id = i.id) \
             ORDER BY i.published DESC, i.id DESC"
        );
        let mut q = sqlx::query(&sql).bind(reader_id);
        if let Some(s) = since {
            q = q.bind(s);
        }
        let rows = q.fetch_all(self.pool()).await?;
        let mut out: Vec<Item> = rows.iter().map(item_from_row).collect();
        self.attach_tags(&mut out).await?;
        Ok(out)
    }

    /// Items this reader clicked, with the click, oldest click first (for training and
    /// evaluation).
    pub async fn clicked_items(&self, reader_id: i64) -> Result<Vec<(Item, Click)>> {
        let clicks = self.clicks(reader_id).await?;
        let ids: Vec<i64> = clicks.iter().map(|c| c.item_id).collect();
        let mut items: HashMap<i64, Item> = self.items(&ids).await?.into_iter().map(|i| (i.id, i)).collect();
        Ok(clicks.into_iter().filter_map(|c| items.remove(&c.item_id).map(|i| (i, c))).collect())
    }

    async fn attach_tags(&self, items: &mut [Item]) -> Result<()> {
        let ids: Vec<i64> = items.iter().map(|i| i.id).collect();
        let mut tags = self.tags_for(&ids).await?;
        for it in items.iter_mut() {
            it.tags = tags.remove(&it.id).unwrap_or_default();
        }
        Ok(())
    }

    /// Tags of each item (sorted); items without tags are absent from the map.
    pub async fn tags_for(&self, ids: &[i64]) -> Result<HashMap<i64, Vec<String>>> {
        let mut out: HashMap<i64, Vec<String>> = HashMap::new();
        for chunk in ids.chunks(CHUNK) {
            let sql = format!(
                "SELECT item_id, tag FROM item_tags WHERE item_id IN ({}) ORDER BY item_id, tag",
                placeholders(1, chunk.len())
            );
            let mut q = sqlx::query(&sql);
            for id in chunk {
                q = q.bind(id);
            }
            for r in q.fetch_all(self.pool()).await? {
                out.entry(r.get("item_id")).or_default().push(r.get("tag"));
            }
        }
        Ok(out)
    }

    /// Every distinct stored tag, sorted: the vocabulary new keyphrases are mapped
    /// onto (see [`attest_tags::vocabulary`]).
    pub async fn tag_vocabulary(&self) -> Result<Vec<String>> {
        let rows = sqlx::query("SELECT DISTINCT tag FROM item_tags ORDER BY tag").fetch_all(self.pool()).await?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// The most used tags with their item counts, most used first (ties by name).
    pub async fn tag_counts(&self, limit: usize) -> Result<Vec<(String, i64)>> {
        let rows =
            sqlx::query("SELECT tag, count(*) AS n FROM item_tags GROUP BY tag ORDER BY count(*) DESC, tag LIMIT $1")
                .bind(limit as i64)
                .fetch_all(self.pool())
                .await?;
        Ok(rows.iter().map(|r| (r.get("tag"), r.get("n"))).collect())
    }

    /// Sizes of the feed data.
    pub async fn counts(&self) -> Result<Counts> {
        let r = sqlx::query(
            "SELECT (SELECT count(*) FROM feeds) AS feeds, (SELECT count(*) FROM items) AS items, \
             (SELECT count(*) FROM items WHERE feed_id IS NULL) AS orphaned, \
             (SELECT count(*) FROM readers) AS readers, (SELECT count(*) FROM clicks) AS clicks",
        )
        .fetch_one(self.pool())
        .await?;
        Ok(Counts {
            feeds: r.get("feeds"),
            items: r.get("items"),
            orphaned_items: r.get("orphaned"),
            readers: r.get("readers"),
            clicks: r.get("clicks"),
        })
    }

    // ---- readers ----------------------------------------------------------------

    /// Create a reader. Names are trimmed, must not be empty and are unique regardless
    /// of case; the spelling given is kept.
    pub async fn create_reader(&self, name: &str, interests: &str) -> Result<Reader> {
        let name = name.trim();
        if name.is_empty() {
            return Err(FeedError::EmptyName);
        }
        let res = sqlx::query(
            "INSERT INTO readers (name, name_key, interests, created_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (name_key) DO NOTHING",
        )
        .bind(name)
        .bind(name_key(name))
        .bind(interests.trim())
        .bind(now_stamp())
        .execute(self.pool())
        .await?;
        let reader = self.reader(name).await?.ok_or_else(|| FeedError::UnknownReader(name.into()))?;
        if res.rows_affected() == 0 {
            return Err(FeedError::ReaderExists(reader.name));
        }
        Ok(reader)
    }

    /// A reader by name, matched regardless of case.
    pub async fn reader(&self, name: &str) -> Result<Option<Reader>> {
        let r = sqlx::query("SELECT id, name, interests, created_at FROM readers WHERE name_key = $1")
            .bind(name_key(name))
            .fetch_optional(self.pool())
            .await?;
        Ok(r.as_ref().map(reader_from_row))
    }

    /// A reader by name, or [`FeedError::UnknownReader`].
    pub async fn require_reader(&self, name: &str) -> Result<Reader> {
        self.reader(name).await?.ok_or_else(|| FeedError::UnknownReader(name.trim().into()))
    }

    /// A reader by id.
    pub async fn reader_by_id(&self, reader_id: i64) -> Result<Option<Reader>> {
        let r = sqlx::query("SELECT id, name, interests, created_at FROM readers WHERE id = $1")
            .bind(reader_id)
            .fetch_optional(self.pool())
            .await?;
        Ok(r.as_ref().map(reader_from_row))
    }

    /// Every reader, by name.
    pub async fn readers(&self) -> Result<Vec<Reader>> {
        let rows = sqlx::query("SELECT id, name, interests, created_at FROM readers ORDER BY name_key")
            .fetch_all(self.pool())
            .await?;
        Ok(rows.iter().map(reader_from_row).collect())
    }

    /// Replace a reader's interests text.
    pub async fn update_interests(&self, reader_id: i64, interests: &str) -> Result<Reader> {
        sqlx::query("UPDATE readers SET interests = $1 WHERE id = $2")
            .bind(interests.trim())
            .bind(reader_id)
            .execute(self.pool())
            .await?;
        self.reader_by_id(reader_id).await?.ok_or_else(|| FeedError::UnknownReader(format!("#{reader_id}")))
    }

    /// Delete a reader with their clicks and engagement, in one transaction.
    pub async fn delete_reader(&self, reader_id: i64) -> Result<Wiped> {
        let mut tx = self.write_tx().await?;
        let wiped = wipe_tx(&mut tx, reader_id).await?;
        let gone = sqlx::query("DELETE FROM readers WHERE id = $1").bind(reader_id).execute(&mut *tx).await?;
        if gone.rows_affected() == 0 {
            return Err(FeedError::UnknownReader(format!("#{reader_id}")));
        }
        tx.commit().await?;
        Ok(wiped)
    }

    /// Merge reader `from` into reader `into` (two names for one person), in one
    /// transaction: `from`'s ratings move to `into` (where both rated an item, the later
    /// verdict stays), its reading history moves too, `into` takes `interests`, and
    /// `from` is deleted.
    pub async fn merge_readers(&self, from: i64, into: i64, interests: &str) -> Result<Merged> {
        let mut tx = self.write_tx().await?;
        let replaced = sqlx::query(
            "UPDATE clicks SET useful = f.useful, source = f.source, at = f.at FROM clicks f              WHERE clicks.reader_id = $2 AND f.reader_id = $1 AND f.item_id = clicks.item_id AND f.at > clicks.at",
        )
        .bind(from)
        .bind(into)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        let moved = sqlx::query(
            "INSERT INTO clicks (reader_id, item_id, useful, source, at)              SELECT $2, f.item_id, f.useful, f.source, f.at FROM clicks f WHERE f.reader_id = $1              AND NOT EXISTS (SELECT 1 FROM clicks k WHERE k.reader_id = $2 AND k.item_id = f.item_id)",
        )
        .bind(from)
        .bind(into)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        sqlx::query(
            "INSERT INTO engagement (reader_id, item_id, kind, at)              SELECT $2, e.item_id, e.kind, e.at FROM engagement e WHERE e.reader_id = $1              AND NOT EXISTS (SELECT 1 FROM engagement k WHERE k.reader_id = $2 AND k.item_id = e.item_id AND k.kind = e.kind)",
        )
        .bind(from)
        .bind(into)
        .execute(&mut *tx)
        .await?;
        sqlx::query("UPDATE readers SET interests = $1 WHERE id = $2")
            .bind(interests)
            .bind(into)
            .execute(&mut *tx)
            .await?;
        let gone = sqlx::query("DELETE FROM readers WHERE id = $1").bind(from).execute(&mut *tx).await?;
        if gone.rows_affected() == 0 {
            return Err(FeedError::UnknownReader(format!("#{from}")));
        }
        tx.commit().await?;
        Ok(Merged { moved, replaced })
    }

    /// Remove a reader's clicks and engagement (engagement too: it would otherwise be
    /// harvested back as positives), keeping the reader and their interests.
    pub async fn reset_reader(&self, reader_id: i64) -> Result<Wiped> {
        let mut tx = self.write_tx().await?;
        let wiped = wipe_tx(&mut tx, reader_id).await?;
        tx.commit().await?;
        Ok(wiped)
    }

    // ---- clicks and engagement --------------------------------------------------

    /// Record a verdict. Rating the same item again overwrites the verdict, source and
    /// time.
    pub async fn record_click(&self, reader_id: i64, item_id: i64, useful: bool, source: ClickSource) -> Result<Click> {
        self.require_item(item_id).await?;
        let at = now_stamp();
        sqlx::query(
            "INSERT INTO clicks (reader_id, item_id, useful, source, at) VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (reader_id, item_id) DO UPDATE SET useful = excluded.useful, source = excluded.source, at = excluded.at",
        )
        .bind(reader_id)
        .bind(item_id)
        .bind(useful as i64)
        .bind(source.as_str())
        .bind(&at)
        .execute(self.pool())
        .await?;
        Ok(Click { reader_id, item_id, useful, source, at })
    }

    /// Record bootstrap (or other) verdicts only where the reader has none yet, in one
    /// transaction; returns how many were written.
    pub async fn record_clicks_if_absent(
        &self,
        reader_id: i64,
        verdicts: &[(i64, bool)],
        source: ClickSource,
    ) -> Result<u64> {
        let at = now_stamp();
        let mut tx = self.write_tx().await?;
        let mut n = 0;
        for (item_id, useful) in verdicts {
            n += sqlx::query(
                "INSERT INTO clicks (reader_id, item_id, useful, source, at) VALUES ($1, $2, $3, $4, $5) \
                 ON CONFLICT (reader_id, item_id) DO NOTHING",
            )
            .bind(reader_id)
            .bind(item_id)
            .bind(*useful as i64)
            .bind(source.as_str())
            .bind(&at)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        }
        tx.commit().await?;
        Ok(n)
    }

    /// This reader's click on this item, if any.
    pub async fn click(&self, reader_id: i64, item_id: i64) -> Result<Option<Click>> {
        let r = sqlx::query(
            "SELECT reader_id, item_id, useful, source, at FROM clicks WHERE reader_id = $1 AND item_id = $2",
        )
        .bind(reader_id)
        .bind(item_id)
        .fetch_optional(self.pool())
        .await?;
        Ok(r.as_ref().map(click_from_row))
    }

    /// Every click of a reader, oldest first.
    pub async fn clicks(&self, reader_id: i64) -> Result<Vec<Click>> {
        let rows = sqlx::query(
            "SELECT reader_id, item_id, useful, source, at FROM clicks WHERE reader_id = $1 ORDER BY at, item_id",
        )
        .bind(reader_id)
        .fetch_all(self.pool())
        .await?;
        Ok(rows.iter().map(click_from_row).collect())
    }

    /// A reader's clicks counted by source and verdict.
    pub async fn click_tally(&self, reader_id: i64) -> Result<Vec<ClickTally>> {
        let rows = sqlx::query(
            "SELECT source, useful, count(*) AS n FROM clicks WHERE reader_id = $1 GROUP BY source, useful ORDER BY source, useful",
        )
        .bind(reader_id)
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .iter()
            .filter_map(|r| {
                let s: String = r.get("source");
                Some(ClickTally { source: s.parse().ok()?, useful: r.get::<i64, _>("useful") != 0, n: r.get("n") })
            })
            .collect())
    }

    /// Record that a reader engaged with an item. Idempotent: returns false when this
    /// (reader, item, kind) was already recorded.
    pub async fn record_engagement(&self, reader_id: i64, item_id: i64, kind: EngagementKind) -> Result<bool> {
        self.require_item(item_id).await?;
        let res = sqlx::query(
            "INSERT INTO engagement (reader_id, item_id, kind, at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (reader_id, item_id, kind) DO NOTHING",
        )
        .bind(reader_id)
        .bind(item_id)
        .bind(kind.as_str())
        .bind(now_stamp())
        .execute(self.pool())
        .await?;
        Ok(res.rows_affected() == 1)
    }

    /// A reader's engagement records, oldest first.
    pub async fn engagement(&self, reader_id: i64) -> Result<Vec<Engagement>> {
        let rows = sqlx::query(
            "SELECT reader_id, item_id, kind, at FROM engagement WHERE reader_id = $1 ORDER BY at, item_id, kind",
        )
        .bind(reader_id)
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .iter()
            .filter_map(|r| {
                let kind: String = r.get("kind");
                Some(Engagement {
                    reader_id: r.get("reader_id"),
                    item_id: r.get("item_id"),
                    kind: kind.parse().ok()?,
                    at: r.get("at"),
                })
            })
            .collect())
    }

    /// Turn engagement with unrated items into weak positives (source `implicit`), in
    /// one statement: never overwrites a verdict, never infers a negative, idempotent.
    pub async fn harvest_engagement(&self, reader_id: i64) -> Result<Harvest> {
        let mut tx = self.write_tx().await?;
        let candidates: i64 = sqlx::query_scalar("SELECT count(DISTINCT item_id) FROM engagement WHERE reader_id = $1")
            .bind(reader_id)
            .fetch_one(&mut *tx)
            .await?;
        let recorded = sqlx::query(
            "INSERT INTO clicks (reader_id, item_id, useful, source, at) \
             SELECT DISTINCT e.reader_id, e.item_id, 1, 'implicit', $2 FROM engagement e \
             WHERE e.reader_id = $1 AND NOT EXISTS (SELECT 1 FROM clicks c WHERE c.reader_id = e.reader_id AND c.item_id = e.item_id)",
        )
        .bind(reader_id)
        .bind(now_stamp())
        .execute(&mut *tx)
        .await?
        .rows_affected();
        tx.commit().await?;
        let candidates = candidates as u64;
        Ok(Harvest { candidates, recorded, already_rated: candidates - recorded })
    }

    async fn require_item(&self, item_id: i64) -> Result<()> {
        let found: Option<i64> =
            sqlx::query_scalar("SELECT id FROM items WHERE id = $1").bind(item_id).fetch_optional(self.pool()).await?;
        found.map(|_| ()).ok_or(FeedError::UnknownItem(item_id))
    }

    // ---- the concept graph's reads (attest-kg) --------------------------------------
    // attest-kg derives its graph from these and runs no SQL of its own.

    /// Every stored tag of every item, ordered by item then tag.
    pub async fn item_tags(&self) -> Result<Vec<crate::model::ItemTag>> {
        let rows =
            sqlx::query("SELECT item_id, tag FROM item_tags ORDER BY item_id, tag").fetch_all(self.pool()).await?;
        Ok(rows.iter().map(|r| crate::model::ItemTag { item_id: r.get("item_id"), tag: r.get("tag") }).collect())
    }

    /// How many items there are, and how many carry no tag.
    pub async fn archive_counts(&self) -> Result<crate::model::ArchiveCounts> {
        let r = sqlx::query(
            "SELECT (SELECT count(*) FROM items) AS n, \
             (SELECT count(*) FROM items i WHERE NOT EXISTS (SELECT 1 FROM item_tags t WHERE t.item_id = i.id)) AS u",
        )
        .fetch_one(self.pool())
        .await?;
        Ok(crate::model::ArchiveCounts { items: r.get("n"), untagged: r.get("u") })
    }

    /// Human reading per item, over every reader: ratings from a person or an agent
    /// (`ui`, `agent`, `implicit` clicks, useful or not) plus reads (`feed.read`).
    /// Simulated and bootstrap ratings are not reading and do not count. Items never
    /// rated nor read are absent.
    pub async fn reading_counts(&self) -> Result<std::collections::BTreeMap<i64, i64>> {
        let rows = sqlx::query(
            "SELECT item_id, count(*) AS n FROM (\
               SELECT item_id FROM clicks WHERE source IN ('ui', 'agent', 'implicit') \
               UNION ALL SELECT item_id FROM engagement WHERE kind = 'read') GROUP BY item_id",
        )
        .fetch_all(self.pool())
        .await?;
        Ok(rows.iter().map(|r| (r.get::<i64, _>("item_id"), r.get::<i64, _>("n"))).collect())
    }

    /// What a reader's ranking depends on (see [`crate::model::RankingState`]).
    pub async fn ranking_state(&self, reader_id: i64) -> Result<crate::model::RankingState> {
        let r = sqlx::query(
            "SELECT (SELECT max(id) FROM items) AS max_item, (SELECT count(*) FROM feeds) AS feeds, \
             (SELECT max(last_fetched) FROM feeds) AS last_fetched, \
             (SELECT count(*) FROM clicks WHERE reader_id = $1) AS clicks, \
             (SELECT CAST(coalesce(sum(useful), 0) AS BIGINT) FROM clicks WHERE reader_id = $1) AS useful, \
             (SELECT max(at) FROM clicks WHERE reader_id = $1) AS last_click, \
             (SELECT CAST(coalesce(sum(item_id * (5 * useful + CASE source WHEN 'ui' THEN 1 WHEN 'agent' THEN 2 \
              WHEN 'implicit' THEN 3 WHEN 'simulated' THEN 4 ELSE 5 END)), 0) AS BIGINT) FROM clicks WHERE reader_id = $1) AS verdicts",
        )
        .bind(reader_id)
        .fetch_one(self.pool())
        .await?;
        Ok(crate::model::RankingState {
            max_item: r.get("max_item"),
            feeds: r.get("feeds"),
            last_fetched: r.get("last_fetched"),
            clicks: r.get("clicks"),
            useful: r.get("useful"),
            last_click: r.get("last_click"),
            verdicts: r.get("verdicts"),
        })
    }

    /// The newest item's publication time, when the archive has items.
    pub async fn newest_published(&self) -> Result<Option<String>> {
        Ok(sqlx::query("SELECT max(published) AS p FROM items").fetch_one(self.pool()).await?.get("p"))
    }

    /// The item whose link or GUID is `url` (the oldest, when several are), if any.
    pub async fn item_id_by_url(&self, url: &str) -> Result<Option<i64>> {
        let r = sqlx::query("SELECT id FROM items WHERE url = $1 OR guid = $1 ORDER BY id LIMIT 1")
            .bind(url.trim())
            .fetch_optional(self.pool())
            .await?;
        Ok(r.map(|r| r.get("id")))
    }

    /// Title and link of each item that exists, in id order; unknown ids are left out.
    pub async fn item_links(&self, ids: &[i64]) -> Result<Vec<crate::model::ItemLink>> {
        let mut out = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(CHUNK) {
            let sql =
                format!("SELECT id, title, url FROM items WHERE id IN ({}) ORDER BY id", placeholders(1, chunk.len()));
            let mut q = sqlx::query(&sql);
            for id in chunk {
                q = q.bind(id);
            }
            for r in q.fetch_all(self.pool()).await? {
                out.push(crate::model::ItemLink { id: r.get("id"), title: r.get("title"), url: r.get("url") });
            }
        }
        out.sort_by_key(|l| l.id);
        out.dedup_by_key(|l| l.id);
        Ok(out)
    }
    // ---- end of the concept graph's reads -------------------------------------------
}

async fn wipe_tx(tx: &mut Transaction<'static, Db>, reader_id: i64) -> Result<Wiped> {
    let clicks = sqlx::query("DELETE FROM clicks WHERE reader_id = $1").bind(reader_id).execute(&mut **tx).await?;
    let engagement =
        sqlx::query("DELETE FROM engagement WHERE reader_id = $1").bind(reader_id).execute(&mut **tx).await?;
    Ok(Wiped { clicks: clicks.rows_affected(), engagement: engagement.rows_affected() })
}

/// Values of `column` among `keys` that are already stored (optionally within one feed).
async fn existing(
    tx: &mut Transaction<'static, Db>,
    dialect: attest_store::Dialect,
    column: &str,
    keys: &HashSet<&str>,
) -> Result<HashSet<String>> {
    let keys: Vec<&str> = keys.iter().copied().collect();
    let mut out = HashSet::new();
    for chunk in keys.chunks(CHUNK) {
        let marks: Vec<String> = (1..=chunk.len()).map(|k| mark(dialect, k)).collect();
        let sql = format!("SELECT DISTINCT {column} FROM items WHERE {column} IN ({})", marks.join(", "));
        let mut q = sqlx::query_scalar::<_, String>(&sql);
        for k in chunk {
            q = q.bind(*k);
        }
        out.extend(q.fetch_all(&mut **tx).await?);
    }
    Ok(out)
}

/// Authors as stored: a JSON array of names.
fn authors_json(authors: &[String]) -> String {
    serde_json::to_string(authors).unwrap_or_else(|_| "[]".into())
}

async fn add_items_tx(
    tx: &mut Transaction<'static, Db>,
    dialect: attest_store::Dialect,
    feed_id: Option<i64>,
    items: &[NewItem],
    now: &str,
) -> Result<AddOutcome> {
    // What the archive already holds, fetched in bulk for the whole batch.
    let mut by_guid: HashMap<String, (i64, String, bool)> = HashMap::new();
    if let Some(fid) = feed_id {
        let guids: Vec<&str> = items.iter().map(|i| i.guid.as_str()).collect();
        for chunk in guids.chunks(CHUNK) {
            let marks: Vec<String> = (2..=chunk.len() + 1).map(|k| mark(dialect, k)).collect();
            let sql = format!(
                "SELECT id, guid, content_hash, authors FROM items WHERE feed_id = {} AND guid IN ({})",
                mark(dialect, 1),
                marks.join(", ")
            );
            let mut q = sqlx::query(&sql).bind(fid);
            for g in chunk {
                q = q.bind(*g);
            }
            for r in q.fetch_all(&mut **tx).await? {
                let no_authors = r.get::<String, _>("authors") == "[]";
                by_guid.insert(r.get("guid"), (r.get("id"), r.get("content_hash"), no_authors));
            }
        }
    }
    let mut hashes =
        existing(tx, dialect, "content_hash", &items.iter().map(|i| i.content_hash.as_str()).collect()).await?;
    let mut dois = existing(tx, dialect, "doi", &items.iter().filter_map(|i| i.doi.as_deref()).collect()).await?;
    let mut arxiv =
        existing(tx, dialect, "arxiv_id", &items.iter().filter_map(|i| i.arxiv_id.as_deref()).collect()).await?;

    let mut out = AddOutcome::default();
    let mut seen_guids: HashSet<&str> = HashSet::new();
    let mut fresh: Vec<&NewItem> = Vec::new();
    for it in items {
        if !seen_guids.insert(it.guid.as_str()) {
            out.skipped += 1;
            continue;
        }
        if let Some((id, old_hash, no_authors)) = by_guid.get(&it.guid) {
            let authors = authors_json(&it.authors);
            if *old_hash != it.content_hash && !hashes.contains(&it.content_hash) {
                sqlx::query(
                    "UPDATE items SET title = $1, summary = $2, url = coalesce($3, url), content_hash = $4, \
                     doi = coalesce(doi, $5), arxiv_id = coalesce(arxiv_id, $6), \
                     authors = CASE WHEN $8 = '[]' THEN authors ELSE $8 END WHERE id = $7",
                )
                .bind(&it.title)
                .bind(&it.summary)
                .bind(&it.url)
                .bind(&it.content_hash)
                .bind(&it.doi)
                .bind(&it.arxiv_id)
                .bind(id)
                .bind(&authors)
                .execute(&mut **tx)
                .await?;
                hashes.insert(it.content_hash.clone());
                out.updated += 1;
            } else {
                if *no_authors && !it.authors.is_empty() {
                    // An item stored before the feed's authors were kept gets them now.
                    sqlx::query("UPDATE items SET authors = $1 WHERE id = $2")
                        .bind(&authors)
                        .bind(id)
                        .execute(&mut **tx)
                        .await?;
                }
                out.skipped += 1;
            }
            continue;
        }
        let known = hashes.contains(&it.content_hash)
            || it.doi.as_ref().is_some_and(|d| dois.contains(d))
            || it.arxiv_id.as_ref().is_some_and(|a| arxiv.contains(a));
        if known {
            out.skipped += 1;
            continue;
        }
        hashes.insert(it.content_hash.clone());
        if let Some(d) = &it.doi {
            dois.insert(d.clone());
        }
        if let Some(a) = &it.arxiv_id {
            arxiv.insert(a.clone());
        }
        fresh.push(it);
    }
    // New items go in with multi-row inserts. Their content hashes are unique within
    // the batch and new to the archive, so they map the new rows back to their ids.
    let rows = match dialect {
        attest_store::Dialect::Sqlite => SQLITE_INSERT_ROWS,
        attest_store::Dialect::Postgres => INSERT_ROWS,
    };
    for chunk in fresh.chunks(rows) {
        let values = (0..chunk.len())
            .map(|r| {
                let row: Vec<String> = (1..=11).map(|c| mark(dialect, r * 11 + c)).collect();
                format!("({})", row.join(", "))
            })
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!(
            "INSERT INTO items (feed_id, guid, title, url, summary, published, content_hash, doi, arxiv_id, first_seen, authors) \
             VALUES {values}"
        );
        let mut q = sqlx::query(&sql);
        for it in chunk {
            q = q
                .bind(feed_id)
                .bind(&it.guid)
                .bind(&it.title)
                .bind(&it.url)
                .bind(&it.summary)
                .bind(it.published.as_deref().unwrap_or(now))
                .bind(&it.content_hash)
                .bind(&it.doi)
                .bind(&it.arxiv_id)
                .bind(now)
                .bind(authors_json(&it.authors));
        }
        q.execute(&mut **tx).await?;
        let marks: Vec<String> = (1..=chunk.len()).map(|k| mark(dialect, k)).collect();
        let sql = format!("SELECT id, content_hash FROM items WHERE content_hash IN ({})", marks.join(", "));
        let mut q = sqlx::query(&sql);
        for it in chunk {
            q = q.bind(&it.content_hash);
        }
        let ids: HashMap<String, i64> =
            q.fetch_all(&mut **tx).await?.iter().map(|r| (r.get("content_hash"), r.get("id"))).collect();
        // The feed's own tags first: a keyphrase that repeats one keeps origin `feed`.
        let mut tags: Vec<(i64, &str, &str)> = Vec::new();
        for it in chunk {
            let id = ids[&it.content_hash];
            out.new_ids.push(id);
            tags.extend(it.tags.iter().map(|t| (id, t.as_str(), "feed")));
            tags.extend(it.keyphrases.iter().map(|t| (id, t.as_str(), "keyphrase")));
        }
        for part in tags.chunks(TAG_ROWS) {
            let values = (0..part.len())
                .map(|k| {
                    format!(
                        "({}, {}, {})",
                        mark(dialect, 3 * k + 1),
                        mark(dialect, 3 * k + 2),
                        mark(dialect, 3 * k + 3)
                    )
                })
                .collect::<Vec<_>>();
            let sql = format!(
                "INSERT INTO item_tags (item_id, tag, origin) VALUES {} ON CONFLICT DO NOTHING",
                values.join(", ")
            );
            let mut q = sqlx::query(&sql);
            for (id, t, origin) in part {
                q = q.bind(id).bind(*t).bind(*origin);
            }
            q.execute(&mut **tx).await?;
        }
    }
    out.added = fresh.len();
    Ok(out)
}

/// Subscribe to one address (`url`, `title`, `added_at`); nothing when already there.
const SUBSCRIBE: &str = "INSERT INTO feeds (url, title, added_at) VALUES ($1, $2, $3) ON CONFLICT (url) DO NOTHING";
