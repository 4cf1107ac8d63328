//! Tagging the archive: keyphrases for items that have none, and the optional chat
//! tagger.
//!
//! Ingest tags every new item with keyphrases ([`crate::ingest::add_keyphrases`]).
//! [`tag_with_keyphrases`] (`attest tag`) does the same for items stored before that,
//! or through a path that skipped it. [`tag_with_chat`] (`attest tag --chat`) asks an
//! OpenAI-compatible chat endpoint for topic tags and, for each item whose reply passes
//! [`attest_tags::chat::parse_reply`], replaces the item's keyphrase tags with them.
//! Tags the feed itself carried (origin `feed`) are never touched. The chat tagger is
//! off unless `LLM_BASE_URL` and `LLM_MODEL` are set ([`ChatSettings::from_env`]).
//!
//! Every item is written in its own short transaction, so a run stopped half-way
//! (the endpoint went away) leaves every item either as it was or fully re-tagged.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sqlx::Row as _;

use crate::Result;
use crate::store::FeedStore;

/// What [`tag_with_keyphrases`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TagReport {
    /// Items that had no keyphrase or chat tag.
    pub candidates: usize,
    /// Items that received keyphrase tags.
    pub tagged: usize,
    /// Tags written in all.
    pub tags_written: usize,
}

/// Items that carry no tag from a tagger (origin `keyphrase` or `chat`), oldest first.
const NOT_TAGGER_TAGGED: &str = "SELECT id, title, summary FROM items i WHERE NOT EXISTS \
     (SELECT 1 FROM item_tags t WHERE t.item_id = i.id AND t.origin IN ('keyphrase', 'chat'))";

async fn vocabulary(store: &FeedStore) -> Result<attest_tags::Vocabulary> {
    Ok(attest_tags::vocabulary(store.tag_vocabulary().await?, attest_tags::Canon::builtin()))
}

