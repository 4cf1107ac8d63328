//! The feed tools as catalogue entries: plain async functions from typed arguments to
//! an [`Answer`], with no MCP in them. The `attest-feed` binary serves this catalogue;
//! the CLI calls the same tools.
//!
//! Every routine failure (an unknown reader on a write, an unknown item, an address
//! that is not a feed, a feed too large or too slow, a limit out of range) is an
//! `ok: false` answer whose line says what to do. Only a database fault is a [`Fault`].
//!
//! The ranking index of a reader's window is the expensive part of `feed.list` (about
//! 24 µs per item to build); it is kept per reader and window in the [`Context`] with
//! the reader's model fitted on it, rebuilt only when the archive or the subscriptions
//! change (checked by one cheap fingerprint query per call, so an `attest ingest` run
//! by another process is seen too). A change of the reader's ratings alone keeps the
//! index when it still covers the rated items, and refits only the model.
//! `feed.search` scores its hits against that index with that model.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use attest_core::text::{clip, plural};
use attest_core::{Answer, Bounded, Catalogue, Config, Fault, Hints, Outcome, Ref, Stop, Tool, ToolSpec};
use attest_store::Store;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::Row as _;
use time::OffsetDateTime;

use crate::embed::EmbedService;
use crate::eval::{self, Evaluation};
use crate::fetch::{FetchOptions, Fetcher};
use crate::model::{ClickSource, EngagementKind, Item, Reader, now_stamp, parse_stamp, stamp};
use crate::persona::{self, Destructive, UnknownReader};
use crate::quality::{self, RankingQuality};
use crate::rank::{Corpus, Embeddings, RankItem, RankOptions, Ranking, ReaderData, ReaderModel};
use crate::research::{self, ResearchArgs, ResearchConfig};
use crate::{FeedError, FeedStore, explain, ingest, router, search};

/// Most rows any list returns.
pub const MAX_LIMIT: i64 = 16;
/// Rows a list returns by default.
pub const DEFAULT_LIMIT: i64 = 5;
/// The default window of `feed.list`, in days (as the original).
pub const LIST_DAYS: i64 = 14;
/// The default window of `feed.digest`, in days.
pub const DIGEST_DAYS: i64 = 7;
/// Full-text hits `feed.search` re-ranks for the reader.
pub const SEARCH_POOL: usize = 100;
/// Characters of a title in a row.
pub const TITLE_CHARS: usize = 100;
/// Characters of a url in a ref.
pub const URL_CHARS: usize = 200;
/// Characters of a summary `feed.read` returns.
pub const SUMMARY_CHARS: usize = 1_500;
/// The longest window, in days.
pub const MAX_DAYS: i64 = 3_650;
/// Cached windows kept at most (all readers together).
const MAX_CACHED: usize = 32;

/// What the feed tools share: the store, the fetcher for addresses agents give, and the
/// per-reader ranking cache.
pub struct Context {
    /// The feed data.
    pub store: FeedStore,
    /// The fetcher for `feed.source_add` / `feed.source_preview`.
    pub fetcher: Fetcher,
    /// The embedding server, when one is configured (`EMBED_BASE_URL`).
    pub embed: Option<Arc<EmbedService>>,
    /// Where `feed.research` searches, and whether it may (`ATTEST_RESEARCH_WEB`).
    pub research: ResearchConfig,
    cache: tokio::sync::Mutex<HashMap<(i64, Option<String>), Cached>>,
    evals: tokio::sync::Mutex<HashMap<i64, CachedEval>>,
    /// Bumped by this process's writes to the archive (and by [`Context::invalidate`]).
    generation: AtomicU64,
    /// Bumped per reader by this process's writes to that reader's ratings or persona.
    reader_generations: std::sync::Mutex<HashMap<i64, u64>>,
    /// Serving another surface's search only (the knowledge surface's `feed.search`):
    /// no reader is created, and refusals point to the feed surface for that.
    search_only: bool,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("fetcher", &self.fetcher)
            .field("embed", &self.embed)
            .field("research", &self.research)
            .finish_non_exhaustive()
    }
}

/// A held-out evaluation, with what it was computed from.
type CachedEval = (EvalKey, Option<Evaluation>);

/// What a held-out evaluation depends on: the window's index (the archive state and
/// the window start, plus the rated items, which the click set names), the interests
/// text and the click set (item, verdict, source; not the times).
#[derive(Debug, Clone, PartialEq, Eq)]
struct EvalKey {
    archive: ArchiveState,
    since: Option<String>,
    interests: String,
    clicks: Vec<(i64, bool, ClickSource)>,
}

struct Cached {
    fingerprint: Fingerprint,
    window: Arc<Window>,
}

/// One reader's indexed window and the model fitted on it.
pub(crate) struct Window {
    data: Arc<ReaderData>,
    /// The window start the data was loaded with.
    since: Option<String>,
    /// The reader's model on `data`, with the interests text it was fitted for.
    model: std::sync::Mutex<Option<(String, Arc<ReaderModel>)>>,
}

impl Window {
    fn new(data: ReaderData, since: Option<String>) -> Window {
        Window { data: Arc::new(data), since, model: std::sync::Mutex::new(None) }
    }

    /// The reader's model on this window, fitted once per interests text.
    fn model(&self, interests: &str) -> Arc<ReaderModel> {
        let mut m = self.model.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((i, model)) = m.as_ref().filter(|(i, _)| i == interests) {
            debug_assert_eq!(i, interests);
            return Arc::clone(model);
        }
        let model = Arc::new(ReaderModel::fit(&self.data.corpus, interests, &self.data.clicks));
        *m = Some((interests.to_string(), Arc::clone(&model)));
        model
    }

    /// Rank the window's candidates for the reader, best `limit` first.
    fn rank(&self, interests: &str, limit: usize, embeddings: &Embeddings) -> (Arc<ReaderModel>, Ranking) {
        let model = self.model(interests);
        let ranking = self.data.rank_with(&model, limit, embeddings);
        (model, ranking)
    }

    /// The same window with `data` in place of its own (the same items with
    /// embedding vectors attached): the fitted model carries over, since fitting reads
    /// no vectors.
    fn with_data(&self, data: ReaderData) -> Window {
        let model = self.model.lock().unwrap_or_else(|e| e.into_inner()).clone();
        Window { data: Arc::new(data), since: self.since.clone(), model: std::sync::Mutex::new(model) }
    }
}

/// The archive's side of a fingerprint: newest item id, subscriptions, last fetch,
/// and this process's writes to them.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ArchiveState {
    max_item: Option<i64>,
    feeds: i64,
    last_fetched: Option<String>,
    generation: u64,
}

/// What a cached window depends on: the archive, and the reader's ratings (count,
/// useful count, newest click time, a checksum over item, verdict and source, so that
/// another process changing a verdict or a source within the same second is seen) with
/// this process's writes to that reader.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Fingerprint {
    archive: ArchiveState,
    clicks: i64,
    useful: i64,
    last_click: Option<String>,
    verdicts: i64,
    reader_generation: u64,
}

impl Context {
    /// A context over a store. The fetcher reads http(s) only (no local files) unless
    /// `ATTEST_FEED_LOCAL=1`; `ATTEST_FEED_TIMEOUT` (seconds) shortens its 30 s limit.
    /// The embedding server and `feed.research` come from the environment
    /// ([`Context::with_env_services`]).
    pub fn new(store: FeedStore) -> Context {
        let mut opts = FetchOptions { allow_local: env_flag("ATTEST_FEED_LOCAL"), ..FetchOptions::default() };
        if let Some(secs) = std::env::var("ATTEST_FEED_TIMEOUT").ok().and_then(|v| v.trim().parse::<u64>().ok()) {
            opts.timeout = Duration::from_secs(secs.clamp(1, 300));
            opts.connect_timeout = opts.connect_timeout.min(opts.timeout);
        }
        Context::with_fetcher(store, Fetcher::new(opts)).with_env_services()
    }

    /// A context with an explicit fetcher, no embedding server and `feed.research` off.
    pub fn with_fetcher(store: FeedStore, fetcher: Fetcher) -> Context {
        Context {
            store,
            fetcher,
            embed: None,
            research: ResearchConfig::default(),
            cache: Default::default(),
            evals: Default::default(),
            generation: AtomicU64::new(0),
            reader_generations: Default::default(),
            search_only: false,
        }
    }

    /// A context for serving `feed.search` on another surface: it never creates a
    /// reader (an unknown name is refused, naming the readers there are and where
    /// readers are made), and never offers tools that surface does not serve.
    pub fn search_only(mut self) -> Context {
        self.search_only = true;
        self
    }

    /// Use this embedding server for ranking (`None`: words only).
    pub fn with_embedder(mut self, embed: Option<EmbedService>) -> Context {
        self.embed = embed.map(Arc::new);
        self
    }

    /// Use these `feed.research` settings.
    pub fn with_research(mut self, research: ResearchConfig) -> Context {
        self.research = research;
        self
    }

    /// The embedding server (`EMBED_BASE_URL`, …) and the `feed.research` settings
    /// (`ATTEST_RESEARCH_WEB`, …) named by the environment.
    pub fn with_env_services(self) -> Context {
        let get = |k: &str| std::env::var(k).ok();
        self.with_embedder(EmbedService::from_env(get)).with_research(ResearchConfig::from_env(get))
    }

    /// The embedding side of ranking a cached window: the interests vector (or why
    /// there is none) and the window with the candidates' vectors attached (stored
    /// ones, plus a bounded number embedded now), kept in the cache for the next call;
    /// and a caveat when the vectors cover only part of the window.
    async fn embeddings(
        &self,
        reader: &Reader,
        window: Arc<Window>,
        since: &str,
        fp: &Fingerprint,
    ) -> Result<(Arc<Window>, Embeddings, Option<String>), FeedError> {
        let Some(svc) = &self.embed else { return Ok((window, Embeddings::Off, None)) };
        let w = svc.for_window(&self.store, &window.data, &reader.interests).await?;
        if w.attach.is_empty() {
            return Ok((window, w.embeddings, w.coverage));
        }
        let mut owned = (*window.data).clone();
        for (id, v) in w.attach {
            Arc::make_mut(&mut owned.corpus).set_vector(id, v);
        }
        let window = Arc::new(window.with_data(owned));
        let mut cache = self.cache.lock().await;
        if let Some(c) = cache.get_mut(&(reader.id, Some(since.to_string()))).filter(|c| c.fingerprint == *fp) {
            c.window = Arc::clone(&window);
        }
        Ok((window, w.embeddings, w.coverage))
    }

