//! Details the tools return in an answer's `data`.

use attest_core::Ref;
use attest_core::text::clip;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{TITLE_CHARS, URL_CHARS};
use crate::model::Item;

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

pub(super) fn row(it: &Item, rated: Option<bool>) -> Row {
    Row {
        item_id: it.id,
        title: clip(&it.title, TITLE_CHARS),
        source: it.source.as_deref().map(|s| clip(s, 40)),
        published: it.published.get(..10).unwrap_or(&it.published).to_string(),
        tags: it.tags.iter().take(3).map(|t| clip(t, 32)).collect(),
        rated,
    }
}

pub(super) fn item_ref(id: i64, url: Option<&str>) -> Ref {
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
