//! Embeddings for ranking, when an embedding server is configured (`EMBED_BASE_URL`):
//! the service (an [`Embedder`] with its model key and a short back-off after a
//! failure), the stored item vectors (table `item_vectors`), and filling them lazily.
//!
//! **Lazily, at ranking time.** Ingest never embeds (it must work with no server, and a
//! slow server must not slow it). Each ranking call with a server configured first asks
//! it for the interests vector (which also tells whether it is up), then attaches the
//! candidates' stored vectors and embeds at most [`EMBED_PER_CALL`] of those still
//! missing, storing them in one transaction. A large backlog therefore fills over a
//! few calls, and the answer says how much of the list the embeddings cover meanwhile.
//! Any failure (refused, timed out, HTTP error, not JSON, wrong dimensions) degrades to
//! [`Embeddings::Unavailable`]: ranking goes on by words and the quality note says why.
//! After a failure the server is not asked again for [`RETRY_AFTER`], so a dead server
//! costs one timeout, not one per call.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sqlx::Row as _;

use crate::rank::{EmbedError, EmbedKind, Embedder, Embeddings, RankItem, ReaderData};
use crate::{FeedStore, Result, clean, model};

/// Items embedded at most per ranking call.
pub const EMBED_PER_CALL: usize = 64;
/// How long a failed server is left alone before it is asked again.
pub const RETRY_AFTER: Duration = Duration::from_secs(30);
/// Characters of an item's summary sent to the server.
pub const DOCUMENT_CHARS: usize = 2_000;
/// Longest `IN (…)` list per statement.
const CHUNK: usize = 500;

/// An item's text as it is embedded: the original's document prompt,
/// `title: <title or none> | text: <summary>` (summary clipped to [`DOCUMENT_CHARS`]).
pub fn document_text(title: &str, summary: &str) -> String {
    let title = if title.trim().is_empty() { "none" } else { title.trim() };
    let summary: String = summary.chars().take(DOCUMENT_CHARS).collect();
    format!("title: {title} | text: {}", summary.trim())
}

/// An embedder plus what its vectors are stored under.
pub struct EmbedService {
    embedder: Arc<dyn Embedder>,
    key: String,
    per_call: usize,
    retry_after: Duration,
    down: Mutex<Option<(Instant, String)>>,
}

impl std::fmt::Debug for EmbedService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbedService")
            .field("embedder", &self.embedder.describe())
            .field("key", &self.key)
            .field("per_call", &self.per_call)
            .finish()
    }
}

/// Vectors found or made for some items.
#[derive(Debug, Clone, Default)]
pub struct Filled {
    /// Item id → unit vector (stored ones and new ones).
    pub vectors: HashMap<i64, Vec<f32>>,
    /// How many were embedded (and stored) by this call.
    pub embedded: usize,
    /// Why embedding stopped, if it failed.
    pub failure: Option<String>,
}

/// The embedding side of one ranking of a reader's window.
#[derive(Debug, Clone)]
pub struct WindowEmbeddings {
    /// What ranking gets.
    pub embeddings: Embeddings,
    /// Vectors to attach to the window's index (not yet attached).
    pub attach: HashMap<i64, Vec<f32>>,
    /// A caveat when the vectors cover only part of the candidates.
    pub coverage: Option<String>,
}

impl EmbedService {
    /// A service over an embedder whose vectors are stored under `key` (the model name
    /// and truncation, e.g. `embeddinggemma@256`).
    pub fn new(embedder: Arc<dyn Embedder>, key: impl Into<String>) -> EmbedService {
        EmbedService {
            embedder,
            key: key.into(),
            per_call: EMBED_PER_CALL,
            retry_after: RETRY_AFTER,
            down: Mutex::new(None),
        }
    }

    /// Embed at most `n` items per call (default [`EMBED_PER_CALL`]).
    pub fn with_per_call(mut self, n: usize) -> EmbedService {
        self.per_call = n.max(1);
        self
    }

    /// Wait this long after a failure before asking the server again (default
    /// [`RETRY_AFTER`]; zero asks every time).
    pub fn with_retry_after(mut self, d: Duration) -> EmbedService {
        self.retry_after = d;
        self
    }

    /// The key vectors are stored under.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The embedder's own description ("embeddinggemma at http://localhost:11434/v1").
    pub fn describe(&self) -> String {
        self.embedder.describe()
    }

    fn recently_failed(&self) -> Option<String> {
        let down = self.down.lock().unwrap_or_else(|p| p.into_inner());
        match &*down {
            Some((at, why)) if at.elapsed() < self.retry_after => {
                Some(format!("{why}; not asked again for {} s after a failure", self.retry_after.as_secs().max(1)))
            }
            _ => None,
        }
    }