    /// Forget every cached window (called after this process writes to the archive
    /// or the subscriptions): the next call rebuilds the index.
    pub fn invalidate(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// Note that this process changed one reader's ratings or persona: the next call
    /// reads the reader's clicks again and refits the model, keeping the window's
    /// index when it still covers the rated items.
    pub fn reader_changed(&self, reader_id: i64) {
        *self.reader_generations.lock().unwrap_or_else(|e| e.into_inner()).entry(reader_id).or_default() += 1;
    }

    fn reader_generation(&self, reader_id: i64) -> u64 {
        self.reader_generations.lock().unwrap_or_else(|e| e.into_inner()).get(&reader_id).copied().unwrap_or(0)
    }

    async fn fingerprint(&self, reader_id: i64) -> Result<Fingerprint, sqlx::Error> {
        let r = sqlx::query(
            "SELECT (SELECT max(id) FROM items) AS max_item, (SELECT count(*) FROM feeds) AS feeds, \
             (SELECT max(last_fetched) FROM feeds) AS last_fetched, \
             (SELECT count(*) FROM clicks WHERE reader_id = $1) AS clicks, \
             (SELECT coalesce(sum(useful), 0) FROM clicks WHERE reader_id = $1) AS useful, \
             (SELECT max(at) FROM clicks WHERE reader_id = $1) AS last_click, \
             (SELECT coalesce(sum(item_id * (5 * useful + CASE source WHEN 'ui' THEN 1 WHEN 'agent' THEN 2 \
              WHEN 'implicit' THEN 3 WHEN 'simulated' THEN 4 ELSE 5 END)), 0) FROM clicks WHERE reader_id = $1) AS verdicts",
        )
        .bind(reader_id)
        .fetch_one(self.store.pool())
        .await?;
        Ok(Fingerprint {
            archive: ArchiveState {
                max_item: r.get("max_item"),
                feeds: r.get("feeds"),
                last_fetched: r.get("last_fetched"),
                generation: self.generation.load(Ordering::SeqCst),
            },
            clicks: r.get("clicks"),
            useful: r.get("useful"),
            last_click: r.get("last_click"),
            verdicts: r.get("verdicts"),
            reader_generation: self.reader_generation(reader_id),
        })
    }

    /// The reader's candidates since `since` and rated items, indexed, with the
    /// reader's model; cached until the archive or the reader's ratings change. When
    /// only the ratings changed, the index is kept if it still holds exactly the
    /// window's items plus the rated ones (what a fresh load would index).
    async fn window(&self, reader_id: i64, since: Option<String>) -> Result<(Arc<Window>, Fingerprint), FeedError> {
        let fp = self.fingerprint(reader_id).await?;
        let key = (reader_id, since.clone());
        let stale = {
            let cache = self.cache.lock().await;
            match cache.get(&key) {
                Some(c) if c.fingerprint == fp => return Ok((Arc::clone(&c.window), fp)),
                Some(c) if c.fingerprint.archive == fp.archive => Some(Arc::clone(&c.window)),
                _ => None,
            }
        };
        let reloaded = match &stale {
            Some(old) => old.data.reload_ratings(&self.store, reader_id, since.as_deref()).await?,
            None => None,
        };
        let window = match (stale, reloaded) {
            // Nothing ranking reads changed (a write that left the clicks as they were).
            (Some(old), Some(data)) if data.clicks == old.data.clicks => old,
            (_, Some(data)) => Arc::new(Window::new(data, since.clone())),
            (_, None) => {
                Arc::new(Window::new(ReaderData::load(&self.store, reader_id, since.as_deref()).await?, since))
            }
        };
        let mut cache = self.cache.lock().await;
        cache.retain(|k, c| !(k.0 == reader_id && c.fingerprint != fp));
        if cache.len() >= MAX_CACHED {
            cache.clear();
        }
        cache.insert(key, Cached { fingerprint: fp.clone(), window: Arc::clone(&window) });
        Ok((window, fp))
    }

    /// The held-out evaluation for the quality note, cached per reader under what it
    /// is computed from (the window's index, the interests text and the click set, so
    /// a rating that changes no verdict, or one taken back, does not re-run it). Runs
    /// only with enough human ratings; `None` otherwise.
    async fn measured(&self, reader: &Reader, window: &Window, fp: &Fingerprint) -> Option<Evaluation> {
        let data = &window.data;
        let human = data.clicks.iter().filter(|c| c.source.is_human()).count();
        if human < eval::MIN_EVAL_CLICKS {
            return None;
        }
        let mut clicks: Vec<(i64, bool, ClickSource)> =
            data.clicks.iter().map(|c| (c.item_id, c.useful, c.source)).collect();
        clicks.sort_unstable();
        let key = EvalKey {
            archive: fp.archive.clone(),
            since: window.since.clone(),
            interests: reader.interests.clone(),
            clicks,
        };
        let mut evals = self.evals.lock().await;
        if let Some((_, e)) = evals.get(&reader.id).filter(|(k, _)| *k == key) {
            return e.clone();
        }
        let e = eval::evaluate(&data.corpus, &reader.interests, &data.clicks).ok();
        evals.insert(reader.id, (key, e.clone()));
        e
    }
}

fn env_flag(key: &str) -> bool {
    std::env::var(key)
        .is_ok_and(|v| !matches!(v.trim().to_ascii_lowercase().as_str(), "" | "0" | "false" | "no" | "off"))
}

/// Open the database named by `config` and build the feed catalogue over it.
pub async fn catalogue(config: &Config) -> Result<Catalogue, attest_store::StoreError> {
    let store = Store::open(&config.db).await?;
    Ok(tools(Arc::new(Context::new(FeedStore::new(store)))))
}

// ---------------------------------------------------------------------------------------
// Failures.

fn fault(e: FeedError) -> Result<Answer<Value>, Fault> {
    match e {
        e if e.is_busy() => Ok(Answer::refuse(
            "the feed database is busy (another process is writing, e.g. attest ingest); try again in a few seconds",
        )),
        FeedError::Sql(e) => Err(Fault::new("feed database", e)),
        FeedError::UnknownItem(id) => Ok(unknown_item(id)),
        FeedError::Fetch(e) => Ok(Answer::refuse(format!("{e}. Nothing was stored."))),
        FeedError::NotAFeed(why) => Ok(Answer::refuse(format!(
            "that address is not a feed (RSS, Atom or JSON Feed): {}. Give the feed's own address (often ending in /feed, /rss or .xml), not the web page.",
            clip(&why, 200)
        ))),
        other => Ok(Answer::refuse(other.to_string())),
    }
}

impl From<FeedError> for Stop {
    /// A routine failure (the database busy, an unknown item, an address that is not a
    /// feed) is the refusal `fault` words; a database fault stays a fault.
    fn from(e: FeedError) -> Stop {
        match fault(e) {
            Ok(refusal) => Stop::from(refusal),
            Err(f) => Stop::Fault(f),
        }
    }
}

fn sql(e: sqlx::Error) -> Stop {
    Stop::Fault(Fault::new("feed database", e))
}

fn unknown_item(id: i64) -> Answer<Value> {
    Answer::refuse(format!(
        "unknown item_id {id}: there is no such item in the archive. Item ids come from feed.list or feed.search."
    ))
    .with_options(vec!["feed.list".into(), "feed.search".into()])
}

// ---------------------------------------------------------------------------------------
// Readers.

/// The reader a call is for: looked up case-insensitively; an unknown name is created
/// (read-only tools, with a notice to prefix) or refused (writes), per
/// [`persona::on_unknown_reader`]. No name means the only reader when there is exactly
/// one; otherwise the question back names the readers there are.
async fn reader_for(ctx: &Context, tool: &str, name: &str) -> Result<(Reader, Option<String>), Stop> {
    let name = name.trim();
    if name.is_empty() {
        let mut readers = ctx.store.readers().await.map_err(feed_fault)?;
        if readers.len() == 1 {
            return Ok((readers.remove(0), None));
        }
        let names = reader_names(ctx).await?;
        if ctx.search_only {
            return Err(match names.is_empty() {
                true => Stop::refuse(format!(
                    "There is no reader yet, and {tool} ranks for one: make one on the feed surface (attest-feed) or with `attest feed`, then pass user=<name>."
                )),
                false => Stop::refuse(format!("Whose reading? Pass user=<name> (readers: {}).", names.join(", "))),
            });
        }
        let which = if names.is_empty() {
            "There is no reader yet: say who is asking (pass user=<name>; a new name is created on a read-only question), or create one with feed.persona_create.".to_string()
        } else {
            format!("Which reader is asking? Pass user=<name> (readers: {}).", names.join(", "))
        };
        return Err(Stop::ask_back(which, [tool, "feed.persona_create"]));
    }
    if let Some(r) = ctx.store.reader(name).await.map_err(feed_fault)? {
        return Ok((r, None));
    }
    if ctx.search_only {
        let names = reader_names(ctx).await?;
        let known = if names.is_empty() {
            "there are no readers yet".to_string()
        } else {
            format!("readers: {}", names.join(", "))
        };
        return Err(Stop::refuse(format!(
            "unknown reader '{}' ({known}); readers are made on the feed surface (attest-feed) or with `attest feed`",
            clip(name, 80)
        )));
    }
    match persona::on_unknown_reader(tool) {
        UnknownReader::Refuse => {
            let names = reader_names(ctx).await?;
            Err(Stop::refuse(persona::unknown_reader_message(name, &names)).with_options(["feed.persona_create"]))
        }
        UnknownReader::Create => {
            let name = persona::validate_name(name).map_err(Stop::refuse)?;
            let tags = ctx.store.tag_counts(200).await.map_err(feed_fault)?;
            let interests = persona::seed_interests(&tags);
            match ctx.store.create_reader(&name, &interests).await {
                Ok(r) => {
                    ctx.reader_changed(r.id);
                    let notice = persona::created_notice(&r.name, &r.interests);
                    Ok((r, Some(notice)))
                }
                // Created by a concurrent call meanwhile.
                Err(FeedError::ReaderExists(_)) => match ctx.store.reader(&name).await.map_err(feed_fault)? {
                    Some(r) => Ok((r, None)),
                    None => Err(Stop::refuse(format!("could not create reader '{name}'; try again"))),
                },
                Err(e) => Err(feed_fault(e).into()),
            }
        }
    }
}

fn feed_fault(e: FeedError) -> Fault {
    Fault::new("feed database", e)
}

async fn reader_names(ctx: &Context) -> Result<Vec<String>, Fault> {
    let mut names: Vec<String> = ctx.store.readers().await.map_err(feed_fault)?.into_iter().map(|r| r.name).collect();
    names.sort_by_key(|n| n.to_lowercase());
    if names.len() > 20 {
        let more = names.len() - 20;
        names.truncate(20);
        names.push(format!("and {more} more"));
    }
    Ok(names)
}

fn with_notice(line: String, notice: &Option<String>) -> String {
    match notice {
        Some(n) => format!("{n}\n{line}"),
        None => line,
    }
}

// ---------------------------------------------------------------------------------------
// Arguments. Their doc comments become the parameter descriptions agents read.

/// Arguments of `feed.list`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ListArgs {
    /// The reader (persona) whose feed this is, e.g. `alice`. An unknown name is created
    /// with interests taken from the archive, and the answer says so. Empty: the only
    /// reader, when there is exactly one.
    #[serde(default)]
    pub user: String,
    /// How many items to show, 1 to 16 (default 5).
    #[serde(default)]
    pub limit: Bounded<1, MAX_LIMIT, DEFAULT_LIMIT>,
    /// The window in days (default 14): items published since then that the reader has
    /// not rated.
    #[serde(default)]
    pub days: Bounded<1, MAX_DAYS, LIST_DAYS>,
}