async fn feed_tags(store: &FeedStore, item_id: i64) -> Result<Vec<String>> {
    let rows = sqlx::query("SELECT tag FROM item_tags WHERE item_id = $1 AND origin = 'feed' ORDER BY tag")
        .bind(item_id)
        .fetch_all(store.pool())
        .await?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// Tag every item that no tagger has tagged yet with up to `max` concepts from its
/// title and summary ([`attest_tags::batch_concepts`] over all of them as one batch),
/// mapped onto the archive's vocabulary. One transaction.
pub async fn tag_with_keyphrases(store: &FeedStore, max: usize) -> Result<TagReport> {
    let vocab = vocabulary(store).await?;
    let rows = sqlx::query(&format!("{NOT_TAGGER_TAGGED} ORDER BY id")).fetch_all(store.pool()).await?;
    let mut report = TagReport { candidates: rows.len(), ..TagReport::default() };
    let mut texts: Vec<(i64, String, String, Vec<String>)> = Vec::with_capacity(rows.len());
    for r in &rows {
        let (id, title, summary): (i64, String, String) = (r.get(0), r.get(1), r.get(2));
        let own: Vec<String> = feed_tags(store, id).await?.iter().flat_map(|t| attest_tags::concept_tags(t)).collect();
        texts.push((id, title, summary, own));
    }
    // One batch: a phrase several of these items share is a concept even when the
    // archive has not met it yet.
    let batch: Vec<(&str, &str, &[String])> =
        texts.iter().map(|(_, t, s, own)| (t.as_str(), s.as_str(), own.as_slice())).collect();
    let tags = attest_tags::batch_concepts(&batch, &vocab, max.max(1));
    let planned: Vec<(i64, Vec<String>)> =
        texts.iter().zip(tags).filter(|(_, t)| !t.is_empty()).map(|((id, ..), t)| (*id, t)).collect();
    let mut tx = store.write_tx().await?;
    for (id, tags) in &planned {
        report.tagged += 1;
        for t in tags {
            let done = sqlx::query(
                "INSERT INTO item_tags (item_id, tag, origin) VALUES ($1, $2, 'keyphrase') ON CONFLICT DO NOTHING",
            )
            .bind(id)
            .bind(t)
            .execute(&mut *tx)
            .await?;
            report.tags_written += done.rows_affected() as usize;
        }
    }
    tx.commit().await?;
    Ok(report)
}

/// The highest item id so far (0 for an empty archive): items above it are new.
pub async fn last_item_id(store: &FeedStore) -> Result<i64> {
    let row = sqlx::query("SELECT coalesce(max(id), 0) FROM items").fetch_one(store.pool()).await?;
    Ok(row.get(0))
}

/// Choose the concepts of every item added after `after_id` again, as one batch:
/// ingest tags each feed's items as a batch, so a phrase two feeds of one run share
/// recurs only when the run's items are seen together. The vocabulary is the
/// archive's tags from before them (and every feed category), so an item's own
/// first choice does not vouch for itself. The items' keyphrase tags are replaced in
/// one transaction; chat tags and feed tags are never touched. Returns how many items
/// were re-tagged.
pub async fn retag_since(store: &FeedStore, after_id: i64, max: usize) -> Result<usize> {
    let vocab_rows =
        sqlx::query("SELECT DISTINCT tag FROM item_tags WHERE item_id <= $1 OR origin = 'feed' ORDER BY tag")
            .bind(after_id)
            .fetch_all(store.pool())
            .await?;
    let vocab =
        attest_tags::vocabulary(vocab_rows.iter().map(|r| r.get::<String, _>(0)), attest_tags::Canon::builtin());
    let rows = sqlx::query(
        "SELECT id, title, summary FROM items i WHERE id > $1 AND NOT EXISTS \
         (SELECT 1 FROM item_tags t WHERE t.item_id = i.id AND t.origin = 'chat') ORDER BY id",
    )
    .bind(after_id)
    .fetch_all(store.pool())
    .await?;
    let own_rows =
        sqlx::query("SELECT item_id, tag FROM item_tags WHERE item_id > $1 AND origin = 'feed' ORDER BY item_id, tag")
            .bind(after_id)
            .fetch_all(store.pool())
            .await?;
    let mut own: std::collections::HashMap<i64, Vec<String>> = std::collections::HashMap::new();
    for r in &own_rows {
        own.entry(r.get(0)).or_default().push(r.get(1));
    }
    let empty: Vec<String> = Vec::new();
    let texts: Vec<(i64, String, String)> = rows.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect();
    let batch: Vec<(&str, &str, &[String])> =
        texts.iter().map(|(id, t, s)| (t.as_str(), s.as_str(), own.get(id).unwrap_or(&empty).as_slice())).collect();
    let tags = attest_tags::batch_concepts(&batch, &vocab, max.max(1));
    let mut tx = store.write_tx().await?;
    for ((id, ..), tags) in texts.iter().zip(&tags) {
        sqlx::query("DELETE FROM item_tags WHERE item_id = $1 AND origin = 'keyphrase'")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        for t in tags {
            sqlx::query(
                "INSERT INTO item_tags (item_id, tag, origin) VALUES ($1, $2, 'keyphrase') ON CONFLICT DO NOTHING",
            )
            .bind(id)
            .bind(t)
            .execute(&mut *tx)
            .await?;
        }
    }
    tx.commit().await?;
    Ok(texts.len())
}

// ---------------------------------------------------------------------------------
// The chat tagger

/// Why a chat request failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChatError {
    /// The endpoint could not be reached (refused, timed out, no route): the run stops.
    #[error("chat model unreachable at {url}: {reason}")]
    Unreachable {
        /// The endpoint.
        url: String,
        /// What the transport said.
        reason: String,
    },
    /// The endpoint answered, but not with a completion (an HTTP error, a body
    /// without a message): this item fails, the run goes on.
    #[error("{0}")]
    Failed(String),
}