    fn mark(&self, failure: Option<&str>) {
        let mut down = self.down.lock().unwrap_or_else(|p| p.into_inner());
        *down = failure.map(|w| (Instant::now(), w.to_string()));
    }

    /// Run the embedder on a blocking thread.
    async fn call(&self, texts: Vec<String>, kind: EmbedKind) -> std::result::Result<Vec<Vec<f32>>, EmbedError> {
        let e = Arc::clone(&self.embedder);
        let n = texts.len();
        let out = match tokio::task::spawn_blocking(move || e.embed(&texts, kind)).await {
            Ok(r) => r,
            Err(j) => Err(EmbedError(format!("embedding task failed: {j}"))),
        };
        match out {
            Ok(v) if v.len() == n && v.iter().all(|x| !x.is_empty()) => Ok(v),
            Ok(v) => Err(EmbedError(format!("{} vectors for {n} texts", v.len()))),
            Err(e) => Err(EmbedError(format!("{}: {e}", self.describe()))),
        }
    }

    /// Unit vectors for these texts, embedded as documents, or why there are none (the
    /// server failed now, or recently: a failure is remembered for the back-off).
    pub async fn embed_documents(&self, texts: Vec<String>) -> std::result::Result<Vec<Vec<f32>>, String> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(why) = self.recently_failed() {
            return Err(why);
        }
        match self.call(texts, EmbedKind::Document).await {
            Ok(v) => {
                self.mark(None);
                Ok(v.into_iter().map(unit).collect())
            }
            Err(e) => {
                self.mark(Some(&e.0));
                Err(e.0)
            }
        }
    }

    /// The interests vector, or why there is none. A failure is remembered for
    /// [`RETRY_AFTER`].
    pub async fn interests(&self, interests: &str) -> Embeddings {
        if interests.trim().is_empty() {
            return Embeddings::Unavailable("the reader has no interests text to embed".into());
        }
        if let Some(why) = self.recently_failed() {
            return Embeddings::Unavailable(why);
        }
        match self.call(vec![interests.to_string()], EmbedKind::Query).await {
            Ok(mut v) => {
                self.mark(None);
                Embeddings::On(unit(v.remove(0)))
            }
            Err(e) => {
                self.mark(Some(&e.0));
                Embeddings::Unavailable(e.0)
            }
        }
    }

    /// Vectors for these items: the stored ones (for this key and the item's current
    /// text), then at most the per-call budget embedded and stored in one transaction
    /// (when the database is busy with another writer they are used but not stored).
    pub async fn fill(&self, store: &FeedStore, items: &[&RankItem]) -> Result<Filled> {
        let ids: Vec<i64> = items.iter().map(|i| i.id).collect();
        let mut vectors = stored_vectors(store, &self.key, &ids).await?;
        let missing: Vec<&RankItem> =
            items.iter().copied().filter(|i| !vectors.contains_key(&i.id)).take(self.per_call).collect();
        let mut filled = Filled::default();
        if !missing.is_empty() {
            if let Some(why) = self.recently_failed() {
                filled.failure = Some(why);
            } else {
                let texts: Vec<String> = missing.iter().map(|i| document_text(&i.title, &i.summary)).collect();
                match self.call(texts, EmbedKind::Document).await {
                    Ok(vs) => {
                        let rows: Vec<(i64, String, Vec<f32>)> = missing
                            .iter()
                            .zip(vs)
                            .map(|(i, v)| (i.id, clean::content_hash(&i.title, &i.summary), unit(v)))
                            .collect();
                        match save_vectors(store, &self.key, &rows).await {
                            Ok(()) => filled.embedded = rows.len(),
                            // Another process is writing (an ingest): use the vectors for
                            // this ranking and store them another time.
                            Err(e) if e.is_busy() => tracing::debug!("item vectors not stored now: {e}"),
                            Err(e) => return Err(e),
                        }
                        vectors.extend(rows.into_iter().map(|(id, _, v)| (id, v)));
                    }
                    Err(e) => {
                        self.mark(Some(&e.0));
                        filled.failure = Some(e.0);
                    }
                }
            }
        }
        filled.vectors = vectors;
        Ok(filled)
    }

    /// The embedding side of ranking a reader's window: the interests vector, and
    /// vectors for the candidates that do not carry one yet.
    pub async fn for_window(&self, store: &FeedStore, data: &ReaderData, interests: &str) -> Result<WindowEmbeddings> {
        let embeddings = self.interests(interests).await;
        let mut out = WindowEmbeddings { embeddings, attach: HashMap::new(), coverage: None };
        if !matches!(out.embeddings, Embeddings::On(_)) {
            return Ok(out);
        }
        // Newest first, so a backlog is embedded from the top of the feed down.
        let mut lacking: Vec<&RankItem> =
            data.corpus.items().iter().filter(|i| data.candidates.contains(&i.id) && i.vector.is_none()).collect();
        lacking.sort_by(|a, b| b.published.cmp(&a.published).then(b.id.cmp(&a.id)));
        if lacking.is_empty() {
            return Ok(out);
        }
        let filled = self.fill(store, &lacking).await?;
        if let Some(why) = filled.failure {
            out.embeddings = Embeddings::Unavailable(why);
        }
        let covered = data.candidates.len() - lacking.len() + filled.vectors.len();
        if covered < data.candidates.len() && matches!(out.embeddings, Embeddings::On(_)) {
            out.coverage = Some(format!(
                "embeddings cover {covered} of {} candidates so far (up to {} more are embedded per call); the rest are ranked by words",
                data.candidates.len(),
                self.per_call
            ));
        }
        out.attach = filled.vectors;
        Ok(out)
    }
}