/// Arguments of `feed.search`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// The reader the hits are ranked for (empty: the only reader, when there is one).
    #[serde(default)]
    pub user: String,
    /// What to look for, in plain words ("asymmetric hydrogenation", "cs.LG", "\"mixture of experts\"").
    #[serde(default)]
    pub query: String,
    /// Only items carrying this tag (e.g. `catalysis`, `cs.lg`).
    #[serde(default)]
    pub tag: Option<String>,
    /// Only items published on or after this date (`YYYY-MM-DD`).
    #[serde(default)]
    pub since: Option<String>,
    /// How many hits to show, 1 to 16 (default 5).
    #[serde(default)]
    pub limit: Bounded<1, MAX_LIMIT, DEFAULT_LIMIT>,
}

/// Arguments of the tools about one item (`feed.read`, `feed.explain`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ItemArgs {
    /// The reader (empty: the only reader, when there is one).
    #[serde(default)]
    pub user: String,
    /// The item's id, from feed.list or feed.search.
    #[serde(default)]
    pub item_id: Option<i64>,
    /// Or the item's address (its link or GUID), when there is no item_id.
    #[serde(default)]
    pub url: Option<String>,
}

/// Arguments of `feed.rate`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct RateArgs {
    /// The reader giving the verdict (must exist: a typo must not start a new persona;
    /// empty: the only reader, when there is one).
    #[serde(default)]
    pub user: String,
    /// The item's id, from feed.list or feed.search.
    #[serde(default)]
    pub item_id: Option<i64>,
    /// Or the item's address (its link or GUID), when there is no item_id.
    #[serde(default)]
    pub url: Option<String>,
    /// true = useful to this reader (default), false = not useful.
    #[serde(default = "yes")]
    pub useful: bool,
    /// Who gave the verdict: `agent` (default: the person said so in conversation) or
    /// `ui`. `implicit`, `simulated` and `bootstrap` are for tools and demos.
    #[serde(default)]
    pub source: Option<String>,
}

/// Arguments of `feed.digest`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct DigestArgs {
    /// The reader (empty: the only reader, when there is one).
    #[serde(default)]
    pub user: String,
    /// The window in days (default 7).
    #[serde(default)]
    pub days: Bounded<1, MAX_DAYS, DIGEST_DAYS>,
    /// How many topic groups to show, 1 to 16 (default 5); each shows up to 3 items.
    #[serde(default)]
    pub limit: Bounded<1, MAX_LIMIT, DEFAULT_LIMIT>,
}

/// Arguments of `feed.persona_create`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct CreateArgs {
    /// The new reader's name (unique regardless of case, at most 64 characters).
    #[serde(default)]
    pub user: String,
    /// The same, as a question names it ("create a persona called alice"); wins over
    /// user.
    #[serde(default)]
    pub name: Option<String>,
    /// What the reader wants to read about, in their words ("asymmetric catalysis,
    /// C-H activation, flow chemistry").
    #[serde(default)]
    pub interests: String,
}

/// Arguments of `feed.persona_update`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct UpdateArgs {
    /// The reader (empty: the only reader, when there is one).
    #[serde(default)]
    pub user: String,
    /// The reader as a question names it ("alice's interests"); wins over user.
    #[serde(default)]
    pub name: Option<String>,
    /// The new interests text (replaces the old one unless append=true).
    #[serde(default)]
    pub interests: String,
    /// Add the text to the existing interests instead of replacing them.
    #[serde(default)]
    pub append: bool,
}

/// Arguments of the tools that take only a reader.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct UserArgs {
    /// The reader (empty: the only reader, when there is one).
    #[serde(default, alias = "name")]
    pub user: String,
}

/// Arguments of `feed.persona_reset` and `feed.persona_delete`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ConfirmArgs {
    /// The reader (empty: the only reader, when there is one).
    #[serde(default)]
    pub user: String,
    /// The reader as a question names it ("delete the persona bob"); wins over user.
    #[serde(default)]
    pub name: Option<String>,
    /// Must be true: this erases the reader's ratings (and, for delete, the reader).
    #[serde(default)]
    pub confirm: bool,
}

/// Arguments of `feed.persona_suggest_interests` and `feed.source_suggest`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SuggestArgs {
    /// The reader (optional: suggestions come from the whole archive; a known reader's
    /// ratings weigh in).
    #[serde(default, alias = "name")]
    pub user: Option<String>,
    /// How many suggestions, 1 to 16 (default 5).
    #[serde(default)]
    pub limit: Bounded<1, MAX_LIMIT, DEFAULT_LIMIT>,
}

/// Arguments of `feed.source_add`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SourceAddArgs {
    /// The feed's address (http or https): RSS, Atom or JSON Feed.
    #[serde(default)]
    pub url: String,
    /// A title to show for it (default: the feed's own).
    #[serde(default)]
    pub title: Option<String>,
    /// Fetch it now to check it is a feed and store its items (default true). With
    /// false it is only registered, and fetched at the next `attest ingest`.
    #[serde(default = "yes")]
    pub fetch: bool,
    /// Subscriptions are shared by every reader; accepted for symmetry.
    #[serde(default)]
    pub user: Option<String>,
}

fn yes() -> bool {
    true
}

/// Arguments of `feed.source_remove`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SourceRemoveArgs {
    /// The subscription's id, from feed.sources.
    #[serde(default)]
    pub feed_id: Option<i64>,
    /// Or its address.
    #[serde(default)]
    pub url: Option<String>,
    /// Subscriptions are shared by every reader; accepted for symmetry.
    #[serde(default)]
    pub user: Option<String>,
}

/// Arguments of `feed.source_preview`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct PreviewArgs {
    /// The address to look at (http or https).
    #[serde(default)]
    pub url: String,
    /// How many entries to show, 1 to 16 (default 5).
    #[serde(default)]
    pub limit: Bounded<1, MAX_LIMIT, DEFAULT_LIMIT>,
    /// Accepted for symmetry; previews store nothing.
    #[serde(default)]
    pub user: Option<String>,
}

/// Arguments of `feed.sources`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SourcesArgs {
    /// How many subscriptions to show, 1 to 16 (default 5; failing ones first).
    #[serde(default)]
    pub limit: Bounded<1, MAX_LIMIT, DEFAULT_LIMIT>,
    /// Subscriptions are shared by every reader; accepted for symmetry.
    #[serde(default)]
    pub user: Option<String>,
}

/// What `feed.ask` takes besides the question: what the agent already knows, read by
/// the router and passed to whichever tool the question reaches when it takes them.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct AskContext {
    /// The reader asking (if not given: the one the question names, else the only
    /// reader).
    #[serde(default)]
    pub user: Option<String>,
    /// The item the question is about, if any (completes rate/read/explain in one call).
    #[serde(default)]
    pub item_id: Option<i64>,
    /// An address the question is about (an item's link, or a feed to add or preview).
    #[serde(default)]
    pub url: Option<String>,
}

// ---------------------------------------------------------------------------------------
// Details returned in `data`.

/// An item as lists show it (its url is in `refs`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Row {
    /// The item's id.
    pub item_id: i64,
    /// Its title (clipped).
    pub title: String,
    /// The feed it came from.
    pub source: Option<String>,
    /// When it was published (date).
    pub published: String,
    /// Up to three of its tags.
    pub tags: Vec<String>,
    /// The reader's verdict, when they rated it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rated: Option<bool>,
}

fn row(it: &Item, rated: Option<bool>) -> Row {
    Row {
        item_id: it.id,
        title: clip(&it.title, TITLE_CHARS),
        source: it.source.as_deref().map(|s| clip(s, 40)),
        published: it.published.get(..10).unwrap_or(&it.published).to_string(),
        tags: it.tags.iter().take(3).map(|t| clip(t, 32)).collect(),
        rated,
    }
}

fn item_ref(id: i64, url: Option<&str>) -> Ref {
    match url {
        Some(u) if !u.is_empty() => Ref::with_url(format!("item:{id}"), clip(u, URL_CHARS)),
        _ => Ref::id(format!("item:{id}")),
    }
}

/// What `feed.list` returns.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Listed {
    /// The reader.
    pub user: String,
    /// Items published on or after this time were candidates.
    pub since: String,
    /// Unrated items ranked.
    pub candidates: usize,
    /// The best ones, best first.
    pub items: Vec<Row>,
    /// How many more candidates were ranked below these.
    pub more: usize,
    /// How far to trust the order, with the counts behind it.
    pub quality: Value,
}

