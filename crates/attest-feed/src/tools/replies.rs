//! Details the tools return in an answer's `data`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use attest_archive::tools::Row;

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
    /// Every author the feed names, in order (the row's `authors` shows three).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub all_authors: Vec<String>,
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
    /// The topic's name: its central concepts, or "other topics" for items of none.
    pub topic: String,
    /// The topic's central concepts (empty for "other topics").
    pub concepts: Vec<String>,
    /// Unrated items in the window in this topic.
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
    /// Topics, the one holding the reader's best item first; items of no topic last.
    pub groups: Vec<Group>,
    /// Topics not shown.
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
