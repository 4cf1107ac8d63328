//! Full-text search over the whole archive (titles and summaries), ranked by BM25.
//!
//! This is the only module that queries the SQLite FTS5 index (`items_fts`, kept in
//! sync with `items` by triggers in the migration); a PostgreSQL backend replaces this
//! file. User text never reaches FTS5 as syntax: it is split into words, each word (or
//! a "quoted phrase" the user wrote) becomes a quoted FTS5 string, common function
//! words are dropped, and the terms are joined with OR so BM25 ranks items matching
//! more (and rarer) terms first. Titles weigh three times summaries.

use serde::{Deserialize, Serialize};
use sqlx::Row;

use crate::Result;
use crate::clean;
use crate::store::FeedStore;

/// Most terms taken from one query.
const MAX_TERMS: usize = 24;

/// BM25 column weights: title, summary.
const WEIGHTS: (f64, f64) = (3.0, 1.0);

const STOPWORDS: &[&str] = &[
    "a", "about", "an", "and", "any", "are", "as", "at", "be", "by", "can", "do", "for", "from", "how", "i", "in",
    "is", "it", "me", "my", "new", "of", "on", "or", "papers", "paper", "show", "some", "that", "the", "this", "to",
    "what", "with", "anything", "find", "search", "articles", "items",
];

/// A search of the archive.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SearchQuery {
    /// What to look for, as a person would type it. Empty = filters only, newest first.
    pub text: String,
    /// Only items carrying this tag (normalised like stored tags).
    pub tag: Option<String>,
    /// Only items published at or after this [`crate::model::stamp`].
    pub since: Option<String>,
    /// Most hits returned.
    pub limit: usize,
}

impl SearchQuery {
    /// A text search with no filters.
    pub fn text(text: impl Into<String>, limit: usize) -> SearchQuery {
        SearchQuery { text: text.into(), limit, ..SearchQuery::default() }
    }
}

/// One hit: an item and how well it matched (BM25, higher is better; 0 when the query
/// had no text).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SearchHit {
    /// The item.
    pub item_id: i64,
    /// Relevance, comparable only within one search.
    pub score: f64,
}

/// Turn user text into a safe FTS5 query: quoted terms joined by OR. A word with inner
/// punctuation (`C-H`, `cs.LG`) becomes a phrase of its parts, as does a "quoted
/// phrase". `None` when nothing searchable is left.
pub fn fts_query(text: &str) -> Option<String> {
    let balanced = text.matches('"').count() % 2 == 0;
    let mut phrases: Vec<String> = Vec::new();
    let mut singles: Vec<String> = Vec::new();
    for (k, part) in text.split('"').enumerate() {
        if k % 2 == 1 && balanced {
            let w = words(part);
            if !w.is_empty() {
                phrases.push(w.join(" "));
            }
            continue;
        }
        // Inner `-`, `.`, `/`, `'` and `_` bind parts into one phrase; other
        // punctuation separates terms.
        let spaced: String =
            part.chars().map(|c| if c.is_alphanumeric() || "-./'_".contains(c) { c } else { ' ' }).collect();
        for chunk in spaced.split_whitespace() {
            let w = words(chunk);
            match w.len() {
                0 => {}
                1 => singles.extend(w),
                _ => phrases.push(w.join(" ")),
            }
        }
    }
    let content: Vec<String> = singles.iter().filter(|w| !STOPWORDS.contains(&w.as_str())).cloned().collect();
    let mut terms = phrases;
    let only_stopwords = content.is_empty() && terms.is_empty();
    terms.extend(if only_stopwords { singles } else { content });
    let mut seen = std::collections::HashSet::new();
    terms.retain(|t| seen.insert(t.clone()));
    terms.truncate(MAX_TERMS);
    if terms.is_empty() {
        return None;
    }
    Some(terms.iter().map(|t| format!("\"{}\"", t.replace('"', "\"\""))).collect::<Vec<_>>().join(" OR "))
}

/// Lowercased runs of letters and digits, split as the FTS5 tokenizer splits them.
fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// Search the archive. With text: BM25 order, then newest. Without: the filters alone,
/// newest first.
pub async fn search(store: &FeedStore, q: &SearchQuery) -> Result<Vec<SearchHit>> {
    let limit = q.limit.max(1) as i64;
    let tag = q.tag.as_deref().and_then(clean::normalise_tag);
    let since = q.since.as_deref();
    let Some(fts) = fts_query(&q.text) else {
        let rows = sqlx::query(
            "SELECT i.id FROM items i WHERE ($1 IS NULL OR i.published >= $1) \
             AND ($2 IS NULL OR EXISTS (SELECT 1 FROM item_tags t WHERE t.item_id = i.id AND t.tag = $2)) \
             ORDER BY i.published DESC, i.id DESC LIMIT $3",
        )
        .bind(since)
        .bind(&tag)
        .bind(limit)
        .fetch_all(store.pool())
        .await?;
        return Ok(rows.iter().map(|r| SearchHit { item_id: r.get(0), score: 0.0 }).collect());
    };
    let mut sql = format!(
        "SELECT f.rowid AS id, bm25(items_fts, {}, {}) AS s FROM items_fts f WHERE items_fts MATCH $1",
        WEIGHTS.0, WEIGHTS.1
    );
    let mut n = 1;
    if since.is_some() {
        n += 1;
        sql.push_str(&format!(" AND f.rowid IN (SELECT id FROM items WHERE published >= ${n})"));
    }
    if tag.is_some() {
        n += 1;
        sql.push_str(&format!(" AND f.rowid IN (SELECT item_id FROM item_tags WHERE tag = ${n})"));
    }
    sql.push_str(&format!(" ORDER BY s, f.rowid DESC LIMIT ${}", n + 1));
    let mut query = sqlx::query(&sql).bind(&fts);
    if let Some(s) = since {
        query = query.bind(s);
    }
    if let Some(t) = &tag {
        query = query.bind(t);
    }
    let rows = query.bind(limit).fetch_all(store.pool()).await?;
    Ok(rows.iter().map(|r| SearchHit { item_id: r.get("id"), score: -r.get::<f64, _>("s") }).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_text_never_becomes_syntax() {
        assert_eq!(fts_query("papers on C-H activation").as_deref(), Some("\"c h\" OR \"activation\""));
        assert_eq!(fts_query("\"graph neural\" networks").as_deref(), Some("\"graph neural\" OR \"networks\""));
        assert_eq!(
            fts_query("NEAR(a b) AND title:* \"unbalanced").as_deref(),
            Some("\"near\" OR \"b\" OR \"title\" OR \"unbalanced\"")
        );
        assert_eq!(fts_query("the of"), Some("\"the\" OR \"of\"".into()));
        assert_eq!(fts_query("  ** () "), None);
    }
}