/// What `feed.search` returns.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Searched {
    /// The reader.
    pub user: String,
    /// The query as given.
    pub query: String,
    /// Full-text hits re-ranked (at most 100).
    pub hits: usize,
    /// The best ones for the reader, best first.
    pub items: Vec<Row>,
    /// How many more hits there are below these (at least, when hits is 100).
    pub more: usize,
    /// How far to trust the reader's part of the order.
    pub quality: Value,
}

/// What `feed.read` returns.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ReadItem {
    /// The item.
    #[serde(flatten)]
    pub row: Row,
    /// Its link.
    pub url: Option<String>,
    /// Its summary or abstract (clipped to 1,500 characters).
    pub summary: String,
    /// Its DOI, if known.
    pub doi: Option<String>,
    /// Its arXiv id, if known.
    pub arxiv_id: Option<String>,
}

/// What `feed.rate` returns.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Rated {
    /// The reader.
    pub user: String,
    /// The item.
    pub item_id: i64,
    /// The verdict recorded.
    pub useful: bool,
    /// Who gave it.
    pub source: String,
    /// Whether it replaced an earlier verdict.
    pub replaced: bool,
    /// The reader's ratings now.
    pub ratings: usize,
}

/// A topic group of `feed.digest`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Group {
    /// The tag (or `from <source>` for untagged items).
    pub topic: String,
    /// Items in the window carrying it.
    pub count: usize,
    /// Its best items for the reader (up to 3).
    pub items: Vec<Row>,
}

/// What `feed.digest` returns.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Digest {
    /// The reader.
    pub user: String,
    /// The window start.
    pub since: String,
    /// Unrated items in the window.
    pub candidates: usize,
    /// Groups, the one holding the reader's best item first.
    pub groups: Vec<Group>,
    /// Groups not shown.
    pub more_groups: usize,
    /// How far to trust the order.
    pub quality: Value,
}

/// A subscription as `feed.sources` shows it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Source {
    /// Its id (for feed.source_remove).
    pub feed_id: i64,
    /// Its title.
    pub title: Option<String>,
    /// Its address.
    pub url: String,
    /// Items stored from it.
    pub items: i64,
    /// When it was last fetched.
    pub last_fetched: Option<String>,
    /// Why the last fetch failed, if it did.
    pub last_error: Option<String>,
}

/// What `feed.sources` returns.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Sources {
    /// Subscriptions shown, failing ones first.
    pub feeds: Vec<Source>,
    /// How many there are in all.
    pub total: usize,
    /// How many failed at their last fetch.
    pub failing: usize,
}

/// A suggestion of `feed.persona_suggest_interests` / `feed.source_suggest`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Suggestion {
    /// The topic tag, or the feed address.
    pub name: String,
    /// Items behind it.
    pub items: usize,
    /// Why it is suggested.
    pub why: String,
}

/// What the persona tools return.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Persona {
    /// The reader.
    pub user: String,
    /// Their interests text.
    pub interests: String,
    /// Their ratings (every source).
    pub ratings: usize,
    /// Ratings, clicks and terms behind the ranking, when known.
    #[serde(default)]
    pub quality: Option<Value>,
    /// Tags and sources they rated useful most (status only).
    #[serde(default)]
    pub liked: Vec<String>,
    /// Tags and sources they rated not useful most (status only).
    #[serde(default)]
    pub disliked: Vec<String>,
}

// ---------------------------------------------------------------------------------------
// The tools.

/// A write that can be repeated with the same effect.
const WRITE_IDEMPOTENT: Hints = Hints { read_only: false, destructive: false, idempotent: true, open_world: false };
/// Reaches the network.
const WEB_WRITE: Hints = Hints { read_only: false, destructive: false, idempotent: true, open_world: true };
const WEB_READ: Hints = Hints { read_only: true, destructive: false, idempotent: true, open_world: true };

/// The feed catalogue over a context.
pub fn tools(ctx: Arc<Context>) -> Catalogue {
    let mut c = Catalogue::new();
    macro_rules! tool {
        ($($t:tt)*) => { attest_core::tool_over!(c, ctx, $($t)*) };
    }
    c.push(Tool::ask::<AskContext>(
        ToolSpec::new(
            "feed.ask",
            "Ask about your reading feed",
            "Ask about your reading feed in plain words: what should I read today, anything new on X, why is this ranked here, mark this useful, subscribe to a feed.\n\nRoutes the question to one feed tool by fixed rules (an unclear question is asked back with options; another surface's question names that surface). Pass user, and item_id or url when the question is about one item or feed. To run a specific tool directly, pass tool=<name> and args={...}. Show refs' urls as links, and relay the caveat whole.",
            Hints { read_only: false, destructive: false, idempotent: false, open_world: true },
        ),
        &router::ROUTER,
        &["user", "item_id", "url"],
    ));
    tool!(
        ToolSpec::new(
            "feed.list",
            "What should I read today?",
            "What should I read today: the reader's unrated items of the last 14 days, best first for them.\n\nRanked by the reader's interests text and their ratings, with no model. The caveat says how far to trust the order: relay it whole. Show refs' urls as links.",
            WRITE_IDEMPOTENT,
        ),
        list,
        ListArgs
    );
    c.push(search_tool(Arc::clone(&ctx)));
    tool!(
        ToolSpec::new(
            "feed.read",
            "Read one item",
            "Show one item in full: title, link, source, date, tags and its summary or abstract.\n\nCounts as the reader having read it (feed.harvest_engagement can later turn reads into weak positive ratings).",
            WRITE_IDEMPOTENT,
        ),
        read,
        ItemArgs
    );
    tool!(
        ToolSpec::new(
            "feed.rate",
            "Mark an item useful or not",
            "Record the reader's verdict on an item: useful or not useful. Ranking learns from it.\n\nA second verdict on the same item replaces the first. The reader must exist (a misspelt name is refused, not created).",
            WRITE_IDEMPOTENT,
        ),
        rate,
        RateArgs
    );
    tool!(
        ToolSpec::new(
            "feed.explain",
            "Why is this item ranked here?",
            "Why is this item ranked where it is for the reader: the interest words it matched, the tags and sources they rated, and its source.\n\nDeterministic and instant; no model. When nothing matched it says so.",
            WRITE_IDEMPOTENT,
        ),
        explain_tool,
        ItemArgs
    );
    tool!(
        ToolSpec::new(
            "feed.digest",
            "The week by topic",
            "The reader's week (or another window) grouped by topic tag, each group's best items first.",
            WRITE_IDEMPOTENT,
        ),
        digest,
        DigestArgs
    );
    tool!(
        ToolSpec::new(
            "feed.persona_create",
            "Create a reader",
            "Create a reader (persona) with the topics they want to read about.",
            Hints::WRITE
        ),
        persona_create,
        CreateArgs
    );
    tool!(
        ToolSpec::new(
            "feed.persona_update",
            "Change a reader's interests",
            "Replace a reader's interests text, or add to it with append=true. Ratings are kept.",
            WRITE_IDEMPOTENT,
        ),
        persona_update,
        UpdateArgs
    );
    tool!(
        ToolSpec::new(
            "feed.persona_status",
            "How is my feed ranked?",
            "Show a reader's interests, ratings and how much of their ranking comes from ratings, with the quality note.",
            Hints::READ,
        ),
        persona_status,
        UserArgs
    );
    tool!(
        ToolSpec::new(
            "feed.persona_reset",
            "Forget a reader's ratings",
            "Forget every rating and read of a reader, keeping the reader and their interests.\n\nNeeds confirm=true; without it, says how many ratings would be erased.",
            Hints::DESTRUCTIVE,
        ),
        persona_reset,
        ConfirmArgs
    );
    tool!(
        ToolSpec::new(
            "feed.persona_delete",
            "Delete a reader",
            "Delete a reader with their ratings and reading history.\n\nNeeds confirm=true; without it, says how many ratings would be erased.",
            Hints::DESTRUCTIVE,
        ),
        persona_delete,
        ConfirmArgs
    );
    tool!(
        ToolSpec::new(
            "feed.persona_suggest_interests",
            "Suggest interests",
            "Suggest topics for a reader's interests from what the archive covers most.",
            Hints::READ,
        ),
        persona_suggest_interests,
        SuggestArgs
    );
    tool!(
        ToolSpec::new(
            "feed.source_add",
            "Subscribe to a feed",
            "Subscribe to a feed (RSS, Atom or JSON Feed) by its address, fetching it once to check it is a feed and store its items.\n\nAn address that is not a feed, too large (over 10 MB) or too slow is refused and nothing is subscribed.",
            WEB_WRITE,
        ),
        source_add,
        SourceAddArgs
    );
    tool!(
        ToolSpec::new(
            "feed.source_remove",
            "Unsubscribe from a feed",
            "Unsubscribe from a feed by feed_id (from feed.sources) or url. Its items and their ratings stay in the archive.",
            WRITE_IDEMPOTENT,
        ),
        source_remove,
        SourceRemoveArgs
    );
    tool!(
        ToolSpec::new(
            "feed.source_preview",
            "Preview a feed",
            "Look at a feed before subscribing: its title, how many entries it has and the first few. Stores nothing.",
            WEB_READ,
        ),
        source_preview,
        PreviewArgs
    );
    tool!(
        ToolSpec::new(
            "feed.source_suggest",
            "Suggest feeds",
            "Suggest feeds to subscribe to: arXiv listings for the categories the archive (and the reader's useful ratings) carry but no subscription covers.",
            Hints::READ,
        ),
        source_suggest,
        SuggestArgs
    );
    tool!(
        ToolSpec::new(
            "feed.sources",
            "List subscriptions",
            "List the subscribed feeds with their item counts, last fetch and any fetch error.",
            Hints::READ
        ),
        sources,
        SourcesArgs
    );
    tool!(
        ToolSpec::new(
            "feed.harvest_engagement",
            "Turn reads into ratings",
            "Turn the items a reader read or asked about, and never rated, into weak positive (implicit) ratings.\n\nNever overwrites a verdict and never infers a negative; running it again adds nothing.",
            WRITE_IDEMPOTENT,
        ),
        harvest_engagement,
        UserArgs
    );
    tool!(
        ToolSpec::new(
            "feed.research",
            "Search arXiv, PubMed, CrossRef",
            "Search the literature on the web (arXiv, PubMed, CrossRef) for papers beyond the reader's feeds.\n\nOff unless the server runs with ATTEST_RESEARCH_WEB=1 (then it says how to turn it on). Results are in each service's own order, not ranked for the reader, and are not stored; a paper already in the archive carries its item_id. sources = arxiv,pubmed (default), crossref.",
            WEB_READ,
        ),
        research_tool,
        ResearchArgs
    );
    c
}