fn unit(mut v: Vec<f32>) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 && n.is_finite() {
        v.iter_mut().for_each(|x| *x /= n);
    }
    v
}

/// Little-endian f32 components.
pub fn encode(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The inverse of [`encode`]; `None` for a length that is not a whole number of f32s.
pub fn decode(b: &[u8]) -> Option<Vec<f32>> {
    if b.is_empty() || !b.len().is_multiple_of(4) {
        return None;
    }
    Some(b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

/// Stored vectors of these items under `key`, skipping any computed from text the item
/// no longer has.
pub async fn stored_vectors(store: &FeedStore, key: &str, ids: &[i64]) -> Result<HashMap<i64, Vec<f32>>> {
    let mut out = HashMap::new();
    let unique: Vec<i64> = ids.iter().copied().collect::<HashSet<_>>().into_iter().collect();
    for chunk in unique.chunks(CHUNK) {
        let marks: Vec<String> = (0..chunk.len()).map(|i| format!("${}", i + 2)).collect();
        let sql = format!(
            "SELECT v.item_id, v.vector FROM item_vectors v JOIN items i ON i.id = v.item_id \
             AND i.content_hash = v.content_hash WHERE v.model = $1 AND v.item_id IN ({})",
            marks.join(", ")
        );
        let mut q = sqlx::query(&sql).bind(key);
        for id in chunk {
            q = q.bind(id);
        }
        for r in q.fetch_all(store.pool()).await? {
            let bytes: Vec<u8> = r.get("vector");
            if let Some(v) = decode(&bytes) {
                out.insert(r.get::<i64, _>("item_id"), v);
            }
        }
    }
    Ok(out)
}

/// Store vectors `(item id, content hash of the embedded text, vector)` under `key`, in
/// one transaction (all or nothing). Items deleted meanwhile are skipped.
pub async fn save_vectors(store: &FeedStore, key: &str, rows: &[(i64, String, Vec<f32>)]) -> Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let now = model::now_stamp();
    let mut tx = store.write_tx().await?;
    for (id, hash, v) in rows {
        sqlx::query(
            "INSERT INTO item_vectors (item_id, model, content_hash, dims, vector, embedded_at) \
             SELECT $1, $2, $3, $4, $5, $6 WHERE EXISTS (SELECT 1 FROM items WHERE id = $1) \
             ON CONFLICT (item_id, model) DO UPDATE SET content_hash = excluded.content_hash, \
             dims = excluded.dims, vector = excluded.vector, embedded_at = excluded.embedded_at",
        )
        .bind(id)
        .bind(key)
        .bind(hash)
        .bind(v.len() as i64)
        .bind(encode(v))
        .bind(&now)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// How many vectors are stored under `key`.
pub async fn vector_count(store: &FeedStore, key: &str) -> Result<i64> {
    Ok(sqlx::query("SELECT count(*) AS n FROM item_vectors WHERE model = $1")
        .bind(key)
        .fetch_one(store.pool())
        .await?
        .get("n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_round_trip_and_bad_blobs_are_dropped() {
        let v = vec![0.6_f32, -0.8, 0.0];
        assert_eq!(decode(&encode(&v)), Some(v));
        assert_eq!(decode(&[1, 2, 3]), None);
        assert_eq!(decode(&[]), None);
    }

    #[test]
    fn documents_use_the_original_prompt() {
        assert_eq!(document_text("", "abc "), "title: none | text: abc");
        assert_eq!(document_text("T", &"x".repeat(5000)).len(), "title: T | text: ".len() + DOCUMENT_CHARS);
    }
}
