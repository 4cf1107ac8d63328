//! The rows and answers of the tools over the archive.

use attest_core::Ref;
use attest_core::text::clip;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{TITLE_CHARS, URL_CHARS};
use crate::kind::Kind;
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
    /// Its authors as the feed names them, the first three then "et al." (absent when
    /// the feed names none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authors: Option<String>,
    /// The reader's verdict, when they rated it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rated: Option<bool>,
    /// What kind of item it is (paper, preprint, survey, release, post), in search hits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<Kind>,
}

/// An item as a row.
pub fn row(it: &Item, rated: Option<bool>) -> Row {
    Row {
        item_id: it.id,
        title: clip(&it.title, TITLE_CHARS),
        source: it.source.as_deref().map(|s| clip(s, 40)),
        published: it.published.get(..10).unwrap_or(&it.published).to_string(),
        tags: it.tags.iter().take(3).map(|t| clip(t, 32)).collect(),
        authors: byline(&it.authors),
        rated,
        kind: None,
    }
}

/// Authors as a line shows them: up to three names, then "et al."; `None` for none.
pub fn byline(authors: &[String]) -> Option<String> {
    const SHOWN: usize = 3;
    if authors.is_empty() {
        return None;
    }
    let names: Vec<String> = authors.iter().take(SHOWN).map(|a| clip(a, 40)).collect();
    let more = if authors.len() > SHOWN { " et al." } else { "" };
    Some(format!("{}{more}", names.join(", ")))
}

/// An item's ref: `item:<id>` with its address, when it has one.
pub fn item_ref(id: i64, url: Option<&str>) -> Ref {
    match url {
        Some(u) if !u.is_empty() => Ref::with_url(format!("item:{id}"), clip(u, URL_CHARS)),
        _ => Ref::id(format!("item:{id}")),
    }
}

/// What `feed.search` returns.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Searched {
    /// The reader.
    pub user: String,
    /// The query as given.
    pub query: String,
    /// Items matching the query well (0 when only near misses were found).
    pub hits: usize,
    /// The best ones for the reader, best first.
    pub items: Vec<Row>,
    /// How many more hits there are below these (at least, when hits is 100).
    pub more: usize,
    /// How far to trust the reader's part of the order.
    pub quality: Value,
    /// Hits skipped before these (paging).
    #[serde(default)]
    pub offset: usize,
    /// True when nothing matched well and `items` are the closest near misses.
    #[serde(default)]
    pub closest: bool,
}