async fn research_tool(ctx: &Context, a: ResearchArgs) -> Outcome {
    Ok(research::tool(ctx, a).await?)
}

/// `feed.search` alone, over a context: the knowledge surface links it without the rest
/// of the feed catalogue. [`tools`] registers the same tool.
pub fn search_tool(ctx: Arc<Context>) -> Tool {
    Tool::new(
        ToolSpec::new(
            "feed.search",
            "Search the archive",
            "Search the whole archive of the reader's feeds for a topic, best matches for this reader first.\n\nFull-text search (words, \"quoted phrases\", tags like cs.LG), then ordered half by match and half by the reader's ranking. Filter by tag or since=YYYY-MM-DD.",
            WRITE_IDEMPOTENT,
        ),
        move |a: SearchArgs| {
            let ctx = Arc::clone(&ctx);
            async move { search_items(&ctx, a).await }
        },
    )
}

// ---- ranking helpers ------------------------------------------------------------------

fn since_days(days: i64) -> String {
    // Whole UTC days, so the window (and its cache key) changes once a day, not per call.
    let t = OffsetDateTime::now_utc() - time::Duration::days(days);
    format!("{}T00:00:00Z", stamp(t).get(..10).unwrap_or("1970-01-01"))
}

/// The reader's window: the last `days` days, or, when nothing unrated was published
/// then, the `days` days up to the newest item (said in a caveat).
async fn window_for(
    ctx: &Context,
    reader: &Reader,
    days: i64,
) -> Result<(Arc<Window>, Fingerprint, String, Option<String>), FeedError> {
    let since = since_days(days);
    let (data, fp) = ctx.window(reader.id, Some(since.clone())).await?;
    if !data.data.candidates.is_empty() {
        return Ok((data, fp, since, None));
    }
    let newest: Option<String> =
        sqlx::query("SELECT max(published) AS p FROM items").fetch_one(ctx.store.pool()).await?.get("p");
    let Some(newest) = newest.filter(|n| n.as_str() < since.as_str()) else {
        return Ok((data, fp, since, None));
    };
    let Some(t) = parse_stamp(&newest) else { return Ok((data, fp, since, None)) };
    let older = format!("{}T00:00:00Z", stamp(t - time::Duration::days(days)).get(..10).unwrap_or("1970-01-01"));
    let (data, fp) = ctx.window(reader.id, Some(older.clone())).await?;
    let note = format!(
        "nothing was published in the last {days} days (the newest item is from {}); these are the {days} days before it -- run attest ingest to fetch newer items",
        newest.get(..10).unwrap_or(&newest)
    );
    Ok((data, fp, older, Some(note)))
}

fn quality_value(q: &RankingQuality) -> Value {
    let mut v = serde_json::to_value(q).unwrap_or(Value::Null);
    if let Some(o) = v.as_object_mut() {
        // The caveat rides on the answer itself.
        o.remove("caveat");
    }
    v
}

fn more_line(more: usize, what: &str, hint: &str) -> String {
    if more == 0 { String::new() } else { format!(" ({more} more {what}; {hint})") }
}

fn titles(items: &[Row], n: usize) -> String {
    items.iter().take(n).map(|r| format!("[{}] {}", r.item_id, clip(&r.title, 70))).collect::<Vec<_>>().join("; ")
}

// ---- feed.list --------------------------------------------------------------------------

async fn list(ctx: &Context, a: ListArgs) -> Outcome {
    let limit = a.limit.count();
    let days = a.days.get();
    let (reader, notice) = reader_for(ctx, "feed.list", &a.user).await?;
    let (window, fp, since, widened) = window_for(ctx, &reader, days).await?;
    let (window, emb, coverage) = ctx.embeddings(&reader, window, &since, &fp).await?;
    let (_, ranking) = window.rank(&reader.interests, limit, &emb);
    let measured = ctx.measured(&reader, &window, &fp).await;
    let q = quality::assess(&window.data.clicks, &ranking.terms, measured.as_ref());
    let ids: Vec<i64> = ranking.items.iter().map(|r| r.id).collect();
    let items = ctx.store.items(&ids).await?;
    let rows: Vec<Row> = items.iter().map(|i| row(i, None)).collect();
    let refs = items.iter().map(|i| item_ref(i.id, i.url.as_deref())).collect();
    let more = ranking.candidates.saturating_sub(rows.len());
    let line = if rows.is_empty() {
        let counts = ctx.store.counts().await?;
        if counts.items == 0 {
            return Ok(Answer::refuse(with_notice(
                "the archive is empty: subscribe with feed.source_add(url) (or run attest ingest with a feeds file), then ask again".into(),
                &notice,
            )));
        }
        format!(
            "nothing unrated for '{}' since {}: every item there is rated. Widen with days=, or use feed.search for older items.",
            reader.name,
            &since[..10]
        )
    } else {
        format!(
            "For '{}', {} of {} unrated items since {}, best first: {}{}",
            reader.name,
            rows.len(),
            ranking.candidates,
            &since[..10],
            titles(&rows, 3),
            more_line(more, "ranked below", &format!("raise limit up to {MAX_LIMIT}"))
        )
    };
    let data = Listed {
        user: reader.name.clone(),
        since,
        candidates: ranking.candidates,
        items: rows,
        more,
        quality: quality_value(&q),
    };
    Ok(Answer::ok(with_notice(line, &notice), data)
        .with_refs(refs)
        .with_caveats(widened.into_iter().chain(q.caveat.clone()).chain(coverage))
        .into_value())
}

// ---- feed.search ------------------------------------------------------------------------

fn parse_since(s: &str) -> Option<String> {
    let s = s.trim();
    let date = s.get(..10)?;
    let t = parse_stamp(&format!("{date}T00:00:00Z"))?;
    Some(stamp(t))
}

async fn search_items(ctx: &Context, a: SearchArgs) -> Outcome {
    let limit = a.limit.count();
    let since = match a.since.as_deref().filter(|s| !s.trim().is_empty()) {
        None => None,
        Some(s) => match parse_since(s) {
            Some(v) => Some(v),
            None => {
                return Ok(Answer::refuse(format!(
                    "feed.search: since must be a date like 2026-01-31 (got '{}')",
                    clip(s, 40)
                )));
            }
        },
    };
    let tag = a.tag.clone().filter(|t| !t.trim().is_empty());
    if a.query.trim().is_empty() && tag.is_none() && since.is_none() {
        return Ok(Answer::refuse(
            "feed.search needs a query (what to look for, e.g. query=\"asymmetric hydrogenation\"), a tag or since=YYYY-MM-DD. For today's reading, use feed.list.",
        )
        .with_options(vec!["feed.list".into()]));
    }
    if a.query.chars().count() > 1_000 {
        return Ok(Answer::refuse("feed.search: the query is over 1,000 characters; give the few words that matter."));
    }
    let (reader, notice) = reader_for(ctx, "feed.search", &a.user).await?;
    let q = search::SearchQuery { text: a.query.clone(), tag: tag.clone(), since, limit: SEARCH_POOL };
    let hits = search::search(&ctx.store, &q).await?;
    if hits.is_empty() {
        let filt = tag.map(|t| format!(" with tag '{t}'")).unwrap_or_default();
        return Ok(Answer::refuse(with_notice(
            format!(
                "nothing in the archive matches '{}'{filt}. Try other or fewer words, drop the filters, or subscribe to a feed that covers it (feed.source_suggest).",
                clip(&a.query, 80)
            ),
            &notice,
        ))
        .with_options(vec!["feed.source_suggest".into(), "feed.list".into()]));
    }
    let hit_ids: Vec<i64> = hits.iter().map(|h| h.item_id).collect();
    let hit_set: HashSet<i64> = hit_ids.iter().copied().collect();
    // The hits are scored against the reader's window index (the one feed.list ranks,
    // cached) with the model fitted there: indexed with its statistics, not refitted.
    let (window, _, _, _) = window_for(ctx, &reader, LIST_DAYS).await?;
    let data = &window.data;
    let fitted = window.model(&reader.interests);
    let items = ctx.store.items(&hit_ids).await?;
    let clicks = &data.clicks;
    let verdicts: HashMap<i64, bool> = clicks.iter().map(|c| (c.item_id, c.useful)).collect();
    let mut hit_items: Vec<RankItem> = items.iter().map(RankItem::from).collect();
    let mut emb = Embeddings::Off;
    if let Some(svc) = &ctx.embed {
        emb = svc.interests(&reader.interests).await;
        if matches!(emb, Embeddings::On(_)) {
            let refs: Vec<&RankItem> = hit_items.iter().collect();
            let filled = svc.fill(&ctx.store, &refs).await?;
            if let Some(why) = filled.failure {
                emb = Embeddings::Unavailable(why);
            }
            for it in &mut hit_items {
                it.vector = filled.vectors.get(&it.id).cloned();
            }
        }
    }
    let corpus = Corpus::build_against(&data.corpus, hit_items);
    let model = fitted.transfer(&data.corpus, &corpus, &reader.interests);
    let opts = RankOptions { exclude_clicked: false, only: Some(hit_set), limit: None };
    let ranking = model.rank(&corpus, &opts, &emb);
    // Half the match (the hit's position in the full-text order), half the reader.
    let n = hit_ids.len().max(2) as f64 - 1.0;
    let match_pct: HashMap<i64, f64> = hit_ids.iter().enumerate().map(|(i, id)| (*id, i as f64 / n)).collect();
    let mut blended: Vec<(f64, f64, i64)> = ranking
        .items
        .iter()
        .map(|r| {
            let m = match_pct.get(&r.id).copied().unwrap_or(1.0);
            ((m + r.score) / 2.0, m, r.id)
        })
        .collect();
    blended.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.total_cmp(&y.1)).then(y.2.cmp(&x.2)));
    let by_id: HashMap<i64, &Item> = items.iter().map(|i| (i.id, i)).collect();
    let shown: Vec<&Item> = blended.iter().take(limit).filter_map(|(_, _, id)| by_id.get(id).copied()).collect();
    let rows: Vec<Row> = shown.iter().map(|i| row(i, verdicts.get(&i.id).copied())).collect();
    let refs = shown.iter().map(|i| item_ref(i.id, i.url.as_deref())).collect();
    let more = hits.len().saturating_sub(rows.len());
    let at_least = if hits.len() >= SEARCH_POOL { "at least " } else { "" };
    let qual = quality::assess(clicks, &ranking.terms, None);
    let line = format!(
        "{}{} {} for '{}' in the archive, best for '{}' first: {}{}",
        at_least,
        hits.len(),
        if hits.len() == 1 { "match" } else { "matches" },
        clip(&a.query, 60),
        reader.name,
        titles(&rows, 3),
        more_line(more, "matches", &format!("raise limit up to {MAX_LIMIT}, or add words, tag= or since="))
    );
    let data = Searched {
        user: reader.name.clone(),
        query: clip(&a.query, 200),
        hits: hits.len(),
        items: rows,
        more,
        quality: quality_value(&qual),
    };
    Ok(Answer::ok(with_notice(line, &notice), data).with_refs(refs).with_caveats(qual.caveat.clone()).into_value())
}