/// A chat model: one system and one user message in, the assistant's text out.
pub trait ChatModel: Send + Sync {
    /// Complete one conversation.
    fn complete(&self, system: &str, user: &str) -> std::result::Result<String, ChatError>;
    /// A short name for reports ("qwen3:4b at http://localhost:11434/v1").
    fn name(&self) -> String;
}

/// Where the chat tagger's endpoint is, from the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatSettings {
    /// The OpenAI-compatible base address (`…/v1`); `/chat/completions` is appended.
    pub base_url: String,
    /// The model name sent.
    pub model: String,
    /// A bearer key, if the endpoint needs one.
    pub api_key: Option<String>,
}

impl ChatSettings {
    /// `LLM_BASE_URL`, `LLM_MODEL` and (optionally) `LLM_API_KEY` through `get`.
    /// `Ok(None)` when `LLM_BASE_URL` is unset (the tagger is off); an error naming
    /// what is missing when the address is set without a model.
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> std::result::Result<Option<ChatSettings>, String> {
        let nonempty = |k: &str| get(k).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        let Some(base_url) = nonempty("LLM_BASE_URL") else { return Ok(None) };
        let Some(model) = nonempty("LLM_MODEL") else {
            return Err(format!("LLM_BASE_URL is set ({base_url}) but LLM_MODEL is not: name the chat model to use"));
        };
        Ok(Some(ChatSettings { base_url, model, api_key: nonempty("LLM_API_KEY") }))
    }
}

/// A [`ChatModel`] behind an OpenAI-compatible `/chat/completions` endpoint.
#[cfg(feature = "fetch")]
#[derive(Debug, Clone)]
pub struct HttpChat {
    settings: ChatSettings,
    client: crate::openai::JsonClient,
}

#[cfg(feature = "fetch")]
impl HttpChat {
    /// A client for `settings`, with a 60 s timeout per request and a 1 MB answer cap.
    pub fn new(settings: ChatSettings) -> HttpChat {
        let opts = crate::openai::HttpOptions {
            timeout: std::time::Duration::from_secs(60),
            connect_timeout: std::time::Duration::from_secs(5),
            max_bytes: 1024 * 1024,
            ..crate::openai::HttpOptions::default()
        };
        let client = crate::openai::JsonClient::new(opts, settings.api_key.clone());
        HttpChat { settings, client }
    }

    fn url(&self) -> String {
        format!("{}/chat/completions", self.settings.base_url.trim_end_matches('/'))
    }
}

#[cfg(feature = "fetch")]
impl ChatModel for HttpChat {
    fn complete(&self, system: &str, user: &str) -> std::result::Result<String, ChatError> {
        use crate::openai::HttpError as H;
        let url = self.url();
        let body = serde_json::json!({
            "model": self.settings.model,
            "temperature": 0,
            "response_format": {"type": "json_object"},
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        });
        let answer = self.client.post_json(&url, &body).map_err(|e| match e {
            H::BadUrl(_) | H::Timeout { .. } | H::Transport { .. } => {
                ChatError::Unreachable { url: url.clone(), reason: e.to_string() }
            }
            H::Status { .. } | H::TooLarge { .. } | H::NotJson { .. } => ChatError::Failed(e.to_string()),
        })?;
        answer["choices"][0]["message"]["content"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| ChatError::Failed("the answer has no choices[0].message.content".into()))
    }

    fn name(&self) -> String {
        format!("{} at {}", self.settings.model, self.settings.base_url)
    }
}

/// What [`tag_with_chat`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ChatReport {
    /// The model, as [`ChatModel::name`] gives it.
    pub model: String,
    /// Items considered (no chat tag yet, newest first, at most the limit).
    pub candidates: usize,
    /// Items whose tags the model replaced.
    pub tagged: usize,
    /// Items whose reply was unusable twice: `(item id, why)`; they keep their
    /// keyphrase tags.
    pub failed: Vec<(i64, String)>,
    /// Why the run stopped early (the endpoint went away), if it did.
    pub stopped: Option<String>,
}

