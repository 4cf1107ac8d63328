//! The [`Context`] the feed tools share, and its ranking cache: each reader's indexed
//! window ([`Window`]) with the model fitted on it, kept under a [`Fingerprint`] of the
//! archive and the reader's ratings, and the held-out evaluation behind the quality note.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use time::OffsetDateTime;

use crate::embed::EmbedService;
use crate::eval::{self, Evaluation};
use crate::model::{ClickSource, Reader, parse_stamp, stamp};
use crate::rank::{Embeddings, Ranking, ReaderData, ReaderModel};
use crate::{FeedError, FeedStore};

/// Cached windows kept at most (all readers together).
const MAX_CACHED: usize = 32;

/// What the tools over the archive share: the store, the embedding service, and the
/// per-reader ranking cache. (The feed crate's context adds the fetcher and the web
/// research settings on top of this one.)
pub struct Context {
    /// The feed data.
    pub store: FeedStore,
    /// The embedding server, when one is configured (`EMBED_BASE_URL`).
    pub embed: Option<Arc<EmbedService>>,
    cache: tokio::sync::Mutex<HashMap<(i64, Option<String>), Cached>>,
    evals: tokio::sync::Mutex<HashMap<i64, CachedEval>>,
    /// Bumped by this process's writes to the archive (and by [`Context::invalidate`]).
    generation: AtomicU64,
    /// Bumped per reader by this process's writes to that reader's ratings or persona.
    reader_generations: std::sync::Mutex<HashMap<i64, u64>>,
    /// Serving another surface's search only (the knowledge surface's `feed.search`):
    /// no reader is created, and refusals point to the feed surface for that.
    search_only: bool,
    /// How a person fills an empty archive from the surface serving this context, and
    /// the tools that do it: said when a read finds nothing to rank.
    fill: (&'static str, &'static [&'static str]),
    /// What each client session was last shown ([`super::shown`]).
    shown: super::shown::ShownMemory,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context").field("embed", &self.embed).finish_non_exhaustive()
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
pub struct Window {
    /// The window's candidates and rated items, indexed.
    pub data: Arc<ReaderData>,
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
    pub fn model(&self, interests: &str) -> Arc<ReaderModel> {
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
    pub fn rank(&self, interests: &str, limit: usize, embeddings: &Embeddings) -> (Arc<ReaderModel>, Ranking) {
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
pub struct Fingerprint {
    archive: ArchiveState,
    clicks: i64,
    useful: i64,
    last_click: Option<String>,
    verdicts: i64,
    reader_generation: u64,
}

impl Context {
    /// A context over a store, with no embedding server (words only).
    pub fn new(store: FeedStore) -> Context {
        Context {
            store,
            embed: None,
            cache: Default::default(),
            evals: Default::default(),
            generation: AtomicU64::new(0),
            reader_generations: Default::default(),
            search_only: false,
            fill: ("fill it on the feed surface (attest-feed) or with `attest ingest`", &[]),
            shown: Default::default(),
        }
    }

    /// Say how to fill an empty archive from the serving surface (`text`, completing
    /// "the archive is empty: …"), offering `tools`.
    pub fn with_fill_hint(mut self, text: &'static str, tools: &'static [&'static str]) -> Context {
        self.fill = (text, tools);
        self
    }

    /// Remember the items an answer of `tool` showed `reader` in the current session
    /// (ids with titles, in the order shown), so a reply with no item id can be about
    /// them. An answer that showed nothing changes nothing.
    pub fn remember_shown(&self, tool: &'static str, reader: &str, items: Vec<(i64, String)>) {
        self.shown.remember(tool, reader, items);
    }

    /// What the current session was last shown, if anything.
    pub fn last_shown(&self) -> Option<super::shown::Shown> {
        self.shown.last()
    }

    /// How to fill an empty archive, and the tools that do it.
    pub fn fill_hint(&self) -> (&'static str, &'static [&'static str]) {
        self.fill
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

    /// Whether this context serves another surface's search only (see
    /// [`Context::search_only`]).
    pub fn is_search_only(&self) -> bool {
        self.search_only
    }

    /// The embedding side of ranking a cached window: the interests vector (or why
    /// there is none) and the window with the candidates' vectors attached (stored
    /// ones, plus a bounded number embedded now), kept in the cache for the next call;
    /// and a caveat when the vectors cover only part of the window.
    pub async fn embeddings(
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

    async fn fingerprint(&self, reader_id: i64) -> Result<Fingerprint, FeedError> {
        let r = self.store.ranking_state(reader_id).await?;
        Ok(Fingerprint {
            archive: ArchiveState {
                max_item: r.max_item,
                feeds: r.feeds,
                last_fetched: r.last_fetched,
                generation: self.generation.load(Ordering::SeqCst),
            },
            clicks: r.clicks,
            useful: r.useful,
            last_click: r.last_click,
            verdicts: r.verdicts,
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
    pub async fn measured(&self, reader: &Reader, window: &Window, fp: &Fingerprint) -> Option<Evaluation> {
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

fn since_days(days: i64) -> String {
    // Whole UTC days, so the window (and its cache key) changes once a day, not per call.
    let t = OffsetDateTime::now_utc() - time::Duration::days(days);
    format!("{}T00:00:00Z", stamp(t).get(..10).unwrap_or("1970-01-01"))
}

/// The reader's window: the last `days` days, or, when nothing unrated was published
/// then, the `days` days up to the newest item (said in a caveat).
pub async fn window_for(
    ctx: &Context,
    reader: &Reader,
    days: i64,
) -> Result<(Arc<Window>, Fingerprint, String, Option<String>), FeedError> {
    let since = since_days(days);
    let (data, fp) = ctx.window(reader.id, Some(since.clone())).await?;
    if !data.data.candidates.is_empty() {
        return Ok((data, fp, since, None));
    }
    let newest = ctx.store.newest_published().await?;
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