// ---- feed.read / feed.rate / feed.explain ------------------------------------------------

/// The item a call is about: by id, else by its address (link or GUID); neither is
/// asked back.
async fn item_for(ctx: &Context, tool: &str, id: Option<i64>, url: Option<&str>) -> Result<Item, Stop> {
    let id = match (id, url.map(str::trim).filter(|u| !u.is_empty())) {
        (Some(id), _) => id,
        (None, Some(u)) => item_by_url(ctx, u).await?.ok_or_else(|| {
            Stop::refuse(format!(
                "no item in the archive has the address {}; find it with feed.search, or subscribe to its feed with feed.source_add",
                clip(u, 160)
            ))
            .with_options(["feed.search", "feed.source_add"])
        })?,
        (None, None) => {
            return Err(Stop::ask_back(
                format!(
                    "Which item? Pass item_id (from feed.list or feed.search) or its url, and {tool} runs in the same call."
                ),
                [tool, "feed.list", "feed.search"],
            ));
        }
    };
    match ctx.store.item(id).await {
        Ok(Some(it)) => Ok(it),
        Ok(None) => Err(Stop::from(unknown_item(id))),
        Err(e) => Err(feed_fault(e).into()),
    }
}

async fn item_by_url(ctx: &Context, url: &str) -> Result<Option<i64>, Stop> {
    let r = sqlx::query("SELECT id FROM items WHERE url = $1 OR guid = $1 ORDER BY id LIMIT 1")
        .bind(url.trim())
        .fetch_optional(ctx.store.pool())
        .await
        .map_err(sql)?;
    Ok(r.map(|r| r.get("id")))
}

async fn read(ctx: &Context, a: ItemArgs) -> Outcome {
    let it = item_for(ctx, "feed.read", a.item_id, a.url.as_deref()).await?;
    let (reader, notice) = reader_for(ctx, "feed.read", &a.user).await?;
    ctx.store.record_engagement(reader.id, it.id, EngagementKind::Read).await?;
    let verdict = ctx.store.click(reader.id, it.id).await?.map(|c| c.useful);
    let summary = clip(&it.summary, SUMMARY_CHARS);
    let src = it
        .source
        .as_deref()
        .map(|s| format!(" ({s}, {})", &it.published[..10.min(it.published.len())]))
        .unwrap_or_default();
    let line = format!(
        "{}{src}: {}",
        clip(&it.title, 160),
        if summary.is_empty() { "no summary in the feed".to_string() } else { clip(&summary, 300) }
    );
    let refs = vec![item_ref(it.id, it.url.as_deref())];
    let data = ReadItem {
        row: row(&it, verdict),
        url: it.url.as_deref().map(|u| clip(u, URL_CHARS)),
        summary,
        doi: it.doi.clone(),
        arxiv_id: it.arxiv_id.clone(),
    };
    Ok(Answer::ok(with_notice(line, &notice), data).with_refs(refs).into_value())
}

async fn rate(ctx: &Context, a: RateArgs) -> Outcome {
    let source = match a.source.as_deref().filter(|s| !s.trim().is_empty()) {
        None => ClickSource::Agent,
        Some(s) => match s.parse::<ClickSource>() {
            Ok(c) => c,
            Err(e) => return Ok(Answer::refuse(format!("feed.rate: {e}"))),
        },
    };
    let (reader, _) = reader_for(ctx, "feed.rate", &a.user).await?;
    let it = item_for(ctx, "feed.rate", a.item_id, a.url.as_deref()).await?;
    let before = ctx.store.click(reader.id, it.id).await?;
    ctx.store.record_click(reader.id, it.id, a.useful, source).await?;
    ctx.reader_changed(reader.id);
    let clicks = ctx.store.clicks(reader.id).await?;
    let evidence: Vec<_> = clicks.iter().filter(|c| c.source.counts_as_evidence()).collect();
    let active = evidence.iter().any(|c| !c.useful);
    let w = if active { crate::rank::blend_weight(evidence.len()) } else { 0.0 };
    let verdict = if a.useful { "useful" } else { "not useful" };
    let replaced = before.as_ref().is_some_and(|b| b.useful != a.useful || b.source != source);
    let was = match &before {
        Some(b) if b.useful != a.useful => format!(" (was {})", if b.useful { "useful" } else { "not useful" }),
        _ => String::new(),
    };
    let line = format!(
        "recorded: '{}' is {verdict} to '{}'{was}. {}",
        clip(&it.title, 90),
        reader.name,
        persona::status_line(&reader.name, clicks.len(), evidence.len(), w)
    );
    let mut caveats = Vec::new();
    if !active && !evidence.is_empty() {
        caveats.push("the ratings only say useful so far, so they do not change the order yet: mark an item not useful to let them count".to_string());
    }
    let data = Rated {
        user: reader.name.clone(),
        item_id: it.id,
        useful: a.useful,
        source: source.as_str().into(),
        replaced,
        ratings: clicks.len(),
    };
    Ok(Answer::ok(line, data).with_refs(vec![item_ref(it.id, it.url.as_deref())]).with_caveats(caveats).into_value())
}

async fn explain_tool(ctx: &Context, a: ItemArgs) -> Outcome {
    let it = item_for(ctx, "feed.explain", a.item_id, a.url.as_deref()).await?;
    let (reader, notice) = reader_for(ctx, "feed.explain", &a.user).await?;
    let (window, _, _, _) = window_for(ctx, &reader, LIST_DAYS).await?;
    let data = &window.data;
    let built;
    let (corpus, model): (&Corpus, Arc<ReaderModel>) = if data.corpus.position(it.id).is_some() {
        (&data.corpus, window.model(&reader.interests))
    } else {
        let mut items: Vec<RankItem> = data.corpus.items().to_vec();
        items.push(RankItem::from(&it));
        built = Corpus::build(items);
        (&built, Arc::new(ReaderModel::fit(&built, &reader.interests, &data.clicks)))
    };
    let Some(e) = explain::explain(corpus, &model, it.id) else {
        return Ok(unknown_item(it.id));
    };
    ctx.store.record_engagement(reader.id, it.id, EngagementKind::Explain).await?;
    let line = format!("'{}': {}", clip(&it.title, 90), e.text);
    Ok(Answer::ok(with_notice(line, &notice), e).with_refs(vec![item_ref(it.id, it.url.as_deref())]).into_value())
}

// ---- feed.digest ------------------------------------------------------------------------

async fn digest(ctx: &Context, a: DigestArgs) -> Outcome {
    let limit = a.limit.count();
    let days = a.days.get();
    let (reader, notice) = reader_for(ctx, "feed.digest", &a.user).await?;
    let (window, fp, since, widened) = window_for(ctx, &reader, days).await?;
    let (window, emb, coverage) = ctx.embeddings(&reader, window, &since, &fp).await?;
    let widened = widened.into_iter().chain(coverage).collect::<Vec<_>>().join("; ");
    let widened = Some(widened).filter(|w| !w.is_empty());
    let (_, ranking) = window.rank(&reader.interests, usize::MAX, &emb);
    let measured = ctx.measured(&reader, &window, &fp).await;
    let data = &window.data;
    let q = quality::assess(&data.clicks, &ranking.terms, measured.as_ref());
    if ranking.items.is_empty() {
        return Ok(Answer::refuse(with_notice(
            format!(
                "nothing unrated for '{}' since {}; widen with days=, or run attest ingest",
                reader.name,
                &since[..10]
            ),
            &notice,
        )));
    }
    // Group by the first topic tag; untagged items by their source.
    let mut order: Vec<String> = Vec::new();
    let mut groups: HashMap<String, (usize, Vec<i64>)> = HashMap::new();
    for r in &ranking.items {
        let it = data.corpus.item(r.doc);
        let key = it.tags.iter().find(|t| persona::is_topic_tag(t)).cloned().unwrap_or_else(|| {
            format!("from {}", if it.source.is_empty() { "an unsubscribed feed" } else { &it.source })
        });
        let g = groups.entry(key.clone()).or_insert_with(|| {
            order.push(key.clone());
            (0, Vec::new())
        });
        g.0 += 1;
        if g.1.len() < 3 {
            g.1.push(r.id);
        }
    }
    let more_groups = order.len().saturating_sub(limit);
    order.truncate(limit);
    let ids: Vec<i64> = order.iter().flat_map(|k| groups[k].1.clone()).collect();
    let items: HashMap<i64, Item> = ctx.store.items(&ids).await?.into_iter().map(|i| (i.id, i)).collect();
    let mut refs = Vec::new();
    let out: Vec<Group> = order
        .iter()
        .map(|k| {
            let (count, ids) = &groups[k];
            let rows = ids
                .iter()
                .filter_map(|id| items.get(id))
                .map(|i| {
                    refs.push(item_ref(i.id, i.url.as_deref()));
                    let mut r = row(i, None);
                    r.title = clip(&r.title, 80);
                    r.tags.truncate(2);
                    r
                })
                .collect();
            Group { topic: clip(k, 48), count: *count, items: rows }
        })
        .collect();
    refs.truncate(MAX_LIMIT as usize);
    let heads: Vec<String> = out.iter().map(|g| format!("{} ({})", g.topic, g.count)).collect();
    let line = format!(
        "'{}' since {}: {} unrated items in {} topics, best topic first: {}{}",
        reader.name,
        &since[..10],
        ranking.candidates,
        out.len() + more_groups,
        heads.join(", "),
        more_line(more_groups, "topics", &format!("raise limit up to {MAX_LIMIT}"))
    );
    let data = Digest {
        user: reader.name.clone(),
        since,
        candidates: ranking.candidates,
        groups: out,
        more_groups,
        quality: quality_value(&q),
    };
    Ok(Answer::ok(with_notice(line, &notice), data)
        .with_refs(refs)
        .with_caveats(widened.into_iter().chain(q.caveat.clone()))
        .into_value())
}