/// Tag up to `limit` items that have no chat tag yet (newest first) with the chat
/// model: per item one request and one retry; a usable reply replaces the item's
/// keyphrase tags in one transaction; an unusable one is listed in `failed`; an
/// unreachable endpoint stops the run (`stopped`).
pub async fn tag_with_chat(store: &FeedStore, model: Arc<dyn ChatModel>, limit: usize) -> Result<ChatReport> {
    let canon = attest_tags::Canon::builtin();
    let mut vocab = vocabulary(store).await?;
    let shown: Vec<String> =
        store.tag_counts(attest_tags::chat::VOCABULARY_SHOWN).await?.into_iter().map(|(t, _)| t).collect();
    let rows = sqlx::query(
        "SELECT id, title, summary FROM items i WHERE NOT EXISTS \
         (SELECT 1 FROM item_tags t WHERE t.item_id = i.id AND t.origin = 'chat') \
         ORDER BY published DESC, id DESC LIMIT $1",
    )
    .bind(limit as i64)
    .fetch_all(store.pool())
    .await?;
    let mut report = ChatReport { model: model.name(), candidates: rows.len(), ..ChatReport::default() };
    for r in &rows {
        let (id, title, summary): (i64, String, String) = (r.get(0), r.get(1), r.get(2));
        let user = attest_tags::chat::user_message(&title, &summary, &shown);
        let mut why = String::new();
        let mut tags = None;
        for _attempt in 0..2 {
            let m = Arc::clone(&model);
            let u = user.clone();
            let reply = tokio::task::spawn_blocking(move || m.complete(attest_tags::chat::SYSTEM, &u))
                .await
                .unwrap_or_else(|e| Err(ChatError::Failed(format!("chat task failed: {e}"))));
            match reply {
                Err(ChatError::Unreachable { url, reason }) => {
                    report.stopped = Some(format!("chat model unreachable at {url}: {reason}"));
                    return Ok(report);
                }
                Err(ChatError::Failed(e)) => why = e,
                Ok(text) => match attest_tags::chat::parse_reply(&text, canon, &vocab) {
                    Ok(t) => {
                        tags = Some(t);
                        break;
                    }
                    Err(e) => why = e.to_string(),
                },
            }
        }
        let Some(tags) = tags else {
            report.failed.push((id, why));
            continue;
        };
        let mut tx = store.write_tx().await?;
        sqlx::query("DELETE FROM item_tags WHERE item_id = $1 AND origin = 'keyphrase'")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        for t in &tags {
            sqlx::query("INSERT INTO item_tags (item_id, tag, origin) VALUES ($1, $2, 'chat') ON CONFLICT DO NOTHING")
                .bind(id)
                .bind(t)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        for t in tags {
            vocab.insert(t);
        }
        report.tagged += 1;
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::model::NewItem;

    /// Replies in order; `None` is an unreachable endpoint.
    struct Scripted(Mutex<Vec<Option<&'static str>>>);

    impl ChatModel for Scripted {
        fn complete(&self, _: &str, _: &str) -> std::result::Result<String, ChatError> {
            match self.0.lock().unwrap().remove(0) {
                Some(text) => Ok(text.to_string()),
                None => Err(ChatError::Unreachable { url: "http://stand-in/v1".into(), reason: "refused".into() }),
            }
        }
        fn name(&self) -> String {
            "scripted".into()
        }
    }

    async fn archive() -> FeedStore {
        let store = FeedStore::in_memory().await.unwrap();
        let items: Vec<NewItem> = (0..3)
            .map(|k| {
                let mut it = NewItem::build(
                    format!("g{k}"),
                    format!("Sparse attention kernels, part {k}"),
                    None,
                    format!("We study sparse attention kernels for long-context inference, variant {k}."),
                    Some(format!("2026-01-0{}T00:00:00Z", k + 1)),
                    ["systems".to_string()],
                );
                crate::ingest::add_keyphrases(std::slice::from_mut(&mut it), &attest_tags::Vocabulary::default());
                it
            })
            .collect();
        store.add_items(None, &items, "2026-01-05T00:00:00Z").await.unwrap();
        store
    }

    async fn origins(store: &FeedStore) -> Vec<(i64, String, String)> {
        sqlx::query_as("SELECT item_id, origin, tag FROM item_tags ORDER BY item_id, origin, tag")
            .fetch_all(store.pool())
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn ingest_keyphrases_are_stored_beside_the_feeds_tags() {
        let store = archive().await;
        let rows = origins(&store).await;
        assert!(rows.iter().any(|(_, o, t)| o == "feed" && t == "systems"), "{rows:?}");
        assert!(rows.iter().any(|(_, o, t)| o == "keyphrase" && t.contains("attention")), "{rows:?}");
        let r = tag_with_keyphrases(&store, 5).await.unwrap();
        assert_eq!(r, TagReport::default(), "nothing left for `attest tag`");
    }

    #[tokio::test]
    async fn chat_tags_replace_keyphrases_and_an_outage_stops_cleanly() {
        let store = archive().await;
        let before = origins(&store).await;
        // Newest first: item 3 gets tags; item 2's endpoint is gone.
        let model = Arc::new(Scripted(Mutex::new(vec![Some("{\"tags\": [\"sparse-attention\", \"news\"]}"), None])));
        let r = tag_with_chat(&store, model, 10).await.unwrap();
        assert_eq!((r.candidates, r.tagged), (3, 1), "{r:?}");
        assert!(r.stopped.as_deref().unwrap().contains("unreachable"), "{r:?}");
        let after = origins(&store).await;
        let item3: Vec<_> =
            after.iter().filter(|(i, _, _)| *i == 3).map(|(_, o, t)| (o.as_str(), t.as_str())).collect();
        assert_eq!(item3, [("chat", "sparse-attention"), ("feed", "systems")]);
        let untouched =
            |rows: &[(i64, String, String)]| rows.iter().filter(|(i, _, _)| *i != 3).cloned().collect::<Vec<_>>();
        assert_eq!(untouched(&after), untouched(&before), "items not reached are as they were");
    }

    #[tokio::test]
    async fn unusable_replies_keep_keyphrases_after_one_retry() {
        let store = archive().await;
        let model = Arc::new(Scripted(Mutex::new(vec![
            Some("sure!"),
            Some("{\"tags\": []}"),
            Some("[\"kernels\"]"),
            Some("[\"x1\"]"),
        ])));
        let r = tag_with_chat(&store, model, 2).await.unwrap();
        assert_eq!(r.tagged, 1, "{r:?}");
        assert_eq!(r.failed.len(), 1, "{r:?}");
        assert_eq!(r.failed[0].0, 3);
        assert!(r.failed[0].1.contains("no usable topic tag"), "{r:?}");
        assert!(r.stopped.is_none());
    }

    #[test]
    fn settings_come_from_the_environment_or_nowhere() {
        let none = |_: &str| None;
        assert_eq!(ChatSettings::from_env(none), Ok(None));
        let half = |k: &str| (k == "LLM_BASE_URL").then(|| "http://localhost:11434/v1".to_string());
        assert!(ChatSettings::from_env(half).unwrap_err().contains("LLM_MODEL"));
        let full = |k: &str| match k {
            "LLM_BASE_URL" => Some("http://h/v1".to_string()),
            "LLM_MODEL" => Some("m".to_string()),
            _ => None,
        };
        let s = ChatSettings::from_env(full).unwrap().unwrap();
        assert_eq!((s.base_url.as_str(), s.model.as_str(), s.api_key), ("http://h/v1", "m", None));
    }
}