// ---- personas ---------------------------------------------------------------------------

/// The reader a persona tool is about: the name a question states, else `user`.
fn named<'a>(name: &'a Option<String>, user: &'a str) -> &'a str {
    name.as_deref().filter(|n| !n.trim().is_empty()).unwrap_or(user)
}

fn persona_data(r: &Reader, ratings: usize) -> Persona {
    Persona {
        user: r.name.clone(),
        interests: clip(&r.interests, 2_000),
        ratings,
        quality: None,
        liked: Vec::new(),
        disliked: Vec::new(),
    }
}

async fn persona_create(ctx: &Context, a: CreateArgs) -> Outcome {
    let name = match persona::validate_name(named(&a.name, &a.user)) {
        Ok(n) => n,
        Err(e) => return Ok(Answer::refuse(format!("feed.persona_create: {e}"))),
    };
    let interests = match persona::validate_interests(&a.interests) {
        Ok(i) => i,
        Err(e) => {
            return Ok(Answer::refuse(format!(
                "feed.persona_create: {e} (feed.persona_suggest_interests lists what the archive covers)"
            ))
            .with_options(vec!["feed.persona_suggest_interests".into()]));
        }
    };
    match ctx.store.create_reader(&name, &interests).await {
        Ok(r) => {
            ctx.reader_changed(r.id);
            Ok(Answer::ok(
                format!("created reader '{}' with interests: {}", r.name, clip(&r.interests, 300)),
                persona_data(&r, 0),
            )
            .into_value())
        }
        Err(FeedError::ReaderExists(n)) => Ok(Answer::refuse(format!(
            "a reader named '{n}' already exists; change their interests with feed.persona_update, or pick another name"
        ))
        .with_options(vec!["feed.persona_update".into(), "feed.persona_status".into()])),
        Err(e) => Err(e.into()),
    }
}

async fn persona_update(ctx: &Context, a: UpdateArgs) -> Outcome {
    let (reader, _) = reader_for(ctx, "feed.persona_update", named(&a.name, &a.user)).await?;
    let text = if a.append { format!("{}, {}", reader.interests, a.interests.trim()) } else { a.interests.clone() };
    if a.interests.trim().is_empty() {
        return Ok(Answer::refuse(format!(
            "feed.persona_update needs interests: the topics '{}' wants to read about (now: {})",
            reader.name,
            clip(&reader.interests, 200)
        )));
    }
    let interests = match persona::validate_interests(&text) {
        Ok(i) => i,
        Err(e) => return Ok(Answer::refuse(format!("feed.persona_update: {e}"))),
    };
    let r = ctx.store.update_interests(reader.id, &interests).await?;
    ctx.reader_changed(r.id);
    let n = ctx.store.clicks(r.id).await?.len();
    Ok(Answer::ok(
        format!("'{}' now reads about: {} ({} kept)", r.name, clip(&r.interests, 300), plural(n, "rating", "ratings")),
        persona_data(&r, n),
    )
    .into_value())
}

async fn persona_status(ctx: &Context, a: UserArgs) -> Outcome {
    let (reader, _) = reader_for(ctx, "feed.persona_status", &a.user).await?;
    let (window, fp, since, _) = window_for(ctx, &reader, LIST_DAYS).await?;
    let (window, emb, _) = ctx.embeddings(&reader, window, &since, &fp).await?;
    let (model, ranking) = window.rank(&reader.interests, 1, &emb);
    let measured = ctx.measured(&reader, &window, &fp).await;
    let q = quality::assess(&window.data.clicks, &ranking.terms, measured.as_ref());
    let key = |(k, c): (String, crate::rank::KeyCounts)| format!("{k} ({} of {})", c.useful, c.useful + c.not_useful);
    let liked: Vec<String> = model.preferences.liked(4).into_iter().map(key).collect();
    let disliked: Vec<String> = model.preferences.disliked(4).into_iter().map(key).collect();
    let mut line = format!(
        "{}. Interests: {}",
        persona::status_line(&reader.name, q.clicks, q.evidence_clicks, ranking.terms.blend_weight),
        clip(&reader.interests, 200)
    );
    if let Some(m) = &q.measured {
        line.push_str(&format!("; held out: AUC {:.3}, precision@5 {:.2}", m.auc, m.precision_at_5));
    }
    let mut d = persona_data(&reader, q.clicks);
    d.quality = Some(quality_value(&q));
    d.liked = liked;
    d.disliked = disliked;
    Ok(Answer::ok(line, d).with_caveats(q.caveat.clone()).into_value())
}

async fn persona_reset(ctx: &Context, a: ConfirmArgs) -> Outcome {
    let (reader, _) = reader_for(ctx, "feed.persona_reset", named(&a.name, &a.user)).await?;
    let n = ctx.store.clicks(reader.id).await?.len();
    if let Err(msg) = persona::require_confirm(Destructive::Reset, a.confirm, &reader.name, n) {
        return Ok(Answer::refuse(msg).with_options(vec!["feed.persona_reset".into()]));
    }
    let w = ctx.store.reset_reader(reader.id).await?;
    ctx.reader_changed(reader.id);
    Ok(Answer::ok(
        format!(
            "reset '{}': erased {} and {} of reading history; interests kept",
            reader.name,
            plural(w.clicks as usize, "rating", "ratings"),
            plural(w.engagement as usize, "entry", "entries")
        ),
        persona_data(&reader, 0),
    )
    .into_value())
}

async fn persona_delete(ctx: &Context, a: ConfirmArgs) -> Outcome {
    let (reader, _) = reader_for(ctx, "feed.persona_delete", named(&a.name, &a.user)).await?;
    let n = ctx.store.clicks(reader.id).await?.len();
    if let Err(msg) = persona::require_confirm(Destructive::Delete, a.confirm, &reader.name, n) {
        return Ok(Answer::refuse(msg).with_options(vec!["feed.persona_delete".into()]));
    }
    let w = ctx.store.delete_reader(reader.id).await?;
    ctx.invalidate();
    Ok(Answer::ok(
        format!("deleted reader '{}' with {}", reader.name, plural(w.clicks as usize, "rating", "ratings")),
        persona_data(&reader, 0),
    )
    .into_value())
}

async fn persona_suggest_interests(ctx: &Context, a: SuggestArgs) -> Outcome {
    let limit = a.limit.count();
    let tags = ctx.store.tag_counts(500).await?;
    let top = persona::suggest_interests(&tags, limit);
    if top.is_empty() {
        return Ok(Answer::refuse(
            "the archive has no topic tags to suggest from yet: subscribe to feeds (feed.source_add) and ingest them, or write the interests in your own words",
        ));
    }
    let current = match a.user.as_deref().filter(|u| !u.trim().is_empty()) {
        Some(u) => ctx.store.reader(u).await?,
        None => None,
    };
    let out: Vec<Suggestion> = top
        .iter()
        .map(|t| Suggestion { name: t.tag.clone(), items: t.items, why: "a common topic tag in the archive".into() })
        .collect();
    let mut line = format!(
        "the archive mostly covers: {}",
        top.iter().map(|t| format!("{} ({})", t.tag.replace('-', " "), t.items)).collect::<Vec<_>>().join(", ")
    );
    if let Some(r) = &current {
        line.push_str(&format!("; '{}' now reads about: {}", r.name, clip(&r.interests, 150)));
    }
    line.push_str(". Set them with feed.persona_update.");
    Ok(Answer::ok(line, out).with_options(vec![]).into_value())
}

async fn harvest_engagement(ctx: &Context, a: UserArgs) -> Outcome {
    let (reader, _) = reader_for(ctx, "feed.harvest_engagement", &a.user).await?;
    let h = ctx.store.harvest_engagement(reader.id).await?;
    if h.recorded > 0 {
        ctx.reader_changed(reader.id);
    }
    Ok(Answer::ok(
        format!(
            "'{}': {} recorded as implicit useful from {} read or explained ({} already rated)",
            reader.name,
            plural(h.recorded as usize, "item", "items"),
            plural(h.candidates as usize, "item", "items"),
            h.already_rated
        ),
        h,
    )
    .with_caveats(if h.recorded > 0 {
        vec!["implicit ratings are weak evidence (reading is not liking): rate items with feed.rate to teach the ranking properly"]
    } else {
        vec![]
    })
    .into_value())
}

// ---- sources ----------------------------------------------------------------------------

/// The feed address a call is about: none is asked back, one too long refused.
fn feed_address(tool: &str, url: &str) -> Result<(), Stop> {
    let u = url.trim();
    if u.is_empty() {
        return Err(Stop::ask_back("Which feed? Pass its address as url=https://….", [tool, "feed.source_suggest"]));
    }
    if u.chars().count() > 2_000 {
        return Err(Stop::refuse("that address is over 2,000 characters; give the feed's own address"));
    }
    Ok(())
}

async fn source_add(ctx: &Context, a: SourceAddArgs) -> Outcome {
    feed_address("feed.source_add", &a.url)?;
    let a = SourceAddArgs { url: a.url.trim().to_string(), ..a };
    if let Err(e) = crate::fetch::locate(&a.url, ctx.fetcher.options().allow_local) {
        return Ok(Answer::refuse(format!("{e}. Nothing was subscribed.")));
    }
    if let Some(f) = ctx.store.feed_by_url(&a.url).await? {
        return Ok(Answer::ok(
            format!(
                "already subscribed to {} (feed {}, {})",
                f.title.as_deref().unwrap_or(&f.url),
                f.id,
                plural(f.item_count as usize, "item", "items")
            ),
            source_row(&f),
        )
        .into_value());
    }
    if !a.fetch {
        let sub = ctx.store.subscribe(&a.url, a.title.as_deref()).await?;
        mark_seeded(ctx).await?;
        ctx.invalidate();
        return Ok(Answer::ok(
            format!(
                "registered {} as feed {}; it is fetched at the next attest ingest",
                clip(&sub.feed.url, 200),
                sub.feed.id
            ),
            source_row(&sub.feed),
        )
        .with_caveats(["not fetched yet, so not checked to be a feed"])
        .into_value());
    }
    // Check it is a feed before subscribing: a page that is not one is refused and
    // nothing is stored.
    ingest::preview(&ctx.fetcher, &a.url, 1).await?;
    let sub = ctx.store.subscribe(&a.url, a.title.as_deref()).await?;
    mark_seeded(ctx).await?;
    let out = ingest::ingest_feed(&ctx.store, &ctx.fetcher, &sub.feed).await;
    ctx.invalidate();
    let feed = ctx.store.feed(sub.feed.id).await?.unwrap_or(sub.feed);
    match out {
        Ok(o) => Ok(Answer::ok(
            format!(
                "subscribed to {} (feed {}): {} added, {} already in the archive",
                feed.title.as_deref().map(|t| clip(t, 80)).unwrap_or_else(|| clip(&feed.url, 120)),
                feed.id,
                plural(o.added, "item", "items"),
                o.skipped
            ),
            source_row(&feed),
        )
        .into_value()),
        Err(e) => {
            let mut r = fault(e)?;
            r.answer.push_str(&format!(
                " The subscription (feed {}) was kept; it is retried at the next attest ingest, or remove it with feed.source_remove.",
                feed.id
            ));
            Ok(r)
        }
    }
}

async fn mark_seeded(ctx: &Context) -> Result<(), FeedError> {
    // A database that got its feeds from an agent is no longer seeded from a file.
    if ctx.store.meta("seeded_at").await?.is_none() {
        ctx.store.set_meta("seeded_at", &now_stamp()).await?;
    }
    Ok(())
}

fn source_row(f: &crate::model::Feed) -> Source {
    Source {
        feed_id: f.id,
        title: f.title.as_deref().map(|t| clip(t, 80)),
        url: clip(&f.url, URL_CHARS),
        items: f.item_count,
        last_fetched: f.last_fetched.clone(),
        last_error: f.last_error.as_deref().map(|e| clip(e, 200)),
    }
}

async fn source_remove(ctx: &Context, a: SourceRemoveArgs) -> Outcome {
    let feed = match (a.feed_id, a.url.as_deref().filter(|u| !u.trim().is_empty())) {
        (Some(id), _) => ctx.store.feed(id).await?,
        (None, Some(u)) => ctx.store.feed_by_url(u).await?,
        (None, None) => {
            return Ok(Answer::refuse("feed.source_remove needs feed_id (from feed.sources) or the feed's url")
                .with_options(vec!["feed.sources".into()]));
        }
    };
    let Some(feed) = feed else {
        let what = a
            .feed_id
            .map(|i| format!("feed_id {i}"))
            .unwrap_or_else(|| format!("'{}'", clip(a.url.as_deref().unwrap_or(""), 120)));
        return Ok(Answer::refuse(format!("no subscription matches {what}; feed.sources lists them with their ids"))
            .with_options(vec!["feed.sources".into()]));
    };
    let kept = ctx.store.unsubscribe(feed.id).await?;
    ctx.invalidate();
    Ok(Answer::ok(
        format!(
            "unsubscribed from {} (feed {}); its {} stay in the archive with their ratings",
            feed.title.as_deref().map(|t| clip(t, 80)).unwrap_or_else(|| clip(&feed.url, 120)),
            feed.id,
            plural(kept as usize, "item", "items")
        ),
        source_row(&feed),
    )
    .into_value())
}

async fn source_preview(ctx: &Context, a: PreviewArgs) -> Outcome {
    let limit = a.limit.count();
    feed_address("feed.source_preview", &a.url)?;
    let p = ingest::preview(&ctx.fetcher, &a.url, limit).await?;
    let entries: Vec<(String, Option<String>)> =
        p.entries.iter().map(|(t, u)| (clip(t, TITLE_CHARS), u.as_deref().map(|u| clip(u, URL_CHARS)))).collect();
    let first: Vec<String> = entries.iter().take(3).map(|(t, _)| clip(t, 70)).collect();
    let line = format!(
        "{} is a feed{} with {}: {}{}. Subscribe with feed.source_add.",
        clip(a.url.trim(), 120),
        p.title.as_deref().map(|t| format!(" titled '{}'", clip(t, 80))).unwrap_or_default(),
        plural(p.total, "entry", "entries"),
        first.join("; "),
        more_line(p.total.saturating_sub(entries.len()), "entries", "raise limit to see more")
    );
    let data = ingest::Preview { title: p.title.map(|t| clip(&t, 120)), total: p.total, entries };
    Ok(Answer::ok(line, data).with_options(vec![]).into_value())
}

async fn source_suggest(ctx: &Context, a: SuggestArgs) -> Outcome {
    let limit = a.limit.count();
    let reader = match a.user.as_deref().filter(|u| !u.trim().is_empty()) {
        Some(u) => ctx.store.reader(u).await?,
        None => None,
    };
    // arXiv categories the archive carries, weighted up by the reader's useful ratings.
    let tags = ctx.store.tag_counts(1_000).await?;
    let mut weight: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (t, n) in &tags {
        if let Some(cat) = arxiv_category(t) {
            weight.entry(cat).or_default().0 += (*n).max(0) as usize;
        }
    }
    if let Some(r) = &reader {
        for (it, c) in ctx.store.clicked_items(r.id).await? {
            if c.useful {
                for t in &it.tags {
                    if let Some(cat) = arxiv_category(t) {
                        weight.entry(cat).or_default().1 += 1;
                    }
                }
            }
        }
    }
    let subscribed: HashSet<String> = ctx.store.feeds().await?.into_iter().map(|f| f.url.to_lowercase()).collect();
    let mut out: Vec<(usize, usize, String)> = weight
        .into_iter()
        .map(|(cat, (n, liked))| (liked, n, cat))
        .filter(|(_, _, cat)| !subscribed.iter().any(|u| u.contains("arxiv") && u.contains(&cat.to_lowercase())))
        .collect();
    out.sort_by(|x, y| y.0.cmp(&x.0).then(y.1.cmp(&x.1)).then(x.2.cmp(&y.2)));
    let total = out.len();
    out.truncate(limit);
    if out.is_empty() {
        return Ok(Answer::refuse(
            "no feed to suggest: the archive carries no arXiv category that a subscription does not already cover. Subscribe to a journal's or blog's own feed with feed.source_add(url), after feed.source_preview(url) to check it.",
        )
        .with_options(vec!["feed.source_add".into(), "feed.source_preview".into()]));
    }
    let rows: Vec<Suggestion> = out
        .iter()
        .map(|(liked, n, cat)| Suggestion {
            name: format!("https://rss.arxiv.org/rss/{cat}"),
            items: *n,
            why: if *liked > 0 {
                format!("arXiv {cat}: {n} items in the archive, {liked} rated useful")
            } else {
                format!("arXiv {cat}: {n} items in the archive (cross-listed), no subscription")
            },
        })
        .collect();
    let line = format!(
        "feeds you could add: {}{}. Preview with feed.source_preview, subscribe with feed.source_add.",
        rows.iter().map(|r| r.name.clone()).collect::<Vec<_>>().join(", "),
        more_line(total.saturating_sub(rows.len()), "categories", &format!("raise limit up to {MAX_LIMIT}"))
    );
    Ok(Answer::ok(line, rows).with_options(vec![]).into_value())
}

/// `cs.lg` → `cs.LG`, `physics.chem-ph` → `physics.chem-ph`; other tags → None.
fn arxiv_category(tag: &str) -> Option<String> {
    const ARCHIVES: &[&str] = &[
        "cs", "math", "stat", "physics", "q-bio", "q-fin", "eess", "econ", "astro-ph", "cond-mat", "quant-ph",
        "hep-th", "nlin",
    ];
    let t = tag.trim().to_lowercase();
    let (arch, sub) = t.split_once('.')?;
    if !ARCHIVES.contains(&arch) || sub.is_empty() || !sub.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return None;
    }
    let sub = if matches!(arch, "cs" | "math" | "stat" | "q-bio" | "q-fin" | "eess" | "econ") && sub.len() <= 2 {
        sub.to_uppercase()
    } else {
        sub.to_string()
    };
    Some(format!("{arch}.{sub}"))
}

async fn sources(ctx: &Context, a: SourcesArgs) -> Outcome {
    let limit = a.limit.count();
    let mut feeds = ctx.store.feeds().await?;
    if feeds.is_empty() {
        return Ok(Answer::refuse(
            "no subscriptions yet: add one with feed.source_add(url), or seed a new database with attest ingest --feeds FILE",
        )
        .with_options(vec!["feed.source_add".into(), "feed.source_suggest".into()]));
    }
    feeds.sort_by_key(|f| f.last_error.is_none());
    let total = feeds.len();
    let failing = feeds.iter().filter(|f| f.last_error.is_some()).count();
    let shown: Vec<Source> = feeds.iter().take(limit).map(source_row).collect();
    let names: Vec<String> = shown
        .iter()
        .map(|s| {
            format!(
                "{} [{}] ({} items{})",
                s.title.as_deref().unwrap_or(&s.url),
                s.feed_id,
                s.items,
                if s.last_error.is_some() { ", failing" } else { "" }
            )
        })
        .collect();
    let line = format!(
        "{}{}: {}{}",
        plural(total, "subscription", "subscriptions"),
        if failing > 0 { format!(", {failing} failing at their last fetch") } else { String::new() },
        names.join("; "),
        more_line(total.saturating_sub(shown.len()), "subscriptions", &format!("raise limit up to {MAX_LIMIT}"))
    );
    let refs = shown.iter().map(|s| Ref::with_url(format!("feed:{}", s.feed_id), s.url.clone())).collect();
    Ok(Answer::ok(line, Sources { feeds: shown, total, failing }).with_refs(refs).into_value())
}
